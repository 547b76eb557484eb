"""RSMC (``engine/rsmc``) measured: the RSMC paper's POWER families, herd's POWER campaign,
the tests herd7 is slowest on, and the rule behind ``--engine auto``.

Five modes; without any, ``--families --slow --auto --x86`` run (``--campaign`` is long and
runs only when asked):

``--families``
    The RSMC paper's Fig. 11 with syncs (N = 0..10) and without (N = 0..``--max-n``), and
    SB+NW with syncs (N = 0..``--max-n-sbnw``), as PPC litmus tests
    (``bench/power_families.py``) under ``power``.  Per row: RSMC's traces, the expected
    count (Fig. 11: 3 with syncs, C(2N, N) + 3 without; SB+NW with syncs: 3 C(2N, N)), its
    blocked runs, CPU time and peak memory; the reference engine's count, time and peak
    memory beside it; Nidhugg's and herd7's figures recorded in
    ``$SHARED/anchors/README.md``, marked ``(recorded)``.  Each engine runs each row in a
    fresh subprocess (its own peak RSS, ``ru_maxrss``) within ``--timeout`` seconds (a
    series stops running an engine after its first timeout).  Each series ends with
    "memory flat in N: yes/no" for RSMC, by the rule of :func:`memory_flat`.
``--campaign``
    The 8141 POWER tests with RSMC under each of ``--models`` on ``--jobs`` worker
    processes (``multiprocessing.Pool``, the model loaded once per worker), each test
    compared with herd7's log by the project's own comparison
    (:func:`herd_compat.compare.compare`: verdict, states, positive/negative counts,
    hash), and RSMC's statistics checked: complete traces = positive + negative (every
    allowed execution explored once), no duplicate trace (``track_duplicates``).  Totals:
    tests identical, mismatches (the first 20 described), runs, blocked runs and their
    share (the paper's target: at most 10 %), CPU time and its ratio to herd7's ``Time``
    lines.  ``--sample K`` runs K tests spread over the set.
``--slow``
    The campaign's tests herd7 took over 1 s (its log's ``Time`` lines): RSMC's CPU time
    beside the reference engine's and herd7's, per test and in total, whether the two
    engines agree (and RSMC with herd7's log).
``--x86``
    Every X86 test (``x86/tests`` and ``x86/generated``) under ``tso``, ``pso`` and
    ``sc``: RSMC (commit-before order ``po``) against TruSt and the reference engine,
    states and execution counts, and no trace explored twice.
``--auto``
    The measurement behind ``engine/choice.py``: for the families (N = 0..``--auto-max-n``)
    and ``--auto-sample`` campaign tests, herd's candidate space
    (:func:`engine.choice.candidate_space`, log10), RSMC's time, the reference engine's,
    and ``--engine auto``'s (which engine it ran, whether RSMC gave up), and the faster
    engine.  Summary: the largest candidate space of the whole campaign (against
    ``RSMC_FROM``), for each family the N from which RSMC wins, and auto's time against
    the better engine's.

Usage::

    .venv/bin/python bench/bench_rsmc.py                        # families, slow, auto
    .venv/bin/python bench/bench_rsmc.py --families --max-n 8 --timeout 60
    .venv/bin/python bench/bench_rsmc.py --campaign --sample 300
    .venv/bin/python bench/bench_rsmc.py --campaign             # 8141 tests, both models
    .venv/bin/python bench/bench_rsmc.py --slow --auto --jobs 2

CPU times are ``time.process_time()`` of the exploration (the test read and the model
loaded before, except in the campaign, where a test's time runs from reading it to its
result, as herd's ``Time`` and ``herdsman validate``'s).  Needs ../shared (or
$HERDSMAN_SHARED): skipped with a message, exit status 0, when absent.  Exit status 1
when a count or an outcome disagrees (with the expected count, between the engines, with
herd7's log or Nidhugg's recorded count), 0 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = Path(os.environ.get("HERDSMAN_SHARED", ROOT.parent / "shared")).resolve()
TESTS = SHARED / "power" / "tests"
INDEX = TESTS / "@all"
HERD_LOG = SHARED / "power" / "herd7-ppc.log"
ANCHORS = SHARED / "anchors" / "README.md"
DEFAULT_MODELS = f"power,{SHARED / 'herd-cat' / 'ppc.cat'}"

if TYPE_CHECKING:
    from herdsman.engine.outcome import Outcome
    from herdsman.herd_compat.formats.herd_block import HerdBlock

sys.path.insert(0, str(HERE))  # power_families, when run from elsewhere
from power_families import fig11, sbnw  # noqa: E402

#: Memory-flatness rule (:func:`memory_flat`): every N's peak within this factor of the
#: N = 0 peak, plus this slack in MB.
FLAT_FACTOR = 1.5
FLAT_SLACK_MB = 10.0


# ----------------------------------------------------------------------------- families


@dataclass(frozen=True)
class Series:
    """One family of the RSMC paper: its test and its expected count for each N."""

    key: str  # fig11+syncs | fig11 | sbnw+syncs
    title: str
    make: Callable[[int, bool], str]
    sync: bool
    expected: Callable[[int], int]

    def text(self, n: int) -> str:
        return self.make(n, self.sync)


SERIES = {
    "fig11+syncs": Series("fig11+syncs", "Fig. 11 with syncs", fig11, True, lambda n: 3),
    "fig11": Series(
        "fig11", "Fig. 11 without syncs", fig11, False, lambda n: math.comb(2 * n, n) + 3
    ),
    "sbnw+syncs": Series(
        "sbnw+syncs", "SB+NW with syncs", sbnw, True, lambda n: 3 * math.comb(2 * n, n)
    ),
}


def states_digest(outcome: Outcome, arch: str) -> str:
    """A short digest of an outcome's final states (herd's state lines) and counts."""
    from herdsman.herd_compat.formats.herd_block import state_lines

    lines = sorted(state_lines(outcome.observed, outcome.states, arch))
    text = "\n".join(lines) + f"\n{outcome.positive}/{outcome.negative}"
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def one_row(key: str, n: int, engine: str, model_spec: str, timeout: float) -> dict[str, Any]:
    """Run one family row with one engine in this process (``--one``): counts, a digest
    of the outcome, CPU s of the exploration, the process's peak RSS (MB)."""
    from herdsman.cat.api import load_model
    from herdsman.engine.errors import TimeLimitExceeded
    from herdsman.engine.rsmc.run import explore_program
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.litmus.lower import lower
    from herdsman.litmus.parser import parse_text

    s = SERIES[key]
    test = parse_text(s.text(n), f"{key}-{n}.litmus")
    model = load_model(model_spec)
    assert model.axioms is not None  # compiled before the timing
    out: dict[str, Any] = {}
    t0 = time.process_time()
    try:
        if engine == "rsmc":
            run = explore_program(lower(test), model, RunOptions(engine="rsmc", time_limit=timeout))
            outcome = run.result
            out.update(
                count=run.stats.complete,
                blocked=run.stats.blocked,
                runs=int(run.stats.extra["runs"]),
            )
        else:
            outcome = run_program(lower(test), model, RunOptions(engine=engine, time_limit=timeout))
            out.update(count=outcome.positive + outcome.negative)
    except TimeLimitExceeded:
        return {"timeout": True, "cpu": time.process_time() - t0}
    except MemoryError:
        return {"memory": True, "cpu": time.process_time() - t0}
    out["cpu"] = time.process_time() - t0
    out["pn"] = outcome.positive + outcome.negative
    out["digest"] = states_digest(outcome, test.arch)
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
    return out


