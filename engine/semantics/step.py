"""The step function of the program IR: from a thread state, its next event and next state.

:class:`Semantics` compiles a :class:`litmus.ir.Program` once.  A thread's state
(:class:`ThreadState`, an immutable named tuple: cheap to copy, hash and compare) holds its
next operation, its registers, the *taint* of each register (the reads its value comes
from, as a mask of thread positions) and the reads that reached a branch so far.
:meth:`Semantics.step` runs the thread's register operations up to its next event and
says what comes next:

* :class:`Emit`: an event other than a read (write, fence, branch commit, spawn, join)
  with the state after it;
* :class:`Read`: a read; :meth:`Semantics.after_read` gives the state once its value is
  chosen (a :class:`~engine.semantics.arith.ReadValue` leaves it symbolic, so that an
  explorer can fetch the thread's later events before committing the read:
  :meth:`Semantics.resolve` fills the value in later);
* :class:`ThreadDone` (finished, or cut by the unrolling bound), :class:`Blocked` (an ``assume``
  failed, a lock is held, an address is no location), :class:`ThreadFailed` (an ``assert``
  failed), :class:`Stall` (the next step needs read values not chosen yet).

Dependencies are herd's (``herd/modelUtils.ml`` ``make_procrels``): ``addr``: the reads
tainting an access's address registers; ``data``: those tainting a store's value
register where the architecture reads it as a data port (PPC stores, read-modify-writes;
an X86 ``MOV [x],EAX`` gives ``addr``) and a branch commit's condition register; ``ctrl``:
the reads reaching the commit of a po-earlier conditional branch (only architectures
whose conditional branches commit, :attr:`litmus.arch.Arch.branch_commit`, have them).
On those architectures an ``assume`` or ``assert`` of a C program that holds commits a
branch too: compiled, a spin loop or an abort test is a conditional branch.
``valdep`` (the reads a stored value is computed from, whatever the port) is not a herd
relation: herd solves value equations after choosing rf and rejects candidates whose
equations have no solution, which happens exactly when rf closes a cycle with ``valdep``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache

from herdsman.engine.semantics.arith import (
    AnyValue,
    EvalError,
    Expr,
    apply_op,
    branch_taken,
    evaluate,
    is_known,
    reads_of,
)
from herdsman.engine.semantics.state import (
    Blocked,
    Emit,
    Pending,
    Read,
    Stall,
    Step,
    ThreadDone,
    ThreadFailed,
    ThreadState,
)
from herdsman.graphs.events import Event
from herdsman.litmus.base.arch import ARCHS
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assert,
    Assume,
    Branch,
    Fence,
    Free,
    Imm,
    Instr,
    Join,
    Kill,
    Label,
    Load,
    Lock,
    Nop,
    Op,
    Operand,
    Program,
    Reg,
    Spawn,
    Store,
    Sym,
    Thread,
    Unlock,
    Value,
)

#: herd's default bound on the times a backward branch is taken (``-unroll``).
DEFAULT_UNROLL = 2

#: No bound: for programs that bound their own loops (C programs, ``loop_bound="none"``)
#: explored by an engine that grows its graphs as threads run on.
UNBOUNDED = 1 << 62

#: Why a thread is blocked when its program blocks executions at the unrolling bound.
LOOP_BOUND = "loop bound"
#: Why a thread is blocked when an assumption fails (``assume``, GenMC's spin loops).
ASSUME = "assume"
_LOOP_BOUND = Blocked(LOOP_BOUND)


#: Named tuples are made with ``tuple.__new__`` on the hot paths (no Python-level call).
_new = tuple.__new__
_NONE: frozenset[str] = frozenset()


class StepError(Exception):
    """A thread does what no program may (an operation herd cannot perform, a branch to
    no label): the message names the thread and the operation; the explorer reports it
    as bad input of the program's file."""


