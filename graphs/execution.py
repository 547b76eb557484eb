"""Execution graphs: events with po, rf, co (Shasha-Snir traces).

An :class:`ExecutionGraph` is split in two so that engines can enumerate many candidates
cheaply: a :class:`Skeleton` holds the events and every relation that does not depend on the
rf/co choice (po, loc, int/ext, the dependencies addr/data/ctrl, the event sets), and the
graph adds ``rf`` and ``co``.  Many graphs share one skeleton; a cat model prepares itself
once per skeleton.

Event numbering: the initial writes come first (one per memory location, in location-name
order), then each thread's events in program order, thread by thread; the events of one
instruction instance (one ``iiid``) are consecutive, in their causal order (read before
write).  Relations and sets are ints in the encoding of :mod:`graphs.relalg`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from herdsman.graphs.relalg import Universe, bits
from herdsman.litmus.ir import Value

#: Event kinds: read, write, fence, branch (herd's ``B`` commit events).
KINDS = ("R", "W", "F", "B")


@dataclass(frozen=True, slots=True)
class Event:
    """One event.  ``tid`` is -1 for an initial write; ``poi`` is the index of the
    instruction in its thread (labels not counted), -1 for an initial write.  ``iiid``
    identifies the instruction instance (events of one instruction share it, as the read
    and write of an RMW).  ``annots`` are extra herd set names the event belongs to (``X``,
    ``EX``, ...); ``fence`` is the fence kind (``SYNC``...) of an ``F`` event."""

    eid: int
    kind: str
    tid: int
    poi: int
    loc: str | None = None
    value: Value | None = None
    fence: str | None = None
    instr: str = ""
    annots: frozenset[str] = frozenset()
    iiid: int = -1

    @property
    def is_init(self) -> bool:
        return self.tid < 0

    @property
    def is_mem(self) -> bool:
        return self.kind in ("R", "W")


@dataclass
class Skeleton:
    """Events and their rf/co-independent relations.

    ``deps`` holds the dependency relations the program defines (``addr``, ``data``,
    ``ctrl``, and for RMWs ``rmw``-style pairs); ``extra_sets`` extra named event sets.
    """

    events: tuple[Event, ...]
    nthreads: int
    deps: dict[str, int] = field(default_factory=dict)
    extra_sets: dict[str, int] = field(default_factory=dict)
    cap: int | None = None

    def __post_init__(self) -> None:
        for i, e in enumerate(self.events):
            if e.eid != i:
                raise ValueError(f"event {e} is at index {i}")
        self.U = Universe(len(self.events), self.cap)

    @property
    def n(self) -> int:
        return len(self.events)

    # ---- event sets
    def _set(self, pred) -> int:
        s = 0
        for e in self.events:
            if pred(e):
                s |= 1 << e.eid
        return s

    @cached_property
    def R(self) -> int:
        return self._set(lambda e: e.kind == "R")

    @cached_property
    def W(self) -> int:
        return self._set(lambda e: e.kind == "W")

    @cached_property
    def M(self) -> int:
        return self.R | self.W

    @cached_property
    def F(self) -> int:
        return self._set(lambda e: e.kind == "F")

    @cached_property
    def B(self) -> int:
        return self._set(lambda e: e.kind == "B")

    @cached_property
    def IW(self) -> int:
        return self._set(lambda e: e.tid < 0)

    def fence_set(self, kind: str) -> int:
        return self._set(lambda e: e.kind == "F" and e.fence == kind)

    def annot_set(self, name: str) -> int:
        return self._set(lambda e: name in e.annots)

    @cached_property
    def locations(self) -> list[str]:
        """Memory locations, sorted by name."""
        return sorted({e.loc for e in self.events if e.loc is not None})

    @cached_property
    def by_loc(self) -> dict[str, int]:
        """Memory events of each location, as event sets."""
        out: dict[str, int] = {}
        for e in self.events:
            if e.loc is not None and e.kind in ("R", "W"):
                out[e.loc] = out.get(e.loc, 0) | (1 << e.eid)
        return out

    @cached_property
    def writes_by_loc(self) -> dict[str, int]:
        return {x: s & self.W for x, s in self.by_loc.items()}

    @cached_property
    def init_write(self) -> dict[str, int]:
        """The initial write event of each location."""
        return {e.loc: e.eid for e in self.events if e.tid < 0 and e.loc is not None}

    # ---- static relations
    @cached_property
    def po(self) -> int:
        """Program order: strict, per thread, between different instruction instances.

        As herd's ``po``: events of one instruction instance (same ``iiid >= 0``, e.g. the
        read and the write of an X86 ``XCHG``) are not po-related (see :attr:`iico`); init
        events are in no thread."""
        U = self.U
        r = 0
        before: dict[int, int] = {}  # per thread: events of earlier instances
        current: dict[int, tuple[int, int]] = {}  # per thread: (iiid, its events so far)
        for e in self.events:
            if e.tid < 0:
                continue
            b = before.get(e.tid, 0)
            inst, same = current.get(e.tid, (-1, 0))
            if e.iiid < 0 or e.iiid != inst:
                b |= same
                before[e.tid] = b
                same = 0
            if b:
                r |= U.spread(b) << e.eid
            current[e.tid] = (e.iiid, same | (1 << e.eid))
        return r

    @cached_property
    def iico(self) -> int:
        """Order inside one instruction instance (herd's intra-instruction causality
        restricted to the events we keep): the events of one ``iiid`` in event order, e.g.
        the read before the write of a read-modify-write."""
        U = self.U
        r = 0
        earlier: dict[int, int] = {}
        for e in self.events:
            if e.tid < 0 or e.iiid < 0:
                continue
            b = earlier.get(e.iiid, 0)
            if b:
                r |= U.spread(b) << e.eid
            earlier[e.iiid] = b | (1 << e.eid)
        return r

    @cached_property
    def po_iico(self) -> int:
        """po | iico: herd's ``po_iico``, the order its ``pco`` and ``pos`` are built on."""
        return self.po | self.iico

    @cached_property
    def same_instance(self) -> int:
        """Pairs of events of one instruction instance, reflexive (init events: none)."""
        U = self.U
        groups: dict[object, int] = {}
        for e in self.events:
            if e.tid < 0:
                continue
            key = e.iiid if e.iiid >= 0 else ("event", e.eid)
            groups[key] = groups.get(key, 0) | (1 << e.eid)
        r = 0
        for s in groups.values():
            r |= U.product(s, s)
        return r

    @cached_property
    def loc(self) -> int:
        """Same location (reflexive on memory events)."""
        U = self.U
        r = 0
        for s in self.by_loc.values():
            r |= U.product(s, s)
        return r

    @cached_property
    def int_(self) -> int:
        """Same thread, reflexive on thread events; init events are in no thread, so they
        are related to nothing, not even themselves (herd's ``same_proc_not_init``)."""
        U = self.U
        groups: dict[int, int] = {}
        for e in self.events:
            if e.tid >= 0:
                groups[e.tid] = groups.get(e.tid, 0) | (1 << e.eid)
        r = 0
        for s in groups.values():
            r |= U.product(s, s)
        return r

    @cached_property
    def ext(self) -> int:
        """Different threads; the init writes form one group of their own."""
        U = self.U
        groups: dict[int, int] = {}
        for e in self.events:
            t = e.tid if e.tid >= 0 else -1
            groups[t] = groups.get(t, 0) | (1 << e.eid)
        same = 0
        for s in groups.values():
            same |= U.product(s, s)
        return U.FULL & ~same

    def thread_events(self, tid: int) -> list[int]:
        return [e.eid for e in self.events if e.tid == tid]


