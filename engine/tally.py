"""The one tally of every explorer that reports finished executions (TruSt, in Python and
through the compiled core's host, RSMC, the operational engine): from a finished
execution's final state to the :class:`engine.outcome.Outcome`'s counts.

For every finished execution, the observed final state (registers from the threads'
final states, memory from the locations' final values), whether the condition's
proposition holds, the filter (both judged once per final state), and the model's
verdicts (flags, ``undefined_unless``: asked of the consistency checker, or, for a
machine, every run allowed) are counted by the builder every engine counts with
(:class:`engine.outcome.OutcomeBuilder`; the reference explorer, whose candidates are
not graphs, counts with that builder directly).

* Under herd's ``-speedcheck`` an execution whose final state does not settle the
  condition is not shown to the model (it is counted apart, ``skipped``), and with
  ``fast`` the exploration stops at the first execution counted.
* Under a preemption bound (TruSt), complete graphs over the bound (visited thanks to the
  slack) are not part of the outcome; they are counted apart, and so are the *decisive*
  executions (those settling the condition: satisfying the proposition for ``exists``
  and ``~exists``, contradicting it for ``forall``) found within and beyond the bound.
* With ``dedupe`` (the operational engine: several runs may give one execution) an
  execution is counted once, by a digest of it; runs the filter drops are counted before.
* An execution where an assertion failed is an error (the first kept with its picture);
  so is, with ``races`` (``herdsman verify``), one the model finds undefined (a data
  race: its ``undefined_unless`` check's witness names the two accesses); and so is one
  where a thread accesses memory another freed without the access happening before the
  free (:mod:`engine.freed`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from herdsman.cat.api import ConsistencyChecker, Verdict
from herdsman.engine.conditions import needed_locations
from herdsman.engine.errors import ErrorFound
from herdsman.engine.freed import FREED, freed_access
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import (
    ENDED_LOOP_BOUND,
    ErrorRecord,
    ExecutionRecord,
    OutcomeBuilder,
    record,
    wants_show,
)
from herdsman.engine.semantics.arith import is_known
from herdsman.engine.semantics.state import ThreadDone, ThreadFailed
from herdsman.graphs.execution import ExecutionGraph, Layout
from herdsman.litmus.base.ir import Free, Loc, MemLoc, Program, RegLoc, Value, eval_prop

__all__ = ["MAX_JUDGED", "Bound", "Tally", "picture"]

#: Final states whose judgement is remembered (emptied when full: memory stays flat).
MAX_JUDGED = 4096

#: A finished execution's graph, made when the tally needs one (pictures, errors).
Picture = Callable[[], ExecutionGraph]
#: How each needed location is read: (location, 0: a register of thread a | 1: memory
#: location a | 2: the constant c, a, c).
Getters = list[tuple[Loc, int, int, Value]]


class Bound(Protocol):
    """A preemption bound (``engine.trust.preemption``): ``k``, and a graph's count."""

    k: int

    def count(self, g: Any) -> int:
        """The preemptions of the graph ``g`` (a graph of the explorer's own kind)."""
        ...


