"""The predicates of checks: ``acyclic``, ``irreflexive``, ``empty`` (herd's test2pred).

``test_value`` decides a check on a concrete value (run time); ``operand`` prepares the
value a compiled check tests (a bare relation/set when the type is known).
"""

from __future__ import annotations

from herdsman.cat.backend import Backend
from herdsman.cat.errors import CatError
from herdsman.cat.ir import Node
from herdsman.cat.symbolic import vtype
from herdsman.cat.types import ANY, CLASSREL, EVENT, PAIR, REL, SET, pp_type
from herdsman.cat.values import EMPTY, UNV, VClassRel


def operand(ev: Backend, kind: str, v, pos):
    """The value a check tests, coerced like herd's eval_rel_set: sets stay sets (only for
    ``empty``), events/pairs become singletons, ``{}`` the empty relation, ``_`` all pairs.
    Returns a raw int/node of type REL or SET, or a tagged value (class relations)."""
    t = vtype(v)
    if v is EMPTY:
        return ev.raw(v, REL, pos), REL
    if v is UNV:
        return ev.raw(v, REL, pos), REL
    if t == SET or t == EVENT:
        if kind != "empty":
            raise CatError(pos, "relation expected")
        return ev.raw(v, SET, pos), SET
    if t == REL or t == PAIR:
        return ev.raw(v, REL, pos), REL
    if t == CLASSREL:
        return v, CLASSREL
    if t == ANY and type(v) is Node:
        return v, ANY
    raise CatError(pos, f"relation or set expected, {pp_type(t)} found")


def raw_test(ev: Backend, kind: str, r: int) -> bool:
    if kind == "empty":
        return r == 0
    U = ev.U
    assert U is not None, "checks of bare sets and relations are decided at run time"
    if kind == "irreflexive":
        return not (r & U.ID)
    return U.acyclic(r)


def classrel_test(kind: str, pairs: frozenset) -> bool:
    if kind == "empty":
        return not pairs
    if kind == "irreflexive":
        return all(a != b for a, b in pairs)
    succ: dict = {}
    for a, b in pairs:
        succ.setdefault(a, set()).add(b)
    state: dict = {}

    def cyclic(x) -> bool:
        state[x] = 1
        for y in succ.get(x, ()):
            s = state.get(y, 0)
            if s == 1 or (s == 0 and cyclic(y)):
                return True
        state[x] = 2
        return False

    return not any(state.get(x, 0) == 0 and cyclic(x) for x in list(succ))


def test_value(ev: Backend, kind: str, negated: bool, v, pos) -> bool:
    """Whether the check ``[~]kind v`` passes, v concrete."""
    x, t = operand(ev, kind, v, pos)
    if t == CLASSREL:
        ok = classrel_test(kind, x.pairs if isinstance(x, VClassRel) else frozenset())
    else:
        ok = raw_test(ev, kind, x)
    return ok != negated


def test_node_or_bool(ev: Backend, kind: str, negated: bool, v, pos):
    """A check at compile time: a bool when decidable now, else a 'bool' ``test`` node."""
    if ev.U is not None and type(v) is not Node:
        return test_value(ev, kind, negated, v, pos)
    x, t = operand(ev, kind, v, pos)
    if type(x) is int:  # only the empty relation/set is known at compile time
        return (x == 0) != negated
    if type(x) is not Node:
        return test_value(ev, kind, negated, x, pos)
    return ev.graph.node("test", (x,), "bool", info=(kind, negated, pos, t))
