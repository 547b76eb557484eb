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
the witness search) to S CPU seconds.  Exit status: 0 when no test differs, 1 when some do,
2 on bad input (on the command line, or a test in error), 3 when tests have no result.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from herdsman.cat.api import Model, resolve_spec
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.outcome import Outcome
from herdsman.engine.reference.explain import Contrast, contrast, full_state
from herdsman.engine.reference.witness import RelationLens
from herdsman.herd_compat.args import Parser, UsageError
from herdsman.herd_compat.campaign_worker import warm_up_parser
from herdsman.herd_compat.config import RunConfig
from herdsman.herd_compat.diff_db import DiffDB, DiffRow
from herdsman.herd_compat.dots import check_outdir, dot_base, write_file
from herdsman.herd_compat.explain import (
    execution_json,
    execution_lines,
    witness_dot,
    witness_json,
    witness_lines,
)
from herdsman.herd_compat.herd7opts import variant_options
from herdsman.herd_compat.journal_rows import readable
from herdsman.herd_compat.journal_run import begin, incomplete_notes, tests_by_key
from herdsman.herd_compat.limits import (
    DEFAULT_WORKER_MB,
    CpuTimeLimit,
    limit_memory,
)
from herdsman.herd_compat.models import ModelCache, resolve_model_spec
from herdsman.herd_compat.output import state_lines
from herdsman.herd_compat.pipeline import Done, Failed, Skipped, read_test, run_file
from herdsman.herd_compat.pools import Workers, add_worker_options, open_pool, workers_of
from herdsman.herd_compat.progress import ProgressBar
from herdsman.herd_compat.workers import ClusterError, TaskLost, TaskPool, WorkerStartError
from herdsman.litmus.c import CLitmus, lower_c_litmus, target_for_model
from herdsman.litmus.errors import InputError
from herdsman.litmus.ir import Program
from herdsman.litmus.lower import lower
from herdsman.litmus.source import MAX_MODEL_BYTES, read_bytes

__all__ = [
    "GROUPS",
    "DiffConfig",
    "DiffOutcome",
    "DiffWorkerConfig",
    "TestDiff",
    "classify",
    "diff_worker",
    "main",
    "run_diff",
]

#: The groups of tests, in report order, with their headings ({A} and {B}: the models).
GROUPS: dict[str, str] = {
    "identical": "same answers",
    "a-allows": "{A} allows, {B} forbids",
    "b-allows": "{B} allows, {A} forbids",
    "both-allow": "both allow, states differ",
    "both-forbid": "both forbid, states differ",
    "counts": "same states, counts differ",
    "other": "other differences (verdict, flags)",
    "error": "errors (bad input)",
    "noresult": "no result (timeout, memory, lost)",
}
#: The groups of tests whose answers differ.
DIFFERENT = ("a-allows", "b-allows", "both-allow", "both-forbid", "counts", "other")
#: How many of a difference's states are tried for a witness.
WITNESS_TRIES = 3


# ----------------------------------------------------------------------------- workers


@dataclass(frozen=True)
class DiffWorkerConfig:
    """What each worker needs (picklable): the two models and the run's options."""

    a: str
    b: str
    include_dirs: tuple[str, ...] = ()
    variants: frozenset[str] = frozenset()
    engine: str = "auto"
    time_limit: float | None = None
    memory_limit: int | None = DEFAULT_WORKER_MB

    def run_config(self, model: str) -> RunConfig:
        return RunConfig(
            model=model,
            include_dirs=list(self.include_dirs),
            variants=set(self.variants),
            engine=self.engine,
            time_limit=self.time_limit,
            memory_limit=self.memory_limit,
        )


@dataclass(frozen=True)
class TestDiff:
    """A test's two results compared: its status (``done``, ``error``, ``timeout``), its
    group, and the details (both results, the witness, the error line) as JSON data."""

    path: str
    name: str
    status: str
    group: str
    details: dict[str, Any]
    cpu: float | None = None


