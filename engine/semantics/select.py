"""A conditional selection (the IR's :class:`Select`: AArch64's ``CSEL`` family) as herd's
``herd/AArch64Sem.ml`` gives it (without ``-variant NotWeakPredicated``).

The condition register is read and decides which operands are read: the commit of a
predicate (a ``B`` event that is no branch: herd's ``pred``, its text the condition when
it holds, none else) is fed by that read (``iico_data``) and controls what follows
(``iico_ctrl`` to the first of the chosen operands' reads, or to the write when there
are none); the chosen reads (data ports) feed the write of the destination.  So the
destination's dependencies are those of the chosen operands only: the condition reaches
it through ``iico_ctrl`` (``aarch64.cat``'s ``pick`` dependencies), not ``iico_data``,
and no ``ctrl`` starts at the commit (it is no branch).  Without register events the
commit (on architectures whose branches commit) takes its data from the condition's
reads and the destination its taint from the chosen operands'.  A selection without a
commit (``Select.commit`` False: ARM's conditional execution, whose failing condition
leaves the destination as it was) issues no event (and has no register view).
"""

from __future__ import annotations

from herdsman.engine.semantics.access import set_reg, state_at
from herdsman.engine.semantics.arith import AnyValue, apply_op, branch_taken, is_known, reads_of
from herdsman.engine.semantics.code import CompiledThread
from herdsman.engine.semantics.regqueue import dequeue, reg_event
from herdsman.engine.semantics.state import Emit, Queued, Stall, Step, ThreadState
from herdsman.graphs.events import Event
from herdsman.litmus.base.ir import Reg, Select

_new = tuple.__new__
_NONE: frozenset[str] = frozenset()


def _choose(
    th: CompiledThread, ins: Select, st: ThreadState
) -> Stall | tuple[bool, list[int], tuple, tuple, int]:
    """(whether the condition holds, the chosen register slots, the registers and taints
    after the write, the condition's taint), or a stall while the condition is unknown."""
    slot = th.slots[ins.creg]
    c = st.regs[slot]
    c = 0 if c is None else c
    if not is_known(c):
        return Stall(reads_of(c))
    taken = branch_taken(ins.cond, c)
    cargs = th.args[st.pc]
    n = len(ins.args)
    chosen = cargs[:n] if taken else cargs[n:]
    args: list[AnyValue] = []
    slots: list[int] = []
    t = 0
    for s, imm in chosen:
        if s < 0:
            args.append(imm)
            continue
        v = st.regs[s]
        args.append(0 if v is None else v)
        t |= st.taint[s]
        if s not in slots:
            slots.append(s)
    v = apply_op(ins.fn if taken else ins.other_fn, args)
    regs, taint = set_reg(st.regs, st.taint, th.slots[ins.dst], v, t)
    return taken, slots, regs, taint, st.taint[slot]


def _commit(th: CompiledThread, ins: Select, st: ThreadState, n: int, taken: bool) -> Event:
    """The commit of the predicate at position ``n`` (its text when the condition holds)."""
    text = ins.text if taken else ""
    return _new(
        Event,
        ("B", th.tid, n, st.poi, None, None, text, _NONE, th.origins[st.pc], 0, 0, st.ctrl)
        + (0, None, 0, 0),
    )


def plain_step(
    th: CompiledThread, ins: Select, st: ThreadState, commits: bool
) -> Step | ThreadState:
    """The selection at ``st.pc`` without register events: the commit's :class:`Emit`
    when ``commits`` (the architecture's branches commit), else the state after it."""
    got = _choose(th, ins, st)
    if isinstance(got, Stall):
        return got
    taken, _, regs, taint, t = got
    if not commits or not ins.commit:
        return state_at(st, st.pc + 1, regs, taint, st.n, st.poi + 1)
    commit = _commit(th, ins, st, st.n, taken)._replace(data=t)
    return _new(Emit, (commit, state_at(st, st.pc + 1, regs, taint, st.n + 1, st.poi + 1), None))


def reg_step(th: CompiledThread, ins: Select, st: ThreadState) -> Step:
    """The selection at ``st.pc`` with herd's register events (the module docstring)."""
    got = _choose(th, ins, st)
    if isinstance(got, Stall):
        return got
    taken, slots, regs, taint, _ = got
    n = st.n
    read = reg_event(th, st, n, "Rreg", ins.creg, st.regs[th.slots[ins.creg]])
    commit = _commit(th, ins, st, n + 1, taken)._replace(iico=1 << n)
    ctrl = 1 << (n + 1)
    events = [read, commit]
    mask = 0
    for k, s in enumerate(slots):
        pos = n + 2 + k
        first = ctrl if k == 0 else 0
        ev = reg_event(th, st, pos, "Rreg", th.names[s], st.regs[s], True, iico_ctrl=first)
        events.append(ev)
        mask |= 1 << pos
    dst = th.slots[ins.dst]
    w = n + 2 + len(slots)
    events.append(
        reg_event(th, st, w, "Wreg", ins.dst, regs[dst], iico=mask, iico_ctrl=0 if mask else ctrl)
    )
    after = state_at(st, st.pc + 1, regs, taint, n + len(events), st.poi + 1)
    return dequeue(st, _new(Queued, (tuple(events), after)))


def max_events(ins: Select, regs: bool) -> int:
    """The events a selection issues at most (with register events or without)."""
    if not regs:
        return int(ins.commit)
    n = len({a.name for a in ins.args if isinstance(a, Reg)})
    m = len({a.name for a in ins.other if isinstance(a, Reg)})
    return 3 + max(n, m)


__all__ = ["max_events", "plain_step", "reg_step"]
