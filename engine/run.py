"""Running one litmus test under one model: the engine's entry point.

``run_test(test, model, opts)`` executes the threads, enumerates the candidates with the
reference explorer or TruSt (``opts.engine``; ``auto``: TruSt where the model allows it,
see :mod:`engine.trust`) and fills a :class:`engine.result.TestResult` (what herd prints
for the test).  ``herd_compat`` calls it once per test with a model loaded once per run.
"""

from __future__ import annotations

import time

from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.options import ENGINES, RunOptions
from herdsman.engine.outcome import Outcome, OutcomeBuilder, check_show_mode
from herdsman.engine.reference import CheckerModel, Goal, enumerate_test
from herdsman.engine.threads import thread_executions
from herdsman.engine.trust import TrustOptions, run_trust, trust_applies
from herdsman.litmus.errors import InputError
from herdsman.litmus.ir import LitmusTest

__all__ = ["RunOptions", "run_test", "TimeLimitExceeded"]


def run_test(test: LitmusTest, model: CheckerModel, opts: RunOptions | None = None) -> Outcome:
    """Run ``test`` under ``model`` (a loaded cat model, see ``cat/api.py``)."""
    opts = opts or RunOptions()
    where = test.path or test.name
    if opts.engine not in ENGINES:
        raise InputError(
            where, 0, 0, f"unknown engine '{opts.engine}' (known: {', '.join(ENGINES)})"
        )
    if opts.engine != "reference":  # TruSt (engine/trust.py); auto: where the model allows
        # TruSt's own options (a preemption bound, the listing of executions): auto then
        # means TruSt, which may refuse
        forced = (
            opts.engine == "trust" or opts.preemption_bound is not None or opts.print_executions
        )
        if forced or trust_applies(model, test):
            return run_trust(test, model, TrustOptions.from_run_options(opts))
    elif opts.preemption_bound is not None:
        raise InputError(where, 0, 0, "a preemption bound needs the TruSt engine")
    check_show_mode(where, opts.show)
    if opts.prune not in ("step", "location", "never"):
        raise InputError(where, 0, 0, f"unknown pruning mode '{opts.prune}'")
    t0 = time.process_time()
    goal = Goal(
        observed=test.observed_locations(),
        prop=test.condition.prop,
        quant=test.condition.quant,
        filter=test.filter if opts.checkfilter else None,
        show=opts.show,
        nshow=opts.nshow,
        prune=opts.prune,
        order=opts.order,
        rf_first=opts.rf_first,
        deadline=None if opts.time_limit is None else t0 + opts.time_limit,
    )
    threads = thread_executions(test, opts.unroll, goal.deadline)
    tally = OutcomeBuilder(goal.observed, goal.quant, opts.show, opts.nshow)
    tally.stats.extra["bad_address"] = threads.bad_address
    tally.stats.extra["value_rounds"] = threads.rounds
    enumerate_test(threads, model, test.arch, goal, tally)
    tally.stats.time = time.process_time() - t0
    return tally.finish(test.name, "reference")
