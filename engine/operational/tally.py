"""The outcome of an operational exploration, from the runs it reports.

A complete run (every thread ended, buffers empty) is an *execution*: its events, the
write each read took its value from (rf) and the order in which writes reached memory
(co).  Different runs may give one execution (DPOR explores each Mazurkiewicz trace at
least once, and an execution may have several traces), so executions are counted once
each, by a digest of their rf and co: the counts are then those of the axiomatic models
(each TSO-consistent execution is the execution of some run of the machine, and the
converse).  Under ``--stateful`` runs are cut at visited states, so an outcome counts
the distinct final states reached instead.

Under herd's ``-speedcheck`` a run whose final state does not settle the condition is
not counted (``irrelevant``), and with ``fast`` the exploration stops at the first
execution counted.

Final states, the condition, herd's filter, errors (a thread failed an assertion: in a
complete run, or in a blocked one) and kept executions are recorded as every engine does
(:class:`engine.outcome.OutcomeBuilder`).
"""

from __future__ import annotations

import hashlib

from herdsman.engine.conditions import needed_locations
from herdsman.engine.errors import ErrorFound
from herdsman.engine.operational.dpor import Frame
from herdsman.engine.operational.machine import (
    DONE,
    FAILED,
    Effects,
    Machine,
    MState,
    is_loop_bound,
)
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import ErrorRecord, ExecutionRecord, OutcomeBuilder
from herdsman.engine.semantics.state import Done, Failed
from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph, Layout
from herdsman.litmus.base.ir import Loc, MemLoc, Program, RegLoc, Value, eval_prop


