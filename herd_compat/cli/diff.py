"""``herdsman diff A B TESTS...``: its command line (the campaign is
:mod:`herd_compat.campaigns.diff`)."""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.herd_compat.campaigns.diff import DiffConfig, run_diff
from herdsman.herd_compat.cli.args import Parser
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


def parser() -> Parser:
    p = Parser(
        prog="herdsman diff",
        description="run two models on many tests and report where their answers differ, "
        "each difference with an execution one model allows and the other forbids and the "
        "check that forbids it. Results go to an SQLite journal as they come (default "
        ".herdsman/diff-<A>-<B>-<inputs hash>.sqlite); --resume continues a stopped run. "
        "Exit 0: no difference, 1: differences, 2: bad input, 3: tests without a result.",
    )
    p.add_argument("a", metavar="A", help="a model: built-in name or .cat file")
    p.add_argument("b", metavar="B", help="the other model")
    p.add_argument("inputs", nargs="+", metavar="TESTS", help="litmus files, @index files, dirs")
    p.add_argument("--db", metavar="FILE", help="the journal (SQLite)")
    p.add_argument("--resume", action="store_true", help="skip tests already in the journal")
    add_output_options(
        p,
        outdir="a DOT picture of each witness",
        json="write everything as JSON",
        json_file=True,
        progress="progress bar",
    )
    add_limit_options(p, "each model's run of a test, and its witness search,", RUN_LIMITS)
    add_engine_options(p)
    add_model_options(p, model=None, checks=False)
    p.add_argument(
        "--show",
        type=int,
        default=20,
        metavar="N",
        help="describe at most N tests of each group (default 20; -1: all)",
    )
    add_worker_options(p)
    return p


def main(argv: Sequence[str]) -> int:
    """``herdsman diff``'s entry point (errors are the caller's: ``cli.guarded``)."""
    a = parser().parse_args(list(argv))
    workers = workers_of(a)
    models = models_of(a, None, checks=False)
    cfg = DiffConfig(
        a=a.a,
        b=a.b,
        inputs=a.inputs,
        workers=workers,
        db=a.db,
        resume=a.resume,
        json_out=a.json_out,
        outdir=a.outdir,
        limits=limits_of(a, RUN_LIMITS),
        engine=a.engine,
        include_dirs=models.include_dirs,
        variants=models.variants,
        progress=a.progress,
        show=a.show,
    )
    return run_campaign_command(
        [cfg.a, cfg.b], models, cfg.limits, lambda: run_diff(cfg).status, "journal"
    )
