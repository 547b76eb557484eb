"""Evaluation of cat expressions, concrete or symbolic (herd's ``lib/interpreter.ml`` ``eval``).

One evaluator serves two purposes:

* **compilation** (``graph`` given, no universe): values that depend on the execution become
  :class:`cat.ir.Node` s, typed statically where possible (sets and relations: bare ints at
  run time), everything else (tags, closures, tuples, variants, ``try`` of compile-time
  errors, applications of known closures) is evaluated at compile time — functions are
  inlined at their call sites;
* **run time** (``universe`` given): plain herd semantics on tagged values, used for what the
  compiler had to leave to run time (matches on run-time sets, recursive functions over
  value sets such as ``cross.cat``) through ``runtime``/``generic`` nodes.

Errors raise :class:`cat.errors.CatError` at the position of the offending expression.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from herdsman.cat import ast as A
from herdsman.cat.errors import CatError, NonConvergence, suggest
from herdsman.cat.ir import Graph, Node, walk
from herdsman.cat.values import (
    ANY,
    CLASSREL,
    CLO,
    EMPTY,
    EMPTY_T,
    EVENT,
    PAIR,
    REL,
    SET,
    UNV,
    Closure,
    Prim,
    Proc,
    Type,
    VClassRel,
    VEvent,
    VPair,
    VRel,
    VSet,
    VTag,
    VTuple,
    VValSet,
    is_valset_t,
    join_types,
    pp_type,
    sorted_items,
    tag_t,
    type_of,
    valset_t,
)
from herdsman.graphs.relalg import bits

MAX_DEPTH = 400  # inlining / call depth before "recursion too deep"


# ----------------------------------------------------------------------------- environments


class Lazy:
    """A ``let`` binding evaluated on first use (herd's bindings are lazy)."""

    __slots__ = ("fn", "state", "value")

    def __init__(self, fn) -> None:
        self.fn = fn
        self.state = 0
        self.value: Any = None

    def force(self):
        st = self.state
        if st == 2:
            return self.value
        if st == 3:
            raise self.value
        if st == 1:
            raise CatError(None, "a definition refers to itself (use let rec)")
        self.state = 1
        try:
            v = self.fn()
        except CatError as e:
            self.state = 3
            self.value = e
            raise
        except BaseException:
            self.state = 0
            raise
        self.state = 2
        self.value = v
        self.fn = None
        return v


class ErrorValue:
    """A binding whose evaluation failed; raises when used."""

    __slots__ = ("error",)

    def __init__(self, error: CatError) -> None:
        self.error = error


class Env:
    """Bindings (name -> value or :class:`Lazy`), tags (tag -> enum), enums (enum -> tags)."""

    __slots__ = ("vals", "tags", "enums")

    def __init__(self, vals: dict, tags: dict | None = None, enums: dict | None = None) -> None:
        self.vals = vals
        self.tags = tags if tags is not None else {}
        self.enums = enums if enums is not None else {}

    def bind(self, updates: dict) -> Env:
        vals = dict(self.vals)
        vals.update(updates)
        return Env(vals, self.tags, self.enums)

    def restrict(self, names) -> Env:
        vals = self.vals
        return Env({k: vals[k] for k in names if k in vals}, self.tags, self.enums)


def force(v):
    t = type(v)
    if t is Lazy:
        return v.force()
    if t is ErrorValue:
        raise v.error
    return v


def vtype(v) -> Type:
    return v.type if type(v) is Node else type_of(v)


# ----------------------------------------------------------------------------- evaluator


class Evaluator:
    """See the module docstring.  ``graph`` for compilation, ``universe`` (and ``sk``) at run
    time; ``variants`` are herd's ``-variant`` names; ``predef`` the predefined names (for
    ``tag2events``)."""

    def __init__(
        self,
        graph: Graph | None = None,
        universe=None,
        sk=None,
        variants: frozenset = frozenset(),
        warn=None,
    ) -> None:
        self.g = graph
        self.U = universe
        self.sk = sk
        self.variants = variants
        self.depth = 0
        self.predef: dict = {}
        self.warn = warn or (lambda pos, msg: None)
        self.enums: dict[str, tuple[str, ...]] = {}  # enum -> its tags (global per model)

    @property
    def symbolic(self) -> bool:
        return self.U is None

    # ------------------------------------------------------------------ raw (int | Node) layer
    def _nodeify(self, r, t: Type) -> Node:
        return r if type(r) is Node else self.g.const(r, t)

    def _sym(self, *rs) -> bool:
        return self.U is None or any(type(r) is Node for r in rs)

    def r_top(self, t: Type):
        if self.U is None:
            return self.g.top(t)
        return self.U.ALL if t == SET else self.U.FULL

    def r_id(self):
        return self.g.id() if self.U is None else self.U.ID

    def r_union(self, rs: list, t: Type):
        if self._sym(*rs):
            return self.g.union([self._nodeify(r, t) for r in rs], t)
        out = 0
        for r in rs:
            out |= r
        return out

    def r_inter(self, rs: list, t: Type):
        if self._sym(*rs):
            return self.g.inter([self._nodeify(r, t) for r in rs], t)
        out = rs[0]
        for r in rs[1:]:
            out &= r
        return out

    def r_diff(self, a, b, t: Type):
        if self._sym(a, b):
            return self.g.diff(self._nodeify(a, t), self._nodeify(b, t), t)
        return a & ~b

    def r_comp(self, a, t: Type):
        if self._sym(a):
            return self.g.comp(self._nodeify(a, t), t)
        return (self.U.ALL if t == SET else self.U.FULL) & ~a

    def r_seq(self, rs: list):
        if self._sym(*rs):
            return self.g.seq([self._nodeify(r, REL) for r in rs])
        out = rs[0]
        for r in rs[1:]:
            out = self.U.seq(out, r)
        return out

    def r_inv(self, a):
        if self._sym(a):
            return self.g.inv(self._nodeify(a, REL))
        return self.U.inverse(a)

    def r_plus(self, a):
        if self._sym(a):
            return self.g.plus(self._nodeify(a, REL))
        return self.U.plus(a)

    def r_star(self, a):
        if self._sym(a):
            return self.g.star(self._nodeify(a, REL))
        return self.U.star(a)

    def r_opt(self, a):
        return self.r_union([a, self.r_id()], REL)

    def r_domain(self, a):
        if self._sym(a):
            return self.g.domain(self._nodeify(a, REL))
        return self.U.domain(a)

    def r_range(self, a):
        if self._sym(a):
            return self.g.range(self._nodeify(a, REL))
        return self.U.range(a)

    def r_prod(self, s1, s2):
        if self._sym(s1, s2):
            return self.g.prod(self._nodeify(s1, SET), self._nodeify(s2, SET))
        return self.U.product(s1, s2)

    def r_toid(self, s):
        if self._sym(s):
            return self.g.toid(self._nodeify(s, SET))
        return self.U.ident(s)

    def wrap(self, r, t: Type):
        if type(r) is Node:
            return r
        return VSet(r) if t == SET else VRel(r)

    # ------------------------------------------------------------------ coercions
    def raw(self, v, t: Type, pos):
        """v as a bare int (or raw Node) of type t (SET or REL); herd's eval_events/eval_rel."""
        if type(v) is Node:
            vt = v.type
            if vt == t:
                return v
            if vt == ANY or (vt == EVENT and t == SET) or (vt == PAIR and t == REL):
                return self.g.node("unbox", (v,), t, info=(t, pos), key=t)
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
                return self.U.pair(v.a, v.b)
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
    def defer(self, method: str, args: tuple, pos, rtype: Type = ANY) -> Node:
        """A node applying ``self.<method>(*args, pos)`` at run time (args may hold nodes)."""
        nodes: dict[int, Node] = {}
        collect_nodes(args, nodes)
        return self.g.node(
            "generic", tuple(nodes.values()), rtype, info=(method, args, pos), key=None
        )

    def runtime(self, e: A.Expr, env: Env, rtype: Type = ANY) -> Node:
        """A node evaluating expression e at run time in (the free variables of) env."""
        sub = {}
        for name in A.free_vars(e):
            if name in env.vals:
                try:
                    sub[name] = force(env.vals[name])
                except CatError as err:
                    sub[name] = ErrorValue(err)
        senv = Env(sub, env.tags, env.enums)
        nodes: dict[int, Node] = {}
        collect_nodes(list(sub.values()), nodes)
        return self.g.node("runtime", tuple(nodes.values()), rtype, info=(e, senv), key=None)

    # ------------------------------------------------------------------ variables
    def lookup(self, env: Env, name: str, pos):
        try:
            v = env.vals[name]
        except KeyError:
            raise CatError(pos, self._unbound_message(env, name)) from None
        try:
            return force(v)
        except CatError as e:
            if e.pos is None:
                e.pos = pos
            raise

    def _unbound_message(self, env: Env, name: str) -> str:
        cands = [k for k in env.vals if not k.startswith("*")]
        best = suggest(name, cands)
        if best is None:
            return f"unknown name '{name}'"
        try:
            t = vtype(force(env.vals[best]))
        except CatError:
            t = ANY
        what = {REL: "relation", SET: "set"}.get(t, "name")
        return f"unknown {what} '{name}'; did you mean '{best}'?"

    # ------------------------------------------------------------------ expressions
    def eval(self, e: A.Expr, env: Env):
        m = _DISPATCH.get(type(e))
        if m is None:  # pragma: no cover
            raise CatError(e.pos, f"cannot evaluate {type(e).__name__}")
        return m(self, e, env)

    def ev_konst(self, e: A.Konst, env: Env):
        if e.kind == "zero":
            return VRel(0)
        if e.kind == "empty":
            return EMPTY
        return UNV

    def ev_var(self, e: A.Var, env: Env):
        return self.lookup(env, e.name, e.pos)

    def ev_tag(self, e: A.TagLit, env: Env):
        enum = env.tags.get(e.name)
        if enum is None:
            raise CatError(e.pos, f"tag '{e.name} is undefined")
        return VTag(enum, e.name)

    def ev_fun(self, e: A.Fun, env: Env):
        return self.make_closure(e, env, rec=False)

    def make_closure(self, e: A.Fun, env: Env, rec: bool) -> Closure:
        fvs = A.free_vars(e)
        vals = env.vals
        captured = {}
        for x in fvs:
            if x in vals:
                captured[x] = vals[x]
            elif not rec:
                raise CatError(_var_pos(e.body, x) or e.pos, self._unbound_message(env, x))
        return Closure(e.pat, e.body, Env(captured, env.tags, env.enums), e.name, e.pos)

    # ---- unary operators
    def ev_op1(self, e: A.Op1, env: Env):
        op = e.op
        v = self.eval(e.arg, env)
        return self.op1(op, v, e.arg.pos)

    def op1(self, op: str, v, pos):
        t = vtype(v)
        if type(v) is Node and not v.raw:
            if op == "toid" or (op in ("plus", "star", "opt") and t in (ANY, PAIR)):
                t2 = SET if op == "toid" else REL
                return self.op1(op, self.wrap(self.raw(v, t2, pos), t2), pos)
            return self.defer("op1_rt", (op, v), pos)
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

    def op1_rt(self, op, v, pos):
        return self.op1(op, v, pos)

    def tag_universe(self, enum: str) -> frozenset:
        return frozenset(VTag(enum, x) for x in self.enums.get(enum, ()))

    # ---- n-ary operators
    def ev_opn(self, e: A.OpN, env: Env):
        op = e.op
        if op == "union":
            vals = [self.eval(a, env) for a in e.args]
            return self.op_union(vals, [a.pos for a in e.args], e.pos)
        if op == "seq":
            return self.ev_seq(e, env)
        if op == "inter":
            a, b = e.args
            if isinstance(b, A.OpN) and b.op == "cartesian":
                return self.restrict(a, b.args[0], b.args[1], env)
            if isinstance(a, A.OpN) and a.op == "cartesian":
                return self.restrict(b, a.args[0], a.args[1], env)
            if isinstance(b, A.Op1) and b.op == "comp":
                return self.op_diff(self.eval(a, env), self.eval(b.arg, env), a.pos, b.pos, e.pos)
            if isinstance(a, A.Op1) and a.op == "comp":
                return self.op_diff(self.eval(b, env), self.eval(a.arg, env), b.pos, a.pos, e.pos)
            return self.op_inter(self.eval(a, env), self.eval(b, env), a.pos, b.pos, e.pos)
        if op == "diff":
            a, b = e.args
            return self.op_diff(self.eval(a, env), self.eval(b, env), a.pos, b.pos, e.pos)
        if op == "cartesian":
            a, b = e.args
            s1 = self.raw(self.events_of(self.eval(a, env), a.pos), SET, a.pos)
            s2 = self.raw(self.events_of(self.eval(b, env), b.pos), SET, b.pos)
            return self.wrap(self.r_prod(s1, s2), REL)
        if op == "add":
            a, b = e.args
            return self.op_add(self.eval(a, env), self.eval(b, env), a.pos, b.pos, e.pos)
        raise CatError(e.pos, f"unknown operator {op}")  # pragma: no cover

    def events_of(self, v, pos):
        """herd's eval_events: a set, an event (singleton), {} or _."""
        t = vtype(v)
        if t in (SET, EVENT, ANY, EMPTY_T) or v is UNV:
            return v
        raise CatError(pos, f"type events expected, {pp_type(t)} found")

    def restrict(self, r_e: A.Expr, s1_e: A.Expr, s2_e: A.Expr, env: Env):
        """``r & (S1 * S2)``: domain/range restriction (herd's special case)."""
        r = self.raw(self.eval(r_e, env), REL, r_e.pos)
        s1 = self.raw(self.events_of(self.eval(s1_e, env), s1_e.pos), SET, s1_e.pos)
        s2 = self.raw(self.events_of(self.eval(s2_e, env), s2_e.pos), SET, s2_e.pos)
        return self.wrap(self.r_inter([r, self.r_prod(s1, s2)], REL), REL)

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

    def _raw_binop(self, method: str, v1, v2, p1, p2, t: Type):
        """``op_inter``/``op_diff`` of two values coerced to bare sets or relations of type t."""
        a, b = self.raw(v1, t, p1), self.raw(v2, t, p2)
        r = self.r_inter([a, b], t) if method == "op_inter" else self.r_diff(a, b, t)
        return self.wrap(r, t)

    def _boxed_binop(self, method: str, v1, v2, p1, p2, pos):
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

    def ev_seq(self, e: A.OpN, env: Env):
        """``r1 ; r2 ; ...``: ``[S]`` operands act as filters (herd's eval_rels/do_seq)."""
        parts: list[tuple[str, Any]] = []  # ("f", set) | ("r", rel) | ("c", classrel)
        empty = False
        for a in e.args:
            if isinstance(a, A.Op1) and a.op == "toid":
                s = self.eval(a.arg, env)
                parts.append(("f", self.raw(self.events_of(s, a.arg.pos), SET, a.arg.pos)))
                continue
            v = self.eval(a, env)
            t = vtype(v)
            if v is EMPTY:
                empty = True
                continue
            if t == CLASSREL:
                parts.append(("c", v))
            elif t in (REL, PAIR, ANY) or v is UNV:
                parts.append(("r", self.raw(v, REL, a.pos)))
            else:
                raise CatError(a.pos, f"type rel expected, {pp_type(t)} found")
        if empty:
            return EMPTY
        if any(k == "c" for k, _ in parts):
            if any(k != "c" for k, _ in parts):
                raise CatError(e.pos, "mixing relations in sequence")
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

    # ---- explicit sets and tuples
    def ev_explicit_set(self, e: A.ExplicitSet, env: Env):
        vals = [self.eval(a, env) for a in e.elems]
        return self.explicit_set(vals, [a.pos for a in e.elems], e.pos)

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
            return VRel(self.U.from_pairs((v.a, v.b) for v in vals))
        for v, p in zip(vals, poss, strict=True):
            if type(v) in (Closure, Prim, Proc):
                raise CatError(p, f"Sets of {pp_type(vtype(v))} are illegal")
        return VValSet(t0, frozenset(vals))

    def ev_tuple(self, e: A.TupleE, env: Env):
        return VTuple(tuple(self.eval(a, env) for a in e.elems))

    # ---- application
    def ev_app(self, e: A.App, env: Env):
        f = self.eval(e.fn, env)
        a = self.eval(e.arg, env)
        return self.apply(f, a, e.pos)

    def apply(self, f, a, pos):
        cls = type(f)
        if cls is Closure:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                self.depth -= 1
                raise CatError(pos, f"recursion too deep in call of {f.name}")
            try:
                return self.eval(f.body, self.bind_args(f.pat, a, f.env, pos))
            except CatError as e:
                if (
                    e.pos is not None
                    and pos is not None
                    and e.pos.file != pos.file
                    and not getattr(e, "at_call", False)
                ):
                    # an error inside a library function: report it at the user's call
                    where = f"{os.path.basename(e.pos.file)}:{e.pos.line}"
                    err = CatError(pos, f"{e.message} (in {f.name}, {where})")
                    err.at_call = True
                    raise err from None
                raise
            finally:
                self.depth -= 1
        if cls is Prim:
            from herdsman.cat.prims import call_prim

            return call_prim(self, f.name, a, pos)
        if cls is Node and f.type in (ANY, CLO):
            return self.defer("apply", (f, a), pos)
        raise CatError(pos, "closure or primitive expected")

    def bind_args(self, pat: A.Pat, v, env: Env, pos) -> Env:
        """herd's add_args: a single name takes the argument, a tuple pattern destructures."""
        if isinstance(pat, A.PVar):
            return env.bind({pat.name: v}) if pat.name is not None else env
        names = pat.names
        vs = self.components(v, len(names), pos)
        return env.bind({n: x for n, x in zip(names, vs, strict=True) if n is not None})

    def as_values(self, v, n: int, pos) -> list | None:
        """herd's v_as_vs: the components of a tuple (or of a pair of events)."""
        cls = type(v)
        if cls is VTuple:
            return list(v.items)
        if cls is VPair:
            return [VEvent(v.a), VEvent(v.b)]
        if cls is Node and not v.raw:
            t = v.type
            if isinstance(t, tuple) and t[0] == "tuple":
                return [self.defer("tuple_get", (v, i, n), pos, t[1][i]) for i in range(len(t[1]))]
            if t == ANY:
                return [self.defer("tuple_get", (v, i, n), pos) for i in range(n)]
        return [v]

    def components(self, v, n: int, pos) -> list:
        """The n components of v (a tuple of n values), else an arity error."""
        vs = self.as_values(v, n, pos)
        if vs is None or len(vs) != n:
            raise CatError(
                pos, f"wrong number of arguments: expected {n}, got {1 if vs is None else len(vs)}"
            )
        return vs

    def tuple_get(self, v, i: int, n: int, pos):
        return self.components(v, n, pos)[i]

    # ---- bindings
    def bind_pattern(self, pat: A.Pat, lazy_value, updates: dict, pos) -> None:
        """Add (lazy) bindings of pattern ``pat`` to ``updates`` (herd's add_pat_val)."""
        if isinstance(pat, A.PVar):
            if pat.name is not None:
                updates[pat.name] = lazy_value
            return
        n = len(pat.names)
        for i, name in enumerate(pat.names):
            if name is None:
                continue

            def get(i=i):
                vs = self.as_values(force(lazy_value), n, pos)
                if vs is None or len(vs) <= i:
                    raise CatError(pos, "binding mismatch")
                return vs[i]

            updates[name] = Lazy(get)

    def let_bindings(self, bindings, env: Env) -> Env:
        updates: dict = {}
        for b in bindings:
            self.bind_pattern(b.pat, Lazy(lambda b=b: self.eval(b.exp, env)), updates, b.pos)
        return env.bind(updates)

    def ev_letin(self, e: A.LetIn, env: Env):
        if e.rec:
            env2, ok = self.rec_bind(e.bindings, env, e.pos)
            return self.eval(e.body, env2)
        return self.eval(e.body, self.let_bindings(e.bindings, env))

    def rec_funs(self, funs: list, env: Env) -> Env:
        """Recursive closures (herd's env_rec_funs)."""
        clos = {name: self.make_closure(fe, env, rec=True) for name, fe in funs}
        for c in clos.values():
            for name, other in clos.items():
                if name in A.free_vars(c.body) and name not in A.pat_names(c.pat):
                    c.env.vals[name] = other
        return env.bind(clos)

    def rec_bind(self, bindings, env: Env, pos, test: A.AppTest | None = None):
        """``let rec``: recursive functions, and least fixpoints of the other bindings.

        Returns (env, ok) where ok is True, False (the ``when`` test failed) or a node
        (decided at run time)."""
        funs, vals = [], []
        for b in bindings:
            if isinstance(b.exp, A.Fun):
                if not isinstance(b.pat, A.PVar) or b.pat.name is None:
                    raise CatError(b.pos, "binding mismatch")
                funs.append((b.pat.name, b.exp))
            else:
                vals.append(b)
        if not vals:
            return self.rec_funs(funs, env), True
        from herdsman.cat.fixpoint import fixpoint

        return fixpoint(self, funs, vals, env, pos, test)

    # ---- match, try, if
    def ev_match(self, e: A.Match, env: Env):
        v = self.eval(e.exp, env)
        if type(v) is Node and (
            v.type == ANY or (isinstance(v.type, tuple) and v.type[0] == "tag")
        ):
            return self.runtime(e, env)
        if type(v) is VTag:
            for tag, x in e.clauses:
                if tag == v.name:
                    return self.eval(x, env)
            if e.default is not None:
                return self.eval(e.default, env)
            raise CatError(e.pos, f"pattern matching failed on value '{v.name}'")
        if v is EMPTY:
            raise CatError(e.exp.pos, "matching on empty")
        if v is UNV:
            raise CatError(e.exp.pos, "matching on universe")
        raise CatError(e.exp.pos, f"matching on non-tag value of type '{pp_type(vtype(v))}'")

    def ev_matchset(self, e: A.MatchSet, env: Env):
        v = self.eval(e.exp, env)
        if type(v) is Node:
            if v.type in (ANY, SET, REL) or is_valset_t(v.type):
                return self.runtime(e, env)
            raise CatError(e.exp.pos, f"set-matching on non-set value of type '{pp_type(v.type)}'")
        if v is EMPTY:
            return self.eval(e.if_empty, env)
        if v is UNV:
            raise CatError(e.pos, "Cannot set-match on universe")
        cls = type(v)
        if (cls is VSet or cls is VRel) and not v.bits:
            return self.eval(e.if_empty, env)
        if cls is VSet:
            elems = [VEvent(i) for i in bits(v.bits)]

            def mk(xs):
                s = 0
                for x in xs:
                    s |= 1 << x.e
                return VSet(s)
        elif cls is VRel:
            elems = [VPair(i, j) for i, j in self.U.pairs(v.bits)]

            def mk(xs):
                return VRel(self.U.from_pairs((x.a, x.b) for x in xs))
        elif cls is VValSet:
            elems = sorted_items(v)

            def mk(xs, t=v.elem):
                return VValSet(t, frozenset(xs))
        else:
            raise CatError(
                e.exp.pos, f"set-matching on non-set value of type '{pp_type(vtype(v))}'"
            )
        if not elems:
            return self.eval(e.if_empty, env)
        c = e.clause
        if isinstance(c, A.EltRem):
            upd = {}
            if c.elt is not None:
                upd[c.elt] = elems[0]
            if c.rest is not None:
                upd[c.rest] = mk(elems[1:])
            return self.eval(c.exp, env.bind(upd))
        mid = len(elems) // 2
        upd = {}
        if c.pre is not None:
            upd[c.pre] = mk(elems[:mid])
        if c.elt is not None:
            upd[c.elt] = elems[mid]
        if c.post is not None:
            upd[c.post] = mk(elems[mid + 1 :])
        return self.eval(c.exp, env.bind(upd))

    def ev_try(self, e: A.Try, env: Env):
        try:
            v = self.eval(e.exp, env)
        except CatError:
            return self.eval(e.default, env)
        if self.g is not None and may_fail(v):
            return self.runtime(e, env)
        return v

    def ev_if(self, e: A.If, env: Env):
        c = e.cond
        if isinstance(c, A.CondVariant):
            ok = self.variant(c.cond)
        else:
            left = self.eval(c.left, env)
            right = self.eval(c.right, env)
            if contains_node(left) or contains_node(right):
                self.check_condition_types(c, left, right)
                sel = self.select(e, c, left, right, env)
                return sel if sel is not None else self.runtime(e, env)
            ok = self.condition(c, left, right)
        return self.eval(e.then if ok else e.else_, env)

    def check_condition_types(self, c, left, right) -> None:
        """Type errors of a condition decided at run time, reported now."""
        t1, t2 = vtype(left), vtype(right)
        if ANY in (t1, t2):
            return
        if isinstance(c, A.CondIn):
            if t1 in (SET, REL) and not is_valset_t(t2):
                raise CatError(c.right.pos, f"set expected, found {pp_type(t2)}")
            return
        if join_types(t1, t2) is None:
            raise CatError(c.right.pos, f"type {pp_type(t1)} expected, {pp_type(t2)} found")

    def select(self, e: A.If, c, left, right, env: Env):
        """``if a = b`` / ``if a subset b`` over sets or relations, both branches sets or
        relations of one type: a ``select`` node choosing at run time; else None."""
        if isinstance(c, A.CondIn):
            return None
        t = join_types(vtype(left), vtype(right))
        if t not in (SET, REL):
            return None
        try:
            a = self.raw(left, t, c.left.pos)
            b = self.raw(right, t, c.right.pos)
            v1 = self.eval(e.then, env)
            v2 = self.eval(e.else_, env)
        except CatError:
            return None
        t2 = join_types(vtype(v1), vtype(v2))
        if t2 not in (SET, REL) or may_fail(v1) or may_fail(v2):
            return None
        g = self.g
        x1 = self._nodeify(self.raw(v1, t2, e.then.pos), t2)
        x2 = self._nodeify(self.raw(v2, t2, e.else_.pos), t2)
        a, b = self._nodeify(a, t), self._nodeify(b, t)
        kind = "eq" if isinstance(c, A.CondEq) else "subset"
        return g.node("select", (a, b, x1, x2), t2, info=kind)

    def condition(self, c, v1, v2) -> bool:
        if isinstance(c, A.CondEq):
            return values_equal(v1, v2)
        if isinstance(c, A.CondSubset):
            t = join_types(vtype(v1), vtype(v2))
            if t == REL or t == SET:
                a = self.raw(v1, t, c.left.pos)
                b = self.raw(v2, t, c.right.pos)
                return not (a & ~b)
            if t is not None and is_valset_t(t):
                return (v1.items if v1 is not EMPTY else frozenset()) <= (
                    v2.items if v2 is not EMPTY else frozenset()
                )
            if t == EMPTY_T:
                return True
            raise CatError(c.left.pos, f"cannot perform subset on type '{pp_type(vtype(v1))}'")
        # in
        t1 = vtype(v1)
        if t1 == EVENT:
            s = self.raw(self.events_of(v2, c.right.pos), SET, c.right.pos)
            return bool((s >> v1.e) & 1)
        if t1 == PAIR or t1 == ("tuple", (EVENT, EVENT)):
            r = self.raw(v2, REL, c.right.pos)
            a, b = (v1.a, v1.b) if t1 == PAIR else (v1.items[0].e, v1.items[1].e)
            return self.U.has(r, a, b)
        if type(v2) is VValSet:
            if join_types(t1, v2.elem) is None:
                raise CatError(c.left.pos, f"type {pp_type(v2.elem)} expected, {pp_type(t1)} found")
            return v1 in v2.items
        if v2 is EMPTY:
            return False
        raise CatError(c.right.pos, f"set expected, found {pp_type(vtype(v2))}")

    def variant(self, v: A.VCond) -> bool:
        if isinstance(v, A.VName):
            return v.name.lower() in self.variants
        if isinstance(v, A.VNot):
            return not self.variant(v.arg)
        if isinstance(v, A.VAnd):
            return self.variant(v.left) and self.variant(v.right)
        return self.variant(v.left) or self.variant(v.right)


def _var_pos(e, name: str):
    """Position of the first use of variable ``name`` in expression e (for errors)."""
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Var):
            if x.name == name:
                return x.pos
            continue
        if isinstance(x, A.Expr):
            for f in getattr(x, "__slots__", ()):
                v = getattr(x, f, None)
                if isinstance(v, A.Expr):
                    stack.append(v)
                elif isinstance(v, tuple):
                    for y in reversed(v):
                        if isinstance(y, A.Expr):
                            stack.append(y)
                        elif isinstance(y, tuple):
                            stack.extend(z for z in y if isinstance(z, A.Expr))
                        elif isinstance(y, A.Binding):
                            stack.append(y.exp)
                elif isinstance(v, (A.EltRem, A.PreEltPost)):
                    stack.append(v.exp)
                elif isinstance(v, (A.CondEq, A.CondSubset, A.CondIn)):
                    stack.extend([v.right, v.left])
    return None


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


