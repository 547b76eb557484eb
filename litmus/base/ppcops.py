"""PPC's rotate-and-mask register arithmetic as herd computes it (``herd/PPCSem.ml``:
``rot32``, ``rot64``, ``mask``): ``rlwinm.<sh>.<mb>.<me>`` is ``rlwinm``'s value of its
first argument, ``rlwimi.<sh>.<mb>.<me>`` ``rlwimi``'s of the register it writes (first)
and the one it rotates (second).  Their names are IR register functions
(``litmus.base.numbers.OP_FUNCTIONS``), resolved by :func:`rotate`.

herd rotates the low word doubled into a 64-bit word by ``n``: the word shifted left by
``n``, or'ed with it shifted right, logically, by ``63 - n`` (herd's count, kept as it
is); the mask has the bits ``mb + 32`` to ``me + 32`` of the 64-bit word, counted from
its most significant bit (``mb > me``: all but the bits between them).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_M64 = (1 << 64) - 1
_ROTATE = re.compile(r"(rlwinm|rlwimi)\.([0-9]+)\.([0-9]+)\.([0-9]+)")


def mask(k1: int, k2: int) -> int:
    """herd's ``mask k1 k2``: bits ``k1``..``k2`` counted from the most significant bit of
    a 64-bit word (``k1 > k2``: every bit but ``k2+1``..``k1-1``)."""
    if k1 <= k2:
        bits = set(range(k1, k2 + 1))
    else:
        bits = set(range(64)) - set(range(k2 + 1, k1))
    return sum(1 << (63 - k) for k in bits)


def rot32(x: int, n: int) -> int:
    """herd's ``rot32``: the low word of ``x`` doubled, rotated by ``n`` as herd does."""
    w = x & 0xFFFFFFFF
    d = w | (w << 32)
    n %= 64
    return ((d << n) | (d >> (63 - n))) & _M64


def _signed64(v: int) -> int:
    return v - (1 << 64) if v >> 63 else v


def rotate(name: str) -> Callable[[int, int], int] | None:
    """The function named ``name`` (see the module docstring), None for another name."""
    r = _ROTATE.fullmatch(name)
    if r is None:
        return None
    sh, mb, me = int(r.group(2)), int(r.group(3)), int(r.group(4))
    if sh > 31 or mb > 31 or me > 31:
        return None
    m = mask(mb + 32, me + 32)
    if r.group(1) == "rlwinm":
        return lambda a, b: _signed64(rot32(a, sh) & m)
    return lambda a, b: _signed64((rot32(b, sh) & m) | (a & ~m & _M64))


__all__ = ["mask", "rot32", "rotate"]
