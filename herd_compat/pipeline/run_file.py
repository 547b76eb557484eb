"""The one per-test pipeline: from a test file to a typed, picklable record.

:func:`run_file` loads the test (:func:`~herd_compat.pipeline.load.load_program`: reading,
herd's selection, ``-conds``, the model, the program), runs the engine and draws the kept
executions when pictures are wanted.  ``herdsman run``, ``herdsman herd7``, ``herdsman
verify`` and the campaigns' workers all use it; what they print is made from the record.
An error on one test is a :class:`Failed` record (one rendered line), never an exception:
bad input is reported as such, an exceeded time or memory limit too, and a bug in
herdsman becomes one "internal error" line (``HERDSMAN_DEBUG=1`` lets the traceback
through).  The time limit covers the whole pipeline, not only the engine's search (see
:mod:`herd_compat.pipeline.limits`); :func:`within_limits` gives the same guard to any
other unit of work (``verify --max-bound``'s search, an explanation).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from herdsman.cat.api import DeadlinePassed
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.outcome import Outcome
from herdsman.engine.run import run_program
from herdsman.herd_compat.formats.dots import check_outdir, dot_base, execution_pictures
from herdsman.herd_compat.formats.herd_block import HerdBlock, herd_result
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import (
    CpuTimeLimit,
    Limits,
    MemoryLimit,
    memory_line,
    time_line,
)
from herdsman.herd_compat.pipeline.load import (
    Admit,
    HeaderFacts,
    Skipped,
    admit_all,
    load_program,
    read_input,
)
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.litmus.base.errors import InputError

__all__ = [
    "Done",
    "Failed",
    "FailureKind",
    "HeaderFacts",
    "Naming",
    "Skipped",
    "TestRecord",
    "internal_error_line",
    "load_first",
    "run_file",
    "within_limits",
]


@dataclass
class Done:
    """A test that ran: the engine's outcome, the test's facts, the model's name, the CPU
    seconds from reading the test to the outcome (herd's ``Time``: model loading is not
    counted), the wall-clock seconds of the engine's run, the C mapping the test was
    lowered for (None for an assembly test) and, when pictures are wanted, the DOT text
    of each kept execution (the ``-show`` ones, or every listed one with
    ``--print-executions -o DIR``)."""

    path: str
    test: HeaderFacts
    model: str
    outcome: Outcome
    cpu: float
    pictures: tuple[str, ...] = ()
    wall: float = 0.0
    target: str | None = None

    @property
    def name(self) -> str:
        return self.test.name

    def __reduce__(self) -> tuple[type[Done], tuple]:
        # positional: a campaign's workers send one record a test to the parent
        return (
            Done,
            (
                self.path,
                self.test,
                self.model,
                self.outcome,
                self.cpu,
                self.pictures,
                self.wall,
                self.target,
            ),
        )

    def herd_block(self, candidates: bool = False) -> HerdBlock:
        """herd's block for this test (with the ``Candidates`` line when asked)."""
        t = self.test
        return herd_result(
            self.outcome,
            t.name,
            t.hash,
            t.condition,
            arch=t.arch,
            time=self.cpu,
            candidates=candidates,
            casts=dict(t.casts) if t.casts else None,
            hexa=t.hexa,
            shown=t.shown or None,
        )


#: Why a test has no result: bad input, an exceeded time or memory limit, or a bug in
#: herdsman.
FailureKind = Literal["input", "timeout", "memory", "internal"]


@dataclass(frozen=True)
class Failed:
    """A test without a result: ``message`` is the line to report (``FILE:LINE:COL:
    error: ...``, a warning for an exceeded time or memory limit); ``name`` is the test's
    name, or its file's base name when the test could not be read."""

    path: str
    name: str
    kind: FailureKind
    message: str
    cpu: float | None = None


TestRecord = Done | Failed | Skipped

T = TypeVar("T")


@dataclass
class Naming:
    """The name a unit of work's failure is reported under: its file's base name until
    the work has read the test's own; and the process's CPU time when the work started
    (``time.process_time()``: the work's own time is measured from it)."""

    name: str
    start: float = 0.0


def within_limits(
    path: str, limits: Limits, work: Callable[[Naming], T], missing: str = "no result"
) -> T | Failed:
    """``work(naming)`` within ``limits.time_limit`` CPU seconds, or the :class:`Failed`
    record saying why it gave no result (bad input, a limit, a bug); ``missing`` ends a
    limit's warning line (``no result``, ``no verdict``)."""
    start = time.process_time()
    naming = Naming(dot_base(path), start)
    try:
        with CpuTimeLimit(limits.time_limit):
            return _guarded(path, naming, limits, work, missing, start)
    except TimeLimitExceeded:  # when _guarded was already reporting another failure
        line = time_line(path, limits, missing)
        return Failed(path, naming.name, "timeout", line, _since(start))


