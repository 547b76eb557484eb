"""Why a model allows or forbids a final state: the candidate executions that produce it.

:func:`explain_state` enumerates, as the reference explorer does (herd's enumeration:
thread executions, then every rf and coherence order, see :mod:`engine.reference.search`),
every candidate execution whose final state gives the locations of ``state`` their values
(the engine's door: :mod:`engine.reference.states`), and judges each with the model in
``explain`` mode: all of its checks, in the model's order. A rejected candidate comes with
the *first* check that rejects it and that check's witness, its edges named
(:mod:`.witness`); an allowed one is a witness that the model allows the state. Nothing is
pruned (a candidate that fails a monotone check early is still listed, with that check).

:func:`contrast` answers the question of ``herdsman diff``: among the candidates giving a
state, one that model ``allowing`` allows and model ``forbidding`` rejects, with the check
of ``forbidding`` that rejects it.  The search is pruned by ``allowing``'s monotone checks
and stops at the first such candidate.

Candidates are numbered in enumeration order among those giving the state (for a model
that chooses co itself, each of its choices is one candidate).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from herdsman.cat.api import Failure, Model, Session, Verdict
from herdsman.engine.reference.states import StateCandidate, state_candidates
from herdsman.engine.semantics.step import DEFAULT_UNROLL
from herdsman.graphs.execution import Relations
from herdsman.graphs.skeleton import Skeleton
from herdsman.herd_compat.analyses.explain.witness import RelationLens, Witness
from herdsman.litmus.base.ir import Loc, Program, Value

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

    def visit(c: StateCandidate) -> None:
        sk: Skeleton | None = None
        for co2, v in judge_verdicts(c.session, native, c.rf, c.co, c.fw):
            out.total += 1
            if v.allowed:
                out.allowed += 1
                if out.witness is not None:
                    continue
            elif limit is not None and len(out.rejected or ()) >= limit:
                continue
            sk = sk or c.valued()
            rels = Relations(sk, c.rf, co2)
            cand = Candidate(out.total, rels, judge(v, lens, rels, program.arch))
            if v.allowed:
                out.witness = cand
            else:
                assert out.rejected is not None
                out.rejected.append(cand)

    out.cyclic_values = state_candidates(program, model, state, visit, "never", deadline, unroll)
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
    sessions: dict[int, Session] = {}  # by the combination's skeleton
    found: list[Contrast] = []

    def visit(c: StateCandidate) -> None:
        for co2, v in judge_verdicts(c.session, native_a, c.rf, c.co, c.fw):
            if not v.allowed:
                continue
            other = sessions.get(id(c.skeleton))
            if other is None:
                sessions.clear()  # one combination at a time
                other = sessions[id(c.skeleton)] = forbidding.prepare(c.skeleton, program.arch)
            verdicts = [w for k, w in judge_verdicts(other, native_b, c.rf, co2, c.fw) if k == co2]
            if verdicts and not any(w.allowed for w in verdicts):
                rels = Relations(c.valued(), c.rf, co2)
                found.append(Contrast(rels, judge(verdicts[0], lens, rels, program.arch)))
                raise _Found()

    try:
        state_candidates(program, allowing, state, visit, "step", deadline, unroll)
    except _Found:
        return found[0]
    return None


def full_state(observed: Sequence[Loc], values: Sequence[Value]) -> StateAtoms:
    """The state giving each observed location its value (an outcome's final state)."""
    return tuple(zip(observed, values, strict=True))