class ThreadCode:
    """One thread compiled, with its step function (see the module docstring): register
    slots, labels, backward-branch targets, each operation's operands as (register slot
    or -1, immediate value).  It depends only on the thread's code, initial registers and
    architecture facts, so identical threads of different programs share one
    (:func:`thread_code`)."""

    def __init__(
        self,
        tid: int,
        thread: Thread,
        registers: tuple[tuple[str, Value], ...],
        branch_commit: bool,
        store_data_port: bool,
        unroll: int,
        bound_blocks: bool = False,
    ) -> None:
        self.tid = tid
        self.bound_blocks = bound_blocks
        self.code: tuple[Instr, ...] = thread.code
        self.origins = thread.origins
        self.branch_commit = branch_commit
        self.store_data_port = store_data_port
        self.unroll = unroll
        init = dict(registers)
        slots: dict[str, int] = {name: i for i, name in enumerate(init)}
        self.labels: dict[str, int] = {}
        infos = []
        for i, ins in enumerate(self.code):
            if type(ins) is Label:
                self.labels[ins.name] = i
                infos.append(_NO_INFO)
                continue
            info = _info(ins)
            infos.append(info)
            for r in info[0]:
                if r not in slots:
                    slots[r] = len(slots)
        self.slots = slots
        self.names = tuple(slots)
        self.order = tuple(
            (i, self.names[i]) for i in sorted(range(len(slots)), key=self.names.__getitem__)
        )
        self.cr0 = slots.get("cr0", -1)
        self.init_regs = tuple([init.get(r) for r in self.names])
        # per operation: its operands as (register slot or -1, immediate value); per
        # memory access, its address operands, and its location when they are all
        # immediates (X86's [x]: known before the thread runs)
        self.args: list[tuple[tuple[int, Value], ...]] = []
        self.addr_ops: list[tuple[tuple[int, Value], ...]] = []
        self.const_loc: list[str | None] = []
        for _regs, operands, naddr in infos:
            cargs = tuple([(slots[x], 0) if reg else (-1, x) for reg, x in operands])
            self.args.append(cargs)
            ops = cargs[:naddr]
            self.addr_ops.append(ops)
            loc = None
            if ops and all(slot < 0 for slot, _ in ops):
                a, _ = _address((), (), ops)
                loc = str(a) if isinstance(a, Sym) else None
            self.const_loc.append(loc)
        back: dict[int, int] = {}
        for i, ins in enumerate(self.code):
            if type(ins) is Branch:
                tgt = self.labels.get(ins.target)
                if tgt is None:
                    raise StepError(f"P{tid}: branch to undefined label '{ins.target}'")
                if tgt <= i:
                    back.setdefault(tgt, len(back))
        self.back = back  # backward-branch target -> its slot in ThreadState.loops
        # per fence operation: its event's fence kind and annotation sets
        self.fences = {
            i: fence_parts(ins.kind) for i, ins in enumerate(self.code) if type(ins) is Fence
        }

    def static_loc(self, pc: int) -> str | None:
        """The location the access at ``pc`` names with the thread's initial registers
        (None: none), for estimates before the thread runs."""
        loc = self.const_loc[pc]
        if loc is None:
            a, _ = _address(self.init_regs, (0,) * len(self.init_regs), self.addr_ops[pc])
            loc = str(a) if isinstance(a, Sym) else None
        return loc

    # ------------------------------------------------------------------ states
    def start(self) -> ThreadState:
        th = self
        zeros = (0,) * len(th.names)
        return ThreadState(0, th.init_regs, zeros, 0, 0, 0, (0,) * len(th.back))

    def initial(self) -> ThreadDone:
        """How a thread that never ran ends: with its initial registers."""
        return _new(ThreadDone, (self.init_regs, False, self.slots, self.order))

    def max_events(self, unroll: int | None = None) -> int:
        """An upper bound of the events of any execution of the thread: the longest
        path through its code, both ways at every conditional branch, backward branches
        taken at most ``unroll`` times (the thread's bound by default; explorers reserve
        that much room, and grow it when a thread whose loops are not bounded needs
        more)."""
        th = self
        bound = self.unroll if unroll is None else min(unroll, self.unroll)
        code = th.code
        end = len(code)
        if not end:  # a thread with no instructions
            return 0
        memo: dict[tuple[int, tuple[int, ...]], int] = {}
        start = (0, (0,) * len(th.back))
        stack = [start]
        while stack:
            key = stack[-1]
            if key in memo:
                stack.pop()
                continue
            succ = self._successors(th, *key, bound)
            todo = [k for k in succ if k[0] < end and k not in memo]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            here = _events_of(code[key[0]], self.branch_commit)
            memo[key] = here + max((memo.get(k, 0) for k in succ if k[0] < end), default=0)
        return memo[start] if end else 0

    def _successors(
        self, th: ThreadCode, pc: int, loops: tuple[int, ...], bound: int
    ) -> list[tuple[int, tuple[int, ...]]]:
        """The (pc, loop counts) after the operation at ``pc``, every way it may go."""
        ins = th.code[pc]
        nxt = [(pc + 1, loops)]
        if type(ins) is Branch:
            tgt = th.labels[ins.target]
            if ins.cond is None:
                nxt = []
            if tgt <= pc:
                k = th.back[tgt]
                cnt = loops[k] + 1
                nxt.append(
                    (
                        tgt if cnt <= bound else len(th.code),
                        loops[:k] + (cnt,) + loops[k + 1 :],
                    )
                )
            else:
                nxt.append((tgt, loops))
        return nxt

    # ------------------------------------------------------------------ stepping
    def step(self, st: ThreadState) -> Step:
        """What the thread does next from ``st`` (see the module docstring)."""
        th = self
        if st.pending is not None:
            return self._pending(th, st)
        code = th.code
        pc = st.pc
        regs, taint = st.regs, st.taint
        poi = st.poi
        if st.cut:
            if self.bound_blocks:
                return _LOOP_BOUND
            return _new(ThreadDone, (st.regs, True, self.slots, self.order))
        while pc < len(code):
            ins = code[pc]
            cls = type(ins)
            if cls is Label:
                pc += 1
                continue
            try:
                if cls is Op:
                    regs, taint = self._op(th, ins, th.args[pc], regs, taint)  # type: ignore[arg-type]
                    pc += 1
                    poi += 1
                    continue
                if cls is Branch:
                    assert isinstance(ins, Branch)
                    step, st, pc = self._branch(th, ins, st, pc, regs, taint, poi)
                    if step is not None:
                        return step
                    poi += 1
                    if pc < 0:  # over the unrolling bound: the thread stops
                        if self.bound_blocks:
                            return _LOOP_BOUND
                        st = _state(st, len(code), regs, taint, st.n, poi)
                        return _new(ThreadDone, (st.regs, True, self.slots, self.order))
                    continue
                if cls is Nop:
                    pc += 1
                    poi += 1
                    continue
                if cls is Kill:  # GenMC's loop bound: the thread stops unfinished
                    return _new(ThreadDone, (regs, True, self.slots, self.order))
                if cls is Free:
                    st, failed = self._free(th, ins, _state(st, pc, regs, taint, st.n, poi))  # type: ignore[arg-type]
                    if failed is not None:
                        return failed
                    pc += 1
                    poi += 1
                    continue
                if cls is Assume or cls is Assert:
                    creg = ins.creg  # type: ignore[union-attr]
                    c = self._value(th, regs, creg)
                    if not is_known(c):
                        return Stall(reads_of(c))
                    if not branch_taken(ins.cond, c):  # type: ignore[union-attr,arg-type]
                        if cls is Assume:
                            return Blocked(ASSUME)
                        done = _new(ThreadDone, (regs, False, self.slots, self.order))
                        return ThreadFailed(ins.message or "assertion", pc, done)  # type: ignore[union-attr]
                    if self.branch_commit:  # compiled, it is a conditional branch
                        return self._check_commit(th, creg, st, pc, regs, taint, poi)
                    pc += 1
                    poi += 1
                    continue
                here = _state(st, pc, regs, taint, st.n, poi)
                return self._event(th, ins, here)
            except EvalError as e:
                raise self._error(th, pc, str(e)) from None
        st = _state(st, pc, regs, taint, st.n, poi)
        return _new(ThreadDone, (st.regs, False, self.slots, self.order))

    def _value(self, th: ThreadCode, regs: tuple, name: str) -> AnyValue:
        v = regs[th.slots[name]]
        return 0 if v is None else v

    def _operand(self, th: ThreadCode, regs: tuple, taint: tuple, op: Operand) -> tuple:
        if type(op) is Imm:
            return op.value, 0
        i = th.slots[op.name]  # type: ignore[union-attr]
        v = regs[i]
        return (0 if v is None else v), taint[i]

    def _op(
        self, th: ThreadCode, ins: Op, cargs: tuple, regs: tuple, taint: tuple
    ) -> tuple[tuple, tuple]:
        args = []
        t = 0
        for slot, imm in cargs:
            if slot < 0:
                args.append(imm)
            else:
                v = regs[slot]
                args.append(0 if v is None else v)
                t |= taint[slot]
        v = apply_op(ins.fn, args)
        regs, taint = _set(regs, taint, th.slots[ins.dst], v, t)
        if ins.sets_cr and ins.dst != "cr0":
            regs, taint = _set(regs, taint, th.cr0, apply_op("cmp", [v, 0]), t)
        return regs, taint

    def _branch(
        self,
        th: ThreadCode,
        ins: Branch,
        st: ThreadState,
        pc: int,
        regs: tuple,
        taint: tuple,
        poi: int,
    ) -> tuple[Step | None, ThreadState, int]:
        """A branch at ``pc``: (None, the state with its loop counts, the next pc) when it
        makes no event, the next pc being -1 over the unrolling bound; else (the
        :class:`Emit` of its commit event, or a :class:`Stall`, ``st``, ``pc``)."""
        event = None
        ctrl = st.ctrl
        if ins.cond is None:
            taken = True
        else:
            slot = th.slots[ins.creg]
            c = regs[slot]
            c = 0 if c is None else c
            if not is_known(c):
                return Stall(reads_of(c)), st, pc
            taken = branch_taken(ins.cond, c)  # type: ignore[arg-type]
            if self.branch_commit:
                t = taint[slot]
                event = _new(
                    Event,
                    (
                        "B",
                        th.tid,
                        st.n,
                        poi,
                        None,
                        None,
                        None,
                        _NONE,
                        th.origins[pc],
                        0,
                        t,
                        ctrl,
                        0,
                    ),
                )
                ctrl |= t
        loops = st.loops
        new_pc = pc + 1
        if taken:
            new_pc = th.labels[ins.target]
            if new_pc <= pc:  # backward: bounded by the unrolling limit
                k = th.back[new_pc]
                cnt = loops[k] + 1
                loops = loops[:k] + (cnt,) + loops[k + 1 :]
                if cnt > self.unroll:
                    new_pc = -1
        if event is None:
            return None, st._replace(loops=loops), new_pc
        after = st._replace(
            pc=new_pc if new_pc >= 0 else len(th.code),
            regs=regs,
            taint=taint,
            ctrl=ctrl,
            n=st.n + 1,
            poi=poi + 1,
            loops=loops,
            cut=new_pc < 0,
        )
        return _new(Emit, (event, after, None)), st, pc

    def _check_commit(
        self,
        th: ThreadCode,
        creg: str,
        st: ThreadState,
        pc: int,
        regs: tuple,
        taint: tuple,
        poi: int,
    ) -> Step:
        """The branch commit of an ``assume`` or ``assert`` that holds, on an
        architecture whose conditional branches commit: a spin loop or an abort test is
        a conditional branch once compiled, and the thread's later events depend on it
        (``ctrl``) as on any branch."""
        t = taint[th.slots[creg]]
        event = _new(
            Event,
            ("B", th.tid, st.n, poi, None, None, None, _NONE, th.origins[pc], 0, t, st.ctrl, 0),
        )
        after = _new(
            ThreadState,
            (
                pc + 1,
                regs,
                taint,
                st.ctrl | t,
                st.n + 1,
                poi + 1,
                st.loops,
                st.pending,
                st.cut,
                st.freed,
            ),
        )
        return _new(Emit, (event, after, None))

    def _event(self, th: ThreadCode, ins: Instr, st: ThreadState) -> Step:
        """The event of a memory access, fence, spawn or join at ``st.pc``."""
        pc, n, poi = st.pc, st.n, st.poi
        origin = th.origins[pc]
        cls = type(ins)
        if cls is Fence:
            kind, annots = th.fences[pc]
            ev = _new(
                Event, ("F", th.tid, n, poi, None, None, kind, annots, origin, 0, 0, st.ctrl, 0)
            )
            return _new(Emit, (ev, _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1), None))
        if cls is Spawn or cls is Join:
            kind = "S" if cls is Spawn else "J"
            tgt = ins.thread  # type: ignore[union-attr]
            if cls is Join and ins.reg is not None:  # type: ignore[union-attr]
                tgt = self._value(th, st.regs, ins.reg)  # type: ignore[union-attr]
                if not is_known(tgt):
                    return Stall(reads_of(tgt))
                if type(tgt) is not int:
                    return ThreadFailed(f"join of an invalid thread ({tgt})", pc, self._done(st))
            ev = Event(kind, th.tid, n, poi, value=tgt, instr=origin, ctrl=st.ctrl)
            return Emit(ev, _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1))
        cops = th.args[pc]
        loc = th.const_loc[pc]
        sym: AnyValue | None = None
        at = 0
        if loc is None:
            a, at = _address(st.regs, st.taint, th.addr_ops[pc])
            if a is None:
                return Blocked("an address is not a memory location")
            if type(a) is Sym:
                loc = _loc_name(a)
                if st.freed and a.name in st.freed:  # type: ignore[union-attr]
                    return ThreadFailed("access to freed memory", pc, self._done(st))
            else:
                sym = a
        annots = ins.annots  # type: ignore[union-attr]
        if cls is Store or cls is Unlock:
            v, vt = 0, 0
            if cls is Store:
                slot, v = cops[-1]
                if slot >= 0:
                    v, vt = st.regs[slot], st.taint[slot]
                    if v is None:
                        v = 0
            data, addr = (vt, at) if self.store_data_port else (0, at | vt)
            fields = ("W", th.tid, n, poi, loc, v, None, annots, origin, addr, data, st.ctrl, vt)
            after = _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1)
            return _new(Emit, (_new(Event, fields), after, sym))
        fields = ("R", th.tid, n, poi, loc, None, None, annots, origin, at, 0, st.ctrl, 0)
        return _new(Read, (_new(Event, fields), st, sym))

    def _done(self, st: ThreadState) -> ThreadDone:
        return _new(ThreadDone, (st.regs, False, self.slots, self.order))

    def _free(self, th: ThreadCode, ins: Free, st: ThreadState) -> tuple[ThreadState, Step | None]:
        """Release the heap allocation ``ins`` names: (the state after, or the error)."""
        a, _ = _address(st.regs, st.taint, th.addr_ops[st.pc])
        if a is None or not is_known(a):
            return st, None if a is None else Stall(reads_of(a))
        if type(a) is not Sym or not a.name.startswith("heap@") or a.offset:
            return st, ThreadFailed("free of memory no malloc gave", st.pc, self._done(st))
        if a.name in st.freed:
            return st, ThreadFailed("double free", st.pc, self._done(st))
        return st._replace(freed=st.freed | {a.name}), None

    def after_read(self, read: Read, value: AnyValue) -> ThreadState:
        """The state after the read :meth:`step` gave (``read``) reads ``value`` (a
        :class:`ReadValue` of its position: not chosen yet)."""
        th = self
        tid = self.tid
        st, ev = read.at, read.event
        ins = th.code[st.pc]
        r = st.n
        regs, taint = st.regs, st.taint
        cls = type(ins)
        try:
            if cls is Load:
                regs, taint = _set(regs, taint, th.slots[ins.dst], value, 1 << r)  # type: ignore[union-attr]
                return _state(st, st.pc + 1, regs, taint, r + 1, st.poi + 1)
            dst = -1
            if cls is RMW or cls is CAS:
                dst = th.slots[ins.dst] if ins.dst else -1  # type: ignore[union-attr]
            if cls is RMW:
                src, stain = self._operand(th, regs, taint, ins.src)  # type: ignore[union-attr]
                new = apply_op(ins.fn, [value, src])  # type: ignore[union-attr]
                guard: AnyValue = 1
                fail = "skip"
            elif cls is CAS:
                exp, _ = self._operand(th, regs, taint, ins.expected)  # type: ignore[union-attr]
                new, stain = self._operand(th, regs, taint, ins.desired)  # type: ignore[union-attr]
                guard = apply_op("eq", [value, exp])
                fail = "skip"
            else:  # Lock
                new, stain, dst = 1, 0, -1
                guard = apply_op("eq", [value, 0])
                fail = "block"
        except EvalError as e:
            raise self._error(th, st.pc, str(e)) from None
        # the new value of a read-modify-write is computed from the old one
        valdep = stain | (1 << r) if cls is RMW else stain
        w = Event(
            "W",
            tid,
            r + 1,
            st.poi,
            ev.loc,
            new,
            None,
            ev.annots,
            ev.instr,
            ev.addr,
            stain,
            st.ctrl,
            valdep,
        )
        pend = Pending(w, guard, fail, dst, value, 1 << r)
        return st._replace(n=r + 1, pending=pend)

    def _pending(self, th: ThreadCode, st: ThreadState) -> Step:
        """The write of a read-modify-write whose read is done (or its failure)."""
        p = st.pending
        assert p is not None
        if not is_known(p.guard):
            return Stall(reads_of(p.guard))
        regs, taint = st.regs, st.taint
        if p.dst >= 0:
            regs, taint = _set(regs, taint, p.dst, p.dst_value, p.dst_taint)
        after = st._replace(pc=st.pc + 1, regs=regs, taint=taint, poi=st.poi + 1, pending=None)
        if p.guard:
            return Emit(p.event, after._replace(n=st.n + 1))
        if p.fail == "block":
            return Blocked("the lock is held")
        return self.step(after)

    def resolve(self, st: ThreadState, reads: Mapping[int, Value]) -> ThreadState:
        """``st`` with the values of the reads ``reads`` (position -> value) filled in."""
        regs = tuple(None if v is None else evaluate(v, reads) for v in st.regs)
        p = st.pending
        if p is not None:
            ev = p.event._replace(value=evaluate(p.event.value, reads))  # type: ignore[arg-type]
            p = p._replace(
                event=ev, guard=evaluate(p.guard, reads), dst_value=evaluate(p.dst_value, reads)
            )
        return st._replace(regs=regs, pending=p)

    def _error(self, th: ThreadCode, pc: int, why: str) -> StepError:
        idx = sum(1 for i in th.code[:pc] if not isinstance(i, Label))
        return StepError(f"P{th.tid}, instruction {idx} '{th.origins[pc]}': {why}")


