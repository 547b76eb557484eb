"""Which registers an IR operation reads and which it writes (for the front-ends'
analyses of straight code: spin loops, the C lowering's live registers, herd's static
mixed-size rules)."""

from __future__ import annotations

from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assert,
    Assume,
    Branch,
    Effect,
    Free,
    Instr,
    Join,
    Load,
    Lock,
    Op,
    Operand,
    Reg,
    Select,
    Store,
    StoreCond,
    Unlock,
)

__all__ = ["defines", "uses"]


def _regs(ops: tuple[Operand, ...]) -> list[str]:
    return [a.name for a in ops if isinstance(a, Reg)]


def uses(ins: Instr) -> tuple[str, ...]:
    """Registers an operation reads (address and value registers alike)."""
    if isinstance(ins, Op):
        return tuple(_regs(ins.args))
    if isinstance(ins, Select):
        return (ins.creg, *_regs((*ins.args, *ins.other)))
    if isinstance(ins, (Load, Lock, Unlock, Effect, Free)):
        return tuple(_regs(ins.addr))
    if isinstance(ins, (Store, RMW)):
        return tuple(_regs((*ins.addr, ins.src)))
    if isinstance(ins, StoreCond):
        return (*_regs((*ins.addr, ins.src)), ins.reserve)
    if isinstance(ins, CAS):
        return tuple(_regs((*ins.addr, ins.expected, ins.desired)))
    if isinstance(ins, Branch):
        if ins.cond is None:
            return ()
        return (ins.creg,) if ins.rhs is None else (ins.creg, ins.rhs)
    if isinstance(ins, (Assume, Assert)):
        return (ins.creg,)
    if isinstance(ins, Join) and ins.reg is not None:
        return (ins.reg,)
    return ()


def defines(ins: Instr) -> tuple[str, ...]:
    """Registers an operation writes."""
    if isinstance(ins, Op):
        if ins.flags is not None:
            return (ins.dst, ins.flags[0])
        return (ins.dst, "cr0") if ins.sets_cr and ins.dst != "cr0" else (ins.dst,)
    if isinstance(ins, Select):
        return (ins.dst,)
    if isinstance(ins, Load):
        return (ins.dst,) if ins.reserve is None else (ins.dst, ins.reserve)
    if isinstance(ins, StoreCond):
        return (ins.status, ins.reserve)
    if isinstance(ins, RMW) and ins.sets_cr:
        return (ins.dst, "cr0") if ins.dst else ("cr0",)
    if isinstance(ins, (RMW, CAS)):
        return (ins.dst,) if ins.dst else ()
    return ()
