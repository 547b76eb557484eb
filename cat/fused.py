"""A model judging the candidates of a skeleton with fused read-modify-writes
(:mod:`graphs.fuse`) by its code for the fused skeleton.

The explorer gives candidates over its own events (an amo as a read and a write); the
model judges them over the fused skeleton (one event, as herd's).  :func:`fused_code`
wraps the model's ``check`` and ``partial`` to move rf, co and the final writes into the
fused numbering, and the verdicts' relations, sets and witnesses back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from herdsman.cat.contract import Failure, Verdict
from herdsman.graphs.fuse import Fused

#: ``check(rf, co, fw, explain, want_shows)`` of a prepared model (generated code; every
#: such function, fused or not, defaults them as ``CatSession.check`` does: callers may
#: leave out the trailing ones).
CheckFn = Callable[[int, int | None, int | None, bool, bool], list[Verdict]]
#: ``partial(rf, co, fw)``: whether a monotone check already fails (generated code; ``co``
#: and ``fw`` default to None).
PartialFn = Callable[[int, int | None, int | None], bool]


def fused_code(check: CheckFn, partial: PartialFn, f: Fused) -> tuple[CheckFn, PartialFn]:
    """``check`` and ``partial`` (made for ``f.sk``) on candidates of the original skeleton."""

    def check_original(
        rf: int, co: int | None = None, fw: int | None = None, *flags: bool
    ) -> list[Verdict]:
        # flags: explain, want_shows (as check's, when given)
        fused_co = None if co is None else f.rel(co)
        got = check(f.rel(rf), fused_co, None if fw is None else f.set(fw), *flags)
        return [_back(f, v) for v in got]

    def partial_original(rf: int, co: int | None = None, fw: int | None = None) -> bool:
        return partial(f.rel(rf), None if co is None else f.rel(co), fw)

    return check_original, partial_original


def _back(f: Fused, v: Verdict) -> Verdict:
    """``v`` with its relations, sets and witnesses in the original numbering."""
    if v.co is None and not v.shows and not v.show_sets and not v.failed:
        return v
    failed = tuple(
        x if x.witness is None else Failure(x.name, x.kind, [f.back[e] for e in x.witness])
        for x in v.failed
    )
    return replace(
        v,
        failed=failed,
        co=None if v.co is None else f.rel_back(v.co),
        shows={k: f.rel_back(r) for k, r in v.shows.items()},
        show_sets={k: f.set_back(s) for k, s in v.show_sets.items()},
    )
