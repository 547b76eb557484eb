"""Why a model allows or forbids a final state: the candidate executions that produce it.

:func:`explain_state` enumerates, as the reference explorer does (herd's enumeration:
thread executions, then every rf and coherence order, see :mod:`engine.reference.search`),
every candidate execution whose final state gives the locations of ``state`` their
values, and judges each with the model in ``explain`` mode: all of its checks, in the
model's order.  A rejected candidate comes with the *first* check that rejects it and that
check's witness, its edges named (:mod:`engine.reference.witness`); an allowed one is a
witness that the model allows the state.  Nothing is pruned (a candidate that fails a
monotone check early is still listed, with that check).

:func:`contrast` answers the question of ``herdsman diff``: among the candidates giving a
state, one that model ``allowing`` allows and model ``forbidding`` rejects, with the check
of ``forbidding`` that rejects it.  The search is pruned by ``allowing``'s monotone checks
and stops at the first such candidate.

Candidates are numbered in enumeration order among those giving the state (for a model
that chooses co itself, each of its choices is one candidate).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from herdsman.cat.api import Failure, Model, Session, Verdict
from herdsman.engine.outcome import OutcomeBuilder
from herdsman.engine.reference.search import Goal, _Combo, _status, _wanted_execs
from herdsman.engine.reference.skeletons import build_skeleton
from herdsman.engine.semantics.enumerate import ThreadExec, ThreadsResult, thread_executions
from herdsman.engine.semantics.step import DEFAULT_UNROLL, Semantics
from herdsman.engine.size import check_events
from herdsman.graphs.execution import Relations
from herdsman.graphs.skeleton import Skeleton
from herdsman.herd_compat.analyses.explain.witness import RelationLens, Witness
from herdsman.litmus.base.ir import And, Atom, Loc, Program, Value

__all__ = [
    "Candidate",
    "Contrast",
    "Explanation",
    "Judgement",
    "StateAtoms",
    "contrast",
    "explain_state",
    "full_state",
    "judge",
    "judge_verdicts",
]

#: A final state to explain: locations and their values (a conjunction of equalities).
StateAtoms = tuple[tuple[Loc, Value], ...]


@dataclass(frozen=True)
class Judgement:
    """A model's answer on one candidate: allowed, or the first check (in the model's
    order) that rejects it with its witness."""

    allowed: bool
    failure: Failure | None = None
    witness: Witness | None = None

    @property
    def axiom(self) -> str | None:
        return None if self.witness is None else self.witness.axiom


@dataclass(frozen=True)
class Candidate:
    """One candidate execution: its number (from 1, in enumeration order among those
    giving the state), the execution (skeleton with its values, rf and co) and the
    model's judgement."""

    number: int
    rels: Relations
    judgement: Judgement


@dataclass
class Explanation:
    """The candidates giving ``state`` under a model: how many there are, how many the
    model allows, the rejected ones (at most the limit asked for, in order), and the
    first allowed one (the state is allowed iff there is one)."""

    state: StateAtoms
    total: int = 0
    allowed: int = 0
    rejected: list[Candidate] | None = None
    witness: Candidate | None = None
    #: candidates not built because a value would depend on itself (out of thin air)
    cyclic_values: int = 0

    @property
    def verdict(self) -> str:
        """``allowed``, ``forbidden``, or ``unreachable`` (no candidate gives the state)."""
        if self.total == 0:
            return "unreachable"
        return "allowed" if self.allowed else "forbidden"


class _Found(Exception):
    """The search found what it was looking for."""


#: What the search calls for each candidate giving the state: the search over its
#: combination (skeleton, session), rf, co (empty when the model chooses co itself), the
#: final writes of each location and the thread executions chosen (one bit per thread).
Visit = Callable[["_StateSearch", int, int, tuple[int, ...], tuple[int, ...]], None]


class _StateSearch(_Combo):
    """The reference explorer's search over one combination of shapes, calling ``visit``
    on every complete candidate whose final state satisfies the goal's proposition (the
    state asked about) instead of counting it."""

    def __init__(
        self,
        threads: ThreadsResult,
        variants: list[list[ThreadExec]],
        model: Model,
        arch: str,
        goal: Goal,
        tally: OutcomeBuilder,
        visit: Visit,
    ) -> None:
        super().__init__(threads, variants, model, arch, goal, tally)
        self.visit = visit

    def _leaf(self, rf, co, masks, pending, finals) -> None:  # type: ignore[override]
        self.tally.stats.candidates += 1
        self._budget -= 1
        if not self._budget:
            self._deadline()
        sols = [masks] if self.simple else self._resolve(masks, pending)
        for sol in sols:
            _obs, sat, keep, _loop = self._state_info(sol, finals)
            if keep and sat:
                self.visit(self, rf, co, finals, sol)

    def valued(self, sol: tuple[int, ...]) -> Skeleton:
        """The skeleton of the thread executions ``sol`` with their own values."""
        execs = [self.variants[t][m.bit_length() - 1] for t, m in enumerate(sol)]
        values = [[e.value for e in te.events] for te in execs]
        lay = build_skeleton(self.threads.locations, self.threads.init_mem, execs, values)
        return lay.sk

    def final_writes(self, finals: tuple[int, ...]) -> int:
        """The final writes of the observed locations (for a model choosing co itself)."""
        fw = 0
        for li in self.observed_locs:
            fw |= 1 << finals[li]
        return fw


