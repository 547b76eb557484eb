"""The reference explorer: herd's candidate enumeration, pruned while choosing.

For one test it enumerates, like herd, every candidate execution: one thread execution
per thread (values of reads consistent with the writes they read from), every rf (each
read from a same-location write of the same value, initial writes included) and, per the
model's ``co_mode``, every coherence order (``native``) or every choice of final writes
(``generic``/``none``, observed locations only, as herd with a cat model).  Unlike herd it
asks the model's :meth:`partial_violation` after each choice and drops the subtree when a
monotone axiom already fails, and before the search it asks the same checks which rf
choices uniproc's patterns (a read from its own later write, from a write its own thread
overwrote before it...) rule out, alone or with one co edge: those are never tried.
Every verdict the model returns counts as one execution.

Work is organised per *combination of shapes* (one skeleton, one ``model.prepare``): the
thread executions of one shape differ only by values, which the search tracks as
bitmasks of still-possible thread executions per thread, so choosing an rf is a couple of
int operations.  Choice order: location by location, its co (one write at a time, each
placed write co-before all writes still to place) then the rf of its reads.

Under herd's ``-speedcheck`` (see :class:`engine.outcome.OutcomeBuilder`) a candidate
whose final state does not settle the condition is not shown to the model, and for
``exists`` and ``~exists`` conditions that pin registers (a conjunction of ``N:r=v``) the
thread executions ending with other values are dropped before the search, as herd
prunes with its ``wanted_final_value``; with ``fast`` the search stops at the first
execution counted.  A progress reporter (``Goal.progress``) is told, in the slow path of
the time-limit check, the executions so far and their estimated total: the search over
the combinations and the first choices of each is then built with trackers that keep a
:class:`engine.progress.TreeEstimate` (a search without a reporter has none).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from operator import itemgetter

from herdsman.cat.api import CatSession, PreparedModel, Verdict
from herdsman.engine.conditions import MAX_JUDGED, compiled_condition
from herdsman.engine.errors import ErrorFound, check_deadline
from herdsman.engine.outcome import ENDED_LOOP_BOUND, ErrorRecord, OutcomeBuilder
from herdsman.engine.progress import ProgressReporter
from herdsman.engine.reference.combos import by_compared_values, combination_status, wanted_execs
from herdsman.engine.reference.constraints import narrowed, resolved
from herdsman.engine.reference.skeletons import build_skeleton
from herdsman.engine.reference.tables import Tables
from herdsman.engine.reference.uniproc import uniproc_cuts
from herdsman.engine.reference.walk import (
    TRACKED,
    Children,
    Leaf,
    State,
    Tracker,
    co_step,
    option_taken,
    options_of,
    walk,
    walk_tracked,
)
from herdsman.engine.semantics.enumerate import ThreadExec, ThreadsResult, by_shape
from herdsman.engine.semantics.state import ThreadFailed
from herdsman.graphs.execution import ExecutionGraph
from herdsman.litmus.base.ir import Loc, Prop, Value

__all__ = ["Combo", "Goal", "enumerate_test"]


@dataclass
class Goal:
    """What to record about each accepted execution."""

    observed: list[Loc]
    prop: Prop
    quant: str
    filter: Prop | None = None
    show: str | None = None
    nshow: int | None = None
    prune: str = "step"  # when to ask partial_violation: step | location | never
    order: str = "most"  # location order: most | least | name (events per location)
    rf_first: bool = False  # per location, choose the rf of its reads before its co
    deadline: float | None = None  # process_time() limit
    stop_on_error: bool = False  # stop at the first execution failing an assertion
    progress: ProgressReporter | None = None  # told where the search is, now and then
    #: the proposition and filter compiled, per order of the locations they read
    compiled: dict[tuple[Loc, ...], tuple] = field(default_factory=dict)


def enumerate_test(
    threads: ThreadsResult,
    model: PreparedModel,
    arch: str,
    goal: Goal,
    tally: OutcomeBuilder,
) -> OutcomeBuilder:
    """Enumerate every candidate of the test whose thread executions are ``threads``."""
    per_thread = threads.execs
    if tally.irrelevant is False:  # speedcheck, exists/~exists: only satisfying states
        per_thread = wanted_execs(per_thread, goal.prop)
    groups = [by_shape(execs) for execs in per_thread]
    tally.stats.bump("thread_execs", sum(map(len, threads.execs)))
    plain = not threads.spawned and not threads.partial  # every combination is one
    budget = 0
    tracker = None
    if goal.progress is not None:
        tracker = Tracker(goal.progress, tally)
        tracker.tree.enter(math.prod(len(g) for g in groups))
    for shapes in itertools.product(*groups):
        if tracker is not None:
            tracker.tree.child()
        status = None
        if not plain:
            budget += 1
            if not budget & 1023:
                check_deadline(goal.deadline)
            status = combination_status([g[0] for g in shapes], threads.spawned)
            if status is None:
                continue
        for combo in by_compared_values(threads, list(shapes), model, arch):
            tally.stats.bump("combos")
            if status is None:
                Combo(threads, combo, model, arch, goal, tally, tracker=tracker).run()
            else:
                Combo(threads, combo, model, arch, goal, tally, *status, tracker=tracker).run()
    return tally


class Combo(Tables):
    """The search over one combination of shapes (one skeleton)."""

    #: its leaves count executions, so the rf choices uniproc rules out are cut before
    #: the search and the lean leaf may count (a search visiting candidates has neither)
    counting: bool = True

    def __init__(
        self,
        threads: ThreadsResult,
        variants: list[list[ThreadExec]],
        model: PreparedModel,
        arch: str,
        goal: Goal,
        tally: OutcomeBuilder,
        fails: list[tuple[int, ThreadFailed]] | None = None,
        blocked: bool = False,
        bound: bool = False,
        tracker: Tracker | None = None,
    ) -> None:
        self.goal = goal
        self.tally = tally
        self.tracker = tracker
        self.irrelevant = tally.irrelevant
        self.fast = tally.fast
        self.fails = fails or []
        self.blocked = blocked
        self.bound = bound
        self.native = model.co_mode == "native"
        lay = build_skeleton(threads.locations, threads.init_mem, [v[0] for v in variants])
        self.session = model.prepare(lay.sk, arch)
        super().__init__(threads, variants, lay, goal.observed, goal.filter)

    # ------------------------------------------------------------------ search
    # The search is a sequence of choices, one per step; a step's children of a partial
    # candidate (rf, co, masks, pending, finals) are those its choice gives, walked depth
    # first by engine.reference.walk.
    def run(self) -> None:
        goal = self.goal
        steps: list[tuple[str, int]] = []
        native, rf_first, observed = self.native, goal.rf_first, self.observed_locs
        ends = goal.prune == "location"
        loc_reads = self.loc_reads
        for li in self._location_order():
            if native:
                head = [("co", li)]
            else:
                head = [("fw", li)] if li in observed else []
            rfs = [("rf", r) for r in loc_reads[li]]
            steps += rfs + head if rf_first else head + rfs
            if ends:
                steps.append(("end", li))
        if ends:
            if steps and steps[-1][0] == "end":
                steps.pop()  # the leaf checks the complete candidate anyway
            # likewise no partial check on the last choice: the leaf follows it
            last = max((i for i, st in enumerate(steps) if st[0] != "end"), default=-1)
        else:
            last = len(steps) - 1
        self._leafcache: dict[tuple, tuple] = {}
        self._judged: dict[tuple, tuple] = {}
        needed = tuple(self.needed)
        compiled = goal.compiled.get(needed)
        if compiled is None:  # the same for every combination of a test
            compiled = goal.compiled[needed] = compiled_condition(goal.prop, goal.filter, needed)
        self.sat, self.keep, self._verdicts = compiled
        self.n_partial = self.n_pruned = self.n_checks = 0
        session = self.session
        reporting: AbstractContextManager[None]
        self.check: Callable[..., list[Verdict]]
        self.partial: Callable[..., bool]
        self._spent: (
            Callable[[int], tuple[Callable[..., list[Verdict]], Callable[..., bool]] | None] | None
        ) = None
        if isinstance(session, CatSession):  # the model's functions, without its frame
            self.check, self.partial = session.direct()
            self._spent = session.spent
            reporting = session.reporting()
        else:
            self.check, self.partial = session.check, session.partial_violation
            reporting = nullcontext()
        self.show = goal.show is not None and goal.show != "none"
        #: every complete candidate goes to the model, and only its allowed ones count:
        #: no filter, no speedcheck, no pictures, no failed or blocked thread
        self.lean = (
            self.counting
            and self.keep is None
            and self.irrelevant is None
            and not self.show
            and not self.blocked
            and not self.fails
        )
        with reporting:
            self._search(steps, last)

    def _search(self, steps: list[tuple[str, int]], last: int) -> None:
        """The search of :meth:`run` over ``steps`` (``last``: the last choice's)."""
        goal = self.goal
        # checks between two looks at the clock: fewer on big skeletons, whose checks
        # are slow (a time limit must hold whatever the program)
        self._every = 256 if self.U.n <= 64 else 16 if self.U.n <= 256 else 1
        self._budget = self._every
        if goal.prune != "never" and self.counting:
            self.cands, self._forbid = uniproc_cuts(self, self._violates, self.native)
        else:
            self._forbid = {}
        children: list[Children] = []
        for i, (kind, arg) in enumerate(steps):
            check = goal.prune == "step" and i != last
            if kind == "co":
                children.append(self._co_step(arg, goal.prune == "step", i == last))
            elif kind == "fw":
                children.append(self._fw_step(arg))
            elif kind == "rf":
                children.append(self._rf_step(arg, check))
            else:
                children.append(self._end_step())
        masks = tuple([(1 << len(vs)) - 1 for vs in self.variants])
        root: State = (0, 0, masks, (), tuple(self.loc_init))
        try:
            if self.tracker is None:
                walk(children, root, self._lean_leaf() if self.lean else self._leaf)
            else:
                options = [
                    options_of(self, kind, arg) if i < TRACKED and kind != "end" else None
                    for i, (kind, arg) in enumerate(steps)
                ]

                def option(i: int, state: State) -> int:
                    return option_taken(self, *steps[i], state[0], state[1], state[4])

                walk_tracked(children, root, self._leaf, self.tracker.tree, options, option)
        finally:
            stats = self.tally.stats
            if self.n_partial:
                stats.bump("partial_checks", self.n_partial)
            if self.n_pruned:
                stats.bump("pruned", self.n_pruned)
            if self.n_checks:
                stats.bump("checks", self.n_checks)

    def _location_order(self) -> list[int]:
        """Locations with something to choose (by default most events first)."""
        reads, writes, observed = self.loc_reads, self.loc_writes, self.observed_locs
        locs = [li for li in range(len(reads)) if reads[li] or writes[li] or li in observed]
        sign = {"most": -1, "least": 1, "name": 0}[self.goal.order]
        if len(locs) < 2 or not sign:
            return locs
        return sorted(locs, key=lambda li: (sign * (len(reads[li]) + len(writes[li])), li))

    def _deadline(self) -> None:
        """The slow path taken every ``_every`` checks: the time limit, and the progress
        reporter when it wants to hear from the search."""
        self._budget = self._every
        check_deadline(self.goal.deadline)
        if self._spent is not None:  # the session may switch to its specialised code
            switched = self._spent(self._every)
            if switched is not None:
                self.check, self.partial = switched
        tracker = self.tracker
        if tracker is not None and tracker.reporter.due():
            tracker.report()

    def _violates(self, rf: int, co: int) -> bool:
        self.n_partial += 1
        self._budget -= 1
        if not self._budget:
            self._deadline()
        if self.partial(rf, co):
            self.n_pruned += 1
            return True
        return False

    def _end_step(self) -> Children:
        """A location's choices made: the candidate so far, unless it already fails."""
        violates = self._violates

        def children(rf, co, masks, pending, finals) -> Iterator[State]:
            if not violates(rf, co):
                yield (rf, co, masks, pending, finals)

        return children

    def _co_step(self, li: int, check: bool, last: bool) -> Children:
        """Choose the co order of location ``li`` (:func:`engine.reference.walk.co_step`)."""
        writes, init = self.loc_writes[li], self.loc_init[li]
        return co_step(li, writes, init, self.U.cap, self._violates, check, last)

    def _fw_step(self, li: int) -> Children:
        choices = [self.loc_init[li], *self.loc_writes[li]]

        def children(rf, co, masks, pending, finals) -> Iterator[State]:
            for w in choices:
                yield (rf, co, masks, pending, finals[:li] + (w,) + finals[li + 1 :])

        return children

    def _rf_step(self, r: int, check: bool) -> Children:
        """Choose the write read by ``r`` among those of its location whose value it can
        read, narrowing the possible executions of its thread."""
        t = self.tid_of[r]
        forbid = self._forbid
        cands = [(w, bit, cm, tw, forbid.get(bit, 0)) for w, bit, cm, tw in self.cands[r]]
        violates = self._violates
        valdep = self.valdep
        vd_rng = self.vd_rng
        acyclic = self.U.acyclic
        tally = self.tally

        def children(rf, co, masks, pending, finals) -> Iterator[State]:
            mt = masks[t]
            for w, bit, cm, tw, fco in cands:
                if co & fco:  # uniproc: this rf cannot go with this co
                    continue
                pend = pending
                m2 = masks
                if cm is not None:
                    m = mt & cm
                    if not m:
                        continue
                    if m != mt:
                        m2 = masks[:t] + (m,) + masks[t + 1 :]
                else:
                    r2 = narrowed(self, r, w, t, tw, masks)
                    if r2 is None:
                        continue
                    m2 = r2
                    if tw != t:
                        pend = pending + ((r, w),)
                rf2 = rf | bit
                if valdep and (vd_rng >> w) & 1 and not acyclic(rf2 | valdep):
                    tally.stats.bump("cyclic_values")
                    continue
                if check and violates(rf2, co):
                    continue
                yield (rf2, co, m2, pend, finals)

        return children

    # ------------------------------------------------------------------ leaves
    def _state_info(self, sol: tuple[int, ...], finals: tuple[int, ...]) -> tuple:
        """Observed final state, whether the proposition holds, whether the filter keeps
        it, and whether a thread execution hit the unrolling bound."""
        values: list[Value] = []
        for regs, m in zip(self.regtabs, sol, strict=False):  # one mask per thread
            values += regs[m.bit_length() - 1]
        fl = self.final_locs
        if fl:
            wconst, wvals, tid_of = self.wconst, self.wvals, self.tid_of
            for li in fl:
                w = finals[li]
                v = wconst[w]
                values.append(wvals[w][sol[tid_of[w]].bit_length() - 1] if v is None else v)
        if self.consts:
            values += self.consts
        key = self.pick(values)
        judged = self._judged.get(key)
        if judged is None:
            verdict = self._verdicts.get(key)
            if verdict is None:
                if len(self._verdicts) >= MAX_JUDGED:
                    self._verdicts.clear()
                verdict = self._verdicts[key] = (
                    self.sat(key),
                    self.keep is None or bool(self.keep(key)),
                )
            sat, kept = verdict
            keep: bool | None = kept
            if keep and sat == self.irrelevant:  # speedcheck: it settles nothing
                keep = None
            judged = self._judged[key] = (key[: self.nobs], sat, keep, False)
        if self.loops:
            variant = self.loop_variant
            loop = any(variant[t][m.bit_length() - 1] for t, m in enumerate(sol))
            return (*judged[:3], loop)
        return judged

    def _leaf(self, rf, co, masks, pending, finals) -> None:
        tally = self.tally
        tally.stats.candidates += 1
        self._budget -= 1
        if not self._budget:
            self._deadline()
        if self.simple:
            sols: list[tuple[int, ...]] | tuple[tuple[int, ...]] = (masks,)
        else:
            sols = resolved(self, masks, pending)
            if not sols:
                tally.stats.bump("unsolved")
                return
        verdicts = None
        if self.lean:  # the model first: a rejected candidate needs no final state
            verdicts = self._check(rf, co, finals, False)
            for v in verdicts:
                if v.allowed:
                    break
            else:
                return
        cache = self._leafcache
        fl = self.final_locs
        for sol in sols:
            key = (sol, *[finals[li] for li in fl]) if fl else sol
            info = cache.get(key)
            if info is None:
                info = cache[key] = self._state_info(sol, finals)
            obs, sat, keep, loop = info
            if not keep:
                tally.stats.bump("filtered" if keep is False else "irrelevant")
                continue
            want = self.show and tally.wants_witness(sat)
            if verdicts is None or want:
                verdicts = self._check(rf, co, finals, want)
            if self.blocked or self.fails:
                if self._failed(rf, co, verdicts, sol, obs):
                    continue
            ended = loop and not self.loop_marks  # GenMC's bound ended a thread
            if tally.count(obs, sat, loop and not ended, verdicts):
                if ended:
                    tally.stats.bump(ENDED_LOOP_BOUND)
                if want:
                    for v in verdicts:
                        if v.allowed and tally.wants_witness(sat):
                            tally.keep_witness(self._graph(rf, co, v, sol), v, obs, sat)
                            if self.fast:
                                break
                if self.fast:
                    tally.settle()

    def _lean_leaf(self) -> Leaf:
        """:meth:`_leaf` when every complete candidate goes to the model and only its
        allowed ones count (``lean``: no filter, no speedcheck, no pictures, no failed or
        blocked thread), with what it asks for every candidate looked up once: the
        verdicts are tallied once per candidate (as :meth:`OutcomeBuilder.allowed`, inline),
        then each of its final states (as :meth:`OutcomeBuilder.add`, inline)."""
        tally = self.tally
        stats = tally.stats
        flags = tally.flags
        states = tally.states
        cache = self._leafcache
        state_info = self._state_info if self.loops else self._lean_state()
        fl = self.final_locs
        finals_of = itemgetter(*fl) if fl else None
        simple = self.simple
        marks = self.loop_marks
        native = self.native
        observed = sorted(self.observed_locs)

        def leaf(rf, co, masks, pending, finals) -> None:
            stats.candidates += 1
            self._budget -= 1
            if not self._budget:
                self._deadline()
            if simple:
                sols: list[tuple[int, ...]] | tuple[tuple[int, ...]] = (masks,)
            else:
                sols = resolved(self, masks, pending)
                if not sols:
                    stats.bump("unsolved")
                    return
            self.n_checks += 1
            if native:  # (self.check: the session may switch to specialised code)
                verdicts = self.check(rf, co)
            else:
                fw = 0
                for li in observed:
                    fw |= 1 << finals[li]
                verdicts = self.check(rf, fw=fw)
            n = 0  # (OutcomeBuilder.allowed, inline)
            for v in verdicts:
                if v.allowed:
                    n += 1
                    if v.flags:
                        flags.update(v.flags)
                    if v.undefined:
                        tally.undefined = True
            if not n:
                return
            for sol in sols:
                key = sol if finals_of is None else (sol, finals_of(finals))
                info = cache.get(key)
                if info is None:
                    info = cache[key] = state_info(sol, finals)
                if info[3]:  # a thread hit the loop bound
                    if marks:  # herd's bound: it only marks the verdict
                        tally.unroll_cut = True
                        continue
                    stats.bump(ENDED_LOOP_BOUND)  # GenMC's bound ended a thread: it counts
                entry = states.get(info[0])  # (OutcomeBuilder.add, inline)
                if entry is None:
                    states[info[0]] = [n, info[1]]
                else:
                    entry[0] += n

        return leaf

    def _lean_state(self) -> Callable[[tuple[int, ...], tuple[int, ...]], tuple]:
        """:meth:`_state_info` for :meth:`_lean_leaf` when no thread execution hits the
        unrolling bound: no filter, so the state holds the observed locations only, and
        no speedcheck, so every state is kept."""
        regtabs, fl, consts, pick = self.regtabs, self.final_locs, self.consts, self.pick
        wconst, wvals, tid_of = self.wconst, self.wvals, self.tid_of
        verdicts, sat_of = self._verdicts, self.sat

        def state(sol: tuple[int, ...], finals: tuple[int, ...]) -> tuple:
            values: list[Value] = []
            for regs, m in zip(regtabs, sol, strict=False):  # one mask per thread
                values += regs[m.bit_length() - 1]
            for li in fl:
                w = finals[li]
                v = wconst[w]
                values.append(wvals[w][sol[tid_of[w]].bit_length() - 1] if v is None else v)
            if consts:
                values += consts
            key = pick(values)
            verdict = verdicts.get(key)
            if verdict is None:
                if len(verdicts) >= MAX_JUDGED:
                    verdicts.clear()
                verdict = verdicts[key] = (sat_of(key), True)
            return (key, verdict[0], True, False)

        return state

    def _failed(self, rf, co, verdicts, sol, obs) -> bool:
        """Note an execution where an assertion failed or the loop bound blocked a thread,
        if the model allows it; whether it is blocked (not counted as an execution)."""
        allowed = [v for v in verdicts if v.allowed]
        if allowed and self.bound:
            self.tally.stats.bump("blocked_loop_bound")
        if allowed and self.fails:
            t, f = self.fails[0]
            tally = self.tally
            origin = self.threads.program.threads[t].origins[f.site]
            graph = self._graph(rf, co, allowed[0], sol) if not tally.errors else None
            tally.error(ErrorRecord(f.message, t, origin, not self.blocked, obs, graph))
            if self.goal.stop_on_error:
                if not self.blocked:
                    tally.count(obs, self.sat(obs), False, verdicts)
                raise ErrorFound()
        return self.blocked

    def _check(self, rf: int, co: int, finals: tuple[int, ...], want: bool) -> list:
        self.n_checks += 1
        if self.native:
            vs = self.session.check(rf, co, want_shows=True) if want else self.check(rf, co)
        else:
            fw = 0
            for li in self.observed_locs:
                fw |= 1 << finals[li]
            vs = self.session.check(rf, fw=fw, want_shows=want)
        return vs

    def _graph(self, rf, co, verdict, sol) -> ExecutionGraph:
        """The graph of an accepted execution (thread executions ``sol``), with its own
        values and the co the model chose when it chose one."""
        execs = [self.variants[t][m.bit_length() - 1] for t, m in enumerate(sol)]
        values = [[e.value for e in te.events] for te in execs]
        lay = build_skeleton(self.threads.locations, self.threads.init_mem, execs, values)
        vco = verdict.co
        return ExecutionGraph.from_relations(lay.sk, rf, co if self.native or vco is None else vco)
