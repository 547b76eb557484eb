"""Stronger C11 orders on accesses, the placements ``fences --model rc11`` proposes before
fences: a relaxed store made ``memory_order_release``, a relaxed load made
``memory_order_acquire`` (a read-modify-write either, or both: ``memory_order_acq_rel``).
Each costs less than a fence (:data:`solve.COSTS`) and orders the po edges a fence of
its kind would, from or to its own access only: a release store orders the accesses
before it before it, an acquire load orders it before the accesses after it.

A line can be given an order when it holds exactly one ``atomic_*_explicit`` call
(store, load, exchange, fetch-and-op) and its one order argument is
``memory_order_relaxed``; the order is written into the text on that line (no line
moves)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from herdsman.graphs.events import Event

__all__ = ["ACQUIRE", "ORDER_KINDS", "RELEASE", "ordered_c_text", "original", "orders_of_line"]

#: The kinds of order placement: a release access, an acquire access.
RELEASE = "release access"
ACQUIRE = "acquire access"
ORDER_KINDS = (RELEASE, ACQUIRE)

_CALL = re.compile(r"\batomic_(store|load|exchange|fetch_[a-z]+)_explicit\s*\(")
_RELAXED = re.compile(r"\bmemory_order_relaxed\b")
#: The kinds of order each call may get.
_KINDS = {"store": (RELEASE,), "load": (ACQUIRE,)}


def orders_of_line(line: str) -> tuple[str, ...]:
    """The kinds of order the access on ``line`` (a line of C text) may get."""
    calls = _CALL.findall(line)
    if len(calls) != 1 or len(_RELAXED.findall(line)) != 1:
        return ()
    return _KINDS.get(calls[0], ORDER_KINDS)


def ordered_c_text(text: str, orders: Iterable[tuple[int, str]]) -> str:
    """``text`` with each (line, kind) of ``orders`` written: the relaxed order of the
    access on that line made release, acquire, or both (acq_rel)."""
    by_line: dict[int, set[str]] = {}
    for line, kind in orders:
        by_line.setdefault(line, set()).add(kind)
    lines = text.split("\n")
    for n, kinds in by_line.items():
        order = "acq_rel" if len(kinds) == 2 else "release" if RELEASE in kinds else "acquire"
        lines[n - 1] = _RELAXED.sub(f"memory_order_{order}", lines[n - 1], count=1)
    return "\n".join(lines)


_STRONGER = frozenset({"REL", "ACQ", "ACQ_REL"})


def original(e: Event, line: int, chosen: Mapping[int, set[str]]) -> Event:
    """The access ``e`` (of the program with orders ``chosen``, by line) as the original
    program has it: relaxed where an order was written on its ``line``."""
    if line not in chosen or e.kind not in ("R", "W") or not e.annots & _STRONGER:
        return e
    return e._replace(annots=(e.annots - _STRONGER) | {"RLX"})