def _guarded(
    path: str,
    naming: Naming,
    limits: Limits,
    work: Callable[[Naming], T],
    missing: str,
    start: float,
) -> T | Failed:
    """:func:`within_limits` inside its time limit's alarm."""
    try:
        return work(naming)
    except InputError as e:
        return Failed(path, naming.name, "input", e.render())
    except (TimeLimitExceeded, DeadlinePassed):  # the alarm, or cat's own check
        line = time_line(path, limits, missing)
        return Failed(path, naming.name, "timeout", line, _since(start))
    except MemoryError as e:  # reported below, once this handler has let go of the work's data
        bound = str(e)  # a bound of herdsman's says which, an allocation that failed nothing
    except Exception as e:  # a bug, not bad input: one line for this test, never a traceback
        if os.environ.get("HERDSMAN_DEBUG"):
            raise
        return Failed(path, naming.name, "internal", internal_error_line(path, e))
    gc.collect()  # what the work built, cycles included, before the next test
    line = memory_line(path, limits, missing, bound)
    return Failed(path, naming.name, "memory", line, _since(start))


def run_file(path: str, cfg: RunConfig, models: ModelCache, admit: Admit = admit_all) -> TestRecord:
    """Run the test in file ``path`` as ``cfg`` says, with models from ``models``: the
    whole of it (reading, the model, the engine, pictures) within ``cfg.limits``."""
    missing = "no verdict" if cfg.inputs == "programs" else "no result"

    def work(naming: Naming) -> Done | Skipped:
        return _run_file(path, cfg, models, admit, naming)

    return within_limits(path, cfg.limits, work, missing)


def _run_file(
    path: str, cfg: RunConfig, models: ModelCache, admit: Admit, naming: Naming
) -> Done | Skipped:
    """:func:`run_file` inside its limits."""
    start = naming.start  # herd's Time: from reading the test to its result
    test = read_input(path) if cfg.inputs == "tests" else None
    if test is not None:
        naming.name = test.name
    loaded = load_program(path, models, admit, test)
    if isinstance(loaded, Skipped):
        return loaded
    start += loaded.model_cpu  # loading a model is not the test's time
    wall = time.perf_counter()
    outcome = run_program(loaded.program, loaded.model, cfg.run_options())
    if loaded.facts.names:  # herd's names of the locations: an array's cells, v[1]
        names = dict(loaded.facts.names)
        outcome = replace(outcome, observed=tuple(names.get(x, x) for x in outcome.observed))
    wall = time.perf_counter() - wall
    cpu = time.process_time() - start
    facts = loaded.facts
    model_name = loaded.model.name or ""
    drawn = outcome.executions if cfg.execution_dots else outcome.witnesses
    pictures = (
        execution_pictures(drawn, facts.name, model_name, outcome.observed, facts.arch, cfg.picture)
        if cfg.pictures
        else []
    )
    return Done(path, facts, model_name, outcome, cpu, tuple(pictures), wall, loaded.target)


def load_first(cfg: RunConfig, models: ModelCache) -> Failed | None:
    """Check the output directory and load the model named on the command line (if one
    is) before any test, within ``cfg.limits``: None, or why no test can run (a bad model
    or directory is reported once, not for each test)."""
    spec = cfg.model
    try:
        check_outdir(cfg.outdir, cfg.picture.format)
        if spec:
            with MemoryLimit(cfg.limits.memory_limit), CpuTimeLimit(cfg.limits.time_limit):
                models.get(spec)
    except InputError as e:
        return Failed(e.path, dot_base(e.path), "input", e.render())
    except TimeLimitExceeded:
        over = f"took more than the time limit of {cfg.limits.time_limit:g} s"
        kind: FailureKind = "timeout"
    except MemoryError:
        mb = cfg.limits.memory_limit
        over = "ran out of memory" if mb is None else f"exceeded the memory limit of {mb} MB"
        kind = "memory"
    else:
        return None
    line = f"{spec}:0:0: warning: loading the model {over}, no test ran"
    return Failed(spec or "", dot_base(spec or ""), kind, line)


def _since(start: float) -> float:
    return time.process_time() - start


def internal_error_line(path: str, e: BaseException) -> str:
    """The one line reporting a bug met while running the test in ``path``."""
    msg = " ".join(str(e).split()) or type(e).__name__
    return (
        f"{path}:0:0: error: internal error ({type(e).__name__}: {msg}); "
        "set HERDSMAN_DEBUG=1 for a traceback"
    )
