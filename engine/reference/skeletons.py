"""Skeletons from thread executions, numbered the way ``graphs.skeleton`` wants.

One thread execution per thread gives one :class:`graphs.skeleton.Skeleton`: the initial
writes first (one per memory location, in name order), then each thread's events in
program order, thread by thread.  Thread executions of one *shape* (same events up to
values) give the same skeleton up to event values, so the engine prepares a model once
per combination of shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from herdsman.engine.semantics.enumerate import ThreadExec
from herdsman.graphs.events import Event, init_write, with_value
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.ir import Value


@dataclass
class BuiltSkeleton:
    """Where things are in a skeleton built from one thread execution per thread."""

    sk: Skeleton
    base: list[int]  # number of the first event of each thread
    init_eid: dict[str, int]  # location -> its initial write


def build_skeleton(
    locations: Sequence[str],
    init_mem: dict[str, Value],
    execs: Sequence[ThreadExec],
    values: Sequence[Sequence[Value | None]] | None = None,
) -> BuiltSkeleton:
    """The skeleton of ``execs`` (one per thread).  ``values``, when given, overrides the
    value of every thread event (per thread, in event order)."""
    events: list[Event] = []
    init_eid: dict[str, int] = {}
    for x in locations:
        init_eid[x] = len(events)
        events.append(init_write(x, init_mem.get(x, 0)))
    base: list[int] = []
    for t, te in enumerate(execs):
        base.append(len(events))
        if values is None:
            events.extend(te.events)
        else:
            events.extend(with_value(e, v) for e, v in zip(te.events, values[t], strict=True))
    return BuiltSkeleton(Skeleton(tuple(events), len(execs)), base, init_eid)
