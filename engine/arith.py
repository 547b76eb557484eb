"""Register arithmetic of the IR on values: integers and addresses (symbol + offset).

``apply_op`` computes the functions of ``litmus.ir.OP_FUNCTIONS``; addresses allow only
what herd allows on its symbolic constants (offsets, differences, comparisons), anything
else is an :class:`EvalError` the engine reports as bad input.
"""

from __future__ import annotations

from herdsman.litmus.ir import Sym, Value

_MASK64 = (1 << 64) - 1


class EvalError(Exception):
    """A register computation herd cannot perform (e.g. arithmetic on addresses)."""


def loc_name(a: Value) -> str:
    """The memory location an address denotes (``x``, or ``x+4`` with an offset)."""
    assert isinstance(a, Sym)
    return str(a)


def _signed(v: int) -> int:
    v &= _MASK64
    return v - (1 << 64) if v >> 63 else v


def cmp_key(v: Value) -> tuple:
    return (0, v, "", 0) if isinstance(v, int) else (1, 0, v.name, v.offset)


def apply_op(fn: str, args: list[Value]) -> Value:
    """Value of ``fn(args)`` (see ``litmus.ir.OP_FUNCTIONS``); addresses allow only
    offsets, differences and comparisons (as herd's symbolic constants)."""
    a = args[0]
    b = args[1] if len(args) > 1 else 0
    if fn == "mov":
        return a
    if fn == "second":
        return b
    if isinstance(a, Sym) or isinstance(b, Sym):
        if fn == "add" and isinstance(a, Sym) and isinstance(b, int):
            return Sym(a.name, a.offset + b)
        if fn == "add" and isinstance(b, Sym) and isinstance(a, int):
            return Sym(b.name, b.offset + a)
        if fn == "sub" and isinstance(a, Sym) and isinstance(b, int):
            return Sym(a.name, a.offset - b)
        if fn in ("sub", "xor") and isinstance(a, Sym) and isinstance(b, Sym) and a.name == b.name:
            return a.offset - b.offset if fn == "sub" else (0 if a == b else _sym_error(fn, a, b))
        if fn in ("cmp", "cmpu"):
            ka, kb = cmp_key(a), cmp_key(b)
            return (ka > kb) - (ka < kb)
        if fn in ("and", "or") and a == b:
            return a
        return _sym_error(fn, a, b)
    if fn == "add":
        return a + b
    if fn == "sub":
        return a - b
    if fn == "mul":
        return a * b
    if fn == "div":
        if b == 0:
            return 0
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if fn == "and":
        return a & b
    if fn == "or":
        return a | b
    if fn == "xor":
        return a ^ b
    if fn == "nor":
        return ~(a | b)
    if fn == "neg":
        return -a
    if fn == "shl":
        return _signed(a << (b & 63))
    if fn == "shr":
        return _signed((a & _MASK64) >> (b & 63))
    if fn == "sra":
        return a >> (b & 63)
    if fn == "cmp":
        return (a > b) - (a < b)
    if fn == "cmpu":
        ua, ub = a & _MASK64, b & _MASK64
        return (ua > ub) - (ua < ub)
    raise EvalError(f"unknown register operation '{fn}'")


def _sym_error(fn: str, a: Value, b: Value) -> Value:
    raise EvalError(f"operation '{fn}' on address {a} and {b}")


def branch_taken(cond: str | None, c: Value) -> bool:
    """Whether a branch on condition ``cond`` is taken when its register holds ``c``
    (a compare result: negative, zero or positive)."""
    if cond is None:
        return True
    if isinstance(c, Sym):
        raise EvalError(f"branch on an address ({c})")
    if cond == "eq":
        return c == 0
    if cond == "ne":
        return c != 0
    if cond == "lt":
        return c < 0
    if cond == "gt":
        return c > 0
    if cond == "le":
        return c <= 0
    if cond == "ge":
        return c >= 0
    raise EvalError(f"unknown branch condition '{cond}'")
