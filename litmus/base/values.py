"""The values and locations of the program IR: integers and symbolic addresses
(:class:`Sym`), and the locations a final state names (registers, memory, herd's symbolic
registers).  :mod:`litmus.base.ir` re-exports them."""

from __future__ import annotations

from dataclasses import dataclass

# ----------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True, order=True)
class Sym:
    """The address of global ``name`` (plus a byte ``offset``, normally 0)."""

    name: str
    offset: int = 0

    def __str__(self) -> str:
        return self.name if not self.offset else f"{self.name}+{self.offset}"

    def __reduce__(self) -> tuple[type[Sym], tuple[str, int]]:
        return (Sym, (self.name, self.offset))  # faster pickling than the slots default


Value = int | Sym


@dataclass(frozen=True, slots=True)
class Vector:
    """herd's ``{k0,k1,...}``: the values of an array's cells, compared in a condition
    with an array observed whole (``x={2,1}``); a condition's constant only, never a
    location's value in the program IR (lowering compares the cells one by one)."""

    cells: tuple[Value, ...]

    def __str__(self) -> str:
        return "{" + ",".join(str(v) for v in self.cells) + "}"


def value_key(v: Value) -> tuple[int, int, str, int]:
    """herd's order of values in state lines: integers first (numerically), then symbols."""
    if isinstance(v, int):
        return (0, v, "", 0)
    return (1, 0, v.name, v.offset)


def show_value(v: Value) -> str:
    return str(v)


# ----------------------------------------------------------------------------- locations


@dataclass(frozen=True, slots=True)
class RegLoc:
    """Register ``reg`` of thread ``tid`` (``N:reg`` in conditions)."""

    tid: int
    reg: str

    def __str__(self) -> str:
        return f"{self.tid}:{self.reg}"

    def __reduce__(self) -> tuple[type[RegLoc], tuple[int, str]]:
        return (RegLoc, (self.tid, self.reg))


@dataclass(frozen=True, slots=True)
class MemLoc:
    """Memory location (global) ``name``; herd prints it ``[name]`` in states."""

    name: str

    def __str__(self) -> str:
        return f"[{self.name}]"

    def __reduce__(self) -> tuple[type[MemLoc], tuple[str]]:
        return (MemLoc, (self.name,))


@dataclass(frozen=True, slots=True)
class SymRegLoc:
    """A symbolic register ``%name`` of the init section (allocated by herd)."""

    name: str

    def __str__(self) -> str:
        return f"%{self.name}"

    def __reduce__(self) -> tuple[type[SymRegLoc], tuple[str]]:
        return (SymRegLoc, (self.name,))


Loc = RegLoc | MemLoc | SymRegLoc


def array_cell(loc: Loc) -> tuple[str, int] | None:
    """The array and index of herd's ``v[i]``, an array's cell (herd's ``Deref``: in
    states and hashes it comes after every other location), else None."""
    if not isinstance(loc, MemLoc) or not loc.name.endswith("]"):
        return None
    name, _, index = loc.name[:-1].partition("[")
    return name, int(index)


__all__ = [
    "Loc",
    "array_cell",
    "MemLoc",
    "RegLoc",
    "Sym",
    "SymRegLoc",
    "Value",
    "Vector",
    "show_value",
    "value_key",
]
