"""The incremental form of a model: its monotone checks read as unions of rf/co/fr terms.

The model's monotone checks (those ``partial_violation`` evaluates) are read from its
compiled form (cat's node graph) once per model and architecture:

* each ``acyclic`` check whose relation is a union of skeleton-only terms and of ``rf``,
  ``co`` or ``fr`` filtered by skeleton-only relations (``rfe = rf & ext``,
  ``fre = fr \\ int``, ``(fr | rf | co) ; sm``...) — the axioms of SC, TSO, PSO and herd's
  own files for them — is kept as that union (its :class:`Term`\\ s);
* any other monotone check (``empty rmw & (fre; coe)``, ``irreflexive``...) is kept as
  its node, for :mod:`cat.incremental` to evaluate on the graph.

A static (skeleton-only) node is *restriction stable* when its value on a prefix of the
threads is the restriction of its value on any longer program path (``po``, ``loc``,
fences, dependencies, and products, intersections, differences, inverses, ``po``-forward
sequences of such); :func:`eval_static` computes one on a skeleton.  A model with a check
this cannot read (fixpoints, ``with``...) has no incremental form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from herdsman.cat.checks import operand
from herdsman.cat.evaluator import Evaluator
from herdsman.cat.ir import Node
from herdsman.cat.monotone import Analysis
from herdsman.cat.program import CheckStep, Compiled, End, Program, WithStep
from herdsman.cat.values import REL, SET
from herdsman.graphs.relalg import Universe

#: Ops a skeleton-only node may use (as cat's code generator evaluates them).
STATIC_OPS = frozenset(
    {
        "name",
        "const",
        "all",
        "id",
        "full",
        "union",
        "inter",
        "diff",
        "seq",
        "inv",
        "plus",
        "domain",
        "range",
        "prod",
        "toid",
    }
)
#: Ops a node depending on rf/co may use.
DYNAMIC_OPS = frozenset(
    {"input", "union", "inter", "diff", "seq", "inv", "plus", "domain", "range", "prod", "toid"}
)
#: Predefined relations that only relate events of one thread forwards in program order.
FORWARD_NAMES = frozenset({"po", "partial_po", "addr", "data", "ctrl", "id"})
#: Bases of the terms of an incremental acyclic check.
BASES = ("rf", "co", "fr")


class Unsupported(Exception):
    """The model has a check the incremental checker cannot read."""


@dataclass
class Term:
    """``pre ; (base & inters... \\ diffs...) ; post`` (``pre``/``post``: sequences of
    static nodes, usually empty); base None: the static node ``inters[0]``."""

    base: str | None
    inters: tuple
    diffs: tuple
    pre: tuple = ()
    post: tuple = ()


@dataclass
class StepForm:
    """One monotone check: its kind, operand node, and its terms when it is an
    incremental acyclic check."""

    kind: str
    node: Any
    terms: list[Term] | None


@dataclass
class Form:
    """The incremental form of a model's monotone checks for one architecture."""

    steps: list[StepForm]
    statics: list  # static nodes the checks use
    stable: bool  # all of them restriction stable
    exact: bool = False  # the model is nothing but these checks (see _exact)
    #: (id, is a relation) of each static
    kinds: list[tuple[int, bool]] = field(default_factory=list)
    tag_sets: dict[str, str] = field(default_factory=dict)  # a bell file's event sets

    def __post_init__(self) -> None:
        self.kinds = [(id(n), _is_rel(n)) for n in self.statics]


def incremental_form(compiled: Compiled, analysis: Analysis, mono: dict) -> Form | None:
    """The incremental form of a compiled model's monotone checks (None if it has a check
    the incremental checker cannot read)."""
    try:
        return _build_form(compiled, analysis, mono)
    except Unsupported:
        return None


def _build_form(compiled: Compiled, analysis: Analysis, mono: dict) -> Form:
    steps: list[StepForm] = []
    for st in analysis.eligible_steps():
        if not mono.get(id(st)) or st.mode != "check" or st.negated:
            continue
        if st.kind not in ("acyclic", "irreflexive", "empty"):
            raise Unsupported(st.kind)
        x, t = operand(Evaluator(graph=compiled.graph), st.kind, st.value, st.pos)
        if t not in (REL, SET):
            raise Unsupported("operand type")
        if type(x) is not Node:
            x = _Const(x)
        terms = None
        if st.kind == "acyclic":
            top = x
            while top.op == "plus":
                top = top.args[0]
            try:
                terms = _terms(top)
            except Unsupported:
                terms = None
        steps.append(StepForm(st.kind, x, terms))
    statics: dict[int, Any] = {}
    for sf in steps:
        _collect(sf.node, statics)
    for n in statics.values():
        _check_static(n)
    stable = all(_stable(n) for n in statics.values())
    exact = _exact(compiled.program, mono)
    return Form(steps, list(statics.values()), stable, exact, tag_sets=dict(compiled.tag_sets))