def run_row(
    key: str, n: int, engine: str, model: str, timeout: float, memory_mb: int
) -> dict[str, Any]:
    """:func:`one_row` in a fresh subprocess (its own peak memory), within ``timeout``
    CPU seconds (and a little more wall time)."""
    cmd = [sys.executable, __file__, "--one", key, str(n), engine, model]
    cmd += ["--timeout", str(timeout), "--memory", str(memory_mb)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        return {"timeout": True}
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"exit {done.returncode}: {tail}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


class Anchors:
    """Figures recorded in ``anchors/README.md``: Nidhugg's (POWER mode) and herd7's."""

    #: README table title -> our series key
    TABLES = {"RSMC paper Fig. 11": "fig11", "SB+NW with fences": "sbnw+syncs"}

    def __init__(self, path: Path) -> None:
        self.cells: dict[tuple[str, str, int], str] = {}  # (series, column, N) -> cell
        self.oom_from: dict[str, int] = {}  # series -> N from which herd7 ran out of memory
        self.sync_all: tuple[int, str] | None = None  # Fig. 11 with fences: count, max s
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        series: str | None = None
        header: list[str] = []
        for line in text.splitlines():
            if line.startswith("**"):  # a table's title: one of ours, or another
                series, header = None, []
                for title, key in self.TABLES.items():
                    if line.startswith(f"**{title}"):
                        series = key
            if m := re.search(r"With fences: (\d+) for every N, ≤ ([\d.]+) s", line):
                self.sync_all = (int(m.group(1)), m.group(2))
            if m := re.search(r"With syncs herd7 runs out of memory from N=(\d+)", line):
                self.oom_from["fig11+syncs"] = int(m.group(1))
            if series is None or not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not header:
                header = cells
                continue
            if not cells[0].isdigit():
                continue
            for col, cell in zip(header[1:], cells[1:], strict=False):
                if not cell:
                    continue
                self.cells[(series, col, int(cells[0]))] = cell
                if m := re.search(r"out of memory from N=(\d+)", cell):
                    self.oom_from[series] = int(m.group(1))

    def nidhugg(self, key: str, n: int) -> tuple[int, str] | None:
        """Nidhugg power's count and time (text) for a row."""
        if key == "fig11+syncs":
            if self.sync_all is None:
                return None
            return self.sync_all[0], f"≤{self.sync_all[1]}"
        cell = self.cells.get((key, "Nidhugg power", n))
        m = re.match(r"(\d+) / ([\d.]+)", cell or "")
        return (int(m.group(1)), m.group(2)) if m else None

    def herd7(self, key: str, n: int) -> str | None:
        """herd7's recorded figure for a row (text)."""
        if key in self.oom_from and n >= self.oom_from[key]:
            return "out of memory"
        for (k, col, m), cell in self.cells.items():
            if k == key and m == n and col.startswith("herd7"):
                return cell
        return None


def memory_flat(peaks: dict[int, float]) -> tuple[bool, str]:
    """RSMC's memory is flat in N when every N's peak is at most
    ``FLAT_FACTOR`` × the N = 0 peak + ``FLAT_SLACK_MB``."""
    if 0 not in peaks or len(peaks) < 2:
        return False, "not enough rows"
    bound = FLAT_FACTOR * peaks[0] + FLAT_SLACK_MB
    top = max(peaks, key=peaks.__getitem__)
    flat = peaks[top] <= bound
    why = (
        f"N=0 {peaks[0]:.1f} MB, largest N={max(peaks)} {peaks[max(peaks)]:.1f} MB, "
        f"max {peaks[top]:.1f} MB at N={top}; rule: every peak ≤ {FLAT_FACTOR} × N=0's "
        f"+ {FLAT_SLACK_MB:g} MB = {bound:.1f} MB"
    )
    return flat, why


def fmt_cell(r: dict[str, Any], what: str = "cpu") -> str:
    if r.get("timeout"):
        return "timeout"
    if r.get("memory"):
        return "out of memory"
    if "error" in r:
        return "error"
    return f"{r[what]:.2f}"


def mb(r: dict[str, Any]) -> str:
    return f"{r['peak_mb']:.1f}" if "peak_mb" in r else "-"


def families(a: argparse.Namespace) -> int:
    """The ``--families`` mode; the number of disagreements."""
    anchors = Anchors(ANCHORS)
    bad = 0
    plan = [("fig11+syncs", 10), ("fig11", a.max_n), ("sbnw+syncs", a.max_n_sbnw)]
    for key, top in plan:
        s = SERIES[key]
        print(f"\n== {s.title} (power), N = 0..{top}; times in CPU s, memory peak RSS MB")
        print(
            f"{'N':>3} {'traces':>8} {'expected':>8} {'blocked':>7} {'rsmc s':>8} {'MB':>6} | "
            f"{'ref count':>9} {'ref s':>8} {'MB':>6} | {'Nidhugg power':<38} | herd7"
        )
        peaks: dict[int, float] = {}
        stopped: dict[str, int] = {}  # engine -> N at which it timed out
        for n in range(top + 1):
            want = s.expected(n)
            res: dict[str, dict[str, Any]] = {}
            for engine in ("rsmc", "reference"):
                if engine in stopped:
                    res[engine] = {"timeout": True, "skipped": stopped[engine]}
                    continue
                res[engine] = run_row(key, n, engine, a.model, a.timeout, a.memory)
                if res[engine].get("timeout") or res[engine].get("memory"):
                    stopped[engine] = n
            mine, ref = res["rsmc"], res["reference"]
            wrong: list[str] = []  # disagreements (the exit status)
            if "count" in mine:
                peaks[n] = mine["peak_mb"]
                if mine["count"] != want:
                    wrong.append(f"RSMC COUNT {mine['count']} != {want}")
                if mine["pn"] != mine["count"]:
                    wrong.append(f"RSMC POSITIVE+NEGATIVE {mine['pn']} != TRACES")
            elif "error" in mine:
                wrong.append("RSMC " + mine["error"])
            if "count" in ref:
                if ref["count"] != want:
                    wrong.append(f"REFERENCE COUNT {ref['count']} != {want}")
                if "digest" in mine and mine["digest"] != ref["digest"]:
                    wrong.append("OUTCOMES DIFFER (states or counts)")
            elif "error" in ref:
                wrong.append("reference " + ref["error"])
            nid = anchors.nidhugg(key, n)
            nid_text = ""
            if nid is not None:
                nid_text = f"{nid[0]} / {nid[1]} s (recorded)"
                if "cpu" in mine and re.fullmatch(r"[\d.]+", nid[1]) and float(nid[1]) > 0:
                    nid_text += f", RSMC {mine['cpu'] / float(nid[1]):.1f}x"
                if "count" in mine and nid[0] != mine["count"]:
                    wrong.append(f"NIDHUGG'S COUNT {nid[0]}")
            herd = anchors.herd7(key, n)
            herd_text = f"{herd} (recorded)" if herd else ""
            bad += len(wrong)
            print(
                f"{n:>3} {mine.get('count', '-'):>8} {want:>8} {mine.get('blocked', '-'):>7} "
                f"{fmt_cell(mine):>8} {mb(mine):>6} | "
                f"{ref.get('count', '-'):>9} {fmt_cell(ref):>8} {mb(ref):>6} | "
                f"{nid_text:<38} | {herd_text}" + ("  " + "; ".join(wrong) if wrong else ""),
                flush=True,
            )
        flat, why = memory_flat(peaks)
        print(f"memory flat in N (RSMC): {'yes' if flat else 'no'} ({why})")
        if "rsmc" in stopped:
            print(f"RSMC timed out at N={stopped['rsmc']} (--timeout {a.timeout:g} s)")
        if "reference" in stopped:
            print(f"reference timed out at N={stopped['reference']}; larger N not run")
    return bad


# ----------------------------------------------------------------------------- campaign


def test_paths() -> list[str]:
    """The POWER tests, in the index's order."""
    from herdsman.herd_compat.pipeline.inputs import read_index

    return read_index(str(INDEX))


def sample(files: list[str], k: int | None) -> list[str]:
    """Every (len/k)-th file, so that a sample spreads over the whole set."""
    if k is None or k >= len(files):
        return files
    step = len(files) / k
    return [files[int(i * step)] for i in range(k)]


#: A worker's model cache (set by :func:`_init_worker`, once per worker process).
_MODELS: Any = None


def _init_worker(model_spec: str, memory_mb: int | None) -> None:
    """Load the model (once per worker), build the parsers (not charged to the first test,
    as in ``herdsman validate``'s workers), bound the worker's memory."""
    from herdsman.herd_compat.pipeline.config import RunConfig
    from herdsman.herd_compat.pipeline.limits import limit_memory
    from herdsman.herd_compat.pipeline.load import warm_up_parser
    from herdsman.herd_compat.pipeline.models import ModelCache

    global _MODELS
    _MODELS = ModelCache(RunConfig(model=model_spec))
    _MODELS.get(model_spec)
    warm_up_parser()
    limit_memory(memory_mb)


@dataclass
class TestResult:
    """One test of the campaign with RSMC (picklable: it goes back to the parent)."""

    path: str
    name: str
    block: HerdBlock | None = None  # ours
    cpu: float = 0.0  # from reading the test to its result
    complete: int = 0
    blocked: int = 0
    runs: int = 0
    duplicates: int = 0
    templates: int = 0
    traversals: int = 0
    checks: int = 0  # the model's checks of partial traces
    failure: str = ""  # timeout | memory | error: ...


def _campaign_task(args: tuple[str, float | None]) -> TestResult:
    """Run one test with RSMC in a worker: our herd block and RSMC's statistics."""
    from herdsman.engine.errors import TimeLimitExceeded
    from herdsman.engine.rsmc.run import explore_program
    from herdsman.engine.run import RunOptions
    from herdsman.herd_compat.formats.dots import dot_base
    from herdsman.herd_compat.formats.herd_block import herd_result
    from herdsman.herd_compat.pipeline.load import read_input
    from herdsman.litmus.hash import herd_hash
    from herdsman.litmus.lower import lower
    from herdsman.litmus.printer import herd_condition_text

    path, limit = args
    res = TestResult(path, dot_base(path))
    start = time.process_time()
    try:
        test = read_input(path)
        res.name = test.name
        h = herd_hash(test)
        model = _MODELS.for_test(test)
        run = explore_program(
            lower(test), model, RunOptions(engine="rsmc", track_duplicates=True, time_limit=limit)
        )
        res.cpu = time.process_time() - start
        res.block = herd_result(
            run.result,
            test.name,
            h,
            herd_condition_text(test.condition),
            arch=test.arch,
            time=res.cpu,
        )
        st = run.stats
        res.complete, res.blocked, res.runs = st.complete, st.blocked, int(st.extra["runs"])
        res.duplicates, res.templates, res.traversals = (
            int(st.extra["duplicates"]),
            int(st.extra["templates"]),
            int(st.extra["traversals"]),
        )
        res.checks = int(st.extra.get("checks", 0))
    except TimeLimitExceeded:
        res.failure, res.cpu = "timeout", time.process_time() - start
    except MemoryError:
        res.failure = "memory"
    except Exception as e:  # one line per test, as herdsman validate reports it
        res.failure = f"error: {type(e).__name__}: {e}"
    return res


def pool_map(
    fn: Callable[[Any], Any],
    items: list[Any],
    jobs: int,
    init: Callable[..., None],
    initargs: tuple[Any, ...],
) -> Iterator[Any]:
    """``fn`` over ``items`` on ``jobs`` worker processes (in order), each initialised once
    by ``init(*initargs)``."""
    with multiprocessing.Pool(jobs, initializer=init, initargs=initargs) as pool:
        yield from pool.imap(fn, items, chunksize=4)


@dataclass
class CampaignTotals:
    tests: int = 0
    identical: int = 0
    categories: dict[str, int] = field(default_factory=dict)
    count_mismatch: list[str] = field(default_factory=list)  # complete != P + N
    duplicated: list[str] = field(default_factory=list)
    runs: int = 0
    blocked: int = 0
    templates: int = 0
    traversals: int = 0
    checks: int = 0
    cpu: float = 0.0
    herd_cpu: float = 0.0
    worst_blocked: tuple[float, str] = (0.0, "")
    described: list[str] = field(default_factory=list)


def campaign(a: argparse.Namespace) -> int:
    """The ``--campaign`` mode; the number of disagreements."""
    from herdsman.herd_compat.formats.compare import compare, describe
    from herdsman.herd_compat.formats.herdlog import read_expectations

    files = sample(test_paths(), a.sample)
    expectations = read_expectations(HERD_LOG)
    bad = 0
    for spec in a.models.split(","):
        print(f"\n== campaign: {len(files)} POWER tests, RSMC under {spec}, {a.jobs} jobs")
        t = CampaignTotals()
        wall = time.monotonic()
        items = [(p, a.timeout) for p in files]
        for res in pool_map(_campaign_task, items, a.jobs, _init_worker, (spec, a.worker_mb)):
            t.tests += 1
            exp = expectations.get(res.name)
            herd = exp.record if exp is not None else None
            if herd is not None and herd.time is not None:
                t.herd_cpu += herd.time
            t.cpu += res.cpu
            if res.failure:
                cat = "timeout" if res.failure in ("timeout", "memory") else "error"
                t.categories[cat] = t.categories.get(cat, 0) + 1
                if len(t.described) < a.show:
                    t.described.append(f"{cat.upper()}: {res.name} ({res.path}): {res.failure}")
                continue
            assert res.block is not None  # a test without a failure has its block
            c = compare(res.block, exp)
            t.categories[c.category] = t.categories.get(c.category, 0) + 1
            if c.category == "identical":
                t.identical += 1
            elif len(t.described) < a.show:
                t.described += describe(res.name, res.path, c.category, c.details)
            told = herd or res.block  # herd's allowed executions (ours: identical or listed)
            allowed = told.positive + told.negative
            if res.complete != allowed:
                t.count_mismatch.append(f"{res.name}: {res.complete} traces, P+N {allowed}")
            if res.duplicates:
                t.duplicated.append(f"{res.name}: {res.duplicates} duplicate traces")
            t.runs += res.runs
            t.blocked += res.blocked
            t.templates += res.templates
            t.traversals += res.traversals
            t.checks += res.checks
            if res.runs and res.blocked / res.runs > t.worst_blocked[0]:
                t.worst_blocked = (res.blocked / res.runs, res.name)
            if a.progress and t.tests % 500 == 0:
                print(f"  ... {t.tests} tests", file=sys.stderr, flush=True)
        wall = time.monotonic() - wall
        n_bad = t.tests - t.identical + len(t.count_mismatch) + len(t.duplicated)
        bad += n_bad
        share = 100 * t.blocked / t.runs if t.runs else 0.0
        print(f"tests: {t.tests}, identical to herd7's log: {t.identical}")
        others = {k: v for k, v in t.categories.items() if k != "identical"}
        print("not identical: " + (", ".join(f"{k} {v}" for k, v in others.items()) or "none"))
        print(f"complete traces != positive+negative: {len(t.count_mismatch)}")
        for line in t.count_mismatch[: a.show]:
            print("  " + line)
        print(f"tests with duplicate traces: {len(t.duplicated)}")
        for line in t.duplicated[: a.show]:
            print("  " + line)
        print(
            f"runs: {t.runs}, blocked: {t.blocked} ({share:.2f} % of runs; target ≤ 10 %: "
            f"{'met' if share <= 10 else 'NOT met'}); worst test: "
            f"{100 * t.worst_blocked[0]:.1f} % ({t.worst_blocked[1] or '-'})"
        )
        print(
            f"run templates queued: {t.templates}, explored: {t.traversals}; "
            f"model checks: {t.checks}"
        )
        ratio = f", ratio {t.cpu / t.herd_cpu:.3f}" if t.herd_cpu else ""
        print(
            f"CPU: RSMC {t.cpu:.2f} s, herd7 {t.herd_cpu:.2f} s (Time lines){ratio}; "
            f"wall {wall:.1f} s on {a.jobs} jobs"
        )
        if t.described:
            print(f"first {min(a.show, len(t.described))} differences:")
            print("\n".join("  " + line for line in t.described[: a.show * 4]))
    return bad


# ----------------------------------------------------------------------------- slow


def herd_times() -> dict[str, float]:
    """herd7's ``Time`` per test name (its log)."""
    from herdsman.herd_compat.formats.herdlog import read_herd_log

    return {b.name: b.time for b in read_herd_log(HERD_LOG) if b.time is not None}


@dataclass
class PairResult:
    """One test under both engines (``--slow``, ``--auto``)."""

    path: str
    name: str = ""
    space: float = 0.0  # candidate_space, log10
    cpu: dict[str, float | None] = field(default_factory=dict)  # engine -> CPU s (None: timeout)
    blocks: dict[str, HerdBlock] = field(default_factory=dict)  # engine -> its block
    auto_engine: str = ""
    gave_up: float | None = None
    failure: str = ""


def timed(fn: Callable[[], Any], floor: float) -> tuple[Any, float]:
    """``fn()`` and its CPU time: the least of a few runs when one takes under ``floor``
    seconds (millisecond timings are noisy)."""
    t0 = time.process_time()
    out = fn()
    best = time.process_time() - t0
    spent = best
    for _ in range(4):
        if spent >= floor:
            break
        t0 = time.process_time()
        out = fn()
        dt = time.process_time() - t0
        best, spent = min(best, dt), spent + dt
    return out, best


def _pair_task(args: tuple[str, tuple[str, ...], float | None, float]) -> PairResult:
    """Run one test (a path, or ``family:KEY:N``) with each engine of ``engines``."""
    from herdsman.engine.choice import candidate_space
    from herdsman.engine.errors import TimeLimitExceeded
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.engine.semantics.step import Semantics
    from herdsman.herd_compat.formats.herd_block import herd_result
    from herdsman.herd_compat.pipeline.load import read_input
    from herdsman.litmus.hash import herd_hash
    from herdsman.litmus.lower import lower
    from herdsman.litmus.parser import parse_text
    from herdsman.litmus.printer import herd_condition_text

    path, engines, limit, floor = args
    res = PairResult(path)
    try:
        if path.startswith("family:"):
            _, key, n = path.split(":")
            test = parse_text(SERIES[key].text(int(n)), f"{key}-{n}.litmus")
        else:
            test = read_input(path)
        res.name = test.name
        res.space = candidate_space(Semantics(lower(test)))
        model = _MODELS.for_test(test)
        h, cond = herd_hash(test), herd_condition_text(test.condition)
        for engine in engines:
            opts = RunOptions(engine=engine, time_limit=limit)
            try:
                out, cpu = timed(lambda opts=opts: run_program(lower(test), model, opts), floor)
            except TimeLimitExceeded:
                res.cpu[engine] = None
                continue
            res.cpu[engine] = cpu
            res.blocks[engine] = herd_result(out, test.name, h, cond, arch=test.arch, time=cpu)
            if engine == "auto":
                res.auto_engine = out.engine
                res.gave_up = out.stats.extra.get("rsmc_gave_up")
    except MemoryError:
        res.failure = "memory"
    except Exception as e:
        res.failure = f"error: {type(e).__name__}: {e}"
    return res


def agree(x: HerdBlock, y: HerdBlock) -> bool:
    """Whether two herd blocks say the same (the campaign's comparison)."""
    from herdsman.herd_compat.formats.compare import compare
    from herdsman.herd_compat.formats.herdlog import Expectation

    return compare(x, Expectation(y.name, y.verdict, y)).category == "identical"


def secs(x: float | None, digits: int = 2) -> str:
    return "timeout" if x is None else f"{x:.{digits}f}"


def slow(a: argparse.Namespace) -> int:
    """The ``--slow`` mode; the number of disagreements."""
    from herdsman.herd_compat.formats.compare import compare
    from herdsman.herd_compat.formats.herdlog import read_expectations

    herd = herd_times()
    files = [p for p in test_paths() if herd.get(Path(p).stem, 0.0) > 1.0]
    expectations = read_expectations(HERD_LOG)
    spec = a.models.split(",")[0]
    over = sum(1 for t in herd.values() if t > 1.0)
    print(f"\n== tests herd7 took over 1 s: {over}, under {spec}, {a.jobs} jobs (CPU s)")
    bad = faster = 0
    if len(files) != over:  # a test whose file is not named after it
        print(f"only {len(files)} of them found by file name in {INDEX}")
        bad += 1
    print(f"{'test':<28} {'herd7':>7} {'rsmc':>7} {'reference':>9} {'rsmc/ref':>8}  agree  herd")
    items = [(p, ("rsmc", "reference"), a.timeout, 0.0) for p in files]
    tot = {"herd7": 0.0, "rsmc": 0.0, "reference": 0.0}
    for res in pool_map(_pair_task, items, a.jobs, _init_worker, (spec, a.worker_mb)):
        ht = herd.get(res.name or Path(res.path).stem, 0.0)
        if res.failure:
            print(f"{res.name or res.path:<28} {ht:>7.2f} {res.failure}")
            bad += 1
            continue
        r, f = res.cpu.get("rsmc"), res.cpu.get("reference")
        same = "rsmc" in res.blocks and "reference" in res.blocks
        same = same and agree(res.blocks["rsmc"], res.blocks["reference"])
        exp = expectations.get(res.name)
        with_herd = compare(res.blocks["rsmc"], exp).category if "rsmc" in res.blocks else "-"
        bad += (not same) + (with_herd != "identical")
        tot["herd7"] += ht
        tot["rsmc"] += r or 0.0
        tot["reference"] += f or 0.0
        faster += r is not None and f is not None and r < f
        ratio = f"{r / f:.2f}" if r is not None and f else "-"
        print(
            f"{res.name:<28} {ht:>7.2f} {secs(r):>7} {secs(f):>9} {ratio:>8}  "
            f"{'yes' if same else 'NO':>5}  {with_herd}",
            flush=True,
        )
    print(
        f"total: herd7 {tot['herd7']:.2f} s, RSMC {tot['rsmc']:.2f} s, reference "
        f"{tot['reference']:.2f} s (RSMC/reference {tot['rsmc'] / max(tot['reference'], 1e-9):.2f}"
        f", RSMC/herd7 {tot['rsmc'] / max(tot['herd7'], 1e-9):.3f}); RSMC faster than the "
        f"reference on {faster} of {len(files)}; disagreements {bad}"
    )
    return bad


# ----------------------------------------------------------------------------- auto


def _space_task(path: str) -> tuple[str, float, str]:
    """A test's candidate space (log10), or why it has none."""
    from herdsman.engine.choice import candidate_space
    from herdsman.engine.semantics.step import Semantics
    from herdsman.herd_compat.pipeline.load import read_input
    from herdsman.litmus.lower import lower

    try:
        test = read_input(path)
        return test.name, candidate_space(Semantics(lower(test))), ""
    except Exception as e:
        return Path(path).stem, 0.0, f"{type(e).__name__}: {e}"


def rsmc_wins(r: float | None, f: float | None) -> bool:
    """Whether RSMC (``r`` CPU s, None: timeout) beat the reference engine (``f``)."""
    return r is not None and (f is None or r < f)


@dataclass
class AutoRow:
    """A row of the ``--auto`` tables."""

    line: str
    ok: bool  # auto's outcome is the engines' outcome
    best: float | None  # min(rsmc, reference)
    auto: float | None
    over: float | None  # auto / best
    excess: float | None  # auto - best


def auto_row(res: PairResult) -> AutoRow:
    """The ``--auto`` row of a test run by RSMC, the reference engine and auto."""
    r, f, u = res.cpu.get("rsmc"), res.cpu.get("reference"), res.cpu.get("auto")
    blocks = res.blocks
    ok = "auto" in blocks and all(agree(blocks["auto"], blocks[e]) for e in blocks if e != "auto")
    done = [x for x in (r, f) if x is not None]
    best = min(done) if done else None
    win = "-" if not done else ("rsmc" if rsmc_wins(r, f) else "ref")
    over = u / best if u is not None and best else None
    excess = u - best if u is not None and best is not None else None
    ran = res.auto_engine + (f" (RSMC gave up {res.gave_up:.2f} s)" if res.gave_up else "")
    line = (
        f"{res.name:<28} {res.space:>6.1f} {secs(r, 3):>7} {secs(f, 3):>9} {secs(u, 3):>7} "
        f"{'-' if over is None else f'{over:.2f}':>8} {win:>6}  {ran}" + ("" if ok else "  DIFFER")
    )
    return AutoRow(line, ok, best, u, over, excess)


def ratio_lines(what: str, rows: list[AutoRow]) -> list[str]:
    """auto's time against the better engine's over ``rows``: ratios and excess."""
    overs = sorted(x.over for x in rows if x.over is not None)
    excess = [x.excess for x in rows if x.excess is not None]
    if not overs or not excess:
        return []
    worst = max(rows, key=lambda x: x.excess if x.excess is not None else -1.0)
    return [
        f"{what}: auto / min(rsmc, reference) per row: median {overs[len(overs) // 2]:.2f}, "
        f"worst {overs[-1]:.2f}; auto - min: worst {max(excess):.3f} s "
        f"({worst.line.split()[0]}), total {sum(excess):.3f} s"
    ]


def auto(a: argparse.Namespace) -> int:
    """The ``--auto`` mode; the number of disagreements."""
    from herdsman.engine.choice import RSMC_BUDGET, RSMC_FROM

    spec = a.models.split(",")[0]
    engines = ("rsmc", "reference", "auto")
    head = (
        f"{'test':<28} {'space':>6} {'rsmc':>7} {'reference':>9} {'auto':>7} "
        f"{'auto/min':>8} {'faster':>6}  auto ran"
    )
    print(
        f"\n== --engine auto: RSMC_FROM {RSMC_FROM} (log10 candidates), RSMC_BUDGET "
        f"{RSMC_BUDGET} s; under {spec}; CPU s (least of a few runs under {a.floor} s)"
    )
    bad = 0
    family_rows: list[AutoRow] = []
    init = (spec, a.worker_mb)
    for key in ("fig11+syncs", "fig11", "sbnw+syncs"):
        print(f"-- {SERIES[key].title}, N = 0..{a.auto_max_n}")
        print(head)
        items = [
            (f"family:{key}:{n}", engines, a.timeout, a.floor) for n in range(a.auto_max_n + 1)
        ]
        wins: list[bool] = []
        for res in pool_map(_pair_task, items, a.jobs, _init_worker, init):
            if res.failure:
                print(f"{res.path}: {res.failure}")
                bad += 1
                continue
            row = auto_row(res)
            print(row.line, flush=True)
            bad += not row.ok
            family_rows.append(row)
            wins.append(rsmc_wins(res.cpu.get("rsmc"), res.cpu.get("reference")))
        # the smallest N from which RSMC is faster at every larger N of the range
        from_n = next((n for n in range(len(wins)) if all(wins[n:])), None)
        print(f"RSMC wins from N = {from_n if from_n is not None else 'never (in this range)'}")

    files = test_paths()
    print(f"-- candidate spaces of the {len(files)} campaign tests")
    spaces: list[tuple[float, str]] = []
    for name, space, err in pool_map(_space_task, files, a.jobs, _init_worker, init):
        if err:
            print(f"  {name}: {err}")
            continue
        spaces.append((space, name))
    spaces.sort(reverse=True)
    top, top_name = spaces[0]
    print(
        f"largest candidate space: {top:.2f} ({top_name}); RSMC_FROM {RSMC_FROM}: "
        f"{'below' if top < RSMC_FROM else 'NOT below'}; five largest: "
        + ", ".join(f"{n} {s:.2f}" for s, n in spaces[:5])
    )
    bad += top >= RSMC_FROM

    chosen = sample(files, a.auto_sample)
    print(f"-- {len(chosen)} campaign tests, spread over the set")
    print(head)
    shown = 0
    tot = {e: 0.0 for e in (*engines, "min")}
    won = {"rsmc": 0, "ref": 0}
    sample_rows: list[AutoRow] = []
    items = [(p, engines, a.timeout, a.floor) for p in chosen]
    for res in pool_map(_pair_task, items, a.jobs, _init_worker, init):
        if res.failure:
            print(f"{res.path}: {res.failure}")
            bad += 1
            continue
        row = auto_row(res)
        bad += not row.ok
        sample_rows.append(row)
        r, f, u = (res.cpu.get(e) for e in engines)
        for e, x in zip(engines, (r, f, u), strict=True):
            tot[e] += x or 0.0
        tot["min"] += row.best or 0.0
        won["rsmc" if rsmc_wins(r, f) else "ref"] += 1
        if not row.ok or shown < a.auto_show:  # the first rows, and every disagreement
            print(row.line)
            shown += 1
    print(
        f"sample: RSMC {tot['rsmc']:.2f} s, reference {tot['reference']:.2f} s, auto "
        f"{tot['auto']:.2f} s, min(rsmc, reference) per test summed {tot['min']:.2f} s "
        f"(auto / that {tot['auto'] / max(tot['min'], 1e-9):.2f}); faster: RSMC on "
        f"{won['rsmc']}, reference on {won['ref']}"
    )
    for line in ratio_lines("families", family_rows) + ratio_lines("sample", sample_rows):
        print(line)
    return bad + auto_programs(a)


#: The example C programs ``--auto`` runs under power (loops and spawns: auto takes RSMC).
AUTO_PROGRAMS = ("peterson", "bakery", "burns", "szymanski", "tas_lock", "ticket_lock")


def _program_task(args: tuple[str, str, float]) -> tuple[str, str, float | None, int | None]:
    """One example C program under power with one engine: its CPU time (None: over the
    time limit) and its complete executions."""
    from herdsman.cat.api import load_model
    from herdsman.engine.errors import TimeLimitExceeded
    from herdsman.engine.rsmc.run import rsmc_refusal
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.litmus.c import load_c_program

    name, engine, timeout = args
    path = ROOT / "litmus" / "examples" / "programs" / f"{name}.c"
    program = load_c_program(str(path), "power")
    if engine == "rsmc" and rsmc_refusal(load_model("power"), program) is not None:
        return name, engine, -1.0, None  # refused: power allows RMW shapes RSMC never builds
    t0 = time.process_time()
    try:
        out = run_program(
            program, load_model("power"), RunOptions(engine=engine, time_limit=timeout)
        )
    except TimeLimitExceeded:
        return name, engine, None, None
    return name, engine, time.process_time() - t0, out.stats.complete


def _cell(cpu: float | None) -> str:
    return "timeout" if cpu is None else "refused" if cpu < 0 else secs(cpu)


def auto_programs(a: argparse.Namespace) -> int:
    """The example C programs (loops, spawns) under power: RSMC, the reference engine and
    ``auto`` (which takes RSMC outright for them, unless they have read-modify-writes,
    which RSMC refuses under power); 1 per disagreement in counts."""
    print(f"== example C programs under power (CPU s; timeout {a.timeout:.0f} s)")
    tasks = [(n, e, a.timeout) for n in AUTO_PROGRAMS for e in ("rsmc", "reference", "auto")]
    got: dict[tuple[str, str], tuple[float | None, int | None]] = {}
    with multiprocessing.Pool(a.jobs) as pool:
        for name, engine, cpu, n in pool.imap_unordered(_program_task, tasks):
            got[name, engine] = (cpu, n)
    bad = 0
    print(f"{'program':<12} {'rsmc':>8} {'reference':>10} {'auto':>8}  executions")
    for name in AUTO_PROGRAMS:
        cells = [got[name, e] for e in ("rsmc", "reference", "auto")]
        counts = {n for _, n in cells if n is not None}
        bad += len(counts) > 1
        times = " ".join(
            f"{'timeout':>{w}}"
            if c is None
            else f"{'refused':>{w}}"
            if c < 0
            else f"{secs(c):>{w}}"
            for (c, _), w in zip(cells, (8, 10, 8), strict=True)
        )
        print(f"{name:<12} {times}  {', '.join(map(str, sorted(counts)))}")
    return bad


# ----------------------------------------------------------------------------- main


def code_state() -> str:
    """Which engine the figures are of (a digest of ``engine/rsmc`` and the code it
    runs with), and the machine's load when they were taken (CPU times suffer too)."""
    h = hashlib.sha1()
    for p in sorted([*ROOT.glob("engine/rsmc/*.py"), ROOT / "engine" / "choice.py"]):
        h.update(p.read_bytes())
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"engine/rsmc + choice.py digest {h.hexdigest()[:10]} (git HEAD {head or '?'}, "
        f"working tree); load average {load} on {os.cpu_count()} CPUs"
    )


