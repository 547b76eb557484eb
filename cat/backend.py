"""The evaluator's ground floor: its state, and sets and relations either concrete or symbolic.

The evaluator (:mod:`cat.evaluator`) runs at compile time (``graph`` given: values that
depend on the execution are :class:`cat.ir.Node` s) and at run time (``universe`` given:
bare ints of :mod:`graphs.relalg`).  :class:`Backend` holds what both share: the ``r_*``
operations on raw sets/relations (an int or a node, building nodes when any operand is one),
the coercions between tagged values (:mod:`cat.values`) and raw ones (herd's
``eval_events``/``eval_rel``), and the nodes that leave work to run time (``generic``:
one of the evaluator's operations, ``runtime``: a whole expression).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from herdsman.cat import ast as A
from herdsman.cat.env import Env, ErrorValue, force
from herdsman.cat.errors import CatError
from herdsman.cat.ir import Graph, Node
from herdsman.cat.symbolic import collect_nodes
from herdsman.cat.types import ANY, EVENT, PAIR, REL, SET, Type, pp_type
from herdsman.cat.values import EMPTY, UNV, VEvent, VPair, VRel, VSet, VTag, type_of
from herdsman.graphs.relalg import Universe
from herdsman.graphs.skeleton import Skeleton

#: The operations a ``generic`` node applies at run time (``cat.evaluator.DEFERRED``).
Deferred = Literal[
    "op1",
    "op_union",
    "op_inter",
    "op_diff",
    "op_add",
    "explicit_set",
    "tuple_get",
    "apply",
    "gen_orders",
    "gen_cross",
]

#: Reports a warning of the model at a position.
Warn = Callable[[A.Pos | None, str], None]


class Backend:
    """The evaluator's state (see the module docstring): ``graph`` for compilation,
    ``universe`` (and ``sk``) at run time; ``variants`` are herd's ``-variant`` names;
    ``predef`` the predefined names (for ``tag2events``); ``enums`` the tags of each enum."""

    def __init__(
        self,
        graph: Graph | None = None,
        universe: Universe | None = None,
        sk: Skeleton | None = None,
        variants: frozenset[str] = frozenset(),
        warn: Warn | None = None,
    ) -> None:
        self.g = graph
        self.U = universe
        self.sk = sk
        self.variants = variants
        self.variants_read: set[str] = set()  # the names the model's variant tests read
        self.depth = 0
        self.predef: Mapping[str, Any] = {}
        self.warn = warn or (lambda pos, msg: None)
        self.enums: dict[str, tuple[str, ...]] = {}  # enum -> its tags (global per model)
        self.reads_values = False  # the model compares the values of events

    @property
    def symbolic(self) -> bool:
        return self.U is None

    @property
    def graph(self) -> Graph:
        """The graph under construction: only for building nodes, which happens while
        compiling (at run time no operand is a node, so no node is built)."""
        assert self.g is not None, "a node built at run time"
        return self.g

    @property
    def universe(self) -> Universe:
        """The universe of the execution at hand: only at run time."""
        assert self.U is not None, "a run-time value while compiling"
        return self.U

    @property
    def skeleton(self) -> Skeleton:
        """The skeleton of the execution at hand: only at run time."""
        assert self.sk is not None, "a run-time value while compiling"
        return self.sk

    def nodeify(self, r, t: Type) -> Node:
        return r if type(r) is Node else self.graph.const(r, t)

    def _sym(self, *rs) -> bool:
        return self.U is None or any(type(r) is Node for r in rs)

    def r_top(self, t: Type):
        U = self.U
        if U is None:
            return self.graph.top(t)
        return U.ALL if t == SET else U.FULL

    def r_id(self):
        return self.graph.id() if self.U is None else self.U.ID

    def r_union(self, rs: list, t: Type):
        if self._sym(*rs):
            return self.graph.union([self.nodeify(r, t) for r in rs], t)
        out = 0
        for r in rs:
            out |= r
        return out

    def r_inter(self, rs: list, t: Type):
        if self._sym(*rs):
            return self.graph.inter([self.nodeify(r, t) for r in rs], t)
        out = rs[0]
        for r in rs[1:]:
            out &= r
        return out

    def r_diff(self, a, b, t: Type):
        if self._sym(a, b):
            return self.graph.diff(self.nodeify(a, t), self.nodeify(b, t), t)
        return a & ~b

    def r_comp(self, a, t: Type):
        U = self.U
        if U is None or type(a) is Node:  # self._sym(a), narrowing U
            return self.graph.comp(self.nodeify(a, t), t)
        return (U.ALL if t == SET else U.FULL) & ~a

    def r_seq(self, rs: list):
        U = self.U
        if U is None or any(type(r) is Node for r in rs):  # self._sym(*rs), narrowing U
            return self.graph.seq([self.nodeify(r, REL) for r in rs])
        out = rs[0]
        for r in rs[1:]:
            out = U.seq(out, r)
        return out

    def r_inv(self, a):
        if self._sym(a):
            return self.graph.inv(self.nodeify(a, REL))
        return self.U.inverse(a)

    def r_plus(self, a):
        if self._sym(a):
            return self.graph.plus(self.nodeify(a, REL))
        return self.U.plus(a)

    def r_star(self, a):
        if self._sym(a):
            return self.graph.star(self.nodeify(a, REL))
        return self.U.star(a)

    def r_opt(self, a):
        return self.r_union([a, self.r_id()], REL)

    def r_domain(self, a):
        if self._sym(a):
            return self.graph.domain(self.nodeify(a, REL))
        return self.U.domain(a)

    def r_range(self, a):
        if self._sym(a):
            return self.graph.range(self.nodeify(a, REL))
        return self.U.range(a)

    def r_prod(self, s1, s2):
        if self._sym(s1, s2):
            return self.graph.prod(self.nodeify(s1, SET), self.nodeify(s2, SET))
        return self.U.product(s1, s2)

    def r_toid(self, s):
        if self._sym(s):
            return self.graph.toid(self.nodeify(s, SET))
        return self.U.ident(s)

    # ------------------------------------------------------------------ coercions

    def wrap(self, r, t: Type):
        if type(r) is Node:
            return r
        return VSet(r) if t == SET else VRel(r)

    def raw(self, v, t: Type, pos):
        """v as a bare int (or raw Node) of type t (SET or REL); herd's eval_events/eval_rel."""
        if type(v) is Node:
            vt = v.type
            if vt == t:
                return v
            if vt == ANY or (vt == EVENT and t == SET) or (vt == PAIR and t == REL):
                return self.graph.node("unbox", (v,), t, info=(t, pos), key=t)
            raise CatError(pos, f"type {pp_type(t)} expected, {pp_type(vt)} found")
        if v is EMPTY:
            return 0
        if v is UNV:
            return self.r_top(t)
        cls = type(v)
        if t == SET:
            if cls is VSet:
                return v.bits
            if cls is VEvent:
                return 1 << v.e
        else:
            if cls is VRel:
                return v.bits
            if cls is VPair:
                U = self.U
                assert U is not None, "pairs are values of run time"
                return U.pair(v.a, v.b)
        raise CatError(pos, f"type {pp_type(t)} expected, {pp_type(type_of(v))} found")

    def unbox_value(self, v, t: Type, pos) -> int:
        """Run-time coercion of a tagged value to a bare int (``unbox`` nodes)."""
        return self.raw(v, t, pos)

    def box(self, value, t: Type):
        """A run-time value of a node of type t, tagged."""
        if t == SET:
            return VSet(value)
        if t == REL:
            return VRel(value)
        return value

    # ------------------------------------------------------------------ deferral to run time

    def defer(self, method: Deferred, args: tuple, pos, rtype: Type = ANY) -> Node:
        """A node applying the evaluator's ``method`` to ``(*args, pos)`` at run time (args
        may hold nodes)."""
        nodes: dict[int, Node] = {}
        collect_nodes(args, nodes)
        return self.graph.node(
            "generic", tuple(nodes.values()), rtype, info=(method, args, pos), key=None
        )

    def runtime(self, e: A.Expr, env: Env, rtype: Type = ANY) -> Node:
        """A node evaluating expression e at run time in (the free variables of) env."""
        sub = {}
        for name in A.free_vars(e):
            if name in env:
                try:
                    sub[name] = force(env.get(name))
                except CatError as err:
                    sub[name] = ErrorValue(err)
        senv = Env(sub, env.tags, env.enums)
        nodes: dict[int, Node] = {}
        collect_nodes(list(sub.values()), nodes)
        return self.graph.node("runtime", tuple(nodes.values()), rtype, info=(e, senv), key=None)

    def tag_universe(self, enum: str) -> frozenset:
        return frozenset(VTag(enum, x) for x in self.enums.get(enum, ()))