_NO_INFO: tuple[tuple[str, ...], tuple[tuple[bool, object], ...], int] = ((), (), 0)


def _info(ins: Instr) -> tuple[tuple[str, ...], tuple[tuple[bool, object], ...], int]:
    """Every register an operation names, its value operands as (is a register,
    register name or immediate value) in a fixed order (an Op's arguments; the address
    of an access, then a store's or RMW's source, a CAS's expected and desired values),
    and how many of them make the address."""
    cls = type(ins)
    ops: tuple[Operand, ...] = ()
    out: list[str] = []
    naddr = 0
    if cls is Op:
        ops = ins.args  # type: ignore[union-attr]
        out = [ins.dst, "cr0"] if ins.sets_cr else [ins.dst]  # type: ignore[union-attr]
    elif cls is Load:
        ops, out, naddr = ins.addr, [ins.dst], len(ins.addr)  # type: ignore[union-attr]
    elif cls is Store or cls is RMW:
        ops, naddr = (*ins.addr, ins.src), len(ins.addr)  # type: ignore[union-attr]
        if cls is RMW and ins.dst:  # type: ignore[union-attr]
            out = [ins.dst]  # type: ignore[union-attr]
    elif cls is CAS:
        ops = (*ins.addr, ins.expected, ins.desired)  # type: ignore[union-attr]
        naddr = len(ins.addr)  # type: ignore[union-attr]
        out = [ins.dst] if ins.dst else []  # type: ignore[union-attr]
    elif cls is Lock or cls is Unlock or cls is Free:
        ops, naddr = ins.addr, len(ins.addr)  # type: ignore[union-attr]
    elif cls is Join and ins.reg is not None:  # type: ignore[union-attr]
        out = [ins.reg]  # type: ignore[union-attr]
    elif cls is Branch:
        out = [ins.creg] if ins.cond is not None else []  # type: ignore[union-attr]
    elif cls is Assume or cls is Assert:
        out = [ins.creg]  # type: ignore[union-attr]
    regs = tuple(out + [o.name for o in ops if type(o) is Reg])  # type: ignore[union-attr]
    operands = tuple([(True, o.name) if type(o) is Reg else (False, o.value) for o in ops])  # type: ignore[union-attr]
    return regs, operands, naddr


