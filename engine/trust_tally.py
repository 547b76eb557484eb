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

from herdsman.engine.outcome import Counts, shown_execution, wants_show
from herdsman.engine.props import needed_locations
from herdsman.engine.result import ShownExecution
from herdsman.engine.trust_graph import TGraph
from herdsman.engine.trust_program import Program
from herdsman.litmus.ir import LitmusTest, Loc, MemLoc, RegLoc, Value, eval_prop


class Tally(Counts):
    """Accumulates what herd prints from the complete graphs TruSt reports."""

    def __init__(self, test: LitmusTest, prog: Program, checker, opts: Any, bound) -> None:
        super().__init__()
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
        self.executions: list[dict[str, Any]] = []
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
        want = (
            keep
            and wants_show(opts.show, self.quant, sat)
            and (opts.nshow is None or len(self.shown) < opts.nshow)
        )
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
                self._record(g, state, sat, pre, allowed[0])
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
                if opts.nshow is None or len(self.shown) < opts.nshow:
                    self.shown.append(self.picture(g, rf, co, v, sat))
        self._record(g, state, sat, pre, allowed[0])
        return True

    def _record(self, g: TGraph, state, sat: bool, pre: int | None, verdict) -> None:
        """Keep the execution's line (``print_executions``) and picture (``executions_dot``)."""
        if not self.opts.print_executions:
            return
        from herdsman.litmus.printer import loc_text, value_text

        text = " ".join(f"{loc_text(loc)}={value_text(state[loc])};" for loc in self.observed)
        entry: dict[str, Any] = {"state": text, "satisfies": sat}
        if pre is not None:
            entry["preemptions"] = pre
            entry["beyond_bound"] = pre > self.bound.k
        if self.opts.executions_dot:
            verdicts, rf, co = self.checker.verdicts(g, want_shows=True)
            v = next((v for v in verdicts if v.allowed), verdict)
            entry["graph"] = self.picture(g, rf, co, v, sat)
        self.executions.append(entry)

    def picture(self, g: TGraph, rf: int, co: int, verdict, sat: bool) -> ShownExecution:
        """The graph of a finished execution, with its values, as the reference engine
        keeps it for ``-show`` (same numbering: initial writes, then thread by thread)."""
        from herdsman.engine.build import build_skeleton
        from herdsman.graphs.execution import ExecutionGraph

        threads = self.prog.threads
        lay = build_skeleton(threads.locations, threads.init_mem, g.final_execs())
        return shown_execution(ExecutionGraph(lay.sk, rf, co), verdict, sat)
