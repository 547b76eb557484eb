"""Values that may hold symbolic nodes: their type, the nodes inside them, and the same
values with the nodes replaced by their run-time values.

At compile time a value can be a :class:`cat.ir.Node` or contain nodes (in tuples, lists,
closures' environments); the code left to run time (``generic``/``runtime`` nodes) gets
its arguments back with :func:`concretize`.
"""

from __future__ import annotations

from typing import Any

from herdsman.cat.env import Env, ErrorValue, Lazy
from herdsman.cat.errors import CatError
from herdsman.cat.ir import Node, walk
from herdsman.cat.types import Type
from herdsman.cat.values import Closure, Proc, VTuple, type_of


def vtype(v: Any) -> Type:
    """The type of a value, concrete or symbolic."""
    return v.type if type(v) is Node else type_of(v)


def collect_nodes(v: Any, acc: dict[int, Node], seen: set[int] | None = None) -> None:
    """All nodes inside a value (tuples, lists, closures' environments), by id."""
    if seen is None:
        seen = set()
    t = type(v)
    if t is Node:
        acc.setdefault(v.id, v)
    elif t in (list, tuple):
        for x in v:
            collect_nodes(x, acc, seen)
    elif t is VTuple:
        for x in v.items:
            collect_nodes(x, acc, seen)
    elif t is Closure or t is Proc:
        if id(v) in seen:
            return
        seen.add(id(v))
        for name, x in v.env.items():
            if type(x) is Lazy:
                try:
                    x = x.force()
                except CatError as err:
                    x = ErrorValue(err)
                v.env.settle(name, x)
            collect_nodes(x, acc, seen)
    elif t is Lazy:
        try:
            collect_nodes(v.force(), acc, seen)
        except CatError:
            pass


def contains_node(v: Any) -> bool:
    acc: dict[int, Node] = {}
    collect_nodes(v, acc)
    return bool(acc)


_FAILING_OPS = frozenset({"generic", "runtime", "prim", "unbox"})


def may_fail(v: Any) -> bool:
    """Whether computing v at run time can raise (generic or run-time evaluation inside)."""
    acc: dict[int, Node] = {}
    collect_nodes(v, acc)
    return any(n.op in _FAILING_OPS for n in walk(acc.values(), fix_tests=False))


def concretize(v: Any, nodevals: dict[int, Any], memo: dict[int, Any]) -> Any:
    """Replace the nodes inside v by their run-time values (``nodevals``: id -> value)."""
    t = type(v)
    if t is Node:
        return nodevals[v.id]
    if t is list:
        return [concretize(x, nodevals, memo) for x in v]
    if t is tuple:
        return tuple(concretize(x, nodevals, memo) for x in v)
    if t is VTuple:
        return VTuple(tuple(concretize(x, nodevals, memo) for x in v.items))
    if t is Closure or t is Proc:
        key = id(v)
        got = memo.get(key)
        if got is not None:
            return got
        if not contains_node(v):
            memo[key] = v
            return v
        env = Env({}, v.env.tags, v.env.enums)
        c = (
            Closure(v.pat, v.body, env, v.name, v.pos)
            if t is Closure
            else Proc(v.pat, v.body, env, v.name, v.pos)
        )
        memo[key] = c
        for name, x in v.env.items():
            env.set_local(name, concretize(x, nodevals, memo))
        return c
    return v