class OperationalTally(OutcomeBuilder):
    """Accumulates the outcome from the runs an exploration reports."""

    def __init__(self, program: Program, machine: Machine, opts: RunOptions) -> None:
        super().__init__(
            program.observed, program.condition.quant, opts.show, opts.nshow, opts.speedcheck
        )
        self.program = program
        self.m = machine
        self.opts = opts
        self.stateful = opts.stateful
        self.prop = program.condition.prop
        self.filter = program.filter if opts.checkfilter else None
        self.needed = needed_locations(list(self.observed), self.filter)
        self.seen: set[bytes] = set()
        self.filtered = 0
        self.skipped = 0  # speedcheck: executions settling nothing (not counted)
        self.duplicates = 0
        self.loop_bound = 0

    # ------------------------------------------------------------------ runs
    def leaf(self, kind: str, stack: list[Frame], fx0: Effects) -> None:
        """A run ended (``complete`` or ``blocked``) with ``stack`` its states."""
        final = stack[-1].state
        effects = [fx0, *(f.fx for f in stack[:-1] if f.fx is not None)]
        fails: list[tuple[int, Failed]] = [
            (t, x.end) for t, x in enumerate(final.slots) if x.status == FAILED
        ]
        if kind == "failed":  # stateful: reported when it happens (runs may be cut)
            state = self.final_state(final)
            self._error(fails, tuple(state[loc] for loc in self.observed), False, effects)
            return
        if self.stateful:
            fails = []  # reported when they happened
        if kind != "complete":
            if any(is_loop_bound(x) for x in final.slots):
                self.loop_bound += 1
            if fails:
                state = self.final_state(final)
                obs = tuple(state[loc] for loc in self.observed)
                self._error(fails, obs, False, effects)
            return
        state = self.final_state(final)
        if self.filter is not None and not eval_prop(self.filter, state):
            self.filtered += 1
            return
        digest = self._digest(final, effects, state, fails)
        if digest in self.seen:
            self.duplicates += 1
            return
        self.seen.add(digest)
        sat = eval_prop(self.prop, state)
        if sat == self.irrelevant:
            self.skipped += 1
            return
        obs = tuple(state[loc] for loc in self.observed)
        entry = self.states.get(obs)
        if entry is None:
            self.states[obs] = [1, sat]
        else:
            entry[0] += 1  # type: ignore[operator]
        if any(isinstance(x.end, Done) and x.end.cut for x in final.slots):
            self.unroll_cut = True
        if fails:
            self._error(fails, obs, True, effects)
        want = self.wants_witness(sat)
        if want or self.opts.print_executions:
            g = self.graph(effects) if (want or self.opts.executions_dot) else None
            if want:
                self.witnesses.append(ExecutionRecord(obs, sat, g))
            if self.opts.print_executions:
                self.executions.append(ExecutionRecord(obs, sat, g))
        if self.fast:
            self.settle()

    def final_state(self, s: MState) -> dict[Loc, Value]:
        """Values of the observed (and filter) locations in the final state ``s``."""
        out: dict[Loc, Value] = {}
        T = self.m.T
        for loc in self.needed:
            if isinstance(loc, RegLoc) and 0 <= loc.tid < T:
                out[loc] = self._done(s, loc.tid).reg(loc.reg)
            elif isinstance(loc, MemLoc) and loc.name in self.m.loc_index:
                out[loc] = s.mem[self.m.loc_index[loc.name]][0]
            else:
                out[loc] = self.program.initial_value(loc)
        return out

    def _done(self, s: MState, t: int) -> Done:
        x = s.slots[t]
        if x.status == DONE:
            return x.end  # type: ignore[return-value]
        if x.status == FAILED:
            return x.end.done  # type: ignore[union-attr]
        return self.m.codes[t].initial()  # never started

    def _digest(
        self,
        final: MState,
        effects: list[Effects],
        state: dict[Loc, Value],
        fails: list[tuple[int, Failed]],
    ) -> bytes:
        """The execution of a run: rf and co, as a digest (or, stateful, the final
        state: its observed values, memory and the assertions that failed)."""
        if self.stateful:
            failed = tuple((t, f.site) for t, f in fails)
            seen = (tuple(state.values()), tuple(v for v, _ in final.mem), failed)
            return hashlib.blake2b(repr(seen).encode(), digest_size=16).digest()
        rf: list[tuple] = []
        co: list[tuple] = []
        for fx in effects:
            rf.extend(fx.rf)
            co.extend(fx.writes)
        rf.sort()
        # co per location in the order writes reached memory (stable sort by location)
        co.sort(key=lambda w: w[0])
        return hashlib.blake2b(repr((rf, co)).encode(), digest_size=16).digest()

    def _error(
        self, fails: list[tuple[int, Failed]], obs: tuple, complete: bool, effects: list[Effects]
    ) -> None:
        t, f = fails[0]
        origin = self.program.threads[t].origins[f.site]
        graph = self.graph(effects) if not self.errors else None
        self.error(ErrorRecord(f.message, t, origin, complete, obs, graph))
        if self.opts.stop_on_error:
            raise ErrorFound()

    # ------------------------------------------------------------------ pictures
    def graph(self, effects: list[Effects]) -> ExecutionGraph:
        """The execution graph of a run (its events, rf, and co as writes reached
        memory)."""
        m = self.m
        per: list[list[Event]] = [[] for _ in range(m.T)]
        rf: dict[tuple[int, int], tuple[int, int]] = {}
        co: list[list[tuple[int, int]]] = [[] for _ in range(m.L)]
        for fx in effects:
            for t, ev in fx.events:
                per[t].append(ev)
            rf.update(fx.rf)
            for li, w in fx.writes:
                co[li].append(w)
        init = [self.program.initial_value(MemLoc(x)) for x in m.locations]
        lay = Layout(m.locations, init, [len(evs) for evs in per])
        g = ExecutionGraph(lay)

        def gid(w: tuple[int, int]) -> int:
            return w[1] if w[0] < 0 else lay.base[w[0]] + w[1]

        for t, evs in enumerate(per):
            shape = 0
            for ev in evs:
                shape = lay.shapes.intern(shape, ev)
                if ev.kind == "R":
                    g.add_read(t, ev, shape, lay.loc_index[ev.loc])  # type: ignore[index]
                elif ev.kind == "W":
                    g.add_write(t, ev, shape, 0)
                else:
                    g.add_other(t, ev, shape)
        for r, w in rf.items():
            g.set_rf(gid(r), gid(w))
        for li, ws in enumerate(co):
            g.co[li] = [gid(w) for w in ws]
        return g
