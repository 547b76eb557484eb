"""herd's register events: each instruction's register reads and writes as events.

Models that compute dependencies themselves (herd's ``catdep``: AArch64's
``aarch64.cat``) see every register access as an event (sets ``Rreg``, ``Wreg``, the
data ports ``DATA``), related to the others of its instruction by ``iico_data`` and
``iico_ctrl`` and to the write it reads from by ``rf-reg``.  With register events on
(:class:`engine.semantics.step.ThreadCode` ``regs``) an instruction issues, in order: its
register reads, its memory access (or branch commit), its register writes, as herd's
``herd/AArch64Sem.ml`` gives them:

* an operation ``dst <- fn(args)``: a read of each register argument (once per
  register), then the write of ``dst``, fed by every read;
* a load: the reads of its address registers, feeding the memory read, which feeds the
  write of its destination; a load-reserve also writes its address to the reservation
  register, fed by the address reads;
* a store: the reads of its address registers, then of its value (a data port), both
  feeding the memory write;
* a store-conditional: :mod:`engine.semantics.storecond`;
* a conditional branch: the read of its register, feeding the commit;
* a conditional selection: :mod:`engine.semantics.select`;
* a read-modify-write: :mod:`engine.semantics.rmwevents`.

The instruction's events after the first wait in the state (:class:`state.Queued`; an
access after its register reads: :class:`state.Access`).  Memory events keep their
dependency masks (``addr``/``data``/``ctrl``: memory reads), positions counting every
event.  Locks, ``assume``/``assert``, spawns and joins have no
register view (an error says so).
"""

from __future__ import annotations

from collections.abc import Mapping

from herdsman.engine.semantics import rmwevents, select
from herdsman.engine.semantics.access import address, loaded, set_reg, state_at
from herdsman.engine.semantics.arith import AnyValue, EvalError, evaluate
from herdsman.engine.semantics.code import CompiledThread
from herdsman.engine.semantics.regqueue import dequeue, queued, reg_event
from herdsman.engine.semantics.regqueue import with_pending as _with
from herdsman.engine.semantics.state import (
    Access,
    Emit,
    Fork,
    Pending,
    Queued,
    Read,
    Step,
    ThreadDone,
    ThreadState,
)
from herdsman.graphs.events import Event
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Branch,
    Exit,
    Fence,
    Instr,
    Label,
    Load,
    Nop,
    Op,
    Select,
    Store,
    StoreCond,
    Value,
)

_new = tuple.__new__


class RegisterEventError(Exception):
    """An operation with no register view (the step function reports it)."""


def _with_iico(e: Event, iico: int) -> Event:
    """``e`` fed by the events of ``iico`` (the hot path: no ``_replace``)."""
    return _new(Event, (*e[:14], iico, e[15]))


def events_of(ins: Instr, args: tuple[tuple[int, Value], ...], nop_events: bool) -> int:
    """The events the operation ``ins`` (operands ``args``, see
    :attr:`CompiledThread.args`) issues at most, register events included."""
    cls = type(ins)
    regs = sum(1 for slot, _ in args if slot >= 0)
    if isinstance(ins, Op):
        return regs + 1 + int(ins.sets_cr) + int(ins.flags is not None)
    if isinstance(ins, Select):
        return select.max_events(ins, True)
    if isinstance(ins, Load):
        return regs + 2 + int(ins.reserve is not None)
    if cls is Store:
        return regs + 1
    if cls is StoreCond:
        return regs + 4
    if isinstance(ins, Branch):
        return 2 if ins.cond is not None else int(nop_events)
    if cls is Fence:
        return 1
    if cls is RMW or cls is CAS:
        return rmwevents.max_events(ins, args)
    if cls is Nop:
        return int(nop_events)
    return 0


