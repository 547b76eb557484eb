"""Use after free across threads, as GenMC finds it: every access to a heap allocation
must happen before the ``free`` that releases it (hb: po and rf, along spawns and joins,
SC's happens-before), else the execution is an error, "Attempt to access freed memory".

A ``free`` is no event: each thread's end (:class:`ThreadDone`) lists what it released
and where (the position its next event had then), so the free's predecessors are those
of the event before it.  The thread's own later accesses stop it at once (the semantics);
this check finds the other threads' accesses on a finished execution's graph.
"""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.engine.semantics.events import FREED
from herdsman.engine.semantics.state import ThreadDone
from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph

__all__ = ["FREED", "freed_access"]


def _spawned_at(g: ExecutionGraph) -> list[int]:
    """Per thread, the id of the spawn event that started it (-1: none)."""
    at = [-1] * g.T
    for e in g.events():
        ev = g.ev[e]
        if ev is not None and ev.kind == "S" and 0 <= ev.other < g.T:
            at[ev.other] = e
    return at


def freed_access(g: ExecutionGraph, finals: Sequence[ThreadDone | None]) -> Event | None:
    """The first access of ``g`` to a heap allocation that does not happen before the
    free of it some thread (ending as ``finals``) made; None when there is none."""
    frees = [(t, a, pos) for t, d in enumerate(finals) if d is not None for a, pos in d.frees]
    if not frees:
        return None
    spawned_at = _spawned_at(g)
    for t, alloc, pos in frees:
        if pos:
            view = g.porf_view(g.base[t] + pos - 1, spawned_at)
        elif spawned_at[t] >= 0:
            view = g.porf_view(spawned_at[t], spawned_at)
        else:
            view = [0] * g.T
        for e in g.events():
            ev = g.ev[e]
            if ev is None or not ev.is_mem or ev.loc is None or g.in_view(e, view):
                continue
            if ev.loc.partition("+")[0] == alloc:
                return ev
    return None
