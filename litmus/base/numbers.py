"""Integers as herdsman reads, computes and prints them: one semantics, one bound.

Values are mathematical integers (no wrap-around at a machine size) of magnitude below
2^64 (:data:`VALUE_LIMIT`): every 64-bit word, signed or unsigned, is one, so every value
herd7 reads (its ``Int64.of_string`` takes decimals up to 2^63 - 1 and hexadecimals up
to ``0xffffffffffffffff``) is read alike.  A literal beyond the bound (or of more than
:data:`MAX_DIGITS` digits) is bad input, and so is a computation whose result leaves it
(``mullw`` or ``r*r`` in a loop, ``1 << 100``): one error, never a silent wrap or a
number too long to print.  Where herd7 would wrap a result to a machine word, herdsman
says it left the bound instead.

:func:`int_op` is the one definition of the integer operations of the IR
(:data:`OP_FUNCTIONS`): the engine computes registers with it and the C
front-end folds constants with it, so that a constant expression means what it means at
run time.
"""

from __future__ import annotations

from collections.abc import Callable

from herdsman.litmus.base import armops, ppcops

#: Register functions an :class:`Op` may use, with their arity.
OP_FUNCTIONS: dict[str, int] = {
    "mov": 1,  # dst <- a
    "add": 2,
    "sub": 2,  # a - b
    "mul": 2,
    "div": 2,  # signed, truncating; division by 0 gives 0 (herd)
    "and": 2,
    "or": 2,
    "xor": 2,
    "nor": 2,
    "neg": 1,
    "shl": 2,
    "shr": 2,  # logical right shift
    "sra": 2,  # arithmetic right shift
    "cmp": 2,  # signed compare: -1 / 0 / 1
    "cmpu": 2,  # unsigned compare
    "mod": 2,  # remainder of div (a - b * div(a, b)); 0 when b is 0
    "eq": 2,  # 1 if a == b else 0 (C's comparison operators)
    "ne": 2,
    "lt": 2,
    "le": 2,
    "gt": 2,
    "ge": 2,
    "not": 1,  # 1 if a == 0 else 0 (C's !)
    "second": 2,  # b (X86 XCHG's new value)
    "conv": 2,  # a converted to a C integer type: b its bits, negative when signed
    "alloc": 3,  # a heap allocation's address: thread a's allocation number b, of c bytes
    "barrier": 2,  # a barrier's state a after one more arrival (see litmus/c/lower_threads)
    "max": 2,  # the greater of a and b, signed (GCC's __sync_fetch_and_max)
    "min": 2,
    "umax": 2,  # unsigned
    "umin": 2,
    "andnot": 2,  # a & ~b (AArch64 LDCLR)
    **armops.ARITIES,  # AArch64's word operations, flags, conditions: litmus.base.armops
}


def convert_code(v: int, code: int) -> int:
    """``v`` converted as the IR's ``conv`` does (``code``: bits, negative when signed)."""
    bits = abs(code)
    if bits == 1:
        return int(v != 0)
    return armops.word(v, bits, code < 0)


#: Every value's magnitude is below this: 2^64.
VALUE_LIMIT = 1 << 64
#: The most digits a literal may have (2^64 has 20 decimal digits); leading zeros count
#: as written, so that no text of thousands of digits is ever converted.
MAX_DIGITS = 64
#: What an error says of a value beyond the bound.
BOUND = "herdsman's integers are below 2^64 in magnitude"

_MASK64 = VALUE_LIMIT - 1


class ValueOutOfRange(ArithmeticError):
    """A literal or a computed value beyond :data:`VALUE_LIMIT` (its message says which)."""


def in_range(v: int) -> bool:
    return -VALUE_LIMIT < v < VALUE_LIMIT


def checked(v: int) -> int:
    """``v``, or :class:`ValueOutOfRange` when it is beyond the bound."""
    if -VALUE_LIMIT < v < VALUE_LIMIT:
        return v
    raise ValueOutOfRange(f"a value beyond the bound ({BOUND})")


def parse_literal(text: str) -> int:
    """The integer written ``text``: decimal with an optional sign, or hexadecimal after
    ``0x``/``0X`` (after an optional ``-``); :class:`ValueOutOfRange` beyond the bound,
    ``ValueError`` when it is not an integer at all."""
    body = text[1:] if text[:1] in "+-" else text
    hexa = body[:2] in ("0x", "0X")
    digits = body[2:] if hexa else body
    if len(digits) > MAX_DIGITS:
        raise ValueOutOfRange(f"integer literal of {len(digits)} digits ({BOUND})")
    v = int(digits, 16 if hexa else 10)
    v = -v if text[:1] == "-" else v
    if -VALUE_LIMIT < v < VALUE_LIMIT:
        return v
    raise ValueOutOfRange(f"integer literal beyond the bound ({BOUND})")


