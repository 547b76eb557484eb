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

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from typing import cast

from herdsman.engine.semantics import regevents
from herdsman.engine.semantics.access import address as _address
from herdsman.engine.semantics.access import loc_name as _loc_name
from herdsman.engine.semantics.access import set_reg as _set
from herdsman.engine.semantics.access import state_at as _state
from herdsman.engine.semantics.arith import (
    AnyValue,
    EvalError,
    apply_op,
    branch_taken,
    evaluate,
    is_known,
    reads_of,
)
from herdsman.engine.semantics.state import (
    Access,
    Blocked,
    Choice,
    Emit,
    Fork,
    Pending,
    Queued,
    Read,
    Stall,
    Step,
    ThreadDone,
    ThreadFailed,
    ThreadState,
)
from herdsman.engine.semantics.storecond import store_conditional
from herdsman.graphs.events import Event
from herdsman.litmus.base.arch import ARCHS
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assert,
    Assume,
    Branch,
    Choose,
    Effect,
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
    StoreCond,
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
#: The last fields of an event that is no register event: ``reg``, ``iico``, ``iico_ctrl``.
_NO_REG = (None, 0, 0)


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
        regs: bool = False,
        nop_events: bool = False,
    ) -> None:
        self.tid = tid
        self.bound_blocks = bound_blocks
        self.regs = regs  # herd's register events too (engine.semantics.regevents)
        self.nop_events = nop_events  # jumps and nops issue an empty event (Arch)
        self._max_events: int | None = None  # computed once (compiled threads are shared)
        self._max_writes: int | None = None
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
            cargs = tuple([(slots[x], 0) if isinstance(x, str) else (-1, x) for _, x in operands])
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
            if type(ins) is Choose:
                for t in ins.targets:
                    tgt = self.labels.get(t)
                    if tgt is None or tgt <= i:
                        raise StepError(f"P{tid}: a choice of no forward label '{t}'")
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
        if unroll is not None:
            return self._longest(self.events_at, unroll)
        if self._max_events is None:
            self._max_events = self._longest(self.events_at)
        return self._max_events

    def max_writes(self) -> int:
        """An upper bound of the writes of any execution of the thread (as
        :meth:`max_events`)."""
        if self._max_writes is None:
            self._max_writes = self._longest(lambda pc: _writes_of(self.code[pc]))
        return self._max_writes

    def _longest(self, weight: Callable[[int], int], unroll: int | None = None) -> int:
        """The heaviest path through the thread's code (see :meth:`max_events`)."""
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
            here = weight(key[0])
            memo[key] = here + max((memo.get(k, 0) for k in succ if k[0] < end), default=0)
        return memo[start] if end else 0

    def events_at(self, pc: int) -> int:
        """The events the operation at ``pc`` issues at most."""
        if self.regs:
            return regevents.events_of(self, pc)
        ins = self.code[pc]
        if self.nop_events and (type(ins) is Nop or (type(ins) is Branch and ins.cond is None)):
            return 1
        return _events_of(ins, self.branch_commit)

    def _successors(
        self, th: ThreadCode, pc: int, loops: tuple[int, ...], bound: int
    ) -> list[tuple[int, tuple[int, ...]]]:
        """The (pc, loop counts) after the operation at ``pc``, every way it may go."""
        ins = th.code[pc]
        nxt = [(pc + 1, loops)]
        if type(ins) is Choose:
            return [(th.labels[t], loops) for t in ins.targets]
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
        if self.regs:
            try:
                return regevents.step(self, st)
            except regevents.RegisterEventError as e:
                raise StepError(str(e)) from None
        if st.pending is not None:
            if type(st.pending) is Queued:
                return regevents.dequeue(st, st.pending)
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
                    assert isinstance(ins, Op)
                    regs, taint = self._op(th, ins, th.args[pc], regs, taint)
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
                    if self.nop_events:
                        here = _state(st, pc + 1, regs, taint, st.n + 1, poi + 1)
                        return _new(Emit, (nop_event(th, st, pc, poi), here, None))
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
                    assert isinstance(ins, Assume | Assert)
                    creg = ins.creg
                    c = self._value(th, regs, creg)
                    if not is_known(c):
                        return Stall(reads_of(c))
                    if not branch_taken(ins.cond, c):
                        if cls is Assume:
                            return Blocked(ASSUME)
                        done = _new(ThreadDone, (regs, False, self.slots, self.order))
                        assert isinstance(ins, Assert)
                        return ThreadFailed(ins.message or "assertion", pc, done)
                    if self.branch_commit and not _constraint(ins):
                        # compiled, it is a conditional branch
                        return self._check_commit(th, creg, st, pc, regs, taint, poi)
                    pc += 1
                    poi += 1
                    continue
                here = _state(st, pc, regs, taint, st.n, poi)
                if isinstance(ins, StoreCond):
                    return self._store_cond(th, ins, here)
                if isinstance(ins, Choose):
                    pcs = tuple([th.labels[t] for t in ins.targets])
                    return _new(Choice, (pcs, here))
                return self._event(th, ins, here)
            except EvalError as e:
                raise self._error(th, pc, str(e)) from None
        st = _state(st, pc, regs, taint, st.n, poi)
        return _new(ThreadDone, (st.regs, False, self.slots, self.order))

    def _value(self, th: ThreadCode, regs: tuple, name: str) -> AnyValue:
        v = regs[th.slots[name]]
        return 0 if v is None else v

    def _operand(self, th: ThreadCode, regs: tuple, taint: tuple, op: Operand) -> tuple:
        if isinstance(op, Imm):
            return op.value, 0
        i = th.slots[op.name]
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
            if self.nop_events:
                event = nop_event(th, st, pc, poi)
        else:
            slot = th.slots[ins.creg]
            c = regs[slot]
            c = 0 if c is None else c
            t = taint[slot]
            if ins.rhs is not None:  # compared with a register, not with 0
                slot2 = th.slots[ins.rhs]
                c2 = regs[slot2]
                c = apply_op("cmp", [c, 0 if c2 is None else c2])
                t |= taint[slot2]
            if not is_known(c):
                return Stall(reads_of(c)), st, pc
            taken = branch_taken(ins.cond, c)
            if self.branch_commit:
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
                        None,
                        0,
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
            ("B", th.tid, st.n, poi, None, None, None, _NONE, th.origins[pc], 0, t, st.ctrl, 0)
            + _NO_REG,
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
                Event,
                ("F", th.tid, n, poi, None, None, kind, annots, origin, 0, 0, st.ctrl, 0) + _NO_REG,
            )
            return _new(Emit, (ev, _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1), None))
        if isinstance(ins, StoreCond):
            return self._store_cond(th, ins, st)
        if cls is Spawn or cls is Join:
            assert isinstance(ins, Spawn | Join)
            kind = "S" if cls is Spawn else "J"
            tgt: Value = ins.thread
            if isinstance(ins, Join) and ins.reg is not None:
                rv = self._value(th, st.regs, ins.reg)
                if not is_known(rv):
                    return Stall(reads_of(rv))
                if type(rv) is not int:
                    return ThreadFailed(f"join of an invalid thread ({rv})", pc, self._done(st))
                tgt = rv
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
        assert isinstance(ins, Load | Store | RMW | CAS | Lock | Unlock | Effect)
        annots = ins.annots
        if isinstance(ins, Effect):  # herd's lock and SRCU events: a location, no value
            fields = ("K", th.tid, n, poi, loc, None, ins.kind, annots, origin, at, 0, st.ctrl, 0)
            after = _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1)
            return _new(Emit, (_new(Event, fields + _NO_REG), after, sym))
        if cls is Store or cls is Unlock:
            v: AnyValue = 0
            vt = 0
            if cls is Store:
                slot, v = cops[-1]
                if slot >= 0:
                    got, vt = st.regs[slot], st.taint[slot]
                    v = 0 if got is None else got
            data, addr = (vt, at) if self.store_data_port else (0, at | vt)
            w = ("W", th.tid, n, poi, loc, v, None, annots, origin, addr, data, st.ctrl, vt)
            after = _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1)
            return _new(Emit, (_new(Event, w + _NO_REG), after, sym))
        r = ("R", th.tid, n, poi, loc, None, None, annots, origin, at, 0, st.ctrl, 0)
        return _new(Read, (_new(Event, r + _NO_REG), st, sym))

    def _store_cond(self, th: ThreadCode, ins: StoreCond, st: ThreadState) -> Step:
        """A store-conditional at ``st.pc``: it may fail (status 1, no event); it may
        succeed (its write, then status 0) when the reservation holds its address.  The
        reservation is cleared either way."""
        pc, n, regs, taint = st.pc, st.n, st.regs, st.taint
        a, at = _address(regs, taint, th.addr_ops[pc])
        rslot, sslot = th.slots[ins.reserve], th.slots[ins.status]
        held = regs[rslot]
        held = 0 if held is None else held
        for x in (a, held):
            if x is not None and not is_known(x):
                return Stall(reads_of(x))
        regs, taint = _set(regs, taint, rslot, 0, 0)
        fregs, ftaint = _set(regs, taint, sslot, 1, 0)
        fail = _state(st, pc + 1, fregs, ftaint, n, st.poi + 1)
        if type(a) is not Sym or held != a:
            return _new(Fork, ((fail,),))
        slot, imm = th.args[pc][-1]
        v: AnyValue = imm
        vt = 0
        if slot >= 0:
            got = st.regs[slot]
            v, vt = (0 if got is None else got), st.taint[slot]
        loc = _loc_name(a)
        fields = (
            "W",
            th.tid,
            n,
            st.poi,
            loc,
            v,
            None,
            ins.annots,
            th.origins[pc],
            at,
            vt,
            st.ctrl,
            vt,
        ) + _NO_REG
        status_taint = (at | (1 << n)) if ins.status_deps else 0
        pend = Pending(_new(Event, fields), 1, "skip", sslot, 0, status_taint)
        ok = _new(
            ThreadState, (pc, regs, taint, st.ctrl, n, st.poi, st.loops, pend, st.cut, st.freed)
        )
        return _new(Fork, ((fail, ok),))

    def after_choice(self, choice: Choice, k: int) -> ThreadState:
        """The state after way ``k`` of ``choice`` is taken."""
        return choice.at._replace(pc=choice.targets[k])

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
        if self.regs:
            return regevents.after_read(self, read, value)
        return self.plain_after_read(read, value)

    def plain_after_read(self, read: Read, value: AnyValue) -> ThreadState:
        """:meth:`after_read` without register events."""
        th = self
        tid = self.tid
        st, ev = read.at, read.event
        ins = th.code[st.pc]
        r = st.n
        regs, taint = st.regs, st.taint
        try:
            if isinstance(ins, Load):
                regs, taint = _set(regs, taint, th.slots[ins.dst], value, 1 << r)
                if ins.reserve is not None:
                    ops = cast(tuple[tuple[int, Value], ...], th.addr_ops[st.pc])
                    a, at = _address(st.regs, st.taint, ops)
                    regs, taint = _set(regs, taint, th.slots[ins.reserve], a, at)
                return _state(st, st.pc + 1, regs, taint, r + 1, st.poi + 1)
            dst = -1
            if isinstance(ins, RMW | CAS):
                dst = th.slots[ins.dst] if ins.dst else -1
            if isinstance(ins, RMW):
                src, stain = self._operand(th, regs, taint, ins.src)
                new = apply_op(ins.fn, [value, src])
                if ins.sets_cr:
                    flags = apply_op("cmp", [new, 0])
                    regs, taint = _set(regs, taint, th.cr0, flags, stain | (1 << r))
                    st = st._replace(regs=regs, taint=taint)
                guard: AnyValue = 1
                fail = "skip"
            elif isinstance(ins, CAS):
                dst = th.slots[ins.dst] if ins.dst else -1
                exp, _ = self._operand(th, regs, taint, ins.expected)
                new, stain = self._operand(th, regs, taint, ins.desired)
                guard = apply_op("eq", [value, exp])
                fail = "skip"
            else:  # Lock
                new, stain, dst = 1, 0, -1
                guard = apply_op("eq", [value, 0])
                fail = "block"
        except EvalError as e:
            raise self._error(th, st.pc, str(e)) from None
        # the new value of a read-modify-write is computed from the old one (but an
        # exchange's is its operand's alone)
        valdep = stain | (1 << r) if isinstance(ins, RMW) and ins.fn != "second" else stain
        wannots = ins.write_annots if isinstance(ins, RMW | CAS) else None
        w = Event(
            "W",
            tid,
            r + 1,
            st.poi,
            ev.loc,
            new,
            None,
            ev.annots if wannots is None else wannots,
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
        assert isinstance(p, Pending)
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
        if isinstance(p, Pending):
            v = p.event.value
            ev = p.event._replace(value=None if v is None else evaluate(v, reads))
            p = p._replace(
                event=ev, guard=evaluate(p.guard, reads), dst_value=evaluate(p.dst_value, reads)
            )
        return regevents.resolve(self, st._replace(regs=regs, pending=p), reads)

    # ------------------------------------------------------------------ for regevents
    def cut_end(self, st: ThreadState) -> Step:
        """How the thread ends at the unrolling bound."""
        if self.bound_blocks:
            return _LOOP_BOUND
        return _new(ThreadDone, (st.regs, True, self.slots, self.order))

    def apply_op(self, ins: Op, cargs: tuple, regs: tuple, taint: tuple) -> tuple[tuple, tuple]:
        """The registers and taints after the register operation ``ins``."""
        return self._op(self, ins, cargs, regs, taint)

    def branch_step(
        self, ins: Branch, st: ThreadState, pc: int, regs: tuple, taint: tuple, poi: int
    ) -> tuple[Step | None, ThreadState, int]:
        """The branch at ``pc``, as :meth:`step` takes it (see ``_branch``)."""
        return self._branch(self, ins, st, pc, regs, taint, poi)

    def event_step(self, ins: Instr, st: ThreadState, acc: Access | None = None) -> Step:
        """The event of the memory access or fence at ``st.pc`` (``acc``: its register
        reads, with register events)."""
        if isinstance(ins, StoreCond):
            if acc is None:
                return self._store_cond(self, ins, st)
            return store_conditional(self, ins, st, acc)
        return self._event(self, ins, st)

    def nop_step(self, st: ThreadState) -> Step:
        """The empty event of the nop at ``st.pc`` and the state after it."""
        after = _state(st, st.pc + 1, st.regs, st.taint, st.n + 1, st.poi + 1)
        return _new(Emit, (nop_event(self, st, st.pc, st.poi), after, None))

    def error_at(self, pc: int, why: str) -> StepError:
        return self._error(self, pc, why)

    def _error(self, th: ThreadCode, pc: int, why: str) -> StepError:
        idx = sum(1 for i in th.code[:pc] if not isinstance(i, Label))
        return StepError(f"P{th.tid}, instruction {idx} '{th.origins[pc]}': {why}")


#: An operation's registers, value operands (is a register, its name or the immediate
#: value) and how many of them make the address (see :func:`_info`).
_Info = tuple[tuple[str, ...], tuple[tuple[bool, str | Value], ...], int]
_NO_INFO: _Info = ((), (), 0)


def _info(ins: Instr) -> _Info:
    """Every register an operation names, its value operands as (is a register,
    register name or immediate value) in a fixed order (an Op's arguments; the address
    of an access, then a store's or RMW's source, a CAS's expected and desired values),
    and how many of them make the address."""
    ops: tuple[Operand, ...] = ()
    out: list[str] = []
    naddr = 0
    if isinstance(ins, Op):
        ops = ins.args
        out = [ins.dst, "cr0"] if ins.sets_cr else [ins.dst]
    elif isinstance(ins, Load):
        ops, out, naddr = ins.addr, [ins.dst], len(ins.addr)
        if ins.reserve is not None:
            out.append(ins.reserve)
    elif isinstance(ins, StoreCond):
        ops, naddr = (*ins.addr, ins.src), len(ins.addr)
        out = [ins.status, ins.reserve]
    elif isinstance(ins, Store | RMW):
        ops, naddr = (*ins.addr, ins.src), len(ins.addr)
        if isinstance(ins, RMW) and ins.dst:
            out = [ins.dst]
        if isinstance(ins, RMW) and ins.sets_cr:
            out.append("cr0")
    elif isinstance(ins, CAS):
        ops = (*ins.addr, ins.expected, ins.desired)
        naddr = len(ins.addr)
        out = [ins.dst] if ins.dst else []
    elif isinstance(ins, Lock | Unlock | Effect | Free):
        ops, naddr = ins.addr, len(ins.addr)
    elif isinstance(ins, Join) and ins.reg is not None:
        out = [ins.reg]
    elif isinstance(ins, Branch):
        out = [] if ins.cond is None else [ins.creg]
        if ins.rhs is not None:
            out.append(ins.rhs)
    elif isinstance(ins, Assume | Assert):
        out = [ins.creg]
    regs = tuple(out + [o.name for o in ops if isinstance(o, Reg)])
    operands = tuple([(True, o.name) if isinstance(o, Reg) else (False, o.value) for o in ops])
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
    regs: bool = False,
    nop_events: bool = False,
) -> ThreadCode:
    """The compiled thread (the same object for identical threads of any program)."""
    return ThreadCode(
        tid,
        thread,
        registers,
        branch_commit,
        store_data_port,
        unroll,
        bound_blocks,
        regs,
        nop_events,
    )


