"""A model's session on a skeleton with fused read-modify-writes (:mod:`graphs.fuse`).

The explorer gives candidates over its own events (an amo as a read and a write); the
model judges them over the fused skeleton (one event, as herd's).  :class:`FusedSession`
moves rf, co and the final writes into the fused numbering, and the verdicts' relations,
sets and witnesses back.
"""

from __future__ import annotations

from dataclasses import replace

from herdsman.cat.contract import Failure, Session, Verdict
from herdsman.graphs.fuse import Fused


class FusedSession:
    """``inner`` (prepared on ``fused.sk``) judging candidates of the original skeleton."""

    def __init__(self, inner: Session, fused: Fused) -> None:
        self.inner = inner
        self.fused = fused

    def check(
        self,
        rf: int,
        co: int | None = None,
        fw: int | None = None,
        explain: bool = False,
        want_shows: bool = False,
    ) -> list[Verdict]:
        f = self.fused
        got = self.inner.check(
            f.rel(rf),
            None if co is None else f.rel(co),
            None if fw is None else f.set(fw),
            explain,
            want_shows,
        )
        return [self._back(v) for v in got]

    def partial_violation(self, rf: int, co: int | None = None) -> bool:
        f = self.fused
        return self.inner.partial_violation(f.rel(rf), None if co is None else f.rel(co))

    def _back(self, v: Verdict) -> Verdict:
        """``v`` with its relations, sets and witnesses in the original numbering."""
        f = self.fused
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
