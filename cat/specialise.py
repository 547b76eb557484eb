"""Specialise a compiled model to the static relations that are empty in a skeleton.

Many skeleton-only relations are empty in a given test (``rmw`` without atomics, fence
relations without fences, dependencies...).  Knowing it, whole parts of the model vanish:
``rmw & (fre; coe)`` is empty, ``prop`` is empty without fences, so ``observation``
holds...  ``prepare`` computes the static nodes, takes the set of those (on the frontier
with the dynamic part) that are empty as the skeleton's *signature*, and generates code
for the model rewritten with those nodes replaced by 0 — once per distinct signature.
The rewrite re-applies the graph builder's simplifications (``r | 0 = r``, ``r ; 0 = 0``,
...), so emptiness propagates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import compress, repeat
from operator import eq
from typing import Any

from herdsman.cat.fixpoint import make_fix
from herdsman.cat.ir import Graph, Node, is_static, walk
from herdsman.cat.values import EMPTY, REL, VTuple

_REBUILD = frozenset(
    {
        "union",
        "inter",
        "diff",
        "seq",
        "inv",
        "plus",
        "domain",
        "range",
        "prod",
        "toid",
        "proj",
        "pco",
        "select",
    }
)


class Specialiser:
    """Maps values of the generic program to the program specialised to ``zeros``."""

    def __init__(self, g: Graph, zeros: frozenset[int]) -> None:
        self.g = g
        self.zeros = zeros
        self.memo: dict[int, Node] = {}
        self.fixes: dict[int, Node] = {}

    def value(self, v):
        if type(v) is Node:
            return self.node(v)
        if type(v) is VTuple:
            return VTuple(tuple(self.value(x) for x in v.items))
        return v

    def node(self, n: Node) -> Node:
        got = self.memo.get(n.id)
        if got is not None:
            return got
        out = self._node(n)
        self.memo[n.id] = out
        return out

    def _node(self, n: Node) -> Node:
        g = self.g
        if n.id in self.zeros:
            return g.zero(n.type)
        if n.op not in _REBUILD:
            return n
        if n.op == "proj":
            fix = self.fix(n.args[0])
            if fix is n.args[0]:
                return n
            if fix.op != "fix":  # the fixpoint vanished: its results are known
                return fix.args[n.info] if n.info >= 0 else fix
            return g.node("proj", (fix,), n.type, info=n.info)
        args = [self.node(a) for a in n.args]
        if all(a is b for a, b in zip(args, n.args, strict=True)):
            return n
        op, t = n.op, n.type
        if op == "union":
            return g.union(args, t)
        if op == "inter":
            return g.inter(args, t)
        if op == "diff":
            return g.diff(args[0], args[1], t)
        if op == "seq":
            return g.seq(args)
        if op == "inv":
            return g.inv(args[0])
        if op == "plus":
            return g.plus(args[0])
        if op == "domain":
            return g.domain(args[0])
        if op == "range":
            return g.range(args[0])
        if op == "prod":
            return g.prod(args[0], args[1])
        if op == "toid":
            return g.toid(args[0])
        return g.node(op, tuple(args), t, info=n.info)  # pco, select

    def fix(self, f: Node) -> Node:
        got = self.fixes.get(f.id)
        if got is not None:
            return got
        info = f.info
        changed = [self.node(a) is not a for a in f.args]
        if not any(changed):
            self.fixes[f.id] = f
            return f
        results = [self.value(r) for r in info.results]
        test = info.test
        if test is not None:
            kind, negated, tv, pos = test
            test = (kind, negated, self.value(tv), pos)
        keyset = frozenset(info.keys)
        dependent = any(type(r) is Node and r.deps & keyset for r in results) or (
            test is not None and type(test[2]) is Node and test[2].deps & keyset
        )
        if not dependent and test is None:
            # no recursion left: the results are the values (as herd's second iteration)
            vals = tuple(
                r if type(r) is Node else self.g.zero(t if t in ("set", "rel") else REL)
                for r, t in zip(results, info.types, strict=True)
            )
            out = self.g.node("fixvals", vals, ("fix",), key=None)
            self.fixes[f.id] = out
            return out
        out = make_fix(self.g, info.keys, info.fvars, results, info.types, test, info.pos)
        self.fixes[f.id] = out
        return out


def frontier(program_values: list, statics_only=True) -> list[Node]:
    """Static nodes that dynamic code (or a check) uses directly."""
    return [n for n in walk(program_values, stop=is_static) if not n.deps and n.raw]


__all__ = ["Specialiser", "frontier", "EMPTY"]


def signature(front: Sequence[int], static: Mapping[int, Any]) -> int:
    """The signature of a skeleton whose static nodes hold ``static``: which of the
    frontier nodes ``front`` are empty (a mask over them)."""
    # the powers of two of the empty ones, summed (their union; in C, no Python loop)
    return sum(compress(_powers(len(front)), map(eq, map(static.get, front), repeat(0))))


@lru_cache(maxsize=64)
def _powers(n: int) -> tuple[int, ...]:
    """1, 2, 4, ... (``n`` of them)."""
    return tuple(1 << k for k in range(n))
