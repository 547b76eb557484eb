"""Which registers of a thread are live at each operation: read later before written.

Stateful search compares thread-local states; a register that is dead (every path from
here writes it before reading it, or never reads it) cannot change what the thread does
or what the final state says, so it is left out of the comparison.  A backward dataflow
over the thread's operations (branches go to their label, or on); at the end of the
thread the registers the final condition (or herd's filter) observes are live.
"""

from __future__ import annotations

from collections.abc import Iterable

from herdsman.engine.semantics.step import ThreadCode
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assert,
    Assume,
    Branch,
    Exit,
    Instr,
    Load,
    Lock,
    Op,
    Operand,
    Reg,
    Select,
    Store,
    Unlock,
)
from herdsman.litmus.base.regflow import defines


def _regs(ops: Iterable[Operand]) -> set[str]:
    return {o.name for o in ops if isinstance(o, Reg)}


def uses_defs(ins: Instr) -> tuple[set[str], set[str]]:
    """The registers an operation reads and those it writes."""
    if isinstance(ins, Op):
        return _regs(ins.args), set(defines(ins))
    if isinstance(ins, Select):
        return {ins.creg, *_regs((*ins.args, *ins.other))}, {ins.dst}
    if isinstance(ins, Load):
        return _regs(ins.addr), {ins.dst}
    if isinstance(ins, Store):
        return _regs((*ins.addr, ins.src)), set()
    if isinstance(ins, RMW):
        return _regs((*ins.addr, ins.src)), {ins.dst} if ins.dst else set()
    if isinstance(ins, CAS):
        return _regs((*ins.addr, ins.expected, ins.desired)), {ins.dst} if ins.dst else set()
    if isinstance(ins, (Lock, Unlock)):
        return _regs(ins.addr), set()
    if isinstance(ins, Branch):
        return ({ins.creg} if ins.cond is not None else set()), set()
    if isinstance(ins, (Assume, Assert)):
        return {ins.creg}, set()
    return set(), set()


def live_slots(code: ThreadCode, observed: Iterable[str]) -> list[tuple[bool, ...]]:
    """Per operation index (and one past the end), which register slots are live."""
    ops = code.code
    n = len(ops)
    succ: list[list[int]] = []
    for i, ins in enumerate(ops):
        if isinstance(ins, Branch):
            tgt = code.labels[ins.target]
            succ.append([tgt] if ins.cond is None else [i + 1, tgt])
        elif isinstance(ins, Exit):  # the thread ends: on to its end
            succ.append([n])
        else:
            succ.append([i + 1])
    info = [uses_defs(ins) for ins in ops]
    live: list[set[str]] = [set() for _ in range(n + 1)]
    live[n] = set(observed)
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out: set[str] = set()
            for j in succ[i]:
                out |= live[j]
            use, d = info[i]
            new = use | (out - d)
            if new != live[i]:
                live[i] = new
                changed = True
    names = code.names
    return [tuple(name in s for name in names) for s in live]