def _exact(prog: Program | None, mono: dict) -> bool:
    """Whether the model's verdict on a candidate is just its monotone checks: no flag,
    ``undefined_unless``, non-monotone check, co condition (``cobase``), rejection or
    run-time loop; the co enumeration (``with co from ...``) is the engine's.  Then a
    complete graph the checks accept is allowed, with no flag."""

    while prog is not None:
        for st in prog.steps:
            if type(st) is not CheckStep or st.mode != "check" or not mono.get(id(st)):
                return False
        tail = prog.tail
        if tail is None or type(tail) is End:
            return True
        if type(tail) is not WithStep or tail.branches is not None:
            return False
        prog = tail.cont
    return True


class _Const:
    """A check operand the compiler folded to a constant."""

    op = "const"
    deps: frozenset = frozenset()
    args: tuple = ()

    def __init__(self, value: int) -> None:
        self.info = value
        self.id = -1 - value if isinstance(value, int) else -1


def _is_static(n: Any) -> bool:
    return not n.deps


def is_fr(n: Any) -> bool:
    """``rf^-1 ; co`` (possibly ``\\ id``): herd's fr."""
    if n.op == "diff" and n.args[1].op == "id":
        n = n.args[0]
    return (
        n.op == "seq"
        and len(n.args) == 2
        and n.args[0].op == "inv"
        and n.args[0].args[0].op == "input"
        and n.args[0].args[0].info == "rf"
        and n.args[1].op == "input"
        and n.args[1].info == "co"
    )


def _terms(n: Any) -> list[Term]:
    """``n`` as a union of terms (raises Unsupported)."""
    if _is_static(n):
        return [Term(None, (n,), ())]
    if n.op == "input":
        if n.info not in ("rf", "co"):
            raise Unsupported(n.info)
        return [Term(n.info, (), ())]
    if is_fr(n):
        return [Term("fr", (), ())]
    if n.op == "union":
        out = []
        for a in n.args:
            out += _terms(a)
        return out
    if n.op == "inter":
        dyn = [a for a in n.args if not _is_static(a)]
        sta = tuple(a for a in n.args if _is_static(a))
        if len(dyn) != 1:
            raise Unsupported("inter")
        out = []
        for t in _terms(dyn[0]):
            if t.base is None or t.pre or t.post:
                raise Unsupported("static")
            out.append(Term(t.base, t.inters + sta, t.diffs))
        return out
    if n.op == "seq":  # static ; dynamic ; static  (e.g. herd's ``(fr | rf | co) ; sm``)
        dyn = [i for i, a in enumerate(n.args) if not _is_static(a)]
        if len(dyn) != 1:
            raise Unsupported("seq")
        i = dyn[0]
        out = []
        for t in _terms(n.args[i]):
            if t.base is None or t.pre or t.post:
                raise Unsupported("seq")
            out.append(Term(t.base, t.inters, t.diffs, tuple(n.args[:i]), tuple(n.args[i + 1 :])))
        return out
    if n.op == "diff":
        a, b = n.args
        if _is_static(b):
            extra: tuple = (b,)
        elif b.op == "inter" and a in b.args and all(_is_static(x) for x in b.args if x is not a):
            extra = tuple(x for x in b.args if x is not a)  # a \ (a & S) = a \ S
        else:
            raise Unsupported("diff")
        out = []
        for t in _terms(a):
            if t.base is None:
                raise Unsupported("static")
            out.append(Term(t.base, t.inters, t.diffs + extra))
        return out
    raise Unsupported(n.op)


def _collect(n: Any, out: dict[int, Any]) -> None:
    """The maximal static sub-nodes of ``n``."""
    stack = [n]
    seen: set[int] = set()
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if _is_static(x):
            out[id(x)] = x
            continue
        if x.op not in DYNAMIC_OPS:
            raise Unsupported(x.op)
        if x.op == "input" and x.info not in ("rf", "co"):
            raise Unsupported(x.info)
        stack.extend(x.args)


def _check_static(n: Any) -> None:
    stack = [n]
    while stack:
        x = stack.pop()
        if x.op not in STATIC_OPS:
            raise Unsupported(x.op)
        stack.extend(x.args)


