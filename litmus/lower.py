"""Lowering a litmus test to the program IR: its threads, initial state and final condition.

Unmentioned registers and locations hold 0; symbolic registers (``%x0``) hold their init
value in every thread; every symbol of the test (init items, init values, code
immediates, observed locations) is a memory location with an initial write.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from herdsman.litmus.asm import aarch64, cells
from herdsman.litmus.base.casts import (
    DEFAULT_CAST,
    SCALAR_BITS,
    Cast,
    c_cast,
    cast_value,
    stored_init,
)
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    And,
    Atom,
    Branch,
    Condition,
    Imm,
    Instr,
    Label,
    Load,
    Loc,
    Lock,
    MemLoc,
    Op,
    Operand,
    PFalse,
    Program,
    Prop,
    RegLoc,
    Select,
    Store,
    Sym,
    SymRegLoc,
    Thread,
    Unlock,
    Value,
    Vector,
    map_atoms,
)
from herdsman.litmus.base.memo import by_identity
from herdsman.litmus.test import CodeItem, InitItem, Instruction, LitmusTest


def init_value(v: Value | None) -> Value:
    return 0 if v is None else v


def typed_init(it: InitItem, v: Value | None) -> Value:
    """An init item's value ``v`` read at its declared type (``int8_t x=257`` is 1)."""
    cast = c_cast(it.ctype) if it.ctype and not it.pointer else None
    return cast_value(init_value(v), cast)


def declared_types(test: LitmusTest) -> Mapping[Loc, Cast]:
    """The register and memory locations declared of a sized type (an array's cells
    too), and that type: herd prints their values at it, and compares them so."""
    return _declared_types(test.init)


@by_identity(maxsize=1 << 12)
def _declared_types(init: tuple[InitItem, ...]) -> Mapping[Loc, Cast]:
    """:func:`declared_types` of an init section (remembered: tests share init sections)."""
    out: dict[Loc, Cast] = {}
    for it in init:
        cast = None if it.pointer or not it.ctype else c_cast(it.ctype)
        if cast is None or isinstance(it.loc, SymRegLoc):
            continue
        if it.cells is not None and isinstance(it.loc, MemLoc):
            out.update((MemLoc(f"{it.loc.name}[{i}]"), cast) for i in range(len(it.cells)))
        else:
            out[it.loc] = cast
    return MappingProxyType(out)


def lower(test: LitmusTest) -> Program:
    """The program of ``test``.  What comes from a part tests share (a thread's code, the
    init section, the condition: one object per text) is remembered per part."""
    aarch64_ = test.arch == "AArch64"  # herd shows its branches' targets as offsets
    threads = tuple([_thread(code, aarch64_) for code in test.threads])
    init = _lowered_init(test.init, len(test.threads), SCALAR_BITS.get(test.arch, 0))
    cells = init.cells
    observed = tuple(test.observed_locations())
    condition, filt = test.condition, test.filter
    # herd compares a location's value and a constant at the location's type (an int
    # when undeclared): the constant, or either of its words of that type
    types = init.types
    if cells or types:
        prop = _typed_prop(_whole_arrays(condition.prop, cells), types)
        filt = None if filt is None else _typed_prop(_whole_arrays(filt, cells), types)
    else:  # the usual test: no array, no declared type
        prop = _plain_prop(condition.prop)
        filt = None if filt is None else _plain_prop(filt)
    if prop is not condition.prop:
        condition = Condition(condition.quant, prop, condition.written)
    if cells:  # herd's v[1] is the memory location its address names, v+8
        observed = _observed_cells(observed, cells)
        prop = map_atoms(condition.prop, lambda a: _cell_atom(a, cells))
        condition = Condition(condition.quant, prop, condition.written)
        filt = None if filt is None else map_atoms(filt, lambda a: _cell_atom(a, cells))
    memory = initial_memory(test, observed)
    return Program(
        name=test.name,
        arch=test.arch,
        threads=threads,
        memory=tuple(sorted(memory.items())),
        registers=init.registers,
        condition=condition,
        observed=observed,
        symbolic=init.symbolic,
        filter=filt,
        path=test.path,
        computed_init=False,  # herd: a location at a computed address has no initial write
    )


