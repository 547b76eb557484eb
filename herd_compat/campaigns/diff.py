"""``herdsman diff A B TESTS...``: where two models give different answers, and why.

Both models run on every test (files, directories, herd's ``@index`` files) on ``--jobs``
worker processes (:class:`~herd_compat.workers.WorkerPool`); each worker loads both models
once and runs each test's pipeline (:func:`~herd_compat.pipeline.run_file`) twice.  A test
whose verdict, final states or counts differ gets a *witness*: an execution giving a
state on which the models disagree, allowed by one and rejected by the other, with the
first check of the rejecting model that rejects it and that check's cycle
(:func:`engine.reference.explain.contrast`, ``herdsman explain``'s core).  Results go to an
SQLite journal as they arrive (:mod:`herd_compat.diff_db`: one committed row per test,
``--resume`` skips the finished ones), with a progress bar on a terminal.

The tests that differ are grouped:

* ``a-allows``: A allows the condition's proposition (some allowed execution satisfies
  it), B does not; ``b-allows``: the other way round;
* ``both-allow``/``both-forbid``: both (neither) allow it, but the final states differ;
* ``counts``: the same final states, other execution counts;
* ``other``: the same states and counts, another verdict or flags.

Tests without an answer are ``error`` (bad input under a model: a parse error, an
architecture the model refuses) or ``noresult`` (``--timeout``, ``--max-memory``, a worker
that died twice).  ``--timeout S`` limits each of a test's three stages (A's run, B's run,
the witness search) to S CPU seconds.  Exit status (:mod:`herd_compat.pipeline.status`):
0 when no test differs, 1 when some do, 2 on bad input (on the command line, or a test in
error), else 3 when tests have no result; 3 also when the journal is incomplete (tests
lost to dead workers), whatever else.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from herdsman.cat.api import resolve_spec
from herdsman.herd_compat.analyses.diff import (
    DIFFERENT,
    DiffWorkerConfig,
    TestDiff,
    diff_worker,
)
from herdsman.herd_compat.campaigns.diff_db import DiffDB, DiffRow
from herdsman.herd_compat.campaigns.diff_report import report_lines, write_json, write_pictures
from herdsman.herd_compat.campaigns.journal_run import begin, incomplete_notes, tests_by_key
from herdsman.herd_compat.campaigns.pools import Workers, kill_after, open_pool
from herdsman.herd_compat.campaigns.workers import (
    TaskLost,
    TaskPool,
    WorkerStartError,
)
from herdsman.herd_compat.formats.dots import check_outdir, dot_base
from herdsman.herd_compat.pipeline.limits import RUN_LIMITS, Limits
from herdsman.herd_compat.pipeline.models import resolve_model_spec
from herdsman.herd_compat.pipeline.progress import ProgressBar
from herdsman.herd_compat.pipeline.status import BAD_INPUT, LIMIT, NEGATIVE, OK, worst
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import MAX_MODEL_BYTES, read_bytes

# ----------------------------------------------------------------------------- workers


@dataclass
class DiffConfig:
    """``herdsman diff``'s options."""

    a: str
    b: str
    inputs: list[str]
    workers: Workers = field(default_factory=Workers)  # --jobs, or a dask cluster
    db: str | None = None
    resume: bool = False
    json_out: str | None = None
    outdir: str | None = None
    # each of a test's three stages, and each worker's memory
    limits: Limits = RUN_LIMITS
    engine: str = "auto"
    include_dirs: list[str] = field(default_factory=list)
    variants: set[str] = field(default_factory=set)
    progress: bool | None = None  # None: when stderr is a terminal
    show: int = 20  # how many tests of each group to describe (-1: all)


@dataclass
class DiffOutcome:
    status: int
    rows: list[DiffRow]
    db_path: str


def _model_digest(spec: str, include_dirs: list[str]) -> str:
    """The model's file, resolved as the workers will, and its contents' hash."""
    path = str(resolve_spec(resolve_model_spec(spec, include_dirs)))
    # a regular file of at most MAX_MODEL_BYTES, as cat reads it (never /dev/zero to the end)
    digest = hashlib.sha256(read_bytes(path, MAX_MODEL_BYTES, "cat files")).hexdigest()
    return f"{os.path.realpath(path)}:{digest}"


