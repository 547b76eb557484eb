"""``let rec`` over values: least fixpoints (herd's ``env_rec_vals``).

All recursive names start at ``{}``; the bindings are evaluated in order (each one seeing
the new values of the previous ones, as herd does) until every new value is included in
the old one.  At run time (or when everything is known at compile time) this is done
directly; otherwise the bodies are compiled once into nodes over *fixpoint variables* and
a ``fix`` node iterates them at run time (``cat.codegen``), memoised on its inputs.
A bound on the iterations turns a non-converging definition into an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from herdsman.cat import ast as A
from herdsman.cat import deadline
from herdsman.cat.backend import Backend
from herdsman.cat.binding import Binder
from herdsman.cat.checks import test_node_or_bool, test_value
from herdsman.cat.env import Env
from herdsman.cat.errors import CatError, NonConvergence
from herdsman.cat.ir import Graph, Node, walk
from herdsman.cat.symbolic import contains_node, vtype
from herdsman.cat.types import EMPTY_T, REL, SET, join_types, pp_type
from herdsman.cat.values import EMPTY, UNV, VClassRel, VRel, VSet, VTuple, VValSet

CONCRETE_BOUND = 100_000


@dataclass
class FixInfo:
    """What a ``fix`` node iterates: variables (nodes), their bodies, types and the
    optional ``when`` test (kind, negated, value node)."""

    keys: list[str]
    fvars: list[Node]
    results: list
    types: list
    test: tuple | None
    pos: A.Pos


class _Symbolic(Exception):
    """The fixpoint depends on run-time values: compile it."""


def fixpoint(ev: Binder, funs: list, vals: list, env: Env, pos, test: A.AppTest | None):
    if ev.symbolic:
        try:
            return _concrete(ev, funs, vals, env, pos, test, detect_nodes=True)
        except _Symbolic:
            return _symbolic(ev, funs, vals, env, pos, test)
    return _concrete(ev, funs, vals, env, pos, test, detect_nodes=False)


def _pat_empty(p: A.Pat):
    return EMPTY if isinstance(p, A.PVar) else VTuple(tuple(EMPTY for _ in p.names))


def _concrete(ev: Binder, funs, vals, env: Env, pos, test, detect_nodes: bool):
    init = {}
    for b in vals:
        for n in A.pat_names(b.pat):
            init[n] = EMPTY
    cur = ev.rec_funs(funs, env.bind(init))
    old = [_pat_empty(b.pat) for b in vals]
    for _ in range(CONCRETE_BOUND):
        deadline.check()  # a growing fixpoint may run long: honour the caller's CPU time
        e = cur
        new = []
        for b in vals:
            v = ev.eval(b.exp, e)
            if detect_nodes and contains_node(v):
                raise _Symbolic
            upd: dict = {}
            ev.bind_pattern(b.pat, v, upd, b.pos)
            e = e.bind(upd)
            new.append(v)
        e = ev.rec_funs(funs, e)
        if test is not None and not ev_test(ev, test, e):
            return e, False
        if all(stabilised(ev, o, n, pos) for o, n in zip(old, new, strict=True)):
            return e, True
        old = new
        cur = e
    raise NonConvergence(pos, f"let rec does not converge in {CONCRETE_BOUND} iterations")


def stabilised(ev: Backend, old, new, pos) -> bool:
    """herd's stabilised: the new value is included in the old one."""
    if new is EMPTY or old is UNV:
        return True
    to, tn = type(old), type(new)
    if old is EMPTY:
        if tn in (VRel, VSet):
            return new.bits == 0
        if tn is VValSet:
            return not new.items
        if tn is VClassRel:
            return not new.pairs
    elif new is UNV:
        if to is VRel:
            return not (ev.universe.FULL & ~old.bits)
        if to is VSet:
            return not (ev.universe.ALL & ~old.bits)
        if to is VValSet and isinstance(old.elem, tuple) and old.elem[0] == "tag":
            return ev.tag_universe(old.elem[1]) <= old.items
    elif to is tn and to in (VRel, VSet):
        return not (new.bits & ~old.bits)
    elif to is tn is VValSet:
        return new.items <= old.items
    elif to is tn is VClassRel:
        return new.pairs <= old.pairs
    elif to is tn is VTuple and len(old.items) == len(new.items):
        return all(stabilised(ev, a, b, pos) for a, b in zip(old.items, new.items, strict=True))
    raise CatError(pos, f"illegal recursion on type '{pp_type(vtype(new))}'")


