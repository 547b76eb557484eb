"""``herdsman validate``: its command line (the campaign is
:mod:`herd_compat.campaigns.validate`)."""

from __future__ import annotations

from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
from herdsman.herd_compat.campaigns.worker import WorkerFactory, engine_worker
from herdsman.herd_compat.cli import COMMANDS
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.campaigns import run_campaign_command
from herdsman.herd_compat.cli.options import (
    add_engine_options,
    add_limit_options,
    add_model_options,
    add_output_options,
    add_worker_options,
    limits_of,
    models_of,
    workers_of,
)
from herdsman.herd_compat.pipeline.limits import RUN_LIMITS

DESCRIPTION = COMMANDS["validate"]


def parser() -> Parser:
    p = Parser(
        prog="herdsman validate",
        description=DESCRIPTION + ". Results go to an SQLite database as they "
        "come (default .herdsman/validate-<model>-<inputs hash>.sqlite); --resume continues "
        "a stopped campaign (one campaign per database at a time; rows are checksummed). "
        "Exit 0: all identical, 1: differences, 2: input errors (or a database in use or "
        "corrupt), 3: tests over their time or memory limit, or lost to dead workers (run "
        "again with --resume).",
    )
    p.add_argument("inputs", nargs="+", metavar="DIR|@INDEX|FILE")
    add_model_options(p, checks=False)
    p.add_argument(
        "--expect",
        required=True,
        metavar="FILE",
        help="herd7 log or verdict table (format detected)",
    )
    p.add_argument(
        "--expect-column",
        type=int,
        default=1,
        metavar="N",
        help="column of a verdict table to compare with (default 1)",
    )
    p.add_argument("--db", metavar="PATH", help="campaign database")
    p.add_argument("--resume", action="store_true", help="skip tests already in the database")
    add_limit_options(p, "a test", RUN_LIMITS)
    add_output_options(p, json="write a JSON report", json_file=True, progress="progress bar")
    p.add_argument("--junit", dest="junit_out", metavar="OUT", help="write a JUnit XML report")
    add_engine_options(p)
    p.add_argument(
        "--show-mismatches",
        type=int,
        default=50,
        metavar="N",
        help="describe at most N differing tests (-1: all)",
    )
    add_worker_options(p)
    return p


def main(argv: list[str], worker: WorkerFactory | None = None) -> int:
    """``herdsman validate`` on local worker processes (``--jobs``) or, with ``--scheduler
    ADDRESS`` or ``--dask-local N``, on a dask cluster (workers made by ``worker``, the
    engine's by default; tests give other ones)."""
    a = parser().parse_args(argv)
    workers = workers_of(a)
    limits = limits_of(a, RUN_LIMITS)
    if a.expect_column < 1:
        raise UsageError("--expect-column must be at least 1")
    models = models_of(a, a.model, checks=False)
    cfg = CampaignConfig(
        inputs=a.inputs,
        expect=a.expect,
        model=a.model,
        expect_column=a.expect_column - 1,
        db=a.db,
        resume=a.resume,
        jobs=workers.jobs,
        limits=limits,
        json_out=a.json_out,
        junit_out=a.junit_out,
        engine=a.engine,
        include_dirs=models.include_dirs,
        variants=models.variants,
        progress=a.progress,
        show_mismatches=a.show_mismatches,
        scheduler=workers.scheduler,
        dask_local=workers.dask_local,
        connect_timeout=workers.connect_timeout,
    )
    return run_campaign_command(
        [cfg.model],
        models,
        limits,
        lambda: run_campaign(cfg, worker=worker or engine_worker).status,
        "database",
    )
