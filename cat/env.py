"""Environments of the cat evaluator: lazy ``let`` bindings, failed bindings, scopes.

herd's bindings are lazy: a :class:`Lazy` is evaluated on first use (and remembers an
error it raised), an :class:`ErrorValue` stands for a binding whose evaluation failed,
and :func:`force` turns either into its value.  An :class:`Env` maps names to them or to
values, with the model's tags and enums beside.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from herdsman.cat.errors import CatError


class Lazy:
    """A ``let`` binding evaluated on first use (herd's bindings are lazy)."""

    __slots__ = ("fn", "state", "value")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.state = 0
        self.value: Any = None

    def force(self) -> Any:
        st = self.state
        if st == 2:
            return self.value
        if st == 3:
            raise self.value
        if st == 1:
            raise CatError(None, "a definition refers to itself (use let rec)")
        self.state = 1
        try:
            v = self.fn()
        except CatError as e:
            self.state = 3
            self.value = e
            raise
        except BaseException:
            self.state = 0
            raise
        self.state = 2
        self.value = v
        self.fn = None
        return v


class ErrorValue:
    """A binding whose evaluation failed; raises when used."""

    __slots__ = ("error",)

    def __init__(self, error: CatError) -> None:
        self.error = error


class Env:
    """Bindings (name -> value or :class:`Lazy`), tags (tag -> enum), enums (enum -> tags)."""

    __slots__ = ("vals", "tags", "enums")

    def __init__(
        self,
        vals: dict[str, Any],
        tags: dict[str, str] | None = None,
        enums: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        self.vals = vals
        self.tags = tags if tags is not None else {}
        self.enums = enums if enums is not None else {}

    def bind(self, updates: dict[str, Any]) -> Env:
        vals = dict(self.vals)
        vals.update(updates)
        return Env(vals, self.tags, self.enums)

    def restrict(self, names: Iterable[str]) -> Env:
        vals = self.vals
        return Env({k: vals[k] for k in names if k in vals}, self.tags, self.enums)


def force(v: Any) -> Any:
    """The value of a binding (evaluating a :class:`Lazy`, raising an :class:`ErrorValue`)."""
    t = type(v)
    if t is Lazy:
        return v.force()
    if t is ErrorValue:
        raise v.error
    return v
