"""The operational machine: program threads, store buffers and their shadow threads.

A machine state (:class:`MState`, immutable and hashable) holds every thread's place
(:class:`Slot`: parked at its next *visible* operation, or ended), shared memory (per
location its value and the write that put it there) and, under TSO and PSO, each thread's
store buffer (a tuple of :class:`Entry`, oldest first; under PSO a *barrier* entry
records an SFENCE).

Processes are the program threads ``0..T-1`` and the *shadow threads* that empty the
buffers (Zhang, Kusano and Wang, PLDI 2015, §2.1): under TSO one per thread (process
``T + t``, flushing the oldest entry), under PSO one per thread and location (process
``T + t * L + l``, flushing the oldest entry for location ``l`` not behind a barrier).
Every process is deterministic: in a state it has at most one next transition
(:class:`Tr`), enabled or not.

A thread runs its invisible operations at once, as part of its previous transition
(:meth:`Machine.fold`): register operations, buffer-writes ``B_W`` (unbounded buffers),
SFENCE and LFENCE.  Its visible transitions are: ``R`` a read (the newest value for the
location in its own buffer, else memory), ``U`` a read-modify-write or lock (atomic, on
memory, with empty buffers: locked instructions are fences), ``W`` a store written to
memory at once (SC, or a buffer bound of 0), ``B`` a buffer-write under a buffer bound
(§5: enabled while the buffer has room; a full one waits for its shadow thread to write
the oldest entry, so bounded runs are runs of the unbounded machine), ``F`` passing an
MFENCE (enabled when the buffers are empty), ``S``/``J`` spawn and join (a join waits
for the thread's end and its empty buffer).  A shadow's transition is ``W``, a memory-write.

SC is the same machine with no buffers.
"""

from __future__ import annotations

from typing import NamedTuple

from herdsman.engine.conditions import needed_locations
from herdsman.engine.errors import NewLocation
from herdsman.engine.operational.liveness import live_slots
from herdsman.engine.semantics.state import (
    Blocked,
    Emit,
    Read,
    Stall,
    ThreadDone,
    ThreadFailed,
    ThreadState,
    finished,
)
from herdsman.engine.semantics.step import LOOP_BOUND, Semantics, StepError
from herdsman.graphs.events import Event, with_value
from herdsman.litmus.base.ir import CAS, RMW, Load, Lock, RegLoc, Value

MODES = ("sc", "tso", "pso")

#: A write's identity: (thread, position in its thread); (-1, l) is location l's initial write.
Wid = tuple[int, int]

# Slot statuses
WAITING, RUNNING, DONE, FAILED, BLOCKED = range(5)


class Entry(NamedTuple):
    """A buffered write: location index (-1: a PSO barrier), value, the write's id, and
    the stack positions of the transition that buffered it and of the flush that lifted
    the barrier before it (-1: none) — the causal edges of the shadow threads."""

    loc: int
    value: Value
    wid: Wid
    creator: int
    release: int = -1


BARRIER = Entry(-1, 0, (-1, -1), -1)


class Slot(NamedTuple):
    """A thread's place: ``status``; when running, ``step`` is its next visible step (a
    :class:`Read` or :class:`Emit`) and ``kind``/``loc`` its transition's; when ended,
    ``end`` is how (:class:`ThreadDone`, :class:`ThreadFailed` or :class:`Blocked`)."""

    status: int
    kind: str = ""
    loc: int = -1
    step: Read | Emit | None = None
    end: ThreadDone | ThreadFailed | Blocked | None = None


class Tr(NamedTuple):
    """A transition: its process, kind (see the module docstring), the location it reads
    or writes in memory (-1: none), the program thread it belongs to, whether it needs the
    thread's buffers empty (``fenced``), and for ``S``/``J`` the other thread."""

    proc: int
    kind: str
    loc: int
    thread: int
    fenced: bool = False
    other: int = -1

    @property
    def writes(self) -> bool:
        return self.kind in "WUB" and self.loc >= 0


