"""Lowering a litmus test to the program IR: its threads, initial state and final condition.

Unmentioned registers and locations hold 0; symbolic registers (``%x0``) hold their init
value in every thread; every symbol of the test (init items, init values, code
immediates, observed locations) is a memory location with an initial write.
"""

from __future__ import annotations

from herdsman.litmus.asm import aarch64
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Imm,
    Label,
    Load,
    Loc,
    Lock,
    MemLoc,
    Op,
    Operand,
    Program,
    RegLoc,
    Store,
    Sym,
    SymRegLoc,
    Thread,
    Unlock,
    Value,
)
from herdsman.litmus.test import Instruction, LitmusTest


def init_value(v: Value | None) -> Value:
    return 0 if v is None else v


def lower(test: LitmusTest) -> Program:
    """The program of ``test``."""
    threads = []
    for code in test.threads:
        ops = tuple(item.op if isinstance(item, Instruction) else item for item in code)
        if test.arch == "AArch64":  # herd shows its branches' targets as offsets
            origins = aarch64.event_texts(code)
        else:
            origins = tuple(item.text if isinstance(item, Instruction) else "" for item in code)
        threads.append(Thread(ops, origins))
    symbolic = tuple(
        (it.loc.name, init_value(it.value)) for it in test.init if isinstance(it.loc, SymRegLoc)
    )
    observed = tuple(test.observed_locations())
    return Program(
        name=test.name,
        arch=test.arch,
        threads=tuple(threads),
        memory=tuple(sorted(initial_memory(test, observed).items())),
        registers=tuple(tuple(regs.items()) for regs in initial_registers(test)),
        condition=test.condition,
        observed=observed,
        symbolic=symbolic,
        filter=test.filter,
        path=test.path,
    )


def initial_registers(test: LitmusTest) -> list[dict[str, Value]]:
    """Initial register file of every thread (symbolic registers ``%x`` included)."""
    regs: list[dict[str, Value]] = [{} for _ in test.threads]
    sym: dict[str, Value] = {}
    for it in test.init:
        if isinstance(it.loc, SymRegLoc):
            sym[it.loc.name] = init_value(it.value)
    for tid in range(len(test.threads)):
        for name, v in sym.items():
            regs[tid]["%" + name] = v
    for it in test.init:
        if isinstance(it.loc, RegLoc) and 0 <= it.loc.tid < len(regs):
            regs[it.loc.tid][it.loc.reg] = init_value(it.value)
    return regs


def initial_memory(test: LitmusTest, observed: tuple[Loc, ...] | None = None) -> dict[str, Value]:
    """Every memory location the test names (init items, addresses in init values and in
    the code, observed locations: ``observed`` when given), with its initial value (0 when
    unmentioned)."""
    mem: dict[str, Value] = {}

    def note_addr(v: object) -> None:
        if isinstance(v, Sym):
            mem.setdefault(v.name, 0)

    for it in test.init:
        note_addr(it.value)
    for it in test.init:
        if isinstance(it.loc, MemLoc):
            mem[it.loc.name] = init_value(it.value)
    for loc in test.observed_locations() if observed is None else observed:
        if isinstance(loc, MemLoc):
            mem.setdefault(loc.name, 0)
    for code in test.threads:
        for item in code:
            if isinstance(item, Label):
                continue
            for op in _operands(item.op):
                if type(op) is Imm and type(op.value) is Sym:
                    mem.setdefault(op.value.name, 0)
    return mem


def _operands(ins: object) -> tuple[Operand, ...]:
    if isinstance(ins, Op):
        return ins.args
    if isinstance(ins, Load | Lock | Unlock):
        return ins.addr
    if isinstance(ins, Store | RMW):
        return (*ins.addr, ins.src)
    if isinstance(ins, CAS):
        return (*ins.addr, ins.expected, ins.desired)
    return ()