def _summary(rec: Done) -> dict[str, Any]:
    """One model's result on a test, as JSON data."""
    out = rec.outcome
    block = rec.herd_block()
    arch = rec.test.arch
    states = {}
    satisfying = []
    for st, c in out.states.items():
        line = state_lines(out.observed, [st], arch)[0]
        states[line] = c.executions
        if c.satisfies:
            satisfying.append(line)
    return {
        "verdict": block.verdict_line,
        "kind": block.kind,
        "condition": block.condition,
        "states": dict(sorted(states.items())),
        "satisfying": sorted(satisfying),
        "positive": out.positive,
        "negative": out.negative,
        "flags": sorted(out.flags),
        "cpu": rec.cpu,
    }


def classify(a: Outcome, b: Outcome, verdict_a: str, verdict_b: str) -> str:
    """The group of a test whose two outcomes are ``a`` and ``b`` (see the module
    docstring)."""
    sa = {st: c.executions for st, c in a.states.items()}
    sb = {st: c.executions for st, c in b.states.items()}
    if sa == sb and verdict_a == verdict_b and a.flags == b.flags:
        return "identical"
    pa, pb = a.positive > 0, b.positive > 0
    if pa != pb:
        return "a-allows" if pa else "b-allows"
    if set(sa) != set(sb):
        return "both-allow" if pa else "both-forbid"
    if sa != sb:
        return "counts"
    return "other"


def _disputed(group: str, a: Outcome, b: Outcome) -> list[tuple[tuple, str]]:
    """States on which the models disagree, most telling first, each with the model
    (``a`` or ``b``) that allows more executions giving it."""
    sa = {st: c for st, c in a.states.items()}
    sb = {st: c for st, c in b.states.items()}
    only_a = [st for st in sa if st not in sb]
    only_b = [st for st in sb if st not in sa]
    if group == "a-allows":
        return [(st, "a") for st in sorted(only_a, key=lambda s: not sa[s].satisfies)]
    if group == "b-allows":
        return [(st, "b") for st in sorted(only_b, key=lambda s: not sb[s].satisfies)]
    if group in ("both-allow", "both-forbid"):
        return [(st, "a") for st in only_a] + [(st, "b") for st in only_b]
    if group == "counts":
        return [
            (st, "a" if sa[st].executions > sb[st].executions else "b")
            for st in sa
            if st in sb and sa[st].executions != sb[st].executions
        ]
    return []


class _Worker:
    """One worker's state: both models (loaded once), their lenses."""

    def __init__(self, cfg: DiffWorkerConfig) -> None:
        self.cfg = cfg
        self.run_a = cfg.run_config(cfg.a)
        self.run_b = cfg.run_config(cfg.b)
        self.models_a = ModelCache(self.run_a)
        self.models_b = ModelCache(self.run_b)
        self.lenses: dict[Model, RelationLens] = {}
        # loaded once, outside any test's time limit (the pool bounds a worker's start)
        self.models_a.get(cfg.a)
        self.models_b.get(cfg.b)

    def lens(self, model: Model) -> RelationLens:
        got = self.lenses.get(model)
        if got is None:
            got = self.lenses[model] = RelationLens(model)
        return got

    def __call__(self, path: str) -> TestDiff:
        start = time.process_time()
        ra = run_file(path, self.run_a, self.models_a)
        rb = run_file(path, self.run_b, self.models_b)
        assert not isinstance(ra, Skipped) and not isinstance(rb, Skipped)
        name = ra.name if isinstance(ra, Done) else rb.name
        details: dict[str, Any] = {}
        if isinstance(ra, Failed) or isinstance(rb, Failed):
            failed = [r for r in (ra, rb) if isinstance(r, Failed)]
            no_result = any(r.kind in ("timeout", "memory") for r in failed)
            details["errors"] = {
                k: r.message for k, r in (("a", ra), ("b", rb)) if isinstance(r, Failed)
            }
            for k, r in (("a", ra), ("b", rb)):
                if isinstance(r, Done):
                    details[k] = _summary(r)
            status = "timeout" if no_result else "error"
            group = "noresult" if no_result else "error"
            return TestDiff(path, name, status, group, details, time.process_time() - start)
        details["a"] = _summary(ra)
        details["b"] = _summary(rb)
        group = classify(ra.outcome, rb.outcome, details["a"]["verdict"], details["b"]["verdict"])
        if group in DIFFERENT:
            details["witness"] = self.witness(path, ra, rb, group)
        return TestDiff(path, name, "done", group, details, time.process_time() - start)

    def witness(self, path: str, ra: Done, rb: Done, group: str) -> dict[str, Any]:
        """An execution on which the two models disagree (see :func:`contrast`), as JSON
        data with its text and picture; or why there is none."""
        cfg = self.cfg
        try:
            with CpuTimeLimit(cfg.time_limit):
                test = read_test(path)
                if isinstance(test, CLitmus):
                    ta, tb = target_for_model(cfg.a), target_for_model(cfg.b)
                    if ta != tb:
                        return {"none": f"the models lower C differently ({ta}, {tb})"}
                    program_a: Program = lower_c_litmus(test, ta)
                    model_a, model_b = self.models_a.get(cfg.a), self.models_b.get(cfg.b)
                else:
                    program_a = lower(test)
                    model_a, model_b = self.models_a.for_test(test), self.models_b.for_test(test)
                out = ra.outcome
                for st, who in _disputed(group, ra.outcome, rb.outcome)[:WITNESS_TRIES]:
                    allow, forbid = (model_a, model_b) if who == "a" else (model_b, model_a)
                    state = full_state(out.observed, st)
                    found = contrast(program_a, allow, forbid, state, self.lens(forbid))
                    if found is not None:
                        return _witness_doc(found, st, who, ra, cfg)
        except TimeLimitExceeded:
            return {"none": "the witness search ran out of time (--timeout)"}
        except InputError as e:
            return {"none": f"no witness: {e.render()}"}
        return {"none": "no single execution is allowed by one model and rejected by the other"}


