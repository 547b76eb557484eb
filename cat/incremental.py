"""Incremental consistency for TruSt: check only what the new event can break.

The checker works on the incremental form of the model's monotone checks
(:mod:`cat.form`).  ``rf``, ``co`` and ``fr`` are kept as relations over the graph's fixed
event ids (:mod:`graphs.execution`) and updated with the pairs of the new event; an
``acyclic`` check kept as a union of terms gains only pairs at that event, and the graph
before was acyclic: a new cycle must go through the event, and one search from it
decides.  Any other check is re-evaluated on the graph by a small evaluator of the same
node graph.  Skeleton-only relations come from :mod:`cat.incstatics`; the checks as a
compiled explorer's ``CheckPlan`` from :mod:`cat.incplan`.

The same union tells an explorer in advance about options that certainly close a cycle
with its skeleton-only part (a read from a write co-before one that reaches it, a write
placed co-before one that reaches it, a revisit making a read fr-before such a write): it
drops them unbuilt.  When the model is nothing but these checks (no flag, no
``undefined_unless``, no co condition: ``Form.exact``), a complete graph they accept is
allowed without asking the model again.

A model with no incremental form is checked by :class:`cat.consistency.CatChecker`.  Both
give the same answers (``tests/cat/test_cat_incremental_checker.py``);
``bench/bench_trust.py`` measures both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from herdsman.cat.consistency import CatChecker
from herdsman.cat.contract import CheckPlan, PreparedModel, Verdict
from herdsman.cat.form import (
    Form,
    StepForm,
    Term,
    apply_rel_op,
    is_fr,
)
from herdsman.cat.incplan import StepPlan, compiled_plan
from herdsman.cat.incstatics import StaticValues, meet, static_union
from herdsman.graphs import widerel
from herdsman.graphs.execution import ExecutionGraph, Layout, Relations, fr_of
from herdsman.graphs.relalg import KERNEL, Universe


class _State:
    """The checker's state for one graph: its relations now, and what taking back each
    event added needs.  Every pair an event brings touches it (it is the newest event of
    the graph), so taking it back clears the pairs at it: the state keeps one value of
    each relation, whatever the number of events (memory linear in the graph's size per
    relation, not one copy per event)."""

    __slots__ = ("rf", "co", "fr", "present", "statics", "acyc", "key", "undo")

    def __init__(self, rf: int, co: int, fr: int, present: int, statics: dict, key: tuple) -> None:
        self.rf = rf
        self.co = co
        self.fr = fr
        self.present = present  # event set of the graph
        self.statics = statics  # static node -> value (restricted to the present events)
        self.acyc: list[int] = []  # per step: the value of its relation (acyclic steps)
        self.key = key  # which skeleton the statics come from (see _key)
        #: per event added: (the event, the key and the events present before it)
        self.undo: list[tuple[int, tuple, int]] = []


_BASES = {"rf": 1, "co": 2, "fr": 3}


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
        self.exact = form.exact
        size = lay.size
        # long graphs (a long thread): rows of whole bytes, moved by bytes (graphs/widerel)
        self.U = Universe(size, size if size <= 128 else -(-size // 8) * 8)
        # a cycle is searched by the compiled kernel on graphs of one word per row (faster
        # there than a search from the new event in Python), else from the new event
        self._compiled = KERNEL and size <= 64
        self.values = StaticValues(form, arch, lay, self.U)
        self.checks = 0
        # per event: the pairs from or to it (a relation), kept for small graphs only
        self._at_kept = (
            [(self.U.ROW << (e * self.U.cap)) | (self.U.COL0 << e) for e in range(size)]
            if size <= 128
            else []
        )
        # steps whose value grows only by the new event's pairs (see ``added``)
        simple = [
            sf.terms is not None and form.stable and all(not t.pre and not t.post for t in sf.terms)
            for sf in form.steps
        ]
        # per step whose value grows only by the new event's pairs: the key of the union
        # of its static terms among the statics (None: it has none), and its other terms
        # as (base: 1 rf, 2 co, 3 fr; ids of the statics it meets; ids it takes away)
        self._stat_ids: list[tuple[int, ...]] = [
            tuple(id(t.inters[0]) for t in sf.terms or () if t.base is None) for sf in form.steps
        ]
        self._plans: list[StepPlan] = [
            (
                ("static union", i) if self._stat_ids[i] else None,
                [
                    (_BASES[t.base], tuple(id(k) for k in t.inters), tuple(id(k) for k in t.diffs))
                    for t in sf.terms or ()
                    if t.base is not None
                ],
            )
            if simple[i]
            else None
            for i, sf in enumerate(form.steps)
        ]
        # each step with its plan (see above)
        self._steps = list(zip(form.steps, self._plans, strict=True))
        # per other step, whether its operand meets static relations (``rmw & (fre;
        # coe)``): when their meet is empty, the check holds at once
        self._meets: list[bool] = [
            sf.terms is None and sf.node.op == "inter" and any(not a.deps for a in sf.node.args)
            for sf in form.steps
        ]

    def _at(self, e: int) -> int:
        """The pairs from or to event ``e`` (a relation)."""
        if self._at_kept:
            return self._at_kept[e]
        U = self.U
        return (U.ROW << (e * U.cap)) | (U.COL0 << e)

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
        key = self.values.key(g)
        statics = self.values.restricted(g, present, key)
        st = _State(rf, co, fr, present, statics, key)
        ok = True
        for i, sf in enumerate(self.form.steps):
            if sf.terms is not None:
                v = self._terms_value(sf.terms, st)
                st.acyc.append(v)
                if ok and not U.acyclic(v):
                    ok = False
            else:
                st.acyc.append(0)
                if ok and not self._trivial(i, sf, statics) and not self._holds(sf, st):
                    ok = False
        g.cstate = st
        return ok

    def added(self, g: ExecutionGraph, e: int) -> bool:
        self.checks += 1
        st: _State = g.cstate  # type: ignore[assignment]
        top_key = st.key
        st.undo.append((e, top_key, st.present))  # removed() takes e back, even if refused
        U = self.U
        cap = U.cap
        drf = dco = dfr = 0  # the pairs the new event brings
        ev = g.ev[e]
        assert ev is not None, "e was just added"
        kind = ev.kind
        # stable statics come from the threads' complete paths, which change only when
        # a value is read; the others from the prefixes themselves
        key = top_key if top_key[0] == "c" and kind != "R" else self.values.key(g)
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
        present = st.present | (1 << e)
        statics = self.values.restricted(g, present, key)
        old_acyc = st.acyc
        old_st = st.statics
        st.rf |= drf
        st.co |= dco
        st.fr |= dfr
        st.present, st.statics, st.key = present, statics, key
        acyc = st.acyc = []
        deltas = (0, drf, dco, dfr)
        for i, (sf, plan) in enumerate(self._steps):
            terms = sf.terms
            if terms is None:
                acyc.append(0)
                if not self._trivial(i, sf, statics) and not self._holds(sf, st):
                    acyc.extend(old_acyc[i + 1 :])  # unchanged: removed() restores them
                    return False
                continue
            if plan is not None:  # only pairs at e are new: add them to the old value
                skey, dyn = plan
                new = 0
                if skey is not None:  # the static pairs the new event brings
                    new = static_union(self._stat_ids[i], skey, statics) & ~static_union(
                        self._stat_ids[i], skey, old_st
                    )
                for base, inters, diffs in dyn:
                    x = deltas[base]
                    if not x:
                        continue
                    for k in inters:
                        x &= statics[k]
                    for k in diffs:
                        x &= ~statics[k]
                    new |= x
                old = old_acyc[i]
                v = old | new
                new &= ~old
            else:
                v = self._terms_value(terms, st)
                new = v & ~old_acyc[i]
            acyc.append(v)
            if new and not self._acyclic_through(v, new, e):
                acyc.extend(old_acyc[i + 1 :])  # unchanged: removed() restores them
                return False
        return True

    def removed(self, g: ExecutionGraph, e: int) -> None:
        st: _State = g.cstate  # type: ignore[assignment]
        last, key, present = st.undo.pop()
        assert last == e, "events are taken back in the reverse order of their adding"
        keep = ~self._at(e)  # every pair e brought touches e, and nothing before did
        st.rf &= keep
        st.co &= keep
        st.fr &= keep
        st.present, st.key = present, key
        st.statics = self.values.restricted(g, present, key)
        acyc = st.acyc
        for i, (sf, plan) in enumerate(self._steps):
            if sf.terms is None:
                continue
            if plan is not None:
                acyc[i] &= keep
            else:  # a composition with statics may hold pairs between other events
                acyc[i] = self._terms_value(sf.terms, st)

    # ------------------------------------------------------------------ option filters
    def _forbidden(self, g: ExecutionGraph, e: int, base: str) -> int:
        """Events ``x`` such that a pair (e, x) of ``base`` (filtered as some incremental
        acyclic check filters it) closes a cycle with the check's skeleton-only part: x
        reaches e through it.  Options giving e such a pair are certainly inconsistent."""
        st: _State = g.cstate  # type: ignore[assignment]
        return self._forbidden_at(g, e, base, st.present | (1 << e))

    def _forbidden_at(self, g: ExecutionGraph, e: int, base: str, present: int) -> int:
        """:meth:`_forbidden` in the graph restricted to the events ``present``."""
        st = self.values.restricted(g, present)
        memo = ("forbidden", base, e)  # it depends on the statics only: kept with them
        got = st.get(memo)
        if got is not None:
            return got
        U = self.U
        cap = U.cap
        row = U.ROW
        out = 0
        for i, sf in enumerate(self.form.steps):
            if sf.terms is None or not any(t.base == base for t in sf.terms):
                continue
            if U.wide:  # a search back from e: the closure would cost n times more
                within = present if self.form.stable else U.ALL
                reach = widerel.reach_to(self.values.inverse_rows(g, i), e, within, U.n, U.cap)
            else:
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
        st[memo] = out
        return out

    def revisit_doomed(self, g: ExecutionGraph, r: int, a: int, kept: Sequence[int]) -> bool:
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

    def compiled_plan(self) -> CheckPlan | None:
        """The checks as a :class:`CheckPlan` (see :func:`cat.incplan.compiled_plan`)."""
        return compiled_plan(self.form, self._steps, self._meets, self._stat_ids, self.values)

    def verdicts(
        self, g: ExecutionGraph, want_shows: bool = False
    ) -> tuple[list[Verdict], Relations | None]:
        """The model's verdicts on a complete graph, and the relations they judged; when
        the model is only its monotone checks (``Form.exact``), which accepted the graph,
        without asking it again (no relations then)."""
        if self.exact and not want_shows:
            return [self._allowed], None
        return self.cat.verdicts(g, want_shows)

    # ------------------------------------------------------------------ evaluation
    def _terms_value(self, terms: list[Term], fr_: _State) -> int:
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
        if self._compiled or new & ~self._at(e):
            return U.acyclic(r)
        if U.wide:
            return not widerel.on_cycle(r, e, U.n, U.cap)
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

    def _trivial(self, i: int, sf: StepForm, statics: dict) -> bool:
        """Whether check ``i`` holds whatever rf and co are: its operand meets static
        relations whose meet is empty."""
        return self._meets[i] and not meet(sf.node, statics)

    def _holds(self, sf: StepForm, fr_: _State) -> bool:
        v = self._eval(sf.node, fr_, {})
        U = self.U
        if sf.kind == "empty":
            return v == 0
        if sf.kind == "irreflexive":
            return not (v & U.ID)
        return U.acyclic(v)

    def _eval(self, n: Any, fr_: _State, memo: dict[int, int]) -> int:
        if not n.deps:
            return fr_.statics[id(n)]
        got = memo.get(id(n))
        if got is not None:
            return got
        U = self.U
        op = n.op
        if op == "input":
            v = fr_.rf if n.info == "rf" else fr_.co
        elif is_fr(n):
            v = fr_.fr
        elif op == "inter":  # the static operands first: often their meet is empty
            v = meet(n, fr_.statics)
            if v:
                for a in n.args:
                    if a.deps:
                        v &= self._eval(a, fr_, memo)
                        if not v:
                            break
        else:
            v = apply_rel_op(op, [self._eval(a, fr_, memo) for a in n.args], U)
        memo[id(n)] = v
        return v
