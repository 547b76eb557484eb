"""What the lowering of C expressions works with: values (an IR operand and its C type),
what names are bound to, and lvalues (a register, memory at a summed address).

A local scalar whose address is taken stays a register as long as its address is only
dereferenced (GenMC promotes such locals after inlining): its address is then a
:class:`Ref`, a compile-time pointer to the register.  Should a ``Ref`` have to become a
run-time value (stored, passed to a thread, compared), the lowering raises
:class:`Demote` and lowers the thread again with the variable in memory (its stack).
"""

from __future__ import annotations

from dataclasses import dataclass

from herdsman.litmus.base.ir import Imm, Operand, Reg, Sym, Value
from herdsman.litmus.c.ctype import CType


class Demote(Exception):
    """Local ``key`` must live in memory: lower its thread again."""

    def __init__(self, key: int) -> None:
        super().__init__(key)
        self.key = key


@dataclass(frozen=True)
class Ref:
    """A compile-time pointer to a register variable (``&r`` of a promoted local)."""

    reg: str
    key: int  # the variable's declaration (what :class:`Demote` names)
    ctype: CType


Operandish = Operand | Ref


@dataclass(frozen=True)
class Val:
    op: Operandish
    ctype: CType


# ----------------------------------------------------------------------------- bindings


@dataclass
class Local:
    """A local variable in register ``reg`` (``key``: its declaration, when its address
    may be taken)."""

    reg: str
    ctype: CType
    key: int = 0


@dataclass
class Const:
    """A name bound to a compile-time value (an unrolled loop's counter, a constant
    argument, a litmus test's pointer parameter, a pointer to a register variable)."""

    value: Value | Ref
    ctype: CType


@dataclass
class Stack:
    """A local object in memory (its thread's stack) at address ``addr``."""

    addr: Sym
    ctype: CType


Binding = Local | Const | Stack


# ----------------------------------------------------------------------------- lvalues


@dataclass(frozen=True)
class RegLV:
    reg: str
    ctype: CType


@dataclass(frozen=True)
class MemLV:
    addr: tuple[Operand, ...]
    ctype: CType


LValue = RegLV | MemLV


@dataclass
class Frame:
    """A function being inlined: where its ``return`` goes and what it returns into."""

    name: str
    end: str
    result: str | None
    rtype: CType


def imm_int(v: Operandish) -> int | None:
    """The integer an operand is, when it is an integer constant."""
    if isinstance(v, Imm) and isinstance(v.value, int):
        return v.value
    return None


def is_reg(v: Operandish) -> bool:
    return isinstance(v, Reg)