def step(th: CompiledThread, st: ThreadState) -> Step:
    """What the thread does next, with register events (see the module docstring)."""
    p = st.pending
    if isinstance(p, Queued):
        return dequeue(st, p)
    if isinstance(p, Access):
        return access(th, st, p)
    if isinstance(p, Pending):
        return rmwevents.rest(th, st, p)
    code = th.code
    while True:
        if st.cut:
            return th.cut_end(st)
        pc = st.pc
        while pc < len(code) and type(code[pc]) is Label:
            pc += 1
        if pc >= len(code):
            return _new(ThreadDone, (st.regs, False, th.slots, th.order, st.freed))
        if pc != st.pc:
            st = st._replace(pc=pc)
        if th.joined and pc in th.joined:  # more of the instruction before: its poi
            st = st._replace(poi=st.poi - 1)
        ins = code[pc]
        cls = type(ins)
        try:
            if isinstance(ins, Op):
                return _op(th, ins, st)
            if isinstance(ins, Select) and ins.commit:
                return select.reg_step(th, ins, st)
            if isinstance(ins, Branch):
                got = _branch(th, ins, st)
                if isinstance(got, ThreadState):
                    st = got
                    continue
                return got
            if cls is Nop:
                if th.nop_events:
                    return th.nop_step(st)
                st = st._replace(pc=pc + 1, poi=st.poi + 1)
                continue
            if isinstance(ins, (Load, Store, StoreCond)):
                return _reads(th, ins, st)
            if cls is Fence:
                return th.event_step(ins, st)
            if cls is Exit:  # herd's B.Exit: the thread ends here, with no event
                return _new(ThreadDone, (st.regs, False, th.slots, th.order, st.freed))
            if cls is RMW or cls is CAS:
                reads, accs = rmwevents.reads(th, st)
                if len(accs) == 1:
                    return _issue(th, st, reads, accs[0])
                return Fork(tuple(_issued(st, reads, acc) for acc in accs))
        except EvalError as e:
            raise th.error_at(pc, str(e)) from None
        raise RegisterEventError(
            f"P{th.tid}: '{th.origins[pc]}' has no register events (herd's catdep view)"
        )


def _read_events(
    th: CompiledThread, st: ThreadState, slots: list[tuple[int, bool]]
) -> tuple[list[Event], int]:
    """The register reads of ``slots`` ((slot, data port) in order) from position
    ``st.n``, and the mask of their positions."""
    out: list[Event] = []
    mask = 0
    n = st.n
    for slot, data in slots:
        pos = n + len(out)
        out.append(reg_event(th, st, pos, "Rreg", th.names[slot], st.regs[slot], data))
        mask |= 1 << pos
    return out, mask


def _op(th: CompiledThread, ins: Op, st: ThreadState) -> Step:
    """``dst <- fn(args)``: a read per register argument, then the write(s)."""
    cargs = th.args[st.pc]
    slots: list[tuple[int, bool]] = []
    for slot, _ in cargs:
        if slot >= 0 and all(s != slot for s, _ in slots):
            slots.append((slot, False))
    reads, mask = _read_events(th, st, slots)
    regs, taint = th.apply_op(ins, cargs, st.regs, st.taint)
    written = [th.slots[ins.dst]]
    if ins.sets_cr and ins.dst != "cr0":
        written.append(th.cr0)
    if ins.flags is not None:
        written.append(th.slots[ins.flags[0]])
    n = st.n + len(reads)
    writes = [
        reg_event(th, st, n + k, "Wreg", th.names[slot], regs[slot], iico=mask)
        for k, slot in enumerate(written)
    ]
    events = (*reads, *writes)
    after = state_at(st, st.pc + 1, regs, taint, st.n + len(events), st.poi + 1)
    return dequeue(st, Queued(events, after))


def _branch(th: CompiledThread, ins: Branch, st: ThreadState) -> Step | ThreadState:
    """A branch: the state after it when it issues nothing (unconditional), else the
    read of its register then its commit (or a stall, or the end at the unrolling
    bound)."""
    pc = st.pc
    if ins.cond is None:
        got, st2, new_pc = th.branch_step(ins, st, pc, st.regs, st.taint, st.poi)
        if got is not None:  # an empty event (herd's jumps issue one on some architectures)
            return got
        if new_pc < 0:
            return th.cut_end(st2._replace(cut=True))
        return st2._replace(pc=new_pc, poi=st.poi + 1)
    slot = th.slots[ins.creg]
    read = reg_event(th, st, st.n, "Rreg", ins.creg, st.regs[slot])
    shifted = st._replace(n=st.n + 1)
    got, _, _ = th.branch_step(ins, shifted, pc, st.regs, st.taint, st.poi)
    if not isinstance(got, Emit):
        return got  # type: ignore[return-value]
    commit = _with_iico(got.event, 1 << st.n)
    return _new(Emit, (read, queued(st.n + 1, (commit,), got.after), None))


def _reads(th: CompiledThread, ins: Load | Store | StoreCond, st: ThreadState) -> Step:
    """The register reads of a memory access, then the access (:func:`access`)."""
    plan = th.access_plans.get(st.pc)
    if plan is None:
        plan = th.access_plans[st.pc] = _access_plan(th, ins, st.pc)
    order, iico, iico_ctrl, names = plan
    n = st.n
    reads, _ = _read_events(th, st, order)
    acc = Access(iico << n, iico_ctrl << n, tuple([(name, n + k) for name, k in names]))
    return _issue(th, st, tuple(reads), acc)


