"""Every execution of every thread, for every value its reads may see (herd's enumeration).

A *thread execution* (:class:`ThreadExec`) is what one thread does once the values of its
reads are fixed: its events (with their dependencies, see :mod:`engine.semantics.step`)
and its final registers.  :func:`thread_executions` runs each thread's step function for
every value each read may take: the values written to its location, found by a fixpoint
(a store may store a value computed from reads).  The reference engine combines them,
as herd does.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from herdsman.engine.errors import check_deadline
from herdsman.engine.semantics.arith import AnyValue, cmp_key, is_known, loc_name
from herdsman.engine.semantics.runcache import THREAD_RUNS
from herdsman.engine.semantics.state import (
    Blocked,
    Choice,
    Emit,
    Fork,
    Read,
    Stall,
    ThreadDone,
    ThreadFailed,
    ThreadState,
)
from herdsman.engine.semantics.step import (
    DEFAULT_UNROLL,
    LOOP_BOUND,
    StepError,
    ThreadCode,
    semantics_of,
)
from herdsman.graphs.events import Event
from herdsman.litmus.base.ir import (
    CAS,
    Assert,
    Assume,
    Imm,
    Loc,
    Lock,
    Program,
    Store,
    Sym,
    Value,
)


class ThreadExec(NamedTuple):
    """One execution of thread ``tid`` for one assignment of values to its reads: its
    events (with values), how it ended (final registers; ``loop``: it hit the unrolling
    bound).  ``end`` says how it stopped: ``done`` (finished), ``failed`` (an assertion
    failed: ``failure`` says which), ``blocked`` (it can never go on; ``bound``: blocked by
    the loop bound), ``join`` (it waits
    to join a thread: the events before a join, kept in case that thread never ends) or
    ``unstarted`` (a thread never spawned: no events, its initial registers)."""

    tid: int
    events: tuple[Event, ...]
    done: ThreadDone
    end: str = "done"
    failure: ThreadFailed | None = None
    waits: int = -1  # end "join": the thread it waits for

    @property
    def finished(self) -> bool:
        """Whether the thread ran to its end for a join (an assertion failure ends it
        too; a loop bound that stopped it does not: :func:`~engine.semantics.state.finished`)."""
        return self.end == "failed" or self.end == "done" and not self.done.cut

    @property
    def loop(self) -> bool:
        return self.done.cut

    @property
    def regs(self) -> tuple[tuple[str, AnyValue], ...]:
        """The final registers, by name."""
        return self.done.regs

    def reg(self, name: str, default: Value = 0) -> Value:
        v = self.done.reg(name, default)
        assert is_known(v), "an enumerated thread has concrete values"
        return v

    def regs_of(self, names: Sequence[str]) -> tuple[Value, ...]:
        """The final values of registers ``names`` (:meth:`reg` of each, in one go)."""
        done = self.done
        slots, values = done.slots, done.values
        # (enumerated threads: concrete values)
        out: list = [
            0 if (i := slots.get(r)) is None or (x := values[i]) is None else x for r in names
        ]
        return tuple(out)

    def shape(self) -> tuple:
        """What does not depend on values: executions of one shape share a skeleton."""
        site = self.failure.site if self.failure is not None else -1
        # (each event's Event.key, inline: a thread execution has many events)
        keys = tuple(
            [tuple(e) if (k := e[0]) == "S" or k == "J" else e[:5] + e[6:] for e in self[1]]
        )
        return (keys, self.done.cut, self.end, site)

    @property
    def read_values(self) -> tuple[Value, ...]:
        return tuple(e.known_value for e in self.events if e.kind == "R")

    def pairs(self, dep: str) -> frozenset[tuple[int, int]]:
        """The dependency ``dep`` (addr, data, ctrl, valdep) as pairs of positions."""
        field = Event._fields.index(dep)
        out = set()
        for j, e in enumerate(self.events):
            mask = e[field]
            assert isinstance(mask, int), f"{dep} is no dependency"
            i = 0
            while mask:
                if mask & 1:
                    out.add((i, j))
                mask >>= 1
                i += 1
        return frozenset(out)


#: Per thread execution (by identity, kept alive with it): the number of its shape.
#: Thread executions outlive tests (:data:`engine.semantics.runcache.THREAD_RUNS`), so a
#: campaign computes and hashes each shape once, not once per test.
_SHAPE_OF: dict[int, tuple[ThreadExec, int]] = {}
#: Shapes met so far, numbered (numbers are never reused, even after a fresh start).
_SHAPE_IDS: dict[tuple, int] = {}
#: Beyond this many remembered executions (or shapes) both tables start afresh (as many
#: as the run cache keeps: :data:`engine.semantics.runcache.MAX_EXECS`).
_SHAPES_KEPT = 20_000
_SHAPES_LOCK = threading.Lock()
_shape_numbers = itertools.count()
#: How many times the tables started afresh (a shape numbered before and after a fresh
#: start may have two numbers).
_fresh_starts = [0]


def _shape_id(te: ThreadExec) -> int:
    got = _SHAPE_OF.get(id(te))
    if got is not None and got[0] is te:
        return got[1]
    shape = te.shape()
    with _SHAPES_LOCK:
        if len(_SHAPE_OF) >= _SHAPES_KEPT or len(_SHAPE_IDS) >= _SHAPES_KEPT:
            _SHAPE_OF.clear()
            _SHAPE_IDS.clear()
            _fresh_starts[0] += 1
        sid = _SHAPE_IDS.get(shape)
        if sid is None:
            sid = _SHAPE_IDS[shape] = next(_shape_numbers)
        _SHAPE_OF[id(te)] = (te, sid)
    return sid


def by_shape(execs: Sequence[ThreadExec]) -> list[list[ThreadExec]]:
    """``execs`` (of one thread) grouped by :meth:`ThreadExec.shape`, groups in the order
    of their first execution, executions in their order."""
    if len(execs) == 1:
        return [list(execs)]
    groups: dict[int, list[ThreadExec]] = {}
    fresh = _fresh_starts[0]
    for te in execs:
        sid = _shape_id(te)
        group = groups.get(sid)
        if group is None:
            groups[sid] = [te]
        else:
            group.append(te)
    if fresh != _fresh_starts[0] and len(groups) > 1:
        # the tables started afresh meanwhile: a shape may have two numbers
        plain: dict[tuple, list[ThreadExec]] = {}
        for te in execs:
            plain.setdefault(te.shape(), []).append(te)
        return list(plain.values())
    return list(groups.values())


@dataclass
class ThreadsResult:
    """All thread executions of a program, with the value sets they were computed from."""

    execs: list[list[ThreadExec]]  # per thread
    values: dict[str, set[Value]]  # values each location may hold
    init_mem: dict[str, Value]  # initial value of every known location
    locations: list[str]  # every memory location (init writes), sorted
    program: Program
    bad_address: int = 0  # executions dropped because an address was not a location
    rounds: int = 0  # rounds of the value fixpoint
    spawned: frozenset[int] = frozenset()  # threads that start when spawned
    partial: bool = False  # executions that stop early are kept (see run_thread)

    def initial_value(self, loc: Loc) -> Value:
        """Initial value of a memory location or symbolic register, so its final value
        when no event writes it (0 for anything else: a register of no thread)."""
        return self.program.initial_value(loc)


_new = tuple.__new__

#: The most events one thread execution may have (relations are bit matrices).
MAX_THREAD_EVENTS = 4096


def run_thread(
    code: ThreadCode,
    values_of: Callable[[str], Sequence[Value]],
    deadline: float | None = None,
    stops: bool = False,
    blocked: bool = False,
    own: bool = False,
) -> tuple[list[ThreadExec], int]:
    """Every execution of the thread ``code`` for the values ``values_of(location)`` reads
    may see (depth first, values in order), and how many were dropped (an address that
    is no location, an ``assume`` that fails, the loop bound).
    With ``blocked`` the blocked executions are kept too (their writes give values to
    the reads of the others: a thread blocked on one path may write what another path
    reads); with ``stops`` (programs that assert) also the events before each join (see
    :class:`ThreadExec`).  With ``own``, ``values_of`` gives only the values other
    threads (and the initial state) may give a read, and a read sees too the values the
    path wrote before it (never one it writes later)."""
    tid = code.tid
    initial = code.initial()
    step, after_read, after_choice = code.step, code.after_read, code.after_choice
    if not code.regs:  # (after_read's own choice, once a run)
        after_read = code.plain_after_read
    out: list[ThreadExec] = []
    dropped = 0
    events: list[Event] = []
    # per location, the values its reads may see: one question a run (the answer does
    # not change while the thread runs, and the first question is the one that counts)
    asked: dict[str, Sequence[Value]] = {}

    # ``again`` is go itself, passed along rather than named: a function that names
    # itself makes a reference cycle, left for the collector to find after each run
    def go(st: ThreadState, again: Callable[..., None]) -> None:
        nonlocal dropped
        mark = len(events)
        while True:
            s = step(st)
            if type(s) is Emit:
                if len(events) >= MAX_THREAD_EVENTS:
                    raise StepError(f"P{tid}: more than {MAX_THREAD_EVENTS} events in one run")
                if stops and s[0][0] == "J":
                    waits = s[0].other
                    out.append(_new(ThreadExec, (tid, tuple(events), initial, "join", None, waits)))
                events.append(s[0])
                st = s[1]
                continue
            if type(s) is Read:
                ev = s[0]
                loc = ev[4]
                assert loc is not None, "concrete values give known addresses"
                vals = asked.get(loc)
                if vals is None:
                    vals = asked[loc] = values_of(loc)
                if own and events:  # the values its path wrote there before, too
                    mine = [
                        v for e in events if e[0] == "W" and e[4] == loc and (v := e[5]) is not None
                    ]
                    if mine:
                        extra = {v for v in mine if is_known(v)}
                        if not extra <= set(vals):
                            vals = sorted(set(vals) | extra, key=cmp_key)
                head, tail = ev[:5], ev[6:]
                for v in vals:
                    events.append(_new(Event, (*head, v, *tail)))  # (with_value, inline)
                    again(after_read(s, v), again)
                    events.pop()
                break
            if type(s) is ThreadDone:
                out.append(_new(ThreadExec, (tid, tuple(events), s, "done", None, -1)))
                if not len(out) & 255:
                    check_deadline(deadline)
                break
            if isinstance(s, Fork):  # a choice of the thread's own: every way
                for nxt in s.states:
                    again(nxt, again)
                break
            if isinstance(s, Choice):  # herd's alternatives: every way, in order
                for k in range(len(s.targets)):
                    again(after_choice(s, k), again)
                break
            if type(s) is Blocked:
                dropped += 1
                if not dropped & 255:
                    check_deadline(deadline)
                if blocked:
                    end = "bound" if s[0] == LOOP_BOUND else "blocked"
                    out.append(_new(ThreadExec, (tid, tuple(events), initial, end, None, -1)))
                break
            if type(s) is ThreadFailed:
                out.append(_new(ThreadExec, (tid, tuple(events), s.done, "failed", s, -1)))
                break
            assert type(s) is not Stall, "concrete values never stall"
        del events[mark:]

    go(code.start(), go)
    return out, dropped


def _max_rounds(threads: Sequence[ThreadCode]) -> int:
    """How many rounds the value fixpoint needs at most: an execution's values come from
    chains of its own writes, at most the writes its threads may issue together."""
    return sum(code.max_writes() for code in threads) + 2


def thread_executions(
    program: Program,
    unroll: int = DEFAULT_UNROLL,
    deadline: float | None = None,
    own_later: bool = True,
    regs: bool = False,
) -> ThreadsResult:
    """Every execution of every thread, for every value its reads may see.

    The value set of a location starts as its initial value and grows with the values
    stored by the thread executions until nothing new appears.  A value of a well-founded
    execution is computed from a chain of at most as many stores as the execution has,
    so the iteration stops after that many rounds even when values keep growing (only
    values no execution can justify are then left out).

    ``own_later`` False: no read takes a value only a po-later write of its own thread
    (or its own read-modify-write) gives, for models that never let a read read from
    one (uniproc: ``engine.reference.run``); a thread's reads then see the values of the
    other threads and those their own path wrote before them, which keeps chains of
    read-modify-writes to one location from multiplying each other's values.  ``regs``:
    with herd's register events (:mod:`engine.semantics.regevents`)."""
    sem = semantics_of(program, unroll, regs)
    init_mem = dict(program.memory)
    values: dict[str, set[Value]] = {x: {v} for x, v in init_mem.items()}
    seeded: dict[str, set[Value]] = {}  # values every read of a location may see
    if program.arch == "C":  # herd's C values are symbolic (see _stored_constants)
        for x, v in _stored_constants(program):
            values.setdefault(x, {init_mem.setdefault(x, 0)}).add(v)
            seeded.setdefault(x, set()).add(v)
    vlists: dict[str, list[Value]] = {}

    def values_of(loc: str) -> list[Value]:
        """The values of ``loc`` so far, in order (asked for the first time this round)."""
        vs = values.get(loc)
        if vs is None:  # a location only known from a computed address: initially 0
            vs = values[loc] = {init_mem.setdefault(loc, 0)}
        vl = vlists[loc] = _sorted_values(vs)
        return vl

    # per location and thread: the values that thread's executions write there
    by_thread: dict[str, dict[int, set[Value]]] = {}
    own_lists: dict[tuple[int, str], list[Value]] = {}

    def others_of(t: int, loc: str) -> list[Value]:
        """The values thread ``t`` may read at ``loc`` from the initial state and the
        other threads (``own_later`` False)."""
        vs = {init_mem.setdefault(loc, 0), *seeded.get(loc, ())}
        for u, ws in by_thread.get(loc, {}).items():
            if u != t:
                vs |= ws
        got = own_lists[(t, loc)] = _sorted_values(vs)
        return got

    limit = _max_rounds(sem.threads)
    # (one walk over the code when none of them is there, the usual case)
    stops = program.has(Assert, Assume, Lock) and program.has(Assert)
    # programs whose threads may block (an assume, a lock, the loop bound): their blocked
    # executions feed the value sets; the search keeps only executions with no blocked
    # thread (or, to report it, one failing an assertion)
    blocks = stops or program.loop_bound == "block" or program.has(Assume, Lock)
    rounds = 0
    # per thread: its last executions, and the size of each value set its reads saw then
    # (value sets only grow: a thread whose reads would see the same values runs the same)
    last: list[tuple[list[ThreadExec], int, dict[str, int]] | None] = [None] * len(sem.threads)
    with sem.reporting():
        while True:
            rounds += 1
            vlists.clear()
            own_lists.clear()
            execs: list[list[ThreadExec]] = []
            fresh: list[list[ThreadExec]] = []  # those run this round (the others grew before)
            bad = 0
            for t, code in enumerate(sem.threads):
                prev = last[t]
                same = prev is not None
                if prev is not None:
                    for x, k in prev[2].items():
                        if len(values[x]) != k:
                            same = False
                            break
                if prev is not None and same:
                    got, dropped = prev[0], prev[1]
                else:
                    seen: dict[str, int] = {}

                    def values_seen(
                        loc: str, seen: dict[str, int] = seen, t: int = t
                    ) -> list[Value]:
                        vl = vlists.get(loc)
                        if vl is None:
                            vl = values_of(loc)
                        seen[loc] = len(vl)
                        if own_later:
                            return vl
                        got = own_lists.get((t, loc))
                        return others_of(t, loc) if got is None else got

                    got, dropped = THREAD_RUNS.run(
                        run_thread, code, values_seen, deadline, stops, blocks, not own_later
                    )
                    if t in sem.spawned:
                        got = [*got, ThreadExec(t, (), code.initial(), "unstarted")]
                    last[t] = (got, dropped, seen)
                    fresh.append(got)
                execs.append(got)
                bad += dropped
            grew = _grow(values, init_mem, fresh, None if own_later else by_thread)
            if not grew or rounds >= limit:
                break
    return ThreadsResult(
        execs=execs,
        values=values,
        init_mem=init_mem,
        locations=sorted(init_mem),
        program=program,
        bad_address=bad,
        rounds=rounds,
        spawned=sem.spawned,
        partial=blocks,
    )


