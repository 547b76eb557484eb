"""A model's checks read from cat's AST for explanations: cat's side of the explanation's
door (``cat.api.check_view``, ``cat.api.probe``).

A :class:`CheckView` is what explanations read of a check: its operand and the
definitions in force there as :class:`Term` s (herdsman's own records of relation
expressions, with their cat text), never cat's AST, which stays here with the view.
:func:`check_site` finds the check at a position by walking the model's top-level
instructions in the order the compiler runs them: ``include`` s followed (resolved as
the compiler does: the including file's directory, the include directories, the built-in
library), ``if "variant"`` decided, each ``let`` recorded (the implicit stdlib's are not:
they are herd's, not the model's).  A check inside a procedure, a ``forall`` or a
``match`` is not found.  :func:`with_shows` is the model with ``show <e> as <name>``
instructions right after that check (the includes and variant blocks on the way inlined,
which the compiler runs the same), and :class:`Probe` reads the shown values of a
candidate execution from such a copy.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from herdsman.cat import ast as A
from herdsman.cat.conditions import variant
from herdsman.cat.contract import PreparedModel
from herdsman.cat.modelfiles import find_include, load_file
from herdsman.cat.parser import parse_text
from herdsman.graphs.execution import Relations
from herdsman.litmus.base.errors import InputError


@dataclass(frozen=True, slots=True)
class Term:
    """A relation expression of the model as explanations read it.  ``op``: ``name`` (a
    name of the model, its ``text``), ``zero``, ``empty`` or ``universe`` (cat's ``0``,
    ``{}``, ``_``), an operator of several operands (``union``, ``seq``, ``inter``,
    ``add``, their chains flattened; ``diff``, ``cartesian``), of one (``star``,
    ``plus``, ``opt``, ``inv``, ``toid``, ``comp``), or ``other`` (an application, a
    tag, a set: read whole); ``text``: its cat text, operands parenthesised unless they
    bind tightest; ``args``: its operands."""

    op: str
    text: str
    args: tuple[Term, ...] = ()


@dataclass(frozen=True, slots=True)
class Definition:
    """A name's binding in force at a check: its term (None when it is no relation
    expression: a function, a tuple's part, a ``with`` variable, a procedure...) and
    whether it is a ``let rec``."""

    term: Term | None
    rec: bool


@dataclass(frozen=True, slots=True)
class CheckSite:
    """A check read from the model's AST: its ``operand``, the ``definitions`` in force
    there (each name's expression, None when it is no relation expression, and whether
    it is a ``let rec``), and the model's instructions run before and after it
    (``before`` ends with the check), includes and variant blocks on the way inlined."""

    operand: A.Expr
    definitions: Mapping[str, tuple[A.Expr | None, bool]]
    before: tuple[A.Ins, ...]
    after: tuple[A.Ins, ...]


class CheckView:
    """A check as explanations read it: its ``operand`` and the ``definitions`` in force
    there, as terms.  Its site in the model's AST and each term's expression stay on
    cat's side (:meth:`expression`, for :func:`with_shows`)."""

    def __init__(self, site: CheckSite) -> None:
        self.site = site
        self._exprs: dict[Term, A.Expr] = {}
        self.operand: Term = self._term(site.operand)
        self.definitions: Mapping[str, Definition] = {
            name: Definition(None if e is None else self._term(e), rec)
            for name, (e, rec) in site.definitions.items()
        }

    def expression(self, t: Term) -> A.Expr:
        """The model's expression of a term of this view."""
        return self._exprs[t]

    def _term(self, e: A.Expr) -> Term:
        """The term of the relation expression ``e`` (see :func:`readable`)."""
        t = term(e, self._term)
        self._exprs.setdefault(t, e)
        return t


# ----------------------------------------------------------------------------- expressions


def readable(e: A.Expr) -> bool:
    """Whether ``e`` is a relation expression: names, constants, tags, sets, operators and
    applications of them (no functions, bindings, tuples, matches, ``try`` or ``if``)."""
    if isinstance(e, (A.Var, A.Konst, A.TagLit, A.ExplicitSet)):
        return True
    if isinstance(e, A.Op1):
        return readable(e.arg)
    if isinstance(e, A.OpN):
        return all(readable(a) for a in e.args)
    if isinstance(e, A.App):
        return readable(e.fn) and readable(e.arg)
    return False


