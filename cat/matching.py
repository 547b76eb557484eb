"""Matching expressions: ``match`` on tags and set matching (``|| {} -> ... || x ++ r -> ...``).

A match on a value known at compile time picks its clause now; on a run-time value the
whole expression is left to run time (``runtime`` node).  The functions take the
evaluator (a :class:`cat.binding.Binder`) as first argument.
"""

from __future__ import annotations

from typing import Any

from herdsman.cat import ast as A
from herdsman.cat.binding import Binder
from herdsman.cat.env import Env
from herdsman.cat.errors import CatError
from herdsman.cat.ir import Node
from herdsman.cat.symbolic import vtype
from herdsman.cat.types import ANY, REL, SET, is_valset_t, pp_type
from herdsman.cat.values import EMPTY, UNV, VEvent, VPair, VRel, VSet, VTag, VValSet, sorted_items
from herdsman.graphs.relalg import bits


def ev_match(ev: Binder, e: A.Match, env: Env) -> Any:
    """``match e with 'tag -> ...``: decided now on a known tag, else at run time."""
    v = ev.eval(e.exp, env)
    if type(v) is Node and (v.type == ANY or (isinstance(v.type, tuple) and v.type[0] == "tag")):
        return ev.runtime(e, env)
    if type(v) is VTag:
        for tag, x in e.clauses:
            if tag == v.name:
                return ev.eval(x, env)
        if e.default is not None:
            return ev.eval(e.default, env)
        raise CatError(e.pos, f"pattern matching failed on value '{v.name}'")
    if v is EMPTY:
        raise CatError(e.exp.pos, "matching on empty")
    if v is UNV:
        raise CatError(e.exp.pos, "matching on universe")
    raise CatError(e.exp.pos, f"matching on non-tag value of type '{pp_type(vtype(v))}'")


def ev_matchset(ev: Binder, e: A.MatchSet, env: Env) -> Any:
    """``match e with || {} -> ... || x ++ rest -> ...`` (herd's set matching, and its
    ``pre | x ++ post`` split): on a known set now, on a run-time one at run time."""
    v = ev.eval(e.exp, env)
    if type(v) is Node:
        if v.type in (ANY, SET, REL) or is_valset_t(v.type):
            return ev.runtime(e, env)
        raise CatError(e.exp.pos, f"set-matching on non-set value of type '{pp_type(v.type)}'")
    if v is EMPTY:
        return ev.eval(e.if_empty, env)
    if v is UNV:
        raise CatError(e.pos, "Cannot set-match on universe")
    cls = type(v)
    elems: list[object]
    if (cls is VSet or cls is VRel) and not v.bits:
        return ev.eval(e.if_empty, env)
    if cls is VSet:
        elems = [VEvent(i) for i in bits(v.bits)]

        def mk(xs):
            s = 0
            for x in xs:
                s |= 1 << x.e
            return VSet(s)
    elif cls is VRel:
        U = ev.universe
        elems = [VPair(i, j) for i, j in U.pairs(v.bits)]

        def mk(xs):
            return VRel(U.from_pairs((x.a, x.b) for x in xs))
    elif cls is VValSet:
        elems = sorted_items(v)
        t = v.elem

        def mk(xs):
            return VValSet(t, frozenset(xs))
    else:
        raise CatError(e.exp.pos, f"set-matching on non-set value of type '{pp_type(vtype(v))}'")
    if not elems:
        return ev.eval(e.if_empty, env)
    c = e.clause
    if isinstance(c, A.EltRem):
        upd = {}
        if c.elt is not None:
            upd[c.elt] = elems[0]
        if c.rest is not None:
            upd[c.rest] = mk(elems[1:])
        return ev.eval(c.exp, env.bind(upd))
    mid = len(elems) // 2
    upd = {}
    if c.pre is not None:
        upd[c.pre] = mk(elems[:mid])
    if c.elt is not None:
        upd[c.elt] = elems[mid]
    if c.post is not None:
        upd[c.post] = mk(elems[mid + 1 :])
    return ev.eval(c.exp, env.bind(upd))
