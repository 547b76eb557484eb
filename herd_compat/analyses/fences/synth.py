"""Counterexample-guided fence synthesis: placements that make a program safe, and no
more than needed.

The loop (Narayan, Sharma and Arun-Kumar §5.1; Abdulla et al., TACAS 2012): run the
program with the placements chosen so far (the :class:`Oracle` does: a model on a litmus
test, TSO_k to its fixpoint on a C program); every violating execution it reports gives a
:class:`~solve.Need` — one of its critical cycles must have every delay broken — and z3
picks the cheapest placements meeting all needs so far; repeat until the oracle reports
none.  When the chosen placements already meet an execution's need and it is still
allowed (a cycle the model keeps allowed with those fences: POWER's lwsync is not
cumulative enough for IRIW, a dependency where cumulativity is needed), the need becomes
"order some edge of its cycles more strongly" (:meth:`Oracle.strengthen`), or else "a
placement beyond these" (a blocking clause, sound because fences only ever remove
executions).  Every need is necessary, so
the answer is a minimum-cost set among the candidates the oracle proposes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph
from herdsman.herd_compat.analyses.fences.cycles import Cycle, Delay, critical_cycles
from herdsman.herd_compat.analyses.fences.solve import Candidate, Need, minimum, weaker_or_equal

__all__ = ["Oracle", "Round", "Synthesis", "synthesise"]


class Oracle(Protocol):
    """A program and how to judge it with placements."""

    def candidates(self) -> tuple[Candidate, ...]:
        """Every placement the program may get."""
        ...

    def relaxed(self, a: Event, b: Event, between: list[Event]) -> bool:
        """Whether the model may relax po from ``a`` to ``b`` in the *original* program
        (placements the oracle inserted do not count)."""
        ...

    def strengthen(
        self, g: ExecutionGraph, cycles: list[Cycle], chosen: frozenset[Candidate]
    ) -> tuple[Candidate, ...]:
        """The candidates that order some po edge of ``cycles`` more strongly than the
        program with ``chosen`` does (empty: none known)."""
        ...

    def violations(self, chosen: frozenset[Candidate]) -> list[ExecutionGraph]:
        """The executions of the program with ``chosen`` placed that violate its
        property (empty: safe)."""
        ...

    def cover(self, g: ExecutionGraph, c: Cycle, d: Delay) -> tuple[Candidate, ...] | None:
        """The candidates that break delay ``d`` of cycle ``c`` of execution ``g`` (an
        execution of the program with the placements last given to :meth:`violations`)
        — all that may, as far as the cycle's shape tells; None when the program
        already breaks it there."""
        ...


@dataclass
class Round:
    """One round: the placements tried, the violating executions found, the cycles of
    the first (as text), and whether a blocking clause was needed."""

    chosen: frozenset[Candidate]
    violations: int
    cycles: list[str] = field(default_factory=list)
    blocked: bool = False


@dataclass
class Synthesis:
    """The result: ``safe`` with ``chosen`` placements (minimum cost), or not (``why``),
    and the rounds."""

    safe: bool
    chosen: frozenset[Candidate]
    rounds: list[Round] = field(default_factory=list)
    why: str = ""
    time: float = 0.0


def synthesise(
    oracle: Oracle,
    max_rounds: int = 100,
    on_round: Callable[[Round], None] | None = None,
    deadline: float | None = None,
) -> Synthesis:
    """Placements making ``oracle``'s program safe (see the module docstring)."""
    t0 = time.process_time()
    needs: list[Need] = []
    universe = oracle.candidates()
    chosen: frozenset[Candidate] = frozenset()
    rounds: list[Round] = []
    for _ in range(max_rounds):
        if deadline is not None and time.process_time() > deadline:
            return Synthesis(False, chosen, rounds, "the time limit ran out", _since(t0))
        found = oracle.violations(chosen)
        rnd = Round(chosen, len(found))
        rounds.append(rnd)
        if not found:
            if on_round is not None:
                on_round(rnd)
            return Synthesis(True, chosen, rounds, "", _since(t0))
        for g in found:
            cycles = list(critical_cycles(g, oracle.relaxed))
            if not rnd.cycles:
                rnd.cycles = [c.text(g) for c in cycles[:8]]
            need = _need(oracle, g, cycles)
            if not need.cycles:
                why = "a violating execution has no critical cycle a fence can break"
                if on_round is not None:
                    on_round(rnd)
                return Synthesis(False, chosen, rounds, why, _since(t0))
            if need.holds(chosen):  # fenced as the cycles ask, still allowed
                rnd.blocked = True
                beyond = oracle.strengthen(g, cycles, chosen)
                if not beyond:
                    beyond = tuple(c for c in universe if not weaker_or_equal(c, chosen))
                if not beyond:
                    why = "no placement among the candidates forbids a violating execution"
                    if on_round is not None:
                        on_round(rnd)
                    return Synthesis(False, chosen, rounds, why, _since(t0))
                need = Need(((beyond,),))
            needs.append(need)
        if on_round is not None:
            on_round(rnd)
        best = minimum(needs)
        if best is None:
            return Synthesis(False, chosen, rounds, "no placements meet the needs", _since(t0))
        chosen = best
    return Synthesis(False, chosen, rounds, f"no answer after {max_rounds} rounds", _since(t0))


def _need(oracle: Oracle, g: ExecutionGraph, cycles: list[Cycle]) -> Need:
    out = set()
    for c in cycles:
        covers = (oracle.cover(g, c, d) for d in c.delays)
        out.add(tuple(x for x in covers if x is not None))
    return Need(tuple(sorted(out, key=repr)))


def _since(t0: float) -> float:
    return time.process_time() - t0
