"""Running one program under one model: the engine's entry point.

``run_program(program, model, opts)`` runs the explorer ``opts.engine`` names
(``reference``, ``trust``, ``rsmc``, ``operational``; ``auto``: TruSt where the model
allows it, else RSMC or the reference engine by the size of the candidate space, see
:mod:`engine.choice`) and returns its :class:`engine.outcome.Outcome`.  The engine runs
programs: the front-ends lower tests (``herd_compat.pipeline.load`` picks the model and
lowers a test for it), and ``herd_compat`` calls this once per test with a model loaded
once per run.  Every
explorer honours herd's ``-speedcheck`` (``opts.speedcheck``) and tells ``opts.progress``
how far it is.
"""

from __future__ import annotations

import time
from dataclasses import replace

from herdsman.cat.api import PreparedModel
from herdsman.engine.choice import RSMC_BUDGET, auto_engine
from herdsman.engine.errors import NoInitialWrite, TimeLimitExceeded
from herdsman.engine.operational.run import run_operational
from herdsman.engine.options import ENGINES, SPEEDCHECKS, RunOptions
from herdsman.engine.outcome import Outcome, check_show_mode
from herdsman.engine.reference.run import run_reference
from herdsman.engine.rsmc.run import run_rsmc
from herdsman.engine.size import check_threads
from herdsman.engine.trust.run import run_trust
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Choose, Effect, Program

__all__ = ["RunOptions", "run_program", "TimeLimitExceeded"]


def run_program(program: Program, model: PreparedModel, opts: RunOptions | None = None) -> Outcome:
    """The outcome of ``program`` under ``model`` (a loaded cat model, ``cat.api``)."""
    opts = opts or RunOptions()
    where = program.where
    if opts.engine not in ENGINES:
        raise InputError(
            where, 0, 0, f"unknown engine '{opts.engine}' (known: {', '.join(ENGINES)})"
        )
    check_show_mode(where, opts.show)
    check_threads(program)
    if opts.speedcheck not in SPEEDCHECKS:
        raise InputError(
            where,
            0,
            0,
            f"unknown speedcheck mode '{opts.speedcheck}' (known: {', '.join(SPEEDCHECKS)})",
        )
    reporter = opts.progress
    if reporter is None:
        return _explore(program, model, opts)
    reporter.start(program.name)
    try:
        return _explore(program, model, opts)
    finally:
        reporter.finish()


def _explore(program: Program, model: PreparedModel, opts: RunOptions) -> Outcome:
    """:func:`run_program` once its options are checked: the explorer's outcome (a
    location with no initial write, herd's, is the reference engine's: ``auto`` turns to
    it, another engine refuses)."""
    try:
        return _chosen(program, model, opts)
    except NoInitialWrite as e:
        if opts.engine != "auto":
            raise InputError(
                program.where,
                0,
                0,
                f"the {opts.engine} engine meets location {e.loc}, which has no initial write "
                "(herd's location at a computed address): use --engine reference",
            ) from None
    return run_reference(program, model, opts)


def _chosen(program: Program, model: PreparedModel, opts: RunOptions) -> Outcome:
    """:func:`_explore`'s explorer, as the options and the program choose it."""
    where = program.where
    if program.has(Choose, Effect):  # herd's alternatives and lock events: herd's search
        if opts.engine not in ("auto", "reference"):
            raise InputError(
                where,
                0,
                0,
                f"the {opts.engine} engine does not take herd's lock and SRCU events "
                "(spin_trylock, spin_is_locked...): use --engine reference",
            )
        return run_reference(program, model, opts)
    if opts.engine == "operational":
        return run_operational(program, model, opts)
    if opts.buffer_bound is not None or opts.stateful:
        raise InputError(where, 0, 0, "a buffer bound and --stateful need --engine operational")
    if opts.engine == "rsmc":
        return run_rsmc(program, model, opts)
    if opts.engine != "reference":
        # TruSt's own options (a preemption bound, the listing of executions): auto then
        # means TruSt, which may refuse
        forced = (
            opts.engine == "trust" or opts.preemption_bound is not None or opts.print_executions
        )
        if forced:
            return run_trust(program, model, opts)
        chosen = auto_engine(model, program)
        if chosen == "trust":
            return run_trust(program, model, opts)
        if chosen == "rsmc":
            return run_rsmc(program, model, opts)
        if chosen == "rsmc-first":
            return _rsmc_first(program, model, opts)
    elif opts.preemption_bound is not None:
        raise InputError(where, 0, 0, "a preemption bound needs the TruSt engine")
    return run_reference(program, model, opts)


def _rsmc_first(program: Program, model: PreparedModel, opts: RunOptions) -> Outcome:
    """``auto`` on a large candidate space: RSMC within :data:`engine.choice.RSMC_BUDGET`
    CPU seconds, else the reference engine (the statistics say RSMC gave up)."""
    t0 = time.process_time()
    budget = RSMC_BUDGET if opts.time_limit is None else min(RSMC_BUDGET, opts.time_limit)
    try:
        return run_rsmc(program, model, replace(opts, time_limit=budget))
    except TimeLimitExceeded:
        if opts.time_limit is not None and budget >= opts.time_limit:
            raise
    spent = time.process_time() - t0
    left = None if opts.time_limit is None else opts.time_limit - spent
    out = run_reference(program, model, replace(opts, time_limit=left))
    out.stats.extra["rsmc_gave_up"] = spent
    return out