def parse_c_literal(text: str) -> int:
    """The C integer constant ``text`` (decimal, ``0x`` hexadecimal, ``0b`` binary or
    ``0`` octal, any ``u``/``l`` suffix): as :func:`parse_literal`."""
    s = text.rstrip("uUlL")
    low = s.lower()
    base, digits = 10, s
    if low.startswith(("0x", "0b")):
        base, digits = (16 if low[1] == "x" else 2), s[2:]
    elif len(s) > 1 and s.startswith("0"):
        base, digits = 8, s[1:]
    if len(digits) > MAX_DIGITS:
        raise ValueOutOfRange(f"integer constant of {len(digits)} digits ({BOUND})")
    v = int(digits, base)
    if v < VALUE_LIMIT:
        return v
    raise ValueOutOfRange(f"integer constant beyond the bound ({BOUND})")


def small_index(digits: str, limit: int) -> int | None:
    """The number ``digits`` (a thread or register number, a count) when below ``limit``,
    else None, without converting a text of thousands of digits."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(limit)):
        return None
    n = int(digits)
    return n if n < limit else None


def _div(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _shl(a: int, b: int) -> int:
    if not 0 <= b < 64:
        raise ValueOutOfRange(f"a shift by {b} (herdsman shifts by 0 to 63)")
    return a << b


def _shift_right(a: int, b: int, logical: bool) -> int:
    if not 0 <= b < 64:
        raise ValueOutOfRange(f"a shift by {b} (herdsman shifts by 0 to 63)")
    return ((a & _MASK64) if logical else a) >> b


#: The integer operations by name (:data:`OP_FUNCTIONS`'s, less ``mov`` and
#: ``second``); one-argument ones ignore their second argument.
_OPS: dict[str, Callable[[int, int], int]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": _div,
    "mod": lambda a, b: a - b * _div(a, b) if b else 0,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "nor": lambda a, b: ~(a | b),
    "neg": lambda a, b: -a,
    "not": lambda a, b: int(a == 0),
    "shl": _shl,
    "shr": lambda a, b: _shift_right(a, b, True),
    "sra": lambda a, b: _shift_right(a, b, False),
    "cmp": lambda a, b: (a > b) - (a < b),
    "max": lambda a, b: max(a, b),
    "min": lambda a, b: min(a, b),
    "umax": lambda a, b: max(a, b, key=lambda v: v & _MASK64),
    "umin": lambda a, b: min(a, b, key=lambda v: v & _MASK64),
    "andnot": lambda a, b: a & ~b,
    "cmpu": lambda a, b: ((a & _MASK64) > (b & _MASK64)) - ((a & _MASK64) < (b & _MASK64)),
    "eq": lambda a, b: int(a == b),
    "ne": lambda a, b: int(a != b),
    "lt": lambda a, b: int(a < b),
    "le": lambda a, b: int(a <= b),
    "gt": lambda a, b: int(a > b),
    "ge": lambda a, b: int(a >= b),
    **armops.OPS,  # AArch64's word operations, flags and conditions (``add.w``...)
}


def int_op(fn: str, a: int, b: int = 0) -> int:
    """``fn(a, b)`` on integers within the bound (``b`` is ignored by one-argument
    functions): C's truncating division (by 0: 0, as herd), shifts by 0 to 63 (``shr``
    logical on the 64-bit word); :class:`ValueOutOfRange` when the result leaves the
    bound or the shift count is out of range, ``KeyError`` for a name that is no
    integer operation."""
    f = _OPS.get(fn)
    if f is None:
        f = armops.shifted(fn)  # AArch64's shifted operands: ``add.lsl2.x``
        if f is None:
            f = ppcops.rotate(fn)  # PPC's rotate-and-mask: ``rlwinm.5.0.31``
        if f is None:
            raise KeyError(fn)
        if len(_OPS) < 4096:
            _OPS[fn] = f
    r = f(a, b)
    if -VALUE_LIMIT < r < VALUE_LIMIT:
        return r
    raise ValueOutOfRange(f"'{fn}' gives a value beyond the bound ({BOUND})")
