"""Safety under TSO (and PSO) for every buffer size: TSO_k for k = 0, 1, 2… to a fixpoint.

Narayan, Sharma and Arun-Kumar (ATVA'16) check a program with store buffers bounded by
k = 0, 1, 2…; S_k, the states reachable with bound k, grow with k, and so do their
projections S_k↓ onto control states, memory, local memories and the last write to each
location in each buffer (:func:`reach.buffer_last`).  For finite-data programs the
projections cannot grow for ever, and Theorem 1 says: once S_k↓ = S_{k+1}↓, every larger
bound gives the same projections — the program reaches no new control state with any
buffer size, so if no assertion failed up to k + 1, none fails with unbounded buffers.

``verify_bounded`` runs the machine (:mod:`machine`, whose bounded buffers are the
paper's TSO_k: a store into a full buffer waits) with the exact reachable set
(:mod:`reach`; no reduction) for k = 0, 1… up to ``max_bound``, and stops at

* the first bound where an assertion fails (``unsafe``, with the path to it; at k = 0 the
  program already fails under SC),
* the fixpoint (``safe`` for every buffer size: Theorem 1),
* ``max_bound`` without a fixpoint (``bounded``: safe with buffers of at most that size,
  no claim beyond), or the time or state limit (``unknown``).

Under PSO each thread has a FIFO buffer per location, bounded by k each: the theorem's
argument is per buffer and carries over (Buff_lst is then the last value per thread and
location).  It does not carry over when PSO's SFENCE puts barriers into the buffers (a
barrier orders writes to different locations, which the projection forgets): such
programs get ``bounded`` verdicts only.  SC has no buffers: one search decides.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from herdsman.engine.errors import NewLocation, TimeLimitExceeded
from herdsman.engine.operational.machine import FAILED, RUNNING, Effects, Machine
from herdsman.engine.operational.reach import Reach, StateLimit, buffer_last, reach, replay
from herdsman.engine.operational.run import UNBOUNDED
from herdsman.engine.operational.runs import run_graph
from herdsman.engine.outcome import ErrorRecord
from herdsman.engine.semantics.step import Semantics
from herdsman.litmus.base.ir import Fence, Program

__all__ = ["BoundStep", "BoundedResult", "fixpoint_holds", "verify_bounded"]

#: Verdicts.
UNSAFE, SAFE, BOUNDED, UNKNOWN = "unsafe", "safe", "bounded", "unknown"


@dataclass
class BoundStep:
    """One bound's search: the bound, states expanded, distinct projections, whether
    they equal the previous bound's, CPU seconds, peak memory (kB) so far."""

    k: int
    states: int
    projections: int
    same_as_previous: bool
    time: float
    peak_kb: int


@dataclass
class BoundedResult:
    """What ``verify_bounded`` found (see the module docstring): the verdict, the bound
    it rests on (the violation's, the fixpoint's k with S_k↓ = S_{k+1}↓, or the last
    bound searched), why, each bound's search, and for ``unsafe`` the failed assertion
    with the violating run's execution graph, and the run (processes)."""

    verdict: str
    bound: int
    reason: str
    steps: list[BoundStep] = field(default_factory=list)
    error: ErrorRecord | None = None
    path: list[int] | None = None
    mode: str = "tso"
    run: list[str] = field(default_factory=list)


def fixpoint_holds(program: Program, mode: str) -> bool:
    """Whether Theorem 1's argument applies to ``program`` under ``mode``."""
    if mode != "pso":
        return True
    return not any(
        isinstance(op, Fence) and op.kind == "SFENCE" for th in program.threads for op in th.code
    )