def fingerprint(cfg: DiffConfig, keys: list[str]) -> str:
    doc = {
        "a": [cfg.a, _model_digest(cfg.a, cfg.include_dirs)],
        "b": [cfg.b, _model_digest(cfg.b, cfg.include_dirs)],
        "engine": cfg.engine,
        "variants": sorted(cfg.variants),
        "include_dirs": cfg.include_dirs,
        "timeout": cfg.limits.time_limit,
        "tests": sorted(keys),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", os.path.basename(spec))


def default_db_path(cfg: DiffConfig, fp: str) -> str:
    return os.path.join(".herdsman", f"diff-{_slug(cfg.a)}-{_slug(cfg.b)}-{fp[:12]}.sqlite")


def make_row(key: str, path: str, res: TestDiff | TaskLost) -> DiffRow:
    """The journal row of one finished test."""
    if isinstance(res, TestDiff):
        return DiffRow(key, path, res.name, res.status, res.group, res.details, res.cpu)
    name = dot_base(path)
    details = {"errors": {"test": res.message}}
    if res.cause == "timeout":
        return DiffRow(key, path, name, "timeout", "noresult", details)
    if res.cause == "died":  # no answer: --resume runs it again
        return DiffRow(key, path, name, "lost", "noresult", details)
    return DiffRow(key, path, name, "error", "error", details)


def _execute(
    cfg: DiffConfig,
    todo: list[str],
    given: dict[str, str],
    db: DiffDB,
    err: IO[str],
    total: int,
    done: int,
    worker: Callable[[DiffWorkerConfig], Callable[[str], TestDiff]],
) -> None:
    wcfg = DiffWorkerConfig(
        a=cfg.a,
        b=cfg.b,
        include_dirs=tuple(cfg.include_dirs),
        variants=frozenset(cfg.variants),
        engine=cfg.engine,
        limits=cfg.workers.process_limits(cfg.limits),
    )
    # three stages of at most --timeout CPU seconds each, then the pool kills the worker
    kill = kill_after(cfg.limits.time_limit, stages=3)
    pool: TaskPool[TestDiff] = open_pool(cfg.workers, cfg.limits, worker, wcfg, kill)
    show = cfg.progress if cfg.progress is not None else err.isatty()
    progress = ProgressBar("diff", show, total, done)
    counts = {"differ": 0}

    def on_result(key: str, res: TestDiff | TaskLost) -> None:
        row = make_row(key, given[key], res)
        db.record(row)
        if row.group in DIFFERENT:
            counts["differ"] += 1
        progress.advance(f"{counts['differ']} differ")

    try:
        pool.run(todo, on_result)
    except WorkerStartError as e:
        raise InputError(f"{cfg.a} / {cfg.b}", 0, 0, f"workers cannot start: {e}") from None
    finally:
        progress.stop()


def run_diff(
    cfg: DiffConfig,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
    worker: Callable[[DiffWorkerConfig], Callable[[str], TestDiff]] = diff_worker,
) -> DiffOutcome:
    """Run ``herdsman diff`` as ``cfg`` says: the journal's rows and the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    check_outdir(cfg.outdir)
    if cfg.outdir == "-":
        raise InputError("-", 0, 0, "diff writes pictures to a directory: give -o DIR")
    given = tests_by_key(cfg.inputs)
    order = list(given)
    fp = fingerprint(cfg, order)
    db_path = cfg.db or default_db_path(cfg, fp)
    db = DiffDB(db_path)
    try:
        todo = begin(db, fp, cfg.resume, order, err)
        wall0 = time.monotonic()
        _execute(cfg, todo, given, db, err, len(order), len(order) - len(todo), worker)
        wall = time.monotonic() - wall0
        rows = db.rows_of(order)
    finally:
        db.close()
    files = write_pictures(cfg.outdir, rows) if cfg.outdir else {}
    out.write("\n".join(report_lines(cfg, rows, wall, db_path, files)) + "\n")
    out.flush()
    if cfg.json_out:
        write_json(cfg, rows, wall, db_path, files)
    for note in incomplete_notes(rows, len(order), db_path):
        err.write(note + "\n")
    if len(rows) < len(order) or any(r.status == "lost" for r in rows):
        status = LIMIT  # never a clean exit on a partial journal
    else:
        status = worst(_status(r.group) for r in rows)
    return DiffOutcome(status, rows, db_path)


def _status(group: str) -> int:
    """A test's part of the exit status."""
    if group in DIFFERENT:
        return NEGATIVE
    return {"error": BAD_INPUT, "noresult": LIMIT}.get(group, OK)
