"""Running a program on the operational machine: ``run_operational(program, model, opts)``.

The model's identity names the machine (``cat.identity``: the built-in ``sc``, ``tso``
and ``pso``, and herd's files of those models); any other model is refused with the
reason.  Programs are X86
litmus tests and C programs (lowered with the x86 mapping).  ``opts.buffer_bound`` bounds
every store buffer (§5 of Zhang, Kusano and Wang), ``opts.stateful`` runs stateful DPOR
(loops then run without an unrolling bound), ``opts.reduction`` is ``dpor`` or ``none``
(every run).  Statistics: runs explored (complete and blocked), runs cut by sleep sets or
at visited states, distinct executions, the runs a naive exploration takes (counted over
the states when there are at most ``opts.naive_budget``), abstract states stored, peak
memory, time.
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass

from herdsman.cat.api import PreparedModel
from herdsman.engine.errors import (
    ConditionSettled,
    ErrorFound,
    NewLocation,
    TimeLimitExceeded,
    model_refusal,
)
from herdsman.engine.operational.dpor import Explorer, count_runs
from herdsman.engine.operational.machine import Effects, Machine
from herdsman.engine.operational.runs import RunReader
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import Outcome, Stats, check_show_mode
from herdsman.engine.semantics.step import Semantics
from herdsman.engine.tally import Tally
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Program

#: The unrolling bound of stateful runs: loops end by themselves or revisit a state.
UNBOUNDED = 1 << 40
#: The most states counted for the naive number of runs.
NAIVE_BUDGET = 20_000

__all__ = ["OperationalRun", "explore_operational", "run_operational"]


def refusal(model: PreparedModel, program: Program) -> str | None:
    """Why the operational engine cannot run ``program`` under ``model`` (None: it can)."""
    if model.identity.machine is None:
        return (
            f"the operational engine runs the machines of sc, tso (x86tso.cat) and pso; "
            f"model {model.spec} is none of them"
        )
    if program.arch != "X86":
        return (
            f"the operational engine runs X86 tests and C programs; this is a "
            f"{program.arch} program"
        )
    return None


@dataclass
class OperationalRun:
    """An operational exploration: its outcome (so far, when it ran out of time), the
    search's statistics, and whether it ran out of time (``partial`` explorations)."""

    result: Outcome
    stats: Stats
    timed_out: bool = False


def run_operational(program: Program, model: PreparedModel, opts: RunOptions) -> Outcome:
    """The outcome of ``program`` on the machine ``model`` names (see the module
    docstring); :class:`TimeLimitExceeded` past ``opts.time_limit``."""
    run = explore_operational(program, model, opts)
    if run.timed_out:
        raise TimeLimitExceeded()
    return run.result


def explore_operational(
    program: Program, model: PreparedModel, opts: RunOptions, partial: bool = False
) -> OperationalRun:
    """Explore ``program`` on the machine ``model`` names.  Past ``opts.time_limit`` the
    run stops: with ``partial`` its outcome and statistics so far are returned (marked
    ``timed_out``), else :class:`TimeLimitExceeded` is raised."""
    where = program.where
    check_show_mode(where, opts.show)
    why = refusal(model, program)
    if why is not None:
        raise model_refusal(model, where, why)
    if opts.buffer_bound is not None and opts.buffer_bound < 0:
        raise InputError(where, 0, 0, "the buffer bound must be >= 0")
    if opts.reduction not in ("dpor", "none"):
        raise InputError(where, 0, 0, f"unknown reduction '{opts.reduction}' (dpor, none)")
    mode = model.identity.machine
    assert mode is not None
    t0 = time.process_time()
    deadline = None if opts.time_limit is None else t0 + opts.time_limit
    sem = Semantics(program, UNBOUNDED if opts.stateful else opts.unroll)
    locations = [x for x, _ in program.memory]
    init = dict(program.memory)
    while True:
        m = Machine(sem, locations, mode, opts.buffer_bound)
        tally = Tally(program, opts, dedupe=True)
        runs = RunReader(program, m, tally)
        fx0 = Effects([], [], [])
        try:
            s0 = m.initial(init, fx0)
            ex = Explorer(
                m,
                s0,
                fx0,
                runs.leaf,
                opts.reduction,
                opts.stateful,
                deadline,
                opts.progress,
                tally.executions_so_far,
            )
            timed_out = False
            try:
                stats = ex.run()
            except ErrorFound:
                stats = ex.stats
                tally.stats.extra["stopped_at_error"] = 1
            except ConditionSettled:
                stats = ex.stats
                tally.stats.extra["settled"] = 1
            except TimeLimitExceeded:
                if not partial:
                    raise
                stats, timed_out = ex.stats, True
            break
        except NewLocation as e:  # an address computed at run time: initially 0
            locations.append(e.loc)
    naive = None
    if not opts.stateful and opts.naive_budget > 0 and not timed_out and opts.speedcheck == "false":
        try:
            naive = count_runs(m, s0, opts.naive_budget, deadline)
        except TimeLimitExceeded:
            if not partial:
                raise
    stats.time = time.process_time() - t0
    _fill(tally, runs, stats, m, naive, opts)
    tally.stats.time = stats.time
    if timed_out:
        tally.stats.extra["timed_out"] = 1
    return OperationalRun(tally.finish(program.name, "operational"), stats, timed_out)


def _fill(
    tally: Tally, runs: RunReader, st: Stats, m: Machine, naive: int | None, opts: RunOptions
) -> None:
    out = tally.stats
    out.complete = st.complete
    out.blocked = st.blocked
    out.candidates = st.complete + st.blocked
    x = out.extra
    x["runs"] = st.complete + st.blocked
    x["executions"] = len(tally.seen or ())
    x["duplicates"] = tally.duplicates
    x["sleep_blocked"] = st.extra["sleep_blocked"]
    x["transitions"] = st.extra["transitions"]
    x["filtered"] = tally.filtered
    if opts.speedcheck != "false":
        x["irrelevant"] = tally.skipped
    if runs.loop_bound:
        x["blocked_loop_bound"] = runs.loop_bound
    if naive is not None:
        x["naive_runs"] = naive
    if opts.buffer_bound is not None:
        x["buffer_bound"] = opts.buffer_bound
    if opts.stateful:
        x["states"] = st.extra["states"]
        x["visited_cut"] = st.extra["visited_cut"]
    x["processes"] = m.P
    x["peak_rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
