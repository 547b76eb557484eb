"""The candidate executions giving a final state, by the reference explorer's enumeration:
the engine's door for explanations (``herd_compat/analyses/explain``).

:func:`state_candidates` enumerates, as the reference explorer does (herd's enumeration:
thread executions, then every rf and coherence order, :mod:`engine.reference.search`),
the candidate executions of a program whose final state gives some locations their
values, and hands each to a visitor as a :class:`StateCandidate`: the model prepared for
its skeleton, its rf, its co (or the final writes, for a model that chooses co itself),
and its skeleton with its own values on demand.  ``prune="never"`` lists every candidate;
``"step"`` drops the subtrees the model's monotone checks already reject.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from herdsman.cat.api import PreparedModel, Session
from herdsman.engine.outcome import OutcomeBuilder
from herdsman.engine.reference.combos import combination_status, wanted_execs
from herdsman.engine.reference.constraints import resolved
from herdsman.engine.reference.search import Combo, Goal
from herdsman.engine.reference.skeletons import build_skeleton
from herdsman.engine.semantics.enumerate import (
    ThreadExec,
    ThreadsResult,
    by_shape,
    thread_executions,
)
from herdsman.engine.semantics.step import DEFAULT_UNROLL, Semantics
from herdsman.engine.size import check_events
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.ir import And, Atom, Loc, Program, Value

__all__ = ["StateCandidate", "state_candidates"]


@dataclass(frozen=True, slots=True)
class StateCandidate:
    """A candidate execution giving the state: ``session``, the model prepared for the
    skeleton of its combination of thread executions (``skeleton``: the same object for
    every candidate of one combination), ``rf``, ``co`` (0 when the model chooses co
    itself) and ``fw``, the final writes of the state's memory locations; ``valued()``
    is its skeleton with its own values."""

    session: Session
    skeleton: Skeleton
    rf: int
    co: int
    fw: int
    valued: Callable[[], Skeleton]


#: What the search calls for each candidate giving the state.
Visit = Callable[[StateCandidate], None]


class _StateSearch(Combo):
    """The reference explorer's search over one combination of thread executions,
    calling ``visit`` on every complete candidate whose final state satisfies the goal's
    proposition (the state asked about) instead of counting it."""

    counting = False

    def __init__(
        self,
        threads: ThreadsResult,
        variants: list[list[ThreadExec]],
        model: PreparedModel,
        arch: str,
        goal: Goal,
        tally: OutcomeBuilder,
        visit: Visit,
    ) -> None:
        super().__init__(threads, variants, model, arch, goal, tally)
        self.visit = visit

    def _leaf(self, rf, co, masks, pending, finals) -> None:
        self.tally.stats.candidates += 1
        self._budget -= 1
        if not self._budget:
            self._deadline()
        sols = [masks] if self.simple else resolved(self, masks, pending)
        fw = 0
        for li in self.observed_locs:
            fw |= 1 << finals[li]
        for sol in sols:
            _obs, sat, keep, _loop = self._state_info(sol, finals)
            if keep and sat:
                valued = _valued(self, sol)
                self.visit(StateCandidate(self.session, self.lay.sk, rf, co, fw, valued))


def _valued(search: _StateSearch, sol: tuple[int, ...]) -> Callable[[], Skeleton]:
    """The skeleton of the thread executions ``sol`` of ``search`` with their own values
    (made when asked)."""

    def make() -> Skeleton:
        execs = [search.variants[t][m.bit_length() - 1] for t, m in enumerate(sol)]
        values = [[None if e.value is None else e.known_value for e in te.events] for te in execs]
        return build_skeleton(search.threads.locations, search.threads.init_mem, execs, values).sk

    return make


def state_candidates(
    program: Program,
    model: PreparedModel,
    state: Sequence[tuple[Loc, Value]],
    visit: Visit,
    prune: str = "never",
    deadline: float | None = None,
    unroll: int = DEFAULT_UNROLL,
) -> int:
    """Every candidate of ``program`` giving ``state`` (locations and their values), to
    ``visit``, in the reference explorer's order (see the module docstring); the number
    of candidates not built because a value would depend on itself (out of thin air).
    Past ``deadline`` (CPU time), :class:`engine.errors.TimeLimitExceeded`."""
    regs = model.register_events  # herd's register events, for catdep models
    sem = Semantics(program, unroll, regs)
    check_events(program, [sem.max_events(t) for t in range(len(program.threads))])
    prop = And(tuple(Atom(loc, v) for loc, v in state))
    goal = Goal(
        observed=[loc for loc, _ in state],
        prop=prop,
        quant="exists",
        filter=program.filter,
        prune=prune,
        deadline=deadline,
    )
    threads = thread_executions(program, unroll, deadline, regs=regs)
    tally = OutcomeBuilder(goal.observed, goal.quant)
    groups = [by_shape(execs) for execs in wanted_execs(threads.execs, prop)]
    plain = not threads.spawned and not threads.partial
    for combo in itertools.product(*groups):
        if not plain:
            status = combination_status([g[0] for g in combo], threads.spawned)
            if status is None or status[1] or status[0]:  # no execution, blocked, failed
                continue
        _StateSearch(threads, list(combo), model, program.arch, goal, tally, visit).run()
    return int(tally.stats.extra.get("cyclic_values", 0))
