"""Values not known yet: the value of a read an explorer has not chosen, and
expressions over such values.

An event's value (a write's, a read-modify-write's) may stay symbolic while an explorer
fetches a thread's later events before committing the reads it comes from;
:mod:`engine.semantics.arith` computes with them and evaluates them once the reads are
known.
"""

from __future__ import annotations

from dataclasses import dataclass

from herdsman.litmus.base.ir import Value


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
#: A register's or an event's value: known, or symbolic.
AnyValue = Value | ReadValue | Expr
