"""What the per-architecture assemblers share: cell errors, operand records, and the
reading of a cell (tokens, leading labels, comma-separated operands).

A program cell (``LC00: lwz r1,0(r2)``) is parsed on its own text, so errors carry an
offset relative to the cell; :mod:`litmus.table` adds the cell's position in the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from herdsman.litmus.base import ir
from herdsman.litmus.base.ir import Label
from herdsman.litmus.test import CodeItem, Instruction

#: A token: (kind, text, offset in the cell); kind is a group name of the token pattern.
Token = tuple[str, str, int]
#: An assembler's operand record (:class:`Operand`, or its own)
OperandT = TypeVar("OperandT")


class CellError(Exception):
    """Bad instruction at character ``offset`` of the (stripped) cell text."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


@dataclass(frozen=True, slots=True)
class Operand:
    """One written operand: ``kind`` is reg, num, mem (``d(rA)``: ``value`` d, ``reg`` rA),
    cr (``crN``), name (a label or symbol), str (a quoted string) or deref (X86 ``[...]``)."""

    kind: str
    text: str
    pos: int
    value: int = 0
    reg: str = ""


def describe(op: Operand) -> str:
    """How an operand is named in messages."""
    return f"'{op.text}'"


def tokenize(pattern: re.Pattern[str], text: str) -> list[Token]:
    """The tokens of ``text`` by ``pattern``'s named groups: ``ws`` are skipped, ``bad`` (one
    character no other group takes) is an error."""
    out = []
    for m in pattern.finditer(text):
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind == "bad":
            raise CellError(m.start(), f"unexpected character {m.group()!r}")
        out.append((kind, m.group(), m.start()))
    return out


def split_labels(tokens: list[Token]) -> tuple[list[str], int]:
    """Leading ``NAME :`` pairs of a cell's tokens: the label names and where the rest starts."""
    labels: list[str] = []
    i = 0
    while i + 1 < len(tokens) and tokens[i][0] == "name" and tokens[i + 1][1] == ":":
        labels.append(tokens[i][1])
        i += 2
    return labels, i


def operands(
    toks: list[Token],
    i: int,
    m: str,
    operand: Callable[[list[Token], int, str], tuple[OperandT, int]],
) -> list[OperandT]:
    """The comma-separated operands of mnemonic ``m`` from token ``i`` to the end, each read
    by ``operand`` (which returns it and the index of the token after it)."""
    ops: list[OperandT] = []
    n = len(toks)
    if i == n:
        return ops
    while True:
        op, i = operand(toks, i, m)
        ops.append(op)
        if i == n:
            return ops
        if toks[i][1] != ",":
            raise CellError(toks[i][2], f"expected ',' between operands, found '{toks[i][1]}'")
        i += 1
        if i == n:
            raise CellError(toks[i - 1][2] + 1, f"missing operand after ',' in '{m}'")


def unknown_instruction(toks: list[Token], i: int, arch: str) -> CellError:
    """The error for token ``i``, which names no instruction of ``arch`` (a name followed by
    ':' is a label with nothing after it)."""
    kind, m, pos = toks[i]
    if kind == "name" and i + 1 < len(toks) and toks[i + 1][1] == ":":
        return CellError(toks[i + 1][2], "a label must be followed by an instruction or nothing")
    return CellError(pos, f"unknown {arch} instruction '{m}'")


def assemble(
    text: str,
    pattern: re.Pattern[str],
    instruction: Callable[[str, list[Token], int], Instruction],
) -> tuple[CodeItem, ...]:
    """The IR of one non-empty, stripped program cell: its labels, then the instruction (if
    any) that ``instruction(text, tokens, i)`` reads from token ``i`` to the end."""
    toks = tokenize(pattern, text)
    labels, i = split_labels(toks)
    out: list[CodeItem] = [Label(x) for x in labels]
    if i < len(toks):
        out.append(instruction(text, toks, i))
    return tuple(out)


def lower_at(pos: int, lower: Callable[..., Instruction], *args) -> Instruction:
    """``lower(*args)``, its errors at offset 0 (about the instruction as a whole) moved to
    the mnemonic at ``pos``."""
    try:
        return lower(*args)
    except CellError as exc:
        if exc.offset == 0:
            raise CellError(pos, exc.message) from None
        raise


# ----------------------------------------------------------------------------- builders
# An instruction: herd's canonical ``text``, the mnemonic ``m`` as written, its operation.


def op(
    text: str, m: str, dst: str, fn: str, args: tuple[ir.Operand, ...], sets_cr: bool = False
) -> Instruction:
    return Instruction(text, m, ir.Op(dst, fn, args, sets_cr))


def load(
    text: str,
    m: str,
    dst: str,
    addr: tuple[ir.Operand, ...],
    size: int = 4,
    annots: frozenset[str] = frozenset(),
) -> Instruction:
    return Instruction(text, m, ir.Load(dst, addr, size, annots))


def store(
    text: str,
    m: str,
    src: ir.Operand,
    addr: tuple[ir.Operand, ...],
    size: int = 4,
    annots: frozenset[str] = frozenset(),
) -> Instruction:
    return Instruction(text, m, ir.Store(src, addr, size, annots))


def rmw(
    text: str, m: str, dst: str | None, addr: tuple[ir.Operand, ...], fn: str, src: ir.Operand
) -> Instruction:
    return Instruction(text, m, ir.RMW(dst, addr, fn, src))


def fence(text: str, m: str, kind: str) -> Instruction:
    return Instruction(text, m, ir.Fence(kind))


def branch(
    text: str, m: str, target: str, cond: str | None = None, creg: str = "cr0"
) -> Instruction:
    return Instruction(text, m, ir.Branch(target, cond, creg))


def nop(text: str, m: str) -> Instruction:
    return Instruction(text, m, ir.Nop())