def _forward(n: Any) -> bool:
    """Whether every pair of ``n`` goes forward in program order (or is an identity)."""
    op = n.op
    if op == "name":
        return n.info in FORWARD_NAMES
    if op in ("id", "toid"):
        return True
    if op == "inter":
        return any(_forward(a) for a in n.args)
    if op == "diff":
        return _forward(n.args[0])
    if op in ("union", "seq"):
        return all(_forward(a) for a in n.args)
    if op == "plus":
        return _forward(n.args[0])
    if op == "const":
        return n.info == 0
    return False


def _stable(n: Any) -> bool:
    """Whether ``n``'s value on a thread prefix is its value on a longer path, restricted
    (every predefined name is; see the module docstring for the operators)."""
    op = n.op
    if op in ("name", "const", "all", "id", "full"):
        return True
    if op in ("union", "inter", "diff", "inv", "prod", "toid"):
        return all(_stable(a) for a in n.args)
    if op == "seq":  # middles are pinned when what follows them goes forward
        return all(_stable(a) for a in n.args) and all(_forward(a) for a in n.args[1:])
    if op in ("plus", "range"):
        return _stable(n.args[0]) and _forward(n.args[0])
    return False


def eval_static(
    n: Any,
    U: Universe,
    N: Mapping[str, int],
    memo: dict[int, int],
    inputs: dict[str, int] | None = None,
) -> int:
    """Value of a static node on a skeleton (``N``: herd's predefined names); with
    ``inputs``, of a node reading rf or co too, with those values."""
    got = memo.get(id(n))
    if got is not None:
        return got
    op = n.op
    a = [eval_static(x, U, N, memo, inputs) for x in n.args]
    if op == "name":
        v = N[n.info]
    elif op == "input" and inputs is not None:
        v = inputs[n.info]
    elif op == "const":
        v = n.info
    elif op == "all":
        v = U.ALL
    elif op == "id":
        v = U.ID
    elif op == "full":
        v = U.FULL
    else:
        v = apply_rel_op(op, a, U)
    memo[id(n)] = v
    return v


def apply_rel_op(op: str, a: list[int], U: Universe) -> int:
    if op == "union":
        v = 0
        for x in a:
            v |= x
        return v
    if op == "inter":
        v = a[0]
        for x in a[1:]:
            v &= x
        return v
    if op == "diff":
        return a[0] & ~a[1]
    if op == "seq":
        v = a[0]
        for x in a[1:]:
            v = U.seq(v, x)
        return v
    if op == "inv":
        return U.inverse(a[0])
    if op == "plus":
        return U.plus(a[0])
    if op == "domain":
        return U.domain(a[0])
    if op == "range":
        return U.range(a[0])
    if op == "prod":
        return U.product(a[0], a[1])
    if op == "toid":
        return U.ident(a[0])
    raise Unsupported(op)


def _is_rel(n: Node | _Const) -> bool:
    return not (isinstance(n, Node) and n.type == SET)


#: A base relation (1 rf, 2 co, 3 fr) met with static nodes and without others: (base,
#: the ids of the nodes it meets, of those it takes away).
FilteredBase = tuple[int, list[int], list[int]]

_INPUT_BASES = {"rf": 1, "co": 2}


def seq_pair(sf: StepForm) -> tuple[FilteredBase, FilteredBase] | None:
    """An emptiness check ``statics & (A ; B)`` (tso's atomicity: ``rmw & (fre; coe)``)
    with ``A`` and ``B`` base relations filtered by static ones: their (base, ids of the
    inters, ids of the diffs), else None."""
    dyn = [a for a in sf.node.args if a.deps]
    if len(dyn) != 1 or dyn[0].op != "seq" or len(dyn[0].args) != 2:
        return None
    a, b = (filtered_base(x) for x in dyn[0].args)
    return (a, b) if a is not None and b is not None else None


def filtered_base(n: Any) -> FilteredBase | None:
    """``n`` as a base relation (1 rf, 2 co, 3 fr) met with static nodes and without
    others: (base, their ids: inters, diffs), else None."""
    if is_fr(n):
        return (3, [], [])
    if n.op == "input":
        base = _INPUT_BASES.get(n.info)
        return None if base is None else (base, [], [])
    if n.op in ("diff", "inter"):
        dyn = [a for a in n.args if a.deps]
        if len(dyn) != 1 or (n.op == "diff" and (len(n.args) != 2 or n.args[0] is not dyn[0])):
            return None
        got = filtered_base(dyn[0])
        if got is None:
            return None
        base, inters, diffs = got
        statics = [id(a) for a in n.args if not a.deps]
        if n.op == "diff":
            return (base, inters, diffs + statics)
        return (base, inters + statics, diffs)
    return None