def _access_plan(th: CompiledThread, ins: Load | Store | StoreCond, pc: int) -> tuple:
    """What :func:`_reads` issues for the access at ``pc``, its positions counted from the
    first of its register reads (so shifted by the events before them): the register
    reads' (slot, data port) in order, the masks of the access's ``iico`` and
    ``iico_ctrl``, and each read's register name and position."""
    cargs = th.args[pc]
    naddr = len(th.addr_ops[pc])
    addr = [(slot, False) for slot, _ in cargs[:naddr] if slot >= 0]
    value = [(slot, True) for slot, _ in cargs[naddr:] if slot >= 0]
    res: list[tuple[int, bool]] = []
    if type(ins) is StoreCond:
        res = [(th.slots[ins.reserve], False)]
        order = res + value + addr  # herd: the reservation, the value, the address
    else:
        order = addr + value
    pos = {slot_data: k for k, slot_data in enumerate(order)}
    amask = sum(1 << pos[x] for x in addr)
    vmask = sum(1 << pos[x] for x in value)
    rmask = sum(1 << pos[x] for x in res)
    names = tuple((th.names[s], pos[(s, d)]) for s, d in order)
    return order, amask | vmask, rmask | amask, names


def _issued(st: ThreadState, reads: tuple[Event, ...], acc: Access) -> ThreadState:
    """The state whose next steps are the register reads ``reads``, then the access."""
    at = _with(st, st.n + len(reads), acc)
    return _with(st, st.n, Queued(reads, at)) if reads else at


def _issue(th: CompiledThread, st: ThreadState, reads: tuple[Event, ...], acc: Access) -> Step:
    """Emit the register reads ``reads`` of an access, then the access."""
    at = _with(st, st.n + len(reads), acc)
    if not reads:
        return access(th, at, acc)
    return dequeue(st, Queued(reads, at))


def access(th: CompiledThread, st: ThreadState, acc: Access) -> Step:
    """The memory access of the instruction at ``st.pc``, its register reads done."""
    ins = th.code[st.pc]
    plain = _with(st, st.n, None)
    got = th.event_step(ins, plain, acc)
    if type(ins) is StoreCond:
        return got
    if isinstance(got, Read):
        ev = _with_iico(got.event, acc.iico)
        if acc.fails:
            ev = ev._replace(annots=rmwevents.read_annots(ev.annots))
        return _new(Read, (ev, st, got.address))
    if isinstance(got, Emit):
        ev = _with_iico(got.event, acc.iico)
        return _new(Emit, (ev, got.after, got.address))
    return got


def after_read(th: CompiledThread, read: Read, value: AnyValue) -> ThreadState:
    """The state after a load's read gives ``value``: its register writes come next."""
    st = read.at
    acc = st.pending
    assert isinstance(acc, Access)
    ins = th.code[st.pc]
    if not isinstance(ins, Load):
        return rmwevents.after_read(th, read, value)
    plain = _with(st, st.n, None)
    after = th.plain_after_read(_new(Read, (read.event, plain, read.address)), value)
    r = st.n
    # part of the register's width (a byte or half-word load: its low bits)
    got = loaded(ins, value)
    writes = [reg_event(th, plain, r + 1, "Wreg", ins.dst, got, iico=1 << r)]
    if ins.reserve is not None:
        a, _ = address(plain.regs, plain.taint, th.addr_ops[st.pc])
        addr_reads = sum(1 << p for name, p in acc.reads)
        writes.append(reg_event(th, plain, r + 2, "Wreg", ins.reserve, a, iico=addr_reads))
    after = _with(after, r + 1 + len(writes), after.pending)
    return queued(r + 1, tuple(writes), after)


def resolve(th: CompiledThread, st: ThreadState, reads: Mapping[int, Value]) -> ThreadState:
    """The queued events of ``st`` with the values of ``reads`` filled in (the rest of
    the state is :meth:`ThreadCode.resolve`'s)."""
    p = st.pending
    if isinstance(p, Queued):
        evs = tuple(
            e._replace(value=e.value if e.value is None else evaluate(e.value, reads))
            for e in p.events
        )
        return st._replace(pending=Queued(evs, p.after))
    return st


def set_status(
    th: CompiledThread, st: ThreadState, status: str, res: str, ok: bool
) -> tuple[tuple, tuple]:
    """The registers after a store-conditional: ``status`` 0 (done) or 1 (failed), the
    reservation cleared."""
    regs, taint = set_reg(st.regs, st.taint, th.slots[status], 0 if ok else 1, 0)
    return set_reg(regs, taint, th.slots[res], 0, 0)


def value_operand(th: CompiledThread, st: ThreadState) -> tuple[object, int]:
    """The value (and taint) a store at ``st.pc`` writes: its last operand."""
    slot, v = th.args[st.pc][-1]
    if slot >= 0:
        got = st.regs[slot]
        return (0 if got is None else got), st.taint[slot]
    return v, 0


__all__ = [
    "RegisterEventError",
    "access",
    "after_read",
    "dequeue",
    "events_of",
    "queued",
    "reg_event",
    "resolve",
    "set_status",
    "step",
    "value_operand",
]
