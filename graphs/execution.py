"""The execution graph: events per thread, rf, co; grown and restricted by explorers.

An :class:`ExecutionGraph` holds the initial write of each location and a prefix of each
thread's events, the write each read reads from (rf) and, per location, its writes in
coherence order (co, after the initial write).  Explorers grow it one event at a time and
undo (``add_read``/``add_write``/``add_other``, ``pop``), copy it cheaply (a handful of
flat lists) and restrict it to a prefix of each thread (``truncate``).

Event ids are fixed by a :class:`Layout` shared by all graphs of one program: the initial
write of location ``l`` is ``l``; event ``i`` of thread ``t`` is ``base[t] + i``, room
being reserved for the longest execution of each thread, so ids survive additions and
deletions.  Per event the graph keeps its *stamp* (when it was added: the "added before"
order of TruSt), and for a read the write it reads from and the value.

:meth:`ExecutionGraph.relations` gives the graph as relations over a :class:`Skeleton`
(initial writes, then thread by thread; the numbering cat models and pictures use): a
:class:`Relations`, where ``fr`` and the final writes are derived, in this one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from herdsman.graphs.events import INIT, Event, init_write
from herdsman.graphs.relalg import Universe, bits
from herdsman.graphs.shapes import ShapeTable
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.ir import Value


def fr_of(U: Universe, rf: int, co: int) -> int:
    """from-reads: ``(rf^-1 ; co) \\ id`` (a read is fr-before the writes co-after the
    write it reads from)."""
    return U.seq(U.inverse(rf), co) & ~U.ID


@dataclass
class Relations:
    """A graph as relations over its skeleton: ``rf`` (write -> read) and ``co`` (the
    strict, transitive coherence order of each location's writes, initial write first).
    ``offsets[t]`` turns a graph id of thread ``t`` into its skeleton number."""

    sk: Skeleton
    rf: int
    co: int
    offsets: tuple[int, ...] = ()

    @property
    def U(self) -> Universe:
        return self.sk.U

    @property
    def events(self) -> tuple[Event, ...]:
        return self.sk.events

    @cached_property
    def fr(self) -> int:
        return fr_of(self.sk.U, self.rf, self.co)

    @cached_property
    def FW(self) -> int:
        """Final writes: the co-maximal write of each location."""
        return self.sk.W & ~self.sk.U.domain(self.co)

    def rf_source(self, read: int) -> int | None:
        c = self.sk.U.col(self.rf, read)
        return None if not c else c.bit_length() - 1

    def co_order(self, loc: str) -> list[int]:
        """The writes of ``loc`` in co order."""
        return self.sk.co_order(self.co, loc)

    def final_memory(self) -> dict[str, Value]:
        """Value of each location's co-last write."""
        out: dict[str, Value] = {}
        for w in bits(self.FW):
            e = self.sk.events[w]
            assert e.loc is not None
            out[e.loc] = e.known_value
        return out


class Layout:
    """Where the events of a program's graphs live (see the module docstring): the
    locations and their initial values, each thread's room (its longest execution) and
    first id, and the shapes of thread prefixes (for skeletons)."""

    def __init__(
        self, locations: Sequence[str], init: Sequence[Value], room: Sequence[int]
    ) -> None:
        self.locations = tuple(locations)
        self.init = tuple(init)
        self.loc_index = {x: i for i, x in enumerate(self.locations)}
        self.L = len(self.locations)
        self.T = len(room)
        self.room = tuple(room)
        base = []
        size = self.L
        for m in room:
            base.append(size)
            size += m
        self.base = tuple(base)
        self.size = size
        self.tid = [INIT] * self.L
        self.idx = list(range(self.L))
        for t, m in enumerate(room):
            self.tid += [t] * m
            self.idx += list(range(m))
        self.shapes = ShapeTable(self.locations, self.init)

    def loc_of(self, ev: Event | None) -> int:
        """The index of the location of the memory event ``ev``."""
        assert ev is not None and ev.loc is not None, f"{ev} is no memory access"
        return self.loc_index[ev.loc]


class ExecutionGraph:
    """An execution graph (see the module docstring).  ``cstate`` is the consistency
    checker's own state for this graph (see ``cat.api``); the graph caches its relations
    with values (pictures) until it changes."""

    __slots__ = (
        "lay",
        "T",
        "L",
        "base",
        "tid",
        "idx",
        "n",
        "ev",
        "shape",
        "stamp",
        "rf",
        "val",
        "co",
        "rl",
        "clock",
        "cstate",
        "_rel",
    )

    def __init__(self, lay: Layout) -> None:
        self.lay = lay
        self.T, self.L, self.base, self.tid, self.idx = lay.T, lay.L, lay.base, lay.tid, lay.idx
        size = lay.size
        self.n = [0] * lay.T
        self.ev: list[Event | None] = [
            init_write(x, v) for x, v in zip(lay.locations, lay.init, strict=True)
        ]
        self.ev += [None] * (size - lay.L)
        self.shape = [0] * size
        self.stamp = [0] * size
        self.rf = [-1] * size
        self.val: list[Value | None] = [*lay.init, *([None] * (size - lay.L))]
        self.co: list[list[int]] = [[] for _ in range(lay.L)]
        self.rl: list[list[int]] = [[] for _ in range(lay.L)]  # reads of each location
        self.clock = 1
        self.cstate: object = None
        self._rel: Relations | None = None

    # ------------------------------------------------------------------ copying
    def copy(self) -> ExecutionGraph:
        g = self.__class__.__new__(self.__class__)
        self._copy_into(g)
        return g

    def _copy_into(self, g: ExecutionGraph) -> None:
        g.lay, g.T, g.L, g.base, g.tid, g.idx = (
            self.lay,
            self.T,
            self.L,
            self.base,
            self.tid,
            self.idx,
        )
        g.n = self.n[:]
        g.ev = self.ev[:]
        g.shape = self.shape[:]
        g.stamp = self.stamp[:]
        g.rf = self.rf[:]
        g.val = self.val[:]
        g.co = [c[:] for c in self.co]
        g.rl = [c[:] for c in self.rl]
        g.clock = self.clock
        g.cstate = None
        g._rel = None

    # ------------------------------------------------------------------ reading
    def events(self) -> list[int]:
        """Ids of the thread events present, thread by thread."""
        out: list[int] = []
        for t in range(self.T):
            b = self.base[t]
            out.extend(range(b, b + self.n[t]))
        return out

    def event(self, e: int) -> Event:
        """Event ``e``, with its value."""
        ev = self.ev[e]
        assert ev is not None
        return ev if ev.kind != "R" else ev._replace(value=self.val[e])

    def event_at(self, e: int) -> Event:
        """Event ``e`` as added (a read without its value)."""
        ev = self.ev[e]
        assert ev is not None, f"no event {e}"
        return ev

    def loc(self, e: int) -> int:
        """Location index of a memory event."""
        if e < self.L:
            return e
        return self.lay.loc_of(self.ev[e])

    def last(self, t: int) -> int:
        """Id of the last event of thread ``t`` (-1 when it has none)."""
        return self.base[t] + self.n[t] - 1 if self.n[t] else -1

    def reads_of(self, li: int) -> list[int]:
        """Reads of location ``li`` present, in the order they were added."""
        return self.rl[li]

    def shape_key(self) -> tuple[int, ...]:
        """Per thread, the shape id of its present prefix (see :mod:`graphs.shapes`)."""
        out = []
        for t in range(self.T):
            k = self.n[t]
            out.append(self.shape[self.base[t] + k - 1] if k else 0)
        return tuple(out)

    def completion_key(self) -> tuple[int, ...] | None:
        """Per thread, the shape of a complete path through its present prefix: here the
        prefix's own (a finished graph); an explorer's graph extends unfinished ones
        (None: a thread's path runs on for ever)."""
        return self.shape_key()

    def final_value(self, li: int) -> Value:
        """The value of location ``li``'s co-last write."""
        co = self.co[li]
        v = self.val[co[-1] if co else li]
        assert v is not None
        return v

    # ------------------------------------------------------------------ adding
    def _append(self, t: int, ev: Event, shape: int) -> int:
        """Give ``ev`` the next id of thread ``t``, stamped now; that id."""
        k = self.n[t]
        if k >= self.lay.room[t]:
            raise IndexError(f"thread {t} has room for {k} events only")
        e = self.base[t] + k
        self.n[t] = k + 1
        self.ev[e] = ev
        self.shape[e] = shape
        self.stamp[e] = self.clock
        self.clock += 1
        self._rel = None
        return e

    def add_read(self, t: int, ev: Event, shape: int, w: int) -> int:
        """Add ``ev`` (a read) to thread ``t``, reading from write ``w``; its id."""
        e = self._append(t, ev, shape)
        self.rf[e] = w
        self.val[e] = self.val[w]
        self.rl[self.lay.loc_of(ev)].append(e)
        return e

    def add_write(self, t: int, ev: Event, shape: int, pos: int) -> int:
        """Add ``ev`` (a write) to thread ``t`` at co position ``pos`` of its location
        (0: right after the initial write); its id."""
        e = self._append(t, ev, shape)
        self.val[e] = ev.known_value
        self.co[self.lay.loc_of(ev)].insert(pos, e)
        return e

    def add_other(self, t: int, ev: Event, shape: int) -> int:
        """Add an event with no location (fence, branch commit...); its id."""
        return self._append(t, ev, shape)

    def pop(self, t: int) -> None:
        """Undo the last addition, which was to thread ``t``."""
        e = self.base[t] + self.n[t] - 1
        ev = self.ev[e]
        assert ev is not None
        if ev.kind == "R":
            self.rf[e] = -1
            self.rl[self.lay.loc_of(ev)].pop()
        elif ev.kind == "W":
            self.co[self.lay.loc_of(ev)].remove(e)
        self.ev[e] = None
        self.val[e] = None
        self.n[t] -= 1
        self.clock -= 1
        self._rel = None

    def set_rf(self, r: int, w: int) -> None:
        """Make read ``r`` read from write ``w``."""
        self.rf[r] = w
        self.val[r] = self.val[w]
        self._rel = None

    # ------------------------------------------------------------------ out of order
    # RSMC (engine/rsmc) fetches a thread's events in program order and commits them out
    # of order: a fetched event has no rf/co until it is committed.
    def fetch(self, t: int, ev: Event, shape: int) -> int:
        """Add ``ev`` to thread ``t`` uncommitted (no rf, no place in co); its id."""
        return self._append(t, ev, shape)

    def commit_write(self, e: int, ev: Event, pos: int) -> None:
        """Commit the fetched write ``e`` as ``ev`` (its value known now) at co position
        ``pos`` of its location (0: right after the initial write)."""
        self.ev[e] = ev
        self.val[e] = ev.known_value
        self.co[self.lay.loc_of(ev)].insert(pos, e)
        self._rel = None

    def uncommit_write(self, e: int) -> None:
        """Undo :meth:`commit_write` (the event keeps its value)."""
        self.co[self.lay.loc_of(self.ev[e])].remove(e)
        self.val[e] = None
        self._rel = None

    def uncommit_read(self, r: int) -> None:
        """Undo :meth:`set_rf` on a fetched read."""
        self.rf[r] = -1
        self.val[r] = None
        self._rel = None

    # ------------------------------------------------------------------ restricting
    def truncate(self, t: int, m: int) -> None:
        """Keep the first ``m`` events of thread ``t`` (rf/co entries are cleaned by
        :meth:`restrict`)."""
        b = self.base[t]
        for j in range(b + m, b + self.n[t]):
            self.ev[j] = None
            self.rf[j] = -1
            self.val[j] = None
        self.n[t] = m
        self._rel = None

    def restrict(self, kept: Sequence[int]) -> None:
        """Keep the first ``kept[t]`` events of every thread ``t``."""
        for t in range(self.T):
            if kept[t] < self.n[t]:
                self.truncate(t, kept[t])
        idx, tid = self.idx, self.tid
        for li in range(self.L):
            if self.co[li]:
                self.co[li] = [x for x in self.co[li] if idx[x] < kept[tid[x]]]
            if self.rl[li]:
                self.rl[li] = [x for x in self.rl[li] if idx[x] < kept[tid[x]]]

    # ------------------------------------------------------------------ prefixes
    def porf_view(self, e: int, spawned_at: Sequence[int] | None = None) -> list[int]:
        """The porf-prefix of ``e`` (``e`` included): per thread, how many of its first
        events belong to it.  With ``spawned_at`` (per thread, the id of the spawn event
        that started it, or -1), po also runs along spawns and joins: a thread's events
        come after its spawn, a join after every event of the thread it joins."""
        if spawned_at is not None:
            return self._porf_view_spawning(e, spawned_at)
        view = [0] * self.T
        todo = [e]
        base, tid, idx, rf, L = self.base, self.tid, self.idx, self.rf, self.L
        while todo:
            x = todo.pop()
            if x < L:
                continue
            t = tid[x]
            upto = idx[x] + 1
            have = view[t]
            if upto <= have:
                continue
            b = base[t]
            for j in range(b + have, b + upto):
                r = rf[j]
                if r >= L:
                    todo.append(r)
            view[t] = upto
        return view

    def _porf_view_spawning(self, e: int, spawned_at: Sequence[int]) -> list[int]:
        """:meth:`porf_view` along spawns and joins (apart: the loop without them is
        TruSt's hot path)."""
        view = [0] * self.T
        todo = [e]
        base, tid, idx, rf, L = self.base, self.tid, self.idx, self.rf, self.L
        ev, n = self.ev, self.n
        while todo:
            x = todo.pop()
            if x < L:
                continue
            t = tid[x]
            upto = idx[x] + 1
            have = view[t]
            if upto <= have:
                continue
            if not have and spawned_at[t] >= 0:
                todo.append(spawned_at[t])
            b = base[t]
            for j in range(b + have, b + upto):
                r = rf[j]
                if r >= L:
                    todo.append(r)
                ej = ev[j]
                if ej is not None and ej.kind == "J" and n[ej.other]:
                    c = ej.other
                    todo.append(base[c] + n[c] - 1)
            view[t] = upto
        return view

    def in_view(self, e: int, view: Sequence[int]) -> bool:
        return e < self.L or self.idx[e] < view[self.tid[e]]

    # ------------------------------------------------------------------ relations
    def offsets(self) -> tuple[int, ...]:
        """Per thread: skeleton number minus graph id of its events."""
        off = []
        o = self.L
        for t in range(self.T):
            off.append(o - self.base[t])
            o += self.n[t]
        return tuple(off)

    def relations(self, values: bool = False) -> Relations:
        """The graph as relations over its skeleton (initial writes, then each thread's
        events).  Without ``values`` the skeleton is the shared one of the graph's shape
        (its events have no values: enough for a model); with them, the graph's own."""
        if values and self._rel is not None:
            return self._rel
        off = self.offsets()
        size = self.L + sum(self.n)
        if values:
            evs = [self.event(e) for e in range(self.L)]
            for e in self.events():
                evs.append(self.event(e))
            sk = Skeleton(tuple(evs), self.T)
        else:
            sk = self.lay.shapes.skeleton(self.shape_key())
        assert sk.n == size
        L, tid = self.L, self.tid
        rf = 0
        for t in range(self.T):
            b, ot = self.base[t], off[t]
            for j in range(b, b + self.n[t]):
                w = self.rf[j]
                if w >= 0:
                    cw = w if w < L else w + off[tid[w]]
                    rf |= 1 << (cw * sk.U.cap + j + ot)
        co = 0
        cap = sk.U.cap
        for li in range(L):
            later = 0
            for w in reversed(self.co[li]):  # row of each write: the writes after it
                x = w + off[tid[w]]
                if later:
                    co |= later << (x * cap)
                later |= 1 << x
            if later:
                co |= later << (li * cap)  # the initial write comes first
        rel = Relations(sk, rf, co, off)
        if values:
            self._rel = rel
        return rel

    @classmethod
    def from_relations(cls, sk: Skeleton, rf: int, co: int) -> ExecutionGraph:
        """The graph of the skeleton ``sk`` (with values) whose rf and co relations are
        ``rf`` and ``co`` (initial writes first, one per location)."""
        inits = [e for e in sk.events if e.tid < 0]
        room = [0] * sk.nthreads
        for e in sk.events:
            if e.tid >= 0:
                room[e.tid] += 1
        locs: list[str] = []
        for e in inits:
            assert e.loc is not None
            locs.append(e.loc)
        lay = Layout(locs, [e.known_value for e in inits], room)
        if lay.locations != tuple(sk.locations) or len(inits) != lay.L:
            raise ValueError("a skeleton needs one initial write per location, first, by name")
        g = cls(lay)
        U = sk.U
        shapes = [0] * sk.nthreads
        for i, e in enumerate(sk.events):
            if e.tid < 0:
                continue
            gid = lay.base[e.tid] + e.index
            shapes[e.tid] = lay.shapes.intern(shapes[e.tid], e)
            g.n[e.tid] += 1
            g.ev[gid] = e
            g.shape[gid] = shapes[e.tid]
            g.stamp[gid] = g.clock
            g.clock += 1
            g.val[gid] = None if e.value is None else e.known_value
            if e.kind == "R":
                src = U.col(rf, i)
                if src:
                    w = src.bit_length() - 1
                    we = sk.events[w]
                    g.rf[gid] = w if we.tid < 0 else lay.base[we.tid] + we.index
                g.rl[lay.loc_of(e)].append(gid)
        for li, x in enumerate(lay.locations):
            for w in sk.co_order(co, x):
                we = sk.events[w]
                if we.tid >= 0:
                    g.co[li].append(lay.base[we.tid] + we.index)
        g._rel = Relations(sk, rf, co, g.offsets())
        return g
