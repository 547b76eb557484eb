"""The abstract syntax of cat models, every node carrying its source position.

Mirrors herd's ``lib/AST.mli``: expressions (constants, variables, tags, explicit sets,
tuples, unary and n-ary operators, application, functions, local bindings, matches, ``try``,
``if``) and instructions (``let``, ``let rec``, checks, ``show``, ``include``, procedures,
``with``, ``forall``, variants, enums, bell declarations).  Positions are 1-based
(file, line, column); the evaluator reports every error at one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Pos:
    """A source position; ``text`` is the whole line (for caret diagnostics)."""

    file: str
    line: int
    col: int
    text: str = field(default="", compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOPOS = Pos("<builtin>", 0, 0)

# ----------------------------------------------------------------------------- patterns


@dataclass(frozen=True, slots=True)
class PVar:
    """A single name (``None`` for ``_``)."""

    name: str | None


@dataclass(frozen=True, slots=True)
class PTuple:
    """A tuple of names (``None`` for ``_``); ``()`` is the empty tuple."""

    names: tuple[str | None, ...]


Pat = PVar | PTuple


def pat_names(p: Pat) -> list[str]:
    if isinstance(p, PVar):
        return [p.name] if p.name is not None else []
    return [n for n in p.names if n is not None]


# ----------------------------------------------------------------------------- expressions


class Expr:
    """Base class of expressions (every subclass has a ``pos``)."""

    __slots__ = ()
    pos: Pos


@dataclass(frozen=True, slots=True, eq=False)
class Konst(Expr):
    """``0`` (kind 'zero': the empty relation), ``{}`` ('empty'), ``_`` ('universe')."""

    pos: Pos
    kind: str


@dataclass(frozen=True, slots=True, eq=False)
class Var(Expr):
    pos: Pos
    name: str


@dataclass(frozen=True, slots=True, eq=False)
class TagLit(Expr):
    pos: Pos
    name: str


@dataclass(frozen=True, slots=True, eq=False)
class ExplicitSet(Expr):
    pos: Pos
    elems: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, eq=False)
class TupleE(Expr):
    """``()`` or ``(e1, ..., en)`` with n >= 2."""

    pos: Pos
    elems: tuple[Expr, ...]


#: Unary operators: ``plus`` (r+), ``star`` (r*), ``opt`` (r?), ``comp`` (~e),
#: ``inv`` (r^-1), ``toid`` ([S]).
UNARY = ("plus", "star", "opt", "comp", "inv", "toid")
#: N-ary operators: ``union`` and ``seq`` (flattened chains), binary ``inter``, ``diff``,
#: ``cartesian`` and ``add`` (x ++ S).
NARY = ("union", "seq", "inter", "diff", "cartesian", "add")


@dataclass(frozen=True, slots=True, eq=False)
class Op1(Expr):
    pos: Pos
    op: str
    arg: Expr


@dataclass(frozen=True, slots=True, eq=False)
class OpN(Expr):
    pos: Pos
    op: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True, eq=False)
class App(Expr):
    pos: Pos
    fn: Expr
    arg: Expr


@dataclass(frozen=True, slots=True, eq=False)
class Fun(Expr):
    """``fun pat -> body``; ``name`` is the bound name for ``let f x = ...``."""

    pos: Pos
    pat: Pat
    body: Expr
    name: str = "*fun*"


@dataclass(frozen=True, slots=True)
class Binding:
    pos: Pos
    pat: Pat
    exp: Expr


@dataclass(frozen=True, slots=True, eq=False)
class LetIn(Expr):
    pos: Pos
    bindings: tuple[Binding, ...]
    body: Expr
    rec: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class Match(Expr):
    """Tag match: clauses ``'tag -> exp``, optional default ``_ -> exp``."""

    pos: Pos
    exp: Expr
    clauses: tuple[tuple[str, Expr], ...]
    default: Expr | None


@dataclass(frozen=True, slots=True)
class EltRem:
    """``x ++ rest -> exp``."""

    elt: str | None
    rest: str | None
    exp: Expr


@dataclass(frozen=True, slots=True)
class PreEltPost:
    """``pre | x ++ post -> exp`` (herd's split3)."""

    pre: str | None
    elt: str | None
    post: str | None
    exp: Expr