@by_identity(maxsize=1 << 14)
def _thread(code: tuple[CodeItem, ...], aarch64_: bool) -> Thread:
    """The IR thread of a test's thread ``code``."""
    texts = (
        aarch64.event_texts(code)
        if aarch64_
        else tuple(item.text if isinstance(item, Instruction) else "" for item in code)
    )
    ops: list[Instr] = []
    origins: list[str] = []
    joined: list[int] = []
    # branches to offsets (AArch64's B .+8) go to a label of their own at their target
    offsets = cells.offset_targets(code) if aarch64_ else {}
    at = {t: f"@{t}" for t in offsets.values()}  # no label of a test is so named
    n = 0
    for i, (item, text) in enumerate(zip(code, texts, strict=True)):
        if not isinstance(item, Instruction):
            ops.append(item)
            origins.append(text)
            continue
        if n in at:
            ops.append(Label(at[n]))
            origins.append("")
        n += 1
        op = item.op
        if i in offsets:
            assert isinstance(op, Branch)
            op = replace(op, target=at[offsets[i]])
        ops.append(op)
        origins.append(text)
        for more in item.more:  # the instruction's further operations: one poi
            joined.append(len(ops))
            ops.append(more)
            origins.append(text)
    if n in at:  # a branch to the end
        ops.append(Label(at[n]))
        origins.append("")
    return Thread(tuple(ops), tuple(origins), frozenset(joined))


@dataclass(frozen=True, slots=True)
class _LoweredInit:
    """What the program takes from a test's init section (and its thread count)."""

    symbolic: tuple[tuple[str, Value], ...]
    registers: tuple[tuple[tuple[str, Value], ...], ...]
    #: the init section's memory locations (addresses in its values included)
    memory: Mapping[str, Value]
    cells: Mapping[str, str]
    types: Mapping[Loc, Cast]


@by_identity(maxsize=1 << 14)
def _lowered_init(init: tuple[InitItem, ...], nthreads: int, scalar: int) -> _LoweredInit:
    """What the program takes from ``init`` (``scalar``: the bits of the architecture's
    scalars, 0 when not known: see :func:`_initial_memory`)."""
    symbolic = tuple(
        (it.loc.name, init_value(it.value)) for it in init if isinstance(it.loc, SymRegLoc)
    )
    registers = tuple(_one(tuple(regs.items())) for regs in _initial_registers(init, nthreads))
    memory = MappingProxyType(_initial_memory(init, scalar))
    cells = MappingProxyType(_array_cells(init))
    return _LoweredInit(symbolic, registers, memory, cells, _declared_types(init))


#: One object per thread's initial registers: tests of different init sections share
#: threads' registers, and what is remembered of a thread is so per identity
#: (``engine.semantics.step``'s compiled threads).
_REGISTERS: dict[tuple[tuple[str, Value], ...], tuple[tuple[str, Value], ...]] = {}


def _one(regs: tuple[tuple[str, Value], ...]) -> tuple[tuple[str, Value], ...]:
    if len(_REGISTERS) >= 1 << 14:
        _REGISTERS.clear()
    return _REGISTERS.setdefault(regs, regs)


@by_identity(maxsize=1 << 14)
def _code_symbols(code: tuple[CodeItem, ...]) -> tuple[str, ...]:
    """The memory locations a thread's code names (its immediate addresses)."""
    out: dict[str, None] = {}
    for item in code:
        if isinstance(item, Label):
            continue
        for op in (x for ins in (item.op, *item.more) for x in _operands(ins)):
            if type(op) is Imm and type(op.value) is Sym:
                out[op.value.name] = None
    return tuple(out)


def array_cells(test: LitmusTest) -> Mapping[str, str]:
    """herd's name of each cell of the test's arrays (``v[1]``) and the memory location
    its address names (``v+8`` for 8-byte cells: :class:`Sym`'s text)."""
    return _lowered_init(test.init, len(test.threads), SCALAR_BITS.get(test.arch, 0)).cells


