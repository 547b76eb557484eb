"""Run-time values of the cat language (herd's ``Interpreter.V``) and their types.

Event sets and relations are ints in :mod:`graphs.relalg`'s encoding, wrapped here as
:class:`VSet`/:class:`VRel` so that the generic evaluator can tell them apart; the compiled
fast path (``cat.codegen``) uses the bare ints when the type is known statically.  The
types themselves are :mod:`cat.types`'.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from herdsman.cat.ir import Node
from herdsman.cat.types import (
    CLASSREL,
    CLO,
    EMPTY_T,
    EVENT,
    PAIR,
    PROC,
    REL,
    SET,
    Type,
    tag_t,
    tuple_t,
    valset_t,
)
from herdsman.graphs.relalg import bits

# ----------------------------------------------------------------------------- values


class _Singleton:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self):  # pragma: no cover - singletons survive copies
        return self._name


#: The polymorphic empty set ``{}`` and universe ``_``.
EMPTY = _Singleton("EMPTY")
UNV = _Singleton("UNV")


@dataclass(frozen=True, slots=True)
class VSet:
    """An event set (bits)."""

    bits: int


@dataclass(frozen=True, slots=True)
class VRel:
    """A relation over events (relalg encoding)."""

    bits: int


@dataclass(frozen=True, slots=True)
class VEvent:
    e: int


@dataclass(frozen=True, slots=True)
class VPair:
    a: int
    b: int


@dataclass(frozen=True, slots=True)
class VTag:
    enum: str
    name: str


@dataclass(frozen=True, slots=True)
class VValSet:
    """A homogeneous set of values (tags, event sets, relations, tuples...)."""

    elem: Type
    items: frozenset


@dataclass(frozen=True, slots=True)
class VTuple:
    items: tuple


@dataclass(frozen=True, slots=True)
class VClassRel:
    """A relation over event classes (pairs of event-set ints), from ``lift``."""

    pairs: frozenset


_uid = itertools.count(1)


class Closure:
    """``fun pat -> body`` with its captured environment (free variables only)."""

    __slots__ = ("pat", "body", "env", "name", "uid", "pos")

    def __init__(self, pat, body, env, name: str, pos) -> None:
        self.pat = pat
        self.body = body
        self.env = env
        self.name = name
        self.uid = next(_uid)
        self.pos = pos

    def __repr__(self) -> str:
        return f"<closure {self.name}_{self.uid}>"


class Prim:
    """A primitive function (``domain``, ``linearisations``...)."""

    __slots__ = ("name", "uid")

    def __init__(self, name: str) -> None:
        self.name = name
        self.uid = next(_uid)

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


class Proc:
    """A procedure: parameters, body instructions, environment."""

    __slots__ = ("pat", "body", "env", "name", "pos")

    def __init__(self, pat, body, env, name: str, pos) -> None:
        self.pat = pat
        self.body = body
        self.env = env
        self.name = name
        self.pos = pos

    def __repr__(self) -> str:
        return f"<procedure {self.name}>"


def type_of(v) -> Type:
    """The type of a concrete value."""
    if v is EMPTY:
        return EMPTY_T
    cls = type(v)
    if cls is VSet:
        return SET
    if cls is VRel:
        return REL
    if cls is VEvent:
        return EVENT
    if cls is VPair:
        return PAIR
    if cls is VTag:
        return tag_t(v.enum)
    if cls is VValSet:
        return valset_t(v.elem)
    if cls is VTuple:
        return tuple_t(type_of(x) for x in v.items)
    if cls is VClassRel:
        return CLASSREL
    if cls is Closure or cls is Prim:
        return CLO
    if cls is Proc:
        return PROC
    if v is UNV:
        return "universe"
    if cls is Node:  # a symbolic value carries its type
        return v.type
    raise TypeError(f"not a cat value: {v!r}")


def sort_key(v) -> tuple:
    """A total order on values of one type (herd iterates its sets in order)."""
    cls = type(v)
    if cls is VTag:
        return (0, v.name)
    if cls is VSet or cls is VRel:
        return (1, v.bits)
    if cls is VEvent:
        return (2, v.e)
    if cls is VPair:
        return (3, v.a, v.b)
    if cls is VValSet:
        return (4, tuple(sorted(sort_key(x) for x in v.items)))
    if cls is VTuple:
        return (5, tuple(sort_key(x) for x in v.items))
    if cls is VClassRel:
        return (6, tuple(sorted(v.pairs)))
    if cls is Closure or cls is Prim:
        return (7, v.uid)
    if v is EMPTY:
        return (-1,)
    return (8, id(v))


def sorted_items(s: VValSet) -> list:
    return sorted(s.items, key=sort_key)


def pp_value(v, names=None) -> str:
    """Readable rendering (``debug`` instruction, error messages)."""
    if v is EMPTY:
        return "{}"
    if v is UNV:
        return "_"
    cls = type(v)
    nm = (lambda e: names[e]) if names else str
    if cls is VSet:
        return "{" + ",".join(nm(e) for e in bits(v.bits)) + "}"
    if cls is VRel:
        return f"<rel {v.bits:#x}>"
    if cls is VEvent:
        return nm(v.e)
    if cls is VPair:
        return f"({nm(v.a)},{nm(v.b)})"
    if cls is VTag:
        return "'" + v.name
    if cls is VValSet:
        return "{" + ",".join(pp_value(x, names) for x in sorted_items(v)) + "}"
    if cls is VTuple:
        return "(" + ",".join(pp_value(x, names) for x in v.items) + ")"
    return repr(v)