class Tally(OutcomeBuilder):
    """Accumulates the outcome from the finished executions an explorer reports (see the
    module docstring); ``checker`` (None: every execution is allowed) judges them."""

    def __init__(
        self,
        program: Program,
        opts: RunOptions,
        checker: ConsistencyChecker | None = None,
        bound: Bound | None = None,
        dedupe: bool = False,
    ) -> None:
        super().__init__(
            program.observed, program.condition.quant, opts.show, opts.nshow, opts.speedcheck
        )
        self.program = program
        self.checker = checker
        self.opts = opts
        self.bound = bound
        self.prop = program.condition.prop
        self.filter = program.filter if opts.checkfilter else None
        self.needed = needed_locations(list(self.observed), self.filter)
        self.filtered = 0
        self.skipped = 0  # speedcheck: executions settling nothing, not judged
        self.cut = 0  # allowed executions cut by the unrolling bound: only herd's Loop
        #: herd's unrolling bound marks Loop; GenMC's ends a thread, the execution counts
        self.loop_marks = program.loop_bound == "cut"
        #: dedupe: the digests of the executions counted, and how many came again
        self.seen: set[bytes] | None = set() if dedupe else None
        self.duplicates = 0
        self._getters: tuple[object, Getters] | None = None
        # per final state (the needed locations' values): proposition, filter, observed
        self._judged: dict[tuple[Value, ...], tuple[bool, bool, tuple[Value, ...]]] = {}
        self._allowed = [Verdict(allowed=True)]  # an execution no checker judges
        self.within = self.beyond = 0  # preemption bound: complete graphs each side
        self.decisive_within = self.decisive_beyond = 0
        self.frees = program.has(Free)  # a thread's free is checked against the others'

    # ------------------------------------------------------------------ final states
    def final_state(
        self,
        loc_index: Mapping[str, int],
        final_value: Callable[[int], Value],
        dones: Sequence[ThreadDone | None],
    ) -> dict[Loc, Value]:
        """Values of the observed (and filter) locations in a finished execution whose
        location ``loc_index[x]`` ends with ``final_value(loc_index[x])`` and whose
        threads ended as ``dones`` (None: a thread that did not end; its registers read
        0)."""
        out: dict[Loc, Value] = {}
        getters = self._getters
        if getters is None or getters[0] is not loc_index:
            getters = self._getters = (loc_index, self._plan(loc_index, len(dones)))
        for loc, kind, a, c in getters[1]:
            if kind == 0:  # a register of thread a
                done = dones[a]
                assert isinstance(loc, RegLoc)
                v = 0 if done is None else done.reg(loc.reg)
                assert is_known(v), "a final register is known"
                out[loc] = v
            elif kind == 1:  # memory location a
                out[loc] = final_value(a)
            else:  # nothing writes it: its initial value
                out[loc] = c
        return out

    def _plan(self, loc_index: Mapping[str, int], T: int) -> Getters:
        """How to read each needed location with ``loc_index`` and ``T`` threads."""
        plan: Getters = []
        for loc in self.needed:
            if isinstance(loc, RegLoc) and 0 <= loc.tid < T:
                plan.append((loc, 0, loc.tid, 0))
            elif isinstance(loc, MemLoc) and loc.name in loc_index:
                plan.append((loc, 1, loc_index[loc.name], 0))
            else:
                plan.append((loc, 2, 0, self.program.initial_value(loc)))
        return plan

    def judged(self, state: dict[Loc, Value]) -> tuple[bool, bool, tuple[Value, ...]]:
        """Whether ``state`` satisfies the proposition, whether the filter keeps it, and
        its observed values (judged once per final state)."""
        key = tuple(state.values())
        judged = self._judged.get(key)
        if judged is None:  # a final state not seen yet: the condition and filter on it
            if len(self._judged) >= MAX_JUDGED:
                self._judged.clear()
            judged = self._judged[key] = (
                eval_prop(self.prop, state),
                self.filter is None or eval_prop(self.filter, state),
                tuple(state[loc] for loc in self.observed),
            )
        return judged

    # ------------------------------------------------------------------ graphs
    def light(self) -> bool:
        """Whether a complete graph may be recorded from its final values alone
        (:meth:`complete_final`): the checks that accepted it are all the model has, and
        nothing is to be shown, printed or bounded."""
        return (
            self.checker is not None
            and self.checker.exact
            and self.bound is None
            and not self.opts.races
            and not self.frees
            and not self.opts.print_executions
            and not wants_show(self.show, self.quant, True)
            and not wants_show(self.show, self.quant, False)
        )

    def complete_graph(
        self,
        g: ExecutionGraph,
        finals: list[ThreadDone],
        fails: Sequence[tuple[int, ThreadFailed]] = (),
    ) -> bool | None:
        """Record a complete graph (its threads ended as ``finals``, those in ``fails``
        failing an assertion); whether the model allows it (None: not asked, under
        speedcheck a graph that settles nothing)."""
        state = self.final_state(g.lay.loc_index, g.final_value, finals)
        allowed = self.complete(state, any(d.cut for d in finals), fails, g)
        if allowed and not fails and self.frees:
            ev = freed_access(g, finals)
            if ev is not None:
                obs = tuple(state[loc] for loc in self.observed)
                graph = picture(g) if not self.errors else None
                self.error(ErrorRecord(FREED, ev.tid, ev.instr, True, obs, graph))
                if self.opts.stop_on_error:
                    raise ErrorFound()
        return allowed

    def complete_final(
        self, lay: Layout, values: list[Value], finals: list[ThreadDone]
    ) -> bool | None:
        """:meth:`complete_graph` for a graph of layout ``lay`` known by its locations'
        final ``values`` (only when :meth:`light`; no thread failed)."""
        state = self.final_state(lay.loc_index, values.__getitem__, finals)
        return self.complete(state, any(d.cut for d in finals), [], None)

    # ------------------------------------------------------------------ executions
    def complete(
        self,
        state: dict[Loc, Value],
        cut: bool,
        fails: Sequence[tuple[int, ThreadFailed]],
        g: ExecutionGraph | None,
        draw: Picture | None = None,
        digest: bytes | None = None,
    ) -> bool | None:
        """Record a finished execution of final ``state`` (``cut``: a loop bound
        stopped a thread: herd's only marks ``Loop``, :attr:`loop_marks`; ``fails``: the
        threads that failed an assertion), its graph ``g`` for the checker (None: not
        at hand, :meth:`light`) and ``draw`` for its picture (by default, ``g``'s);
        ``digest`` identifies it (``dedupe``).  Whether the model allows it (None: not
        asked)."""
        ended = cut and not self.loop_marks
        cut = cut and self.loop_marks
        sat, keep, obs = self.judged(state)
        if self.seen is not None:  # an execution is counted once, whichever run gave it
            if not keep:
                self.filtered += 1
                return True
            assert digest is not None
            if digest in self.seen:
                self.duplicates += 1
                return True
            self.seen.add(digest)
        if keep and sat == self.irrelevant:
            self.skipped += 1
            return None
        want = keep and self.wants_witness(sat)
        if self.checker is None or g is None:
            verdicts = self._allowed
        else:
            verdicts, _ = self.checker.verdicts(g, want_shows=want)
        allowed = [v for v in verdicts if v.allowed]
        if not allowed:
            return False
        draw = draw or _drawing(g)
        pre = None
        if self.bound is not None:
            assert g is not None
            pre = self.bound.count(g)
            decisive = (not sat) if self.quant == "forall" else sat
            if pre > self.bound.k:  # visited thanks to the slack: not part of the outcome
                self.beyond += 1
                self.decisive_beyond += decisive
                self._record(g, draw, obs, sat, pre)
                return True
            self.within += 1
            self.decisive_within += decisive
        if not keep:
            self.filtered += 1
            return True
        self.count(obs, sat, cut, allowed)
        if ended:
            self.stats.bump(ENDED_LOOP_BOUND)
        if cut:  # as herd: cut by the unrolling bound, it only marks the verdict Loop
            self.cut += 1
            return None
        racy = [v for v in allowed if v.undefined] if self.opts.races else []
        if racy:  # found as its later access is added: before any assertion after it
            self.report_race(racy[0], g, obs, draw)
        elif fails:
            self.report_error(fails, obs, True, draw)
        if want:
            for v in allowed:
                if self.wants_witness(sat):
                    self.keep_witness(draw(), v, obs, sat)
                    if self.fast:
                        break
        self._record(g, draw, obs, sat, pre)
        if self.fast:
            self.settle()
        return True

    def blocked_error(
        self, state: dict[Loc, Value], fails: Sequence[tuple[int, ThreadFailed]], draw: Picture
    ) -> None:
        """An execution where a thread is blocked and ``fails`` failed an assertion, with
        final ``state`` (see :meth:`final_state`): an error too."""
        self.report_error(fails, tuple(state[loc] for loc in self.observed), False, draw)

    def report_error(
        self,
        fails: Sequence[tuple[int, ThreadFailed]],
        obs: tuple[Value, ...],
        complete: bool,
        draw: Picture,
    ) -> None:
        """Record an execution (``complete``, or blocked) where ``fails`` failed an
        assertion, with the observed values ``obs``."""
        t, f = fails[0]
        origin = self.program.threads[t].origins[f.site]
        graph = draw() if not self.errors else None
        self.error(ErrorRecord(f.message, t, origin, complete, obs, graph))
        if self.opts.stop_on_error:
            raise ErrorFound()

    def report_race(
        self, v: Verdict, g: ExecutionGraph | None, obs: tuple[Value, ...], draw: Picture
    ) -> None:
        """Record a complete execution the model finds undefined (``v``): a data race,
        its two accesses from the failed check's witness (a pair of events of ``g``)."""
        pair: list[int] = []
        for f in v.failed:
            if f.witness and len(f.witness) == 2:
                pair = [f.witness[1], f.witness[0]]
                break
        race = tuple((g.tid[e], g.idx[e]) for e in pair) if g is not None else ()
        thread = race[0][0] if race else 0
        graph = draw() if not self.errors and g is not None else None
        self.error(ErrorRecord("Non-atomic race", thread, "", True, obs, graph, race))
        if self.opts.stop_on_error:
            raise ErrorFound()

    def _record(
        self,
        g: ExecutionGraph | None,
        draw: Picture,
        obs: tuple[Value, ...],
        sat: bool,
        pre: int | None,
    ) -> None:
        """Keep the execution (``print_executions``), with its picture (``executions_dot``)
        and what the model shows on it."""
        if not self.opts.print_executions:
            return
        if self.opts.executions_dot:
            v = self._allowed[0]
            if self.checker is not None and g is not None:
                verdicts, _ = self.checker.verdicts(g, want_shows=True)
                v = next(v for v in verdicts if v.allowed)
            entry = record(draw(), v, obs, sat)
        else:
            entry = ExecutionRecord(obs, sat)
        if pre is not None:
            assert self.bound is not None
            entry.preemptions = pre
            entry.beyond_bound = pre > self.bound.k
        self.executions.append(entry)


def _drawing(g: ExecutionGraph | None) -> Picture:
    """The picture of ``g`` (which must be at hand when one is asked for)."""

    def draw() -> ExecutionGraph:
        assert g is not None
        return picture(g)

    return draw


def picture(g: ExecutionGraph) -> ExecutionGraph:
    """A finished graph on its own (with its values; no link to the exploration)."""
    rel = g.relations(values=True)
    return ExecutionGraph.from_relations(rel.sk, rel.rf, rel.co)
