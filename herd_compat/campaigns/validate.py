"""``herdsman validate``: run many tests and compare them with herd's answers.

Tests run on ``--jobs`` worker processes (the model is loaded once per worker), each limited
to ``--timeout`` seconds (the parent kills and replaces a worker that overruns), or on a dask
cluster: an existing one (``--scheduler ADDRESS``) or ``--dask-local N`` worker processes
(:mod:`dask_pool`, which explains what changes there: batches of tests, timeouts reported
but not stopped, dask's memory limit; any :class:`~workers.TaskPool` will do).  Results go
to an SQLite database as they arrive (one committed row per test), so a campaign stopped by
Ctrl-C or SIGKILL continues with ``--resume`` without redoing or losing a finished test,
whichever pool ran it.
The default database is ``.herdsman/validate-<model>-<fingerprint>.sqlite`` in the current
directory, where the fingerprint is a hash of the inputs (tests, model, expectations,
engine, variants).  One campaign at a time per database: a second one is refused while
the first runs (see :mod:`campaign_db`, which also checks every row's checksum).

A test whose worker process died (a signal, the OOM killer, a crash of the interpreter) is
run once more at once on a fresh worker; if that worker dies too, the test is stored as
*lost* (category ``error``, status ``lost``), and ``--resume`` runs it again (timeouts and
errors are kept: they would come out the same).

Exit status (:mod:`herd_compat.pipeline.status`): 0 when every test matches herd, 1 when
some do not (mismatch, missing expectation), 2 on input errors (in a test, the model, the
expectations, or the database: in use by another campaign, corrupt), else 3 when tests
ran out of time or memory; 3 also when tests were lost to dead workers or have no result
(the report is incomplete: run again with ``--resume``), whatever the other results.  A
dask cluster that cannot be reached or started, or that is lost, raises
:class:`~workers.ClusterError` (one line and exit status 2 on the command line).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from typing import IO

from herdsman.herd_compat.campaigns.campaign_db import CampaignDB, Row, readable
from herdsman.herd_compat.campaigns.journal_run import begin, incomplete_notes, tests_by_key
from herdsman.herd_compat.campaigns.pools import (
    Workers,
    kill_after,
    open_pool,
)
from herdsman.herd_compat.campaigns.reports import (
    Totals,
    mismatch_lines,
    summary_lines,
    totals,
    write_json,
    write_junit,
)
from herdsman.herd_compat.campaigns.worker import WorkerFactory, engine_worker, forked_from_here
from herdsman.herd_compat.campaigns.workers import (
    TaskLost,
    TaskPool,
    WorkerStartError,
    start_method_now,
)
from herdsman.herd_compat.formats.compare import compare
from herdsman.herd_compat.formats.dots import dot_base
from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.formats.herdlog import Expectation, detect_format, read_expectations
from herdsman.herd_compat.formats.outfiles import check_output_file
from herdsman.herd_compat.formats.results import RESULTS, result_expectations
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import RUN_LIMITS, Limits
from herdsman.herd_compat.pipeline.progress import ProgressBar
from herdsman.herd_compat.pipeline.run_file import Done, Failed
from herdsman.herd_compat.pipeline.status import BAD_INPUT, LIMIT, NEGATIVE, OK, worst
from herdsman.litmus.base.errors import InputError


@dataclass
class CampaignConfig:
    inputs: list[str]
    expect: str
    model: str | None = None
    expect_column: int = 0
    db: str | None = None
    resume: bool = False
    # --jobs local processes, or a dask cluster: an existing scheduler's address, or a
    # local cluster of N worker processes (the memory limit is then dask's)
    workers: Workers = field(default_factory=Workers)
    # per test (the engine stops cleanly; the pool kills a bit later), and each worker's
    # memory: a local worker's address space, a --dask-local worker's resident memory
    limits: Limits = RUN_LIMITS
    json_out: str | None = None
    junit_out: str | None = None
    engine: str = "auto"
    include_dirs: list[str] = field(default_factory=list)
    variants: set[str] = field(default_factory=set)
    bell: str | None = None  # herd's -bell
    macros: str | None = None  # herd's -macros
    progress: bool | None = None  # None: when stderr is a terminal
    show_mismatches: int = 50  # how many mismatches to describe (-1: all)


@dataclass
class CampaignOutcome:
    status: int
    rows: list[Row]
    totals: Totals | None
    db_path: str


def fingerprint(cfg: CampaignConfig, keys: list[str]) -> str:
    doc = {
        "model": cfg.model,
        "expect": cfg.expect if cfg.expect == RESULTS else os.path.realpath(cfg.expect),
        "column": cfg.expect_column,
        "engine": cfg.engine,
        "variants": sorted(cfg.variants),
        "include_dirs": cfg.include_dirs,
        "bell": cfg.bell,
        "macros": cfg.macros,
        "tests": sorted(keys),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def default_db_path(cfg: CampaignConfig, fp: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", os.path.basename(cfg.model or "default"))
    return os.path.join(".herdsman", f"validate-{slug}-{fp[:12]}.sqlite")


#: validate's progress bar: ``_Progress(enabled, total, done)``.
_Progress = partial(ProgressBar, "validate")


def run_campaign(
    cfg: CampaignConfig,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
    worker: WorkerFactory = engine_worker,
) -> CampaignOutcome:
    """Run the campaign ``cfg`` on workers made by ``worker``, print its summary and
    reports; its status, rows and totals."""
    out = out or sys.stdout
    err = err or sys.stderr
    for written, option in ((cfg.json_out, "--json"), (cfg.junit_out, "--junit")):
        if written is not None:
            check_output_file(written, option)
    given = tests_by_key(cfg.inputs)
    order = list(given)
    if cfg.expect == RESULTS:  # the tests' own Result: lines (the kernel's judgelitmus)
        expectations = result_expectations(given.values())
        expect_kind = "the tests' Result: lines"
    else:
        expectations = read_expectations(cfg.expect, cfg.expect_column)
        expect_kind = "herd7 log" if detect_format(_head(cfg.expect)) == "log" else "verdict table"
    fp = fingerprint(cfg, order)
    db_path = cfg.db or default_db_path(cfg, fp)
    db = CampaignDB(db_path)
    try:
        pool = _open_pool(cfg, worker)  # before start(): a cluster out of reach drops nothing
        try:
            todo = begin(db, fp, cfg.resume, order, err)
            wall0 = time.monotonic()
            done = len(order) - len(todo)
            _execute(cfg, pool, todo, given, expectations, db, err, len(order), done)
            wall = time.monotonic() - wall0
        finally:
            pool.close(kill_busy=True)  # after a normal run, nothing is busy
        rows = db.rows_of(order)
    finally:
        db.close()
    t = totals(rows, wall, pool.jobs)
    header = (
        f"herdsman validate: {len(rows)} tests, model {cfg.model or 'default per arch'}, "
        f"expectations {readable(cfg.expect)} ({expect_kind})"
    )
    report = summary_lines(t, header)
    bad = [r for r in rows if r.category != "identical"]
    limit = len(bad) if cfg.show_mismatches < 0 else cfg.show_mismatches
    if bad:
        # every error is described, whatever the cap: the exit status 2 is said why
        shown = bad[:limit] + [r for r in bad[limit:] if r.category == "error"]
        report.append("")
        report += mismatch_lines(shown)
        if len(bad) > len(shown):
            more = len(bad) - len(shown)
            report.append(f"... and {more} more (see the database {readable(db_path)})")
    out.write("\n".join(report) + "\n")
    out.flush()
    meta = {"model": cfg.model, "expect": cfg.expect, "database": db_path}
    if cfg.json_out:
        write_json(cfg.json_out, rows, t, meta)
    if cfg.junit_out:
        write_junit(cfg.junit_out, rows, t, f"herdsman.validate.{cfg.model or 'default'}")
    notes = incomplete_notes(rows, len(order), db_path)
    for note in notes:
        err.write(note + "\n")
    if notes:  # never a clean exit on a partial report
        status = LIMIT
    else:
        status = worst(_status(r.category) for r in rows)
    return CampaignOutcome(status, rows, t, db_path)


def _status(category: str) -> int:
    """A test's part of the exit status."""
    return {"identical": OK, "error": BAD_INPUT, "timeout": LIMIT}.get(category, NEGATIVE)


