"""Recognise the standard coherence-order generation (``with co from generate_cos(b)``).

herd's models enumerate co themselves: ``generate_cos(b)`` is the set of relations that are,
for each location, a linear order of its writes extending ``b`` (``cross.cat``).  When the
function applied at a ``with`` is one of the known implementations of that generation —
herd's ``cross.cat`` or ours, recognised by a structural fingerprint of the closure and of
everything it refers to (bound names renamed, free names and primitives kept; ``W`` must be
the predefined set of writes) — the engine can enumerate co directly (``co_mode ==
"native"``); the model then only checks that the given co extends ``b``.  The compiler
(:mod:`cat.compiler`) gives the digests of our own library's implementations
(:func:`known_digests` of its closures); herd's are known here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from herdsman.cat import ast as A
from herdsman.cat.binding import Binder
from herdsman.cat.env import Env, force
from herdsman.cat.errors import CatError
from herdsman.cat.ir import Node
from herdsman.cat.pretty import sexp
from herdsman.cat.values import Closure, Prim, VTuple

#: Fingerprint digests of ``generate_cos`` (one argument) and ``generate_orders`` (the set
#: of events and the base order) as defined by herd's libdir cross.cat (commit 5feffe4e).
HERD_GENERATE_COS = "2ec222f11483057d"
HERD_GENERATE_ORDERS = "6205ba910fbc1e8e"


def fingerprint(v, seen: dict | None = None, skip: frozenset[str] = frozenset()) -> str:
    """A canonical description of a value's structure (closures recursively; the values
    of free names in ``skip`` left out)."""
    if seen is None:
        seen = {}
    t = type(v)
    if t is Closure:
        if id(v) in seen:
            return f"rec{seen[id(v)]}"
        seen[id(v)] = len(seen)
        fun = A.Fun(v.pos, v.pat, v.body, "f")
        parts = [sexp(fun, rename=True)]
        for x in sorted(A.free_vars(fun)):
            if x in skip:
                parts.append(f"{x}=?")
                continue
            try:
                val = force(v.env.get(x)) if x in v.env else None
            except CatError:
                val = None
            parts.append(f"{x}={fingerprint(val, seen, skip)}")
        return "clo(" + ";".join(parts) + ")"
    if t is Prim:
        return "prim:" + v.name
    if t is Node:
        return "name:" + v.info if v.op == "name" else "node"
    if t is VTuple:
        return "(" + ",".join(fingerprint(x, seen, skip) for x in v.items) + ")"
    return "val"


def digest(v, skip: frozenset[str] = frozenset()) -> str:
    return hashlib.sha256(fingerprint(v, None, skip).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Digests:
    """Fingerprint digests of the known implementations of ``generate_cos`` (one
    argument) and of ``generate_orders`` (the set of events and the base order)."""

    cos: frozenset[str]
    orders: frozenset[str]


def known_digests(generate_cos: object, generate_orders: object) -> Digests:
    """The known implementations: herd's, and ours (the given closures of our library)."""
    return Digests(
        frozenset({digest(generate_cos), HERD_GENERATE_COS}),
        frozenset({digest(generate_orders), HERD_GENERATE_ORDERS}),
    )


def applied_closure(ev: Binder, env: Env, e: A.Expr) -> Closure | None:
    """The closure ``e`` applies when it is ``f(arg)`` with ``f`` a named closure."""
    if not isinstance(e, A.App) or not isinstance(e.fn, A.Var):
        return None
    try:
        f = ev.lookup(env, e.fn.name, e.fn.pos)
    except CatError:
        return None
    return f if type(f) is Closure else None


def recognise(ev: Binder, env: Env, e: A.Expr, known: Digests):
    """The base order b if ``e`` is ``generate_cos(b)`` or ``generate_orders(W, b)`` of a
    ``known`` implementation (W the predefined writes), else None."""
    f = applied_closure(ev, env, e)
    if f is None or not isinstance(e, A.App):
        return None
    d = digest(f)
    if d in known.cos:
        return ev.eval(e.arg, env)
    if d in known.orders:
        a = ev.eval(e.arg, env)
        if type(a) is VTuple and len(a.items) == 2:
            s, base = a.items
            if type(s) is Node and s.op == "name" and s.info == "W":
                return base
    return None
