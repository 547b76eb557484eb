"""Conditions compiled to closures over a state tuple (evaluated once per final state).

``compile_prop(prop, index)`` turns a proposition of ``litmus.ir`` into a function of a
tuple of values, ``index`` giving the position of each location in the tuple; it means
what :func:`litmus.ir.eval_prop` means on the corresponding state (a location absent from
``index`` holds 0).  ``needed_locations(observed, filter)`` is what such a state holds;
``wanted_values(prop)`` the values a conjunction of atoms pins (herd's
``wanted_final_value``, which ``-speedcheck`` prunes with).
"""

from __future__ import annotations

from collections.abc import Callable

from herdsman.litmus.base.ir import (
    And,
    Atom,
    Implies,
    Loc,
    MemLoc,
    Not,
    Or,
    PFalse,
    Prop,
    PTrue,
    RegLoc,
    SymRegLoc,
    Value,
    prop_locations,
)

State = tuple[Value, ...]


def needed_locations(observed: list[Loc], filter: Prop | None) -> list[Loc]:
    """The locations a final state must hold: the observed ones (in their order), then
    those only the filter reads."""
    needed = list(observed)
    if filter is not None:
        for loc in prop_locations(filter):
            if loc not in needed:
                needed.append(loc)
    return needed


def wanted_values(p: Prop) -> dict[Loc, Value]:
    """The value each location must hold for ``p`` to hold, when ``p`` is a conjunction
    of atoms ``loc = constant`` (herd's ``wanted_final_value``: ``And``, a one-element
    ``Or``, atoms); any other part pins nothing.  Two different values for one location
    (``p`` never holds) pin nothing either: the caller's full check decides then."""
    out: dict[Loc, Value] = {}
    clash = False

    def walk(q: Prop) -> None:
        nonlocal clash
        if isinstance(q, Atom) and not isinstance(q.value, RegLoc | MemLoc | SymRegLoc):
            old = out.setdefault(q.loc, q.value)
            clash = clash or old != q.value
        elif isinstance(q, And):
            for part in q.props:
                walk(part)
        elif isinstance(q, Or) and len(q.props) == 1:
            walk(q.props[0])

    walk(p)
    return {} if clash else out


def compile_prop(p: Prop, index: dict[Loc, int]) -> Callable[[State], bool]:
    if isinstance(p, Atom):
        i = index.get(p.loc)
        w = p.value
        if isinstance(w, RegLoc | MemLoc | SymRegLoc):
            j = index.get(w)
            if j is None:
                if i is None:
                    return lambda s: True  # 0 == 0
                return lambda s: s[i] == 0
            if i is None:
                return lambda s: s[j] == 0
            return lambda s: s[i] == s[j]
        if i is None:
            res = w == 0
            return lambda s: res
        return lambda s: s[i] == w
    if isinstance(p, And):
        parts = [compile_prop(q, index) for q in p.props]
        return lambda s: all(f(s) for f in parts)
    if isinstance(p, Or):
        parts = [compile_prop(q, index) for q in p.props]
        return lambda s: any(f(s) for f in parts)
    if isinstance(p, Not):
        f = compile_prop(p.prop, index)
        return lambda s: not f(s)
    if isinstance(p, Implies):
        f, g = compile_prop(p.left, index), compile_prop(p.right, index)
        return lambda s: (not f(s)) or g(s)
    if isinstance(p, PFalse):
        return lambda s: False
    if isinstance(p, PTrue):
        return lambda s: True
    raise TypeError(f"not a proposition: {p!r}")