#: Compiled threads kept (litmus campaigns repeat threads: a hit costs a hash of the
#: thread's operations, much less than compiling it).
THREAD_CACHE = 4096


@lru_cache(maxsize=THREAD_CACHE)
def thread_code(
    tid: int,
    thread: Thread,
    registers: tuple[tuple[str, Value], ...],
    branch_commit: bool,
    store_data_port: bool,
    unroll: int,
    bound_blocks: bool = False,
) -> ThreadCode:
    """The compiled thread (the same object for identical threads of any program)."""
    return ThreadCode(tid, thread, registers, branch_commit, store_data_port, unroll, bound_blocks)


class Semantics:
    """The step function of ``program``, per thread (see the module docstring);
    ``unroll`` bounds the times a backward branch is taken (herd's ``-unroll``).  Errors
    of the program become :class:`litmus.errors.InputError` about its file."""

    def __init__(self, program: Program, unroll: int = DEFAULT_UNROLL) -> None:
        self.program = program
        self.unroll = unroll
        rec = ARCHS.get(program.arch)
        commit = rec.branch_commit if rec else True
        port = rec.store_data_port if rec else True
        regs = program.registers
        blocks = program.loop_bound in ("block", "none")
        with self.reporting():
            self.threads = [
                thread_code(t, th, regs[t] if t < len(regs) else (), commit, port, unroll, blocks)
                for t, th in enumerate(program.threads)
            ]
        #: threads that some operation spawns: they start when spawned (the others at once)
        self.spawned = frozenset(
            ins.thread for th in program.threads for ins in th.code if isinstance(ins, Spawn)
        )
        if any(not 0 <= k < len(self.threads) or k == 0 for k in self.spawned):
            raise InputError(program.where, 0, 0, "a spawn names a thread the program lacks")

    @contextmanager
    def reporting(self) -> Iterator[None]:
        """Turn a :class:`StepError` into bad input of the program's file."""
        try:
            yield
        except StepError as e:
            raise InputError(self.program.where, 0, 0, str(e)) from None

    def start(self, tid: int) -> ThreadState:
        return self.threads[tid].start()

    def max_events(self, tid: int, unroll: int | None = None) -> int:
        return self.threads[tid].max_events(unroll)

    def step(self, tid: int, st: ThreadState) -> Step:
        with self.reporting():
            return self.threads[tid].step(st)

    def after_read(self, tid: int, read: Read, value: AnyValue) -> ThreadState:
        with self.reporting():
            return self.threads[tid].after_read(read, value)

    def resolve(self, tid: int, st: ThreadState, reads: Mapping[int, Value]) -> ThreadState:
        with self.reporting():
            return self.threads[tid].resolve(st, reads)


