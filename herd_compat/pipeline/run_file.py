"""The one per-test pipeline: from a test file to a typed, picklable record.

:func:`run_file` reads the test, lets the caller decide whether it runs (herd's ``-names``,
``-excl`` and repeated names, see :mod:`herd_compat.selection`), takes the test's hash,
applies ``-conds`` (keeping the original hash, as herd), picks the model, runs the engine
and draws the kept executions when pictures are wanted.  ``herdsman run``, ``herdsman
herd7`` and ``herdsman validate``'s workers all use it; what they print is made from the
record.  An error on one test is a :class:`Failed` record (one rendered line), never an
exception: bad input is reported as such, an exceeded time or memory limit too, and a bug
in herdsman becomes one "internal error" line (``HERDSMAN_DEBUG=1`` lets the traceback
through).  The time limit covers the whole pipeline, not only the engine's search (see
:mod:`herd_compat.limits`).
"""

from __future__ import annotations

import gc
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.outcome import Outcome
from herdsman.engine.run import run_program, run_test
from herdsman.herd_compat.formats.conds import replace_condition
from herdsman.herd_compat.formats.dots import dot_base, execution_pictures
from herdsman.herd_compat.formats.herd_block import HerdBlock, herd_result
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import CpuTimeLimit
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import read_source
from herdsman.litmus.c import CLitmus, lower_c_litmus, parse_c_litmus
from herdsman.litmus.c.herdhash import c_litmus_hash
from herdsman.litmus.hash import herd_hash
from herdsman.litmus.parser import parse_source, parse_text
from herdsman.litmus.printer import herd_condition_text
from herdsman.litmus.test import LitmusTest


@dataclass(frozen=True)
class HeaderFacts:
    """What herd prints of a test besides its outcome: its name, architecture (which orders
    the registers of state lines), hash (of the original test under ``-conds``) and
    condition text."""

    name: str
    arch: str
    hash: str
    condition: str


@dataclass
class Done:
    """A test that ran: the engine's outcome, the test's facts, the model's name, the CPU
    seconds from reading the test to the outcome (herd's ``Time``: model loading is not
    counted) and, when pictures are wanted, the DOT text of each kept execution (the
    ``-show`` ones, or every listed one with ``--print-executions -o DIR``)."""

    path: str
    test: HeaderFacts
    model: str
    outcome: Outcome
    cpu: float
    pictures: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.test.name

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


@dataclass(frozen=True)
class Skipped:
    """A test not run: not selected (``-names``/``-excl``) or a repeat of a test already
    run (same name, same hash), which herd skips silently."""

    path: str
    name: str


TestRecord = Done | Failed | Skipped

#: Whether a test read from ``path`` with this name and hash is to run (False: skip it
#: silently; an InputError: refuse it).
Admit = Callable[[str, str, str], bool]


def admit_all(path: str, name: str, hash: str) -> bool:
    return True


def read_test(path: str) -> LitmusTest | CLitmus:
    """Parse one litmus test file, assembly or C (a missing or unreadable file is an
    InputError)."""
    if path.endswith(".c") and _readable_file(path):
        raise InputError(path, 1, 1, "a C program, not a litmus test: 'herdsman verify' checks it")
    try:
        src = read_source(path)  # a missing or unreadable file is refused there
    except InputError:
        if os.path.isdir(path):
            raise InputError(path, 0, 0, "is a directory, expected a litmus test file") from None
        raise
    if _C_HEADER.match(src.text):
        return parse_c_litmus(src.text, path)
    return parse_source(src)


def _readable_file(path: str) -> bool:
    return os.path.exists(path) and not os.path.isdir(path) and os.access(path, os.R_OK)


def apply_conds(test: LitmusTest, cfg: RunConfig) -> LitmusTest:
    """The test with its condition replaced per ``-conds``."""
    entry = cfg.conds.get(test.name)
    if entry is None:
        return test
    cond, line = entry
    text = read_source(test.path).text
    try:
        return parse_text(replace_condition(text, cond), test.path)
    except InputError as e:
        raise InputError(
            cfg.conds_path, line, 1, f"bad condition for test {test.name}: {e.message}"
        ) from None


#: The header of a C litmus test (its architecture is C).
_C_HEADER = re.compile(r"\s*C\s")


