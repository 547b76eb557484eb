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

:class:`Evaluator` is the top of a stack of layers: :class:`cat.backend.Backend` (state, raw
sets and relations, coercions, deferral), :class:`cat.operators.Operators` (herd's
operators), :class:`cat.binding.Binder` (names, closures, patterns); here are the dispatch
on expressions, application, local bindings and ``let rec`` (:mod:`cat.fixpoint`), with
:mod:`cat.matching` and :mod:`cat.conditions` for ``match``, ``if`` and ``try``.
:data:`DEFERRED` names the operations a ``generic`` node applies at run time.

Errors raise :class:`cat.errors.CatError` at the position of the offending expression.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from herdsman.cat import ast as A
from herdsman.cat import generation
from herdsman.cat.backend import Deferred
from herdsman.cat.binding import Binder
from herdsman.cat.conditions import ev_if, ev_try
from herdsman.cat.env import Env
from herdsman.cat.errors import CatError
from herdsman.cat.fixpoint import fixpoint
from herdsman.cat.ir import Node
from herdsman.cat.matching import ev_match, ev_matchset
from herdsman.cat.operators import Operators
from herdsman.cat.prims import call_prim
from herdsman.cat.symbolic import vtype
from herdsman.cat.types import ANY, CLASSREL, CLO, PAIR, REL, SET, pp_type
from herdsman.cat.values import EMPTY, UNV, Closure, Prim, VRel, VTag, VTuple

MAX_DEPTH = 400  # inlining / call depth before "recursion too deep"


class Evaluator(Binder):
    """See the module docstring.  ``graph`` for compilation, ``universe`` (and ``sk``) at run
    time; ``variants`` are herd's ``-variant`` names; ``predef`` the predefined names (for
    ``tag2events``)."""

    def eval(self, e: A.Expr, env: Env) -> Any:
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

    def ev_op1(self, e: A.Op1, env: Env):
        op = e.op
        v = self.eval(e.arg, env)
        return self.op1(op, v, e.arg.pos)

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

    def restrict(self, r_e: A.Expr, s1_e: A.Expr, s2_e: A.Expr, env: Env):
        """``r & (S1 * S2)``: domain/range restriction (herd's special case)."""
        r = self.raw(self.eval(r_e, env), REL, r_e.pos)
        s1 = self.raw(self.events_of(self.eval(s1_e, env), s1_e.pos), SET, s1_e.pos)
        s2 = self.raw(self.events_of(self.eval(s2_e, env), s2_e.pos), SET, s2_e.pos)
        return self.wrap(self.r_inter([r, self.r_prod(s1, s2)], REL), REL)

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
        return self.op_seq(parts, e.pos)

    def ev_explicit_set(self, e: A.ExplicitSet, env: Env):
        vals = [self.eval(a, env) for a in e.elems]
        return self.explicit_set(vals, [a.pos for a in e.elems], e.pos)

    def ev_tuple(self, e: A.TupleE, env: Env):
        return VTuple(tuple(self.eval(a, env) for a in e.elems))

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
                    and not e.at_call
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
            return call_prim(self, f.name, a, pos)
        if cls is Node and f.type in (ANY, CLO):
            return self.defer("apply", (f, a), pos)
        raise CatError(pos, "closure or primitive expected")

    def ev_letin(self, e: A.LetIn, env: Env):
        if e.rec:
            env2, ok = self.rec_bind(e.bindings, env, e.pos)
            return self.eval(e.body, env2)
        return self.eval(e.body, self.let_bindings(e.bindings, env))

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
        return fixpoint(self, funs, vals, env, pos, test)


_DISPATCH: dict[type, Callable[[Any, Any, Env], Any]] = {
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
    A.Match: ev_match,
    A.MatchSet: ev_matchset,
    A.Try: ev_try,
    A.If: ev_if,
}

#: What a ``generic`` node (:meth:`cat.backend.Backend.defer`) applies at run time, by name:
#: called with the evaluator, the concrete arguments and the position.
DEFERRED: dict[Deferred, Callable[..., Any]] = {
    "op1": Operators.op1,
    "op_union": Operators.op_union,
    "op_inter": Operators.op_inter,
    "op_diff": Operators.op_diff,
    "op_add": Operators.op_add,
    "explicit_set": Operators.explicit_set,
    "tuple_get": Binder.tuple_get,
    "apply": Evaluator.apply,
    "gen_orders": generation.orders,
    "gen_cross": generation.cross,
}
