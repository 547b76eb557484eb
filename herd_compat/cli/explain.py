"""``herdsman explain MODEL TEST``: its command line (the analysis is
:mod:`herd_compat.analyses.explain.report`)."""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.herd_compat.analyses.explain.report import ExplainConfig, explain
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.herd7opts import variant_options
from herdsman.herd_compat.cli.model_files import add_model_files, model_files


def parser() -> Parser:
    p = Parser(
        prog="herdsman explain",
        description="why a model allows or forbids a final state of a test: every candidate "
        "execution giving it, each with the first check that rejects it and its witness "
        "cycle (or an execution the model allows). Exit 0, 2: bad input, 3: --timeout.",
    )
    p.add_argument("model", metavar="MODEL", help="built-in model name or .cat file")
    p.add_argument("test", metavar="TEST", help="litmus test")
    p.add_argument(
        "--state",
        metavar="STATE",
        help="the final state, as in herd's conditions ('0:r1=0 /\\ 1:r1=0') or states "
        "('0:EAX=0; 1:EAX=0;'); default: the state of the test's exists/~exists clause",
    )
    p.add_argument(
        "-o", "--outdir", metavar="DIR", help="a DOT picture per candidate in DIR (herd's style)"
    )
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--max", type=int, metavar="N", help="list at most N rejected candidates")
    p.add_argument("--timeout", type=float, metavar="S", help="give up after S s of CPU")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    p.add_argument("--variant", action="append", default=[], metavar="V")
    add_model_files(p)
    return p


def main(argv: Sequence[str]) -> int:
    """``herdsman explain``'s entry point (errors are the caller's: ``cli.guarded``)."""
    a = parser().parse_args(list(argv))
    if a.max is not None and a.max < 0:
        raise UsageError("--max must be >= 0")
    if a.timeout is not None and a.timeout <= 0:
        raise UsageError("--timeout must be positive")
    files = model_files(a, None, a.include, variant_options(a.variant))
    cfg = ExplainConfig(
        model=a.model,
        test=a.test,
        state=a.state,
        outdir=a.outdir,
        json=a.json,
        include_dirs=files.include_dirs,
        variants=files.variants,
        bell=files.bell,
        macros=files.macros,
        time_limit=a.timeout,
        limit=a.max,
    )
    return explain(cfg)