def operands(e: A.OpN) -> tuple[A.Expr, ...]:
    """The operands of ``e``, chains of the associative operators (``|``, ``;``, ``&``,
    ``++``) flattened."""
    if e.op not in ("union", "seq", "inter", "add"):
        return e.args
    out: list[A.Expr] = []
    for a in e.args:
        if isinstance(a, A.OpN) and a.op == e.op:
            out += operands(a)
        else:
            out.append(a)
    return tuple(out)


_INFIX = {
    "union": " | ",
    "seq": "; ",
    "inter": " & ",
    "diff": " \\ ",
    "cartesian": " * ",
    "add": " ++ ",
}
_POSTFIX = {"star": "*", "plus": "+", "opt": "?", "inv": "^-1"}
_KONST = {"zero": "0", "empty": "{}", "universe": "_"}


def term(e: A.Expr, sub: Callable[[A.Expr], Term] | None = None) -> Term:
    """The term of a relation expression (see :func:`readable`), its operands made by
    ``sub`` (by default, this function); a TypeError for other expressions."""
    sub = sub or term
    if isinstance(e, A.Var):
        return Term("name", e.name)
    if isinstance(e, A.Konst):
        return Term(e.kind, _KONST[e.kind])
    if isinstance(e, A.TagLit):
        return Term("other", "'" + e.name)
    if isinstance(e, (A.ExplicitSet, A.TupleE)):
        inner = ", ".join(sub(x).text for x in e.elems)
        text = "{" + inner + "}" if isinstance(e, A.ExplicitSet) else "(" + inner + ")"
        return Term("other", text)
    if isinstance(e, A.Op1):
        arg = sub(e.arg)
        if e.op == "toid":
            text = f"[{arg.text}]"
        elif e.op == "comp":
            text = "~" + _operand(arg)
        else:
            text = _operand(arg) + _POSTFIX[e.op]
        return Term(e.op, text, (arg,))
    if isinstance(e, A.OpN):
        args = tuple(sub(a) for a in operands(e))
        return Term(e.op, _INFIX[e.op].join(_operand(a) for a in args), args)
    if isinstance(e, A.App):
        return Term("other", f"{_operand(sub(e.fn))}({sub(e.arg).text})")
    raise TypeError(f"not a relation expression: {type(e).__name__}")


def _operand(t: Term) -> str:
    """A term's text as an operand: parenthesised unless it binds tightest."""
    tight = t.op not in _INFIX and t.op != "comp"
    return t.text if tight else f"({t.text})"


def parse_term(text: str) -> Term:
    """The term of a relation expression from its cat text (an InputError if it is no
    relation expression)."""
    model = parse_text(f"let herdsman-expression = {text}\n", "<expression>")
    ins = model.instrs
    if len(ins) != 1 or not isinstance(ins[0], A.Let) or len(ins[0].bindings) != 1:
        raise InputError("<expression>", 1, 1, f"not one cat expression: {text!r}")
    e = ins[0].bindings[0].exp
    if not readable(e):
        raise InputError("<expression>", 1, 1, f"not a relation expression: {text!r}")
    return term(e)


# ----------------------------------------------------------------------------- the check


def check_site(
    model: A.Model, pos: A.Pos, include_dirs: Sequence[str], variants: Iterable[str]
) -> CheckSite | None:
    """The check at ``pos`` in ``model`` (see the module docstring); None when it is not
    found or its operand is no relation expression.  An InputError if an included file
    cannot be read."""
    walk = _Walk(pos, list(include_dirs), frozenset(v.lower() for v in variants))
    found = walk.run(model.instrs, ())
    if found is None or walk.operand is None:
        return None
    return CheckSite(walk.operand, walk.found_defs, *found)


def with_shows(model: A.Model, view: CheckView, shows: Sequence[tuple[str, Term]]) -> A.Model:
    """``model`` with ``show <t> as <name>`` for each ``(name, t)`` of ``shows`` (terms of
    ``view``) right after the check of ``view``."""
    site = view.site
    at = site.before[-1].pos
    extra = tuple(A.ShowAs(at, view.expression(t), name) for name, t in shows)
    return replace(model, instrs=site.before + extra + site.after)


def _same(p: A.Pos, q: A.Pos) -> bool:
    return (p.line, p.col) == (q.line, q.col) and (
        p.file == q.file or os.path.realpath(p.file) == os.path.realpath(q.file)
    )