class MState(NamedTuple):
    """A machine state (see the module docstring)."""

    slots: tuple[Slot, ...]
    mem: tuple[tuple[Value, Wid], ...]
    bufs: tuple[tuple[Entry, ...], ...]


class Effects(NamedTuple):
    """What a transition did, for the execution graph: events per thread (reads with
    their values), rf (read id -> write id) and memory writes in order (location, id)."""

    events: list[tuple[int, Event]]
    rf: list[tuple[Wid, Wid]]
    writes: list[tuple[int, Wid]]


_WAITING = Slot(WAITING)
#: The most slots whose keys a machine remembers (states share unchanged slots).
_SLOT_CACHE = 1 << 17


class Machine:
    """The operational machine of a program under ``mode`` (sc, tso, pso) with buffers
    of at most ``bound`` writes (per buffer; ``None``: unbounded)."""

    def __init__(
        self, sem: Semantics, locations: list[str], mode: str, bound: int | None = None
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown machine mode {mode!r}")
        self.sem = sem
        self.codes = sem.threads
        self.T = len(sem.threads)
        self.mode = mode
        self.buffered = mode != "sc"
        self.bound = None if mode == "sc" else bound
        self.locations = list(locations)
        self.loc_index = {x: i for i, x in enumerate(self.locations)}
        self.L = len(self.locations)
        needed = needed_locations(list(sem.program.observed), sem.program.filter)
        observed: list[list[str]] = [[] for _ in range(self.T)]
        for loc in needed:
            if isinstance(loc, RegLoc) and 0 <= loc.tid < self.T:
                observed[loc.tid].append(loc.reg)
        #: per thread and operation, the live register slots (stateful comparisons)
        self.live_regs = [live_slots(code, observed[t]) for t, code in enumerate(self.codes)]
        nshadow = 0 if mode == "sc" else self.T if mode == "tso" else self.T * self.L
        self.P = self.T + nshadow
        #: per slot object (by identity, kept alive here): its part of :meth:`key`
        self._slot_keys: dict[int, tuple[Slot, tuple]] = {}

    # ------------------------------------------------------------------ processes
    def shadow_thread(self, p: int) -> int:
        """The program thread whose buffer shadow process ``p`` empties."""
        q = p - self.T
        return q if self.mode == "tso" else q // self.L

    # ------------------------------------------------------------------ states
    def initial(self, init: dict[str, Value], fx: Effects) -> MState:
        mem = tuple((init.get(x, 0), (-1, i)) for i, x in enumerate(self.locations))
        slots: list[Slot] = []
        bufs: list[tuple[Entry, ...]] = []
        for t, code in enumerate(self.codes):
            if t in self.sem.spawned:
                slots.append(_WAITING)
                bufs.append(())
                continue
            slot, buf = self.fold(t, code.start(), (), -1, fx)
            slots.append(slot)
            bufs.append(buf)
        return MState(tuple(slots), mem, tuple(bufs))

    def fold(
        self, t: int, st: ThreadState, buf: tuple[Entry, ...], creator: int, fx: Effects
    ) -> tuple[Slot, tuple[Entry, ...]]:
        """Run thread ``t`` from state ``st`` through its invisible operations, up to its
        next visible one; its slot and buffer then (``creator``: the stack position of
        the transition this is part of)."""
        code = self.codes[t]
        buffered = self.buffered
        bounded = self.bound is not None
        try:
            while True:
                s = code.step(st)
                if type(s) is Read:
                    ev = s.event
                    li = self._loc(ev.loc)
                    ins = code.code[s.at.pc]
                    if isinstance(ins, Load):
                        return Slot(RUNNING, "R", li, s), buf
                    if isinstance(ins, (RMW, CAS, Lock)):
                        return Slot(RUNNING, "U", li, s), buf
                    raise StepError(f"P{t}: a read of an unexpected kind")
                if type(s) is Emit:
                    ev = s.event
                    k = ev.kind
                    if k == "W":
                        li = self._loc(ev.loc)
                        if not buffered:
                            return Slot(RUNNING, "W", li, s), buf
                        if bounded:  # a bound of 0: no buffer
                            return Slot(RUNNING, "B" if self.bound else "W", li, s), buf
                        fx.events.append((t, ev))
                        buf = (*buf, Entry(li, ev.known_value, (t, ev.index), creator))
                        st = s.after
                        continue
                    if k == "F":
                        f = ev.fence
                        if f == "MFENCE" and buffered:
                            return Slot(RUNNING, "F", -1, s), buf
                        if f not in ("MFENCE", "SFENCE", "LFENCE"):
                            raise StepError(f"P{t}: the fence {ev.fence or ev.annots} is not X86's")
                        if f == "SFENCE" and self.mode == "pso" and buf and buf[-1] is not BARRIER:
                            buf = (*buf, BARRIER)
                        fx.events.append((t, ev))
                        st = s.after
                        continue
                    if k == "S" or k == "J":
                        return Slot(RUNNING, k, -1, s), buf
                    raise StepError(f"P{t}: an event of kind {k} in an operational run")
                if type(s) is ThreadDone:
                    return Slot(DONE, end=s), buf
                if type(s) is ThreadFailed:
                    return Slot(FAILED, end=s), buf
                if type(s) is Blocked:
                    return Slot(BLOCKED, end=s), buf
                assert type(s) is Stall
                raise StepError(f"P{t}: waits for read values (symbolic)")
        except StepError as e:
            with self.sem.reporting():
                raise e from None

    def _loc(self, name: str | None) -> int:
        li = None if name is None else self.loc_index.get(name)
        if li is None:
            raise NewLocation(str(name))
        return li

    # ------------------------------------------------------------------ transitions
    def next_tr(self, s: MState, p: int) -> tuple[Tr | None, bool]:
        """Process ``p``'s next transition in ``s`` (None: it has none) and whether it
        is enabled."""
        T = self.T
        if p < T:
            slot = s.slots[p]
            if slot.status != RUNNING:
                return None, False
            k = slot.kind
            if k == "R":
                return Tr(p, "R", slot.loc, p), True
            if k == "U":
                tr = Tr(p, "U", slot.loc, p, self.buffered)
                ok = not s.bufs[p]
                if ok and self.codes[p].code[_read(slot).at.pc].__class__ is Lock:
                    ok = s.mem[slot.loc][0] == 0
                return tr, ok
            if k == "W":
                return Tr(p, "W", slot.loc, p), True
            if k == "B":
                return self._bounded_store(s, p, slot)
            if k == "F":
                return Tr(p, "F", -1, p, True), not s.bufs[p]
            step = slot.step
            assert step is not None
            child = step.event.other
            if k == "S":
                return Tr(p, "S", -1, p, False, child), True
            c = s.slots[child]
            ok = finished(c.end) and not s.bufs[child]
            return Tr(p, "J", -1, p, False, child), ok
        t = self.shadow_thread(p)
        e = self._flushable(s.bufs[t], p)
        if e < 0:
            return None, False
        return Tr(p, "W", s.bufs[t][e].loc, t), True

    def _flushable(self, buf: tuple[Entry, ...], p: int) -> int:
        """The index in ``buf`` of the entry shadow ``p`` flushes next (-1: none)."""
        if not buf:
            return -1
        if self.mode == "tso":
            return 0
        li = (p - self.T) % self.L
        for i, e in enumerate(buf):
            if e.loc < 0:
                return -1
            if e.loc == li:
                return i
        return -1

    def _bounded_store(self, s: MState, p: int, slot: Slot) -> tuple[Tr, bool]:
        """A buffer-write under a bound: enabled while the buffer (for the location,
        under PSO) has room; a full one waits for its shadow thread."""
        buf = s.bufs[p]
        k = self.bound
        assert k is not None
        if self.mode == "tso":
            return Tr(p, "B", -1, p), len(buf) < k
        li = slot.loc
        return Tr(p, "B", -1, p), sum(1 for e in buf if e.loc == li) < k

    def execute(self, s: MState, tr: Tr, pos: int, fx: Effects) -> MState:
        """The state after ``tr`` (enabled in ``s``), the ``pos``-th transition of the
        run; its effects go to ``fx``."""
        p = tr.proc
        slots, mem, bufs = s
        if p >= self.T:  # a shadow: flush
            t = tr.thread
            buf = bufs[t]
            i = self._flushable(buf, p)
            mem, buf = self._flush(mem, buf, i, pos, fx)
            return MState(slots, mem, _put(bufs, t, buf))
        slot = slots[p]
        step = slot.step
        buf = bufs[p]
        k = tr.kind
        code = self.codes[p]
        if k == "R" or k == "U":
            assert isinstance(step, Read)
            li = slot.loc
            v, w = mem[li]
            if k == "R":
                for e in reversed(buf):
                    if e.loc == li:
                        v, w = e.value, e.wid
                        break
            ev = with_value(step.event, v)
            fx.events.append((p, ev))
            fx.rf.append(((p, ev.index), w))
            st = code.after_read(step, v)
            if k == "U":
                nxt = code.step(st)
                if type(nxt) is Emit:  # the write of the read-modify-write
                    wev = nxt.event
                    fx.events.append((p, wev))
                    fx.writes.append((li, (p, wev.index)))
                    mem = _put(mem, li, (wev.value, (p, wev.index)))
                    st = nxt.after
                elif type(nxt) is Blocked:
                    return self._end(s, p, Slot(BLOCKED, end=nxt), buf)
            slot2, buf = self.fold(p, st, buf, pos, fx)
            return MState(_put(slots, p, slot2), mem, _put(bufs, p, buf))
        assert isinstance(step, Emit)
        ev = step.event
        if k == "W":
            fx.events.append((p, ev))
            fx.writes.append((slot.loc, (p, ev.index)))
            mem = _put(mem, slot.loc, (ev.value, (p, ev.index)))
        elif k == "B":
            fx.events.append((p, ev))
            buf = (*buf, Entry(slot.loc, ev.known_value, (p, ev.index), pos))
        elif k == "S":
            fx.events.append((p, ev))
            child = ev.value
            assert isinstance(child, int)
            cslot, cbuf = self.fold(child, self.codes[child].start(), (), pos, fx)
            slots = _put(slots, child, cslot)
            bufs = _put(bufs, child, cbuf)
        else:  # F, J
            fx.events.append((p, ev))
        slot2, buf = self.fold(p, step.after, buf, pos, fx)
        return MState(_put(slots, p, slot2), mem, _put(bufs, p, buf))

    def _end(self, s: MState, p: int, slot: Slot, buf: tuple[Entry, ...]) -> MState:
        return MState(_put(s.slots, p, slot), s.mem, _put(s.bufs, p, buf))

    def _flush(
        self,
        mem: tuple[tuple[Value, Wid], ...],
        buf: tuple[Entry, ...],
        i: int,
        pos: int,
        fx: Effects,
    ) -> tuple[tuple[tuple[Value, Wid], ...], tuple[Entry, ...]]:
        """Write ``buf[i]`` to memory and take it out of the buffer (lifting a barrier
        it was the last write before: the writes behind it remember this flush)."""
        e = buf[i]
        fx.writes.append((e.loc, e.wid))
        mem = _put(mem, e.loc, (e.value, e.wid))
        rest = buf[:i] + buf[i + 1 :]
        if rest and rest[0].loc < 0:
            out: list[Entry] = []
            lifted = True
            for x in rest[1:]:
                if x.loc < 0:
                    lifted = False
                if lifted and x.loc >= 0:
                    x = x._replace(release=pos)
                out.append(x)
            rest = tuple(out)
        return mem, rest

    # ------------------------------------------------------------------ runs
    def enabled(self, s: MState) -> list[tuple[int, Tr]]:
        """The enabled transitions of ``s``, by process."""
        nexts, enabled = self.transitions(s)
        return [(p, nexts[p]) for p in enabled]

    def transitions(self, s: MState) -> tuple[dict[int, Tr], list[int]]:
        """Every process's next transition in ``s`` (enabled or not), and the processes
        whose transition is enabled."""
        nexts: dict[int, Tr] = {}
        enabled: list[int] = []
        for p in self.live(s):
            tr, ok = self.next_tr(s, p)
            if tr is not None:
                nexts[p] = tr
                if ok:
                    enabled.append(p)
        return nexts, enabled

    def live(self, s: MState) -> list[int]:
        """The processes that may have a next transition in ``s``."""
        out = [t for t, slot in enumerate(s.slots) if slot.status == RUNNING]
        if self.mode == "tso":
            out += [self.T + t for t, b in enumerate(s.bufs) if b]
        elif self.mode == "pso":
            for t, b in enumerate(s.bufs):
                seen = set()
                for e in b:
                    if e.loc >= 0 and e.loc not in seen:
                        seen.add(e.loc)
                        out.append(self.T + t * self.L + e.loc)
        return out

    def causes(self, s: MState, tr: Tr) -> tuple[int, int]:
        """The stack positions a shadow's flush depends on besides its process's earlier
        transitions: the transition that buffered the write and the flush that lifted
        the barrier before it (-1: none)."""
        if tr.proc < self.T:
            return -1, -1
        buf = s.bufs[tr.thread]
        e = buf[self._flushable(buf, tr.proc)]
        return e.creator, e.release

    def key(self, s: MState) -> tuple:
        """``s`` without the identities of writes, the positions of causes and dead
        registers: what decides the runs from it."""
        mem = tuple([v for v, _ in s.mem])
        bufs = tuple([tuple([(e.loc, e.value) for e in b]) for b in s.bufs])
        cache = self._slot_keys
        slots = []
        for t, x in enumerate(s.slots):
            hit = cache.get(id(x))
            if hit is None or hit[0] is not x:
                if len(cache) >= _SLOT_CACHE:
                    cache.clear()
                hit = cache[id(x)] = (x, (pc_of(x), self.local(t, x)))
            slots.append(hit[1])
        return (tuple(slots), mem, bufs)

    def local(self, t: int, x: Slot) -> tuple:
        """Thread ``t``'s local state in slot ``x``: its live registers (or how it
        ended), without its place."""
        if x.status != RUNNING:
            return (x.status, _end_key(x.end))
        step = x.step
        if isinstance(step, Read):
            st = step.at
            pending: tuple = ()
        else:  # the event about to be made carries values of registers dead after it
            assert isinstance(step, Emit)
            st = step.after
            pending = (step.event.loc, step.event.value)
        live = self.live_regs[t][st.pc]
        return (*[v if ok else None for v, ok in zip(st.regs, live, strict=True)], *pending)


def _end_key(end: object) -> tuple:
    if isinstance(end, ThreadDone):
        return end.values
    if isinstance(end, ThreadFailed):
        return (end.site, end.done.values)
    if isinstance(end, Blocked):
        return (end.why,)
    return ()


def pc_of(x: Slot) -> tuple:
    if x.status != RUNNING:
        return (x.status,)
    step = x.step
    assert step is not None
    st = step.at if isinstance(step, Read) else step.after
    return (x.kind, st.pc)


def _read(x: Slot) -> Read:
    """The read a thread's slot of kind ``R`` or ``U`` waits at."""
    step = x.step
    assert isinstance(step, Read)
    return step


def is_loop_bound(x: Slot) -> bool:
    """Whether a loop bound stopped the thread of ``x`` (blocked it, or ended it)."""
    end = x.end
    return isinstance(end, Blocked) and end.why == LOOP_BOUND or type(end) is ThreadDone and end.cut


def _put(t: tuple, i: int, v: object) -> tuple:
    return t[:i] + (v,) + t[i + 1 :]