def _x86_one(path: str) -> tuple[str, list[str]]:
    """One X86 test under tso, pso and sc: RSMC against TruSt and the reference engine
    (states with counts); the disagreements, described."""
    from herdsman.cat.api import load_model
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.litmus.lower import lower
    from herdsman.litmus.parser import parse_file

    test = parse_file(path)
    bad = []
    for spec in ("tso", "pso", "sc"):
        model = load_model(spec)
        got = {}
        for engine in ("rsmc", "trust", "reference"):
            out = run_program(lower(test), model, RunOptions(engine=engine, track_duplicates=True))
            got[engine] = {k: v.executions for k, v in out.states.items()}
            if engine == "rsmc" and out.stats.extra.get("duplicates"):
                bad.append(f"{spec}: rsmc explored a trace twice")
        if not got["rsmc"] == got["trust"] == got["reference"]:
            bad.append(f"{spec}: rsmc {got['rsmc']} trust {got['trust']} ref {got['reference']}")
    return path, bad


def x86(a: argparse.Namespace) -> int:
    """Every X86 test (``x86/tests`` and ``x86/generated``) under tso, pso and sc: RSMC
    equals TruSt and the reference engine (states and execution counts)."""
    paths = sorted(
        str(p) for d in ("tests", "generated") for p in (SHARED / "x86" / d).glob("*.litmus")
    )
    print(f"== X86: {len(paths)} tests under tso, pso, sc: rsmc vs trust vs reference")
    bad = 0
    with multiprocessing.Pool(a.jobs) as pool:
        for path, why in pool.imap_unordered(_x86_one, paths, chunksize=8):
            for w in why:
                bad += 1
                print(f"  {Path(path).name}: {w}")
    print(f"  {len(paths) - bad} of {len(paths)} tests agree under all three models")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", action="store_true", help="the RSMC paper's families")
    ap.add_argument("--campaign", action="store_true", help="all POWER tests against herd7")
    ap.add_argument("--slow", action="store_true", help="the tests herd7 took over 1 s")
    ap.add_argument("--auto", action="store_true", help="the measurement behind --engine auto")
    ap.add_argument("--x86", action="store_true", help="X86 tests: rsmc = trust = reference")
    ap.add_argument("--max-n", type=int, default=10, help="Fig. 11 without syncs: largest N")
    ap.add_argument("--max-n-sbnw", type=int, default=8, help="SB+NW with syncs: largest N")
    ap.add_argument("--timeout", type=float, default=120.0, help="per row/test and engine (s)")
    ap.add_argument("--model", default="power", help="the families' model")
    ap.add_argument("--models", default=DEFAULT_MODELS, help="campaign (--slow, --auto: first)")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--sample", type=int, help="campaign: K tests spread over the set")
    ap.add_argument("--show", type=int, default=20, help="campaign: differences described")
    ap.add_argument("--memory", type=int, default=8192, help="families: MB per subprocess")
    ap.add_argument("--worker-mb", type=int, default=4096, help="MB per worker process")
    ap.add_argument("--auto-max-n", type=int, default=8, help="--auto: families' largest N")
    ap.add_argument("--auto-sample", type=int, default=300, help="--auto: campaign tests")
    ap.add_argument("--auto-show", type=int, default=25, help="--auto: sample rows printed")
    ap.add_argument("--floor", type=float, default=0.05, help="--auto: rerun runs under S s")
    ap.add_argument("--progress", action="store_true", help="campaign: a line per 500 tests")
    ap.add_argument(
        "--one", nargs=4, metavar=("SERIES", "N", "ENGINE", "MODEL"), help=argparse.SUPPRESS
    )
    a = ap.parse_args(argv)
    if a.one:
        from herdsman.herd_compat.pipeline.limits import limit_memory

        limit_memory(a.memory)
        key, n, engine, model = a.one
        print(json.dumps(one_row(key, int(n), engine, model, a.timeout)))
        return 0
    if not (TESTS.is_dir() and HERD_LOG.is_file()):
        print(f"skipped: {SHARED} (the shared ground truth; $HERDSMAN_SHARED) is absent")
        return 0
    modes = [m for m in ("families", "campaign", "slow", "auto", "x86") if getattr(a, m)]
    if not modes:
        modes = ["families", "slow", "auto", "x86"]
    print(code_state())
    bad = 0
    for mode in modes:
        t0 = time.monotonic()
        run = {"families": families, "campaign": campaign, "slow": slow, "auto": auto, "x86": x86}
        n = run[mode](a)
        print(f"[{mode}: {n} disagreements, {time.monotonic() - t0:.0f} s wall]", flush=True)
        bad += n
    print("OK" if not bad else f"FAILED: {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