def _witness_doc(
    found: Contrast, st: tuple, who: str, rec: Done, cfg: DiffWorkerConfig
) -> dict[str, Any]:
    rels, j = found.rels, found.judgement
    arch = rec.test.arch
    state = state_lines(rec.outcome.observed, [st], arch)[0]
    allowing, rejecting = (cfg.a, cfg.b) if who == "a" else (cfg.b, cfg.a)
    w = j.witness
    text = execution_lines(rels, "      ")
    if w is not None:
        text += witness_lines(w, rels, "      ")
    axiom = j.axiom or "a co or with choice of the model"
    caption = f"{state} allowed by {allowing}, rejected by {rejecting} (check {axiom})"
    return {
        "state": state,
        "allowed_by": who,
        "allowing": allowing,
        "rejecting": rejecting,
        "axiom": axiom,
        "text": text,
        "execution": execution_json(rels),
        **({} if w is None else {"witness": witness_json(w, rels)}),
        "dot": witness_dot(rels, rec.test.name, os.path.basename(rejecting), caption, w),
    }


def diff_worker(cfg: DiffWorkerConfig) -> Callable[[str], TestDiff]:
    """A worker's task function (built once per worker process): both models loaded,
    memory bounded (a test beyond it fails alone)."""
    work = _Worker(cfg)
    warm_up_parser()
    limit_memory(cfg.memory_limit)
    return work


# ----------------------------------------------------------------------------- the run


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
    timeout: float | None = None
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
        "timeout": cfg.timeout,
        "tests": sorted(keys),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", os.path.basename(spec))


def default_db_path(cfg: DiffConfig, fp: str) -> str:
    return os.path.join(".herdsman", f"diff-{_slug(cfg.a)}-{_slug(cfg.b)}-{fp[:12]}.sqlite")


def labels(a: str, b: str) -> tuple[str, str]:
    """How the report names the models: as given, or A and B when that is ambiguous."""
    la, lb = os.path.basename(a), os.path.basename(b)
    if la == lb:
        return f"A ({a})", f"B ({b})"
    return la, lb


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