class _Walk:
    """Top-level instructions in the compiler's order, up to the check at ``pos``."""

    def __init__(self, pos: A.Pos, include_dirs: list[str], variants: frozenset[str]) -> None:
        self.pos = pos
        self.include_dirs = include_dirs
        self.variants = variants
        self.defs: dict[str, tuple[A.Expr | None, bool]] = {}
        self.found_defs: dict[str, tuple[A.Expr | None, bool]] = {}
        self.operand: A.Expr | None = None

    def run(
        self, instrs: tuple[A.Ins, ...], files: tuple[str, ...]
    ) -> tuple[tuple[A.Ins, ...], tuple[A.Ins, ...]] | None:
        """(instructions up to the check, after it) when ``instrs`` run it, else None."""
        for i, ins in enumerate(instrs):
            inner: tuple[tuple[A.Ins, ...], tuple[A.Ins, ...]] | None = None
            if isinstance(ins, (A.Let, A.Rec)):
                for b in ins.bindings:
                    exp = b.exp if isinstance(b.pat, A.PVar) and readable(b.exp) else None
                    self.bind(A.pat_names(b.pat), exp, isinstance(ins, A.Rec))
                test = ins.test if isinstance(ins, A.Rec) else None
                if test is not None and self.at(test):
                    return instrs[: i + 1], instrs[i + 1 :]
            elif isinstance(ins, A.Test):
                if self.at(ins.test):
                    return instrs[: i + 1], instrs[i + 1 :]
            elif isinstance(ins, A.Include):
                path = self.resolve(ins)
                key = os.path.realpath(path)
                if key not in files:
                    inner = self.run(load_file(path).instrs, (*files, key))
            elif isinstance(ins, A.IfVariant):
                body = ins.then if variant(self.variants, ins.cond) else ins.else_
                inner = self.run(body, files)
            elif isinstance(ins, A.WithFrom):
                self.bind([ins.var], None, False)
            elif isinstance(ins, (A.Procedure, A.Enum)):
                self.bind([ins.name], None, False)
            elif isinstance(ins, A.InsMatch):  # which clause runs is not known here
                for _, body in ins.clauses:
                    self.bind(_bound(body), None, False)
                self.bind(_bound(ins.default or ()), None, False)
            if inner is not None:
                return instrs[:i] + inner[0], inner[1] + instrs[i + 1 :]
        return None

    def bind(self, names: Iterable[str], exp: A.Expr | None, rec: bool) -> None:
        for name in names:
            self.defs[name] = (exp, rec)

    def at(self, test: A.AppTest) -> bool:
        if not _same(test.pos, self.pos):
            return False
        self.operand = test.exp if readable(test.exp) else None
        self.found_defs = dict(self.defs)
        return True

    def resolve(self, ins: A.Include) -> str:
        """The file ``ins`` includes, found where the compiler looks for it."""
        path, _ = find_include(ins, self.include_dirs)
        if path is None:
            raise InputError(ins.pos.file, ins.pos.line, ins.pos.col, f"cannot find {ins.fname!r}")
        return path


def _bound(instrs: Iterable[A.Ins]) -> list[str]:
    """The names ``let`` instructions among ``instrs`` bind."""
    return [
        n
        for ins in instrs
        if isinstance(ins, (A.Let, A.Rec))
        for b in ins.bindings
        for n in A.pat_names(b.pat)
    ]


# ----------------------------------------------------------------------------- values


class Probe:
    """Expressions evaluated right after a check, on candidate executions: ``model`` is a
    copy of the model showing each of them (:func:`with_shows`) under ``names``."""

    def __init__(self, model: PreparedModel, names: Sequence[str]) -> None:
        self.model = model
        self.names = tuple(names)

    def values(self, rels: Relations, arch: str) -> list[int | None] | None:
        """Each expression's value on the candidate ``rels`` (its skeleton, rf and co; None
        for one the copy could not show), or None when the model shows nothing for it."""
        session = self.model.prepare(rels.sk, arch)
        if self.model.co_mode == "native":
            verdicts = session.check(rels.rf, co=rels.co, explain=True, want_shows=True)
        else:
            verdicts = session.check(rels.rf, fw=rels.FW, explain=True, want_shows=True)
            verdicts = [v for v in verdicts if v.co == rels.co] or verdicts
        for v in verdicts:
            if v.shows:
                return [v.shows.get(n) for n in self.names]
        return None
