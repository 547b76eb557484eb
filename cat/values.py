"""Run-time values of the cat language and their types (herd's ``Interpreter.V``).

Event sets and relations are ints in :mod:`graphs.relalg`'s encoding, wrapped here as
:class:`VSet`/:class:`VRel` so that the generic evaluator can tell them apart; the compiled
fast path (``cat.codegen``) uses the bare ints when the type is known statically.

Types are small hashable values: ``"set"`` (event set), ``"rel"``, ``"event"``, ``"pair"``,
``"classrel"``, ``"clo"``, ``"proc"``, ``"empty"`` (the polymorphic ``{}``), ``"any"``
(unknown until run time), ``("tag", enum)``, ``("valset", elem)``, ``("tuple", (t1, ...))``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from herdsman.graphs.relalg import bits

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
    t = getattr(v, "type", None)  # symbolic nodes carry their type
    if t is not None:
        return t
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