def _run_c(
    path: str, test: CLitmus, cfg: RunConfig, models: ModelCache, admit: Admit, start: float
) -> TestRecord:
    """:func:`run_file` for a C litmus test: read by ``litmus/c``, lowered for the
    model's target (its identity's: ``cat.identity``)."""
    h = c_litmus_hash(test)
    if not admit(path, test.name, h):
        return Skipped(path, test.name)
    if test.name in cfg.conds:
        raise InputError(cfg.conds_path, cfg.conds[test.name][1], 1, "-conds on a C test")
    loading = time.process_time()
    spec = models.spec_for("C", path)
    model = models.get(spec)
    start += time.process_time() - loading
    program = lower_c_litmus(test, model.identity.target)
    outcome = run_program(program, model, cfg.run_options())
    cpu = time.process_time() - start
    facts = HeaderFacts(test.name, "C", h, herd_condition_text(test.condition))
    model_name = model.name or ""
    drawn = outcome.executions if cfg.execution_dots else outcome.witnesses
    pictures = (
        execution_pictures(drawn, test.name, model_name, outcome.observed, "C", cfg.picture)
        if cfg.pictures
        else []
    )
    return Done(path, facts, model_name, outcome, cpu, tuple(pictures))


def run_file(path: str, cfg: RunConfig, models: ModelCache, admit: Admit = admit_all) -> TestRecord:
    """Run the test in file ``path`` as ``cfg`` says, with models from ``models``: the
    whole of it (reading, the model, the engine, pictures) within ``cfg.time_limit`` CPU
    seconds."""
    start = time.process_time()
    try:
        with CpuTimeLimit(cfg.time_limit):
            return _run_file(path, cfg, models, admit)
    except TimeLimitExceeded:  # when _run_file was already reporting another failure
        return Failed(path, dot_base(path), "timeout", timeout_line(path, cfg), _since(start))


def _run_file(path: str, cfg: RunConfig, models: ModelCache, admit: Admit) -> TestRecord:
    """:func:`run_file` inside its time limit's alarm."""
    start = time.process_time()  # herd's Time: from reading the test to its result
    name = dot_base(path)
    try:
        test = read_test(path)
        if isinstance(test, CLitmus):
            return _run_c(path, test, cfg, models, admit, start)
        name = test.name
        h = herd_hash(test)
        if not admit(path, test.name, h):
            return Skipped(path, test.name)
        test = apply_conds(test, cfg)
        loading = time.process_time()
        model = models.for_test(test)
        start += time.process_time() - loading  # loading a model is not the test's time
        outcome = run_test(test, model, cfg.run_options())
        cpu = time.process_time() - start
        facts = HeaderFacts(test.name, test.arch, h, herd_condition_text(test.condition))
        model_name = model.name or ""
        drawn = outcome.executions if cfg.execution_dots else outcome.witnesses
        pictures = (
            execution_pictures(
                drawn, test.name, model_name, outcome.observed, test.arch, cfg.picture
            )
            if cfg.pictures
            else []
        )
        return Done(path, facts, model_name, outcome, cpu, tuple(pictures))
    except InputError as e:
        return Failed(path, name, "input", e.render())
    except TimeLimitExceeded:
        return Failed(path, name, "timeout", timeout_line(path, cfg), _since(start))
    except MemoryError:
        pass  # reported below, once this handler has let go of the test's data
    except Exception as e:  # a bug, not bad input: one line for this test, never a traceback
        if os.environ.get("HERDSMAN_DEBUG"):
            raise
        return Failed(path, name, "internal", internal_error_line(path, e))
    gc.collect()  # what the test built, cycles included, before the next test
    return Failed(path, name, "memory", memory_line(path, cfg), _since(start))


def _since(start: float) -> float:
    return time.process_time() - start


def timeout_line(path: str, cfg: RunConfig) -> str:
    """The one line reporting a test over its time limit (herd prints no block for it)."""
    limit = f" of {cfg.time_limit:g} s" if cfg.time_limit is not None else ""
    return f"{path}:0:0: warning: time limit{limit} exceeded, no result"


def memory_line(path: str, cfg: RunConfig) -> str:
    """The one line reporting a test that ran out of memory (``--max-memory``)."""
    if cfg.memory_limit is None:
        return f"{path}:0:0: warning: out of memory, no result"
    return f"{path}:0:0: warning: memory limit of {cfg.memory_limit} MB exceeded, no result"


def internal_error_line(path: str, e: BaseException) -> str:
    """The one line reporting a bug met while running the test in ``path``."""
    msg = " ".join(str(e).split()) or type(e).__name__
    return (
        f"{path}:0:0: error: internal error ({type(e).__name__}: {msg}); "
        "set HERDSMAN_DEBUG=1 for a traceback"
    )


#: Tiny tests parsed once per worker, so that building the parsers (~0.2 s) is not
#: charged to the first test's time.
_WARM_UP = (
    "PPC W\n{\n0:r2=x;\n}\n P0 ;\n lwz r1,0(r2) ;\nexists (0:r1=0)\n",
    "X86 W\n{\n}\n P0 ;\n MOV EAX,[x] ;\nexists (0:EAX=0)\n",
)


def warm_up_parser() -> None:
    for text in _WARM_UP:
        try:
            parse_text(text, "<warm-up>")
        except InputError:
            pass  # only an optimisation
