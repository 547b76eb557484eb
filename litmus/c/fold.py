"""Integer arithmetic of C at compile time: what an operation of the IR computes when its
operands are known (C's truncating division, division by 0 giving 0; conversions to C's
integer types wrapping), and the constant propagation of straight-line code."""

from __future__ import annotations

from herdsman.litmus.base.ir import Imm, Op, Reg, Sym, Value
from herdsman.litmus.base.numbers import ValueOutOfRange, convert_code, int_op
from herdsman.litmus.c.ctype import CType


def fold(fn: str, a: int, b: int) -> int:
    """``fn(a, b)`` on integers, as the program computes it at run time
    (:func:`litmus.base.numbers.int_op`: C's truncating division, division by 0 giving
    0, bounded values: :class:`~litmus.base.numbers.ValueOutOfRange` beyond the bound)."""
    return int_op(fn, a, b)


def convert_int(v: int, t: CType) -> int:
    """``v`` converted to integer type ``t`` (wrapping; unbounded types keep it)."""
    if t.kind != "int" or not t.bits:
        return v
    return convert_code(v, -t.bits if t.signed and t.bits > 1 else t.bits)


_FOLDABLE = frozenset(
    {"add", "sub", "mul", "div", "mod", "and", "or", "xor", "shl", "sra"}
    | {"eq", "ne", "lt", "le", "gt", "ge"}
)


def op_value(op: Op, known: dict[str, Value]) -> Value | None:
    """The value ``op`` computes when its operands are known (else None)."""
    args: list[Value] = []
    for a in op.args:
        if isinstance(a, Imm):
            args.append(a.value)
        elif isinstance(a, Reg) and a.name in known:
            args.append(known[a.name])
        else:
            return None
    fn = op.fn
    if fn == "mov":
        return args[0]
    if op.sets_cr:
        return None
    if fn == "conv" and isinstance(args[0], int) and isinstance(args[1], int):
        return convert_code(args[0], args[1])
    if fn == "neg" and isinstance(args[0], int):
        return -args[0]
    if fn == "not" and isinstance(args[0], int):
        return int(args[0] == 0)
    if fn in _FOLDABLE and len(args) == 2:
        x, y = args
        if isinstance(x, int) and isinstance(y, int):
            try:
                return fold(fn, x, y)
            except ValueOutOfRange:  # left to the run, which reports it at the operation
                return None
        if isinstance(x, Sym) and isinstance(y, int) and fn in ("add", "sub"):
            return Sym(x.name, x.offset + (y if fn == "add" else -y))
    return None
