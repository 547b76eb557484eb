"""AArch64's register arithmetic as herd computes it: operations on 32- or 64-bit words
(results wrapped to the word and read as signed, as herd prints them), the flags
``NZCV`` that ``ADDS``/``SUBS``/``ANDS``/``BICS`` set (N bit 3, Z bit 2, C bit 1, V bit 0:
the Arm ARM's ``AddWithCarry``), and the condition codes read from them
(``herd/AArch64Sem.ml``'s ``tr_cond``).

Their names are IR register functions (``litmus.base.numbers.OP_FUNCTIONS``): ``add.w`` is a
32-bit addition, ``nzcv.sub.x`` the flags of a 64-bit subtraction, ``cset.eq`` 1 when
the flags say EQ (else 0), ``movk16.w`` inserts a 16-bit immediate at bit 16.  A branch
on a condition code is an IR branch whose condition is ``nzcv.<cond>``
(:data:`BRANCH_TESTS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
WIDTHS = {"w": 32, "x": 64}


def word(v: int, bits: int, signed_: bool) -> int:
    """``v`` wrapped to a word of ``bits`` bits, read as signed or not (the one wrapping
    of the IR's conversions, herd's typed values and these operations)."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed_ and v >> (bits - 1) else v


def signed(v: int, bits: int) -> int:
    """``v`` wrapped to a word of ``bits`` bits, read as signed."""
    return word(v, bits, True)


def _shift(k: int, bits: int) -> int:
    return k & (bits - 1)


def add_with_carry(a: int, b: int, carry: int, bits: int) -> tuple[int, int]:
    """(result, NZCV) of ``a + b + carry`` on ``bits``-bit words (the Arm ARM's)."""
    mask = (1 << bits) - 1
    ua, ub = a & mask, b & mask
    total = ua + ub + carry
    res = total & mask
    n = res >> (bits - 1)
    z = int(res == 0)
    c = int(total > mask)
    sa, sb = signed(ua, bits), signed(ub, bits)
    v = int(signed(res, bits) != sa + sb + carry)
    return signed(res, bits), (n << 3) | (z << 2) | (c << 1) | v


def logic_flags(res: int, bits: int) -> int:
    """NZCV of a logical operation (``ANDS``, ``BICS``): N and Z of the result."""
    res &= (1 << bits) - 1
    return ((res >> (bits - 1)) << 3) | (int(res == 0) << 2)


def _binary(bits: int) -> dict[str, Callable[[int, int], int]]:
    """The operations on ``bits``-bit words."""

    def w(v: int) -> int:
        return signed(v, bits)

    mask = (1 << bits) - 1
    return {
        "add": lambda a, b: w(a + b),
        "sub": lambda a, b: w(a - b),
        "and": lambda a, b: w(a & b),
        "or": lambda a, b: w(a | b),
        "xor": lambda a, b: w(a ^ b),
        "bic": lambda a, b: w(a & ~b),
        "orn": lambda a, b: w(a | ~b),
        "mov": lambda a, b: w(a),
        "neg": lambda a, b: w(-a),
        # LDSMAX/LDSMIN: the signed words compared (herd sign-extends both first)
        "max": lambda a, b: max(w(a), w(b)),
        "min": lambda a, b: min(w(a), w(b)),
        "lsl": lambda a, b: w(a << _shift(b, bits)),
        "lsr": lambda a, b: w((a & mask) >> _shift(b, bits)),
        "asr": lambda a, b: w(signed(a, bits) >> _shift(b, bits)),
        "ror": lambda a, b: w(_ror(a & mask, _shift(b, bits), bits)),
        **{f"movk{s}": _movk(s, bits) for s in range(0, bits, 16)},
        "abs": lambda a, b: w(abs(signed(a, bits))),
        "rbit": lambda a, b: w(int(format(a & mask, f"0{bits}b")[::-1], 2)),
        "rev": lambda a, b: w(_rev(a & mask, bits, bits)),
        "rev16": lambda a, b: w(_rev(a & mask, 16, bits)),
        "rev32": lambda a, b: w(_rev(a & mask, 32, bits)),
        "nzcv.add": lambda a, b: add_with_carry(a, b, 0, bits)[1],
        "nzcv.sub": lambda a, b: add_with_carry(a, ~b, 1, bits)[1],
        "nzcv.and": lambda a, b: logic_flags(a & b, bits),
        "nzcv.bic": lambda a, b: logic_flags(a & ~b, bits),
    }