def values_equal(v1, v2) -> bool:
    """herd's structural equality (ValOrder.compare = 0), {} equal to any empty set."""
    if v1 is EMPTY or v2 is EMPTY:
        other = v2 if v1 is EMPTY else v1
        if other is EMPTY:
            return True
        t = type(other)
        if t is VSet or t is VRel:
            return other.bits == 0
        if t is VValSet:
            return not other.items
        if t is VClassRel:
            return not other.pairs
        return False
    return v1 == v2


# ----------------------------------------------------------------------------- node traversal


def collect_nodes(v, acc: dict, seen: set | None = None) -> None:
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
        for name, x in list(v.env.vals.items()):
            if type(x) is Lazy:
                try:
                    x = x.force()
                except CatError as err:
                    x = ErrorValue(err)
                v.env.vals[name] = x
            collect_nodes(x, acc, seen)
    elif t is Lazy:
        try:
            collect_nodes(v.force(), acc, seen)
        except CatError:
            pass


def contains_node(v) -> bool:
    acc: dict = {}
    collect_nodes(v, acc)
    return bool(acc)


_FAILING_OPS = frozenset({"generic", "runtime", "prim", "unbox"})


def may_fail(v) -> bool:
    """Whether computing v at run time can raise (generic or run-time evaluation inside)."""
    acc: dict = {}
    collect_nodes(v, acc)
    return any(n.op in _FAILING_OPS for n in walk(acc.values(), fix_tests=False))


def concretize(v, nodevals: dict, memo: dict):
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
        for name, x in v.env.vals.items():
            env.vals[name] = concretize(x, nodevals, memo)
        return c
    return v


# inlining and run-time evaluation of recursive cat functions recurse in Python
if sys.getrecursionlimit() < 20000:
    sys.setrecursionlimit(20000)

_DISPATCH = {
    A.Konst: Evaluator.ev_konst,
    A.Var: Evaluator.ev_var,
    A.TagLit: Evaluator.ev_tag,
    A.Fun: Evaluator.ev_fun,
    A.Op1: Evaluator.ev_op1,
    A.OpN: Evaluator.ev_opn,
    A.ExplicitSet: Evaluator.ev_explicit_set,
    A.TupleE: Evaluator.ev_tuple,
    A.App: Evaluator.ev_app,
    A.LetIn: Evaluator.ev_letin,
    A.Match: Evaluator.ev_match,
    A.MatchSet: Evaluator.ev_matchset,
    A.Try: Evaluator.ev_try,
    A.If: Evaluator.ev_if,
}

__all__ = [
    "Evaluator",
    "Env",
    "Lazy",
    "ErrorValue",
    "force",
    "vtype",
    "concretize",
    "collect_nodes",
    "NonConvergence",
]
