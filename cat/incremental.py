"""Incremental consistency for TruSt: check only what the new event can break.

The checker works on the incremental form of the model's monotone checks
(:mod:`cat.form`).  ``rf``, ``co`` and ``fr`` are kept as relations over the graph's fixed
event ids (:mod:`graphs.execution`) and updated with the pairs of the new event; an
``acyclic`` check kept as a union of terms gains only pairs at that event, and the graph
before was acyclic: a new cycle must go through the event, and one search from it
decides.  Any other check is re-evaluated on the graph by a small evaluator of the same
node graph.  Skeleton-only relations are evaluated per skeleton with herd's predefined
names (:func:`graphs.herdnames.static_names`); when all are restriction stable, once per
complete path of the threads, restricted to the events present.

The same union tells an explorer in advance about options that certainly close a cycle
with its skeleton-only part (a read from a write co-before one that reaches it, a write
placed co-before one that reaches it, a revisit making a read fr-before such a write): it
drops them unbuilt.  When the model is nothing but these checks (no flag, no
``undefined_unless``, no co condition: ``Form.exact``), a complete graph they accept is
allowed without asking the model again.

A model with no incremental form is checked by :class:`cat.consistency.CatChecker`.  Both
give the same answers (``tests/test_engine_trust_incremental.py``);
``bench/bench_trust.py`` measures both.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any, NamedTuple

from herdsman.cat.consistency import CatChecker
from herdsman.cat.contract import (
    AcyclicStep,
    Base,
    CheckPlan,
    EmptyMeetStep,
    PlanStep,
    PlanTerm,
    PreparedModel,
    Verdict,
)
from herdsman.cat.form import (
    Form,
    StepForm,
    Term,
    apply_rel_op,
    eval_static,
    is_fr,
    seq_pair,
)
from herdsman.graphs.execution import ExecutionGraph, Layout, Relations, fr_of
from herdsman.graphs.herdnames import static_names
from herdsman.graphs.relalg import KERNEL, Universe

_WORD = (1 << 64) - 1

#: Cached static values: per skeleton, and per (skeleton, events present); both caches are
#: emptied when full, which keeps memory flat over long explorations.
MAX_SKELETONS = 1024
MAX_RESTRICTED = 4096


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
        self.exact = form.exact
        size = lay.size
        self.U = Universe(size, size)
        # a cycle is searched by the compiled kernel on graphs of one word per row (faster
        # there than a search from the new event in Python), else from the new event
        self._compiled = KERNEL and size <= 64
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
        # per step whose value grows only by the new event's pairs: the key of the union
        # of its static terms among the statics (None: it has none), and its other terms
        # as (base: 1 rf, 2 co, 3 fr; ids of the statics it meets; ids it takes away)
        self._stat_ids: list[tuple[int, ...]] = [
            tuple(id(t.inters[0]) for t in sf.terms or () if t.base is None) for sf in form.steps
        ]
        self._plans: list[tuple[tuple[str, int] | None, list[tuple[int, tuple, tuple]]] | None] = [
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
        for i, sf in enumerate(self.form.steps):
            if sf.terms is not None:
                v = self._terms_value(sf.terms, fr_)
                fr_.acyc.append(v)
                if ok and not U.acyclic(v):
                    ok = False
            else:
                fr_.acyc.append(0)
                if ok and not self._trivial(i, sf, statics) and not self._holds(sf, fr_):
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
        stack.append(fr_)  # a rejected event's frame is left unfinished: removed() drops it
        acyc = fr_.acyc
        old_acyc = top.acyc
        old_st = top.statics
        deltas = (0, drf, dco, dfr)
        for i, (sf, plan) in enumerate(self._steps):
            terms = sf.terms
            if terms is None:
                acyc.append(0)
                if not self._trivial(i, sf, statics) and not self._holds(sf, fr_):
                    return False
                continue
            if plan is not None:  # only pairs at e are new: add them to the old value
                skey, dyn = plan
                new = 0
                if skey is not None:  # the static pairs the new event brings
                    new = self._static_union(i, skey, statics) & ~self._static_union(
                        i, skey, old_st
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
                v = self._terms_value(terms, fr_)
                new = v & ~old_acyc[i]
            acyc.append(v)
            if new and not self._acyclic_through(v, new, e):
                return False
        return True

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
        memo = ("forbidden", base, e)  # it depends on the statics only: kept with them
        got = st.get(memo)  # type: ignore[call-overload]
        if got is not None:
            return got
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
        st[memo] = out  # type: ignore[index]
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
        """The checks as a :class:`CheckPlan`, when each is a step whose value grows only
        by the new event's pairs (a union of static relations and of rf, co, fr met with
        static ones) or an emptiness of a meet with static operands; None otherwise."""
        if not self.form.stable:
            return None
        rel = dict(self.form.kinds)
        slots: dict[object, int] = {}

        def slot(key: object) -> int:
            return slots.setdefault(key, len(slots))

        def term(base: int, inters: Sequence[int], diffs: Sequence[int]) -> PlanTerm:
            """A filtered base relation over slots (its statics must be relations)."""
            if not all(rel.get(k, False) for k in (*inters, *diffs)):
                raise _NoPlan  # a set met with a relation, or a node no static
            return PlanTerm(
                Base(base), tuple(slot(k) for k in inters), tuple(slot(k) for k in diffs)
            )

        steps: list[PlanStep] = []
        try:
            for i, (sf, plan) in enumerate(self._steps):
                if sf.terms is None:
                    if not self._meets[i]:
                        return None
                    pair = seq_pair(sf) if sf.kind == "empty" else None
                    seq = None if pair is None else (term(*pair[0]), term(*pair[1]))
                    steps.append(EmptyMeetStep(slot(("meet", i)), seq))
                    continue
                if plan is None:
                    return None
                skey, dyn = plan
                su = slot(skey) if skey is not None else None
                steps.append(AcyclicStep(su, tuple(term(*t) for t in dyn)))
        except _NoPlan:
            return None
        order = list(slots)
        return CheckPlan(
            tuple(steps), len(order), lambda key, words: self._slot_rows(order, key, words)
        )

    def _slot_rows(self, order: list[object], key: tuple[int, ...], words: int) -> bytes:
        """The relations of the slots ``order`` for the skeleton of completion ``key``,
        rows of ``words`` 64-bit words (see :class:`CheckPlan`)."""
        full = self._full_statics(("c", *key))
        U = self.U
        n, cap, row = U.n, U.cap, U.ROW
        out = array("Q")
        for k in order:
            if isinstance(k, tuple) and k[0] == "meet":
                v = self._meet(self.form.steps[k[1]].node, full)
            elif isinstance(k, tuple):
                v = self._static_union(k[1], k, full)
            else:
                v = full[k]  # type: ignore[index]
            for i in range(n):
                r = (v >> (i * cap)) & row
                out.extend((r >> (64 * w)) & _WORD for w in range(words))
        return out.tobytes()  # native order: the core is built for little-endian hosts only

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
        if self._compiled or new & ~self._at[e]:
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

    def _static_union(self, i: int, key: tuple[str, int], st: dict) -> int:
        """The union of step ``i``'s static terms, cached in the statics ``st`` under
        ``key``."""
        v = st.get(key)
        if v is None:
            v = 0
            for k in self._stat_ids[i]:
                v |= st[k]
            st[key] = v
        return v

    def _trivial(self, i: int, sf: StepForm, statics: dict) -> bool:
        """Whether check ``i`` holds whatever rf and co are: its operand meets static
        relations whose meet is empty."""
        return self._meets[i] and not self._meet(sf.node, statics)

    @staticmethod
    def _meet(n: Any, st: dict) -> int:
        """The meet of the static operands of the ``inter`` node ``n``, cached in the
        statics ``st`` (-1 when it has none)."""
        key = ("meet", id(n))
        v = st.get(key)
        if v is None:
            v = -1
            for a in n.args:
                if not a.deps:
                    v &= st[id(a)]
            st[key] = v
        return v

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
        elif is_fr(n):
            v = fr_.fr
        elif op == "inter":  # the static operands first: often their meet is empty
            v = self._meet(n, fr_.statics)
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


class _NoPlan(Exception):
    """A check has no :class:`CheckPlan` form."""


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
