"""Every execution of every thread, for every value its reads may see (herd's enumeration).

A *thread execution* (:class:`ThreadExec`) is what one thread does once the values of its
reads are fixed: its events (with their dependencies, see :mod:`engine.semantics.step`)
and its final registers.  :func:`thread_executions` runs each thread's step function for
every value each read may take: the values written to its location, found by a fixpoint
(a store may store a value computed from reads).  The reference engine combines them,
as herd does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from herdsman.engine.errors import check_deadline
from herdsman.engine.semantics.arith import cmp_key
from herdsman.engine.semantics.state import (
    Blocked,
    Emit,
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
from herdsman.graphs.events import Event, with_value
from herdsman.litmus.base.ir import RMW, Assert, Assume, Branch, Loc, Lock, Program, Store, Value


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
    def ended(self) -> bool:
        """Whether the thread ran to its end (an assertion failure ends it too)."""
        return self.end == "done" or self.end == "failed"

    @property
    def loop(self) -> bool:
        return self.done.cut

    @property
    def regs(self) -> tuple[tuple[str, Value], ...]:
        """The final registers, by name."""
        return self.done.regs

    def reg(self, name: str, default: Value = 0) -> Value:
        return self.done.reg(name, default)

    def shape(self) -> tuple:
        """What does not depend on values: executions of one shape share a skeleton."""
        site = self.failure.site if self.failure is not None else -1
        return (tuple(e.key() for e in self.events), self.done.cut, self.end, site)

    @property
    def read_values(self) -> tuple[Value, ...]:
        return tuple(e.value for e in self.events if e.kind == "R")  # type: ignore[misc]

    def pairs(self, dep: str) -> frozenset[tuple[int, int]]:
        """The dependency ``dep`` (addr, data, ctrl, valdep) as pairs of positions."""
        field = Event._fields.index(dep)
        out = set()
        for j, e in enumerate(self.events):
            mask = e[field]
            i = 0
            while mask:
                if mask & 1:
                    out.add((i, j))
                mask >>= 1
                i += 1
        return frozenset(out)


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
) -> tuple[list[ThreadExec], int]:
    """Every execution of the thread ``code`` for the values ``values_of(location)`` reads
    may see (depth first, values in order), and how many were dropped (an address that
    is no location, an ``assume`` that fails, the loop bound).
    With ``blocked`` the blocked executions are kept too (their writes give values to
    the reads of the others: a thread blocked on one path may write what another path
    reads); with ``stops`` (programs that assert) also the events before each join (see
    :class:`ThreadExec`)."""
    tid = code.tid
    initial = code.initial()
    step, after_read = code.step, code.after_read
    out: list[ThreadExec] = []
    dropped = 0
    events: list[Event] = []

    def go(st: ThreadState) -> None:
        nonlocal dropped
        mark = len(events)
        while True:
            s = step(st)
            cls = type(s)
            if cls is Emit:
                if len(events) >= MAX_THREAD_EVENTS:
                    raise StepError(f"P{tid}: more than {MAX_THREAD_EVENTS} events in one run")
                if stops and s[0][0] == "J":  # type: ignore[index]
                    waits = s[0][5]  # type: ignore[index]
                    out.append(_new(ThreadExec, (tid, tuple(events), initial, "join", None, waits)))
                events.append(s[0])  # type: ignore[arg-type]
                st = s[1]  # type: ignore[assignment]
                continue
            if cls is Read:
                ev = s[0]
                for v in values_of(ev[4]):  # type: ignore[index]
                    events.append(with_value(ev, v))  # type: ignore[arg-type]
                    go(after_read(s, v))  # type: ignore[arg-type]
                    events.pop()
                break
            if cls is ThreadDone:
                out.append(_new(ThreadExec, (tid, tuple(events), s, "done", None, -1)))
                if not len(out) & 255:
                    check_deadline(deadline)
                break
            if cls is Blocked:
                dropped += 1
                if not dropped & 255:
                    check_deadline(deadline)
                if blocked:
                    end = "bound" if s[0] == LOOP_BOUND else "blocked"  # type: ignore[index]
                    out.append(_new(ThreadExec, (tid, tuple(events), initial, end, None, -1)))
                break
            if cls is ThreadFailed:
                out.append(_new(ThreadExec, (tid, tuple(events), s.done, "failed", s, -1)))  # type: ignore[union-attr]
                break
            assert cls is not Stall, "concrete values never stall"
        del events[mark:]

    go(code.start())
    return out, dropped


def _max_rounds(program: Program, unroll: int) -> int:
    code = [ins for th in program.threads for ins in th.code]
    stores = sum(1 for ins in code if isinstance(ins, Store | RMW))
    loops = any(isinstance(ins, Branch) for ins in code)
    return stores * ((unroll + 1) if loops else 1) + 2


def thread_executions(
    program: Program, unroll: int = DEFAULT_UNROLL, deadline: float | None = None
) -> ThreadsResult:
    """Every execution of every thread, for every value its reads may see.

    The value set of a location starts as its initial value and grows with the values
    stored by the thread executions until nothing new appears.  A value of a well-founded
    execution is computed from a chain of at most as many stores as the execution has,
    so the iteration stops after that many rounds even when values keep growing (only
    values no execution can justify are then left out)."""
    sem = semantics_of(program, unroll)
    init_mem = dict(program.memory)
    values: dict[str, set[Value]] = {x: {v} for x, v in init_mem.items()}
    vlists: dict[str, list[Value]] = {}

    def values_of(loc: str) -> list[Value]:
        vl = vlists.get(loc)
        if vl is None:
            vs = values.get(loc)
            if vs is None:  # a location only known from a computed address: initially 0
                vs = values[loc] = {init_mem.setdefault(loc, 0)}
            vl = vlists[loc] = sorted(vs, key=cmp_key)
        return vl

    limit = _max_rounds(program, unroll)
    stops = program.has(Assert)
    # programs whose threads may block (an assume, a lock, the loop bound): their blocked
    # executions feed the value sets; the search keeps only executions with no blocked
    # thread (or, to report it, one failing an assertion)
    blocks = stops or program.has(Assume, Lock) or program.loop_bound == "block"
    rounds = 0
    # per thread: its last executions, and the size of each value set its reads saw then
    # (value sets only grow: a thread whose reads would see the same values runs the same)
    last: list[tuple[list[ThreadExec], int, dict[str, int]] | None] = [None] * len(sem.threads)
    while True:
        rounds += 1
        vlists.clear()
        execs: list[list[ThreadExec]] = []
        bad = 0
        for t, code in enumerate(sem.threads):
            prev = last[t]
            if prev is not None and all(len(values[x]) == k for x, k in prev[2].items()):
                got, dropped = prev[0], prev[1]
            else:
                seen: dict[str, int] = {}

                def values_seen(loc: str, seen: dict[str, int] = seen) -> list[Value]:
                    vl = values_of(loc)
                    seen[loc] = len(vl)
                    return vl

                with sem.reporting():
                    got, dropped = run_thread(code, values_seen, deadline, stops, blocks)
                if t in sem.spawned:
                    got = [*got, ThreadExec(t, (), code.initial(), "unstarted")]
                last[t] = (got, dropped, seen)
            execs.append(got)
            bad += dropped
        if not _grow(values, init_mem, execs) or rounds >= limit:
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


def _grow(
    values: dict[str, set[Value]], init_mem: dict[str, Value], execs: Iterable[list[ThreadExec]]
) -> bool:
    """Add the values written by ``execs`` to ``values``; whether one was new."""
    grew = False
    for lst in execs:
        for te in lst:
            for e in te.events:
                if e.kind == "W" and e.loc is not None:
                    vs = values.setdefault(e.loc, {init_mem.setdefault(e.loc, 0)})
                    if e.value not in vs:
                        vs.add(e.value)  # type: ignore[arg-type]
                        grew = True
    return grew