#: The last program's semantics (:func:`semantics_of`): its explorer, the engine choice
#: and the thread enumeration each ask for it.
_LAST: list[Semantics] = []


def semantics_of(program: Program, unroll: int = DEFAULT_UNROLL) -> Semantics:
    """``Semantics(program, unroll)``, built once for the program asked last (a
    Semantics is immutable once built, so those asking share it)."""
    if _LAST:
        last = _LAST[0]
        if last.program is program and last.unroll == unroll:
            return last
    sem = Semantics(program, unroll)
    _LAST[:] = [sem]
    return sem


def fence_parts(kind: str) -> tuple[str | None, frozenset[str]]:
    """A fence event's kind and annotation sets: ``SYNC`` is a fence of kind SYNC; a C
    fence ``F.SC`` (see :class:`litmus.ir.Fence`) has no kind but the annotation SC."""
    if kind.startswith("F."):
        return None, frozenset(kind[2:].split("."))
    return kind, _NONE


def _address(regs: tuple, taint: tuple, cops: tuple[tuple[int, Value], ...]) -> tuple:
    """(the address ``sum`` of the compiled operands ``cops``, its taint): a
    :class:`Sym`, a symbolic value, or None when it is no location."""
    base: AnyValue | None = None
    off = 0
    t = 0
    sym: list[AnyValue] = []
    for slot, imm in cops:
        if slot < 0:
            v = imm
        else:
            v = regs[slot]
            if v is None:
                continue
            t |= taint[slot]
        tv = type(v)
        if tv is int:
            off += v  # type: ignore[operator]
        elif tv is Sym:
            if base is not None:
                return None, t
            base = v
        else:
            sym.append(v)
    if sym:
        expr: AnyValue = sym[0]
        for x in sym[1:]:
            expr = Expr("add", (expr, x))
        if base is not None:
            expr = Expr("add", (expr, base))
        return (Expr("add", (expr, off)) if off else expr), t
    if base is None:
        return None, t
    assert isinstance(base, Sym)
    return (Sym(base.name, base.offset + off) if off else base), t