def _array_cells(init: tuple[InitItem, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for it in init:
        if it.cells is not None and isinstance(it.loc, MemLoc):
            cast = c_cast(it.ctype)
            size = 4 if cast is None else cast[0] // 8
            for i in range(len(it.cells)):
                out[f"{it.loc.name}[{i}]"] = str(Sym(it.loc.name, i * size))
    return out


def whole_arrays(test: LitmusTest) -> dict[MemLoc, tuple[MemLoc, ...]]:
    """The arrays the test observes whole (herd's ``v={1,2}``), each with herd's names of
    its cells (``v[0]``, ``v[1]``...: :func:`cell_names`)."""
    cells = array_cells(test)
    out: dict[MemLoc, tuple[MemLoc, ...]] = {}
    if not cells:
        return out
    for loc in test.observed_locations():
        names = _cells_of(loc, cells)
        if names and isinstance(loc, MemLoc):
            out[loc] = tuple([MemLoc(c) for c in names])
    return out


def declared_sizes(test: LitmusTest) -> Mapping[str, int]:
    """The bytes of each memory location declared of a sized type (an array's cells by
    the names their addresses give, ``v+8``)."""
    return _declared_sizes(test.init)


@by_identity(maxsize=1 << 12)
def _declared_sizes(init: tuple[InitItem, ...]) -> Mapping[str, int]:
    cells = _array_cells(init)
    out: dict[str, int] = {}
    for loc, (bits, _) in _declared_types(init).items():
        if isinstance(loc, MemLoc):
            out[cells.get(loc.name, loc.name)] = bits // 8
    return MappingProxyType(out)


def cell_names(test: LitmusTest) -> dict[Loc, Loc]:
    """The memory location of each array cell and herd's name for it (``v+8`` -> ``v[1]``)."""
    return {MemLoc(loc): MemLoc(cell) for cell, loc in array_cells(test).items()}


def _typed_prop(p: Prop, types: Mapping[Loc, Cast]) -> Prop:
    """``p`` with its atoms as herd reads them at their locations' types
    (:func:`_typed_atom`); remembered for tests that declare no type (they share
    conditions)."""
    if not types:
        return _untyped_prop(p)
    return map_atoms(p, lambda a: _typed_atom(a, types))


@by_identity(maxsize=1 << 14)
def _untyped_prop(p: Prop) -> Prop:
    return map_atoms(p, lambda a: _typed_atom(a, _NO_TYPES))


_NO_TYPES: Mapping[Loc, Cast] = MappingProxyType({})


@by_identity(maxsize=1 << 14)
def _plain_prop(p: Prop) -> Prop:
    """``_typed_prop(_whole_arrays(p, {}), {})`` (a test of no array nor declared type) in
    one pass, each atom mapped once (the atoms of a proposition repeat)."""
    return map_atoms(p, _plain_atom)


@by_identity(maxsize=1 << 14)
def _plain_atom(a: Atom) -> Prop:
    """An atom of :func:`_plain_prop` mapped (remembered: conditions share their atoms,
    one object per text)."""
    return PFalse() if isinstance(a.value, Vector) else _typed_atom(a, _NO_TYPES)


def _typed_atom(a: Atom, types: Mapping[Loc, Cast]) -> Prop:
    """``loc = k`` as herd reads it (``constraints.ml``): the location's value and ``k``
    both masked to the bits of ``loc``'s type (an ``int`` when undeclared), then compared:
    ``k`` as a word of that type, compared on its bits (:attr:`Atom.bits`)."""
    k = a.value
    if type(k) is not int or not isinstance(a.loc, _TYPED):
        return a
    cast = types.get(a.loc, DEFAULT_CAST) if types else DEFAULT_CAST
    return Atom(a.loc, cast_value(k, cast), cast[0])


#: The locations whose values are typed (registers, memory).
_TYPED = (RegLoc, MemLoc)


def _whole_arrays(p: Prop, cells: Mapping[str, str]) -> Prop:
    """``p`` with each atom comparing an array observed whole as herd does, cell by cell
    (``v={k0,...}`` is ``v[0]=k0 /\\ ...``, ``v=w`` is ``v[0]=w[0] /\\ ...``); false when
    the other side is no array of as many cells (a constant, a register, a scalar: herd's
    vector never equals them)."""
    return _cellwise(p, cells) if cells else _no_arrays(p)


@by_identity(maxsize=1 << 14)
def _no_arrays(p: Prop) -> Prop:
    """:func:`_whole_arrays` of a test without arrays (its vectors compared with scalars)."""
    return map_atoms(p, lambda a: PFalse() if isinstance(a.value, Vector) else a)


@by_identity(maxsize=1 << 14)
def _cellwise(p: Prop, cells: Mapping[str, str]) -> Prop:
    """:func:`_whole_arrays` of a test with arrays."""

    def whole(a: Atom) -> Prop:
        v = a.value
        left = _cells_of(a.loc, cells)
        if isinstance(v, Vector):
            right: list[Value | Loc] = list(v.cells)
        elif isinstance(v, MemLoc) and (names := _cells_of(v, cells)):
            right = [MemLoc(c) for c in names]
        elif left:
            return PFalse()
        else:
            return a
        if len(left) != len(right):
            return PFalse()
        return And(tuple([Atom(MemLoc(c), k) for c, k in zip(left, right, strict=True)]))

    return map_atoms(p, whole)


def _cells_of(loc: Loc, cells: Mapping[str, str]) -> list[str]:
    """herd's names of the cells of ``loc`` (``v[0]``, ``v[1]``...) when it is an array
    (else none)."""
    if not isinstance(loc, MemLoc) or f"{loc.name}[0]" not in cells:
        return []
    out: list[str] = []
    while (name := f"{loc.name}[{len(out)}]") in cells:
        out.append(name)
    return out


def _observed_cells(observed: tuple[Loc, ...], cells: Mapping[str, str]) -> tuple[Loc, ...]:
    """The memory locations holding ``observed``: an array observed whole is its cells."""
    out: dict[Loc, None] = {}
    for loc in observed:
        whole = _cells_of(loc, cells)
        if whole:
            out.update((MemLoc(cells[name]), None) for name in whole)
        else:
            out.setdefault(_cell(loc, cells))
    return tuple(out)


def _cell(loc: Loc, cells: Mapping[str, str]) -> Loc:
    return MemLoc(cells[loc.name]) if isinstance(loc, MemLoc) and loc.name in cells else loc


def _cell_atom(a: Atom, cells: Mapping[str, str]) -> Atom:
    loc = _cell(a.loc, cells)
    v = _cell(a.value, cells) if isinstance(a.value, MemLoc) else a.value
    return a if loc is a.loc and v is a.value else Atom(loc, v, a.bits)


def _initial_registers(init: tuple[InitItem, ...], nthreads: int) -> list[dict[str, Value]]:
    regs: list[dict[str, Value]] = [{} for _ in range(nthreads)]
    sym: dict[str, Value] = {}
    for it in init:
        if isinstance(it.loc, SymRegLoc):
            sym[it.loc.name] = init_value(it.value)
    for tid in range(nthreads):
        for name, v in sym.items():
            regs[tid]["%" + name] = v
    for it in init:
        if isinstance(it.loc, RegLoc) and 0 <= it.loc.tid < len(regs):
            regs[it.loc.tid][it.loc.reg] = typed_init(it, it.value)
    return regs


def initial_memory(test: LitmusTest, observed: tuple[Loc, ...] | None = None) -> dict[str, Value]:
    """Every memory location the test names (init items, addresses in init values and in
    the code, observed locations: ``observed`` when given), with its initial value (0 when
    unmentioned)."""
    scalar = SCALAR_BITS.get(test.arch, 0)
    mem = dict(_lowered_init(test.init, len(test.threads), scalar).memory)
    for loc in test.observed_locations() if observed is None else observed:
        if isinstance(loc, MemLoc):
            mem.setdefault(loc.name, 0)
    for code in test.threads:
        for name in _code_symbols(code):
            mem.setdefault(name, 0)
    return mem


def _initial_memory(init: tuple[InitItem, ...], scalar: int) -> dict[str, Value]:
    """The memory locations of an init section (addresses in its values too) with their
    initial values: as herd's initial writes hold them, zero-extended from the
    location's size to the architecture's ``scalar`` bits (:func:`stored_init`; 0: read
    at the declared type)."""
    mem: dict[str, Value] = {}
    for it in init:
        if isinstance(it.value, Sym):
            mem.setdefault(it.value.name, 0)
    for it in init:
        if isinstance(it.loc, MemLoc):
            mem[it.loc.name] = _stored(it, it.value, scalar)
    cells = _array_cells(init)
    for it in init:  # an array's cells
        if it.cells is not None and isinstance(it.loc, MemLoc):
            for i, v in enumerate(it.cells):
                mem[cells[f"{it.loc.name}[{i}]"]] = _stored(it, v, scalar)
    return mem


def _stored(it: InitItem, v: Value | None, scalar: int) -> Value:
    """The initial value ``v`` of memory init item ``it`` (see :func:`_initial_memory`)."""
    if not scalar:
        return typed_init(it, v)
    cast = None if it.pointer else c_cast(it.ctype) if it.ctype else DEFAULT_CAST
    return stored_init(init_value(v), cast, scalar)


def _operands(ins: object) -> tuple[Operand, ...]:
    if isinstance(ins, Op):
        return ins.args
    if isinstance(ins, Select):
        return (*ins.args, *ins.other)
    if isinstance(ins, (Load, Lock, Unlock)):
        return ins.addr
    if isinstance(ins, (Store, RMW)):
        return (*ins.addr, ins.src)
    if isinstance(ins, CAS):
        return (*ins.addr, ins.expected, ins.desired)
    return ()
