"""Explicit-state reachability on the operational machine: every state, once.

``reach(m, s0, ...)`` runs a depth-first search over every enabled transition of every
state, states compared by :meth:`Machine.key` (no write identities, dead registers
masked), so each reachable state is expanded once.  It stops at the first *bad* state (a
thread failed an assertion) with the path to it, and may collect a projection of every
state it visits (:func:`buffer_last`: the reachable set Narayan, Sharma and Arun-Kumar
compare between buffer bounds).  No reduction: the reachable set is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from herdsman.engine.errors import check_deadline
from herdsman.engine.operational.machine import FAILED, RUNNING, Effects, Machine, MState
from herdsman.litmus.base.ir import Value

__all__ = ["Reach", "StateLimit", "buffer_last", "has_failed", "reach", "replay"]


class StateLimit(Exception):
    """More states than the search was allowed to store."""

    def __init__(self, states: int) -> None:
        super().__init__(states)
        self.states = states


@dataclass
class Reach:
    """A search's result (cumulative when a search goes on from an earlier one): the
    keys of the states seen, transitions executed, the projections of the states (when
    asked), the *boundary* states (a thread's store waits for room in its full buffer:
    where a larger bound goes further) and, when a bad state was reached, the processes
    whose transitions lead there from the state the search started from."""

    seen: set[tuple] = field(default_factory=set)
    transitions: int = 0
    projections: set[Hashable] = field(default_factory=set)
    boundary: list[MState] = field(default_factory=list)
    path: list[int] | None = None

    @property
    def states(self) -> int:
        return len(self.seen)


def has_failed(s: MState) -> bool:
    """Whether a thread of ``s`` failed an assertion."""
    return any(x.status == FAILED for x in s.slots)


def buffer_last(m: Machine) -> Callable[[MState, tuple], Hashable]:
    """The projection of Theorem 1 (§4): control states, memory, local memories and, per
    buffer, only the last write to each location (in buffer order).  Under PSO a thread's
    buffers are one per location, so this is the last value per (thread, location); a
    barrier entry stays where it is."""

    def project(s: MState, key: tuple) -> Hashable:
        slots, mem, _ = key
        # a store is a transition ``W`` without buffers (bound 0), ``B`` with them
        slots = tuple(((("W", pc[1]) if pc[0] == "B" else pc), local) for pc, local in slots)
        lst = []
        for b in s.bufs:
            seen: set[int] = set()
            out: list[tuple[int, Value]] = []
            for e in reversed(b):
                if e.loc < 0:
                    out.append((-1, 0))
                elif e.loc not in seen:
                    seen.add(e.loc)
                    out.append((e.loc, e.value))
            lst.append(tuple(reversed(out)))
        return (slots, mem, tuple(lst))

    return project


def reach(
    m: Machine,
    s0: MState,
    project: Callable[[MState, tuple], Hashable] | None = None,
    bad: Callable[[MState], bool] = has_failed,
    deadline: float | None = None,
    max_states: int | None = None,
    before: Reach | None = None,
) -> Reach:
    """Every state reachable from ``s0`` (see the module docstring); stops at the first
    ``bad`` one.  With ``before`` (a search of the same program with a smaller bound) the
    search goes on from it — from its boundary states, counting its states as seen (every
    run of the larger bound leaves the smaller one's states at a boundary state) — and
    takes its sets over; the path of a bad state then starts at a boundary state.
    :class:`TimeLimitExceeded` past ``deadline``, :class:`StateLimit` past
    ``max_states``."""
    out = Reach()
    starts = [s0]
    if before is not None:  # its sets are taken over (they only grow)
        out.seen, out.projections = before.seen, before.projections
        out.transitions = before.transitions
        starts = before.boundary
    else:
        k0 = m.key(s0)
        out.seen.add(k0)
        if project is not None:
            out.projections.add(project(s0, k0))
        if bad(s0):
            out.path = []
            return out
    for start in starts:
        if _search(m, start, out, project, bad, deadline, max_states):
            break
    return out


def _search(
    m: Machine,
    s0: MState,
    out: Reach,
    project: Callable[[MState, tuple], Hashable] | None,
    bad: Callable[[MState], bool],
    deadline: float | None,
    max_states: int | None,
) -> bool:
    """Depth-first from ``s0`` (seen already) into ``out``; whether a bad state was
    reached."""
    fx = Effects([], [], [])
    seen = out.seen
    if _at_boundary(m, s0):
        out.boundary.append(s0)
    # the stack: per state on the current path, the processes still to try
    stack: list[tuple[MState, list[int]]] = [(s0, [p for p, _ in m.enabled(s0)])]
    path: list[int] = []
    while stack:
        s, todo = stack[-1]
        if not todo:
            stack.pop()
            if path:
                path.pop()
            continue
        p = todo.pop()
        tr, _ = m.next_tr(s, p)
        assert tr is not None
        s2 = m.execute(s, tr, len(path), fx)
        fx.events.clear()
        fx.rf.clear()
        fx.writes.clear()
        out.transitions += 1
        k = m.key(s2)
        if k in seen:
            continue
        seen.add(k)
        if project is not None:
            out.projections.add(project(s2, k))
        if bad(s2):
            out.path = [*path, p]
            return True
        if max_states is not None and len(seen) > max_states:
            raise StateLimit(len(seen))
        if len(seen) & 1023 == 0:
            check_deadline(deadline)
        if _at_boundary(m, s2):
            out.boundary.append(s2)
        path.append(p)
        stack.append((s2, [q for q, _ in m.enabled(s2)]))
    return False


def _at_boundary(m: Machine, s: MState) -> bool:
    """Whether a thread's bounded store waits for room in ``s``."""
    if m.bound is None:
        return False
    for t, x in enumerate(s.slots):
        if x.kind == "B" and x.status == RUNNING and not m.next_tr(s, t)[1]:
            return True
    return False


def replay(m: Machine, s0: MState, path: list[int]) -> tuple[MState, list[Effects]]:
    """Run the transitions of ``path`` (processes) from ``s0``: the last state and each
    transition's effects."""
    s = s0
    effects = []
    for pos, p in enumerate(path):
        tr, ok = m.next_tr(s, p)
        assert tr is not None and ok
        fx = Effects([], [], [])
        s = m.execute(s, tr, pos, fx)
        effects.append(fx)
    return s, effects
