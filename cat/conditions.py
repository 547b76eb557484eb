"""Conditional expressions: ``if`` (equality, inclusion, membership, variants) and ``try``.

A condition known at compile time picks its branch now; one over run-time sets or
relations with both branches sets or relations of one type becomes a ``select`` node;
anything else is left to run time (``runtime`` node).  The functions take the evaluator
(a :class:`cat.binding.Binder`) as first argument.
"""

from __future__ import annotations

from typing import Any

from herdsman.cat import ast as A
from herdsman.cat.binding import Binder
from herdsman.cat.env import Env
from herdsman.cat.errors import CatError
from herdsman.cat.ir import Node
from herdsman.cat.symbolic import contains_node, may_fail, vtype
from herdsman.cat.types import ANY, EMPTY_T, EVENT, PAIR, REL, SET, is_valset_t, join_types, pp_type
from herdsman.cat.values import EMPTY, VClassRel, VRel, VSet, VValSet


def ev_try(ev: Binder, e: A.Try, env: Env) -> Any:
    """``try e with d``: d if evaluating e raises now; at run time if e may raise then."""
    try:
        v = ev.eval(e.exp, env)
    except CatError:
        return ev.eval(e.default, env)
    if ev.g is not None and may_fail(v):
        return ev.runtime(e, env)
    return v


def ev_if(ev: Binder, e: A.If, env: Env) -> Any:
    """``if cond then a else b``: decided now when the condition is known, else a
    ``select`` node or run-time evaluation."""
    c = e.cond
    if isinstance(c, A.CondVariant):
        ok = variant(ev.variants, c.cond, ev.variants_read)
    else:
        left = ev.eval(c.left, env)
        right = ev.eval(c.right, env)
        if contains_node(left) or contains_node(right):
            check_condition_types(c, left, right)
            sel = select(ev, e, c, left, right, env)
            return sel if sel is not None else ev.runtime(e, env)
        ok = condition(ev, c, left, right)
    return ev.eval(e.then if ok else e.else_, env)


def check_condition_types(c: A.Compare, left: Any, right: Any) -> None:
    """Type errors of a condition decided at run time, reported now."""
    t1, t2 = vtype(left), vtype(right)
    if ANY in (t1, t2):
        return
    if isinstance(c, A.CondIn):
        if t1 in (SET, REL) and not is_valset_t(t2):
            raise CatError(c.right.pos, f"set expected, found {pp_type(t2)}")
        return
    if join_types(t1, t2) is None:
        raise CatError(c.right.pos, f"type {pp_type(t1)} expected, {pp_type(t2)} found")


def select(ev: Binder, e: A.If, c: A.Compare, left: Any, right: Any, env: Env) -> Node | None:
    """``if a = b`` / ``if a subset b`` over sets or relations, both branches sets or
    relations of one type: a ``select`` node choosing at run time; else None."""
    if isinstance(c, A.CondIn):
        return None
    t = join_types(vtype(left), vtype(right))
    if t not in (SET, REL):
        return None
    try:
        a = ev.raw(left, t, c.left.pos)
        b = ev.raw(right, t, c.right.pos)
        v1 = ev.eval(e.then, env)
        v2 = ev.eval(e.else_, env)
    except CatError:
        return None
    t2 = join_types(vtype(v1), vtype(v2))
    if t2 not in (SET, REL) or may_fail(v1) or may_fail(v2):
        return None
    g = ev.graph
    x1 = ev.nodeify(ev.raw(v1, t2, e.then.pos), t2)
    x2 = ev.nodeify(ev.raw(v2, t2, e.else_.pos), t2)
    a, b = ev.nodeify(a, t), ev.nodeify(b, t)
    kind = "eq" if isinstance(c, A.CondEq) else "subset"
    return g.node("select", (a, b, x1, x2), t2, info=kind)


def condition(ev: Binder, c: A.Compare, v1: Any, v2: Any) -> bool:
    """Whether ``v1 = v2``, ``v1 subset v2`` or ``v1 in v2`` holds, both concrete."""
    if isinstance(c, A.CondEq):
        return values_equal(v1, v2)
    if isinstance(c, A.CondSubset):
        t = join_types(vtype(v1), vtype(v2))
        if t == REL or t == SET:
            a = ev.raw(v1, t, c.left.pos)
            b = ev.raw(v2, t, c.right.pos)
            return not (a & ~b)
        if t is not None and is_valset_t(t):
            return (v1.items if v1 is not EMPTY else frozenset()) <= (
                v2.items if v2 is not EMPTY else frozenset()
            )
        if t == EMPTY_T:
            return True
        raise CatError(c.left.pos, f"cannot perform subset on type '{pp_type(vtype(v1))}'")
    # in
    t1 = vtype(v1)
    if t1 == EVENT:
        s = ev.raw(ev.events_of(v2, c.right.pos), SET, c.right.pos)
        return bool((s >> v1.e) & 1)
    if t1 == PAIR or t1 == ("tuple", (EVENT, EVENT)):
        r = ev.raw(v2, REL, c.right.pos)
        a, b = (v1.a, v1.b) if t1 == PAIR else (v1.items[0].e, v1.items[1].e)
        return ev.universe.has(r, a, b)
    if type(v2) is VValSet:
        if join_types(t1, v2.elem) is None:
            raise CatError(c.left.pos, f"type {pp_type(v2.elem)} expected, {pp_type(t1)} found")
        return v1 in v2.items
    if v2 is EMPTY:
        return False
    raise CatError(c.right.pos, f"set expected, found {pp_type(vtype(v2))}")


def variant(variants: frozenset[str], v: A.VCond, read: set[str] | None = None) -> bool:
    """Whether a variant condition holds for the given (lower-case) ``-variant`` names
    (the names it tests added to ``read``)."""
    if isinstance(v, A.VName):
        if read is not None:
            read.add(v.name.lower())
        return v.name.lower() in variants
    if isinstance(v, A.VNot):
        return not variant(variants, v.arg, read)
    left = variant(variants, v.left, read)
    right = variant(variants, v.right, read)
    return (left and right) if isinstance(v, A.VAnd) else (left or right)


def values_equal(v1, v2) -> bool:
    """herd's structural equality (ValOrder.compare = 0), {} equal to any empty set."""
    if v1 is EMPTY or v2 is EMPTY:
        other = v2 if v1 is EMPTY else v1
        if other is EMPTY:
            return True
        t = type(other)
        if t is VSet or t is VRel:
            return other.bits == 0
        if t is VValSet:
            return not other.items
        if t is VClassRel:
            return not other.pairs
        return False
    return v1 == v2
