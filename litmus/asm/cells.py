"""What the per-architecture assemblers share: cell errors, operand records, and the
reading of a cell (tokens, leading labels, comma-separated operands).

A program cell (``LC00: lwz r1,0(r2)``) is parsed on its own text, so errors carry an
offset relative to the cell; :mod:`litmus.table` adds the cell's position in the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from herdsman.litmus.base import ir
from herdsman.litmus.base.ir import Label
from herdsman.litmus.base.numbers import ValueOutOfRange, parse_literal
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


def literal(text: str, offset: int) -> int:
    """The integer literal ``text`` of an operand at ``offset`` (a CellError beyond
    herdsman's bound, :mod:`litmus.base.numbers`)."""
    try:
        return parse_literal(text)
    except ValueOutOfRange as e:
        raise CellError(offset, str(e)) from None


@dataclass(frozen=True, slots=True)
class Operand:
    """One written operand: ``kind`` is reg, num, mem (``d(rA)``: ``value`` d, ``reg`` rA;
    ``index``: a scaled index register and its shift, X86's ``(%rA,%rB,8)``), cr
    (``crN``), name (a label or symbol), str (a quoted string) or deref (X86 ``[...]``)."""

    kind: str
    text: str
    pos: int
    value: int = 0
    reg: str = ""
    index: tuple[str, int] | None = None


def describe(op: Operand) -> str:
    """How an operand is named in messages."""
    return f"'{op.text}'"


def tokenize(pattern: re.Pattern[str], text: str) -> list[Token]:
    """The tokens of ``text`` by ``pattern``'s named groups: ``ws`` are skipped, ``bad`` (one
    character no other group takes) is an error."""
    out = []
    for m in pattern.finditer(text):
        kind = m.lastgroup
        assert kind is not None, "every alternative of the pattern is a named group"
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


def mnemonic_at(
    toks: list[Token], i: int, canon_of: Callable[[str], str | None], arch: str
) -> tuple[str, str, int]:
    """herd's mnemonic of the instruction at token ``i`` (``canon_of`` gives it, None for a
    word its lexer does not read), the mnemonic as written and its position; the error
    naming it when ``arch`` has no such instruction."""
    kind, m, pos = toks[i]
    canon = canon_of(m) if kind == "name" else None
    if canon is None:
        raise unknown_instruction(toks, i, arch)
    return canon, m, pos


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


def arity(m: str, ops: list[Operand], n: int, syntax: str, end: int) -> None:
    """Check that mnemonic ``m`` has ``n`` operands (``end``: where a missing one goes)."""
    if len(ops) < n:
        raise CellError(end, f"missing operand for '{m}' (syntax: {m} {syntax})")
    if len(ops) > n:
        raise CellError(ops[n].pos, f"too many operands for '{m}' (syntax: {m} {syntax})")


def expect(cond: bool, o: Operand, what: str, m: str) -> None:
    """An error at operand ``o`` of ``m`` unless ``cond``: it should be ``what``."""
    if not cond:
        raise CellError(o.pos, f"expected {what} as operand of '{m}', found '{o.text}'")


def cased(text: str, known: Iterable[str], upper: bool) -> str | None:
    """The canonical mnemonic of ``text`` (upper or lower case) if it is one of ``known``,
    written all in upper or all in lower case as herd's lexers take them; else None."""
    canon = text.upper() if upper else text.lower()
    if canon in known and text in (canon, canon.swapcase()):
        return canon
    return None


def prefixed(
    text: str,
    toks: list[Token],
    i: int,
    word: str,
    canon_of: Callable[[str], str | None],
    arch: str,
) -> tuple[int, str, str | None]:
    """The instruction at token ``i`` after the prefix ``word`` (X86's ``LOCK``, canonical)
    when that token is the prefix, with or without a ``;``: the index of its mnemonic,
    that mnemonic canonical and the prefix as written (None without prefix)."""
    kind, written, _ = toks[i]
    if kind != "name" or canon_of(written) != word:
        canon, _, _ = mnemonic_at(toks, i, canon_of, arch)
        return i, canon, None
    i += 1
    if i < len(toks) and toks[i][1] == ";":
        i += 1
    if i == len(toks):
        raise CellError(len(text), f"{word} must be followed by an instruction")
    kind, m, pos = toks[i]
    after = canon_of(m) if kind == "name" else None
    if after is None or after == word:
        raise CellError(pos, f"unknown {arch} instruction '{m}'")
    return i, after, written


def plain_operand(tok: Token, m: str, register: Callable[[str], str | None]) -> Operand:
    """The operand of the one token ``tok`` of ``m``: a number (``#k`` or ``k``), a
    register (``sreg`` as written, or a name ``register`` knows) or a name."""
    kind, text, pos = tok
    if kind == "num":
        return Operand("num", text, pos, int(text.lstrip("#")))
    if kind == "sreg":
        return Operand("reg", text, pos, reg=text)
    if kind == "name":
        reg = register(text)
        return Operand("name", text, pos) if reg is None else Operand("reg", text, pos, reg=reg)
    raise CellError(pos, f"expected an operand of '{m}', found '{text}'")


#: a branch target written as an offset in bytes from the branch (AArch64's ``.+8``)
_OFFSET = re.compile(r"\.[-+][0-9]+")
#: the bytes of one instruction, for branch offsets
INSTRUCTION_BYTES = 4


def branch_offset(target: str) -> int | None:
    """The bytes of a branch target ``.+8`` (8; ``.-8``: -8), None for a label."""
    return int(target[1:]) if _OFFSET.fullmatch(target) is not None else None


def offset_targets(code: tuple[CodeItem, ...]) -> dict[int, int]:
    """Per item of ``code`` that is a branch to an offset, the number of the instruction
    it jumps to (instructions counted from 0; the count of instructions: the end);
    a ValueError for an offset that is no whole instruction or leaves the code."""
    index = [0] * len(code)
    n = 0
    for i, item in enumerate(code):
        index[i] = n
        if not isinstance(item, Label):
            n += 1
    out: dict[int, int] = {}
    for i, item in enumerate(code):
        if isinstance(item, Instruction) and isinstance(item.op, ir.Branch):
            off = branch_offset(item.op.target)
            if off is None:
                continue
            k = off // INSTRUCTION_BYTES
            if off % INSTRUCTION_BYTES:
                raise ValueError(
                    f"branch offset '{item.op.target}' is not a multiple of {INSTRUCTION_BYTES}"
                )
            if not 0 <= index[i] + k <= n:
                raise ValueError(f"branch offset '{item.op.target}' leaves the thread's code")
            out[i] = index[i] + k
    return out


def branch_hash_text(ins: Instruction, rename: dict[str, str]) -> str:
    """herd's text of ``ins`` for the hash: a branch's label renamed (its last word)."""
    if isinstance(ins.op, ir.Branch):
        head, _, rest = ins.text.rpartition(ins.op.target)
        return head + rename[ins.op.target] + rest
    return ins.text


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
    sign: bool = False,
) -> Instruction:
    return Instruction(text, m, ir.Load(dst, addr, size, annots, sign=sign))


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
