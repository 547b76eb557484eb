"""``herdsman diff A B TESTS...``: its command line (the campaign is
:mod:`herd_compat.campaigns.diff`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from herdsman.herd_compat.campaigns.diff import DiffConfig, run_diff
from herdsman.herd_compat.campaigns.pools import add_worker_options, workers_of
from herdsman.herd_compat.campaigns.workers import ClusterError
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.herd7opts import variant_options
from herdsman.herd_compat.cli.model_files import add_model_files, model_files


def parser() -> Parser:
    from herdsman.engine.options import ENGINES

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
    p.add_argument("--json", dest="json_out", metavar="FILE", help="write everything as JSON")
    p.add_argument("-o", "--outdir", metavar="DIR", help="a DOT picture of each witness")
    p.add_argument(
        "--timeout", type=float, metavar="S", help="CPU seconds per model run and witness"
    )
    p.add_argument("--engine", choices=ENGINES, default="auto")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    p.add_argument("--variant", action="append", default=[], metavar="V")
    add_model_files(p)
    p.add_argument(
        "--show",
        type=int,
        default=20,
        metavar="N",
        help="describe at most N tests of each group (default 20; -1: all)",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: when stderr is a terminal)",
    )
    add_worker_options(p)
    return p


def main(argv: Sequence[str]) -> int:
    """``herdsman diff``'s entry point (errors are the caller's: ``cli.guarded``)."""
    a = parser().parse_args(list(argv))
    workers = workers_of(a)
    if a.timeout is not None and a.timeout <= 0:
        raise UsageError("--timeout must be positive")
    files = model_files(a, None, a.include, variant_options(a.variant))
    cfg = DiffConfig(
        a=a.a,
        b=a.b,
        inputs=a.inputs,
        workers=workers,
        db=a.db,
        resume=a.resume,
        json_out=a.json_out,
        outdir=a.outdir,
        timeout=a.timeout,
        engine=a.engine,
        include_dirs=files.include_dirs,
        variants=files.variants,
        bell=files.bell,
        macros=files.macros,
        progress=a.progress,
        show=a.show,
    )
    try:
        return run_diff(cfg).status
    except ClusterError as e:  # not reached, not started, or lost: one line, exit 2
        raise UsageError(str(e)) from None
    except KeyboardInterrupt:
        sys.stderr.write("interrupted: finished tests are in the journal; continue with --resume\n")
        return 130
