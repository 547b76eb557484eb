"""Critical cycles of an execution (Shasha and Snir, TOPLAS 1988; Alglave and Maranget,
CAV 2011): the cycles of po ∪ com a fence can break.

The graph (``networkx``) has the execution's memory events as nodes, its external
communications (rfe, coe, fre — between threads) as ``com`` edges and, per thread, an
edge from each access to every later access of a *different* location as ``po`` edges
(po between accesses of one location is kept by every model).  A critical cycle visits
each thread at most once (at most one ``po`` edge per thread) and has at most three
accesses per location, from different threads; ``networkx.simple_cycles`` with a length
bound of twice the threads enumerates them.

A cycle's ``po`` edges that the model may relax are its *delays* (``relaxed(a, b,
between)`` decides: under TSO the write→read edges with no fence between); an execution
whose cycles all keep every delay unbroken stays allowed, and fencing every delay of one
cycle forbids it (exactly so under TSO and PSO; under POWER the model is asked again).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import networkx as nx

from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph

__all__ = ["Cycle", "Delay", "Relaxed", "critical_cycles", "po_edges"]

#: Whether the model may relax po from ``a`` to ``b`` (events of one thread, different
#: locations) with the events of ``between`` (strictly between them) in between.
Relaxed = Callable[[Event, Event, list[Event]], bool]


@dataclass(frozen=True)
class Delay:
    """A relaxed po edge of a cycle: thread ``thread``, from its ``src``-th event to its
    ``dst``-th, the events themselves, and the events of the thread strictly between."""

    thread: int
    src: int
    dst: int
    a: Event
    b: Event
    between: tuple[Event, ...]


@dataclass(frozen=True)
class Cycle:
    """A critical cycle: its events (graph ids, in cycle order), its delays, and how
    many of its com edges are from-reads (fre)."""

    events: tuple[int, ...]
    delays: tuple[Delay, ...]
    fr_edges: int = 0

    @property
    def write_read(self) -> bool:
        """Whether a delay goes from a write to a read."""
        return any(d.a.kind == "W" and d.b.kind == "R" for d in self.delays)

    def text(self, g: ExecutionGraph) -> str:
        """``W x (0,1) -po-> R y (0,2) -fr-> ...`` for reports."""
        parts = []
        for e in self.events:
            ev = g.event(e)
            parts.append(f"{ev.kind}{ev.loc}({g.tid[e]},{g.idx[e]})")
        return " -> ".join([*parts, parts[0]])


def po_edges(g: ExecutionGraph, cycles: list[Cycle]) -> Iterator[tuple[int, int]]:
    """The po edges (event ids, same thread) of ``cycles``."""
    for c in cycles:
        for i, a in enumerate(c.events):
            b = c.events[(i + 1) % len(c.events)]
            if g.tid[a] == g.tid[b]:
                yield a, b


def com_graph(g: ExecutionGraph) -> nx.DiGraph:
    """The execution's memory events with their external com edges and the po edges
    between accesses of different locations."""
    G = nx.DiGraph()
    mem = [e for e in g.events() if g.event(e).kind in ("R", "W")]
    G.add_nodes_from(mem)
    per: dict[int, list[int]] = {}
    for e in mem:
        per.setdefault(g.tid[e], []).append(e)
    for es in per.values():
        for i, a in enumerate(es):
            la = g.event(a).loc
            for b in es[i + 1 :]:
                if g.event(b).loc != la:
                    G.add_edge(a, b, kind="po")
    for li in range(g.L):
        ws = g.co[li]
        for i, w in enumerate(ws):  # coe
            for w2 in ws[i + 1 :]:
                if g.tid[w] != g.tid[w2]:
                    G.add_edge(w, w2, kind="co")
        for r in g.reads_of(li):
            src = g.rf[r]
            if src < 0:
                continue
            if src >= g.L and g.tid[src] != g.tid[r]:  # rfe
                G.add_edge(src, r, kind="rf")
            later = ws if src < g.L else ws[ws.index(src) + 1 :] if src in ws else []
            for w in later:  # fre
                if g.tid[w] != g.tid[r]:
                    G.add_edge(r, w, kind="fr")
    return G


def critical_cycles(g: ExecutionGraph, relaxed: Relaxed, limit: int = 10_000) -> Iterator[Cycle]:
    """The critical cycles of ``g`` (at most ``limit`` cycles are looked at).  A cycle
    with no delay (every po edge already kept, as far as ``relaxed`` knows) is one the
    model allows anyway: no fence on its edges can forbid it."""
    G = com_graph(g)
    threads = len({g.tid[e] for e in G.nodes})
    for n, cyc in enumerate(nx.simple_cycles(G, length_bound=2 * max(threads, 1))):
        if n >= limit:
            return
        c = _critical(g, G, cyc, relaxed)
        if c is not None:
            yield c


def _critical(g: ExecutionGraph, G: nx.DiGraph, cyc: list[int], relaxed: Relaxed) -> Cycle | None:
    visits: dict[int, int] = {}
    per_loc: dict[str | None, list[int]] = {}
    delays = []
    frs = 0
    for i, a in enumerate(cyc):
        b = cyc[(i + 1) % len(cyc)]
        ev = g.event(a)
        per_loc.setdefault(ev.loc, []).append(g.tid[a])
        kind = G.edges[a, b]["kind"]
        frs += kind == "fr"
        if kind != "po":
            continue
        t = g.tid[a]
        visits[t] = visits.get(t, 0) + 1
        if visits[t] > 1:
            return None
        ia, ib = g.idx[a], g.idx[b]
        base = g.base[t]
        between = tuple(g.event(base + j) for j in range(ia + 1, ib))
        eb = g.event(b)
        if relaxed(ev, eb, list(between)):
            delays.append(Delay(t, ia, ib, ev, eb, between))
    # each thread is one contiguous stretch of the cycle (visited once)
    entries: dict[int, int] = {}
    for i, a in enumerate(cyc):
        t = g.tid[a]
        if g.tid[cyc[i - 1]] != t:
            entries[t] = entries.get(t, 0) + 1
    if any(n > 1 for n in entries.values()):
        return None
    for ts in per_loc.values():
        if len(ts) > 3 or len(set(ts)) != len(ts):
            return None
    return Cycle(tuple(cyc), tuple(delays), frs)
