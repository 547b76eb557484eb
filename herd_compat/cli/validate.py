"""``herdsman validate``: its command line (the campaign is
:mod:`herd_compat.campaigns.validate`)."""

from __future__ import annotations

from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
from herdsman.herd_compat.campaigns.worker import WorkerFactory, engine_worker
from herdsman.herd_compat.cli import COMMANDS
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.campaigns import (
    add_campaign_options,
    campaign_args,
    run_campaign_command,
)
from herdsman.herd_compat.cli.options import MODEL_HELP, add_output_options

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
    add_campaign_options(p, "database", "a test", MODEL_HELP)
    p.add_argument(
        "--expect",
        required=True,
        metavar="FILE",
        help="herd7 log or verdict table (format detected); 'results': each test's own "
        "'Result:' line, judged as the Linux kernel's judgelitmus.sh",
    )
    p.add_argument(
        "--expect-column",
        type=int,
        default=1,
        metavar="N",
        help="column of a verdict table to compare with (default 1)",
    )
    add_output_options(p, json="write a JSON report", json_file=True, progress="progress bar")
    p.add_argument("--junit", dest="junit_out", metavar="OUT", help="write a JUnit XML report")
    p.add_argument(
        "--show-mismatches",
        type=int,
        default=50,
        metavar="N",
        help="describe at most N differing tests (-1: all)",
    )
    return p


def main(argv: list[str], worker: WorkerFactory | None = None) -> int:
    """``herdsman validate`` on local worker processes (``--jobs``) or, with ``--scheduler
    ADDRESS`` or ``--dask-local N``, on a dask cluster (workers made by ``worker``, the
    engine's by default; tests give other ones)."""
    a = parser().parse_args(argv)
    c = campaign_args(a, a.model)
    if a.expect_column < 1:
        raise UsageError("--expect-column must be at least 1")
    cfg = CampaignConfig(
        inputs=a.inputs,
        expect=a.expect,
        model=c.models.model,
        expect_column=a.expect_column - 1,
        junit_out=a.junit_out,
        show_mismatches=a.show_mismatches,
    )
    c.into(cfg)
    return run_campaign_command(
        [cfg.model],
        c.models,
        cfg.limits,
        lambda: run_campaign(cfg, worker=worker or engine_worker).status,
        "database",
    )
