"""Thread execution: run one thread of the IR for every assignment of values to its reads.

A *thread execution* (:class:`ThreadExec`) is what one thread does once the values of its
reads are fixed: its events (R/W/F/B), its final registers and its dependency relations,
computed exactly as herd computes them (``herd/modelUtils.ml`` ``make_procrels``):

- a register *taint* is the set of reads whose value reaches the register through
  register dataflow (a load writes its destination; every operation propagates the taints
  of the registers it reads; ``li`` and immediates carry none);
- ``addr``: read -> memory access whose address registers it taints; ``data``: read ->
  store whose stored-value register it taints (only where herd's semantics marks that
  register read as a *data port*: PPC stores and X86 locked accesses; an X86 ``MOV
  [x],EAX`` gives ``addr``), and read -> branch commit event ``B`` whose condition
  register it taints;
- ``ctrl``: read -> every event (memory access, fence, branch commit) po-after a
  conditional branch whose commit it reaches by ``data``.  Only architectures whose
  conditional branches make a commit event (PPC, not X86) have ``B`` events and ``ctrl``.

``valdep`` (read -> write whose stored value it taints, whatever the port) is not a herd
relation: herd solves value equations after choosing rf and rejects a candidate whose
equations stay unsolved, which happens exactly when rf closes a cycle with ``valdep``.

The values a read may take are the values written to its location, found by a fixpoint
(:func:`thread_executions`): a store may store a value computed from reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from herdsman.engine.arith import EvalError, apply_op, branch_taken, cmp_key, loc_name
from herdsman.engine.errors import check_deadline
from herdsman.engine.initial import init_value, initial_memory, initial_registers
from herdsman.litmus.errors import InputError
from herdsman.litmus.ir import (
    RMW,
    Branch,
    Fence,
    Imm,
    Label,
    LitmusTest,
    Load,
    Loc,
    MemLoc,
    Nop,
    Op,
    Operand,
    Reg,
    Store,
    Sym,
    SymRegLoc,
    Value,
)

#: Architectures whose conditional branches make a commit event (``B``), hence ``ctrl``.
BRANCH_COMMIT: dict[str, bool] = {"PPC": True, "X86": False, "X86_64": False}
#: Architectures whose plain stores read the stored register as a data port (``data``).
STORE_DATA_PORT: dict[str, bool] = {"PPC": True, "X86": False, "X86_64": False}

DEFAULT_UNROLL = 2


class TEvent(NamedTuple):
    """One event of a thread execution (thread-local numbering).  ``inst`` numbers the
    instruction instance inside the thread (the two events of an RMW share it).  A named
    tuple: thread execution creates many."""

    kind: str  # R W F B
    poi: int
    loc: str | None = None
    value: Value | None = None
    fence: str | None = None
    instr: str = ""
    annots: frozenset[str] = frozenset()
    inst: int = 0

    def key(self) -> tuple:
        """Everything but the value: events of one *shape* agree on it."""
        return (self.kind, self.poi, self.loc, self.fence, self.instr, self.annots, self.inst)


Pairs = frozenset[tuple[int, int]]


@dataclass(frozen=True, slots=True)
class ThreadExec:
    """One execution of thread ``tid`` for one assignment of values to its reads."""

    tid: int
    events: tuple[TEvent, ...]
    addr: Pairs
    data: Pairs
    ctrl: Pairs
    valdep: Pairs
    regs: tuple[tuple[str, Value], ...]  # final value of every register it knows
    loop: bool = False  # hit the unrolling bound

    @property
    def reads(self) -> list[int]:
        return [i for i, e in enumerate(self.events) if e.kind == "R"]

    @property
    def read_values(self) -> tuple[Value, ...]:
        return tuple(e.value for e in self.events if e.kind == "R")  # type: ignore[misc]

    def shape(self) -> tuple:
        """What does not depend on values: executions of one shape share a skeleton."""
        return (
            tuple(e.key() for e in self.events),
            self.addr,
            self.data,
            self.ctrl,
            self.valdep,
            self.loop,
        )

    def reg(self, name: str, default: Value = 0) -> Value:
        for r, v in self.regs:
            if r == name:
                return v
        return default


@dataclass
class ThreadsResult:
    """All thread executions of a test, with the value sets they were computed from."""

    execs: list[list[ThreadExec]]  # per thread
    values: dict[str, set[Value]]  # values each location may hold
    init_mem: dict[str, Value]  # initial value of every known location
    init_sym: dict[str, Value]  # initial value of every symbolic register (``%name``)
    locations: list[str]  # every memory location (init writes), sorted
    bad_address: int = 0  # executions dropped because an address was not a symbol
    rounds: int = 0  # rounds of the value fixpoint

    def initial_value(self, loc: Loc) -> Value:
        """Initial value of a memory location or symbolic register, so its final value
        when no event writes it (0 for anything else: a register of no thread)."""
        if isinstance(loc, MemLoc):
            return self.init_mem.get(loc.name, 0)
        if isinstance(loc, SymRegLoc):
            return self.init_sym.get(loc.name, 0)
        return 0


# ----------------------------------------------------------------------------- execution


class _Unsupported(Exception):
    def __init__(self, pc: int, ins: object, why: str) -> None:
        super().__init__(why)
        self.pc = pc
        self.ins = ins
        self.why = why


class ThreadRunner:
    """Executes one thread for every choice of read values (depth-first)."""

    def __init__(
        self,
        tid: int,
        code: tuple,
        arch: str,
        init_regs: dict[str, Value],
        unroll: int = DEFAULT_UNROLL,
        deadline: float | None = None,
    ) -> None:
        self.tid = tid
        self.deadline = deadline
        self.code = code
        self.arch = arch
        self.init_regs = init_regs
        self.unroll = unroll
        self.commit = BRANCH_COMMIT.get(arch, True)
        self.store_data = STORE_DATA_PORT.get(arch, True)
        self.labels: dict[str, int] = {}
        for i, ins in enumerate(code):
            if isinstance(ins, Label):
                self.labels[ins.name] = i
        self.bad_address = 0
        for i, ins in enumerate(code):
            if isinstance(ins, Branch) and ins.target not in self.labels:
                raise _Unsupported(i, ins, f"branch to undefined label '{ins.target}'")

    def run(self, values_of: Callable[[str], Iterable[Value]]) -> list[ThreadExec]:
        """Every execution, for the values ``values_of(location)`` reads may see."""
        out: list[ThreadExec] = []
        self.bad_address = 0
        st = _State(dict(self.init_regs))
        self._go(0, st, values_of, out)
        return out

    # The state is copied at each read with several possible values only.
    def _go(
        self, pc: int, st: _State, values_of: Callable[[str], Iterable[Value]], out: list
    ) -> None:
        code = self.code
        n = len(code)
        while pc < n:
            ins = code[pc]
            cls = type(ins)
            if cls is Label:
                pc += 1
                continue
            poi = st.poi
            st.poi += 1
            inst = st.inst
            st.inst += 1
            try:
                if cls is Op:
                    args = [st.value(a) for a in ins.args]
                    taint = st.taint_of(ins.args)
                    v = apply_op(ins.fn, args)
                    st.set(ins.dst, v, taint)
                    if ins.sets_cr and ins.dst != "cr0":
                        st.set("cr0", apply_op("cmp", [v, 0]), taint)
                    pc += 1
                elif cls is Load:
                    a = _address(st, ins.addr)
                    if a is None:
                        self.bad_address += 1
                        return
                    loc = loc_name(a)
                    ataint = st.taint_of(ins.addr)
                    vals = list(values_of(loc))
                    idx = len(st.events)
                    for k, v in enumerate(vals):
                        s2 = st if k == len(vals) - 1 else st.copy()
                        s2.add_event(TEvent("R", poi, loc, v, None, ins.text, ins.annots, inst))
                        s2.add_pairs("addr", ataint, idx)
                        s2.add_ctrl(idx)
                        s2.set(ins.dst, v, frozenset((idx,)))
                        if k == len(vals) - 1:
                            pc += 1
                            break
                        self._go(pc + 1, s2, values_of, out)
                    else:  # no value at all: location unknown to the value sets
                        return
                elif cls is Store:
                    a = _address(st, ins.addr)
                    if a is None:
                        self.bad_address += 1
                        return
                    v = st.value(ins.src)
                    idx = len(st.events)
                    st.add_event(TEvent("W", poi, loc_name(a), v, None, ins.text, ins.annots, inst))
                    st.add_pairs("addr", st.taint_of(ins.addr), idx)
                    vt = st.taint_of((ins.src,))
                    st.add_pairs("data" if self.store_data else "addr", vt, idx)
                    st.add_pairs("valdep", vt, idx)
                    st.add_ctrl(idx)
                    pc += 1
                elif cls is RMW:
                    pc = self._rmw(pc, ins, st, poi, inst, values_of, out)
                    if pc < 0:
                        return
                elif cls is Fence:
                    idx = len(st.events)
                    st.add_event(
                        TEvent("F", poi, None, None, ins.kind, ins.text, frozenset(), inst)
                    )
                    st.add_ctrl(idx)
                    pc += 1
                elif cls is Branch:
                    if ins.cond is None:
                        taken = True
                    else:
                        c = st.value(Reg(ins.creg))
                        taken = branch_taken(ins.cond, c)
                        if self.commit:
                            idx = len(st.events)
                            st.add_event(
                                TEvent("B", poi, None, None, None, ins.text, frozenset(), inst)
                            )
                            st.add_ctrl(idx)
                            t = st.taint.get(ins.creg, frozenset())
                            st.add_pairs("data", t, idx)
                            st.ctrl_src = st.ctrl_src | t
                    if taken:
                        tgt = self.labels[ins.target]
                        if tgt <= pc:  # backward jump: bounded by the unrolling limit
                            cnt = st.seen.get(tgt, 0) + 1
                            st.seen = {**st.seen, tgt: cnt}
                            if cnt > self.unroll:
                                st.loop = True
                                break
                        pc = tgt
                    else:
                        pc += 1
                elif cls is Nop:
                    pc += 1
                else:
                    raise _Unsupported(pc, ins, "instruction not supported by the engine")
            except EvalError as e:
                raise _Unsupported(pc, ins, str(e)) from None
        out.append(st.finish(self.tid))
        if not len(out) & 255:
            check_deadline(self.deadline)

    def _rmw(self, pc, ins: RMW, st: _State, poi, inst, values_of, out) -> int:
        a = _address(st, ins.addr)
        if a is None:
            self.bad_address += 1
            return -1
        loc = loc_name(a)
        ataint = st.taint_of(ins.addr)
        stain = st.taint_of((ins.src,))
        src = st.value(ins.src)
        vals = list(values_of(loc))
        if not vals:
            return -1
        for k, old in enumerate(vals):
            last = k == len(vals) - 1
            s2 = st if last else st.copy()
            r = len(s2.events)
            s2.add_event(TEvent("R", poi, loc, old, None, ins.text, ins.annots, inst))
            s2.add_pairs("addr", ataint, r)
            s2.add_ctrl(r)
            new = apply_op(ins.fn, [old, src])
            w = r + 1
            s2.add_event(TEvent("W", poi, loc, new, None, ins.text, ins.annots, inst))
            s2.add_pairs("addr", ataint, w)
            s2.add_pairs("data", stain, w)
            s2.add_pairs("valdep", stain | {r}, w)
            s2.add_ctrl(w)
            if ins.dst:
                s2.set(ins.dst, old, frozenset((r,)))
            if last:
                return pc + 1
            self._go(pc + 1, s2, values_of, out)
        return pc + 1


def _address(st: _State, ops: tuple[Operand, ...]) -> Sym | None:
    """The address ``sum(ops)``, or None when it is not a symbol plus an offset."""
    base: Sym | None = None
    off = 0
    for op in ops:
        v = st.value(op)
        if isinstance(v, Sym):
            if base is not None:
                return None
            base = v
        else:
            off += v
    if base is None:
        return None
    return Sym(base.name, base.offset + off) if off else base


class _State:
    """Mutable state of one thread execution in progress."""

    __slots__ = ("regs", "taint", "events", "pairs", "ctrl_src", "poi", "inst", "seen", "loop")

    def __init__(self, regs: dict[str, Value]) -> None:
        self.regs = regs
        self.taint: dict[str, frozenset[int]] = {}
        self.events: list[TEvent] = []
        self.pairs: list[tuple[str, int, int]] = []  # (relation, read, event)
        self.ctrl_src: frozenset[int] = frozenset()
        self.poi = 0
        self.inst = 0
        self.seen: dict[int, int] = {}
        self.loop = False

    def copy(self) -> _State:
        s = _State.__new__(_State)
        s.regs = dict(self.regs)
        s.taint = dict(self.taint)
        s.events = list(self.events)
        s.pairs = list(self.pairs)
        s.ctrl_src = self.ctrl_src
        s.poi = self.poi
        s.inst = self.inst
        s.seen = self.seen
        s.loop = self.loop
        return s

    def value(self, op: Operand) -> Value:
        if isinstance(op, Imm):
            return op.value
        return self.regs.get(op.name, 0)

    def taint_of(self, ops: Iterable[Operand]) -> frozenset[int]:
        t: frozenset[int] = frozenset()
        for op in ops:
            if isinstance(op, Reg):
                x = self.taint.get(op.name)
                if x:
                    t = t | x
        return t

    def set(self, reg: str, v: Value, taint: frozenset[int]) -> None:
        self.regs[reg] = v
        self.taint[reg] = taint

    def add_event(self, e: TEvent) -> None:
        self.events.append(e)

    def add_pairs(self, rel: str, srcs: Iterable[int], dst: int) -> None:
        if srcs:
            self.pairs.extend((rel, r, dst) for r in srcs)

    def add_ctrl(self, idx: int) -> None:
        if self.ctrl_src:
            self.add_pairs("ctrl", self.ctrl_src, idx)

    def finish(self, tid: int) -> ThreadExec:
        rels: dict[str, set[tuple[int, int]]] = {"addr": set(), "data": set(), "ctrl": set()}
        rels["valdep"] = set()
        for rel, i, j in self.pairs:
            rels[rel].add((i, j))
        return ThreadExec(
            tid,
            tuple(self.events),
            frozenset(rels["addr"]),
            frozenset(rels["data"]),
            frozenset(rels["ctrl"]),
            frozenset(rels["valdep"]),
            tuple(sorted(self.regs.items())),
            self.loop,
        )


# ----------------------------------------------------------------------------- fixpoint


def _max_rounds(test: LitmusTest, unroll: int) -> int:
    stores = sum(1 for code in test.threads for ins in code if isinstance(ins, Store | RMW))
    loops = any(isinstance(ins, Branch) for code in test.threads for ins in code)
    return stores * ((unroll + 1) if loops else 1) + 2


def thread_executions(
    test: LitmusTest, unroll: int = DEFAULT_UNROLL, deadline: float | None = None
) -> ThreadsResult:
    """Every execution of every thread, for every value its reads may see.

    The value set of a location starts as its initial value and grows with the values
    stored by the thread executions until nothing new appears.  A value of a well-founded
    execution is computed from a chain of at most as many stores as the execution has,
    so the iteration stops after that many rounds even when values keep growing (only
    values no execution can justify are then left out).
    """
    init_regs = initial_registers(test)
    init_mem = initial_memory(test)
    runners = []
    for tid, code in enumerate(test.threads):
        try:
            runners.append(ThreadRunner(tid, code, test.arch, init_regs[tid], unroll, deadline))
        except _Unsupported as e:
            raise _input_error(test, tid, e) from None
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

    limit = _max_rounds(test, unroll)
    rounds = 0
    while True:
        rounds += 1
        vlists.clear()
        execs: list[list[ThreadExec]] = []
        for r in runners:
            try:
                execs.append(r.run(values_of))
            except _Unsupported as e:
                raise _input_error(test, r.tid, e) from None
        grew = False
        for lst in execs:
            for te in lst:
                for e in te.events:
                    if e.kind == "W" and e.loc is not None:
                        vs = values.setdefault(e.loc, {init_mem.setdefault(e.loc, 0)})
                        if e.value not in vs:
                            vs.add(e.value)  # type: ignore[arg-type]
                            grew = True
        if not grew or rounds >= limit:
            break
    return ThreadsResult(
        execs=execs,
        values=values,
        init_mem=init_mem,
        init_sym={
            it.loc.name: init_value(it.value) for it in test.init if isinstance(it.loc, SymRegLoc)
        },
        locations=sorted(init_mem),
        bad_address=sum(r.bad_address for r in runners),
        rounds=rounds,
    )


def _input_error(test: LitmusTest, tid: int, e: _Unsupported) -> InputError:
    text = getattr(e.ins, "text", type(e.ins).__name__)
    code = test.threads[tid]
    idx = sum(1 for i in code[: e.pc] if not isinstance(i, Label))
    return InputError(test.path or test.name, 0, 0, f"P{tid}, instruction {idx} '{text}': {e.why}")