class ExecutionGraph:
    """A candidate execution: a skeleton plus rf (write -> read) and co (strict order of the
    writes of each location, transitively closed; init writes first)."""

    __slots__ = ("sk", "rf", "co", "__dict__")

    def __init__(self, sk: Skeleton, rf: int, co: int) -> None:
        self.sk = sk
        self.rf = rf
        self.co = co

    @property
    def events(self) -> tuple[Event, ...]:
        return self.sk.events

    @property
    def U(self) -> Universe:
        return self.sk.U

    @cached_property
    def fr(self) -> int:
        U = self.U
        return U.seq(U.inverse(self.rf), self.co) & ~U.ID

    @cached_property
    def FW(self) -> int:
        """Final writes: the co-maximal write of each location."""
        U = self.U
        return self.sk.W & ~U.domain(self.co)

    def rf_source(self, read: int) -> int | None:
        c = self.U.col(self.rf, read)
        return None if not c else c.bit_length() - 1

    def co_order(self, loc: str) -> list[int]:
        """The writes of ``loc`` in co order (co must be total on them)."""
        ws = list(bits(self.sk.writes_by_loc.get(loc, 0)))
        U = self.U
        return sorted(ws, key=lambda w: bin(U.col(self.co, w) & self.sk.W).count("1"))

    def final_memory(self) -> dict[str, Value]:
        """Value of each location's co-last write."""
        out: dict[str, Value] = {}
        for w in bits(self.FW):
            e = self.sk.events[w]
            assert e.loc is not None and e.value is not None
            out[e.loc] = e.value
        return out


def co_from_orders(U: Universe, orders: Iterable[Sequence[int]]) -> int:
    """co from per-location sequences of writes (each a total order)."""
    r = 0
    for seq in orders:
        r |= U.total_order(seq)
    return r