@dataclass(frozen=True, slots=True, eq=False)
class MatchSet(Expr):
    pos: Pos
    exp: Expr
    if_empty: Expr
    clause: EltRem | PreEltPost


@dataclass(frozen=True, slots=True, eq=False)
class Try(Expr):
    pos: Pos
    exp: Expr
    default: Expr


# -- conditions of ``if ... then ... else``


@dataclass(frozen=True, slots=True)
class VName:
    pos: Pos
    name: str


@dataclass(frozen=True, slots=True)
class VNot:
    arg: VCond


@dataclass(frozen=True, slots=True)
class VAnd:
    left: VCond
    right: VCond


@dataclass(frozen=True, slots=True)
class VOr:
    left: VCond
    right: VCond


VCond = VName | VNot | VAnd | VOr


@dataclass(frozen=True, slots=True)
class CondEq:
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class CondSubset:
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class CondIn:
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class CondVariant:
    cond: VCond


#: A condition comparing two expressions.
Compare = CondEq | CondSubset | CondIn
Cond = Compare | CondVariant


@dataclass(frozen=True, slots=True, eq=False)
class If(Expr):
    pos: Pos
    cond: Cond
    then: Expr
    else_: Expr


# ----------------------------------------------------------------------------- instructions


class Ins:
    __slots__ = ()
    pos: Pos


@dataclass(frozen=True, slots=True)
class AppTest:
    """``[~] acyclic|irreflexive|empty exp [as name]``."""

    pos: Pos
    negated: bool
    kind: str
    exp: Expr
    name: str | None


@dataclass(frozen=True, slots=True, eq=False)
class Let(Ins):
    pos: Pos
    bindings: tuple[Binding, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Rec(Ins):
    pos: Pos
    bindings: tuple[Binding, ...]
    test: AppTest | None


@dataclass(frozen=True, slots=True, eq=False)
class InsMatch(Ins):
    pos: Pos
    exp: Expr
    clauses: tuple[tuple[str, tuple[Ins, ...]], ...]
    default: tuple[Ins, ...] | None


#: Modes of a check: a plain check rejects, ``flag`` records, ``undefined_unless`` marks
#: the execution undefined, ``assert`` stops with an error.
MODES = ("check", "flag", "undefined_unless", "assert")


@dataclass(frozen=True, slots=True, eq=False)
class Test(Ins):
    pos: Pos
    test: AppTest
    mode: str


@dataclass(frozen=True, slots=True, eq=False)
class ShowAs(Ins):
    pos: Pos
    exp: Expr
    name: str


@dataclass(frozen=True, slots=True, eq=False)
class Show(Ins):
    pos: Pos
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True, eq=False)
class UnShow(Ins):
    pos: Pos
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Include(Ins):
    pos: Pos
    fname: str


@dataclass(frozen=True, slots=True, eq=False)
class Procedure(Ins):
    pos: Pos
    name: str
    pat: Pat
    body: tuple[Ins, ...]
    rec: bool


@dataclass(frozen=True, slots=True, eq=False)
class Call(Ins):
    pos: Pos
    name: str
    arg: Expr
    as_name: str | None


@dataclass(frozen=True, slots=True, eq=False)
class Debug(Ins):
    pos: Pos
    exp: Expr


@dataclass(frozen=True, slots=True, eq=False)
class Forall(Ins):
    pos: Pos
    var: str
    exp: Expr
    body: tuple[Ins, ...]


@dataclass(frozen=True, slots=True, eq=False)
class WithFrom(Ins):
    pos: Pos
    var: str
    exp: Expr


