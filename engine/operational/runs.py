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
complete run, or in a blocked one) and kept executions are recorded by the tally every
explorer counts with (:class:`engine.tally.Tally`, deduplicating); :class:`RunReader`
reads a run's final state, digest and graph for it.
"""

from __future__ import annotations

import hashlib

from herdsman.engine.operational.dpor import Frame
from herdsman.engine.operational.machine import (
    Effects,
    Machine,
    MState,
    is_loop_bound,
)
from herdsman.engine.semantics.state import ThreadDone, ThreadFailed
from herdsman.engine.tally import Tally
from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph, Layout
from herdsman.litmus.base.ir import Loc, MemLoc, Program, Value


class RunReader:
    """Reads the runs an exploration reports (see the module docstring) into ``tally``."""

    def __init__(self, program: Program, machine: Machine, tally: Tally) -> None:
        self.program = program
        self.m = machine
        self.tally = tally
        self.stateful = tally.opts.stateful
        self.loop_bound = 0  # blocked runs where the loop bound stopped a thread

    # ------------------------------------------------------------------ runs
    def leaf(self, kind: str, stack: list[Frame], fx0: Effects) -> None:
        """A run ended (``complete`` or ``blocked``) with ``stack`` its states."""
        final = stack[-1].state
        effects = [fx0, *(f.fx for f in stack[:-1] if f.fx is not None)]
        fails = [(t, x.end) for t, x in enumerate(final.slots) if isinstance(x.end, ThreadFailed)]
        tally = self.tally

        def draw() -> ExecutionGraph:
            return run_graph(self.program, self.m, effects)

        if kind == "failed":  # stateful: reported when it happens (runs may be cut)
            tally.blocked_error(self.final_state(final), fails, draw)
            return
        if self.stateful:
            fails = []  # reported when they happened
        if kind != "complete":
            if any(is_loop_bound(x) for x in final.slots):
                self.loop_bound += 1
            if fails:
                tally.blocked_error(self.final_state(final), fails, draw)
            return
        state = self.final_state(final)
        cut = any(isinstance(x.end, ThreadDone) and x.end.cut for x in final.slots)
        digest = self._digest(final, effects, state, fails)
        tally.complete(state, cut, fails, None, draw, digest)

    def final_state(self, s: MState) -> dict[Loc, Value]:
        """Values of the observed (and filter) locations in the final state ``s``."""
        dones = [self._done(s, t) for t in range(self.m.T)]
        return self.tally.final_state(self.m.loc_index, lambda li: s.mem[li][0], dones)

    def _done(self, s: MState, t: int) -> ThreadDone:
        end = s.slots[t].end
        if isinstance(end, ThreadDone):
            return end
        if isinstance(end, ThreadFailed):
            return end.done
        return self.m.codes[t].initial()  # blocked, or never started

    def _digest(
        self,
        final: MState,
        effects: list[Effects],
        state: dict[Loc, Value],
        fails: list[tuple[int, ThreadFailed]],
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


def run_graph(program: Program, m: Machine, effects: list[Effects]) -> ExecutionGraph:
    """The execution graph of a run of ``program`` on ``m`` (its events, rf, and co as
    writes reached memory)."""
    per: list[list[Event]] = [[] for _ in range(m.T)]
    rf: dict[tuple[int, int], tuple[int, int]] = {}
    co: list[list[tuple[int, int]]] = [[] for _ in range(m.L)]
    for fx in effects:
        for t, ev in fx.events:
            per[t].append(ev)
        rf.update(fx.rf)
        for li, w in fx.writes:
            co[li].append(w)
    init = [program.initial_value(MemLoc(x)) for x in m.locations]
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