def _grace(timeout: float) -> float:
    """Extra wall time before the parent kills a worker the engine did not stop."""
    return min(5.0, max(0.5, 0.2 * timeout))


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
        time_limit=cfg.timeout,
        memory_limit=cfg.workers.process_memory,
    )
    # three stages of at most --timeout CPU seconds each, then the pool kills the worker
    kill_after = None if cfg.timeout is None else 3 * cfg.timeout + _grace(cfg.timeout)
    pool: TaskPool[TestDiff] = open_pool(cfg.workers, worker, wcfg, kill_after)
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
    files = _write_pictures(cfg.outdir, rows) if cfg.outdir else {}
    out.write("\n".join(report_lines(cfg, rows, wall, db_path, files)) + "\n")
    out.flush()
    if cfg.json_out:
        write_json(cfg, rows, wall, db_path, files)
    for note in incomplete_notes(rows, len(order), db_path):
        err.write(note + "\n")
    if len(rows) < len(order) or any(r.group == "noresult" for r in rows):
        status = 3
    elif any(r.group == "error" for r in rows):
        status = 2
    elif any(r.group in DIFFERENT for r in rows):
        status = 1
    else:
        status = 0
    return DiffOutcome(status, rows, db_path)


def _write_pictures(outdir: str, rows: Sequence[DiffRow]) -> dict[str, str]:
    """``DIR/<test>-diff.dot`` for each difference with a witness: test key -> file."""
    files = {}
    for r in rows:
        w = r.details.get("witness") or {}
        if "dot" in w:
            target = os.path.join(outdir, f"{dot_base(r.path)}-diff.dot")
            write_file(target, w["dot"])
            files[r.key] = target
    return files


# ----------------------------------------------------------------------------- reports


def _heading(group: str, la: str, lb: str) -> str:
    return GROUPS[group].format(A=la, B=lb)


def report_lines(
    cfg: DiffConfig, rows: Sequence[DiffRow], wall: float, db_path: str, files: dict[str, str]
) -> list[str]:
    """The summary table, then the differing tests by group with their witnesses."""
    la, lb = labels(cfg.a, cfg.b)
    counts = {g: 0 for g in GROUPS}
    for r in rows:
        counts[r.group] = counts.get(r.group, 0) + 1
    lines = [f"herdsman diff: A = {cfg.a}, B = {cfg.b}; {len(rows)} tests"]
    width = max(len(_heading(g, la, lb)) for g in GROUPS) + 2
    lines.append(f"{'group':<{width}}{'tests':>7}")
    for g in GROUPS:
        lines.append(f"{_heading(g, la, lb):<{width}}{counts.get(g, 0):>7}")
    lines.append(f"{'total':<{width}}{len(rows):>7}")
    cpu = sum(r.cpu or 0.0 for r in rows)
    on = cfg.workers.describe()
    lines.append(f"CPU time {cpu:.2f} s; wall {wall:.1f} s with {on}; journal {db_path}")
    limit = cfg.show
    for g in (*DIFFERENT, "error", "noresult"):
        members = [r for r in rows if r.group == g]
        if not members:
            continue
        lines.append("")
        lines.append(f"{_heading(g, la, lb)} ({len(members)}):")
        for r in members if limit < 0 else members[:limit]:
            lines += _test_lines(r, la, lb, files)
        if 0 <= limit < len(members):
            lines.append(f"  ... and {len(members) - limit} more (--show {limit}; --json has all)")
    return lines


def _test_lines(r: DiffRow, la: str, lb: str, files: dict[str, str]) -> list[str]:
    d = r.details
    out = [f"  {readable(r.name)} ({readable(r.path)})"]
    if "errors" in d:
        for who, msg in d["errors"].items():
            label = {"a": la, "b": lb}.get(who, "")
            out.append(f"    {label + ': ' if label else ''}{readable(msg)}")
        return out
    a, b = d["a"], d["b"]
    out[0] += f": {la} {a['verdict']} ({a['positive']}+{a['negative']}), "
    out[0] += f"{lb} {b['verdict']} ({b['positive']}+{b['negative']})"
    for who, mine, other in (("a", a, b), ("b", b, a)):
        extra = [s for s in mine["states"] if s not in other["states"]]
        if extra:
            label = la if who == "a" else lb
            out.append(f"    only {label}: " + "  ".join(extra))
    w = d.get("witness")
    if w is None:
        return out
    if "none" in w:
        out.append(f"    ({w['none']})")
        return out
    out.append(
        f"    witness: {w['state']} allowed by {w['allowing']}, rejected by "
        f"{w['rejecting']} (check {w['axiom']}):"
    )
    out += w["text"]
    if r.key in files:
        out.append(f"    picture: {files[r.key]}")
    return out


