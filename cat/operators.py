"""herd's operators on cat values, with their typing rules (``lib/interpreter.ml``).

Unary operators, union, intersection, difference, sequence, ``++`` and explicit sets, on
values concrete or symbolic: sets and relations go through :class:`cat.backend.Backend`'s
raw operations; value sets, class relations, tags and tuples are computed at compile time
when known; an operand whose type is known only at run time defers the operation
(``generic`` node).
"""

from __future__ import annotations

from typing import Any, Literal

from herdsman.cat import ast as A
from herdsman.cat.backend import Backend
from herdsman.cat.errors import CatError
from herdsman.cat.ir import Node
from herdsman.cat.symbolic import vtype
from herdsman.cat.types import (
    ANY,
    CLASSREL,
    EMPTY_T,
    EVENT,
    PAIR,
    REL,
    SET,
    Type,
    is_valset_t,
    join_types,
    pp_type,
    tag_t,
    valset_t,
)
from herdsman.cat.values import (
    EMPTY,
    UNV,
    Closure,
    Prim,
    Proc,
    VClassRel,
    VPair,
    VRel,
    VSet,
    VTag,
    VValSet,
)

#: The binary operators sharing the raw/boxed handling of their operands.
_BinOp = Literal["op_inter", "op_diff"]


class Operators(Backend):
    """The operators (see the module docstring), each given its operands' values and
    positions."""

    def op1(self, op: str, v, pos):
        t = vtype(v)
        if type(v) is Node and not v.raw:
            if op == "toid" or (op in ("plus", "star", "opt") and t in (ANY, PAIR)):
                t2 = SET if op == "toid" else REL
                return self.op1(op, self.wrap(self.raw(v, t2, pos), t2), pos)
            return self.defer("op1", (op, v), pos)
        if op == "plus":
            if v is EMPTY or v is UNV:
                return v
            if t == REL:
                return self.wrap(self.r_plus(self.raw(v, REL, pos)), REL)
            raise CatError(pos, f"type rel expected, {pp_type(t)} found")
        if op == "star" or op == "opt":
            if v is UNV:
                return v
            if v is EMPTY:
                return self.wrap(self.r_id(), REL)
            if t == REL:
                r = self.raw(v, REL, pos)
                return self.wrap(self.r_star(r) if op == "star" else self.r_opt(r), REL)
            raise CatError(pos, f"type rel expected, {pp_type(t)} found")
        if op == "comp":
            if v is EMPTY:
                return UNV
            if v is UNV:
                return EMPTY
            if t == SET or t == REL:
                return self.wrap(self.r_comp(self.raw(v, t, pos), t), t)
            if is_valset_t(t) and isinstance(t[1], tuple) and t[1][0] == "tag":
                return VValSet(t[1], self.tag_universe(t[1][1]) - v.items)
            raise CatError(pos, f"set or relation expected, {pp_type(t)} found")
        if op == "inv":
            if v is EMPTY or v is UNV:
                return v
            if t == REL:
                return self.wrap(self.r_inv(self.raw(v, REL, pos)), REL)
            if t == CLASSREL:
                return VClassRel(frozenset((b, a) for a, b in v.pairs))
            if t == PAIR:
                return VPair(v.b, v.a)
            raise CatError(pos, f"type rel expected, {pp_type(t)} found")
        if op == "toid":
            if v is EMPTY:
                return EMPTY
            if v is UNV:
                return self.wrap(self.r_id(), REL)
            if t == SET:
                return self.wrap(self.r_toid(self.raw(v, SET, pos)), REL)
            raise CatError(pos, f"type events expected, {pp_type(t)} found")
        raise CatError(pos, f"unknown operator {op}")  # pragma: no cover

    def events_of(self, v, pos):
        """herd's eval_events: a set, an event (singleton), {} or _."""
        t = vtype(v)
        if t in (SET, EVENT, ANY, EMPTY_T) or v is UNV:
            return v
        raise CatError(pos, f"type events expected, {pp_type(t)} found")

    def _known_raw(self, vals) -> Type | None:
        for v in vals:
            t = vtype(v)
            if t == SET or t == REL:
                return t
        return None

    def op_union(self, vals: list, poss: list, pos):
        if any(_boxed(v) for v in vals):
            t = self._known_raw(vals)
            if t is None:
                return self.defer("op_union", (vals, poss), pos)
            vals = [
                self.wrap(self.raw(v, t, p), t) if type(v) is Node else v
                for v, p in zip(vals, poss, strict=True)
            ]
        items = []
        for v, p in zip(vals, poss, strict=True):
            if v is EMPTY:
                continue
            if v is UNV:
                return UNV
            items.append((_tag_as_set(v), p))
        if not items:
            return EMPTY
        t0 = vtype(items[0][0])
        for v, p in items[1:]:
            t1 = vtype(v)
            j = join_types(t0, t1)
            if j is None:
                raise CatError(p, f"type {pp_type(t0)} expected, {pp_type(t1)} found")
            t0 = j
        if t0 == REL or t0 == SET:
            return self.wrap(self.r_union([self.raw(v, t0, p) for v, p in items], t0), t0)
        if is_valset_t(t0):
            out: frozenset = frozenset()
            for v, _ in items:
                out |= v.items
            return VValSet(t0[1], out)
        if t0 == CLASSREL:
            out = frozenset()
            for v, _ in items:
                out |= v.pairs
            return VClassRel(out)
        raise CatError(pos, f"cannot perform union on type '{pp_type(t0)}'")

    def _raw_binop(self, method: _BinOp, v1, v2, p1, p2, t: Type):
        """``op_inter``/``op_diff`` of two values coerced to bare sets or relations of type t."""
        a, b = self.raw(v1, t, p1), self.raw(v2, t, p2)
        r = self.r_inter([a, b], t) if method == "op_inter" else self.r_diff(a, b, t)
        return self.wrap(r, t)

    def _boxed_binop(self, method: _BinOp, v1, v2, p1, p2, pos):
        """``op_inter``/``op_diff`` with a boxed node operand: on bare ints when the other
        operand tells set or relation, else deferred to run time."""
        t = self._known_raw([v1, v2])
        if t is None:
            return self.defer(method, (v1, v2, p1, p2), pos)
        return self._raw_binop(method, v1, v2, p1, p2, t)

    def op_inter(self, v1, v2, p1, p2, pos):
        v1, v2 = _tag_as_set(v1), _tag_as_set(v2)
        if _boxed(v1) or _boxed(v2):
            return self._boxed_binop("op_inter", v1, v2, p1, p2, pos)
        t1, t2 = vtype(v1), vtype(v2)
        if v1 is UNV:
            return v2
        if v2 is UNV:
            return v1
        if v1 is EMPTY or v2 is EMPTY:
            return EMPTY
        if t1 == t2 and t1 in (REL, SET):
            return self._raw_binop("op_inter", v1, v2, p1, p2, t1)
        if is_valset_t(t1) and is_valset_t(t2):
            return VValSet(t1[1], v1.items & v2.items)
        if t1 == CLASSREL and t2 == CLASSREL:
            return VClassRel(v1.pairs & v2.pairs)
        for v, p in ((v1, p1), (v2, p2)):
            if vtype(v) not in (REL, SET, CLASSREL) and not is_valset_t(vtype(v)):
                raise CatError(p, f"intersection on {pp_type(vtype(v))}")
        raise CatError(pos, f"mixing {pp_type(t1)} and {pp_type(t2)} in intersection")

    def op_diff(self, v1, v2, p1, p2, pos):
        v1, v2 = _tag_as_set(v1), _tag_as_set(v2)
        if _boxed(v1) or _boxed(v2):
            return self._boxed_binop("op_diff", v1, v2, p1, p2, pos)
        t1, t2 = vtype(v1), vtype(v2)
        if v2 is UNV:
            if t1 in (REL, SET, CLASSREL, EMPTY_T) or is_valset_t(t1) or v1 is UNV:
                return EMPTY
        if v1 is UNV:
            if v2 is EMPTY:
                return UNV
            if t2 in (REL, SET):
                return self.wrap(self.r_comp(self.raw(v2, t2, p2), t2), t2)
            if is_valset_t(t2) and isinstance(t2[1], tuple) and t2[1][0] == "tag":
                return VValSet(t2[1], self.tag_universe(t2[1][1]) - v2.items)
            if t2 == CLASSREL or is_valset_t(t2):
                raise CatError(p1, f"cannot build universe for element type {pp_type(t2)}")
        if v1 is EMPTY and (t2 in (REL, SET, CLASSREL, EMPTY_T) or is_valset_t(t2)):
            return EMPTY
        if v2 is EMPTY and (t1 in (REL, SET, CLASSREL) or is_valset_t(t1)):
            return v1
        if t1 == t2 and t1 in (REL, SET):
            return self._raw_binop("op_diff", v1, v2, p1, p2, t1)
        if is_valset_t(t1) and is_valset_t(t2):
            return VValSet(t1[1], v1.items - v2.items)
        if t1 == CLASSREL and t2 == CLASSREL:
            return VClassRel(v1.pairs - v2.pairs)
        for v, p in ((v1, p1), (v2, p2)):
            if vtype(v) not in (REL, SET, CLASSREL, EMPTY_T) and not is_valset_t(vtype(v)):
                raise CatError(p, f"difference on {pp_type(vtype(v))}")
        raise CatError(pos, f"mixing {pp_type(t1)} and {pp_type(t2)} in difference")

    def op_seq(self, parts: list[tuple[str, Any]], pos: A.Pos):
        """The sequence of evaluated operands (herd's do_seq): ``("f", set)`` filters,
        ``("r", rel)`` relations, ``("c", classrel)`` class relations, in order."""
        if any(k == "c" for k, _ in parts):
            if any(k != "c" for k, _ in parts):
                raise CatError(pos, "mixing relations in sequence")
            out = parts[0][1].pairs
            for _, v in parts[1:]:
                out = _classrel_seq(out, v.pairs)
            return VClassRel(out)
        # a filter after a relation restricts its range; filters before the first relation
        # restrict its domain; filters alone make an identity
        rels: list = []
        pending = None
        for k, x in parts:
            if k == "f":
                if rels:
                    rels[-1] = self.r_inter([rels[-1], self.r_prod(self.r_top(SET), x)], REL)
                else:
                    pending = x if pending is None else self.r_inter([pending, x], SET)
            else:
                if pending is not None:
                    x = self.r_inter([x, self.r_prod(pending, self.r_top(SET))], REL)
                    pending = None
                rels.append(x)
        if not rels:
            return self.wrap(self.r_toid(pending), REL)
        return self.wrap(self.r_seq(rels), REL)

    def op_add(self, v1, v2, p1, p2, pos):
        if _boxed(v1) or _boxed(v2):
            return self.defer("op_add", (v1, v2, p1, p2), pos)
        if v1 is UNV:
            raise CatError(pos, "universe in set ++")
        if v2 is UNV:
            return UNV
        t1, t2 = vtype(v1), vtype(v2)
        if v2 is EMPTY:
            if t1 == EVENT:
                return self.wrap(self.raw(v1, SET, p1), SET)
            if t1 == PAIR:
                return self.wrap(self.raw(v1, REL, p1), REL)
            if type(v1) is Node:
                return self.defer("op_add", (v1, v2, p1, p2), pos, valset_t(t1))
            return VValSet(t1, frozenset([v1]))
        if is_valset_t(t2):
            if v1 is EMPTY and is_valset_t(t2[1]):
                v1 = VValSet(t2[1][1], frozenset())
                t1 = t2[1]
            if type(v1) is Node:
                return self.defer("op_add", (v1, v2, p1, p2), pos, t2)
            if join_types(t1, t2[1]) is None:
                raise CatError(
                    pos, f"heterogeneous set elements: types {pp_type(t1)} and {pp_type(t2[1])}"
                )
            return VValSet(t2[1] if t2[1] != EMPTY_T else t1, v2.items | {v1})
        if t2 == REL:
            if t1 == PAIR or (t1 == ("tuple", (EVENT, EVENT))):
                if t1 == PAIR:
                    p = self.raw(v1, REL, p1)
                else:
                    p = self.U.pair(v1.items[0].e, v1.items[1].e)
                return self.wrap(self.r_union([p, self.raw(v2, REL, p2)], REL), REL)
            raise CatError(p1, f"this expression of type '{pp_type(t1)}' should be a pair")
        if t2 == SET:
            if t1 == EVENT:
                return self.wrap(
                    self.r_union([self.raw(v1, SET, p1), self.raw(v2, SET, p2)], SET), SET
                )
            raise CatError(p1, f"this expression of type '{pp_type(t1)}' should be an event")
        if t2 == CLASSREL:
            raise CatError(p2, f"this expression of type '{pp_type(t2)}' cannot occur here")
        raise CatError(p2, f"this expression of type '{pp_type(t2)}' should be a set")

    def explicit_set(self, vals: list, poss: list, pos):
        for v, p in zip(vals, poss, strict=True):
            if v is UNV:
                raise CatError(p, "universe in explicit set")
        if not vals:
            return EMPTY
        t0 = vtype(vals[0])
        for v, p in zip(vals[1:], poss[1:], strict=True):
            j = join_types(t0, vtype(v))
            if j is None:
                raise CatError(p, f"type {pp_type(t0)} expected, {pp_type(vtype(v))} found")
            t0 = j
        if any(type(v) is Node for v in vals):
            if t0 in (EVENT, PAIR):
                t = SET if t0 == EVENT else REL
                raws = [self.raw(v, t, p) for v, p in zip(vals, poss, strict=True)]
                return self.wrap(self.r_union(raws, t), t)
            return self.defer("explicit_set", (vals, poss), pos, ANY if t0 == ANY else valset_t(t0))
        if t0 == EVENT:
            s = 0
            for v in vals:
                s |= 1 << v.e
            return VSet(s)
        if t0 == PAIR:
            return VRel(self.universe.from_pairs((v.a, v.b) for v in vals))
        for v, p in zip(vals, poss, strict=True):
            if type(v) in (Closure, Prim, Proc):
                raise CatError(p, f"Sets of {pp_type(vtype(v))} are illegal")
        return VValSet(t0, frozenset(vals))


def _tag_as_set(v):
    """A tag as the singleton set of it (herd's set operations take tags so)."""
    return VValSet(tag_t(v.enum), frozenset([v])) if type(v) is VTag else v


def _boxed(v) -> bool:
    """A node whose run-time value is a tagged value (not a bare set or relation)."""
    return type(v) is Node and not v.raw


def _classrel_seq(r1: frozenset, r2: frozenset) -> frozenset:
    out = set()
    for a, b in r1:
        for c, d in r2:
            if b == c:
                out.add((a, d))
    return frozenset(out)
