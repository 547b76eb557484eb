"""Running a program with RSMC: ``explore_program(program, model, opts) -> RsmcRun``.

RSMC (:mod:`engine.rsmc.explore`) fills the same :class:`engine.outcome.Outcome` as the
other engines (the complete traces are counted by the tally every explorer counts with:
:class:`engine.tally.Tally`), so herd's output is identical whichever engine ran. Its
statistics, Nidhugg's (traces explored, blocked runs) and its own (templates queued and
explored, model checks), are in ``Outcome.stats``.

Graph ids are laid out once per program (room for each thread's longest execution,
every location the program names); a thread that computes an address outside those
locations makes the exploration start again with it.  A model RSMC cannot explore
(:mod:`engine.rsmc.support`) is refused with an :class:`litmus.errors.InputError` naming
the reason.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

from herdsman.cat.api import PreparedModel
from herdsman.engine.errors import NewLocation, NoInitialWrite, model_refusal
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import Outcome, Stats, check_show_mode
from herdsman.engine.rsmc.cb import CB_ORDERS
from herdsman.engine.rsmc.explore import Explorer
from herdsman.engine.rsmc.state import RsmcState
from herdsman.engine.rsmc.support import choose
from herdsman.engine.semantics.state import ThreadDone, ThreadFailed
from herdsman.engine.semantics.step import Semantics
from herdsman.engine.size import check_events
from herdsman.engine.tally import Tally, picture
from herdsman.engine.trust.run import has_rmw, program_refusal
from herdsman.graphs.execution import Layout
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Assert, Program, Select

__all__ = ["RsmcRun", "explore_program", "run_rsmc", "rsmc_refusal"]


def blocked_error(tally: Tally, st: RsmcState, fails: list[tuple[int, ThreadFailed]]) -> None:
    """An execution of RSMC's state ``st`` where a thread is blocked and ``fails`` failed
    an assertion: an error too."""
    g = st.g
    dones: list[ThreadDone | None] = []
    for end in st.end:
        done = end.done if isinstance(end, ThreadFailed) else end
        dones.append(done if isinstance(done, ThreadDone) else None)
    state = tally.final_state(g.lay.loc_index, g.final_value, dones)
    tally.blocked_error(state, fails, partial(picture, g))


@dataclass
class RsmcRun:
    """An RSMC run: its outcome and the exploration's statistics."""

    result: Outcome
    stats: Stats


def _fetch_refusal(program: Program) -> str | None:
    """Why RSMC's fetching cannot run ``program``: a conditional selection (the IR's
    ``Select``) waits for its condition's read, where RSMC fetches a thread's later
    events before committing its reads (stalled there, it would miss the executions
    where a later write it does not depend on is read early)."""
    if program.has(Select):
        return "conditional selections (CSEL, CSET, MOVEQ...) are explored by the reference engine"
    return None


def rsmc_refusal(model: PreparedModel, program: Program) -> str | None:
    """Why RSMC cannot explore ``program`` under ``model`` (None: it can)."""
    return (
        program_refusal(program)
        or _fetch_refusal(program)
        or choose(model, program.arch, has_rmw(program)).refusal
    )


def explore_program(program: Program, model: PreparedModel, opts: RunOptions) -> RsmcRun:
    """Explore ``program`` under ``model`` with RSMC: its outcome and statistics."""
    where = program.where
    check_show_mode(where, opts.show)
    if opts.preemption_bound is not None:
        raise InputError(where, 0, 0, "a preemption bound needs the TruSt engine")
    msg = program_refusal(program) or _fetch_refusal(program)
    if msg is not None:
        raise InputError(where, 0, 0, f"RSMC cannot explore this program: {msg}")
    why = choose(model, program.arch, has_rmw(program))
    if why.order is None:
        raise model_refusal(model, where, f"RSMC cannot explore model {model.spec}: {why.refusal}")
    t0 = time.process_time()
    deadline = None if opts.time_limit is None else t0 + opts.time_limit
    sem = Semantics(program, opts.unroll, regs=model.register_events)
    room = [sem.max_events(t) for t in range(len(program.threads))]
    check_events(program, room)
    memory = dict(program.memory)
    while True:
        lay = Layout(sorted(memory), [memory[x] for x in sorted(memory)], room)
        checker = model.consistency_checker(program.arch, lay, "cat")
        tally = Tally(program, opts, checker)
        try:
            with sem.reporting():
                state = RsmcState(sem, lay, CB_ORDERS[why.order], checker, why.coherent)
                ex = Explorer(
                    state,
                    tally.complete_graph,
                    deadline=deadline,
                    track_duplicates=opts.track_duplicates,
                    progress=opts.progress,
                    on_blocked_error=partial(blocked_error, tally) if program.has(Assert) else None,
                )
                stats = ex.explore_all()
            break
        except NewLocation as e:  # an address computed at run time: initially 0
            if not program.initially_written(e.loc):
                raise NoInitialWrite(e.loc) from None
            memory[e.loc] = 0
    stats.extra["cb"] = float(list(CB_ORDERS).index(why.order))
    stats.extra["filtered"] = tally.filtered
    stats.extra["cut"] = tally.cut
    if opts.speedcheck != "false":
        stats.extra["irrelevant"] = tally.skipped
    stats.time = time.process_time() - t0
    stats.candidates = stats.complete + int(stats.extra["rejected"])
    tally.stats.absorb(stats)
    return RsmcRun(tally.finish(program.name, "rsmc"), stats)


def run_rsmc(program: Program, model: PreparedModel, opts: RunOptions) -> Outcome:
    """The outcome of ``program`` under ``model`` with RSMC (see :func:`explore_program`)."""
    return explore_program(program, model, opts).result