class Semantics:
    """The step function of ``program``, per thread (see the module docstring);
    ``unroll`` bounds the times a backward branch is taken (herd's ``-unroll``); with
    ``regs`` the threads issue herd's register events too (for models that compute
    dependencies themselves: :mod:`engine.semantics.regevents`).  Errors of the program
    become :class:`litmus.errors.InputError` about its file."""

    def __init__(self, program: Program, unroll: int = DEFAULT_UNROLL, regs: bool = False) -> None:
        self.program = program
        self.unroll = unroll
        self.regs = regs
        rec = ARCHS.get(program.arch)
        commit = rec.branch_commit if rec else True
        port = rec.store_data_port if rec else True
        nops = rec.nop_events if rec else False
        init = program.registers
        blocks = program.loop_bound in ("block", "none")
        with self.reporting():
            self.threads = [
                thread_code(
                    t,
                    th,
                    init[t] if t < len(init) else (),
                    commit,
                    port,
                    unroll,
                    blocks,
                    regs,
                    nops,
                )
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
        """Turn a :class:`StepError` into bad input of the program's file (and an
        :class:`EvalError` met resolving read values: a value beyond the bound)."""
        try:
            yield
        except (StepError, EvalError) as e:
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


def semantics_of(program: Program, unroll: int = DEFAULT_UNROLL, regs: bool = False) -> Semantics:
    """``Semantics(program, unroll, regs)``, built once for the program asked last (a
    Semantics is immutable once built, so those asking share it)."""
    if _LAST:
        last = _LAST[0]
        if last.program is program and last.unroll == unroll and last.regs == regs:
            return last
    sem = Semantics(program, unroll, regs)
    _LAST[:] = [sem]
    return sem


def fence_parts(kind: str) -> tuple[str | None, frozenset[str]]:
    """A fence event's kind and annotation sets: ``SYNC`` is a fence of kind SYNC; a C
    fence ``F.SC`` (see :class:`litmus.ir.Fence`) has no kind but the annotation SC."""
    if kind.startswith("F."):
        return None, frozenset(kind[2:].split("."))
    return kind, _NONE


def nop_event(th: ThreadCode, st: ThreadState, pc: int, poi: int) -> Event:
    """herd's event with no action, of a jump or a nop (on architectures that issue one)."""
    return _new(
        Event,
        ("N", th.tid, st.n, poi, None, None, None, _NONE, th.origins[pc], 0, 0, st.ctrl, 0)
        + _NO_REG,
    )


def _events_of(ins: Instr, branch_commit: bool) -> int:
    """The events an operation issues at most."""
    cls = type(ins)
    if cls is RMW or cls is CAS or cls is Lock:
        return 2
    if cls in (Load, Store, StoreCond, Unlock, Fence, Spawn, Join, Effect):
        return 1
    if isinstance(ins, Branch):
        return int(branch_commit and ins.cond is not None)
    if cls is Assume or cls is Assert:
        return int(branch_commit)
    return 0


def _writes_of(ins: Instr) -> int:
    """The writes an operation issues at most."""
    cls = type(ins)
    return int(cls in (Store, RMW, CAS, StoreCond, Lock, Unlock))


def _constraint(ins: object) -> bool:
    """Whether ``ins`` is an ``assume`` that constrains a value and is no branch (herd's
    alternatives: no control dependency)."""
    return isinstance(ins, Assume) and not ins.commit


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
