"""Which po edges each machine may relax, and what orders them (fences, dependencies):
the facts about TSO, PSO and POWER the fence synthesis needs.

``relaxed_by(mode)(a, b, between)`` says whether the model may reorder ``a`` before ``b``
(events of one thread, different locations) with ``between`` in between — exactly under
TSO (write→read, unless a full fence or locked access is between) and PSO (also
write→write, unless MFENCE or SFENCE); over-approximated under POWER (a dependency from
the read may already order it; lwsync orders only on some cycles, which the oracles
decide with :func:`lwsync_orders`).  Under RC11 (C11's own orders: a fence orders only
with a fence or access of the other side, so over-approximated too) no read→write edge is
relaxed (RC11 forbids po ∪ rf cycles); a write→read edge is ordered by an SC fence (or
two SC accesses), a write→write edge by a release fence or a release write, a
read→read edge by an acquire fence or an acquire read.
"""

from __future__ import annotations

from collections.abc import Callable

from herdsman.graphs.events import Event
from herdsman.herd_compat.analyses.fences.cycles import Cycle

__all__ = [
    "RELAXED",
    "c11_orders",
    "depends",
    "fence_level",
    "has_isync",
    "lwsync_orders",
    "relaxed_by",
]


def orders_all(e: Event) -> bool:
    """A full fence: MFENCE, sync, a locked (atomic) x86 access."""
    return (e.kind == "F" and (e.fence in ("MFENCE", "SYNC"))) or "X" in e.annots


def _tso(a: Event, b: Event, between: list[Event]) -> bool:
    if a.kind != "W" or b.kind != "R" or orders_all(a) or orders_all(b):
        return False
    return not any(orders_all(e) for e in between)


def _pso(a: Event, b: Event, between: list[Event]) -> bool:
    if a.kind != "W" or orders_all(a) or orders_all(b):
        return False
    if any(orders_all(e) for e in between):
        return False
    if b.kind == "W":
        return not any(e.kind == "F" and e.fence == "SFENCE" for e in between)
    return True


def _power(a: Event, b: Event, between: list[Event]) -> bool:
    """Relaxed unless a sync or a dependency may already order it (over-approximated
    for dependencies from a read: a weaker need stays a necessary one; the model settles
    the rest)."""
    for e in between:  # (an lwsync orders only on some cycles: lwsync_orders)
        if e.kind == "F" and e.fence == "SYNC":
            return False
        if e.kind == "F" and e.fence == "EIEIO" and a.kind == "W" and b.kind == "W":
            return False
    if a.kind == "R":
        bit = 1 << a.index
        if any((e.addr | e.data | e.ctrl | e.valdep) & bit for e in [*between, b]):
            return False
    return True  # from a write only fences order (herd's ppo starts at reads)


#: C11's orders, as the C front-end annotates events, and what each includes.
C11_ORDERS = {"SC": {"SC", "ACQ_REL", "REL", "ACQ"}, "ACQ_REL": {"ACQ_REL", "REL", "ACQ"}}


def c11_orders(e: Event) -> set[str]:
    """The orders an access or fence ``e`` has (an SC fence is also acquire, release...)."""
    out: set[str] = set()
    for a in e.annots:
        out |= C11_ORDERS.get(a, {a})
    return out


def _rc11(a: Event, b: Event, between: list[Event]) -> bool:
    if a.kind == "R" and b.kind == "W":
        return False
    fences = set().union(*(c11_orders(e) for e in between if e.kind == "F"))
    if "SC" in fences:
        return False
    if a.kind == "W" and b.kind == "R":
        return not ("SC" in a.annots and "SC" in b.annots)
    if a.kind == "W":  # write -> write
        return not ("REL" in fences or "REL" in c11_orders(b))
    return not ("ACQ" in fences or "ACQ" in c11_orders(a))  # read -> read


#: The relaxed po edges of each machine, by model name.
RELAXED: dict[str, Callable[[Event, Event, list[Event]], bool]] = {
    "tso": _tso,
    "pso": _pso,
    "power": _power,
    "rc11": _rc11,
}


def relaxed_by(mode: str) -> Callable[[Event, Event, list[Event]], bool]:
    return RELAXED[mode]


def depends(a: Event, b: Event) -> bool:
    """Whether read ``a`` orders ``b`` by a dependency of ``b`` itself (address, data, or
    control to a write)."""
    bit = 1 << a.index
    return bool((b.addr | b.data) & bit) or (b.kind == "W" and bool(b.ctrl & bit))


def has_isync(events: list[Event]) -> bool:
    return any(e.kind == "F" and e.fence == "ISYNC" for e in events)


def fence_level(events: list[Event], write_read: bool) -> int:
    """How strongly the fences among ``events`` order a po edge (``write_read``: from a
    write to a read): 4 a full fence (sync, MFENCE), 3 lwsync (not write→read), else 0."""
    level = 0
    for e in events:
        if e.kind == "F" and e.fence in ("SYNC", "MFENCE"):
            return 4
        if e.kind == "F" and e.fence == "LWSYNC" and not write_read:
            level = 3
    return level


def lwsync_orders(c: Cycle, sync_on_cycle: bool) -> bool:
    """Whether lwsync (and dependencies) can break cycle ``c``: lwsync propagates writes
    to writes only (herd's ``prop``), so without a sync on the cycle observation needs
    at most one fre and propagation none; a write→read delay brings a sync anyway.  (IRIW
    needs syncs; MP, WRC, 2+2W do with lwsync.)"""
    return c.fr_edges < 2 or c.write_read or sync_on_cycle
