"""Consistency of partial graphs asked of the cat model from scratch (:class:`CatChecker`).

An explorer's graph holds a prefix of every thread.  Its skeleton (initial writes, then
each thread's prefix) depends only on the *shapes* of those prefixes, so the model is
prepared once per combination of shapes and the session is reused for every graph of that
shape; rf and co are encoded over the skeleton at each check.  The monotone axioms
(``Session.partial_violation``) decide whether a partial graph may be kept; a complete
graph gets the full verdicts (flags, ``undefined_unless``...) from ``Session.check``.

A session memoises what it computed for every rf/co it saw; to keep memory flat over long
explorations, a session is prepared afresh after serving :data:`RECYCLE` checks.
:mod:`cat.incremental` is the incremental alternative (checks only what the new event can
break).  Both implement ``cat.api.ConsistencyChecker``.
"""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.cat.contract import CheckPlan, PreparedModel, Session, Verdict
from herdsman.graphs.execution import ExecutionGraph, Relations
from herdsman.graphs.skeleton import Skeleton

#: Checks a session serves before it is prepared again (bounds its memo tables).
RECYCLE = 4096
#: Sessions kept at most (least recently prepared ones are dropped first).
MAX_SESSIONS = 512


class CatChecker:
    """Consistency through ``model.prepare(skeleton).partial_violation/check``."""

    name = "cat"
    exact = False

    def __init__(self, model: PreparedModel, arch: str) -> None:
        self.model = model
        self.arch = arch
        self._sessions: dict[tuple[int, ...], list] = {}  # key -> [session, uses]
        self.checks = 0
        self.prepared = 0

    def session(self, key: tuple[int, ...], sk: Skeleton) -> Session:
        """The model prepared for the skeleton ``sk`` of shape key ``key``."""
        entry = self._sessions.get(key)
        if entry is None or entry[1] >= RECYCLE:
            if entry is None and len(self._sessions) >= MAX_SESSIONS:
                self._sessions.pop(next(iter(self._sessions)))
            entry = self._sessions[key] = [self.model.prepare(sk, self.arch), 0]
            self.prepared += 1
        entry[1] += 1
        return entry[0]

    # ------------------------------------------------------------------ the interface
    def restart(self, g: ExecutionGraph) -> bool:
        """Whether ``g`` (a new graph: the empty one, or one a revisit built) may be
        completed; incremental checkers (re)build their state for it here."""
        return self.consistent(g)

    def added(self, g: ExecutionGraph, e: int) -> bool:
        """Whether ``g`` (where ``e`` was just added) may still be completed."""
        return self.consistent(g)

    def removed(self, g: ExecutionGraph, e: int) -> None:
        """``e`` (the last event added) was removed again."""

    def revisit_doomed(self, g: ExecutionGraph, r: int, a: int, kept: Sequence[int]) -> bool:
        """Whether the revisit of read ``r`` by write ``a`` keeping ``kept`` certainly
        gives an inconsistent graph (known without building it)."""
        return False

    def rf_floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        """How many of the rf options of the read ``e`` (next event; the initial write of
        location ``li`` then its writes in co order) are certainly inconsistent."""
        return 0

    def co_floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        """The lowest co position of the write ``e`` (next event) that may be
        consistent; the ones below it certainly are not."""
        return 0

    def consistent(self, g: ExecutionGraph) -> bool:
        """No monotone axiom fails on ``g`` (checked from scratch)."""
        self.checks += 1
        rel = g.relations()
        return not self.session(g.shape_key(), rel.sk).partial_violation(rel.rf, rel.co)

    def compiled_plan(self) -> CheckPlan | None:
        """None: the model's checks are evaluated whole, by the model."""
        return None

    def verdicts(
        self, g: ExecutionGraph, want_shows: bool = False
    ) -> tuple[list[Verdict], Relations]:
        """The model's verdicts on a finished graph, and the graph's relations they judged
        (initial writes, then thread by thread)."""
        rel = g.relations()
        s = self.session(g.shape_key(), rel.sk)
        return s.check(rel.rf, co=rel.co, want_shows=want_shows), rel