def judge_verdicts(
    session: Session, native: bool, rf: int, co: int, fw: int
) -> list[tuple[int, Verdict]]:
    """The model's verdicts on a candidate in ``explain`` mode, each with its co (the
    candidate's own, or the one the model chose)."""
    if native:
        return [(co, v) for v in session.check(rf, co=co, explain=True)]
    return [(co if v.co is None else v.co, v) for v in session.check(rf, fw=fw, explain=True)]


def judge(verdict: Verdict, lens: RelationLens, rels: Relations, arch: str) -> Judgement:
    """A verdict as a judgement: allowed, or its first failed check with the witness."""
    if verdict.allowed:
        return Judgement(True)
    if not verdict.failed:  # rejected by a ``with`` or co choice the model refused
        return Judgement(False)
    failure = verdict.failed[0]
    return Judgement(False, failure, lens.witness(failure, rels, arch))


def _search(
    program: Program,
    model: Model,
    state: StateAtoms,
    visit: Visit,
    prune: str,
    deadline: float | None,
    unroll: int,
) -> OutcomeBuilder:
    """Every candidate of ``program`` giving ``state``, to ``visit`` (herd's enumeration;
    ``prune``: ``never``, or ``step`` to drop the subtrees ``model``'s monotone checks
    already reject); the counts of the search."""
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
    threads = thread_executions(program, unroll, deadline, regs)
    tally = OutcomeBuilder(goal.observed, goal.quant)
    groups: list[list[list[ThreadExec]]] = []
    for execs in _wanted_execs(threads.execs, prop):
        by_shape: dict[tuple, list[ThreadExec]] = {}
        for te in execs:
            by_shape.setdefault(te.shape(), []).append(te)
        groups.append(list(by_shape.values()))
    plain = not threads.spawned and not threads.partial
    for combo in itertools.product(*groups):
        if not plain:
            status = _status([g[0] for g in combo], threads.spawned)
            if status is None or status[1] or status[0]:  # no execution, blocked, failed
                continue
        _StateSearch(threads, list(combo), model, program.arch, goal, tally, visit).run()
    return tally


def explain_state(
    program: Program,
    model: Model,
    state: StateAtoms,
    lens: RelationLens | None = None,
    limit: int | None = None,
    time_limit: float | None = None,
    unroll: int = DEFAULT_UNROLL,
) -> Explanation:
    """The candidates of ``program`` giving ``state`` under ``model`` (see the module
    docstring): at most ``limit`` rejected ones with their witnesses (None: all), and the
    first allowed one.  ``time_limit``: CPU seconds (then
    :class:`engine.errors.TimeLimitExceeded`)."""
    lens = lens or RelationLens(model)
    deadline = None if time_limit is None else time.process_time() + time_limit
    out = Explanation(state, rejected=[])
    native = model.co_mode == "native"

    def visit(search: _StateSearch, rf: int, co: int, finals, sol) -> None:
        sk: Skeleton | None = None
        for co2, v in judge_verdicts(search.session, native, rf, co, search.final_writes(finals)):
            out.total += 1
            if v.allowed:
                out.allowed += 1
                if out.witness is not None:
                    continue
            elif limit is not None and len(out.rejected or ()) >= limit:
                continue
            sk = sk or search.valued(sol)
            rels = Relations(sk, rf, co2)
            cand = Candidate(out.total, rels, judge(v, lens, rels, program.arch))
            if v.allowed:
                out.witness = cand
            else:
                assert out.rejected is not None
                out.rejected.append(cand)

    tally = _search(program, model, state, visit, "never", deadline, unroll)
    out.cyclic_values = int(tally.stats.extra.get("cyclic_values", 0))
    return out


@dataclass(frozen=True)
class Contrast:
    """A candidate that one model allows and the other rejects: the execution and the
    rejecting model's judgement (its first failed check and witness)."""

    rels: Relations
    judgement: Judgement


def contrast(
    program: Program,
    allowing: Model,
    forbidding: Model,
    state: StateAtoms,
    lens: RelationLens | None = None,
    time_limit: float | None = None,
    unroll: int = DEFAULT_UNROLL,
) -> Contrast | None:
    """A candidate giving ``state`` that ``allowing`` allows and ``forbidding`` rejects,
    with the check of ``forbidding`` that rejects it (see the module docstring); None if
    there is none."""
    lens = lens or RelationLens(forbidding)
    deadline = None if time_limit is None else time.process_time() + time_limit
    native_a = allowing.co_mode == "native"
    native_b = forbidding.co_mode == "native"
    sessions: dict[_StateSearch, Session] = {}
    found: list[Contrast] = []

    def visit(search: _StateSearch, rf: int, co: int, finals, sol) -> None:
        fw = search.final_writes(finals)
        for co2, v in judge_verdicts(search.session, native_a, rf, co, fw):
            if not v.allowed:
                continue
            other = sessions.get(search)
            if other is None:
                sessions.clear()  # one combination at a time
                other = sessions[search] = forbidding.prepare(search.lay.sk, program.arch)
            verdicts = [w for c, w in judge_verdicts(other, native_b, rf, co2, fw) if c == co2]
            if verdicts and not any(w.allowed for w in verdicts):
                rels = Relations(search.valued(sol), rf, co2)
                found.append(Contrast(rels, judge(verdicts[0], lens, rels, program.arch)))
                raise _Found()

    try:
        _search(program, allowing, state, visit, "step", deadline, unroll)
    except _Found:
        return found[0]
    return None


def full_state(observed: Sequence[Loc], values: Sequence[Value]) -> StateAtoms:
    """The state giving each observed location its value (an outcome's final state)."""
    return tuple(zip(observed, values, strict=True))
