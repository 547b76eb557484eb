"""Read-modify-writes with herd's register events (AArch64's atomics, herd's ``catdep``).

herd's ``herd/AArch64Sem.ml`` gives an atomic (``SWP``, ``LD<op>``, ``ST<op>``: the IR's
:class:`RMW`; ``CAS``: :class:`CAS`) these events, in the order they are issued here:

* the reads of its address registers, then of its value registers (data ports: the
  stored register; a ``CAS``'s compared then new one);
* the memory read, fed by the address reads (``iico_data``);
* an ``RMW``: the memory write, fed by the address and value reads, and by the memory
  read when the new value is computed from the old (an ``LD<op>``, not a ``SWP``); then
  the write of the destination register, fed by the memory read;
* a ``CAS``: the commit of a predicate (herd's ``pred``: in ``B``, not in ``BCC``, so
  no ``ctrl`` starts there) deciding the comparison, fed by the memory read and the
  compared register's read; if equal the memory write, fed by the address and new
  value reads and controlled by the commit (``iico_ctrl``); the write of the compared
  register.  herd makes that register write two ways, each its own execution: on a
  success fed by the register's read (and controlled by the commit) or by the memory
  read; on a failure fed by the memory read, controlled by the commit or not.
"""

from __future__ import annotations

from herdsman.engine.semantics import state
from herdsman.engine.semantics.access import state_at
from herdsman.engine.semantics.arith import AnyValue, is_known, reads_of
from herdsman.engine.semantics.code import CompiledThread
from herdsman.engine.semantics.regqueue import dequeue, queued, reg_event
from herdsman.engine.semantics.state import Pending, Step, ThreadState
from herdsman.graphs.events import Event
from herdsman.litmus.base.ir import CAS, RMW, Instr, Reg, Value

_new = tuple.__new__
_NONE: frozenset[str] = frozenset()


def max_events(ins: Instr, args: tuple[tuple[int, Value], ...]) -> int:
    """The events the read-modify-write ``ins`` (operands ``args``) issues at most."""
    regs = sum(1 for slot, _ in args if slot >= 0)
    return regs + (4 if isinstance(ins, CAS) else 3)


def _masks(th: CompiledThread, pc: int, r: int) -> tuple[int, list[int]]:
    """The positions of the address reads (a mask) and of each value operand's read (a
    mask, 0 for an immediate) of the read-modify-write at ``pc`` whose memory read is at
    position ``r``: its register reads are just before it, in operand order."""
    cargs = th.args[pc]
    naddr = len(th.addr_ops[pc])
    nregs = sum(1 for slot, _ in cargs if slot >= 0)
    pos = r - nregs
    amask = 0
    values: list[int] = []
    for k, (slot, _) in enumerate(cargs):
        bit = 0
        if slot >= 0:
            bit = 1 << pos
            pos += 1
        if k < naddr:
            amask |= bit
        else:
            values.append(bit)
    return amask, values


def reads(
    th: CompiledThread, st: ThreadState
) -> tuple[tuple[Event, ...], tuple[state.Access, ...]]:
    """The register reads of the read-modify-write at ``st.pc`` (each operand read once,
    a register named twice read twice) and the access states after them: one, or a
    ``CAS``'s two ways (succeeding, failing: herd gives the failing one's read no
    atomic annotation, so the way is chosen before the read)."""
    pc = st.pc
    naddr = len(th.addr_ops[pc])
    out: list[Event] = []
    names: list[tuple[str, int]] = []
    amask = 0
    for k, (slot, _) in enumerate(th.args[pc]):
        if slot < 0:
            continue
        n = st.n + len(out)
        name = th.names[slot]
        out.append(reg_event(th, st, n, "Rreg", name, st.regs[slot], k >= naddr))
        names.append((name, n))
        if k < naddr:
            amask |= 1 << n
    acc = state.Access(amask, amask, tuple(names))
    if isinstance(th.code[pc], CAS):
        return tuple(out), (acc, acc._replace(fails=True))
    return tuple(out), (acc,)


def read_annots(annots: frozenset[str]) -> frozenset[str]:
    """The annotations of a failing compare-and-swap's read (herd's ``rmw_to_read``):
    no ``X`` (but a ``NoRet`` read keeps it: herd's ``NoRet`` is atomic)."""
    return annots if "NoRet" in annots else annots - {"X"}


