"""Lowering a litmus test to the program IR: its threads, initial state and final condition.

Unmentioned registers and locations hold 0; symbolic registers (``%x0``) hold their init
value in every thread; every symbol of the test (init items, init values, code
immediates, observed locations) is a memory location with an initial write.
"""

from __future__ import annotations

from herdsman.litmus.asm import aarch64
from herdsman.litmus.base.casts import DEFAULT_CAST, Cast, c_cast, cast_value
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Atom,
    Condition,
    Imm,
    Label,
    Load,
    Loc,
    Lock,
    MemLoc,
    Op,
    Operand,
    Or,
    Program,
    Prop,
    RegLoc,
    Store,
    Sym,
    SymRegLoc,
    Thread,
    Unlock,
    Value,
    map_atoms,
)
from herdsman.litmus.test import InitItem, Instruction, LitmusTest


def init_value(v: Value | None) -> Value:
    return 0 if v is None else v


def typed_init(it: InitItem, v: Value | None) -> Value:
    """An init item's value ``v`` read at its declared type (``int8_t x=257`` is 1)."""
    cast = c_cast(it.ctype) if it.ctype and not it.pointer else None
    return cast_value(init_value(v), cast)


def declared_types(test: LitmusTest) -> dict[Loc, Cast]:
    """The register and memory locations declared of a sized type (an array's cells
    too), and that type: herd prints their values at it, and compares them so."""
    out: dict[Loc, Cast] = {}
    for it in test.init:
        cast = None if it.pointer or not it.ctype else c_cast(it.ctype)
        if cast is None or isinstance(it.loc, SymRegLoc):
            continue
        if it.cells is not None and isinstance(it.loc, MemLoc):
            out.update((MemLoc(f"{it.loc.name}[{i}]"), cast) for i in range(len(it.cells)))
        else:
            out[it.loc] = cast
    return out


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
    cells = array_cells(test)
    observed = tuple(test.observed_locations())
    condition, filt = test.condition, test.filter
    # herd compares a location's value and a constant at the location's type (an int
    # when undeclared): the constant, or either of its words of that type
    types = declared_types(test)
    prop = map_atoms(condition.prop, lambda a: _typed_atom(a, types))
    if prop is not condition.prop:
        condition = Condition(condition.quant, prop, condition.written)
    filt = None if filt is None else map_atoms(filt, lambda a: _typed_atom(a, types))
    if cells:  # herd's v[1] is the memory location its address names, v+8
        observed = tuple(_cell(loc, cells) for loc in observed)
        prop = map_atoms(condition.prop, lambda a: _cell_atom(a, cells))
        condition = Condition(condition.quant, prop, condition.written)
        filt = None if filt is None else map_atoms(filt, lambda a: _cell_atom(a, cells))
    return Program(
        name=test.name,
        arch=test.arch,
        threads=tuple(threads),
        memory=tuple(sorted(initial_memory(test, observed).items())),
        registers=tuple(tuple(regs.items()) for regs in initial_registers(test)),
        condition=condition,
        observed=observed,
        symbolic=symbolic,
        filter=filt,
        path=test.path,
    )


def array_cells(test: LitmusTest) -> dict[str, str]:
    """herd's name of each cell of the test's arrays (``v[1]``) and the memory location
    its address names (``v+8`` for 8-byte cells: :class:`Sym`'s text)."""
    out: dict[str, str] = {}
    for it in test.init:
        if it.cells is not None and isinstance(it.loc, MemLoc):
            cast = c_cast(it.ctype)
            size = 4 if cast is None else cast[0] // 8
            for i in range(len(it.cells)):
                out[f"{it.loc.name}[{i}]"] = str(Sym(it.loc.name, i * size))
    return out


def cell_names(test: LitmusTest) -> dict[Loc, Loc]:
    """The memory location of each array cell and herd's name for it (``v+8`` -> ``v[1]``)."""
    return {MemLoc(loc): MemLoc(cell) for cell, loc in array_cells(test).items()}


def _typed_atom(a: Atom, types: dict[Loc, Cast]) -> Prop:
    """``loc = k`` as herd reads it at ``loc``'s type: ``loc`` holds ``k``, or ``k``'s
    signed or unsigned word of that type (herdsman's values are those words or ``k``'s
    width: a W register's result is signed, a byte load's zero-extended)."""
    k = a.value
    if type(k) is not int or not isinstance(a.loc, RegLoc | MemLoc):
        return a
    bits = types.get(a.loc, DEFAULT_CAST)[0]
    words = {k, cast_value(k, (bits, True)), cast_value(k, (bits, False))}
    if len(words) == 1:
        return a
    return Or(tuple(Atom(a.loc, v) for v in sorted(words)))


def _cell(loc: Loc, cells: dict[str, str]) -> Loc:
    return MemLoc(cells[loc.name]) if isinstance(loc, MemLoc) and loc.name in cells else loc


def _cell_atom(a: Atom, cells: dict[str, str]) -> Atom:
    loc = _cell(a.loc, cells)
    v = _cell(a.value, cells) if isinstance(a.value, MemLoc) else a.value
    return a if loc is a.loc and v is a.value else Atom(loc, v)


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
            regs[it.loc.tid][it.loc.reg] = typed_init(it, it.value)
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
            mem[it.loc.name] = typed_init(it, it.value)
    cells = array_cells(test)
    for it in test.init:  # an array's cells
        if it.cells is not None and isinstance(it.loc, MemLoc):
            for i, v in enumerate(it.cells):
                mem[cells[f"{it.loc.name}[{i}]"]] = typed_init(it, v)
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