_LOC_NAMES: dict[Sym, str] = {}


def _loc_name(a: Sym) -> str:
    """The location an address denotes (``x``, ``x+4``), memoised."""
    got = _LOC_NAMES.get(a)
    if got is None:
        if len(_LOC_NAMES) > 4096:
            _LOC_NAMES.clear()
        got = _LOC_NAMES[a] = str(a)
    return got


def _events_of(ins: Instr, branch_commit: bool) -> int:
    """The events an operation issues at most."""
    cls = type(ins)
    if cls is RMW or cls is CAS or cls is Lock:
        return 2
    if cls in (Load, Store, Unlock, Fence, Spawn, Join):
        return 1
    if cls is Branch:
        return int(branch_commit and ins.cond is not None)  # type: ignore[union-attr]
    if cls is Assume or cls is Assert:
        return int(branch_commit)
    return 0


def _state(st: ThreadState, pc: int, regs: tuple, taint: tuple, n: int, poi: int) -> ThreadState:
    """``st`` with these fields replaced (the hot path: no keyword ``_replace``)."""
    fields = (pc, regs, taint, st.ctrl, n, poi, st.loops, st.pending, st.cut, st.freed)
    return _new(ThreadState, fields)


def _set(regs: tuple, taint: tuple, slot: int, v: AnyValue, t: int) -> tuple[tuple, tuple]:
    """The registers and taints with register ``slot`` set to ``v`` tainted by ``t``."""
    r = list(regs)
    r[slot] = v
    if taint[slot] == t:
        return tuple(r), taint
    k = list(taint)
    k[slot] = t
    return tuple(r), tuple(k)


__all__ = [
    "ASSUME",
    "DEFAULT_UNROLL",
    "LOOP_BOUND",
    "UNBOUNDED",
    "Semantics",
    "StepError",
    "ThreadCode",
    "thread_code",
]
