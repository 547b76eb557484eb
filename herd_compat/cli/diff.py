"""``herdsman diff A B TESTS...``: its command line (the campaign is
:mod:`herd_compat.campaigns.diff`)."""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.herd_compat.campaigns.diff import DiffConfig, run_diff
from herdsman.herd_compat.cli.args import Parser
from herdsman.herd_compat.cli.campaigns import (
    add_campaign_options,
    campaign_args,
    run_campaign_command,
)
from herdsman.herd_compat.cli.options import add_output_options


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
    add_output_options(
        p,
        outdir="a DOT picture of each witness",
        json="write everything as JSON",
        json_file=True,
        progress="progress bar",
    )
    add_campaign_options(p, "journal", "each model's run of a test, and its witness search,")
    p.add_argument(
        "--show",
        type=int,
        default=20,
        metavar="N",
        help="describe at most N tests of each group (default 20; -1: all)",
    )
    return p


def main(argv: Sequence[str]) -> int:
    """``herdsman diff``'s entry point (errors are the caller's: ``cli.guarded``)."""
    a = parser().parse_args(list(argv))
    c = campaign_args(a, None)
    cfg = DiffConfig(a=a.a, b=a.b, inputs=a.inputs, outdir=a.outdir, show=a.show)
    c.into(cfg)
    return run_campaign_command(
        [cfg.a, cfg.b], c.models, cfg.limits, lambda: run_diff(cfg).status, "journal"
    )
