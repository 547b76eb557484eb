"""The outcome of a TruSt run, from the complete graphs the exploration reports.

For every complete graph, the observed final state (registers from the threads' final
states, memory from the co-last writes), whether the condition's proposition holds, the
filter, and the model's verdicts (flags, ``undefined_unless``) are counted by the code
every engine uses (:class:`engine.outcome.OutcomeBuilder`).

Under herd's ``-speedcheck`` a complete graph whose final state does not settle the
condition is not shown to the model (it is counted apart, ``irrelevant``), and with
``fast`` the exploration stops at the first execution counted.

Under a preemption bound, complete graphs over the bound (visited thanks to the slack)
are not part of the outcome; they are counted apart, and so are the *decisive*
executions (those settling the condition: satisfying the proposition for ``exists`` and
``~exists``, contradicting it for ``forall``) found within and beyond the bound.
"""

from __future__ import annotations

from collections.abc import Callable

from herdsman.cat.api import ConsistencyChecker, Verdict
from herdsman.engine.conditions import needed_locations
from herdsman.engine.errors import ErrorFound
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import (
    ErrorRecord,
    ExecutionRecord,
    OutcomeBuilder,
    record,
    wants_show,
)
from herdsman.engine.semantics.state import Done, Failed
from herdsman.engine.trust.graph import TrustGraph
from herdsman.engine.trust.preemption import PreemptionBound
from herdsman.graphs.execution import ExecutionGraph, Layout
from herdsman.litmus.base.ir import Loc, MemLoc, Program, RegLoc, Value, eval_prop

#: Final states whose judgement is remembered (emptied when full: memory stays flat).
MAX_JUDGED = 4096


