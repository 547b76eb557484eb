"""Names and patterns: looking names up, closures, binding arguments and ``let`` patterns
(herd's ``add_args``/``add_pat_val``/``env_rec_funs``).

:class:`Binder` is the layer of the evaluator that makes environments; it evaluates the
right-hand sides of bindings lazily through :meth:`Binder.eval`, which the evaluator
proper (:class:`cat.evaluator.Evaluator`) defines.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from herdsman.cat import ast as A
from herdsman.cat.env import Env, Lazy, force
from herdsman.cat.errors import CatError, UnboundName, quote, suggest
from herdsman.cat.ir import Node
from herdsman.cat.library import defining_files
from herdsman.cat.operators import Operators
from herdsman.cat.symbolic import vtype
from herdsman.cat.types import ANY, REL, SET
from herdsman.cat.values import Closure, VEvent, VPair, VTuple

#: What a missing name looks up to (a binding may be any value).
_MISSING: Any = object()


class Binder(Operators):
    """Environments and patterns (see the module docstring)."""

    def eval(self, e: A.Expr, env: Env) -> Any:
        """The value of expression e in env (the evaluator proper defines it)."""
        raise NotImplementedError

    def lookup(self, env: Env, name: str, pos):
        v = env.get(name, _MISSING)
        if v is _MISSING:
            raise UnboundName(pos, partial(self._unbound_message, env, name))
        try:
            return force(v)
        except CatError as e:
            if e.pos is None:
                e.pos = pos
            raise

    def _unbound_message(self, env: Env, name: str) -> str:
        shown = quote(name, "'")
        files = defining_files(name)
        if files:  # a library name the model did not include: say where it comes from
            where = " or ".join(f'include "{f}"' for f in files)
            return f"unknown name {shown}: it is defined in the built-in library; add {where}"
        cands = [k for k in env.names() if not k.startswith("*")]
        best = suggest(name, cands)
        if best is None:
            return f"unknown name {shown}"
        try:
            t = vtype(force(env.get(best)))
        except CatError:
            t = ANY
        what = {REL: "relation", SET: "set"}.get(t, "name")
        return f"unknown {what} {shown}; did you mean '{best}'?"

    def make_closure(self, e: A.Fun, env: Env, rec: bool) -> Closure:
        fvs = A.free_vars(e)
        captured = {}
        for x in fvs:
            v = env.get(x, _MISSING)
            if v is not _MISSING:
                captured[x] = v
            elif not rec:
                where = A.first_use(e.body, x) or e.pos
                raise UnboundName(where, partial(self._unbound_message, env, x))
        return Closure(e.pat, e.body, Env(captured, env.tags, env.enums), e.name, e.pos)

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
            self.bind_pattern(b.pat, Lazy(partial(self.eval, b.exp, env)), updates, b.pos)
        return env.bind(updates)

    def rec_funs(self, funs: list, env: Env) -> Env:
        """Recursive closures (herd's env_rec_funs)."""
        clos = {name: self.make_closure(fe, env, rec=True) for name, fe in funs}
        for c in clos.values():
            for name, other in clos.items():
                if name in A.free_vars(c.body) and name not in A.pat_names(c.pat):
                    c.env.set_local(name, other)
        return env.bind(clos)
