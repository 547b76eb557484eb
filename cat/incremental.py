"""Incremental consistency for TruSt: check only what the new event can break.

The model's monotone checks (those ``partial_violation`` evaluates) are read from its
compiled form (``cat``'s node graph, through ``Model._unit``) once per model and
architecture:

* each ``acyclic`` check whose relation is a union of skeleton-only terms and of ``rf``,
  ``co`` or ``fr`` filtered by skeleton-only relations (``rfe = rf & ext``,
  ``fre = fr \\ int``, ``(fr | rf | co) ; sm``...) — the axioms of SC, TSO, PSO and herd's
  own files for them — is kept as that union.  After an event is added the union gains
  only pairs at that event, and the graph before was acyclic: a new cycle must go through
  the event, and one search from it decides;
* any other check (``empty rmw & (fre; coe)``, ``irreflexive``...) is re-evaluated on the
  graph by a small evaluator of the same node graph.

``rf``, ``co`` and ``fr`` are kept as relations over the graph's fixed event ids
(:mod:`engine.trust_graph`) and updated with the pairs of the new event.  Skeleton-only
relations are evaluated per skeleton with herd's predefined names
(:func:`graphs.herdnames.static_names`).  When every one the checks use is *restriction
stable* (its value on a prefix of the threads is the restriction of its value on any
longer program path: ``po``, ``loc``, fences, dependencies, and products, intersections,
differences, inverses, ``po``-forward sequences of such), they are evaluated once per
complete path of the threads and restricted to the events present.

The same union tells TruSt in advance about options that certainly close a cycle with
its skeleton-only part (a read from a write co-before one that reaches it, a write placed
co-before one that reaches it, a revisit making a read fr-before such a write): the
explorer drops them unbuilt.  When the model is nothing but these checks (no flag, no
``undefined_unless``, no co condition: ``Form.exact``), a complete graph they accept is
allowed without asking the model again.

A model with a check this cannot read (fixpoints, ``with``...) has no incremental form;
explorers then use :class:`cat.consistency.CatChecker`.  Both give the same answers
(``tests/test_engine_trust_incremental.py``); ``bench/bench_trust.py`` measures both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from herdsman.cat.checks import operand
from herdsman.cat.compiler import CheckStep, Compiled, End, Program, WithStep
from herdsman.cat.consistency import CatChecker
from herdsman.cat.contract import PreparedModel, Verdict
from herdsman.cat.evaluator import Evaluator
from herdsman.cat.ir import Node
from herdsman.cat.monotone import Analysis
from herdsman.cat.values import REL, SET
from herdsman.graphs.execution import ExecutionGraph, Layout, Relations, fr_of
from herdsman.graphs.herdnames import static_names
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
#: Cached static values: per skeleton, and per (skeleton, events present); both caches are
#: emptied when full, which keeps memory flat over long explorations.
MAX_SKELETONS = 1024
MAX_RESTRICTED = 4096


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
    kinds: list[tuple[int, bool]] | None = None  # (id, is a relation) of each static

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
    return Form(steps, list(statics.values()), stable, _exact(compiled.program, mono))


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


def _fr_pattern(n: Any) -> bool:
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
    if _fr_pattern(n):
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


def eval_static(n: Any, U: Universe, N: dict[str, int], memo: dict[int, int]) -> int:
    """Value of a static node on a skeleton (``N``: herd's predefined names)."""
    got = memo.get(id(n))
    if got is not None:
        return got
    op = n.op
    a = [eval_static(x, U, N, memo) for x in n.args]
    if op == "name":
        v = N[n.info]
    elif op == "const":
        v = n.info
    elif op == "all":
        v = U.ALL
    elif op == "id":
        v = U.ID
    elif op == "full":
        v = U.FULL
    else:
        v = _apply(op, a, U)
    memo[id(n)] = v
    return v


def _apply(op: str, a: list[int], U: Universe) -> int:
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


# ----------------------------------------------------------------------------- checker


class _Frame(NamedTuple):
    """The checker's state for one graph (a named tuple: one is made per event added)."""

    rf: int
    co: int
    fr: int
    present: int  # event set of the graph
    statics: dict[int, int]  # static node -> value (restricted to the present events)
    acyc: list[int]  # per step: the value of its relation (incremental acyclic steps)
    key: tuple = ()  # which skeleton the statics come from (see _key)


_BASES = {"rf": 1, "co": 2, "fr": 3}
_new = tuple.__new__


class IncrementalChecker:
    """Consistency of TruSt graphs by the incremental form of the model's monotone
    checks; complete graphs still get the model's own verdicts (flags...)."""

    name = "incremental"

    def __init__(self, form: Form, model: PreparedModel, arch: str, lay: Layout) -> None:
        self.form = form
        self.lay = lay
        self.arch = arch
        self.cat = CatChecker(model, arch)  # for the verdicts on complete graphs
        self._allowed = Verdict(allowed=True)
        size = lay.size
        self.U = Universe(size, size)
        self._statics: dict[tuple, dict[int, int]] = {}
        self._pp: dict[tuple, dict[int, int]] = {}
        self.checks = 0
        # per event: the pairs from or to it (a relation)
        self._at = [(self.U.ROW << (e * size)) | (self.U.COL0 << e) for e in range(size)]
        # steps whose value grows only by the new event's pairs (see ``added``)
        simple = [
            sf.terms is not None and form.stable and all(not t.pre and not t.post for t in sf.terms)
            for sf in form.steps
        ]
        # per step whose value grows only by the new event's pairs: its terms as (base: 0
        # static, 1 rf, 2 co, 3 fr; ids of the statics it meets; ids it takes away)
        self._plans: list[list[tuple[int, tuple[int, ...], tuple[int, ...]]] | None] = [
            [
                (
                    _BASES.get(t.base, 0),
                    tuple(id(k) for k in t.inters),
                    tuple(id(k) for k in t.diffs),
                )
                for t in sf.terms or ()
            ]
            if simple[i]
            else None
            for i, sf in enumerate(form.steps)
        ]

    # ------------------------------------------------------------------ statics
    def _key(self, g: ExecutionGraph) -> tuple:
        """Which skeleton the statics come from: the complete paths extending each
        thread's prefix (stable statics) or the prefixes themselves."""
        if self.form.stable:
            done = g.completion_key()
            if done is not None:
                return ("c", *done)
        return ("p", *g.shape_key())

    def _full_statics(self, key: tuple) -> dict[int, int]:
        got = self._statics.get(key)
        if got is not None:
            return got
        if len(self._statics) > MAX_SKELETONS:
            self._statics.clear()
        lay = self.lay
        sk = lay.shapes.skeleton(key[1:])
        N = {name: b for name, (_, b) in static_names(sk, self.arch).items()}
        memo: dict[int, int] = {}
        vals = {id(n): eval_static(n, sk.U, N, memo) for n in self.form.statics}
        # renumber: skeleton (init, then each thread's events) -> graph ids
        blocks = []
        off = lay.L
        blocks.append((0, 0, off))
        for t, sid in enumerate(key[1:]):
            m = lay.shapes.length[sid]
            blocks.append((off, lay.base[t], m))
            off += m
        out = {k: _renumber(vals[k], sk.U, self.U, blocks, rel) for k, rel in self.form.kinds}
        self._statics[key] = out
        return out

    def _restricted(
        self, g: ExecutionGraph, present: int, key: tuple | None = None
    ) -> dict[int, int]:
        if key is None:
            key = self._key(g)
        if not self.form.stable:
            return self._full_statics(key)
        ck = (key, present)
        got = self._pp.get(ck)
        if got is not None:
            return got
        full = self._full_statics(key)
        if len(self._pp) > MAX_RESTRICTED:
            self._pp.clear()
        pp = self.U.product(present, present)
        out = {k: full[k] & (pp if rel else present) for k, rel in self.form.kinds}
        self._pp[ck] = out
        return out

    # ------------------------------------------------------------------ the interface
    def restart(self, g: ExecutionGraph) -> bool:
        self.checks += 1
        U = self.U
        cap = U.cap
        rf = co = 0
        present = (1 << g.L) - 1
        for t in range(g.T):
            b = g.base[t]
            for j in range(b, b + g.n[t]):
                present |= 1 << j
                w = g.rf[j]
                if w >= 0:
                    rf |= 1 << (w * cap + j)
        for li in range(g.L):
            later = 0
            for w in reversed(g.co[li]):
                if later:
                    co |= later << (w * cap)
                later |= 1 << w
            co |= later << (li * cap)
        fr = fr_of(U, rf, co)
        key = self._key(g)
        statics = self._restricted(g, present, key)
        fr_ = _new(_Frame, (rf, co, fr, present, statics, [], key))
        ok = True
        for sf in self.form.steps:
            if sf.terms is not None:
                v = self._terms_value(sf.terms, fr_)
                fr_.acyc.append(v)
                if ok and not U.acyclic(v):
                    ok = False
            else:
                fr_.acyc.append(0)
                if ok and not self._holds(sf, fr_):
                    ok = False
        g.cstate = [fr_]
        return ok

    def added(self, g: ExecutionGraph, e: int) -> bool:
        self.checks += 1
        stack: list[_Frame] = g.cstate  # type: ignore[assignment]
        top = stack[-1]
        U = self.U
        cap = U.cap
        drf = dco = dfr = 0  # the pairs the new event brings
        kind = g.ev[e].kind  # type: ignore[union-attr]
        # stable statics come from the threads' complete paths, which change only when
        # a value is read; the others from the prefixes themselves
        key = top.key if top.key[0] == "c" and kind != "R" else self._key(g)
        if kind == "R":
            w = g.rf[e]
            drf = 1 << (w * cap + e)
            order = g.co[g.loc(e)]
            after = order if w < g.L else order[order.index(w) + 1 :]
            row = 0
            for s in after:
                row |= 1 << s
            dfr = row << (e * cap)
        elif kind == "W":
            li = g.loc(e)
            order = g.co[li]
            p = order.index(e)
            bset = 1 << li
            for x in order[:p]:
                bset |= 1 << x
            dco = U.spread(bset) << e
            later = 0
            for s in order[p + 1 :]:
                later |= 1 << s
            dco |= later << (e * cap)
            col = 0
            for r in g.reads_of(li):
                if (bset >> g.rf[r]) & 1:
                    col |= 1 << r
            if col:
                dfr = U.spread(col) << e
        present = top.present | (1 << e)
        statics = self._restricted(g, present, key)
        fr_ = _new(_Frame, (top.rf | drf, top.co | dco, top.fr | dfr, present, statics, [], key))
        stack.append(fr_)
        ok = True
        acyc = fr_.acyc
        old_st = top.statics
        deltas = (0, drf, dco, dfr)
        plans = self._plans
        for i, sf in enumerate(self.form.steps):
            terms = sf.terms
            if terms is None:
                acyc.append(0)
                if ok and not self._holds(sf, fr_):
                    ok = False
                continue
            plan = plans[i]
            if plan is not None:  # only pairs at e are new: add them to the old value
                new = 0
                for base, inters, diffs in plan:
                    if not base:
                        k = inters[0]
                        new |= statics[k] & ~old_st[k]
                        continue
                    x = deltas[base]
                    if not x:
                        continue
                    for k in inters:
                        x &= statics[k]
                    for k in diffs:
                        x &= ~statics[k]
                    new |= x
                v = top.acyc[i] | new
                new &= ~top.acyc[i]
            else:
                v = self._terms_value(terms, fr_)
                new = v & ~top.acyc[i]
            acyc.append(v)
            if ok and new and not self._acyclic_through(v, new, e):
                ok = False
        return ok

    def removed(self, g: ExecutionGraph, e: int) -> None:
        g.cstate.pop()  # type: ignore[union-attr]

    # ------------------------------------------------------------------ option filters
    def _forbidden(self, g: ExecutionGraph, e: int, base: str) -> int:
        """Events ``x`` such that a pair (e, x) of ``base`` (filtered as some incremental
        acyclic check filters it) closes a cycle with the check's skeleton-only part: x
        reaches e through it.  Options giving e such a pair are certainly inconsistent."""
        top: _Frame = g.cstate[-1]  # type: ignore[index]
        return self._forbidden_at(g, e, base, top.present | (1 << e))

    def _forbidden_at(self, g: ExecutionGraph, e: int, base: str, present: int) -> int:
        """:meth:`_forbidden` in the graph restricted to the events ``present``."""
        st = self._restricted(g, present)
        U = self.U
        cap = U.cap
        row = U.ROW
        out = 0
        for i, sf in enumerate(self.form.steps):
            if sf.terms is None or not any(t.base == base for t in sf.terms):
                continue
            sk = ("splus", i)
            sp = st.get(sk)  # type: ignore[call-overload]
            if sp is None:
                s = 0
                for t in sf.terms:
                    if t.base is None:
                        s |= st[id(t.inters[0])]
                sp = st[sk] = U.plus(s)  # type: ignore[index]
            reach = U.col(sp, e)
            if not reach:
                continue
            for t in sf.terms:
                if t.base != base or t.pre or t.post:
                    continue
                x = reach
                for k in t.inters:
                    x &= (st[id(k)] >> (e * cap)) & row
                for k in t.diffs:
                    x &= ~((st[id(k)] >> (e * cap)) & row)
                out |= x
        return out

    def revisit_doomed(self, g: ExecutionGraph, r: int, a: int, kept: list[int]) -> bool:
        """Whether re-reading ``r`` from ``a`` in the graph restricted to ``kept`` is
        certainly inconsistent: ``r`` would be fr-before a kept co-successor of ``a``
        that reaches ``r`` through the skeleton-only part of an acyclic check."""
        if not self.form.stable:
            return False
        order = g.co[g.loc(a)]
        succ = 0
        for s in order[order.index(a) + 1 :]:
            if g.in_view(s, kept):
                succ |= 1 << s
        if not succ:
            return False
        present = (1 << g.L) - 1
        for t in range(g.T):
            b = g.base[t]
            present |= ((1 << kept[t]) - 1) << b
        return bool(self._forbidden_at(g, r, "fr", present) & succ)

    def rf_floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        forb = self._forbidden(g, e, "fr")
        if not forb:
            return 0
        floor = 0  # reading from a write fr-relates e to every write co-after it
        for i, w in enumerate(g.co[li]):
            if (forb >> w) & 1:
                floor = i + 1
        return floor

    def co_floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        if not g.co[li]:
            return 0
        forb = self._forbidden(g, e, "co")
        if not forb:
            return 0
        floor = 0  # at position p, e is co-before the writes from position p on
        for i, w in enumerate(g.co[li]):
            if (forb >> w) & 1:
                floor = i + 1
        return floor

    def verdicts(
        self, g: ExecutionGraph, want_shows: bool = False
    ) -> tuple[list[Verdict], Relations | None]:
        """The model's verdicts on a complete graph, and the relations they judged; when
        the model is only its monotone checks (``Form.exact``), which accepted the graph,
        without asking it again (no relations then)."""
        if self.form.exact and not want_shows:
            return [self._allowed], None
        return self.cat.verdicts(g, want_shows)

    # ------------------------------------------------------------------ evaluation
    def _terms_value(self, terms: list[Term], fr_: _Frame) -> int:
        st = fr_.statics
        v = 0
        for t in terms:
            if t.base is None:
                v |= st[id(t.inters[0])]
                continue
            x = fr_.rf if t.base == "rf" else fr_.co if t.base == "co" else fr_.fr
            for k in t.inters:
                x &= st[id(k)]
            for k in t.diffs:
                x &= ~st[id(k)]
            if t.pre or t.post:
                U = self.U
                for k in reversed(t.pre):
                    x = U.seq(st[id(k)], x)
                for k in t.post:
                    x = U.seq(x, st[id(k)])
            v |= x
        return v

    def _acyclic_through(self, r: int, new: int, e: int) -> bool:
        """``r`` is acyclic, knowing ``r & ~new`` is: a cycle must use a pair of
        ``new``; when they all touch ``e``, one search from ``e`` decides."""
        U = self.U
        if new & ~self._at[e]:
            return U.acyclic(r)
        cap, row = U.cap, U.ROW
        frontier = (r >> (e * cap)) & row
        seen = 0
        while frontier:
            if (frontier >> e) & 1:
                return False
            seen |= frontier
            nxt = 0
            while frontier:
                low = frontier & -frontier
                nxt |= (r >> ((low.bit_length() - 1) * cap)) & row
                frontier ^= low
            frontier = nxt & ~seen
        return True

    def _holds(self, sf: StepForm, fr_: _Frame) -> bool:
        v = self._eval(sf.node, fr_, {})
        U = self.U
        if sf.kind == "empty":
            return v == 0
        if sf.kind == "irreflexive":
            return not (v & U.ID)
        return U.acyclic(v)

    def _eval(self, n: Any, fr_: _Frame, memo: dict[int, int]) -> int:
        if not n.deps:
            return fr_.statics[id(n)]
        got = memo.get(id(n))
        if got is not None:
            return got
        U = self.U
        op = n.op
        if op == "input":
            v = fr_.rf if n.info == "rf" else fr_.co
        elif _fr_pattern(n):
            v = fr_.fr
        elif op == "inter":  # the static operands first: often their meet is empty
            st = fr_.statics
            gk = ("meet", id(n))
            v = st.get(gk)  # type: ignore[call-overload]
            if v is None:
                v = -1
                for a in n.args:
                    if not a.deps:
                        v &= st[id(a)]
                st[gk] = v  # type: ignore[index]
            if v:
                for a in n.args:
                    if a.deps:
                        v &= self._eval(a, fr_, memo)
                        if not v:
                            break
        else:
            v = _apply(op, [self._eval(a, fr_, memo) for a in n.args], U)
        memo[id(n)] = v
        return v


def _is_rel(n: Node | _Const) -> bool:
    return not (isinstance(n, Node) and n.type == SET)


def _renumber(v: int, src: Universe, dst: Universe, blocks, rel: bool) -> int:
    """Move a set or relation from a skeleton's numbering to graph ids; ``blocks`` are
    (first number in the skeleton, first id in the graph, length)."""

    def move_set(s: int) -> int:
        out = 0
        for a, b, m in blocks:
            if m:
                out |= ((s >> a) & ((1 << m) - 1)) << b
        return out

    if not rel:
        return move_set(v)
    out = 0
    for a, b, m in blocks:
        for i in range(m):
            row = (v >> ((a + i) * src.cap)) & src.ROW
            if row:
                out |= move_set(row) << ((b + i) * dst.cap)
    return out