def verify_bounded(
    program: Program,
    mode: str,
    max_bound: int,
    time_limit: float | None = None,
    max_states: int | None = None,
    on_step: Callable[[BoundStep], None] | None = None,
) -> BoundedResult:
    """Check ``program`` on the ``mode`` machine (sc, tso, pso) with buffer bounds
    0…``max_bound`` (see the module docstring).  ``on_step`` hears of each bound as it
    is done."""
    t0 = time.process_time()
    deadline = None if time_limit is None else t0 + time_limit
    sem = Semantics(program, UNBOUNDED)
    locations = [x for x, _ in program.memory]
    init = dict(program.memory)
    proves = fixpoint_holds(program, mode)
    steps: list[BoundStep] = []
    previous = -1  # the projections of the previous bound (they only grow with k)
    found: Reach | None = None
    last = 0 if mode == "sc" else max_bound
    k = 0
    while k <= last:
        t1 = time.process_time()
        m = Machine(sem, locations, mode, k)
        fx0 = Effects([], [], [])
        try:
            s0 = m.initial(init, fx0)
            # from k = 2 on, the search goes on from the previous bound's (k = 0 stores
            # without buffers: its states are not those of bounded buffers)
            before = found if k >= 2 else None
            found = reach(
                m, s0, buffer_last(m), deadline=deadline, max_states=max_states, before=before
            )
            if found.path is not None and before is not None:  # the run from the start
                found = reach(m, s0, None, deadline=deadline, max_states=max_states)
        except NewLocation as e:  # an address computed at run time: initially 0
            locations.append(e.loc)
            found = None
            k = 0
            steps.clear()
            previous = -1
            continue
        except TimeLimitExceeded:
            return BoundedResult(
                UNKNOWN, k, f"the time limit ran out at buffer bound {k}", steps, mode=mode
            )
        except StateLimit as e:
            why = f"more than {max_states} states at buffer bound {k} ({e.states} stored)"
            return BoundedResult(UNKNOWN, k, why, steps, mode=mode)
        same = len(found.projections) == previous
        step = BoundStep(
            k,
            found.states,
            len(found.projections),
            same,
            time.process_time() - t1,
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        )
        steps.append(step)
        if on_step is not None:
            on_step(step)
        if found.path is not None:
            error, run = _error(program, m, s0, fx0, found.path)
            where = "under SC (no buffers)" if k == 0 else f"with store buffers of size {k}"
            why = f"an assertion fails {where}"
            return BoundedResult(UNSAFE, k, why, steps, error, found.path, mode, run)
        if mode == "sc":
            why = "every reachable state was explored (SC has no store buffers)"
            return BoundedResult(SAFE, 0, why, steps, mode=mode)
        if same and proves:
            why = (
                f"the reachable states projected on control, memory, locals and the last "
                f"buffered write per location are the same with buffers of size {k - 1} "
                f"and {k}: by Theorem 1 of Narayan, Sharma and Arun-Kumar (ATVA 2016) no "
                f"buffer size reaches more"
            )
            return BoundedResult(SAFE, k - 1, why, steps, mode=mode)
        previous = len(found.projections)
        k += 1
    why = f"no assertion fails with store buffers of size up to {last}"
    if not proves:
        why += "; PSO barriers (SFENCE) keep Theorem 1 from applying, so no claim beyond"
    else:
        why += f"; the fixpoint was not reached by bound {last} (raise --max-bound)"
    return BoundedResult(BOUNDED, last, why, steps, mode=mode)


def _error(
    program: Program, m: Machine, s0: object, fx0: Effects, path: list[int]
) -> tuple[ErrorRecord, list[str]]:
    """The failed assertion at the end of ``path``, with its run's execution graph, and
    the run, one line per transition."""
    final, effects = replay(m, s0, path)  # type: ignore[arg-type]
    # let the buffers drain, so that every write of the run has its place in co
    while True:
        shadows = [p for p, _ in m.enabled(final) if p >= m.T]
        if not shadows:
            break
        fx = Effects([], [], [])
        tr, _ = m.next_tr(final, shadows[0])
        assert tr is not None
        final = m.execute(final, tr, len(path) + len(effects), fx)
        effects.append(fx)
    graph = run_graph(program, m, [fx0, *effects])
    t, slot = next((t, x) for t, x in enumerate(final.slots) if x.status == FAILED)
    f = slot.end
    origin = program.threads[t].origins[f.site]  # type: ignore[union-attr]
    complete = all(x.status != RUNNING for x in final.slots)
    values = {(t, ev.index): ev.value for fx in effects for t, ev in fx.events if ev.kind == "W"}
    run = [_step_text(m, p, fx, values) for p, fx in zip(path, effects, strict=False)]
    record = ErrorRecord(f.message, t, origin, complete, (), graph)  # type: ignore[union-attr]
    return record, run


def _step_text(m: Machine, p: int, fx: Effects, values: dict) -> str:
    """One transition of a run: what the thread did (its events, which of its writes went
    to its buffer), or which buffered write its shadow thread wrote to memory."""
    if p >= m.T:
        (li, w), *_ = fx.writes
        return f"P{w[0]}'s buffer -> memory: {m.locations[li]}={values.get(w)}"
    direct = {w for _, w in fx.writes}
    parts = []
    for t, ev in fx.events:
        if ev.kind == "R":
            parts.append(f"R {ev.loc}={ev.value}")
        elif ev.kind == "W":
            where = "" if (t, ev.index) in direct or not m.buffered else " (buffered)"
            parts.append(f"W {ev.loc}={ev.value}{where}")
        elif ev.kind == "F":
            parts.append(ev.fence or "F")
        else:
            parts.append(ev.kind)
    line = fx.events[-1][1].instr if fx.events else ""
    text = ", ".join(parts) if parts else "-"
    return f"P{p}: {text}" + (f"    [line {line}]" if line else "")
