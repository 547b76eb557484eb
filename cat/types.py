"""The static types of cat values (herd's ``Interpreter`` type names) and their algebra.

Types are small hashable values: ``"set"`` (event set), ``"rel"``, ``"event"``, ``"pair"``,
``"classrel"``, ``"clo"``, ``"proc"``, ``"empty"`` (the polymorphic ``{}``), ``"any"``
(unknown until run time), ``("tag", enum)``, ``("valset", elem)``, ``("tuple", (t1, ...))``.
Both the values of :mod:`cat.values` and the nodes of :mod:`cat.ir` carry them.
"""

from __future__ import annotations

from typing import Any

Type = Any  # str | tuple

SET, REL, EVENT, PAIR, CLASSREL, CLO, PROC, EMPTY_T, ANY = (
    "set",
    "rel",
    "event",
    "pair",
    "classrel",
    "clo",
    "proc",
    "empty",
    "any",
)

#: Types whose values are plain ints in compiled code.
RAW_TYPES = (SET, REL)


def valset_t(elem: Type) -> Type:
    return ("valset", elem)


def tuple_t(items) -> Type:
    return ("tuple", tuple(items))


def tag_t(enum: str) -> Type:
    return ("tag", enum)


def is_valset_t(t: Type) -> bool:
    return isinstance(t, tuple) and t[0] == "valset"


def pp_type(t: Type) -> str:
    """herd's names for types, for error messages."""
    if t == SET:
        return "events"
    if t == EMPTY_T:
        return "{}"
    if t == CLO:
        return "closure"
    if t == PROC:
        return "procedure"
    if isinstance(t, tuple):
        if t[0] == "tag":
            return t[1]
        if t[0] == "valset":
            return f"{pp_type(t[1])} set"
        if t[0] == "tuple":
            return "(" + " * ".join(pp_type(x) for x in t[1]) + ")"
    return str(t)


def join_types(t1: Type, t2: Type) -> Type | None:
    """The common type of two values (``{}`` joins anything set-like); None if none."""
    if t1 == t2:
        return t1
    if t1 == EMPTY_T and (t2 in (SET, REL, CLASSREL) or is_valset_t(t2)):
        return t2
    if t2 == EMPTY_T and (t1 in (SET, REL, CLASSREL) or is_valset_t(t1)):
        return t1
    if t1 == ANY:
        return t2 if t2 != EMPTY_T else ANY
    if t2 == ANY:
        return t1 if t1 != EMPTY_T else ANY
    if is_valset_t(t1) and is_valset_t(t2):
        e = join_types(t1[1], t2[1])
        return None if e is None else valset_t(e)
    if isinstance(t1, tuple) and isinstance(t2, tuple) and t1[0] == t2[0] == "tuple":
        if len(t1[1]) != len(t2[1]):
            return None
        items = [join_types(a, b) for a, b in zip(t1[1], t2[1], strict=True)]
        return None if any(x is None for x in items) else tuple_t(items)
    return None
