"""Relations over many events (a long thread: hundreds to thousands of events) moved by
bytes: the conversions of :class:`graphs.relalg.Universe` whose bit-by-bit loops cost
the size of the whole relation once per bit.

A relation over ``n`` events of row stride ``cap`` is an int of ``n * cap`` bits; when
``cap`` is a multiple of 8, row i is the bytes ``[i * cap/8, (i + 1) * cap/8)`` of its
little-endian bytes, and column j is bit ``j % 8`` of every ``cap/8``-th byte from byte
``j // 8``.  Each function below converts once between the int and its bytes (C speed,
linear in the relation's size) and works on slices, so that a column, a spread set or a
product costs that size once, whatever the number of pairs.
"""

from __future__ import annotations

#: byte -> its bit k as the ASCII digit '0' or '1', for k = 0..7.
_BIT_DIGITS = tuple(bytes(48 + ((b >> k) & 1) for b in range(256)) for k in range(8))
#: ASCII '0'/'1' -> byte 0/1.
_DIGIT_BYTES = bytes.maketrans(b"01", b"\x00\x01")


def wide(n: int, cap: int) -> bool:
    """Whether relations of ``n`` events and stride ``cap`` are handled here."""
    return cap % 8 == 0 and n > 0


def column(r: int, j: int, n: int, cap: int) -> int:
    """The events i with bit ``i * cap + j`` of ``r`` set (column j, as an event set)."""
    if not r:
        return 0
    step = cap >> 3
    data = r.to_bytes(n * step, "little")
    digits = data[j >> 3 :: step].translate(_BIT_DIGITS[j & 7])
    return int(digits[::-1], 2)


def unspread(c: int, n: int, cap: int) -> int:
    """The events i with bit ``i * cap`` of ``c`` set (``c`` within column 0)."""
    return column(c, 0, n, cap)


def spread(s: int, n: int, cap: int) -> int:
    """Bit ``i * cap`` for each event i of ``s``."""
    if not s:
        return 0
    step = cap >> 3
    out = bytearray(n * step)
    out[::step] = format(s, "b").zfill(n)[::-1].encode("ascii").translate(_DIGIT_BYTES)
    return int.from_bytes(out, "little")


def product(s1: int, s2: int, n: int, cap: int) -> int:
    """The relation s1 × s2: row i is ``s2`` for each i of ``s1``."""
    if not s1 or not s2:
        return 0
    step = cap >> 3
    row = s2.to_bytes(step, "little")
    out = bytearray(n * step)
    i = 0
    for digit in format(s1, "b")[::-1]:
        if digit == "1":
            out[i : i + step] = row
        i += step
    return int.from_bytes(out, "little")


def reach_to(inverse: bytes, e: int, within: int, n: int, cap: int) -> int:
    """The events of ``within`` from which a relation restricted to ``within`` leads to
    ``e`` in one or more steps (column e of its closure), given the bytes of its inverse
    (:func:`rows`): a search backwards from ``e``, a row per event it reaches, where the
    closure costs the relation's size once per event."""
    return _search(inverse, e, within, cap >> 3, n)  # event n: none, all of them


def rows(r: int, n: int, cap: int) -> bytes:
    """The bytes of the relation ``r`` (row i: bytes ``[i * cap/8, (i + 1) * cap/8)``)."""
    return r.to_bytes(n * (cap >> 3), "little")


def on_cycle(r: int, e: int, n: int, cap: int) -> bool:
    """Whether ``r`` leads from ``e`` back to ``e`` (a search forwards from ``e``, linear in
    the relation's size)."""
    return bool((_search(rows(r, n, cap), e, -1, cap >> 3, e) >> e) & 1)


def _search(data: bytes, e: int, within: int, step: int, stop: int) -> int:
    """The events of ``within`` the relation of bytes ``data`` (rows of ``step`` bytes)
    leads to from ``e`` in one or more steps, all of them or as far as finding the event
    ``stop``."""
    seen = 0
    frontier = int.from_bytes(data[e * step : (e + 1) * step], "little") & within
    while frontier:
        seen |= frontier
        if (frontier >> stop) & 1:
            break
        nxt = 0
        while frontier:
            low = frontier & -frontier
            i = low.bit_length() - 1
            nxt |= int.from_bytes(data[i * step : (i + 1) * step], "little")
            frontier ^= low
        frontier = nxt & within & ~seen
    return seen
