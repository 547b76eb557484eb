"""What ``validate`` and ``diff`` share on the command line: their models loaded once in
this process before any worker starts (a model that cannot load is one line, as ``run``
says it), then the campaign; a cluster out of reach is a usage error, an interruption
one line (exit 130: the finished tests are in the journal)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from herdsman.herd_compat.campaigns.workers import ClusterError
from herdsman.herd_compat.cli.args import UsageError
from herdsman.herd_compat.cli.options import ModelOptions
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import Limits
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import load_first
from herdsman.herd_compat.pipeline.status import failure_status


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
