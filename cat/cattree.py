"""lark's parse tree of a cat file -> :mod:`cat.ast`, every node with its position."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Token, Transformer, v_args
from lark.tree import Meta

from herdsman.cat import ast as A


def _is_token(it, kind: str) -> bool:
    """Whether a child of a tree node is a token of type ``kind`` (a keyword kept by lark)."""
    return isinstance(it, Token) and it.type == kind


def _without(items: list, kind: str) -> list:
    """The children of a tree node but its tokens of type ``kind``."""
    return [it for it in items if not _is_token(it, kind)]


def _pattern(formals: tuple) -> A.Pat:
    """The pattern of a list of formal parameters: a name alone, else a tuple."""
    return A.PVar(formals[0]) if len(formals) == 1 else A.PTuple(formals)


def _children(make: Callable[..., Any], *at: int) -> Any:
    """The rule method making ``make`` of the children at ``at``."""

    def rule(self: ToAst, items: list) -> Any:
        return make(*(items[i] for i in at))

    return rule


def _placed(make: Callable[..., Any], *at: int) -> Any:
    """The rule method making ``make`` of the rule's position and the children at ``at``."""

    @v_args(meta=True)
    def rule(self: ToAst, meta: Meta, items: list) -> Any:
        return make(self._mpos(meta), *(items[i] for i in at))

    return rule


def _match(make: Callable[..., Any]) -> Any:
    """The rule method of a ``match`` (an instruction or an expression): ``make`` of the
    rule's position, the matched expression, its clauses and its default."""

    @v_args(meta=True)
    def rule(self: ToAst, meta: Meta, items: list) -> Any:
        exp, (clauses, default) = _without(items, "ALT")
        return make(self._mpos(meta), exp, clauses, default)

    return rule


def _opn(op: str) -> Any:
    """The rule method of the n-ary operator ``op`` (its operands the children)."""

    @v_args(meta=True)
    def rule(self: ToAst, meta: Meta, items: list[A.Expr]) -> A.OpN:
        return A.OpN(self._mpos(meta), op, tuple(items))

    return rule


def _op1(op: str, at: int = 0) -> Any:
    """The rule method of the unary operator ``op`` (its operand the ``at``-th child)."""

    @v_args(meta=True)
    def rule(self: ToAst, meta: Meta, items: list[A.Expr]) -> A.Op1:
        return A.Op1(self._mpos(meta), op, items[at])

    return rule


