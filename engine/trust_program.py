"""Threads as TruSt needs them: the next event of a thread, given the values it has read.

TruSt adds events one at a time and must know, for each thread, what it does next once
the values of its reads so far are fixed.  :func:`engine.threads.thread_executions`
already runs every thread for every value its reads may see (with herd's semantics and
dependencies); this module folds those executions into one *trie* per thread: a
:class:`Segment` holds the events from one read (exclusive) to the next read (inclusive)
and branches on the value that read gets.  Nothing about instructions is re-implemented
here.

Each event also gets a *shape id*: an interned number for the thread's prefix ending with
it, up to values (event kinds, locations, fences, annotations, instruction instances and
the dependencies among them).  Prefixes with one shape have one skeleton, so a model is
prepared once per combination of shapes (see :mod:`engine.trust_consistency`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from herdsman.engine.threads import TEvent, ThreadExec, ThreadsResult
from herdsman.graphs.execution import Event, Skeleton
from herdsman.litmus.ir import Value

#: Dependency relations a thread execution declares (herd's names).
DEP_NAMES = ("addr", "data", "ctrl")


@dataclass(eq=False)
class Step:
    """One event of a thread at a known position: its (value-less) description and the
    id of the shape of the thread prefix it ends."""

    ev: TEvent
    index: int  # position in the thread
    shape: int


@dataclass(eq=False)
class Segment:
    """Events ``start .. start+len(steps)-1`` of a thread, ending with a read (then
    ``children`` maps each value it may read to the rest of the thread) or with the end
    of the thread (then ``final`` is the whole thread execution).  A segment with
    ``blocked`` set stands for a value after which the thread has no execution (herd
    drops such executions, e.g. an address that is not a location): the thread stops."""

    start: int
    prev: int = 0  # shape id of the thread prefix before this segment
    steps: list[Step] = field(default_factory=list)
    children: dict[Value, Segment] | None = None
    final: ThreadExec | None = None
    blocked: bool = False
    _completion: int = -1

    @property
    def end(self) -> int:
        return self.start + len(self.steps)

    def child(self, value: Value) -> Segment:
        """The rest of the thread after its last read got ``value``."""
        assert self.children is not None
        got = self.children.get(value)
        if got is None:
            got = self.children[value] = Segment(self.end, self.steps[-1].shape, blocked=True)
        return got

    def completion(self) -> int:
        """Shape id of the thread's first complete path through this segment (a thread
        that stops here: its prefix so far)."""
        c = self._completion
        if c < 0:
            if self.blocked:
                c = self.prev
            elif self.children:
                c = next(iter(self.children.values())).completion()
            else:
                c = self.steps[-1].shape if self.steps else self.prev
            self._completion = c
        return c


class Shapes:
    """Interned thread-prefix shapes: id -> (previous id, event, incoming dependencies)."""

    def __init__(self) -> None:
        self._ids: dict[tuple, int] = {(): 0}
        self.info: list[tuple[int, TEvent | None, tuple]] = [(0, None, ())]

    def intern(self, prev: int, ev: TEvent, deps: tuple) -> int:
        key = (prev, ev.key(), deps)
        got = self._ids.get(key)
        if got is None:
            got = self._ids[key] = len(self.info)
            self.info.append((prev, ev, deps))
        return got

    def events(self, sid: int) -> list[tuple[TEvent, tuple]]:
        """The events (with their incoming dependencies) of the prefix ``sid``."""
        out = []
        while sid:
            prev, ev, deps = self.info[sid]
            assert ev is not None
            out.append((ev, deps))
            sid = prev
        out.reverse()
        return out


class Program:
    """A litmus test's threads as tries, with its locations and initial values."""

    def __init__(self, threads: ThreadsResult) -> None:
        self.threads = threads
        self.locations: list[str] = list(threads.locations)
        self.loc_index = {x: i for i, x in enumerate(self.locations)}
        self.init_mem = threads.init_mem
        self.nthreads = len(threads.execs)
        self.shapes = Shapes()
        self.roots: list[Segment] = []
        self.max_len: list[int] = []
        for execs in threads.execs:
            self.max_len.append(max((len(te.events) for te in execs), default=0))
            self.roots.append(self._segment(execs, 0, 0) if execs else Segment(0, 0, blocked=True))

    # ------------------------------------------------------------------ building
    def _segment(self, execs: Sequence[ThreadExec], start: int, prev_shape: int) -> Segment:
        """The segment of ``execs`` (which agree on every value read before ``start``)."""
        seg = Segment(start, prev_shape)
        first = execs[0]
        i = start
        sid = prev_shape
        while True:
            if i >= len(first.events):
                if len(execs) != 1 and any(len(te.events) != i for te in execs):
                    raise AssertionError("thread executions diverge without a read")
                seg.final = first
                return seg
            ev = first.events[i]
            deps = _in_deps(first, i)
            sid = self.shapes.intern(sid, ev, deps)
            seg.steps.append(Step(ev, i, sid))
            if ev.kind == "R":
                groups: dict[Value, list[ThreadExec]] = {}
                for te in execs:
                    groups.setdefault(te.events[i].value, []).append(te)  # type: ignore[arg-type]
                seg.children = {v: self._segment(g, i + 1, sid) for v, g in groups.items()}
                return seg
            i += 1

    # ------------------------------------------------------------------ skeletons
    def skeleton(self, key: tuple[int, ...]) -> Skeleton:
        """The skeleton (without values) of the graph whose thread ``t`` holds the prefix
        of shape ``key[t]``: initial writes in location order, then thread by thread."""
        events: list[Event] = []
        for x in self.locations:
            events.append(Event(len(events), "W", -1, -1, loc=x, value=self.init_mem.get(x, 0)))
        pairs: dict[str, list[tuple[int, int]]] = {d: [] for d in DEP_NAMES}
        for t, sid in enumerate(key):
            base = len(events)
            for i, (ev, deps) in enumerate(self.shapes.events(sid)):
                events.append(_event(base + i, t, ev))
                for name, j in deps:
                    pairs[name].append((base + j, base + i))
        sk = Skeleton(tuple(events), self.nthreads)
        sk.deps.update({d: sk.U.from_pairs(p) for d, p in pairs.items()})
        return sk


def _in_deps(te: ThreadExec, i: int) -> tuple[tuple[str, int], ...]:
    """Dependencies (relation name, source index) into event ``i`` of ``te``."""
    out = []
    for name in DEP_NAMES:
        for a, b in getattr(te, name):
            if b == i:
                out.append((name, a))
    return tuple(sorted(out))


def _event(eid: int, tid: int, ev: TEvent, value: Value | None = None) -> Event:
    return Event(
        eid,
        ev.kind,
        tid,
        ev.poi,
        loc=ev.loc,
        value=value,
        fence=ev.fence,
        instr=ev.instr,
        annots=ev.annots,
        iiid=tid * 1_000_000 + ev.inst,
    )