class TrustTally(OutcomeBuilder):
    """Accumulates the outcome from the complete graphs TruSt reports."""

    def __init__(
        self,
        program: Program,
        checker: ConsistencyChecker,
        opts: RunOptions,
        bound: PreemptionBound | None,
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
        self.skipped = 0  # speedcheck: complete graphs settling nothing, not judged
        self._getters: tuple[object, list[tuple[Loc, int, object]]] | None = None
        # per final state (the needed locations' values): proposition, filter, observed
        self._judged: dict[tuple[Value, ...], tuple[bool, bool, tuple[Value, ...]]] = {}
        self._allowed = [Verdict(allowed=True)]  # of a graph judged light (see light())
        self.within = self.beyond = 0  # preemption bound: complete graphs each side
        self.decisive_within = self.decisive_beyond = 0

    def final_state(self, g: ExecutionGraph, finals: list[Done]) -> dict[Loc, Value]:
        """Values of the observed (and filter) locations in a finished graph whose threads
        ended as ``finals``."""
        return self._state(g.lay, g.final_value, finals)

    def _state(
        self, lay: Layout, final_value: Callable[[int], Value], finals: list[Done]
    ) -> dict[Loc, Value]:
        """:meth:`final_state` of a graph of layout ``lay`` whose location ``li`` ends
        with the value ``final_value(li)``."""
        out: dict[Loc, Value] = {}
        getters = self._getters
        if getters is None or getters[0] is not lay:
            getters = self._getters = (lay, self._plan(lay))
        for loc, kind, a in getters[1]:
            if kind == 0:  # a register of thread a
                out[loc] = finals[a].reg(loc.reg)  # type: ignore[index,union-attr]
            elif kind == 1:  # memory location a
                out[loc] = final_value(a)  # type: ignore[arg-type]
            else:  # nothing writes it: its initial value
                out[loc] = a
        return out

    def _plan(self, lay: Layout) -> list[tuple[Loc, int, object]]:
        """How to read each needed location in the graphs of layout ``lay``."""
        plan: list[tuple[Loc, int, object]] = []
        loc_index = lay.loc_index
        for loc in self.needed:
            if isinstance(loc, RegLoc) and 0 <= loc.tid < lay.T:
                plan.append((loc, 0, loc.tid))
            elif isinstance(loc, MemLoc) and loc.name in loc_index:
                plan.append((loc, 1, loc_index[loc.name]))
            else:
                plan.append((loc, 2, self.program.initial_value(loc)))
        return plan

    def light(self) -> bool:
        """Whether a complete graph may be recorded from its final values alone
        (:meth:`complete_final`): the checks that accepted it are all the model has, and
        nothing is to be shown, printed or bounded."""
        return (
            self.checker.exact
            and self.bound is None
            and not self.opts.print_executions
            and not wants_show(self.show, self.quant, True)
            and not wants_show(self.show, self.quant, False)
        )

    def complete_final(self, lay: Layout, values: list[Value], finals: list[Done]) -> bool | None:
        """:meth:`complete` for a graph of layout ``lay`` known by its locations' final
        ``values`` (only when :meth:`light`; no thread failed)."""
        return self._complete(self._state(lay, values.__getitem__, finals), finals, (), None)

    def complete(
        self, g: ExecutionGraph, finals: list[Done], fails: list[tuple[int, Failed]] = ()
    ) -> bool | None:
        """Record a complete graph (its threads ended as ``finals``, those in ``fails``
        failing an assertion); whether the model allows it (None: not asked, under
        speedcheck a graph that settles nothing)."""
        return self._complete(self.final_state(g, finals), finals, fails, g)

    def _complete(
        self,
        state: dict[Loc, Value],
        finals: list[Done],
        fails: list[tuple[int, Failed]],
        g: ExecutionGraph | None,
    ) -> bool | None:
        """:meth:`complete` on the final ``state``; ``g`` None: the graph is not at hand
        (:meth:`light`)."""
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
        sat, keep, obs = judged
        if keep and sat == self.irrelevant:
            self.skipped += 1
            return None
        want = keep and self.wants_witness(sat)
        if g is None:
            verdicts = self._allowed
        else:
            verdicts, _ = self.checker.verdicts(g, want_shows=want)
        allowed = [v for v in verdicts if v.allowed]
        if not allowed:
            return False
        pre = None
        if self.bound is not None:
            assert g is not None
            pre = self.bound.count(g)
            decisive = (not sat) if self.quant == "forall" else sat
            if pre > self.bound.k:  # visited thanks to the slack: not part of the outcome
                self.beyond += 1
                self.decisive_beyond += decisive
                self._record(g, obs, sat, pre)
                return True
            self.within += 1
            self.decisive_within += decisive
        if not keep:
            self.filtered += 1
            return True
        cut = any(d.cut for d in finals)
        self.count(obs, sat, cut, allowed)
        if cut:  # as herd: cut by the unrolling bound, it only marks the verdict Loop
            return None
        if fails:
            assert g is not None
            self.report_error(g, fails, obs, complete=True)
        if want:
            assert g is not None
            for v in allowed:
                if self.wants_witness(sat):
                    self.keep_witness(picture(g), v, obs, sat)
                    if self.fast:
                        break
        self._record(g, obs, sat, pre)
        if self.fast:
            self.settle()
        return True

    def blocked_error(self, g: TrustGraph, fails: list[tuple[int, Failed]]) -> None:
        """A blocked graph (consistent so far) where an assertion failed: an error too."""
        obs = tuple(self._partial_value(g, loc) for loc in self.observed)
        self.report_error(g, fails, obs, complete=False)

    def _partial_value(self, g: TrustGraph, loc: Loc) -> Value:
        if isinstance(loc, RegLoc) and 0 <= loc.tid < g.T:
            s = g.at(loc.tid).step
            done = s.done if isinstance(s, Failed) else s if isinstance(s, Done) else None
            return done.reg(loc.reg) if done is not None else 0
        if isinstance(loc, MemLoc) and loc.name in g.lay.loc_index:
            return g.final_value(g.lay.loc_index[loc.name])
        return self.program.initial_value(loc)

    def report_error(
        self, g: ExecutionGraph, fails: list[tuple[int, Failed]], obs: tuple, complete: bool
    ) -> None:
        """Record an execution (``complete``, or blocked) where ``fails`` failed an
        assertion, with the observed values ``obs``."""
        t, f = fails[0]
        origin = self.program.threads[t].origins[f.site]
        graph = picture(g) if not self.errors else None
        self.error(ErrorRecord(f.message, t, origin, complete, obs, graph))
        if self.opts.stop_on_error:
            raise ErrorFound()

    def _record(
        self, g: ExecutionGraph | None, obs: tuple[Value, ...], sat: bool, pre: int | None
    ) -> None:
        """Keep the execution (``print_executions``), with its picture (``executions_dot``)."""
        if not self.opts.print_executions:
            return
        assert g is not None
        if self.opts.executions_dot:
            verdicts, _ = self.checker.verdicts(g, want_shows=True)
            v: Verdict = next(v for v in verdicts if v.allowed)
            entry = record(picture(g), v, obs, sat)
        else:
            entry = ExecutionRecord(obs, sat)
        if pre is not None:
            assert self.bound is not None
            entry.preemptions = pre
            entry.beyond_bound = pre > self.bound.k
        self.executions.append(entry)


def picture(g: ExecutionGraph) -> ExecutionGraph:
    """A finished graph on its own (with its values; no link to the exploration)."""
    rel = g.relations(values=True)
    return ExecutionGraph.from_relations(rel.sk, rel.rf, rel.co)