class ToAst(Transformer):
    """lark tree -> cat.ast; positions come from ``meta`` or tokens."""

    def __init__(self, path: str, lines: list[str]) -> None:
        super().__init__()
        self.path = path
        self.lines = lines

    def _pos(self, line: int, col: int) -> A.Pos:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return A.Pos(self.path, line, col, text)

    def _mpos(self, meta: Meta) -> A.Pos:
        if meta.empty:
            return A.Pos(self.path, 0, 0)
        return self._pos(meta.line, meta.column)

    def _tpos(self, tok: Token) -> A.Pos:
        return self._pos(tok.line or 0, tok.column or 0)  # 0: a token made, not read

    # ---- model
    @v_args(meta=True)
    def start(self, meta, items):
        arch, name, catdep, instrs = "None", "Unknown", False, []
        for it in items:
            if isinstance(it, tuple) and it and it[0] == "identity":
                arch, name = it[1], it[2]
            elif it == "catdep":
                catdep = True
            else:
                instrs.append(it)
        return ("model", arch, name, catdep, tuple(instrs))

    def ident_var_var(self, items):
        return ("identity", str(items[0]), str(items[1]))

    def ident_var_str(self, items):
        return ("identity", str(items[0]), str(items[1])[1:-1])

    def ident_var(self, items):
        return ("identity", str(items[0]), str(items[0]))

    def ident_str(self, items):
        s = str(items[0])[1:-1]
        return ("identity", s, s)

    def catdep(self, items):
        return "catdep"

    # ---- instructions
    @v_args(meta=True)
    def enum(self, meta, items):
        name = str(items[0])
        tags = tuple(str(t)[1:] for t in items[1:] if t.type == "TAG")
        return A.Enum(self._mpos(meta), name, tags)

    let_ins = _placed(A.Let, 0)

    @v_args(meta=True)
    def letrec_ins(self, meta, items):
        items = [it for it in items if not isinstance(it, Token)]
        test = items[1] if len(items) > 1 else None
        return A.Rec(self._mpos(meta), items[0], test)

    def when_test(self, items):
        return items[0]

    match_ins = _match(A.InsMatch)

    def ins_clauses(self, items):
        clauses = []
        default = None
        for it in items:
            if isinstance(it, Token):
                continue
            if it[0] == "default":
                default = it[1]
            else:
                clauses.append(it)
        return tuple(clauses), default

    def ins_clause(self, items):
        return (str(items[0])[1:], items[1])

    def ins_default(self, items):
        return ("default", items[1])

    def ins_list(self, items):
        return tuple(items)

    test_ins = _placed(A.Test, 1, 0)

    @v_args(meta=True)
    def check_ins(self, meta, items):
        return A.Test(self._mpos(meta), items[0], "check")

    def test_type(self, items):
        word = str(items[0])
        return {"flag": "flag", "undefined_unless": "undefined_unless", "assert": "assert"}[word]

    @v_args(meta=True)
    def app_test(self, meta, items):
        negated = False
        if _is_token(items[0], "TILDE"):
            negated = True
            items = items[1:]
        kind, exp = items[0], items[1]
        name = items[2] if len(items) > 2 else None
        return A.AppTest(self._mpos(meta), negated, kind, exp, name)

    def test_kind(self, items):
        return str(items[0])

    def as_name(self, items):
        return str(items[0])

    def var_list(self, items):
        return tuple(str(t) for t in items)

    @v_args(meta=True)
    def showas_ins(self, meta, items):
        return A.ShowAs(self._mpos(meta), items[0], str(items[1]))

    show_ins = _placed(A.Show, 0)

    unshow_ins = _placed(A.UnShow, 0)

    @v_args(meta=True)
    def include_ins(self, meta, items):
        return A.Include(self._mpos(meta), str(items[0])[1:-1])

    @v_args(meta=True)
    def proc_tuple(self, meta, items):
        return self._procedure(meta, items, _pattern)

    @v_args(meta=True)
    def proc_var(self, meta, items):
        return self._procedure(meta, items, A.PVar)

    def _procedure(self, meta: Meta, items: list, pattern: Callable[..., A.Pat]) -> A.Procedure:
        """``[rec] procedure name(formals) = body end``, its formals made by ``pattern``."""
        rec = _is_token(items[0], "REC")
        if rec:
            items = items[1:]
        return A.Procedure(self._mpos(meta), str(items[0]), pattern(items[1]), items[2], rec)

    @v_args(meta=True)
    def call_ins(self, meta, items):
        name = str(items[0])
        as_name = items[2] if len(items) > 2 else None
        return A.Call(self._mpos(meta), name, items[1], as_name)

    debug_ins = _placed(A.Debug, 0)

    @v_args(meta=True)
    def forall_ins(self, meta, items):
        items = _without(items, "IN")
        return A.Forall(self._mpos(meta), str(items[0]), items[1], items[2])

    @v_args(meta=True)
    def with_ins(self, meta, items):
        return A.WithFrom(self._mpos(meta), str(items[0]), items[1])

    @v_args(meta=True)
    def ifvariant_ins(self, meta, items):
        cond, then = items[0], items[1]
        else_ = items[2] if len(items) > 2 else ()
        return A.IfVariant(self._mpos(meta), cond, then, else_)

    @v_args(meta=True)
    def events_ins(self, meta, items):
        return A.Events(self._mpos(meta), str(items[0]), items[1], False)

    @v_args(meta=True)
    def default_ins(self, meta, items):
        return A.Events(self._mpos(meta), str(items[0]), items[1], True)

    # ---- bindings
    def pat_bind_list(self, items):
        return tuple(items)

    @v_args(meta=True)
    def bind_tuple(self, meta, items):
        formals, exp = items
        return A.Binding(self._mpos(meta), A.PTuple(formals), exp)

    @v_args(meta=True)
    def bind_pats(self, meta, items):
        *pats, exp = items
        pat = _pattern(tuple(pats))
        return A.Binding(self._mpos(meta), pat, exp)

    @v_args(meta=True)
    def bind_fun1(self, meta, items):
        name, p, body = str(items[0]), items[1], items[2]
        pos = self._mpos(meta)
        return A.Binding(pos, A.PVar(name), A.Fun(pos, A.PVar(p), body, name))

    @v_args(meta=True)
    def bind_funn(self, meta, items):
        name, formals, body = str(items[0]), items[1], items[2]
        pos = self._mpos(meta)
        pat = _pattern(formals)
        return A.Binding(pos, A.PVar(name), A.Fun(pos, pat, body, name))

    def pat0(self, items):
        t = items[0]
        return None if t.type == "UNDERSCORE" else str(t)

    def formals(self, items):
        return tuple(items)

    # ---- expressions
    @v_args(meta=True)
    def let_exp(self, meta, items):
        items = [it for it in items if not isinstance(it, Token)]
        return A.LetIn(self._mpos(meta), items[0], items[1], False)

    @v_args(meta=True)
    def letrec_exp(self, meta, items):
        items = [it for it in items if not isinstance(it, Token)]
        return A.LetIn(self._mpos(meta), items[0], items[1], True)

    @v_args(meta=True)
    def fun1(self, meta, items):
        return A.Fun(self._mpos(meta), A.PVar(items[0]), items[1])

    @v_args(meta=True)
    def funn(self, meta, items):
        formals, body = items
        pat = _pattern(formals)
        return A.Fun(self._mpos(meta), pat, body)

    try_exp = _placed(A.Try, 0, 1)

    if_exp = _placed(A.If, 0, 1, 2)

    match_exp = _match(A.Match)

    def tag_clauses(self, items):
        return self.ins_clauses(items)

    def tag_clause(self, items):
        return self.ins_clause(items)

    def tag_default(self, items):
        return self.ins_default(items)

    @v_args(meta=True)
    def matchset_exp(self, meta, items):
        items = _without(items, "ALT")
        exp, (if_empty, clause) = items
        return A.MatchSet(self._mpos(meta), exp, if_empty, clause)

    def set_clauses_ef(self, items):
        return (items[0], items[2])

    def set_clauses_fe(self, items):
        return (items[2], items[0])

    def empty_clause(self, items):
        return items[0]

    elt_rem = _children(A.EltRem, 0, 1, 2)

    pre_elt_post = _children(A.PreEltPost, 0, 1, 2, 3)

    # ---- conditions
    cond_eq = _children(A.CondEq, 0, 1)

    cond_subset = _children(A.CondSubset, 0, 1)

    cond_in = _children(A.CondIn, 0, 2)

    cond_variant = _children(A.CondVariant, 0)

    v_or = _children(A.VOr, 0, 1)

    v_and = _children(A.VAnd, 0, 1)

    v_not = _children(A.VNot, 0)

    def v_name(self, items):
        tok = items[-1]
        return A.VName(self._tpos(tok), str(tok)[1:-1])

    # ---- operators
    @v_args(meta=True)
    def tuple(self, meta, items):
        return A.TupleE(self._mpos(meta), tuple(items))

    def _nary(self, meta: Meta, op: str, items: list[A.Expr]) -> A.OpN:
        flat: list[A.Expr] = []
        for it in items:
            if isinstance(it, A.OpN) and it.op == op and op in ("union", "seq"):
                flat.extend(it.args)
            else:
                flat.append(it)
        return A.OpN(self._mpos(meta), op, tuple(flat))

    @v_args(meta=True)
    def union(self, meta, items):
        return self._nary(meta, "union", items)

    @v_args(meta=True)
    def seq(self, meta, items):
        return self._nary(meta, "seq", items)

    add = _opn("add")
    diff = _opn("diff")
    inter = _opn("inter")

    @v_args(meta=True)
    def cartesian(self, meta, items):
        return A.OpN(self._mpos(meta), "cartesian", (items[0], items[2]))

    comp = _op1("comp", 1)  # its first child is the ~
    star = _op1("star")
    plus = _op1("plus")
    opt = _op1("opt")
    inv = _op1("inv")
    toid = _op1("toid")

    app = _placed(A.App, 0, 1)

    def var(self, items):
        t = items[0]
        return A.Var(self._tpos(t), str(t))

    def zero(self, items):
        return A.Konst(self._tpos(items[0]), "zero")

    def universe(self, items):
        return A.Konst(self._tpos(items[0]), "universe")

    def tag(self, items):
        t = items[0]
        return A.TagLit(self._tpos(t), str(t)[1:])

    @v_args(meta=True)
    def explicit_set(self, meta, items):
        elems = items[0]
        if not elems:
            return A.Konst(self._mpos(meta), "empty")
        return A.ExplicitSet(self._mpos(meta), elems)

    @v_args(meta=True)
    def unit(self, meta, items):
        return A.TupleE(self._mpos(meta), ())

    def args(self, items):
        return tuple(items)
