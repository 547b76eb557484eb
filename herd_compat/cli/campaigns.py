"""What ``validate`` and ``diff`` share on the command line: their journal's options
(``--db``, ``--resume``), the options every campaign reads alike (workers, limits, the
model group, engine, output) filled into its config, and their models loaded once in
this process before any worker starts (a model that cannot load is one line, as ``run``
says it), then the campaign; a cluster out of reach is a usage error, an interruption
one line (exit 130: the finished tests are in the journal)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.campaigns.workers import ClusterError
from herdsman.herd_compat.cli.args import UsageError
from herdsman.herd_compat.cli.model_files import add_model_group, model_group_of
from herdsman.herd_compat.cli.options import (
    ModelOptions,
    add_engine_options,
    add_limit_options,
    add_worker_options,
    limits_of,
    workers_of,
)
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import RUN_LIMITS, Limits
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import load_first
from herdsman.herd_compat.pipeline.status import failure_status


def add_campaign_options(
    p: argparse.ArgumentParser, journal: str, limited: str, model: str | None = None
) -> None:
    """The options every campaign command has: the model group (``--model`` with help
    ``model``; None: the command takes its models as arguments) and its files, ``--db
    FILE`` (the campaign's ``journal``, an SQLite file) and ``--resume``, the limits of
    each ``limited``, the engine, and ``--jobs`` or dask."""
    add_model_group(p, model, checks=False)
    p.add_argument("--db", metavar="FILE", help=f"the {journal} (SQLite)")
    p.add_argument("--resume", action="store_true", help=f"skip tests already in the {journal}")
    add_limit_options(p, limited, RUN_LIMITS)
    add_engine_options(p)
    add_worker_options(p)


class CampaignFields(Protocol):
    """The fields of a campaign's config (``DiffConfig``, ``CampaignConfig``) that
    :meth:`CampaignArgs.into` fills."""

    workers: Workers
    limits: Limits
    db: str | None
    resume: bool
    json_out: str | None
    engine: str
    include_dirs: list[str]
    variants: set[str]
    bell: str | None
    macros: str | None
    progress: bool | None


@dataclass(frozen=True)
class CampaignArgs:
    """A campaign command's arguments as every campaign reads them: ``--jobs`` or dask,
    the limits, the model group with its files, the journal, the engine and the output."""

    workers: Workers
    limits: Limits
    models: ModelOptions
    db: str | None
    resume: bool
    json_out: str | None
    engine: str
    progress: bool | None

    def into(self, cfg: CampaignFields) -> None:
        """Fill ``cfg`` with these arguments."""
        cfg.workers, cfg.limits = self.workers, self.limits
        cfg.db, cfg.resume, cfg.json_out = self.db, self.resume, self.json_out
        cfg.engine, cfg.progress = self.engine, self.progress
        models = self.models
        cfg.include_dirs, cfg.variants = list(models.include_dirs), set(models.variants)
        cfg.bell, cfg.macros = models.bell, models.macros


def campaign_args(a: argparse.Namespace, model: str | None) -> CampaignArgs:
    """The arguments ``a`` of a campaign command, ``model`` the model it names (None: the
    command names its models itself); a :class:`UsageError` for a bad value."""
    workers = workers_of(a)
    limits = limits_of(a, RUN_LIMITS)
    models = model_group_of(a, model, checks=False)
    return CampaignArgs(workers, limits, models, a.db, a.resume, a.json_out, a.engine, a.progress)


def run_campaign_command(
    specs: Sequence[str | None],
    models: ModelOptions,
    limits: Limits,
    campaign: Callable[[], int],
    journal: str,
) -> int:
    """``campaign()``'s exit status once the models ``specs`` (with the model group
    ``models``) have loaded within ``limits``; ``journal`` names where finished tests are
    kept (``database``, ``journal``)."""
    for spec in specs:
        cfg = models.into(RunConfig(limits=limits))
        cfg.model = spec
        failed = load_first(cfg, ModelCache(cfg))
        if failed is not None:
            sys.stderr.write(failed.message + "\n")
            return failure_status(failed.kind)
    try:
        return campaign()
    except ClusterError as e:  # not reached, not started, or lost: one line, exit 2
        raise UsageError(str(e)) from None
    except KeyboardInterrupt:
        sys.stderr.write(
            f"interrupted: finished tests are in the {journal}; continue with --resume\n"
        )
        return 130
