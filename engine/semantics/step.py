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

from collections.abc import Mapping
from functools import lru_cache

from herdsman.engine.semantics import regevents, select
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
from herdsman.engine.semantics.compile import (
    _NO_REG,
    _NONE,
    StepError,
    _new,
)
from herdsman.engine.semantics.events import EventSteps, nop_event
from herdsman.engine.semantics.state import (
    Access,
    Blocked,
    Choice,
    Emit,
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
    RMW,
    Assert,
    Assume,
    Branch,
    Choose,
    Exit,
    Fence,
    Free,
    Instr,
    Kill,
    Label,
    Load,
    Nop,
    Op,
    Program,
    Select,
    Spawn,
    Store,
    StoreCond,
    Thread,
    Value,
)
from herdsman.litmus.base.memo import by_identity

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


class ThreadCode(EventSteps):
    """One thread compiled, with its step function (see the module docstring): register
    slots, labels, backward-branch targets, each operation's operands as (register slot
    or -1, immediate value).  It depends only on the thread's code, initial registers and
    architecture facts, so identical threads of different programs share one
    (:func:`thread_code`)."""

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
            return _new(ThreadDone, (st.regs, True, self.slots, self.order, st.freed))
        joined = th.joined
        while pc < len(code):
            ins = code[pc]
            cls = type(ins)
            if cls is Label:
                pc += 1
                continue
            if joined and pc in joined:  # more of the instruction before: its poi
                poi -= 1
            try:
                if cls is Op:
                    assert isinstance(ins, Op)
                    regs, taint = self._op(th, ins, th.args[pc], regs, taint)
                    pc += 1
                    poi += 1
                    continue
                if cls is Load or cls is Store or cls is Fence or cls is RMW:  # the usual
                    if pc == st.pc and regs is st.regs and taint is st.taint and poi == st.poi:
                        return self._event(th, ins, st)  # where the step started
                    return self._event(th, ins, _state(st, pc, regs, taint, st.n, poi))
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
                        return _new(ThreadDone, (st.regs, True, self.slots, self.order, st.freed))
                    continue
                if cls is Select:
                    assert isinstance(ins, Select)
                    here = _state(st, pc, regs, taint, st.n, poi)
                    got = select.plain_step(th, ins, here, self.branch_commit)
                    if not isinstance(got, ThreadState):
                        return got
                    st, pc, regs, taint, poi = got, got.pc, got.regs, got.taint, got.poi
                    continue
                if cls is Nop:
                    if self.nop_events:
                        here = _state(st, pc + 1, regs, taint, st.n + 1, poi + 1)
                        return _new(Emit, (nop_event(th, st, pc, poi), here, None))
                    pc += 1
                    poi += 1
                    continue
                if cls is Exit:  # herd's B.Exit: the thread ends here, finished
                    st = _state(st, pc, regs, taint, st.n, poi)
                    return _new(ThreadDone, (st.regs, False, self.slots, self.order, st.freed))
                if cls is Kill:  # GenMC's loop bound ends the thread (unfinished for a join)
                    return _new(ThreadDone, (regs, True, self.slots, self.order, st.freed))
                if isinstance(ins, Free):
                    st, failed = self._free(th, ins, _state(st, pc, regs, taint, st.n, poi))
                    if failed is not None:
                        return failed
                    pc += 1
                    poi += 1
                    continue
                if cls is Assume or cls is Assert:
                    assert isinstance(ins, (Assume, Assert))
                    creg = ins.creg
                    c = self._value(th, regs, creg)
                    if not is_known(c):
                        return Stall(reads_of(c))
                    if not branch_taken(ins.cond, c):
                        if cls is Assume:
                            return Blocked(ASSUME)
                        done = _new(ThreadDone, (regs, False, self.slots, self.order, st.freed))
                        assert isinstance(ins, Assert)
                        return ThreadFailed(ins.message or "assertion", pc, done)
                    if self.branch_commit and not _constraint(ins):
                        # compiled, it is a conditional branch
                        return self._check_commit(th, creg, st, pc, regs, taint, poi)
                    pc += 1
                    poi += 1
                    continue
                if pc == st.pc and regs is st.regs and taint is st.taint and poi == st.poi:
                    here = st  # the event's operation is where the step started
                else:
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
        return _new(ThreadDone, (st.regs, False, self.slots, self.order, st.freed))

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
        if ins.flags is not None:
            flags, fn = ins.flags
            regs, taint = _set(regs, taint, th.slots[flags], apply_op(fn, args), t)
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
            if loops is not st.loops:
                st = _new(ThreadState, (*st[:6], loops, *st[7:]))  # (st._replace(loops=...))
            return None, st, new_pc
        after = _new(
            ThreadState,
            (
                new_pc if new_pc >= 0 else len(th.code),
                regs,
                taint,
                ctrl,
                st.n + 1,
                poi + 1,
                loops,
                st.pending,
                new_pc < 0,
                st.freed,
            ),
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

    def after_choice(self, choice: Choice, k: int) -> ThreadState:
        """The state after way ``k`` of ``choice`` is taken."""
        return choice.at._replace(pc=choice.targets[k])

    def after_read(self, read: Read, value: AnyValue) -> ThreadState:
        """The state after the read :meth:`step` gave (``read``) reads ``value`` (a
        :class:`ReadValue` of its position: not chosen yet)."""
        if self.regs:
            return regevents.after_read(self, read, value)
        return self.plain_after_read(read, value)

    def _pending(self, th: ThreadCode, st: ThreadState) -> Step:
        """The write of a read-modify-write whose read is done (or its failure)."""
        p = st.pending
        assert isinstance(p, Pending)
        if not is_known(p.guard):
            return Stall(reads_of(p.guard))
        regs, taint = st.regs, st.taint
        if p.dst >= 0:
            regs, taint = _set(regs, taint, p.dst, p.dst_value, p.dst_taint)
        pc, poi, n = st.pc + 1, st.poi + 1, st.n
        if p.guard:  # (the state after the write, made without _replace)
            after = (pc, regs, taint, st.ctrl, n + 1, poi, st.loops, None, st.cut, st.freed)
            return _new(Emit, (p.event, _new(ThreadState, after), None))
        if p.fail == "block":
            return Blocked("the lock is held")
        after = (pc, regs, taint, st.ctrl, n, poi, st.loops, None, st.cut, st.freed)
        return self.step(_new(ThreadState, after))

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
        return _new(ThreadDone, (st.regs, True, self.slots, self.order, st.freed))

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


#: Compiled threads kept (litmus campaigns repeat threads: a hit costs a hash of the
#: thread's operations, much less than compiling it).
THREAD_CACHE = 4096


#: The compiled thread (the same object for identical threads of any program): arguments
#: as :class:`ThreadCode`'s.
thread_code = lru_cache(maxsize=THREAD_CACHE)(ThreadCode)
#: ... looked up first by the identity of its arguments: a campaign's tests share their
#: threads' objects (``litmus.lower``), and hashing a thread's operations by value costs
#: more than comparing identities.
_shared_thread_code = by_identity(maxsize=THREAD_CACHE)(thread_code)


class _Reporting:
    """``with``: :meth:`Semantics.reporting` (a class, not a generator: entered once or
    twice per test)."""

    __slots__ = ("where",)

    def __init__(self, where: str) -> None:
        self.where = where

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: object
    ) -> None:
        if isinstance(e, (StepError, EvalError)):
            raise InputError(self.where, 0, 0, str(e)) from None


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
        commit = (rec.branch_commit if rec else True) and program.branch_events
        port = rec.store_data_port if rec else True
        nops = rec.nop_events if rec else False
        init = program.registers
        blocks = program.loop_bound in ("block", "none")
        # C programs (their memory is allocations): accesses outside them are errors
        cells = frozenset(name for name, _ in program.memory) if blocks else None
        with self.reporting():
            self.threads = [
                _shared_thread_code(
                    t,
                    th,
                    init[t] if t < len(init) else (),
                    commit,
                    port,
                    unroll,
                    blocks,
                    regs,
                    nops,
                    cells,
                )
                for t, th in enumerate(program.threads)
            ]
        #: threads that some operation spawns: they start when spawned (the others at once)
        self.spawned = frozenset().union(*[_spawns(th) for th in program.threads])
        if any(not 0 <= k < len(self.threads) or k == 0 for k in self.spawned):
            raise InputError(program.where, 0, 0, "a spawn names a thread the program lacks")

    def reporting(self) -> _Reporting:
        """A context turning a :class:`StepError` into bad input of the program's file
        (and an :class:`EvalError` met resolving read values: a value beyond the bound)."""
        return _Reporting(self.program.where)

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


@by_identity(maxsize=THREAD_CACHE)
def _spawns(thread: Thread) -> frozenset[int]:
    """The threads that ``thread`` spawns (remembered: programs share threads)."""
    return frozenset(ins.thread for ins in thread.code if isinstance(ins, Spawn))


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