def _head(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read(4096)


def _open_pool(cfg: CampaignConfig, worker: WorkerFactory) -> TaskPool[Done | Failed]:
    """The workers of the campaign (:func:`pools.open_pool`)."""
    workers = cfg.workers
    run_cfg = RunConfig(
        model=cfg.model,
        include_dirs=list(cfg.include_dirs),
        variants=set(cfg.variants),
        bell=cfg.bell,
        macros=cfg.macros,
        engine=cfg.engine,
        limits=workers.process_limits(cfg.limits),  # each worker's (worker.py)
    )
    kill = kill_after(cfg.limits.time_limit)
    if not workers.on_dask:
        worker = forked_from_here(worker, run_cfg, start_method_now())
    return open_pool(workers, cfg.limits, worker, run_cfg, kill)


def _execute(
    cfg: CampaignConfig,
    pool: TaskPool[Done | Failed],
    todo: list[str],
    given: dict[str, str],
    expectations: dict[str, Expectation],
    db: CampaignDB,
    err: IO[str],
    total: int,
    done: int,
) -> None:
    """Run the tests still to do on ``pool``, recording each result as it arrives."""
    show = cfg.progress if cfg.progress is not None else err.isatty()
    progress = _Progress(show, total, done)
    counts = {"bad": 0}

    def on_result(key: str, res: Done | Failed | TaskLost) -> None:
        row = make_row(key, given[key], res, expectations, cfg.limits)
        db.record(row)
        if row.category != "identical":
            counts["bad"] += 1
        progress.advance(f"{counts['bad']} not identical")

    try:
        pool.run(todo, on_result)
    except WorkerStartError as e:
        raise InputError(cfg.model or "<model>", 0, 0, f"workers cannot start: {e}") from None
    finally:
        progress.stop()


def make_row(
    key: str,
    path: str,
    res: Done | Failed | TaskLost,
    expectations: dict[str, Expectation],
    limits: Limits = RUN_LIMITS,
) -> Row:
    """The database row of one finished test: our herd block compared with herd's, or the
    line saying why there is none."""
    name = dot_base(path) if isinstance(res, TaskLost) else res.name
    exp = expectations.get(name)
    herd_time = exp.record.time if exp is not None and exp.record is not None else None
    match res:
        case Done():
            block = res.herd_block()
            c = compare(block, exp)
            text = format_result(block)
            return Row(key, path, name, "done", c.category, text, c.details, res.cpu, herd_time)
        case Failed(kind="timeout") | TaskLost(cause="timeout"):
            cpu = res.cpu if isinstance(res, Failed) else None
            details: dict[str, object] = {"timeout": limits.time_limit}
            return Row(key, path, name, "timeout", "timeout", res.message, details, cpu, herd_time)
        case Failed(kind="memory"):  # like a timeout: a resource limit, no answer
            details = {"memory_limit": limits.memory_limit}
            msg, cpu = res.message, res.cpu
            return Row(key, path, name, "timeout", "timeout", msg, details, cpu, herd_time)
        case TaskLost(cause="died"):  # no answer: --resume runs it again
            details = {"input_error": False, "worker_died": True}
            return Row(key, path, name, "lost", "error", res.message, details, None, herd_time)
        case Failed(kind="input") | TaskLost(cause="input"):
            details = {"input_error": True}
        case _:
            details = {"input_error": False}
    return Row(key, path, name, "error", "error", res.message, details, None, herd_time)
