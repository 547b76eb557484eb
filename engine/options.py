"""The options of one run of a program under a model, shared by every engine."""

from __future__ import annotations

from dataclasses import dataclass

from herdsman.engine.progress import ProgressReporter
from herdsman.engine.semantics.step import DEFAULT_UNROLL

__all__ = [
    "DEFAULT_UNROLL",
    "ENGINES",
    "REDUCTIONS",
    "SPEEDCHECKS",
    "VERIFY_UNROLL",
    "RunOptions",
]

#: The loop bound of ``herdsman verify`` on C programs (``DEFAULT_UNROLL``, herd's
#: ``-unroll`` default, is every other command's: litmus tests, ``explain``, ``fences``).
#: GenMC has none; spin loops need none (they become assumptions).
VERIFY_UNROLL = 4

ENGINES = ("auto", "reference", "trust", "rsmc", "operational")
#: How the operational engine explores: DPOR with sleep sets, or every run.
REDUCTIONS = ("dpor", "none")
#: herd's ``-speedcheck`` modes: every execution (``false``), only the executions that
#: settle the condition (``true``), and stop at the first of them (``fast``).
SPEEDCHECKS = ("false", "true", "fast")


@dataclass
class RunOptions:
    """Options of one run (herd's ``-show``, ``-nshow``, ``-checkfilter``, ``-unroll``,
    ``-speedcheck``).

    ``time_limit`` is in CPU seconds per test; exceeding it raises
    :class:`TimeLimitExceeded`.  ``prune`` says when the explorer asks the model about
    partial candidates: after every choice (``step``), after each location
    (``location``) or never (``never``, herd's behaviour).

    ``speedcheck`` (herd's ``-speedcheck``): with ``true`` the explorers count only the
    executions that settle the condition (whose final state satisfies the proposition for
    ``exists`` and ``~exists``, contradicts it for ``forall``: herd's ``worth_going``),
    with ``fast`` they stop at the first one.  ``progress`` (None: none) hears, every few
    hundred steps, how far the exploration is (see :mod:`engine.progress`)."""

    engine: str = "auto"
    show: str | None = None
    nshow: int | None = None
    checkfilter: bool = True
    time_limit: float | None = None
    unroll: int = DEFAULT_UNROLL
    prune: str = "step"
    order: str = "most"
    rf_first: bool = False
    preemption_bound: int | None = None  # TruSt only: Buster's bound (engine/preemption.py)
    print_executions: bool = False  # keep every execution in the outcome (TruSt)
    executions_dot: bool = False  # ... with its graph, for a picture of each
    checker: str = "auto"  # TruSt's consistency checker: auto | cat | incremental
    preemption_slack: str = "spawner"  # TruSt: the slack rule (engine/trust/preemption.py)
    track_duplicates: bool = False  # TruSt: count graphs explored twice (tests)
    stop_on_error: bool = False  # stop at the first execution failing an assertion (GenMC)
    races: bool = False  # a data race (undefined_unless failed) is an error too (GenMC)
    symmetry: bool = True  # TruSt: GenMC's symmetry reduction of symmetric threads
    writes_first: bool = False  # TruSt: GenMC's schedule (its counts of blocked graphs)
    buffer_bound: int | None = None  # operational: store buffers of at most k writes
    stateful: bool = False  # operational: stateful DPOR (no unrolling bound)
    reduction: str = "dpor"  # operational: dpor, or none (every run)
    naive_budget: int = 20_000  # operational: most states to count the naive runs over
    speedcheck: str = "false"  # herd's -speedcheck: false | true | fast
    progress: ProgressReporter | None = None  # told how far the exploration is
