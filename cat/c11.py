"""RC11 and RA checked as GenMC checks them: happens-before as views, one event at a time.

The built-in models ``rc11`` and ``ra`` (``cat/models/rc11.cat``, ``ra.cat``; herd's
``rc11.cat`` is RC11 too) say what a consistent C11 execution is; this checker decides the
same thing for graphs that grow one porf-maximal event at a time (TruSt), without
evaluating the model (``tests/engine/test_engine_c11.py`` compares them):

* happens-before is kept per event as the set of events before it (``hb[e]``): an event
  added last has no successor, so the others' sets never change.  ``hb[e]`` is its po
  predecessors and theirs, and, for an acquire read (or an acquire fence after atomic
  reads), the *release view* of the write read: the events happens-before its release
  sequence's heads (a release write of the sequence, a release fence before one).
* coherence (``irreflexive hb; eco?``) needs checking only against the events before the
  new one in hb at its location: none may be after it in the extended coherence order.
* atomicity (``empty rmw & (rb; mo)``): a read-modify-write's write right after the
  write its read read from, and no write placed between those of another.
* RC11's SC axiom (``acyclic psc``) is checked whole, over the SC accesses and fences,
  when the new event is one or is hb-after an SC fence (no other event changes psc).
* no-thin-air (``acyclic sb | rf``) holds by construction: TruSt adds events in porf
  order.
* a data race (two threads' conflicting accesses, one not atomic, unordered by hb) makes
  the execution undefined (``undefined_unless``): the first one is remembered per graph.

:data:`C11_FAMILIES` names the models it decides (their identity: the built-in files and
herd's ``rc11.cat``, ``cat.identity``); :mod:`cat.c11_sc` computes psc.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from herdsman.cat.c11_sc import psc_acyclic
from herdsman.cat.c11_statics import C11Statics, c11_statics, members
from herdsman.cat.consistency import CatChecker
from herdsman.cat.contract import (
    C11_SLOTS,
    C11Step,
    C11Variants,
    CheckPlan,
    Failure,
    PreparedModel,
    Verdict,
)
from herdsman.graphs.execution import ExecutionGraph, Layout, Relations

__all__ = ["C11_FAMILIES", "C11Checker"]

#: Skeletons whose statics are kept (emptied when full: memory stays flat).
MAX_SKELETONS = 1024

#: The families (``cat.identity``) this checker decides, and whether each has RC11's SC
#: axiom.
C11_FAMILIES = {"rc11": True, "ra": False}

_WORD = (1 << 64) - 1


# ----------------------------------------------------------------------------- statics


# ----------------------------------------------------------------------------- checker


class _State:
    """The checker's state for one graph: per event its hb predecessors and, for a
    write, its release view; the events computed (``done``); the races found, each
    (its later event, the other), in the order they were found."""

    __slots__ = ("hb", "rv", "done", "races")

    def __init__(self, size: int, init: int) -> None:
        self.hb = [0] * size
        self.rv = [0] * size
        self.done = init
        self.races: list[tuple[int, int]] = []


class C11Checker:
    """RC11 (``sc`` True) or RA consistency of TruSt graphs (see the module docstring);
    verdicts on complete graphs: allowed, undefined when racy (the race as the failed
    ``data-race`` check's witness).  With pictures asked the model itself judges."""

    name = "c11"
    #: a graph the checks accept is allowed: its only other verdict, a data race, the
    #: explorers hear of through :meth:`race`
    exact = True

    def __init__(
        self, model: PreparedModel, arch: str, lay: Layout, sc: bool, variants: C11Variants
    ) -> None:
        self.lay = lay
        self.arch = arch
        self.sc = sc
        self.variants = variants
        self.cat = CatChecker(model, arch)
        self.checks = 0
        self._statics: dict[tuple[int, ...], C11Statics] = {}

    def compiled_plan(self) -> CheckPlan | None:
        """The checks as one :class:`C11Step` the compiled core runs itself, over the
        slots of :data:`C11_SLOTS`."""
        return CheckPlan((C11Step(self.sc, self.variants),), len(C11_SLOTS), self._slot_rows)

    def _slot_rows(self, key: tuple[int, ...], words: int) -> bytes:
        """The slots of :data:`C11_SLOTS` for the skeleton of completion ``key``, rows of
        ``words`` 64-bit words (see :class:`CheckPlan`)."""
        S = self.statics(key)
        out = array("Q")
        rows: list[int] = [*S.popred, *S.sbloc]
        for m in (S.A, S.ACQ, S.REL, S.SC, S.F):
            rows.extend(m & (1 << x) for x in range(self.lay.size))
        for r in rows:
            out.extend((r >> (64 * w)) & _WORD for w in range(words))
        return out.tobytes()  # native order: the core is built for little-endian hosts only

    # ------------------------------------------------------------------ statics
    def statics(self, key: tuple[int, ...]) -> C11Statics:
        got = self._statics.get(key)
        if got is None:
            if len(self._statics) >= MAX_SKELETONS:
                self._statics.clear()
            got = self._statics[key] = c11_statics(self.lay, key, self.arch)
        return got

    def _of(self, g: ExecutionGraph) -> C11Statics:
        done = g.completion_key()  # None: the prefixes' own shapes serve
        return self.statics(done if done is not None else g.shape_key())

    # ------------------------------------------------------------------ views
    def _view(self, g: ExecutionGraph, S: C11Statics, st: _State, e: int) -> None:
        """``hb[e]`` (and ``rv[e]`` for a write), the views of e's porf predecessors
        known."""
        hb = st.hb
        pred = S.popred[e]
        h = pred
        for p in members(pred):
            h |= hb[p]
        bit = 1 << e
        if S.R & bit:
            if S.A & bit and S.ACQ & bit:
                h |= st.rv[g.rf[e]]
        elif S.F & bit and S.ACQ & bit:  # (GenMC's release sequences: from any read)
            for r in members(pred & S.R & (-1 if self.variants.rs else S.A)):
                h |= st.rv[g.rf[r]]
        hb[e] = h
        if S.W & bit:
            st.rv[e] = self._release_view(g, S, st, e)

    def _release_view(self, g: ExecutionGraph, S: C11Statics, st: _State, w: int) -> int:
        """The events hb-before-or-equal the heads of the release sequences through the
        write ``w`` (its sw sources): a release write, release fences before it and, as
        RC11's (not GenMC's), release writes before it at its location."""
        hb = st.hb
        v = 0
        bit = 1 << w
        if S.A & bit or self.variants.rs:
            if S.REL & bit:
                v = bit | hb[w]
            heads = S.popred[w] & S.F & S.REL
            if not self.variants.rs:
                heads |= S.sbloc[w] & S.REL
            for h in members(heads):
                v |= (1 << h) | hb[h]
        r = _rmw_read(g, w)
        if r >= 0:  # a read-modify-write: the sequences through the write read go on
            v |= st.rv[g.rf[r]]
        return v

    # ------------------------------------------------------------------ checks
    def _coherent(self, g: ExecutionGraph, S: C11Statics, st: _State, e: int) -> bool:
        """No event hb-before ``e`` at its location is eco-after it."""
        li = g.loc(e)
        before = st.hb[e] & S.at[li]
        if not before:
            return True
        pos = {w: i for i, w in enumerate(g.co[li])}
        mine = pos.get(g.rf[e], -1) if g.event_at(e).kind == "R" else pos[e]
        return all(_copos(g, pos, p) <= mine for p in members(before))

    def _atomic(self, g: ExecutionGraph, e: int) -> bool:
        """The write ``e`` breaks no read-modify-write's atomicity."""
        order = g.co[g.loc(e)]
        p = order.index(e)
        s = order[p - 1] if p else g.loc(e)
        r = _rmw_read(g, e)
        if r >= 0 and g.rf[r] != s:
            return False
        if p + 1 < len(order):
            r = _rmw_read(g, order[p + 1])
            if r >= 0 and g.rf[r] == s:
                return False
        return True

    def _race(self, g: ExecutionGraph, S: C11Statics, st: _State, e: int) -> int:
        """An access of another thread racing with the access ``e`` (-1: none), among
        the events computed before it."""
        bit = 1 << e
        others = S.at[g.loc(e)] & st.done & ~st.hb[e] & ~((1 << g.L) - 1)
        if not S.W & bit:
            others &= S.W
        if S.A & bit:
            others &= ~S.A
        t = g.tid[e]
        for x in members(others):
            if g.tid[x] != t:
                return x
        return -1

    def _sc_ok(self, g: ExecutionGraph, S: C11Statics, st: _State, e: int) -> bool:
        """RC11's SC axiom (e >= 0: the new event ``e`` added to a graph that holds it).

        The new event has no hb successor, so it is inside a psc edge between two other
        events only when it is hb-after an SC fence and mo- or rb-before a write present
        (a write placed before another in co, a read of a write that is not co-last):
        every other path through it would need an hb edge out of it.  Otherwise a new
        cycle goes through ``e`` itself, an SC event, searched from it (none: holds)."""
        if not self.sc:
            return True
        if e < 0 or self._inside(g, S, st, e):
            return psc_acyclic(g, S, st.hb, _present(g), self.variants.sc)
        if not (S.SC >> e) & 1:
            return True
        return psc_acyclic(g, S, st.hb, _present(g), self.variants.sc, new=e)

    def _inside(self, g: ExecutionGraph, S: C11Statics, st: _State, e: int) -> bool:
        """Whether the new event ``e`` can be inside a psc edge (see :meth:`_sc_ok`)."""
        if not st.hb[e] & S.F & S.SC:
            return False
        kind = g.event_at(e).kind
        if kind != "R" and kind != "W":
            return False
        w = g.rf[e] if kind == "R" else e
        order = g.co[g.loc(e)]
        return bool(order) and order[-1] != w

    def _event(self, g: ExecutionGraph, S: C11Statics, st: _State, e: int) -> bool:
        """Views and checks of ``e`` (its porf predecessors done)."""
        self._view(g, S, st, e)
        ok = True
        kind = g.event_at(e).kind
        if kind == "R" or kind == "W":
            ok = self._coherent(g, S, st, e) and (kind == "R" or self._atomic(g, e))
            x = self._race(g, S, st, e)
            if x >= 0:
                st.races.append((e, x))
        st.done |= 1 << e
        return ok

    # ------------------------------------------------------------------ the interface
    def restart(self, g: ExecutionGraph) -> bool:
        self.checks += 1
        S = self._of(g)
        st = _State(self.lay.size, (1 << g.L) - 1)
        g.cstate = st
        ok = True
        for t in range(g.T):
            for e in range(g.base[t], g.base[t] + g.n[t]):
                stack = [(e, False)]
                while stack:  # porf predecessors first (a revisit reorders them)
                    x, ready = stack.pop()
                    if (st.done >> x) & 1:
                        continue
                    if ready:
                        ok = self._event(g, S, st, x) and ok
                        continue
                    stack.append((x, True))
                    deps = S.popred[x]
                    if g.event_at(x).kind == "R":
                        deps |= 1 << g.rf[x]
                    stack.extend((p, False) for p in members(deps & ~st.done))
        return ok and self._sc_ok(g, S, st, -1)

    def added(self, g: ExecutionGraph, e: int) -> bool:
        self.checks += 1
        st = _state_of(g)
        S = self._of(g)
        return self._event(g, S, st, e) and self._sc_ok(g, S, st, e)

    def removed(self, g: ExecutionGraph, e: int) -> None:
        st = _state_of(g)
        st.done &= ~(1 << e)
        if st.races and st.races[-1][0] == e:
            st.races.pop()

    def rf_floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        return self._floor(g, e, li) + 1

    def co_floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        return self._floor(g, e, li) + 1

    def _floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        """The highest coherence position (-1: the initial write) of a write hb-before
        the next event ``e`` at location ``li`` or read by a read hb-before it (what its
        po predecessors tell: a read from the writes co-before it, or a write placed
        co-before it, is incoherent)."""
        st = _state_of(g)
        S = self._of(g)
        pred = S.popred[e]
        h = pred
        for p in members(pred):
            h |= st.hb[p]
        before = h & S.at[li] & st.done
        if not before:
            return -1
        pos = {w: i for i, w in enumerate(g.co[li])}
        return max(_copos(g, pos, p) for p in members(before))

    def revisit_doomed(self, g: ExecutionGraph, r: int, a: int, kept: Sequence[int]) -> bool:
        return False

    def race(self, g: ExecutionGraph) -> tuple[int, int] | None:
        """The first data race found in ``g`` (its later event first), if any."""
        st = g.cstate
        return st.races[0] if isinstance(st, _State) and st.races else None

    def verdicts(
        self, g: ExecutionGraph, want_shows: bool = False
    ) -> tuple[list[Verdict], Relations | None]:
        if want_shows:
            return self.cat.verdicts(g, want_shows=True)
        pair = self.race(g)
        if pair is None:
            return [Verdict(allowed=True)], None
        fail = Failure("data-race", "empty", [pair[1], pair[0]])
        return [Verdict(allowed=True, failed=(fail,), undefined=True)], None


def _state_of(g: ExecutionGraph) -> _State:
    """The checker's state kept in ``g`` (set by :meth:`C11Checker.restart`)."""
    st = g.cstate
    assert isinstance(st, _State)
    return st


def _rmw_read(g: ExecutionGraph, w: int) -> int:
    """The read of the read-modify-write whose write is ``w`` (-1: w is none)."""
    if w < g.L or not g.idx[w]:
        return -1
    r, ev = g.event_at(w - 1), g.event_at(w)
    return w - 1 if r.kind == "R" and r.poi == ev.poi else -1


def _copos(g: ExecutionGraph, pos: dict[int, int], p: int) -> int:
    """The coherence position of the write ``p``, or of the write the read ``p`` reads
    (-1: the initial write)."""
    return pos.get(p if g.event_at(p).kind == "W" else g.rf[p], -1)


def _present(g: ExecutionGraph) -> int:
    s = (1 << g.L) - 1
    for t in range(g.T):
        k = g.n[t]
        if k:
            s |= ((1 << k) - 1) << g.base[t]
    return s
