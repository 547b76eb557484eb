"""The per-test tally of a TruSt run: herd's result fields from the complete graphs.

For every complete graph the explorer reports, the observed final state (registers from
the threads' executions, memory from the co-last writes), whether the condition's
proposition holds, the filter, and the model's verdicts (flags, ``undefined_unless``)
give what herd prints, counted by the code the reference engine uses
(:class:`engine.outcome.Counts`).

Under a preemption bound, complete graphs over the bound (visited thanks to the slack)
are not part of the result; they are counted apart, and so are the *decisive*
executions (those settling herd's verdict: satisfying the proposition for ``exists`` and
``~exists``, contradicting it for ``forall``) found within and beyond the bound.
"""

from __future__ import annotations

from typing import Any

from herdsman.engine.outcome import ExecutionRecord, OutcomeBuilder, record
from herdsman.engine.props import needed_locations
from herdsman.engine.trust_graph import TGraph
from herdsman.engine.trust_program import Program
from herdsman.graphs.execution import ExecutionGraph
from herdsman.litmus.ir import LitmusTest, Loc, MemLoc, RegLoc, Value, eval_prop


class Tally(OutcomeBuilder):
    """Accumulates the outcome from the complete graphs TruSt reports."""

    def __init__(self, test: LitmusTest, prog: Program, checker, opts: Any, bound) -> None:
        super().__init__(test.observed_locations(), test.condition.quant, opts.show, opts.nshow)
        self.prog = prog
        self.checker = checker
        self.opts = opts
        self.bound = bound
        self.observed: list[Loc] = test.observed_locations()
        self.prop = test.condition.prop
        self.quant = test.condition.quant
        self.filter = test.filter if opts.checkfilter else None
        self.needed = needed_locations(self.observed, self.filter)
        self.filtered = 0
        self.within = self.beyond = 0  # preemption bound: complete graphs each side
        self.decisive_within = self.decisive_beyond = 0

    def final_state(self, g: TGraph) -> dict[Loc, Value]:
        """Values of the observed (and filter) locations in a finished graph."""
        execs = g.final_execs()
        prog = self.prog
        out: dict[Loc, Value] = {}
        for loc in self.needed:
            if isinstance(loc, RegLoc) and 0 <= loc.tid < len(execs):
                te = execs[loc.tid]
                out[loc] = te.reg(loc.reg) if te is not None else 0
            elif isinstance(loc, MemLoc) and loc.name in prog.loc_index:
                li = prog.loc_index[loc.name]
                co = g.co[li]
                out[loc] = g.val[co[-1] if co else li]  # type: ignore[assignment]
            else:  # nothing writes it
                out[loc] = prog.threads.initial_value(loc)
        return out

    def complete(self, g: TGraph) -> bool:
        """Record a complete graph; whether the model allows it."""
        state = self.final_state(g)
        sat = eval_prop(self.prop, state)
        keep = self.filter is None or eval_prop(self.filter, state)
        opts = self.opts
        want = keep and self.wants_witness(sat)
        verdicts, rf, co = self.checker.verdicts(g, want_shows=want)
        allowed = [v for v in verdicts if v.allowed]
        if not allowed:
            return False
        pre = None
        if self.bound is not None:
            pre = self.bound.count(g)
            decisive = (not sat) if self.quant == "forall" else sat
            if pre > self.bound.k:  # visited thanks to the slack: not part of the result
                self.beyond += 1
                self.decisive_beyond += decisive
                self._record(g, state, sat, pre)
                return True
            self.within += 1
            self.decisive_within += decisive
        if not keep:
            self.filtered += 1
            return True
        obs = tuple(state[loc] for loc in self.observed)
        self.count(obs, sat, any(te.loop for te in g.final_execs()), allowed)
        if want:
            for v in allowed:
                if opts.nshow is None or len(self.witnesses) < opts.nshow:
                    self.keep_witness(self.graph(g, rf, co), v, obs, sat)
        self._record(g, state, sat, pre)
        return True

    def _record(self, g: TGraph, state, sat: bool, pre: int | None) -> None:
        """Keep the execution (``print_executions``), with its picture (``executions_dot``)."""
        if not self.opts.print_executions:
            return
        obs = tuple(state[loc] for loc in self.observed)
        if self.opts.executions_dot:
            verdicts, rf, co = self.checker.verdicts(g, want_shows=True)
            v = next(v for v in verdicts if v.allowed)
            entry = record(self.graph(g, rf, co), v, obs, sat)
        else:
            entry = ExecutionRecord(obs, sat)
        if pre is not None:
            entry.preemptions = pre
            entry.beyond_bound = pre > self.bound.k
        self.executions.append(entry)

    def graph(self, g: TGraph, rf: int, co: int) -> ExecutionGraph:
        """The graph of a finished execution, with its values, as the reference engine
        keeps it for ``-show`` (same numbering: initial writes, then thread by thread)."""
        from herdsman.engine.build import build_skeleton

        threads = self.prog.threads
        lay = build_skeleton(threads.locations, threads.init_mem, g.final_execs())
        return ExecutionGraph(lay.sk, rf, co)
