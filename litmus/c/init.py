"""C initialisers as cells: what each cell of an object starts with, from an initialiser
as C reads it — in order, with designators (``.f = v``, ``[i] = v``, GCC's ranges ``[lo
... hi] = v``), elided braces, strings for character arrays, and an array's length taken
from its initialiser when it has none.  Globals need every value at compile time; locals
compute theirs in order (cells the initialiser leaves out are 0)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.c.ctype import CType

#: one cell's initial expression (or character), its offset and type; an aggregate
#: type means a copy of an object of that type (``struct S s = other;``)
Cell = tuple[int, c_ast.Node | int, CType]


@dataclass
class _Items:
    """A cursor over one brace-enclosed initialiser list."""

    items: list[c_ast.Node]
    i: int = 0

    def done(self) -> bool:
        return self.i >= len(self.items)

    def peek(self) -> c_ast.Node:
        return self.items[self.i]


class Initialiser:
    """Reads initialisers for one program (``complete`` completes struct types,
    ``value_of`` gives a compile-time integer, ``error`` reports at a node)."""

    def __init__(
        self,
        complete: Callable[[CType], CType],
        value_of: Callable[[c_ast.Node], object],
        error: Callable[[c_ast.Node | None, str], InputError],
    ) -> None:
        self.complete = complete
        self.value_of = value_of
        self.error = error

    def cells(self, t: CType, init: c_ast.Node) -> tuple[CType, list[Cell]]:
        """``t`` (an array's length completed) and its cells' initial values."""
        t = self.complete(t)
        if t.kind == "array" and t.length < 0:
            t = CType("array", target=t.target, length=self.length_of(t, init))
        out: list[Cell] = []
        self.object(t, init, 0, out)
        return t, out

    def length_of(self, t: CType, init: c_ast.Node) -> int:
        if _is_string(init) and _is_chars(t):
            return len(_string_body(init)) + 1
        if not isinstance(init, c_ast.InitList):
            raise self.error(init, "an array without a length needs an initialiser list")
        probe = CType("array", target=t.target, length=1 << 30)
        out: list[Cell] = []
        return self.aggregate(probe, _Items(list(init.exprs)), 0, out, braced=True)

    def object(self, t: CType, init: c_ast.Node, base: int, out: list[Cell]) -> None:
        t = self.complete(t)
        if t.aggregate:
            if isinstance(init, c_ast.InitList):
                items = _Items(list(init.exprs))
                self.aggregate(t, items, base, out, braced=True)
                if not items.done():
                    raise self.error(items.peek(), "too many initialisers")
            elif _is_string(init) and _is_chars(t):
                self.string(t, init, base, out)
            else:
                out.append((base, init, t))  # a copy of another object
            return
        if isinstance(init, c_ast.InitList):
            if len(init.exprs) != 1:
                raise self.error(init, "a scalar takes one initialiser")
            self.object(t, init.exprs[0], base, out)
            return
        out.append((base, init, t))

    def string(self, t: CType, init: c_ast.Constant, base: int, out: list[Cell]) -> None:
        chars = [ord(c) for c in _string_body(init)] + [0]
        assert t.target is not None
        for k, c in enumerate(chars[: t.length]):
            out.append((base + k, c, t.target))

    def members(self, t: CType) -> list[tuple[int, CType]]:
        """The (offset, type) of each member of aggregate ``t``, in order."""
        if t.kind == "array":
            assert t.target is not None
            elem = self.complete(t.target)
            return [(i * elem.size, elem) for i in range(min(t.length, 1 << 30))]
        if t.kind == "union":
            return [(0, self.complete(ft)) for _, ft in t.fields[:1]]
        return [(off, self.complete(ft)) for _, off, ft in t.layout()]

    def aggregate(self, t: CType, items: _Items, base: int, out: list[Cell], braced: bool) -> int:
        """Fill aggregate ``t`` from ``items`` (without braces of its own, it takes what
        it needs and leaves the rest); the number of members it reached."""
        k, reached = 0, 0
        while not items.done():
            item = items.peek()
            if isinstance(item, c_ast.NamedInitializer):
                if not braced:
                    break
                items.i += 1
                k = self.designated(t, item, base, out)
                reached = max(reached, k)
                continue
            if t.kind == "array" and k >= t.length or t.kind != "array" and k >= len(t.fields):
                break
            if t.kind == "union" and k >= 1:
                break
            off, mt = self.member(t, k)
            if mt.aggregate and not isinstance(item, c_ast.InitList):
                if _is_string(item) and _is_chars(mt):
                    items.i += 1
                    self.string(mt, item, base + off, out)
                else:
                    self.aggregate(mt, items, base + off, out, braced=False)
            else:
                items.i += 1
                self.object(mt, item, base + off, out)
            k += 1
            reached = max(reached, k)
        return reached

    def member(self, t: CType, k: int) -> tuple[int, CType]:
        if t.kind == "array":
            assert t.target is not None
            elem = self.complete(t.target)
            return k * elem.size, elem
        return self.members(t)[k] if t.kind != "union" else (0, self.complete(t.fields[k][1]))

    def designated(self, t: CType, item: c_ast.NamedInitializer, base: int, out: list[Cell]) -> int:
        """Initialise the member a designator names; the index after it."""
        first, rest = item.name[0], item.name[1:]
        if isinstance(first, c_ast.ArrayDesignator):
            if t.kind != "array":
                raise self.error(item, "an index designator for something that is no array")
            span = first.expr.exprs if isinstance(first.expr, c_ast.ExprList) else [first.expr]
            bounds = [self.value_of(x) for x in span]
            if not all(isinstance(b, int) and b >= 0 for b in bounds):
                raise self.error(first, "an array designator needs a constant index")
            lo, hi = bounds[0], bounds[-1]
            assert isinstance(lo, int) and isinstance(hi, int)
            for i in range(lo, hi + 1):
                off, mt = self.member(t, i)
                self.nested(mt, rest, item.expr, base + off, out)
            return hi + 1
        name = first.name if isinstance(first, c_ast.ID) else ""
        for k, (fname, ft) in enumerate(t.fields):
            if fname == name:
                off = self.members(t)[k][0] if t.kind == "struct" else 0
                self.nested(self.complete(ft), rest, item.expr, base + off, out)
                return k + 1
        raise self.error(item, f"{t.show()} has no field '{name}'")

    def nested(self, t: CType, rest: list, expr: c_ast.Node, base: int, out: list[Cell]) -> None:
        if not rest:
            self.object(t, expr, base, out)
            return
        sub = c_ast.NamedInitializer(rest, expr, expr.coord)
        self.aggregate(t, _Items([sub]), base, out, braced=True)


def _is_string(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.type == "string"


def _is_chars(t: CType) -> bool:
    return t.kind == "array" and t.target is not None and t.target.bits == 8


def _string_body(node: c_ast.Constant) -> str:
    return node.value[1:-1].encode().decode("unicode_escape")
