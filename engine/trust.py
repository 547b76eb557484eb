"""Running a litmus test with TruSt: ``run_trust(test, model, opts) -> TestResult``.

TruSt (:mod:`engine.trust_explore`) fills the same :class:`engine.result.TestResult` as
the reference engine, so herd's output is identical whichever engine ran.  The
exploration's statistics (GenMC's "complete executions explored" and "blocked executions
seen", revisits, preemption-bound counts) are in ``TestResult.stats`` under ``trust_*``
keys; :func:`explore_test` also returns them as :class:`TrustStats`, with the list of
executions when asked (``print_executions``), and :func:`report` prints them the way
GenMC does.

A model TruSt cannot explore (:mod:`engine.trust_support`) is refused with an
:class:`litmus.errors.InputError` naming the reason; ``--engine auto`` then uses the
reference engine (:func:`trust_applies`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import Outcome, check_show_mode
from herdsman.engine.preemption import NotSequential, PreemptionBound
from herdsman.engine.threads import DEFAULT_UNROLL, thread_executions
from herdsman.engine.trust_consistency import CatChecker
from herdsman.engine.trust_explore import Explorer, TrustStats
from herdsman.engine.trust_program import Program
from herdsman.engine.trust_support import refusal, refusal_message
from herdsman.engine.trust_tally import Tally
from herdsman.litmus.errors import InputError
from herdsman.litmus.ir import RMW, LitmusTest

__all__ = [
    "TrustOptions",
    "TrustRun",
    "run_trust",
    "explore_test",
    "trust_applies",
    "TimeLimitExceeded",
]

CHECKERS = ("auto", "cat", "incremental")


@dataclass
class TrustOptions:
    """Options of a TruSt run: the reference engine's, and TruSt's own."""

    show: str | None = None
    nshow: int | None = None
    checkfilter: bool = True
    time_limit: float | None = None  # CPU seconds
    unroll: int = DEFAULT_UNROLL
    checker: str = "auto"  # consistency checker: auto | cat | incremental
    preemption_bound: int | None = None  # Buster: executions with at most k preemptions
    preemption_slack: str = "spawner"  # slack rule (engine/preemption.py)
    print_executions: bool = False  # list every execution (its final state)
    executions_dot: bool = False  # ... with its graph (for DOT pictures)
    track_duplicates: bool = False  # count graphs explored twice (tests)

    @classmethod
    def from_run_options(cls, opts: RunOptions) -> TrustOptions:
        """The TruSt options of a run's options."""
        return cls(
            show=opts.show,
            nshow=opts.nshow,
            checkfilter=opts.checkfilter,
            time_limit=opts.time_limit,
            unroll=opts.unroll,
            preemption_bound=opts.preemption_bound,
            print_executions=opts.print_executions,
            executions_dot=opts.executions_dot,
        )


@dataclass
class TrustRun:
    """A TruSt run: its outcome (with every execution when asked) and the exploration's
    statistics."""

    result: Outcome
    stats: TrustStats


def has_rmw(test: LitmusTest) -> bool:
    """Whether the test has read-modify-write instructions (see engine/trust_support.py)."""
    return any(isinstance(ins, RMW) for code in test.threads for ins in code)


def trust_applies(model: Any, test: LitmusTest) -> bool:
    """Whether TruSt can explore ``test`` under ``model`` (``--engine auto``); a model that
    cannot even be probed (not a cat model, wrong architecture) is left to the reference
    engine, which reports what is wrong with it."""
    try:
        return refusal(model, test.arch, has_rmw(test)) is None
    except Exception:  # noqa: BLE001
        return False


def make_checker(name: str, model: Any, prog: Program, arch: str):
    """The consistency checker ``name``: ``auto`` is the incremental one when the model
    has an incremental form (measured faster: ``bench/bench_trust.py``), else the cat one."""
    if name not in CHECKERS:
        raise ValueError(f"unknown checker {name!r} (known: {', '.join(CHECKERS)})")
    if name != "cat":
        from herdsman.engine.trust_incremental import IncrementalChecker, incremental_form

        form = incremental_form(model, arch)
        if form is not None:
            return IncrementalChecker(form, model, prog, arch)
        if name == "incremental":
            raise ValueError("this model has no incremental form")
    return CatChecker(model, prog, arch)


def explore_test(test: LitmusTest, model: Any, opts: TrustOptions | None = None) -> TrustRun:
    """Explore ``test`` under ``model`` with TruSt: herd's result and the statistics."""
    opts = opts or TrustOptions()
    where = test.path or test.name
    check_show_mode(where, opts.show)
    if opts.preemption_bound is not None and opts.preemption_bound < 0:
        raise InputError(where, 0, 0, "the preemption bound must be >= 0")
    t0 = time.process_time()
    msg = refusal_message(model, test.arch, has_rmw(test))
    if msg is not None:
        raise InputError(where, 0, 0, msg)
    deadline = None if opts.time_limit is None else t0 + opts.time_limit
    threads = thread_executions(test, opts.unroll, deadline)
    prog = Program(threads)
    checker = make_checker(opts.checker, model, prog, test.arch)
    bound = None
    if opts.preemption_bound is not None:
        bound = PreemptionBound(opts.preemption_bound, opts.preemption_slack)
    tally = Tally(test, prog, checker, opts, bound)
    ex = Explorer(
        prog,
        checker,
        tally.complete,
        bound=bound,
        deadline=deadline,
        track_duplicates=opts.track_duplicates,
    )
    try:
        stats = ex.run()
    except NotSequential:
        name = getattr(model, "spec", None) or getattr(model, "name", None) or "?"
        raise InputError(
            where,
            0,
            0,
            f"--preemption-bound counts the preemptions of SC "
            f"interleavings, but model {name} accepts an execution of this test "
            "that no interleaving produces; use an SC model",
        ) from None
    extra = stats.extra
    extra["checks"] = checker.checks
    extra["checker_incremental"] = int(checker.name == "incremental")
    extra["filtered"] = tally.filtered
    extra["bad_address"] = threads.bad_address
    extra["value_rounds"] = threads.rounds
    if bound is not None:
        stats.beyond_bound = tally.beyond
        extra["bound"] = bound.k
        extra["within_bound"] = tally.within
        extra["decisive_within_bound"] = tally.decisive_within
        extra["decisive_beyond_bound"] = tally.decisive_beyond
    elapsed = time.process_time() - t0
    stats.time = elapsed
    out = tally.stats
    out.time = elapsed
    out.candidates = stats.complete + stats.rejected
    out.complete = stats.complete
    out.blocked = stats.blocked
    for k, v in stats.as_dict().items():
        if k not in ("complete", "blocked", "time"):
            out.extra[k] = v
    return TrustRun(tally.finish(test.name, "trust"), stats)


def run_trust(test: LitmusTest, model: Any, opts: TrustOptions | None = None) -> Outcome:
    """Run ``test`` under ``model`` with TruSt (see :func:`explore_test`)."""
    return explore_test(test, model, opts).result