def ev_test(ev: Binder, test: A.AppTest, env: Env) -> bool:
    return test_value(ev, test.kind, test.negated, ev.eval(test.exp, env), test.exp.pos)


# ----------------------------------------------------------------------------- compiled


def _symbolic(ev: Binder, funs, vals, env: Env, pos, test: A.AppTest | None):
    g = ev.graph
    names = []
    for b in vals:
        if not isinstance(b.pat, A.PVar) or b.pat.name is None:
            raise CatError(b.pos, "a recursive definition over run-time values must bind a name")
        names.append(b.pat.name)
    # 1. infer the types of the recursive names (they start at {})
    types = [EMPTY_T] * len(vals)
    for _ in range(10):
        probe = {}
        for n, t in zip(names, types, strict=True):
            probe[n] = (
                EMPTY
                if t == EMPTY_T
                else g.node("fixvar", (), t, info=g.fresh("probe"), deps=frozenset({"probe"}))
            )
        e = ev.rec_funs(funs, env.bind(probe))
        new_types = []
        for b, n, t in zip(vals, names, types, strict=True):
            v = ev.eval(b.exp, e)
            e = e.bind({n: v})
            j = join_types(t, vtype(v))
            if j is None:
                raise CatError(
                    b.exp.pos, f"illegal recursion: type {pp_type(t)} and {pp_type(vtype(v))}"
                )
            new_types.append(j)
        if new_types == types:
            break
        types = new_types
    # 2. compile the bodies over fresh fixpoint variables
    keys = [g.fresh("f") for _ in names]
    fvars: list = []
    for k, t in zip(keys, types, strict=True):
        fvars.append(
            EMPTY if t == EMPTY_T else g.node("fixvar", (), t, info=k, deps=frozenset({k}))
        )
    e = ev.rec_funs(funs, env.bind(dict(zip(names, fvars, strict=True))))
    results = []
    for b, n, t in zip(vals, names, types, strict=True):
        v = ev.eval(b.exp, e)
        if t in (SET, REL):
            v = ev.raw(v, t, b.exp.pos)
            if type(v) is not Node:
                v = g.const(v, t)
        results.append(v)
        e = e.bind({n: v})
    test_info = None
    if test is not None:
        tv = ev.eval(test.exp, ev.rec_funs(funs, e))
        test_info = (test.kind, test.negated, tv, test.exp.pos)
    keyset = frozenset(keys)
    dependent = [r for r in results if type(r) is Node and r.deps & keyset]
    if test_info is not None and type(test_info[2]) is Node and test_info[2].deps & keyset:
        dependent.append(test_info[2])
    if not dependent:
        out = ev.rec_funs(funs, env.bind(dict(zip(names, results, strict=True))))
        if test_info is None:
            return out, True
        return out, test_node_or_bool(ev, *test_info)
    fix = make_fix(g, keys, fvars, results, types, test_info, pos)
    outs: list[object] = []  # EMPTY or a projection node
    for i, t in enumerate(types):
        if t == EMPTY_T:
            outs.append(EMPTY)
        else:
            outs.append(g.node("proj", (fix,), t, info=i))
    out = ev.rec_funs(funs, env.bind(dict(zip(names, outs, strict=True))))
    if test_info is None:
        return out, True
    return out, g.node("proj", (fix,), "bool", info=-1)


def make_fix(
    g: Graph, keys: list[str], fvars: list, results: list, types: list, test_info, pos
) -> Node:
    """The ``fix`` node iterating ``results`` over ``fvars``; its arguments are the nodes
    the bodies use that do not depend on the fixpoint variables."""
    keyset = frozenset(keys)

    def outside(n: Node) -> bool:
        return not (n.deps & keyset)

    roots = list(results) if test_info is None else [*results, test_info[2]]
    inputs = [n for n in walk(roots, stop=outside, fix_tests=False) if outside(n)]
    info = FixInfo(list(keys), list(fvars), list(results), list(types), test_info, pos)
    return g.node(
        "fix", tuple(sorted(inputs, key=lambda n: n.id)), ("fix", tuple(types)), info=info, key=None
    )


__all__ = ["fixpoint", "FixInfo", "make_fix", "stabilised"]
