"""Consistency of TruSt's partial graphs, asked of the cat model (the from-scratch check).

A TruSt graph holds a prefix of every thread.  Its skeleton (initial writes, then each
thread's prefix) depends only on the *shapes* of those prefixes, so the model is prepared
once per combination of shapes and the session is reused for every graph of that shape;
rf and co are re-encoded in the skeleton's numbering at each check.  The monotone axioms
(``Session.partial_violation``) decide whether a partial graph may be kept; a complete
graph gets the full verdicts (flags, ``undefined_unless``...) from ``Session.check``.

A session memoises what it computed for every rf/co it saw; to keep memory flat over long
explorations, a session is prepared afresh after serving :data:`RECYCLE` checks.
:mod:`engine.trust_incremental` is the incremental alternative (checks only what the
new event can break); ``bench/bench_trust.py`` measures both.
"""

from __future__ import annotations

from typing import Any

from herdsman.engine.trust_graph import TGraph
from herdsman.engine.trust_program import Program

#: Checks a session serves before it is prepared again (bounds its memo tables).
RECYCLE = 4096
#: Sessions kept at most (least recently prepared ones are dropped first).
MAX_SESSIONS = 512


class CatChecker:
    """Consistency through ``model.prepare(skeleton).partial_violation/check``."""

    name = "cat"

    def __init__(self, model: Any, prog: Program, arch: str) -> None:
        self.model = model
        self.prog = prog
        self.arch = arch
        self._sessions: dict[tuple[int, ...], list] = {}  # key -> [session, uses]
        self._skeletons: dict[tuple[int, ...], Any] = {}
        self.checks = 0
        self.prepared = 0

    def skeleton(self, key: tuple[int, ...]) -> Any:
        sk = self._skeletons.get(key)
        if sk is None:
            if len(self._skeletons) >= MAX_SESSIONS:
                self._skeletons.clear()
            sk = self._skeletons[key] = self.prog.skeleton(key)
        return sk

    def session(self, key: tuple[int, ...]) -> Any:
        entry = self._sessions.get(key)
        if entry is None or entry[1] >= RECYCLE:
            if entry is None and len(self._sessions) >= MAX_SESSIONS:
                self._sessions.pop(next(iter(self._sessions)))
            entry = self._sessions[key] = [self.model.prepare(self.skeleton(key), self.arch), 0]
            self.prepared += 1
        entry[1] += 1
        return entry[0]

    # ------------------------------------------------------------------ the interface
    def restart(self, g: TGraph) -> bool:
        """Whether ``g`` (a new graph: the empty one, or one a revisit built) may be
        completed; incremental checkers (re)build their state for it here."""
        return self.consistent(g)

    def added(self, g: TGraph, e: int) -> bool:
        """Whether ``g`` (where ``e`` was just added) may still be completed."""
        return self.consistent(g)

    def removed(self, g: TGraph, e: int) -> None:
        """``e`` (the last event added) was removed again."""

    def revisit_doomed(self, g: TGraph, r: int, a: int, kept: list[int]) -> bool:
        """Whether the revisit of read ``r`` by write ``a`` keeping ``kept`` certainly
        gives an inconsistent graph (known without building it)."""
        return False

    def rf_floor(self, g: TGraph, e: int, li: int) -> int:
        """How many of the rf options of the read ``e`` (next event; the initial write of
        location ``li`` then its writes in co order) are certainly inconsistent."""
        return 0

    def co_floor(self, g: TGraph, e: int, li: int) -> int:
        """The lowest co position of the write ``e`` (next event) that may be
        consistent; the ones below it certainly are not."""
        return 0

    def consistent(self, g: TGraph) -> bool:
        """No monotone axiom fails on ``g`` (checked from scratch)."""
        self.checks += 1
        key, rf, co, _, _ = g.encode()
        return not self.session(key).partial_violation(rf, co)

    def verdicts(self, g: TGraph, want_shows: bool = False) -> tuple[list, int, int]:
        """The model's verdicts on a finished graph, with rf and co as relations of its
        skeleton (numbered as ``graphs.execution``: initial writes, then thread by
        thread)."""
        key, rf, co, _, _ = g.encode()
        s = self.session(key)
        if want_shows:
            return s.check(rf, co=co, want_shows=True), rf, co
        return s.check(rf, co=co), rf, co
