"""Register arithmetic of the IR on values: integers, addresses (symbol + offset), and
symbolic values not known yet.

``apply_op`` computes the functions of ``litmus.ir.OP_FUNCTIONS``; addresses allow only
what herd allows on its symbolic constants (offsets, differences, comparisons), anything
else is an :class:`EvalError` the engine reports as bad input.  A read whose value an
explorer has not chosen yet gives a :class:`ReadValue`; operations on it build an
:class:`Expr`, which :func:`evaluate` computes once the read values are known.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from herdsman.litmus.base.ir import BARRIER_FIELD, Sym, Value, convert_code

_MASK64 = (1 << 64) - 1


class EvalError(Exception):
    """A register computation herd cannot perform (e.g. arithmetic on addresses)."""


@dataclass(frozen=True, slots=True)
class ReadValue:
    """The value of the read at position ``index`` of its thread, not chosen yet."""

    index: int


@dataclass(frozen=True, slots=True)
class Expr:
    """``fn(args)`` where some argument is not known yet."""

    fn: str
    args: tuple[Value | ReadValue | Expr, ...]


Symbolic = ReadValue | Expr
#: A register's value: known, or symbolic.
AnyValue = Value | ReadValue | Expr


def is_known(v: object) -> bool:
    return not isinstance(v, ReadValue | Expr)


def reads_of(v: AnyValue) -> int:
    """The reads (a mask of thread positions) a symbolic value waits for."""
    if isinstance(v, ReadValue):
        return 1 << v.index
    if isinstance(v, Expr):
        m = 0
        for a in v.args:
            m |= reads_of(a)
        return m
    return 0


def evaluate(v: AnyValue, reads: Mapping[int, Value]) -> AnyValue:
    """``v`` with the read values ``reads`` (thread position -> value) substituted:
    a known value once every read it waits for is there."""
    if isinstance(v, ReadValue):
        return reads.get(v.index, v)
    if isinstance(v, Expr):
        args = [evaluate(a, reads) for a in v.args]
        if all(is_known(a) for a in args):
            return apply_op(v.fn, args)  # type: ignore[arg-type]
        return Expr(v.fn, tuple(args))
    return v


def loc_name(a: Value) -> str:
    """The memory location an address denotes (``x``, or ``x+4`` with an offset)."""
    assert isinstance(a, Sym)
    return str(a)


def _signed(v: int) -> int:
    v &= _MASK64
    return v - (1 << 64) if v >> 63 else v


def cmp_key(v: Value) -> tuple:
    return (0, v, "", 0) if isinstance(v, int) else (1, 0, v.name, v.offset)


_COMPARE = {
    "eq": lambda c: c == 0,
    "ne": lambda c: c != 0,
    "lt": lambda c: c < 0,
    "le": lambda c: c <= 0,
    "gt": lambda c: c > 0,
    "ge": lambda c: c >= 0,
}


_EXTREMES: dict[str, Callable[[int, int], int]] = {
    "max": max,
    "min": min,
    "umax": lambda a, b: max(a, b, key=lambda v: v & _MASK64),
    "umin": lambda a, b: min(a, b, key=lambda v: v & _MASK64),
}


def apply_op(fn: str, args: list[AnyValue]) -> AnyValue:
    """Value of ``fn(args)`` (see ``litmus.ir.OP_FUNCTIONS``); symbolic when an argument
    is; addresses allow only offsets, differences and comparisons (as herd's symbolic
    constants)."""
    a = args[0]
    b = args[1] if len(args) > 1 else 0
    if fn == "mov":
        return a
    if fn == "second":
        return b
    if not (is_known(a) and is_known(b)):
        return Expr(fn, tuple(args))
    if fn == "conv":
        return convert(a, b)  # type: ignore[arg-type]
    if fn == "alloc":
        return Sym(f"heap@t{a}#{b}")
    if fn == "barrier":
        return barrier_arrive(a)  # type: ignore[arg-type]
    if isinstance(a, Sym) or isinstance(b, Sym):
        return _on_addresses(fn, a, b)  # type: ignore[arg-type]
    assert isinstance(a, int) and isinstance(b, int)
    if fn == "add":
        return a + b
    if fn == "sub":
        return a - b
    if fn == "mul":
        return a * b
    if fn == "div":
        return _div(a, b)
    if fn == "mod":
        return a - b * _div(a, b) if b else 0
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
    if fn == "not":
        return int(a == 0)
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
    if fn in _EXTREMES:
        return _EXTREMES[fn](a, b)
    if fn in _COMPARE:
        return int(_COMPARE[fn]((a > b) - (a < b)))
    raise EvalError(f"unknown register operation '{fn}'")


def convert(a: Value, code: int) -> Value:
    """``a`` converted to a C integer type of ``|code|`` bits, signed when ``code`` is
    negative (``_Bool`` for 1: whether ``a`` is not 0); addresses stay addresses."""
    if isinstance(a, Sym):
        return 1 if code == 1 else a
    return convert_code(a, code)


def barrier_arrive(a: Value) -> Value:
    """A barrier's state after one more arrival: one fewer to wait for, or, for the last
    one, the next generation waiting for the count again."""
    if isinstance(a, Sym):
        raise EvalError(f"barrier at {a} holds an address")
    mask = (1 << BARRIER_FIELD) - 1
    waiting, count = a & mask, (a >> BARRIER_FIELD) & mask
    if waiting > 1:
        return a - 1
    gen = (a >> (2 * BARRIER_FIELD)) + 1
    return (gen << (2 * BARRIER_FIELD)) | (count << BARRIER_FIELD) | count


def _div(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _on_addresses(fn: str, a: Value, b: Value) -> Value:
    if fn == "add" and isinstance(a, Sym) and isinstance(b, int):
        return Sym(a.name, a.offset + b)
    if fn == "add" and isinstance(b, Sym) and isinstance(a, int):
        return Sym(b.name, b.offset + a)
    if fn == "sub" and isinstance(a, Sym) and isinstance(b, int):
        return Sym(a.name, a.offset - b)
    if fn in ("sub", "xor") and isinstance(a, Sym) and isinstance(b, Sym) and a.name == b.name:
        return a.offset - b.offset if fn == "sub" else (0 if a == b else _sym_error(fn, a, b))
    if fn in ("cmp", "cmpu") or fn in _COMPARE:
        ka, kb = cmp_key(a), cmp_key(b)
        c = (ka > kb) - (ka < kb)
        return c if fn in ("cmp", "cmpu") else int(_COMPARE[fn](c))
    if fn in ("and", "or") and a == b:
        return a
    return _sym_error(fn, a, b)


def _sym_error(fn: str, a: Value, b: Value) -> Value:
    raise EvalError(f"operation '{fn}' on address {a} and {b}")


def branch_taken(cond: str | None, c: Value) -> bool:
    """Whether a branch on condition ``cond`` is taken when its register holds ``c``
    (compared with 0: a comparison result, or any integer)."""
    if cond is None:
        return True
    if isinstance(c, Sym):
        raise EvalError(f"branch on an address ({c})")
    test = _COMPARE.get(cond)
    if test is None:
        raise EvalError(f"unknown branch condition '{cond}'")
    return test(c)