def _movk(s: int, bits: int) -> Callable[[int, int], int]:
    """``MOVK``'s insertion of a 16-bit immediate at bit ``s`` of a ``bits``-bit word."""
    return lambda a, b: signed((a & ~(0xFFFF << s)) | ((b & 0xFFFF) << s), bits)


def _rev(v: int, container: int, bits: int) -> int:
    """``v``'s bytes reversed in each ``container``-bit part of a ``bits``-bit word
    (``REV``, ``REV16``, ``REV32``)."""
    out = 0
    for at in range(0, bits, container):
        part = (v >> at) & ((1 << container) - 1)
        out |= int.from_bytes(part.to_bytes(container // 8, "little"), "big") << at
    return out


def _ror(v: int, k: int, bits: int) -> int:
    return ((v >> k) | (v << (bits - k))) & ((1 << bits) - 1) if k else v


def _bit(k: int) -> Callable[[int], int]:
    return lambda f: (f >> k) & 1


_N, _Z, _C, _V = _bit(3), _bit(2), _bit(1), _bit(0)

#: The condition codes: whether each holds of the flags (the Arm ARM's ``ConditionHolds``).
CONDITIONS: dict[str, Callable[[int], bool]] = {
    "EQ": lambda f: _Z(f) == 1,
    "NE": lambda f: _Z(f) == 0,
    "CS": lambda f: _C(f) == 1,
    "CC": lambda f: _C(f) == 0,
    "MI": lambda f: _N(f) == 1,
    "PL": lambda f: _N(f) == 0,
    "VS": lambda f: _V(f) == 1,
    "VC": lambda f: _V(f) == 0,
    "HI": lambda f: _C(f) == 1 and _Z(f) == 0,
    "LS": lambda f: _C(f) == 0 or _Z(f) == 1,
    "GE": lambda f: _N(f) == _V(f),
    "LT": lambda f: _N(f) != _V(f),
    "GT": lambda f: _Z(f) == 0 and _N(f) == _V(f),
    "LE": lambda f: _Z(f) == 1 or _N(f) != _V(f),
    "AL": lambda f: True,
}
#: Each condition code and its inverse.
INVERSE = {
    **{a: b for a, b in (("EQ", "NE"), ("CS", "CC"), ("MI", "PL"), ("VS", "VC"))},
    **{a: b for a, b in (("HI", "LS"), ("GE", "LT"), ("GT", "LE"))},
}
INVERSE.update({b: a for a, b in list(INVERSE.items())})


def _tables() -> dict[str, Callable[[int, int], int]]:
    out: dict[str, Callable[[int, int], int]] = {}
    for v, bits in WIDTHS.items():
        for name, fn in _binary(bits).items():
            out[f"{name}.{v}"] = fn
    for cond, test in CONDITIONS.items():
        out[f"cset.{cond.lower()}"] = _cset(test, 1)
        out[f"csetm.{cond.lower()}"] = _cset(test, -1)
    return out


def _cset(test: Callable[[int], bool], one: int) -> Callable[[int, int], int]:
    """``CSET`` (``one`` 1) or ``CSETM`` (-1) of a condition: ``one`` when it holds."""
    return lambda f, b: one if test(f) else 0


def _bit_test(k: int, value: int) -> Callable[[int], bool]:
    """Whether bit ``k`` of a register is ``value``."""
    return lambda v: (v >> k) & 1 == value


#: The register functions of one argument (they ignore their second).
_UNARY = ("mov", "neg", "cset", "csetm", "abs", "rbit", "rev", "rev16", "rev32")
#: The register functions, by IR name, each of two arguments (one-argument ones ignore
#: their second: ``mov``, ``neg``, ``cset``...).
OPS: dict[str, Callable[[int, int], int]] = _tables()
#: Their arities, for ``OP_FUNCTIONS``.
ARITIES: dict[str, int] = {k: 1 if k.split(".")[0] in _UNARY else 2 for k in OPS}


def _mull(signed_: bool, sub: bool) -> Callable[[int, int, int], int]:
    """``SMADDL``... ``Xd,Wn,Wm,Xa``: ``Xa`` plus (minus) the product of the two words,
    sign- (zero-) extended, on 64 bits (herd's ``I_MOPL``)."""

    def f(a: int, b: int, c: int) -> int:
        p = word(a, 32, signed_) * word(b, 32, signed_)
        return signed(c - p if sub else c + p, 64)

    return f


#: The register functions of three arguments: the long multiplications
#: (``smaddl``, ``smsubl``, ``umaddl``, ``umsubl``).
TERNARY: dict[str, Callable[[int, int, int], int]] = {
    f"{s}m{op}l": _mull(s == "s", op == "sub") for s in "su" for op in ("add", "sub")
}
ARITIES.update(dict.fromkeys(TERNARY, 3))
#: Branch conditions: on the flags register, ``nzcv.eq`` ... (see the module docstring);
#: on one bit of a register, ``tbz<k>`` (bit ``k`` clear) and ``tbnz<k>`` (set).
BRANCH_TESTS: dict[str, Callable[[int], bool]] = {
    **{f"nzcv.{c.lower()}": t for c, t in CONDITIONS.items()},
    **{f"tbz{k}": _bit_test(k, 0) for k in range(64)},
    **{f"tbnz{k}": _bit_test(k, 1) for k in range(64)},
}


_SHIFTED = re.compile(r"(.+)\.(lsl|lsr|asr|ror|[su]xt[bhwx])([0-9]+)\.([wx])")
#: the extensions of a register operand: its low bits, signed or not
_EXTENDS = {"b": 8, "h": 16, "w": 32, "x": 64}
_BITFIELD = re.compile(r"([us])bfm\.([0-9]+)\.([0-9]+)\.([wx])")


def bitfield(signed_: bool, immr: int, imms: int, bits: int) -> Callable[[int, int], int]:
    """``UBFM``/``SBFM Rd,Rn,#immr,#imms`` on ``bits``-bit words (the Arm ARM's): with
    ``imms >= immr`` the field ``Rn[imms:immr]`` at bit 0, else ``Rn[imms:0]`` at bit
    ``bits - immr``; zero- or sign-extended from the field's top bit."""
    if imms >= immr:
        width, shift, low = imms - immr + 1, 0, immr
    else:
        width, shift, low = imms + 1, bits - immr, 0

    def f(a: int, b: int) -> int:
        field = (a >> low) & ((1 << width) - 1)
        if signed_ and field >> (width - 1):
            field -= 1 << width
        return signed(field << shift, bits)

    return f


def shifted(name: str) -> Callable[[int, int], int] | None:
    """The function named ``name`` = ``<op>.<shift><k>.<w|x>`` (``add.lsl2.x``: ``add.x``
    of its first argument and its second shifted; ``add.sxtb2.x``: its second's low byte
    sign-extended, shifted left by 2) or ``ubfm.<immr>.<imms>.<w|x>``
    (``sbfm``...), None for another name."""
    b = _BITFIELD.fullmatch(name)
    if b is not None:
        immr, imms, bits = int(b.group(2)), int(b.group(3)), WIDTHS[b.group(4)]
        if immr >= bits or imms >= bits:
            return None
        return bitfield(b.group(1) == "s", immr, imms, bits)
    m = _SHIFTED.fullmatch(name)
    if m is None:
        return None
    base, kind, k, w = m.groups()
    fn, amount = OPS.get(f"{base}.{w}"), int(k)
    if fn is None or amount >= WIDTHS[w]:
        return None
    if kind[1:3] == "xt":  # an extended register (``sxtb``...), then shifted left
        ext, sign, lsl = _EXTENDS[kind[3]], kind[0] == "s", OPS[f"lsl.{w}"]
        return lambda a, b: fn(a, lsl(word(b, ext, sign), amount))
    shift = OPS[f"{kind}.{w}"]
    return lambda a, b: fn(a, shift(b, amount))


def address_flags(c: int) -> int:
    """NZCV of comparing two addresses whose order is ``c`` (-1, 0, 1): equal ones give
    the flags of ``x - x``, others only their order (herd compares symbols so)."""
    if c == 0:
        return 0b0110
    return 0b1000 if c < 0 else 0b0010


__all__ = [
    "ARITIES",
    "BRANCH_TESTS",
    "CONDITIONS",
    "INVERSE",
    "OPS",
    "TERNARY",
    "address_flags",
    "shifted",
    "signed",
    "word",
]
