"""Running a program with the reference explorer: ``run_reference(program, model, opts)``."""

from __future__ import annotations

import time

from herdsman.cat.api import PreparedModel
from herdsman.engine.errors import ConditionSettled, ErrorFound
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import Outcome, OutcomeBuilder
from herdsman.engine.reference.search import Goal, enumerate_test
from herdsman.engine.reference.uniproc import reads_own_later
from herdsman.engine.semantics.enumerate import thread_executions
from herdsman.engine.semantics.step import semantics_of
from herdsman.engine.size import check_events
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Program

PRUNE_MODES = ("step", "location", "never")


def run_reference(program: Program, model: PreparedModel, opts: RunOptions) -> Outcome:
    """The outcome of ``program`` under ``model``, herd's way: every thread execution for
    every value its reads may see, then every rf and co (pruned as soon as a monotone
    axiom fails)."""
    where = program.where
    if opts.prune not in PRUNE_MODES:
        raise InputError(where, 0, 0, f"unknown pruning mode '{opts.prune}'")
    t0 = time.process_time()
    goal = Goal(
        observed=list(program.observed),
        prop=program.condition.prop,
        quant=program.condition.quant,
        filter=program.filter if opts.checkfilter else None,
        show=opts.show,
        nshow=opts.nshow,
        prune=opts.prune,
        order=opts.order,
        rf_first=opts.rf_first,
        deadline=None if opts.time_limit is None else t0 + opts.time_limit,
        stop_on_error=opts.stop_on_error,
        progress=opts.progress,
    )
    regs = model.register_events
    sem = semantics_of(program, opts.unroll, regs)
    check_events(program, [sem.max_events(t) for t in range(len(program.threads))])
    own_later = reads_own_later(model, program.arch)
    threads = thread_executions(program, opts.unroll, goal.deadline, own_later, regs)
    tally = OutcomeBuilder(goal.observed, goal.quant, opts.show, opts.nshow, opts.speedcheck)
    tally.stats.extra["bad_address"] = threads.bad_address
    tally.stats.extra["value_rounds"] = threads.rounds
    try:
        enumerate_test(threads, model, program.arch, goal, tally)
    except ErrorFound:
        tally.stats.extra["stopped_at_error"] = 1
    except ConditionSettled:
        tally.stats.extra["settled"] = 1
    tally.stats.time = time.process_time() - t0
    outcome = tally.finish(program.name, "reference")
    outcome.stats.complete = (
        outcome.positive + outcome.negative + int(outcome.stats.extra.get("filtered", 0))
    )
    return outcome