@dataclass(frozen=True, slots=True, eq=False)
class IfVariant(Ins):
    pos: Pos
    cond: VCond
    then: tuple[Ins, ...]
    else_: tuple[Ins, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Events(Ins):
    """Bell ``instructions R[...]`` / ``default R[...]``: ignored when running a model."""

    pos: Pos
    name: str
    args: tuple[Expr, ...]
    default: bool


@dataclass(frozen=True, slots=True, eq=False)
class Enum(Ins):
    pos: Pos
    name: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Model:
    """A parsed cat file: identity ``(arch, name)``, ``catdep`` option, instructions."""

    path: str
    arch: str
    name: str
    catdep: bool
    instrs: tuple[Ins, ...]
    source: str = field(default="", repr=False)


# ----------------------------------------------------------------------------- free variables

_FV_CACHE: dict[Expr, frozenset[str]] = {}  # expressions hash by identity (eq=False)


def free_vars(e: Expr) -> frozenset[str]:
    """Names an expression reads from its environment (cached per node)."""
    fv = _FV_CACHE.get(e)
    if fv is None:
        fv = frozenset(_fv(e))
        _FV_CACHE[e] = fv
    return fv


def _fv_bindings(bs: tuple[Binding, ...], body: Expr | None, rec: bool) -> set[str]:
    bound: set[str] = set()
    for b in bs:
        bound.update(pat_names(b.pat))
    out: set[str] = set()
    for b in bs:
        f = _fv(b.exp)
        out |= (f - bound) if rec else f
    if body is not None:
        out |= _fv(body) - bound
    return out


def _fv(e: Expr) -> set[str]:
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, (Konst, TagLit)):
        return set()
    if isinstance(e, (ExplicitSet, TupleE)):
        out: set[str] = set()
        for x in e.elems:
            out |= _fv(x)
        return out
    if isinstance(e, Op1):
        return _fv(e.arg)
    if isinstance(e, OpN):
        out = set()
        for x in e.args:
            out |= _fv(x)
        return out
    if isinstance(e, App):
        return _fv(e.fn) | _fv(e.arg)
    if isinstance(e, Fun):
        return _fv(e.body) - set(pat_names(e.pat))
    if isinstance(e, LetIn):
        return _fv_bindings(e.bindings, e.body, e.rec)
    if isinstance(e, Match):
        out = _fv(e.exp)
        for _, x in e.clauses:
            out |= _fv(x)
        if e.default is not None:
            out |= _fv(e.default)
        return out
    if isinstance(e, MatchSet):
        out = _fv(e.exp) | _fv(e.if_empty)
        c = e.clause
        if isinstance(c, EltRem):
            out |= _fv(c.exp) - {c.elt, c.rest}
        else:
            out |= _fv(c.exp) - {c.pre, c.elt, c.post}
        return out
    if isinstance(e, Try):
        return _fv(e.exp) | _fv(e.default)
    if isinstance(e, If):
        out = _fv(e.then) | _fv(e.else_)
        cond = e.cond
        if isinstance(cond, (CondEq, CondSubset, CondIn)):
            out |= _fv(cond.left) | _fv(cond.right)
        return out
    raise TypeError(f"free_vars: unexpected {type(e).__name__}")


# ----------------------------------------------------------------------------- first use


def first_use(e: Expr, name: str) -> Pos | None:
    """Position of the first use of variable ``name`` found in e (for errors): depth first,
    the later parts of a node first, the items of a sequence in order."""
    stack: list[Expr] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            if x.name == name:
                return x.pos
            continue
        stack.extend(_pushed(x))
    return None


def _pushed(e: Expr) -> list[Expr]:
    """The sub-expressions of e in the order :func:`first_use` stacks them."""
    if isinstance(e, (ExplicitSet, TupleE)):
        return list(reversed(e.elems))
    if isinstance(e, Op1):
        return [e.arg]
    if isinstance(e, OpN):
        return list(reversed(e.args))
    if isinstance(e, App):
        return [e.fn, e.arg]
    if isinstance(e, Fun):
        return [e.body]
    if isinstance(e, LetIn):
        return [b.exp for b in reversed(e.bindings)] + [e.body]
    if isinstance(e, Match):
        out = [e.exp] + [x for _, x in reversed(e.clauses)]
        return out if e.default is None else [*out, e.default]
    if isinstance(e, MatchSet):
        return [e.exp, e.if_empty, e.clause.exp]
    if isinstance(e, Try):
        return [e.exp, e.default]
    if isinstance(e, If):
        c = e.cond
        conds = [c.right, c.left] if isinstance(c, (CondEq, CondSubset, CondIn)) else []
        return [*conds, e.then, e.else_]
    return []
