"""A brute-force interleaving interpreter of the program IR under sequential consistency.

Written for the tests only, independently of ``engine/`` (it imports nothing but the IR):
it runs every interleaving of the threads, one *step* at a time (a step is one memory
access, fence, lock, spawn or join of one thread, then that thread's register-only
operations up to its next such operation), and records, for every interleaving that
ends with every started thread finished, its execution graph: per thread its events
``(kind, location, value, reads-from)`` and per location the order of its writes
(coherence).  Distinct graphs are what the engines count as complete executions under
SC.

Conventions (those of the engines, see ``litmus/ir.py``): a thread that some operation
spawns starts when spawned, the others at once; a join waits for its thread to finish or
fail; an ``assume`` that fails and a lock read of a held lock block the thread (the
interleaving is then blocked, never complete); a backward branch taken more than
``unroll`` times blocks the thread too when ``Program.loop_bound`` is ``block`` (C
programs), and stops it otherwise (``cut``: herd's litmus tests; as herd, such an
interleaving is not counted as an execution); a failed ``assert``
records an error and stops its thread (which counts as finished).  States already seen
are not explored again (the partial graph is part of the state, so nothing is lost).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assert,
    Assume,
    Branch,
    Fence,
    Imm,
    Join,
    Label,
    Load,
    Lock,
    MemLoc,
    Nop,
    Op,
    Operand,
    Program,
    Reg,
    RegLoc,
    Spawn,
    Store,
    Sym,
    Unlock,
    Value,
)

#: States explored at most (an interleaving explosion fails the test instead of hanging).
MAX_STATES = 200_000

EventId = tuple[int, int]  # (thread, index among its events)


class OracleError(Exception):
    """The program does something this interpreter does not model."""


class StateCapExceeded(Exception):
    """More than ``max_states`` states: the program is too large for brute force."""


@dataclass(frozen=True, slots=True)
class Ev:
    """One event: ``kind`` R (read), W (write), F (fence: ``loc`` is its kind), S
    (spawn), J (join: ``value`` is the thread); ``rf`` is the write a read reads from
    (None: the initial value)."""

    kind: str
    loc: str | None
    value: Value | None
    rf: EventId | None = None


@dataclass(frozen=True, slots=True)
class TState:
    """A thread: ``status`` new (not spawned), run (at its next visible operation
    ``pc``), done, failed, blocked; its registers and backward-branch counts (sorted
    pairs), its events so far."""

    status: str
    pc: int = 0
    regs: tuple[tuple[str, Value], ...] = ()
    loops: tuple[tuple[int, int], ...] = ()
    events: tuple[Ev, ...] = ()
    cut: bool = False  # stopped by the unrolling bound (``cut``): done, but not counted


#: A complete execution graph: per thread its events, per written location its writes
#: in coherence order.
Graph = tuple[tuple[tuple[Ev, ...], ...], tuple[tuple[str, tuple[EventId, ...]], ...]]
State = tuple[Value, ...]


@dataclass
class Result:
    """What the exploration found: every distinct complete graph with its final state
    (values of ``Program.observed``), whether some interleaving fails an assertion, and
    how many distinct blocked end states it reached."""

    graphs: dict[Graph, State] = field(default_factory=dict)
    error: bool = False
    blocked: int = 0
    explored: int = 0
    cut: int = 0  # interleavings complete but for threads cut by the unrolling bound

    @property
    def complete(self) -> int:
        return len(self.graphs)

    @property
    def states(self) -> Counter[State]:
        """Final state -> number of distinct complete graphs reaching it."""
        return Counter(self.graphs.values())


# ----------------------------------------------------------------------------- values

_COMPARE = {
    "eq": lambda c: c == 0,
    "ne": lambda c: c != 0,
    "lt": lambda c: c < 0,
    "le": lambda c: c <= 0,
    "gt": lambda c: c > 0,
    "ge": lambda c: c >= 0,
}


def _cmp(a: Value, b: Value) -> int:
    """Signed comparison: integers numerically, before addresses (by name, offset)."""
    ka = (0, a, "") if isinstance(a, int) else (1, a.offset, a.name)
    kb = (0, b, "") if isinstance(b, int) else (1, b.offset, b.name)
    return (ka > kb) - (ka < kb)


def _div(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def apply(fn: str, args: list[Value]) -> Value:
    """``fn(args)`` for the functions of ``numbers.OP_FUNCTIONS`` (unbounded integers;
    address arithmetic: address + integer, address - address of one symbol)."""
    a = args[0]
    b = args[1] if len(args) > 1 else 0
    if fn == "mov":
        return a
    if fn == "second":
        return b
    if fn == "cmp" or fn in _COMPARE:
        c = _cmp(a, b)
        return c if fn == "cmp" else int(_COMPARE[fn](c))
    if isinstance(a, Sym) or isinstance(b, Sym):
        if fn == "add" and isinstance(a, Sym) and isinstance(b, int):
            return Sym(a.name, a.offset + b)
        if fn == "add" and isinstance(a, int) and isinstance(b, Sym):
            return Sym(b.name, b.offset + a)
        if fn == "sub" and isinstance(a, Sym) and isinstance(b, int):
            return Sym(a.name, a.offset - b)
        if fn == "sub" and isinstance(a, Sym) and isinstance(b, Sym) and a.name == b.name:
            return a.offset - b.offset
        raise OracleError(f"'{fn}' on addresses {a}, {b}")
    ops = {
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: _div(a, b),
        "mod": lambda: a - b * _div(a, b) if b else 0,
        "and": lambda: a & b,
        "or": lambda: a | b,
        "xor": lambda: a ^ b,
        "nor": lambda: ~(a | b),
        "neg": lambda: -a,
        "not": lambda: int(a == 0),
        "shl": lambda: a << b,
        "shr": lambda: (a % (1 << 64)) >> b,
        "sra": lambda: a >> b,
    }
    if fn not in ops:
        raise OracleError(f"unknown operation '{fn}'")
    return ops[fn]()


def holds(cond: str | None, v: Value) -> bool:
    """A branch/assume/assert condition on a register (compared with 0)."""
    if cond is None:
        return True
    if isinstance(v, Sym):
        raise OracleError(f"condition on an address {v}")
    return _COMPARE[cond](v)


# ----------------------------------------------------------------------------- interpreter


class Interleaver:
    """Every SC interleaving of ``program`` (see the module docstring)."""

    def __init__(self, program: Program, unroll: int = 2, max_states: int = MAX_STATES) -> None:
        self.program = program
        self.unroll = unroll
        self.max_states = max_states
        self.code = [th.code for th in program.threads]
        self.labels = [
            {ins.name: i for i, ins in enumerate(code) if isinstance(ins, Label)}
            for code in self.code
        ]
        self.memory: dict[str, Value] = dict(program.memory)
        self.spawned = {ins.thread for code in self.code for ins in code if isinstance(ins, Spawn)}
        self.bound_blocks = program.loop_bound == "block"

    # ------------------------------------------------------------------ one thread
    def start(self, tid: int) -> TState:
        regs = self.program.registers[tid] if tid < len(self.program.registers) else ()
        return self.settle(tid, TState("run", 0, tuple(sorted(regs))))

    def _value(self, ts: TState, op: Operand) -> Value:
        if isinstance(op, Imm):
            return op.value
        return dict(ts.regs).get(op.name, 0)

    def _address(self, ts: TState, addr: tuple[Operand, ...]) -> str | None:
        """The location ``sum(addr)`` denotes, None when it is no address."""
        base: Sym | None = None
        off = 0
        for op in addr:
            v = self._value(ts, op)
            if isinstance(v, Sym):
                if base is not None:
                    return None
                base = v
            else:
                off += v
        return None if base is None else str(Sym(base.name, base.offset + off))

    @staticmethod
    def _set(ts: TState, **regs: Value) -> TState:
        d = dict(ts.regs)
        d.update(regs)
        return replace(ts, regs=tuple(sorted(d.items())))

    def settle(self, tid: int, ts: TState) -> TState:
        """Run register-only operations up to the next visible one (status run), the
        end (done), a failed assume or the unrolling bound (blocked), a failed assert
        (failed)."""
        code = self.code[tid]
        pc = ts.pc
        while pc < len(code):
            ins = code[pc]
            if isinstance(ins, Label | Nop):
                pc += 1
            elif isinstance(ins, Op):
                v = apply(ins.fn, [self._value(ts, a) for a in ins.args])
                ts = self._set(ts, **{ins.dst: v})
                if ins.sets_cr and ins.dst != "cr0":
                    ts = self._set(ts, cr0=apply("cmp", [v, 0]))
                pc += 1
            elif isinstance(ins, Branch):
                if not holds(ins.cond, self._value(ts, Reg(ins.creg))):
                    pc += 1
                    continue
                target = self.labels[tid][ins.target]
                if target <= pc:  # backward: at most `unroll` times per target
                    loops = dict(ts.loops)
                    loops[target] = loops.get(target, 0) + 1
                    ts = replace(ts, loops=tuple(sorted(loops.items())))
                    if loops[target] > self.unroll:
                        if self.bound_blocks:
                            return replace(ts, status="blocked")
                        return replace(ts, status="done", cut=True)
                pc = target
            elif isinstance(ins, Assume):
                if not holds(ins.cond, self._value(ts, Reg(ins.creg))):
                    return replace(ts, status="blocked", pc=pc)
                pc += 1
            elif isinstance(ins, Assert):
                if not holds(ins.cond, self._value(ts, Reg(ins.creg))):
                    return replace(ts, status="failed", pc=pc)
                pc += 1
            else:
                return replace(ts, status="run", pc=pc)
        return replace(ts, status="done", pc=pc)

    # ------------------------------------------------------------------ global steps
    def enabled(self, threads: tuple[TState, ...], tid: int) -> bool:
        ts = threads[tid]
        if ts.status != "run":
            return False
        ins = self.code[tid][ts.pc]
        return not isinstance(ins, Join) or threads[ins.thread].status in ("done", "failed")

    def step(
        self, threads: tuple[TState, ...], co: dict[str, tuple[EventId, ...]], tid: int
    ) -> tuple[tuple[TState, ...], dict[str, tuple[EventId, ...]]]:
        """Thread ``tid`` performs its next visible operation."""
        ts = threads[tid]
        ins = self.code[tid][ts.pc]
        out = list(threads)
        co = dict(co)
        events = list(ts.events)

        def read(loc: str) -> Value:
            writes = co.get(loc, ())
            if writes:
                w = writes[-1]
                src = (out[w[0]].events if w[0] != tid else events)[w[1]]
                value = src.value
            else:
                w, value = None, self.memory.get(loc, 0)
            events.append(Ev("R", loc, value, w))
            assert value is not None
            return value

        def write(loc: str, value: Value) -> None:
            co[loc] = (*co.get(loc, ()), (tid, len(events)))
            events.append(Ev("W", loc, value))

        status = "run"
        if isinstance(ins, Fence):
            events.append(Ev("F", ins.kind, None))
        elif isinstance(ins, Spawn):
            if out[ins.thread].status != "new":
                raise OracleError(f"thread {ins.thread} spawned twice")
            events.append(Ev("S", None, ins.thread))
            out[ins.thread] = self.start(ins.thread)
        elif isinstance(ins, Join):
            events.append(Ev("J", None, ins.thread))
        else:
            loc = self._address(ts, ins.addr)
            if loc is None:
                status = "blocked"  # as the engines: an address that is no location
            elif isinstance(ins, Load):
                ts = self._set(ts, **{ins.dst: read(loc)})
            elif isinstance(ins, Store):
                write(loc, self._value(ts, ins.src))
            elif isinstance(ins, Unlock):
                write(loc, 0)
            elif isinstance(ins, RMW):
                old = read(loc)
                write(loc, apply(ins.fn, [old, self._value(ts, ins.src)]))
                if ins.dst:
                    ts = self._set(ts, **{ins.dst: old})
            elif isinstance(ins, CAS):
                old = read(loc)
                if old == self._value(ts, ins.expected):
                    write(loc, self._value(ts, ins.desired))
                if ins.dst:
                    ts = self._set(ts, **{ins.dst: old})
            elif isinstance(ins, Lock):
                if read(loc) == 0:
                    write(loc, 1)
                else:
                    status = "blocked"  # the lock is held: blocked, not waited for
            else:
                raise OracleError(f"unknown operation {ins!r}")
        ts = replace(ts, events=tuple(events))
        if status == "blocked":
            out[tid] = replace(ts, status="blocked")
        else:
            out[tid] = self.settle(tid, replace(ts, pc=ts.pc + 1))
        return tuple(out), co

    # ------------------------------------------------------------------ exploration
    def final_state(self, threads: tuple[TState, ...], co: dict[str, tuple[EventId, ...]]) -> State:
        out: list[Value] = []
        for loc in self.program.observed:
            if isinstance(loc, MemLoc):
                writes = co.get(loc.name, ())
                if writes:
                    v = threads[writes[-1][0]].events[writes[-1][1]].value
                    assert v is not None
                    out.append(v)
                else:
                    out.append(self.memory.get(loc.name, 0))
            elif isinstance(loc, RegLoc):
                out.append(dict(threads[loc.tid].regs).get(loc.reg, 0))
            else:
                raise OracleError(f"cannot observe {loc}")
        return tuple(out)

    def run(self) -> Result:
        n = len(self.code)
        first = tuple(TState("new") if t in self.spawned else self.start(t) for t in range(n))
        result = Result()
        seen: set = set()
        stack: list[tuple[tuple[TState, ...], dict[str, tuple[EventId, ...]]]] = [(first, {})]
        while stack:
            threads, co = stack.pop()
            key = (threads, tuple(sorted(co.items())))
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > self.max_states:
                raise StateCapExceeded(f"{self.program.name}: over {self.max_states} states")
            if any(ts.status == "failed" for ts in threads):
                result.error = True
            movers = [t for t in range(n) if self.enabled(threads, t)]
            for t in movers:
                stack.append(self.step(threads, co, t))
            if movers:
                continue
            if all(ts.status in ("done", "failed", "new") for ts in threads):
                if any(ts.cut for ts in threads):  # as herd: only marks the verdict Loop
                    result.cut += 1
                    continue
                graph: Graph = (tuple(ts.events for ts in threads), key[1])
                result.graphs[graph] = self.final_state(threads, co)
            else:
                result.blocked += 1
        result.explored = len(seen)
        return result


def interleavings(program: Program, unroll: int = 2, max_states: int = MAX_STATES) -> Result:
    """Every SC execution of ``program`` by brute force (see the module docstring)."""
    return Interleaver(program, unroll, max_states).run()