def write_json(
    cfg: DiffConfig, rows: Sequence[DiffRow], wall: float, db_path: str, files: dict[str, str]
) -> None:
    counts = {g: sum(1 for r in rows if r.group == g) for g in GROUPS}
    doc = {
        "a": cfg.a,
        "b": cfg.b,
        "journal": db_path,
        "summary": counts,
        "tests_total": len(rows),
        "cpu": round(sum(r.cpu or 0.0 for r in rows), 4),
        "wall": round(wall, 3),
        "jobs": cfg.workers.jobs,
        "workers": cfg.workers.describe(),
        "tests": [
            {
                "name": readable(r.name),
                "path": readable(r.path),
                "status": r.status,
                "group": r.group,
                "cpu": r.cpu,
                **r.details,
                **({"picture": files[r.key]} if r.key in files else {}),
            }
            for r in rows
        ],
    }
    try:
        with open(cfg.json_out or "", "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    except OSError as e:
        raise InputError(cfg.json_out or "", 0, 0, f"cannot write: {e.strerror}") from None


# ----------------------------------------------------------------------------- command line


def parser() -> Parser:
    from herdsman.engine.options import ENGINES

    p = Parser(
        prog="herdsman diff",
        description="run two models on many tests and report where their answers differ, "
        "each difference with an execution one model allows and the other forbids and the "
        "check that forbids it. Results go to an SQLite journal as they come (default "
        ".herdsman/diff-<A>-<B>-<inputs hash>.sqlite); --resume continues a stopped run. "
        "Exit 0: no difference, 1: differences, 2: bad input, 3: tests without a result.",
    )
    p.add_argument("a", metavar="A", help="a model: built-in name or .cat file")
    p.add_argument("b", metavar="B", help="the other model")
    p.add_argument("inputs", nargs="+", metavar="TESTS", help="litmus files, @index files, dirs")
    p.add_argument("--db", metavar="FILE", help="the journal (SQLite)")
    p.add_argument("--resume", action="store_true", help="skip tests already in the journal")
    p.add_argument("--json", dest="json_out", metavar="FILE", help="write everything as JSON")
    p.add_argument("-o", "--outdir", metavar="DIR", help="a DOT picture of each witness")
    p.add_argument(
        "--timeout", type=float, metavar="S", help="CPU seconds per model run and witness"
    )
    p.add_argument("--engine", choices=ENGINES, default="auto")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    p.add_argument("--variant", action="append", default=[], metavar="V")
    p.add_argument(
        "--show",
        type=int,
        default=20,
        metavar="N",
        help="describe at most N tests of each group (default 20; -1: all)",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: when stderr is a terminal)",
    )
    add_worker_options(p)
    return p


def main(argv: Sequence[str]) -> int:
    """``herdsman diff``'s entry point (errors are the caller's: ``cli.guarded``)."""
    a = parser().parse_args(list(argv))
    workers = workers_of(a)
    if a.timeout is not None and a.timeout <= 0:
        raise UsageError("--timeout must be positive")
    cfg = DiffConfig(
        a=a.a,
        b=a.b,
        inputs=a.inputs,
        workers=workers,
        db=a.db,
        resume=a.resume,
        json_out=a.json_out,
        outdir=a.outdir,
        timeout=a.timeout,
        engine=a.engine,
        include_dirs=a.include,
        variants=variant_options(a.variant),
        progress=a.progress,
        show=a.show,
    )
    try:
        return run_diff(cfg).status
    except ClusterError as e:  # not reached, not started, or lost: one line, exit 2
        raise UsageError(str(e)) from None
    except KeyboardInterrupt:
        sys.stderr.write("interrupted: finished tests are in the journal; continue with --resume\n")
        return 130
