"""Print cat expressions back, fully parenthesised (for tests, debugging and fingerprints).

``sexp(e)`` is an unambiguous prefix form, e.g. ``(union a (seq b c))``; with
``rename=True`` bound names are replaced by their binding depth, so that two
alpha-equivalent definitions print the same (used to recognise co generation).
"""

from __future__ import annotations

from herdsman.cat import ast as A


def sexp(e: A.Expr, rename: bool = False) -> str:
    return _Printer(rename).expr(e, {})


class _Printer:
    def __init__(self, rename: bool) -> None:
        self.rename = rename

    def bind(self, env: dict[str, str], names) -> dict[str, str]:
        if not self.rename:
            return env
        env = dict(env)
        for n in names:
            if n is not None:
                env[n] = f"#{len(env)}"
        return env

    def name(self, env: dict[str, str], n: str | None) -> str:
        if n is None:
            return "_"
        return env.get(n, n) if self.rename else n

    def pat(self, env: dict[str, str], p: A.Pat) -> str:
        if isinstance(p, A.PVar):
            return self.name(env, p.name)
        return "(" + ",".join(self.name(env, n) for n in p.names) + ")"

    def expr(self, e: A.Expr, env: dict[str, str]) -> str:
        x = self.expr
        if isinstance(e, A.Konst):
            return {"zero": "0", "empty": "{}", "universe": "_"}[e.kind]
        if isinstance(e, A.Var):
            return self.name(env, e.name)
        if isinstance(e, A.TagLit):
            return "'" + e.name
        if isinstance(e, A.ExplicitSet):
            return "{" + " ".join(x(a, env) for a in e.elems) + "}"
        if isinstance(e, A.TupleE):
            return "(tuple " + " ".join(x(a, env) for a in e.elems) + ")"
        if isinstance(e, A.Op1):
            return f"({e.op} {x(e.arg, env)})"
        if isinstance(e, A.OpN):
            return f"({e.op} " + " ".join(x(a, env) for a in e.args) + ")"
        if isinstance(e, A.App):
            return f"(app {x(e.fn, env)} {x(e.arg, env)})"
        if isinstance(e, A.Fun):
            env2 = self.bind(env, A.pat_names(e.pat))
            return f"(fun {self.pat(env2, e.pat)} {x(e.body, env2)})"
        if isinstance(e, A.LetIn):
            names = [n for b in e.bindings for n in A.pat_names(b.pat)]
            env2 = self.bind(env, names)
            inner = env2 if e.rec else env
            bs = " ".join(f"[{self.pat(env2, b.pat)} {x(b.exp, inner)}]" for b in e.bindings)
            return f"({'letrec' if e.rec else 'let'} {bs} {x(e.body, env2)})"
        if isinstance(e, A.Match):
            cl = " ".join(f"['{t} {x(c, env)}]" for t, c in e.clauses)
            d = x(e.default, env) if e.default is not None else "-"
            return f"(match {x(e.exp, env)} {cl} {d})"
        if isinstance(e, A.MatchSet):
            c = e.clause
            if isinstance(c, A.EltRem):
                env2 = self.bind(env, [c.elt, c.rest])
                cl = f"[{self.name(env2, c.elt)} {self.name(env2, c.rest)} {x(c.exp, env2)}]"
            else:
                env2 = self.bind(env, [c.pre, c.elt, c.post])
                cl = (
                    f"[{self.name(env2, c.pre)} {self.name(env2, c.elt)} "
                    f"{self.name(env2, c.post)} {x(c.exp, env2)}]"
                )
            return f"(matchset {x(e.exp, env)} {x(e.if_empty, env)} {cl})"
        if isinstance(e, A.Try):
            return f"(try {x(e.exp, env)} {x(e.default, env)})"
        if isinstance(e, A.If):
            return f"(if {self.cond(e.cond, env)} {x(e.then, env)} {x(e.else_, env)})"
        raise TypeError(type(e).__name__)

    def cond(self, c, env) -> str:
        if isinstance(c, A.CondEq):
            return f"(= {self.expr(c.left, env)} {self.expr(c.right, env)})"
        if isinstance(c, A.CondSubset):
            return f"(subset {self.expr(c.left, env)} {self.expr(c.right, env)})"
        if isinstance(c, A.CondIn):
            return f"(in {self.expr(c.left, env)} {self.expr(c.right, env)})"
        return f"(variant {vcond(c.cond)})"


def vcond(v: A.VCond) -> str:
    if isinstance(v, A.VName):
        return repr(v.name)
    if isinstance(v, A.VNot):
        return f"(not {vcond(v.arg)})"
    if isinstance(v, A.VAnd):
        return f"(and {vcond(v.left)} {vcond(v.right)})"
    return f"(or {vcond(v.left)} {vcond(v.right)})"
