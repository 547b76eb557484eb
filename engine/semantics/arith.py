"""Register arithmetic of the IR on values: integers, addresses (symbol + offset), and
symbolic values not known yet.

``apply_op`` computes the functions of ``litmus.base.numbers.OP_FUNCTIONS``; addresses allow only
what herd allows on its symbolic constants (offsets, differences, comparisons), anything
else is an :class:`EvalError` the engine reports as bad input.  A read whose value an
explorer has not chosen yet gives a :class:`ReadValue`; operations on it build an
:class:`Expr`, which :func:`evaluate` computes once the read values are known.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeGuard

from herdsman.graphs.symbolic import AnyValue, Expr, ReadValue
from herdsman.litmus.base import armops
from herdsman.litmus.base.ir import BARRIER_FIELD, Sym, Value
from herdsman.litmus.base.numbers import ValueOutOfRange, convert_code, int_op


class EvalError(Exception):
    """A register computation herd cannot perform (e.g. arithmetic on addresses)."""


def is_known(v: object) -> TypeGuard[Value]:
    return not isinstance(v, (ReadValue, Expr))


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
            return apply_op(v.fn, args)
        return Expr(v.fn, tuple(args))
    return v


def heap_name(t: AnyValue, k: AnyValue, size: AnyValue) -> str:
    """The name of thread ``t``'s allocation number ``k`` of ``size`` bytes."""
    if not isinstance(size, int):
        raise EvalError(f"malloc of a size that is an address ({size})")
    return f"heap@t{t}#{k}({size})"


def outside_heap(a: Sym) -> bool:
    """Whether the address ``a`` of a heap allocation lies outside it."""
    name = a.name
    return not 0 <= a.offset < int(name[name.rindex("(") + 1 : -1])


def loc_name(a: Value) -> str:
    """The memory location an address denotes (``x``, or ``x+4`` with an offset)."""
    assert isinstance(a, Sym)
    return str(a)


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
#: Branch conditions: the comparisons with 0, and AArch64's condition codes on NZCV
_BRANCH = {**_COMPARE, **armops.BRANCH_TESTS}


def apply_op(fn: str, args: list[AnyValue]) -> AnyValue:
    """Value of ``fn(args)`` (see ``litmus.base.numbers.OP_FUNCTIONS``); symbolic when an argument
    is; addresses allow only offsets, differences and comparisons (as herd's symbolic
    constants)."""
    a = args[0]
    b = args[1] if len(args) > 1 else 0
    if fn == "mov":
        return a
    if fn == "second":
        return b
    if fn == "alloc":
        if not all(is_known(x) for x in args):
            return Expr(fn, tuple(args))
        return Sym(heap_name(*args))
    if fn in armops.TERNARY:  # AArch64 long multiplications
        if not all(is_known(x) for x in args):
            return Expr(fn, tuple(args))
        if not all(type(x) is int for x in args):
            raise EvalError(f"'{fn}' of an address")
        x, y, z = args
        assert isinstance(x, int) and isinstance(y, int) and isinstance(z, int)
        return armops.TERNARY[fn](x, y, z)
    if not (is_known(a) and is_known(b)):
        return Expr(fn, tuple(args))
    assert not isinstance(a, (ReadValue, Expr)) and not isinstance(b, (ReadValue, Expr))
    if fn == "conv":
        assert isinstance(b, int), "a conversion's code is an integer"
        return convert(a, b)
    if fn == "barrier":
        return barrier_arrive(a)
    if isinstance(a, Sym) or isinstance(b, Sym):
        return _on_addresses(fn, a, b)
    assert isinstance(a, int) and isinstance(b, int)
    try:
        return int_op(fn, a, b)
    except ValueOutOfRange as e:
        raise EvalError(str(e)) from None
    except KeyError:
        raise EvalError(f"unknown register operation '{fn}'") from None


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
    if fn.startswith("nzcv.sub"):  # AArch64's CMP of addresses
        ka, kb = cmp_key(a), cmp_key(b)
        return armops.address_flags((ka > kb) - (ka < kb))
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
    test = _BRANCH.get(cond)
    if test is None:
        raise EvalError(f"unknown branch condition '{cond}'")
    return test(c)
