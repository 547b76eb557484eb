"""The symbolic graph a model compiles to: one hash-consed node per distinct computation.

A :class:`Node` stands for a value not known when the model is compiled.  Nodes of type
``set``/``rel`` hold bare ints at run time and are computed by inline code; the others
(``any``, value sets, tuples...) hold tagged :mod:`cat.values` and are computed by the
generic evaluator.  ``deps`` names the inputs a node depends on: ``rf``, ``co``, ``fw``
(dynamic), ``w<k>`` (a ``with`` variable), ``f<k>`` (a fixpoint variable); a node with no
deps depends on the skeleton only and is computed once per skeleton (binding-time
separation).  :class:`Graph` builds nodes, simplifying on the fly (``r | 0 = r``,
``(r^-1)^-1 = r``...) and sharing equal ones (common sub-expressions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from herdsman.cat.types import REL, SET, Type

#: Sequences of at most this many operands split a first operand containing the identity
#: (:meth:`Graph.seq`).
SPLIT_MAX = 8


class Node:
    """One symbolic value (see the module docstring)."""

    __slots__ = ("id", "op", "args", "type", "deps", "info", "pos")

    def __init__(
        self, nid: int, op: str, args: tuple, type_: Type, deps: frozenset, info: Any, pos
    ) -> None:
        self.id = nid
        self.op = op
        self.args = args
        self.type = type_
        self.deps = deps
        self.info = info
        self.pos = pos

    @property
    def static(self) -> bool:
        """Depends on the skeleton only."""
        return not self.deps

    @property
    def raw(self) -> bool:
        return self.type == SET or self.type == REL

    def __repr__(self) -> str:
        info = f" {self.info}" if self.op in ("name", "input", "const", "fixvar") else ""
        return f"n{self.id}:{self.op}{info}:{self.type}"


def is_node(v) -> bool:
    return type(v) is Node


def is_static(n: Node) -> bool:
    """Depends on the skeleton only (as :attr:`Node.static`, as a function)."""
    return not n.deps


def walk(
    roots: Iterable, stop: Callable[[Node], bool] | None = None, fix_tests: bool = True
) -> Iterator[Node]:
    """The nodes reachable from the nodes among ``roots``, each once, depth first: through
    arguments and the bodies of fixpoints (their results and, with ``fix_tests``, their
    ``when`` test).  A node for which ``stop`` holds is yielded but not entered."""
    seen: set[int] = set()
    stack = [v for v in roots if type(v) is Node]
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        yield n
        if stop is not None and stop(n):
            continue
        stack.extend(n.args)
        if n.op == "fix":
            info = n.info
            stack.extend(x for x in info.results if type(x) is Node)
            if fix_tests and info.test is not None and type(info.test[2]) is Node:
                stack.append(info.test[2])


class Graph:
    """Builder and store of nodes for one compiled model."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._cse: dict[tuple, Node] = {}
        self._fresh = 0

    def fresh(self, prefix: str) -> str:
        self._fresh += 1
        return f"{prefix}{self._fresh}"

    def node(
        self,
        op: str,
        args: tuple = (),
        type_: Type = REL,
        info: Any = None,
        pos=None,
        key: Any = ...,
        deps: frozenset | None = None,
    ) -> Node:
        """The node for ``op(args)``, shared with an equal one when ``key`` is hashable."""
        if key is ...:
            key = info
        try:
            k: tuple | None = (op, tuple(a.id for a in args), type_, key)
            hash(k)
        except TypeError:
            k = None
        if k is not None:
            n = self._cse.get(k)
            if n is not None:
                return n
        if deps is None:
            deps = frozenset()
            for a in args:
                deps |= a.deps
        n = Node(len(self.nodes), op, args, type_, deps, info, pos)
        self.nodes.append(n)
        if k is not None:
            self._cse[k] = n
        return n

    # ------------------------------------------------------------------ raw constructors
    def const(self, value: int, t: Type) -> Node:
        return self.node("const", (), t, value)

    def zero(self, t: Type) -> Node:
        return self.const(0, t)

    def all(self) -> Node:
        return self.node("all", (), SET)

    def id(self) -> Node:
        return self.node("id", (), REL)

    def full(self) -> Node:
        return self.node("full", (), REL)

    def top(self, t: Type) -> Node:
        return self.all() if t == SET else self.full()

    @staticmethod
    def is_zero(n: Node) -> bool:
        return n.op == "const" and n.info == 0

    def union(self, args: list[Node], t: Type) -> Node:
        flat: list[Node] = []
        for a in args:
            if a.op == "union":
                flat.extend(a.args)
            elif not self.is_zero(a):
                flat.append(a)
        uniq = sorted({a.id: a for a in flat}.values(), key=lambda n: n.id)
        if not uniq:
            return self.zero(t)
        if any(a.op in ("all", "full") for a in uniq):
            return self.top(t)
        if len(uniq) == 1:
            return uniq[0]
        return self.node("union", tuple(uniq), t)

    def inter(self, args: list[Node], t: Type) -> Node:
        flat: list[Node] = []
        for a in args:
            if a.op == "inter":
                flat.extend(a.args)
            elif a.op not in ("all", "full"):
                flat.append(a)
        if any(self.is_zero(a) for a in flat):
            return self.zero(t)
        uniq = sorted({a.id: a for a in flat}.values(), key=lambda n: n.id)
        if not uniq:
            return self.top(t)
        if len(uniq) == 1:
            return uniq[0]
        return self.node("inter", tuple(uniq), t)

    def diff(self, a: Node, b: Node, t: Type) -> Node:
        if self.is_zero(a) or a is b or b.op in ("all", "full"):
            return self.zero(t)
        if self.is_zero(b):
            return a
        return self.node("diff", (a, b), t)

    def seq(self, args: list[Node]) -> Node:
        """``a1 ; a2 ; ...``.  Sub-sequences stay nodes of their own (a static one is
        computed once per skeleton).  A first operand containing the identity is split:
        ``(id | b) ; c = c | (b ; c)``, since the cost of a sequence grows with the range
        of its left operand; in a short sequence only (:data:`SPLIT_MAX` operands), since
        splitting each operand of ``r? ; r? ; ...`` makes a node per suffix, each with
        the operands of its suffix: quadratic in the length of the sequence."""
        if any(self.is_zero(a) for a in args):
            return self.zero(REL)
        args = [a for a in args if a.op != "id"]
        if not args:
            return self.id()
        if len(args) == 1:
            return args[0]
        first = args[0]
        if len(args) <= SPLIT_MAX and first.op == "union" and any(a.op == "id" for a in first.args):
            rest = [a for a in first.args if a.op != "id"]
            tail = self.seq(args[1:])
            return self.union([tail, self.seq([self.union(rest, REL), *args[1:]])], REL)
        return self.node("seq", tuple(args), REL)

    def inv(self, a: Node) -> Node:
        if self.is_zero(a) or a.op in ("id", "full"):
            return a
        if a.op == "inv":
            return a.args[0]
        if a.op == "toid":
            return a
        if a.op == "prod":
            return self.node("prod", (a.args[1], a.args[0]), REL)
        return self.node("inv", (a,), REL)

    def plus(self, a: Node) -> Node:
        if self.is_zero(a) or a.op in ("plus", "id", "toid", "full"):
            return a
        return self.node("plus", (a,), REL)

    def star(self, a: Node) -> Node:
        return self.union([self.plus(a), self.id()], REL)

    def domain(self, a: Node) -> Node:
        return self._ends("domain", a)

    def range(self, a: Node) -> Node:
        return self._ends("range", a)

    def _ends(self, op: str, a: Node) -> Node:
        """``domain``/``range`` of a: both are S for ``[S]``, empty for 0."""
        if self.is_zero(a):
            return self.zero(SET)
        if a.op == "toid":
            return a.args[0]
        return self.node(op, (a,), SET)

    def prod(self, s1: Node, s2: Node) -> Node:
        if self.is_zero(s1) or self.is_zero(s2):
            return self.zero(REL)
        if s1.op == "all" and s2.op == "all":
            return self.full()
        return self.node("prod", (s1, s2), REL)

    def toid(self, s: Node) -> Node:
        if self.is_zero(s):
            return self.zero(REL)
        if s.op == "all":
            return self.id()
        return self.node("toid", (s,), REL)

    def comp(self, a: Node, t: Type) -> Node:
        return self.diff(self.top(t), a, t)