def after_read(th: CompiledThread, read: state.Read, value: AnyValue) -> ThreadState:
    """The state after the memory read of a read-modify-write gives ``value``: its other
    events wait on the comparison (:func:`rest`)."""
    st = read.at
    acc = st.pending
    assert isinstance(acc, state.Access)
    plain = _new(ThreadState, (*st[:7], None, st[8], st[9]))
    after = th.plain_after_read(_new(state.Read, (read.event, plain, read.address)), value)
    p = after.pending
    assert isinstance(p, Pending)
    p = p._replace(fail="fails" if acc.fails else "block")
    return after._replace(pending=p)


def rest(th: CompiledThread, st: ThreadState, p: Pending) -> Step:
    """The events of a read-modify-write after its memory read (see the module
    docstring): queued, or forked into herd's two ways of a ``CAS``."""
    if not is_known(p.guard):
        return state.Stall(reads_of(p.guard))
    if bool(p.guard) == (p.fail == "fails"):
        return state.Blocked("not this way of the compare-and-swap")
    pc = st.pc
    ins = th.code[pc]
    r = st.n - 1  # the memory read's position
    amask, values = _masks(th, pc, r)
    regs, taint = st.regs, st.taint
    if p.dst >= 0:
        r_ = list(regs)
        r_[p.dst] = p.dst_value
        t_ = list(taint)
        t_[p.dst] = p.dst_taint
        regs, taint = tuple(r_), tuple(t_)
    done = _new(
        ThreadState,
        (pc + 1, regs, taint, st.ctrl, st.n, st.poi + 1, st.loops, None, False, st.freed),
    )
    read = 1 << r
    dst = th.names[p.dst] if p.dst >= 0 else None
    if isinstance(ins, RMW):
        feed = amask | values[0] | (read if ins.fn != "second" else 0)
        events = [p.event._replace(index=r + 1, iico=feed, iico_ctrl=0)]
        if dst is not None:
            events.append(reg_event(th, st, r + 2, "Wreg", dst, p.dst_value, iico=read))
        return _go(queued(r + 1, tuple(events), _at(done, r + 1 + len(events))))
    assert isinstance(ins, CAS)
    rs, rt = values
    # herd's commit of a predicate (not a branch: in B, not in BCC), its text
    # "[x]==0:X0"
    compared = ins.expected.name if isinstance(ins.expected, Reg) else "XZR"
    pred = f"[{p.event.loc}]=={th.tid}:{compared}"
    commit = _new(
        Event,
        ("B", th.tid, r + 1, st.poi, None, None, pred, _NONE, th.origins[pc], 0, read)
        + (st.ctrl, 0, None, rs | read, 0),
    )
    c = 1 << (r + 1)
    states: list[ThreadState] = []
    if p.guard:
        w = p.event._replace(index=r + 2, iico=amask | rt, iico_ctrl=c)
        ways = ((rs, c), (read, 0)) if dst is not None else ((0, 0), (0, 0))
        for feed, ctrl in ways:
            events = [commit, w]
            if dst is not None:
                events.append(_wreg(th, st, r + 3, dst, p.dst_value, feed, ctrl))
            states.append(queued(r + 1, tuple(events), _at(done, r + 1 + len(events))))
    else:
        for ctrl in (c, 0):
            events = [commit]
            if dst is not None:
                events.append(_wreg(th, st, r + 2, dst, p.dst_value, read, ctrl))
            states.append(queued(r + 1, tuple(events), _at(done, r + 1 + len(events))))
    return state.Fork(tuple(states))


def _wreg(
    th: CompiledThread, st: ThreadState, n: int, reg: str, v: AnyValue, feed: int, ctrl: int
) -> Event:
    return reg_event(th, st, n, "Wreg", reg, v, iico=feed, iico_ctrl=ctrl)


def _at(st: ThreadState, n: int) -> ThreadState:
    return state_at(st, st.pc, st.regs, st.taint, n, st.poi)


def _go(st: ThreadState) -> Step:
    p = st.pending
    assert isinstance(p, state.Queued)
    return dequeue(st, p)


__all__ = ["after_read", "max_events", "read_annots", "reads", "rest"]
