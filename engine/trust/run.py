"""Running a program with TruSt: ``explore_program(program, model, opts) -> TrustRun``.

TruSt (:mod:`engine.trust.explore`) fills the same :class:`engine.outcome.Outcome` as the
reference engine, so herd's output is identical whichever engine ran.  Its statistics
(GenMC's "complete executions explored" and "blocked executions seen", revisits,
preemption-bound counts) are in ``Outcome.stats``; :func:`explore_program` also returns
them (:class:`engine.outcome.Stats`, TruSt's counters: ``TRUST_COUNTERS``).

TruSt drives the program's step function (:mod:`engine.semantics`) itself: each thread's
next event comes from its path in the program's tree of thread prefixes.  Graph ids are
laid out once per program (room for each thread's longest execution, every location the
program names); a thread that computes an address outside those locations makes the
exploration start again with it.

A model TruSt cannot explore (:mod:`engine.trust.support`) is refused with an
:class:`litmus.errors.InputError` naming the reason; ``--engine auto`` then uses the
reference engine (:func:`trust_applies`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

from herdsman.cat.api import PreparedModel
from herdsman.engine.errors import (
    NewLocation,
    NoInitialWrite,
    TimeLimitExceeded,
    model_refusal,
)
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import Outcome, Stats, check_show_mode
from herdsman.engine.semantics.paths import PathTree
from herdsman.engine.semantics.state import ThreadDone, ThreadFailed
from herdsman.engine.semantics.step import UNBOUNDED, Semantics
from herdsman.engine.size import check_events
from herdsman.engine.tally import Tally, picture
from herdsman.engine.trust.core import CompiledExplorer, CoreFallback, compiled_applies
from herdsman.engine.trust.explore import Explorer
from herdsman.engine.trust.graph import WAITS, NoRoom, TrustGraph
from herdsman.engine.trust.preemption import NotSequential, PreemptionBound
from herdsman.engine.trust.support import refusal, refusal_message
from herdsman.graphs.execution import Layout
from herdsman.graphs.fuse import FUSED
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import CAS, RMW, Assert, Load, Lock, Program, StoreCond, Value

__all__ = [
    "TrustRun",
    "explore_program",
    "run_trust",
    "trust_applies",
    "TimeLimitExceeded",
]


@dataclass
class TrustRun:
    """A TruSt run: its outcome (with every execution when asked) and the exploration's
    statistics."""

    result: Outcome
    stats: Stats


def has_rmw(program: Program) -> bool:
    """Whether the program has read-modify-writes (see engine/trust/support.py)."""
    return program.has(RMW, CAS, Lock)


def program_refusal(program: Program) -> str | None:
    """Why the explorers that grow a graph (TruSt, RSMC) cannot explore ``program``
    (None: they can): a store-conditional's failure is a choice of its thread, which
    they do not make, and a model judges herd's single-event read-modify-writes on the
    reference engine's candidates only."""
    for th in program.threads:
        for ins in th.code:
            if isinstance(ins, StoreCond):
                return "store-conditionals (lr/sc, STREX) are explored by the reference engine"
            if isinstance(ins, RMW) and FUSED in ins.annots:
                return (
                    "herd's single-event read-modify-writes (amo) are explored by the "
                    "reference engine"
                )
    return None


def trust_applies(model: PreparedModel, program: Program) -> bool:
    """Whether TruSt can explore ``program`` under ``model`` (``--engine auto``; see
    :mod:`engine.trust.support`): a program it can explore, a model it accepts (a model
    it refuses for every program: without looking at the program)."""
    arch = program.arch
    if refusal(model, arch, False) is not None and refusal(model, arch, True) is not None:
        return False
    return program_refusal(program) is None and refusal(model, arch, has_rmw(program)) is None


