"""Build small execution graphs by hand, for tests, examples and teaching.

Threads are lists of accesses; events get names so that rf, co and dependencies can be
given by name::

    from herdsman.graphs.build import build, W, R, F

    mp = build(
        [[W("x", 1), F("LWSYNC"), W("y", 1)],
         [R("y", 1, name="c"), R("x", 0, name="d")]],
        deps={"addr": [("c", "d")]},
    )
    mp.graph            # the ExecutionGraph (rf, co filled in)
    mp.rel              # its relations (skeleton, rf and co as bit relations)
    mp.ids["c"]         # event number of c
    mp.relation([("c", "d")])  # a relation from names

Items of a thread are made by :func:`W`, :func:`R`, :func:`F`, :func:`B`, :func:`RMW`, or
written as plain tuples ``("W", "x", 1)``, ``("R", "y", 0)``, ``("F", "SYNC")``, ``("B",)``.
Default names: ``"T:K"`` for item K of thread T (``"0:0"``, ``"1:2"``); an RMW named
``n`` gives ``n.r`` and ``n.w``; the initial write of ``x`` is ``"init:x"``.

``rf`` maps each read to its write (pairs ``(write, read)``); a read not mentioned reads
from the only write of its location with its value (an error if there is none or several).
``co`` lists, per location, writes in coherence order (the init write is put first
automatically); locations not mentioned take their writes in event order.  ``init``
gives initial values (0 otherwise).  ``deps`` gives dependency relations by name (``addr``,
``data``, ``ctrl``...), ``annots`` extra set names per event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from herdsman.graphs.events import Event, init_write
from herdsman.graphs.execution import ExecutionGraph, Relations
from herdsman.graphs.relalg import Universe
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.ir import Value

__all__ = ["Item", "W", "R", "F", "B", "RMW", "Built", "build"]


@dataclass(frozen=True)
class Item:
    """One instruction of a hand-built thread (see the module docstring)."""

    kind: str  # "W", "R", "F", "B" or "RMW"
    loc: str | None = None
    value: Value | None = None  # the value read (R, RMW) or written (W)
    written: Value | None = None  # RMW: the value written
    fence: str | None = None
    name: str | None = None
    instr: str = ""
    annots: frozenset[str] = field(default_factory=frozenset)


def W(
    loc: str, value: Value, *, name: str | None = None, instr: str = "", annots: Iterable[str] = ()
) -> Item:
    """A write of ``value`` to ``loc``."""
    return Item("W", loc, value, name=name, instr=instr, annots=frozenset(annots))


def R(
    loc: str, value: Value, *, name: str | None = None, instr: str = "", annots: Iterable[str] = ()
) -> Item:
    """A read of ``value`` from ``loc``."""
    return Item("R", loc, value, name=name, instr=instr, annots=frozenset(annots))


def F(kind: str, *, name: str | None = None, instr: str = "") -> Item:
    """A fence of herd set ``kind`` (``SYNC``, ``LWSYNC``, ``MFENCE``...)."""
    return Item("F", fence=kind, name=name, instr=instr or kind.lower())


def B(*, name: str | None = None, instr: str = "") -> Item:
    """A branch (commit) event, as herd makes for a conditional branch."""
    return Item("B", name=name, instr=instr)


def RMW(
    loc: str,
    read: Value,
    written: Value,
    *,
    name: str | None = None,
    instr: str = "",
    annots: Iterable[str] = ("X",),
) -> Item:
    """An atomic read-modify-write: a read and a write of one instruction instance."""
    return Item("RMW", loc, read, written, name=name, instr=instr, annots=frozenset(annots))


def _item(x: Item | tuple) -> Item:
    if isinstance(x, Item):
        return x
    if not isinstance(x, tuple) or not x:
        raise ValueError(f"not a thread item: {x!r}")
    kind, *args = x
    if kind in ("W", "R") and len(args) == 2:
        return Item(kind, args[0], args[1])
    if kind == "F" and len(args) == 1:
        return F(args[0])
    if kind == "B" and not args:
        return B()
    if kind == "RMW" and len(args) == 3:
        return RMW(args[0], args[1], args[2])
    raise ValueError(f"not a thread item: {x!r}")


@dataclass
class Built:
    """A hand-built graph and the names of its events."""

    graph: ExecutionGraph
    ids: dict[str, int]

    @property
    def rel(self) -> Relations:
        """The graph's relations (with its events' values)."""
        return self.graph.relations(values=True)

    @property
    def sk(self) -> Skeleton:
        return self.rel.sk

    @property
    def U(self) -> Universe:
        return self.rel.U

    def relation(self, pairs: Iterable[tuple[str, str]]) -> int:
        """A relation given by pairs of event names."""
        return self.U.from_pairs((self.ids[a], self.ids[b]) for a, b in pairs)

    def set(self, names: Iterable[str]) -> int:
        """An event set given by names."""
        return self.U.from_set(self.ids[a] for a in names)

    def name(self, eid: int) -> str:
        """The name of event ``eid``."""
        for k, v in self.ids.items():
            if v == eid:
                return k
        raise KeyError(eid)


def build(
    threads: Sequence[Sequence[Item | tuple]],
    *,
    rf: Iterable[tuple[str, str]] = (),
    co: Mapping[str, Sequence[str]] | Iterable[Sequence[str]] | None = None,
    init: Mapping[str, Value] | None = None,
    deps: Mapping[str, Iterable[tuple[str, str]]] | None = None,
    annots: Mapping[str, Iterable[str]] | None = None,
    cap: int | None = None,
) -> Built:
    """Build the skeleton and graph of the given threads (see the module docstring)."""
    items = [[_item(x) for x in th] for th in threads]
    init = dict(init or {})
    locs = set(init)
    for th in items:
        for it in th:
            if it.loc is not None:
                locs.add(it.loc)
    events: list[Event] = []
    ids: dict[str, int] = {}
    extra = {k: frozenset(v) for k, v in (annots or {}).items()}

    def add(name: str, ev: Event) -> None:
        if name in ids:
            raise ValueError(f"two events named {name!r}")
        ids[name] = len(events)
        events.append(ev._replace(annots=ev.annots | extra.get(name, frozenset())))

    for x in sorted(locs):
        add(f"init:{x}", init_write(x, init.get(x, 0)))
    for tid, th in enumerate(items):
        index = [0]

        def ev(
            kind: str, k: int, it: Item, tid: int = tid, index: list[int] = index, **kw
        ) -> Event:
            index[0] += 1
            return Event(kind, tid, index[0] - 1, k, instr=it.instr, **kw)

        for k, it in enumerate(th):
            name = it.name or f"{tid}:{k}"
            if it.kind == "RMW":
                add(f"{name}.r", ev("R", k, it, loc=it.loc, value=it.value, annots=it.annots))
                add(f"{name}.w", ev("W", k, it, loc=it.loc, value=it.written, annots=it.annots))
            elif it.kind in ("R", "W"):
                add(name, ev(it.kind, k, it, loc=it.loc, value=it.value, annots=it.annots))
            elif it.kind == "F":
                add(name, ev("F", k, it, fence=it.fence))
            elif it.kind == "B":
                add(name, ev("B", k, it))
            else:
                raise ValueError(f"unknown item kind {it.kind!r}")
    unknown = set(extra) - set(ids)
    if unknown:
        raise ValueError(f"annots for unknown events {sorted(unknown)}")

    dep_rels: dict[str, int] = {}
    U = Universe(len(events), cap)

    def eid(name: str) -> int:
        try:
            return ids[name]
        except KeyError:
            raise ValueError(f"no event named {name!r}") from None

    for dname, pairs in (deps or {}).items():
        dep_rels[dname] = U.from_pairs((eid(a), eid(b)) for a, b in pairs)
    sk = Skeleton(tuple(events), len(items), deps=dep_rels, cap=cap)

    # rf: given pairs, then the unique same-location same-value write for the others
    rf_src: dict[int, int] = {}
    for w, r in rf:
        wi, ri = eid(w), eid(r)
        we, re_ = events[wi], events[ri]
        if we.kind != "W" or re_.kind != "R" or we.loc != re_.loc:
            raise ValueError(f"rf {w} -> {r}: not a write and a read of one location")
        if we.value != re_.value:
            raise ValueError(f"rf {w} -> {r}: writes {we.value}, reads {re_.value}")
        rf_src[ri] = wi
    for i, e in enumerate(events):
        if e.kind == "R" and i not in rf_src:
            cands = [
                j
                for j, w in enumerate(events)
                if w.kind == "W" and w.loc == e.loc and w.value == e.value
            ]
            if len(cands) != 1:
                what = "no" if not cands else "several"
                raise ValueError(
                    f"read {_name_of(ids, i)} of {e.value} from {e.loc}: {what} write"
                    " with that value; give its rf"
                )
            rf_src[i] = cands[0]
    rf_rel = U.from_pairs((w, r) for r, w in rf_src.items())

    # co: per location, the given order after the init write; event order otherwise
    given: dict[str | None, list[int]] = {}
    orders = co.values() if isinstance(co, Mapping) else (co or ())
    for order in orders:
        ws = [eid(n) for n in order]
        lset = {events[w].loc for w in ws}
        if len(lset) != 1 or any(events[w].kind != "W" for w in ws):
            raise ValueError(f"co order {list(order)} is not writes of one location")
        (lx,) = lset
        given[lx] = [w for w in ws if events[w].tid >= 0]
    seqs = []
    for x in sorted(locs):
        ws = [i for i, e in enumerate(events) if e.kind == "W" and e.loc == x and e.tid >= 0]
        order = given.get(x, ws)
        if sorted(order) != ws:
            raise ValueError(f"co order for {x} must list each of its writes once")
        seqs.append([ids[f"init:{x}"], *order])
    co_rel = 0
    for seq in seqs:
        co_rel |= U.total_order(seq)
    return Built(ExecutionGraph.from_relations(sk, rf_rel, co_rel), ids)


def _name_of(ids: Mapping[str, int], eid: int) -> str:
    for k, v in ids.items():
        if v == eid:
            return k
    return str(eid)
