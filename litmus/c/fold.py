"""Integer arithmetic of C at compile time: what an operation of the IR computes when its
operands are known (C's truncating division, division by 0 giving 0; conversions to C's
integer types wrapping), and the constant propagation of straight-line code."""

from __future__ import annotations

from herdsman.litmus.base.ir import Imm, Op, Reg, Sym, Value, convert_code
from herdsman.litmus.c.ctype import CType


def fold(fn: str, a: int, b: int) -> int:
    """``fn(a, b)`` on integers (C's truncating division; division by 0 gives 0)."""
    if fn in ("div", "mod"):
        if b == 0:
            return 0
        q = abs(a) // abs(b)
        q = q if (a >= 0) == (b >= 0) else -q
        return q if fn == "div" else a - b * q
    ops = {
        "add": a + b,
        "sub": a - b,
        "mul": a * b,
        "and": a & b,
        "or": a | b,
        "xor": a ^ b,
        "eq": int(a == b),
        "ne": int(a != b),
        "lt": int(a < b),
        "le": int(a <= b),
        "gt": int(a > b),
        "ge": int(a >= b),
    }
    if fn in ops:
        return ops[fn]
    if fn == "shl":
        return a << b if 0 <= b < 128 else 0
    return a >> b if 0 <= b < 128 else (0 if a >= 0 else -1)  # sra


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
            return fold(fn, x, y)
        if isinstance(x, Sym) and isinstance(y, int) and fn in ("add", "sub"):
            return Sym(x.name, x.offset + (y if fn == "add" else -y))
    return None