def explore_program(program: Program, model: PreparedModel, opts: RunOptions) -> TrustRun:
    """Explore ``program`` under ``model`` with TruSt: its outcome and statistics."""
    where = program.where
    check_show_mode(where, opts.show)
    if opts.preemption_bound is not None and opts.preemption_bound < 0:
        raise InputError(where, 0, 0, "the preemption bound must be >= 0")
    if opts.preemption_bound is not None and opts.speedcheck != "false":
        raise InputError(where, 0, 0, "speedcheck and a preemption bound do not go together")
    t0 = time.process_time()
    msg = program_refusal(program)
    if msg is not None:
        raise InputError(where, 0, 0, f"TruSt cannot explore this program: {msg}")
    msg = refusal_message(model, program.arch, has_rmw(program))
    if msg is not None:
        raise model_refusal(model, where, msg)
    deadline = None if opts.time_limit is None else t0 + opts.time_limit
    grows = program.loop_bound == "none"  # loops the program bounds itself
    barriers = any(
        isinstance(op, (Load, Lock)) and op.annots & WAITS
        for th in program.threads
        for op in th.code
    )
    sem = Semantics(program, UNBOUNDED if grows else opts.unroll)
    room = [sem.max_events(t, opts.unroll if grows else None) for t in range(len(program.threads))]
    initial = dict(program.memory)
    memory = start_locations(sem, initial) if grows else dict(initial)
    cells = Neighbours(initial) if grows else None
    check_events(program, room, len(memory))
    compiled = True  # the compiled core explores, where it applies
    bound = None
    if opts.preemption_bound is not None:
        bound = PreemptionBound(opts.preemption_bound, opts.preemption_slack)
    while True:
        lay = Layout(sorted(memory), [memory[x] for x in sorted(memory)], room)
        roots = [PathTree(code, lay.shapes, memory).root() for code in sem.threads]
        if sem.spawned and bound is not None:
            raise InputError(where, 0, 0, "--preemption-bound is for programs that spawn no thread")
        try:
            checker = model.consistency_checker(program.arch, lay, opts.checker)
        except ValueError as e:
            raise InputError(where, 0, 0, str(e)) from None
        tally = Tally(program, opts, checker, bound)
        start = TrustGraph(lay, roots, sem.spawned, opts.writes_first)
        start.barriers = barriers
        # C programs fail on bad memory accesses too (freed, outside allocations)
        fails = program.has(Assert) or program.loop_bound in ("block", "none")
        on_error = partial(blocked_error, tally) if fails else None
        plan = None
        symmetric = program.symmetric if opts.symmetry else ()
        python_only = barriers or any(x >= 0 for x in symmetric)  # in explore.py only
        if compiled and bound is None and not python_only:
            plan = compiled_applies(checker, start)
        ex: Explorer | CompiledExplorer
        if plan is not None:
            ex = CompiledExplorer(
                start,
                checker,
                plan,
                tally.complete_graph,
                on_blocked_error=on_error,
                deadline=deadline,
                on_final=partial(tally.complete_final, lay) if tally.light() else None,
                track_duplicates=opts.track_duplicates,
                progress=opts.progress,
                executions=tally.executions_so_far,
                races=opts.races,
            )
        else:
            ex = Explorer(
                start,
                checker,
                tally.complete_graph,
                on_blocked_error=on_error,
                bound=bound,
                deadline=deadline,
                track_duplicates=opts.track_duplicates,
                progress=opts.progress,
                executions=tally.executions_so_far,
                symmetric=symmetric,
            )
        try:
            with sem.reporting():
                stats = ex.run()
            break
        except NewLocation as e:  # an address computed at run time
            if not program.initially_written(e.loc):
                raise NoInitialWrite(e.loc) from None
            for loc in cells.near(e.loc) if cells is not None else (e.loc,):
                memory.setdefault(loc, initial.get(loc, 0))
            check_events(program, room, len(memory))
        except NoRoom as e:  # a thread runs longer than its room: more room
            room[e.t] = max(2 * room[e.t], e.k + 1)
            check_events(program, room, len(memory))
        except CoreFallback:  # a check only the Python explorer decides: start again
            compiled = False
        except NotSequential:
            raise InputError(
                where,
                0,
                0,
                f"--preemption-bound counts the preemptions of SC interleavings, but model "
                f"{model.spec} accepts an execution of this program that no interleaving "
                "produces; use an SC model",
            ) from None
    extra = stats.extra
    extra["checks"] = checker.checks
    extra["checker_incremental"] = int(checker.name == "incremental")
    extra["filtered"] = tally.filtered
    if opts.speedcheck != "false":
        extra["irrelevant"] = tally.skipped
    if bound is not None:
        extra["beyond_bound"] = float(tally.beyond)
        extra["bound"] = bound.k
        extra["within_bound"] = tally.within
        extra["decisive_within_bound"] = tally.decisive_within
        extra["decisive_beyond_bound"] = tally.decisive_beyond
    stats.time = time.process_time() - t0
    stats.candidates = stats.complete + int(extra["rejected"])
    tally.stats.absorb(stats)
    return TrustRun(tally.finish(program.name, "trust"), stats)


def start_locations(sem: Semantics, initial: dict[str, Value]) -> dict[str, Value]:
    """The locations the threads name in their code (the others join the layout as the
    threads compute their addresses), with their initial values."""
    out = {}
    for code in sem.threads:
        for pc in range(len(code.code)):
            loc = code.const_loc[pc]
            if loc is not None:
                out[loc] = initial.get(loc, 0)
    return out


#: How near (in bytes) the cells of an allocation that join the layout with a new one are.
NEAR = 32


class Neighbours:
    """The cells of each allocation of a C program's memory (``name+offset``), to bring
    a new location's neighbours into the layout with it: C threads walk arrays and
    structures cell by cell, and each location found restarts the exploration."""

    def __init__(self, memory: dict[str, Value]) -> None:
        self.offsets: dict[str, list[int]] = {}
        for loc in memory:
            name, off = _cell(loc)
            self.offsets.setdefault(name, []).append(off)

    def near(self, loc: str) -> list[str]:
        """``loc`` and the cells of its allocation at most :data:`NEAR` bytes away."""
        name, off = _cell(loc)
        near = [o for o in self.offsets.get(name, ()) if abs(o - off) <= NEAR and o != off]
        return [loc, *(f"{name}+{o}" if o else name for o in near)]


def _cell(loc: str) -> tuple[str, int]:
    """A location's allocation and offset (``str(Sym)``)."""
    name, plus, off = loc.rpartition("+")
    return (name, int(off)) if plus and off.isdigit() else (loc, 0)


def blocked_error(tally: Tally, g: TrustGraph, fails: list[tuple[int, ThreadFailed]]) -> None:
    """A blocked graph (consistent so far) where an assertion failed: an error too."""
    dones: list[ThreadDone | None] = []
    for t in range(g.T):
        s = g.at(t).step
        dones.append(
            s.done if isinstance(s, ThreadFailed) else s if isinstance(s, ThreadDone) else None
        )
    state = tally.final_state(g.lay.loc_index, g.final_value, dones)
    tally.blocked_error(state, fails, partial(picture, g))


def run_trust(program: Program, model: PreparedModel, opts: RunOptions) -> Outcome:
    """The outcome of ``program`` under ``model`` with TruSt (see :func:`explore_program`)."""
    return explore_program(program, model, opts).result
