"""``herdsman explain MODEL TEST``: its command line (the analysis is
:mod:`herd_compat.analyses.explain.report`)."""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.herd_compat.analyses.explain.report import ExplainConfig, explain
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.model_files import add_model_group, model_group_of
from herdsman.herd_compat.cli.options import (
    add_limit_options,
    add_output_options,
    limits_of,
)
from herdsman.herd_compat.pipeline.limits import RUN_LIMITS


def parser() -> Parser:
    p = Parser(
        prog="herdsman explain",
        description="why a model allows or forbids a final state of a test: every candidate "
        "execution giving it, each with the first check that rejects it and its witness "
        "cycle (or an execution the model allows). Exit 0, 2: bad input, 3: --timeout or "
        "--max-memory.",
    )
    p.add_argument("model", metavar="MODEL", help="built-in model name or .cat file")
    p.add_argument("test", metavar="TEST", help="litmus test")
    p.add_argument(
        "--state",
        metavar="STATE",
        help="the final state, as in herd's conditions ('0:r1=0 /\\ 1:r1=0') or states "
        "('0:EAX=0; 1:EAX=0;'); default: the state of the test's exists/~exists clause",
    )
    add_output_options(
        p, outdir="a DOT picture per candidate in DIR (herd's style)", json="one JSON object"
    )
    p.add_argument("--max", type=int, metavar="N", help="list at most N rejected candidates")
    add_limit_options(p, "the explanation", RUN_LIMITS)
    add_model_group(p, model=None, checks=False)
    return p


def main(argv: Sequence[str]) -> int:
    """``herdsman explain``'s entry point (errors are the caller's: ``cli.guarded``)."""
    a = parser().parse_args(list(argv))
    if a.max is not None and a.max < 0:
        raise UsageError("--max must be >= 0")
    models = model_group_of(a, a.model, checks=False)
    cfg = ExplainConfig(
        model=a.model,
        test=a.test,
        state=a.state,
        outdir=a.outdir,
        json=a.json,
        include_dirs=models.include_dirs,
        variants=models.variants,
        bell=models.bell,
        macros=models.macros,
        limits=limits_of(a, RUN_LIMITS),
        limit=a.max,
    )
    return explain(cfg)
