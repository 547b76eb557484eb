"""Skeletons from thread executions: numbering events the way ``graphs.execution`` wants.

One thread execution per thread gives one :class:`graphs.execution.Skeleton`: the initial
writes first (one per memory location, in name order), then each thread's events in
program order, thread by thread; ``deps`` holds herd's ``addr``/``data``/``ctrl``.
Thread executions of one *shape* (same events up to values) give the same skeleton up to
event values, so the engine prepares a model once per combination of shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from herdsman.engine.threads import ThreadExec
from herdsman.graphs.execution import Event, Skeleton
from herdsman.litmus.ir import Value


@dataclass
class Layout:
    """Where things are in a skeleton built from one thread execution per thread."""

    sk: Skeleton
    base: list[int]  # eid of the first event of each thread
    init_eid: dict[str, int]  # location -> its initial write
    valdep: int  # read -> write whose stored value it taints (relation)


def build_skeleton(
    locations: Sequence[str],
    init_mem: dict[str, Value],
    execs: Sequence[ThreadExec],
    values: Sequence[Sequence[Value | None]] | None = None,
) -> Layout:
    """The skeleton of ``execs`` (one per thread).  ``values``, when given, overrides the
    value of every thread event (per thread, in event order)."""
    events: list[Event] = []
    init_eid: dict[str, int] = {}
    for x in locations:
        eid = len(events)
        init_eid[x] = eid
        events.append(Event(eid, "W", -1, -1, loc=x, value=init_mem.get(x, 0)))
    base: list[int] = []
    iiid0 = 0
    for t, te in enumerate(execs):
        b = len(events)
        base.append(b)
        vals = values[t] if values is not None else None
        ninst = 0
        for i, e in enumerate(te.events):
            v = vals[i] if vals is not None else e.value
            events.append(
                Event(
                    b + i,
                    e.kind,
                    t,
                    e.poi,
                    loc=e.loc,
                    value=v,
                    fence=e.fence,
                    instr=e.instr,
                    annots=e.annots,
                    iiid=iiid0 + e.inst,
                )
            )
            ninst = max(ninst, e.inst + 1)
        iiid0 += ninst
    sk = Skeleton(tuple(events), len(execs))
    U = sk.U
    deps = {"addr": 0, "data": 0, "ctrl": 0}
    valdep = 0
    for t, te in enumerate(execs):
        b = base[t]
        for name, pairs in (("addr", te.addr), ("data", te.data), ("ctrl", te.ctrl)):
            deps[name] |= U.from_pairs((b + i, b + j) for i, j in pairs)
        valdep |= U.from_pairs((b + i, b + j) for i, j in te.valdep)
    sk.deps.update(deps)
    return Layout(sk, base, init_eid, valdep)
