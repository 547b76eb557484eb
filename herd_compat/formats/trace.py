"""An execution as a GenMC user reads an error trace: events per thread with their source
lines, what each read reads from, and the coherence order of each location.

Events are named ``(thread, index)`` as GenMC names them (a thread's first event is its
index 1: GenMC's index 0 is the thread's start); the initial writes are ``init``.
A C program's operations carry their source line (``LINE: text``), printed beside each
event.
"""

from __future__ import annotations

from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph


def position(t: int, i: int) -> str:
    """GenMC's name of the ``i``-th event (from 0) of thread ``t``."""
    return f"({t}, {i + 1})"


def event_name(g: ExecutionGraph, e: int) -> str:
    """GenMC's name of event ``e``: ``(thread, index)``, ``init`` for an initial write."""
    return "init" if e < g.L else position(g.tid[e], g.idx[e])


def _action(ev: Event) -> str:
    if ev.kind == "R":
        return f"R {ev.loc} = {ev.value}"
    if ev.kind == "W":
        return f"W {ev.loc} = {ev.value}"
    if ev.kind == "F":
        sets = "|".join(sorted(ev.annots))
        return f"F {ev.fence or sets}".rstrip()
    if ev.kind == "S":
        return f"spawn thread {ev.value}"
    if ev.kind == "J":
        return f"join thread {ev.value}"
    return "branch"


def trace(g: ExecutionGraph, thread_names: dict[int, str] | None = None) -> str:
    """The execution ``g`` as text: per thread its events (with rf for reads and the
    source of each), then co per location (lines end with a newline)."""
    names = thread_names or {}
    lines: list[str] = []
    width = 0
    rows: list[tuple[str, str, str] | str] = []
    for t in range(g.T):
        if not g.n[t]:
            continue
        rows.append(f"Thread {t}" + (f" ({names[t]})" if t in names else "") + ":")
        for e in range(g.base[t], g.base[t] + g.n[t]):
            ev = g.event(e)
            action = _action(ev)
            if ev.kind == "R":
                action += f"  (from {event_name(g, g.rf[e])})"
            rows.append((event_name(g, e), action, ev.instr))
            width = max(width, len(action))
    for row in rows:
        if isinstance(row, str):
            lines.append(row)
        else:
            name, action, instr = row
            lines.append(f"  {name:<8} {action:<{width}}   {instr}".rstrip())
    co = [
        f"  {x}: " + " -> ".join(["init", *(event_name(g, w) for w in g.co[li])])
        for li, x in enumerate(g.lay.locations)
        if g.co[li]
    ]
    if co:
        lines.append("Coherence order:")
        lines += co
    return "\n".join(lines) + "\n"