def _sorted_values(vs: set[Value]) -> list[Value]:
    """``vs`` in herd's order (:func:`~engine.semantics.arith.cmp_key`): numerically for
    integers, by name and offset for addresses, integers first (values of one kind
    compare as that key does: sorted without it)."""
    try:
        return sorted(vs)
    except TypeError:  # integers and addresses together
        return sorted(vs, key=cmp_key)


def _stored_constants(program: Program) -> Iterable[tuple[str, Value]]:
    """The constants the program's code stores at known addresses, reached or not.

    The value sets start with them: a value a store writes only on a path that needs
    the very value to be read first (load buffering with control dependencies, C11's
    out-of-thin-air executions) is never found by growing the sets from the initial
    state, and herd's symbolic values see it.  A value no execution writes costs only
    candidates that no rf justifies.  (For assembly tests, whose enumeration reproduces
    herd's campaigns as it is, the sets grow from the initial state alone.)"""
    for th in program.threads:
        for ins in th.code:
            if isinstance(ins, Store):
                v = ins.src
            elif isinstance(ins, CAS):
                v = ins.desired
            else:
                continue
            if len(ins.addr) == 1 and isinstance(ins.addr[0], Imm) and isinstance(v, Imm):
                a = ins.addr[0].value
                if isinstance(a, Sym):
                    yield loc_name(a), v.value


def _grow(
    values: dict[str, set[Value]],
    init_mem: dict[str, Value],
    execs: Iterable[list[ThreadExec]],
    by_thread: dict[str, dict[int, set[Value]]] | None = None,
) -> bool:
    """Add the values written by ``execs`` to ``values`` (and, with ``by_thread``, to
    the values each thread writes at each location); whether one was new."""
    grew = False
    v: Any  # a write's value (known: the threads are enumerated)
    for lst in execs:
        for te in lst:
            for e in te[1]:  # (events)
                if e[0] == "W" and (loc := e[4]) is not None:  # (kind, loc)
                    v = e[5]
                    vs = values.get(loc)
                    if vs is None:
                        vs = values[loc] = {init_mem.setdefault(loc, 0)}
                    if v not in vs:
                        vs.add(v)
                        grew = True
                    if by_thread is not None:
                        per = by_thread.get(loc)
                        if per is None:
                            per = by_thread[loc] = {}
                        mine = per.get(te[0])  # (tid)
                        if mine is None:
                            mine = per[te[0]] = set()
                        mine.add(v)
    return grew
