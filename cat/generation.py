"""``cross.cat``'s generations computed natively when a model chooses with them.

A model enumerating its own coherence orders or choices writes ``with co from
generate_cos(b)`` (or ``generate_orders(S, b)``) or ``with x from cross(S)``, with herd's
``cross.cat`` or ours.  When ``W`` is the predefined set of writes the engine enumerates
co itself (:mod:`cat.costandard`); otherwise — ``lock.cat`` adds lock events to ``W`` first,
and chooses the reads of failed locks with ``cross`` — the set is computed by
:func:`orders` and :func:`cross` here instead of running the library's recursive
functions in the evaluator, with the same result: ``cross`` of a set of sets is the set of
unions of one element of each (no set at all gives the empty relation, an empty one gives
nothing); ``generate_orders(S, b)`` is ``cross`` of, per location of ``S``, the linear
orders of its events extending ``b``.  The functions are recognised as ``costandard``
recognises the standard generation, by a fingerprint of their closure (here with the
``W`` they captured left out).
"""

from __future__ import annotations

from dataclasses import dataclass

from herdsman.cat import ast as A
from herdsman.cat.backend import Backend
from herdsman.cat.binding import Binder
from herdsman.cat.costandard import applied_closure, digest
from herdsman.cat.env import Env, force
from herdsman.cat.errors import CatError
from herdsman.cat.prims import p_classes_loc, p_linearisations
from herdsman.cat.types import REL
from herdsman.cat.values import EMPTY, VRel, VTuple, VValSet, sorted_items

#: Fingerprints (``costandard.digest``, ``W`` left out) of herd's ``cross.cat`` functions
#: (herdtools7 7.57 and 5feffe4e alike).
HERD_COS = "ccd7b2c4a88f6f95"
HERD_ORDERS = "6205ba910fbc1e8e"
HERD_CROSS = "df5e6c5efe2cf8db"
#: The free name whose value does not matter to the fingerprint.
_SKIP = frozenset({"W"})


@dataclass(frozen=True)
class Generations:
    """Fingerprints of the known implementations of ``generate_cos``,
    ``generate_orders`` and ``cross`` (herd's and ours)."""

    cos: frozenset[str]
    orders: frozenset[str]
    cross: frozenset[str]


def known(generate_cos: object, generate_orders: object, cross_fn: object) -> Generations:
    """herd's implementations and the given closures (ours)."""
    return Generations(
        frozenset({digest(generate_cos, _SKIP), HERD_COS}),
        frozenset({digest(generate_orders, _SKIP), HERD_ORDERS}),
        frozenset({digest(cross_fn, _SKIP), HERD_CROSS}),
    )


def recognise(ev: Binder, env: Env, e: A.Expr, gens: Generations) -> tuple | None:
    """``("orders", S, b)`` or ``("cross", S)`` when ``e`` applies a known implementation
    (the arguments evaluated), else None."""
    f = applied_closure(ev, env, e)
    if f is None or not isinstance(e, A.App):
        return None
    d = digest(f, _SKIP)
    if d in gens.cos and "W" in f.env:
        return ("orders", force(f.env.get("W")), ev.eval(e.arg, env))
    if d in gens.orders:
        a = ev.eval(e.arg, env)
        if type(a) is VTuple and len(a.items) == 2:
            return ("orders", a.items[0], a.items[1])
        return None
    if d in gens.cross:
        return ("cross", ev.eval(e.arg, env))
    return None


def cross(ev: Backend, choices, pos) -> object:
    """The unions of one relation of each set of ``choices`` (a set of sets)."""
    return _product(_sets(choices, pos), pos)


def orders(ev: Backend, s, b, pos) -> object:
    """Per location of the events ``s``, a linear order of them extending ``b``, each
    combination as one relation."""
    classes = p_classes_loc(ev, s, pos)
    if classes is EMPTY:
        return _product([], pos)
    per = [p_linearisations(ev, VTuple((c, b)), pos) for c in sorted_items(classes)]
    return _product(per, pos)


def _sets(choices, pos) -> list:
    if choices is EMPTY:
        return []
    if type(choices) is not VValSet:
        raise CatError(pos, "cross: a set of sets expected")
    return sorted_items(choices)


def _product(sets: list, pos) -> object:
    acc = {0}
    for os in sets:
        if os is EMPTY:
            return EMPTY
        if type(os) is not VValSet:
            raise CatError(pos, "cross: a set of sets expected")
        bits = []
        for o in os.items:
            if o is EMPTY:
                bits.append(0)
            elif type(o) is VRel:
                bits.append(o.bits)
            else:
                raise CatError(pos, "cross: sets of relations expected")
        acc = {a | x for a in acc for x in bits}
    return VValSet(REL, frozenset(VRel(a) for a in acc))
