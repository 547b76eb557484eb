"""Campaigns on dask.distributed (``validate --dask-local N`` and ``--scheduler ADDRESS``):
the same rows as the local pool's, workers that die mid-run (nothing lost, nothing recorded
twice, ``--resume`` runs the lost test again), tests past their time limit, workers that
cannot start, and the command line's errors.

The campaigns run the real engine (reference) on the X86 examples (``litmus/examples/x86``)
under the built-in ``tso`` model, against a log of ``herdsman herd7`` on the same tests made
once per module (one block dropped, one test that does not parse added: the rows have
several categories).  The worker factories below wrap the engine's worker to make a test
SIGKILL its own dask worker process, or sleep: test-only hooks passed from Python as the
campaign's worker factory (dask's worker processes import this module to run them).  The
comparison with herd's own answers (the oracle worker) needs ../shared and skips without
it.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import shared_path
from support.campaigns import OracleWorker, db_rows, name_and_arch

from herdsman.herd_compat.campaigns.dask_pool import DaskCluster, DaskPool
from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
from herdsman.herd_compat.campaigns.worker import engine_worker
from herdsman.herd_compat.campaigns.workers import TaskLost
from herdsman.herd_compat.cli.main import _cmd_validate, guarded, main
from herdsman.herd_compat.cli.run import run_tests
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.run_file import Done, Failed
from herdsman.litmus.base.errors import InputError

HERE = Path(__file__).resolve().parents[1]  # tests/
ROOT = HERE.parent
X86 = ROOT / "litmus" / "examples" / "x86"
TESTS = sorted(str(p) for p in X86.glob("*.litmus"))
NAMES = [Path(t).stem for t in TESTS]
#: herd's candidate enumeration: the engine with the fewest moving parts
ENGINE = "reference"
#: a test whose block the expectations lack (category "missing")
UNEXPECTED = "WRC"

# ----------------------------------------------------------------------------- workers


def _name(path: str) -> str:
    return os.path.basename(path).removesuffix(".litmus")


@dataclass
class DyingWorker:
    """The engine's worker, but a test named in ``victims`` SIGKILLs its worker process
    mid-test as long as fewer kills than ``victims[name]`` are marked for it in the folder
    ``marks``; every test run is appended to the file ``trace``."""

    victims: dict[str, int]
    marks: str
    trace: str

    def __call__(self, cfg: RunConfig) -> Callable[[str], Done | Failed]:
        work = engine_worker(cfg)

        def task(path: str) -> Done | Failed:
            name = _name(path)
            with open(self.trace, "a", encoding="utf-8") as f:
                f.write(name + "\n")
            if name in self.victims:
                mark = Path(self.marks) / name
                kills = mark.read_text().count("x") if mark.exists() else 0
                if kills < self.victims[name]:
                    with open(mark, "a", encoding="utf-8") as f:
                        f.write("x")
                    os.kill(os.getpid(), signal.SIGKILL)
            return work(path)

        return task


@dataclass
class SleepyWorker:
    """The engine's worker, but the test ``name`` first sleeps ``seconds`` (wall time, which
    no CPU alarm or engine deadline sees)."""

    name: str
    seconds: float

    def __call__(self, cfg: RunConfig) -> Callable[[str], Done | Failed]:
        work = engine_worker(cfg)

        def task(path: str) -> Done | Failed:
            if _name(path) == self.name:
                time.sleep(self.seconds)
            return work(path)

        return task


def broken_worker(cfg: RunConfig) -> Callable[[str], Done | Failed]:
    raise InputError("m.cat", 1, 1, "broken model")


def _square_factory(arg: int) -> Callable[[str], int]:
    def work(task: str) -> int:
        if task == "raise":
            raise ValueError("bad task")
        if task == "input":
            raise InputError(task, 2, 3, "bad input")
        return int(task) ** arg

    return work


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The X86 examples and a test that does not parse."""
    bad = tmp_path_factory.mktemp("bad") / "Bad.litmus"
    bad.write_text("X86 Bad\n{\n}\n P0 ;\n FROB EAX ;\nexists (0:EAX=0)\n", encoding="utf-8")
    return [*TESTS, str(bad)]


@pytest.fixture(scope="module")
def expect(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A herd7 log of the X86 examples under tso, made by ``herdsman herd7``, without the
    block of :data:`UNEXPECTED`."""
    out, err = io.StringIO(), io.StringIO()
    status = run_tests(RunConfig(tests=TESTS, model="tso", engine=ENGINE), out, err)
    assert status == 0, err.getvalue()
    blocks = [b for b in out.getvalue().split("\n\n") if b.strip()]
    kept = [b for b in blocks if not b.startswith(f"Test {UNEXPECTED} ")]
    assert len(kept) == len(TESTS) - 1
    log = tmp_path_factory.mktemp("expect") / "x86-tso.log"
    log.write_text("\n\n".join(kept) + "\n\n", encoding="utf-8")
    return str(log)


@pytest.fixture(scope="module")
def local_pool_rows(
    tmp_path_factory: pytest.TempPathFactory, expect: str, inputs: list[str]
) -> tuple[int, list[tuple], list[str]]:
    """The local pool's campaign (``--jobs 2``): its status, rows and report."""
    db = tmp_path_factory.mktemp("local") / "c.sqlite"
    status, out = _validate(_argv(expect, db, inputs, "--jobs", "2"))
    return status, _rows(db), _report(out)


@pytest.fixture
def scheduler() -> Iterator[str]:
    """A dask cluster of two single-threaded worker processes, with dask's own settings
    (as a cluster started by hand has them): its scheduler's address."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # no warning: 8787 is taken
    ) as cluster:
        yield cluster.scheduler_address


def _argv(expect: str, db: Path, inputs: list[str], *extra: str) -> list[str]:
    return [
        *inputs,
        "--model",
        "tso",
        "--engine",
        ENGINE,
        "--expect",
        expect,
        "--db",
        str(db),
        "--no-progress",
        *extra,
    ]


def _validate(
    argv: list[str], worker: Callable[[RunConfig], Callable[[str], Done | Failed]] | None = None
) -> tuple[int, str]:
    """``herdsman validate ARGV`` in this process, with workers made by ``worker``: its
    exit status and standard output."""
    out = io.StringIO()
    saved = sys.stdout
    sys.stdout = out
    try:
        status = guarded("herdsman validate", lambda: _cmd_validate(argv, worker))
    finally:
        sys.stdout = saved
    return status, out.getvalue()


def _untimed(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.startswith("Time "))


def _rows(db: Path) -> list[tuple]:
    """Every row of a campaign's database without its times: (key, name, status,
    category, text, details)."""
    rows = db_rows(db, "key, name, status, category, result_text, details")
    return sorted((k, n, s, c, _untimed(t), json.loads(d)) for k, n, s, c, t, d in rows)


def _report(out: str) -> list[str]:
    """A campaign's report without the line of times."""
    return [line for line in out.split("\n") if not line.startswith("CPU time:")]


def _by_name(db: Path) -> dict[str, tuple]:
    return {r[1]: r for r in _rows(db)}


def _recorded(db: Path) -> int:
    """How many times the campaign recorded a result (each record takes the next seq)."""
    return max(seq for (seq,) in db_rows(db, "seq"))


# ----------------------------------------------------------------------------- the same rows


@pytest.mark.slow
def test_dask_local_gives_the_local_pools_rows(
    tmp_path: Path, expect: str, inputs: list[str], local_pool_rows: tuple
) -> None:
    status, rows, report = local_pool_rows
    assert status == 2  # the test that does not parse
    categories = {r[1]: r[3] for r in rows}
    assert categories[UNEXPECTED] == "missing" and categories["Bad"] == "error"
    assert sorted(set(categories.values())) == ["error", "identical", "missing"]
    db = tmp_path / "d.sqlite"
    got, out = _validate(_argv(expect, db, inputs, "--dask-local", "2"))
    assert (got, _report(out)) == (status, report)
    assert _rows(db) == rows
    assert _recorded(db) == len(inputs)  # each test recorded once


@pytest.mark.slow
def test_existing_cluster_gives_the_local_pools_rows(
    tmp_path: Path, expect: str, inputs: list[str], local_pool_rows: tuple, scheduler: str
) -> None:
    status, rows, report = local_pool_rows
    db = tmp_path / "d.sqlite"
    got, out = _validate(_argv(expect, db, inputs, "--scheduler", scheduler))
    assert (got, _report(out)) == (status, report)
    assert _rows(db) == rows and _recorded(db) == len(inputs)


@pytest.mark.slow
@pytest.mark.shared
def test_oracle_campaign_same_rows_on_dask(tmp_path: Path) -> None:
    """herd's own answers, some altered, some failing: the same rows either way."""
    log = shared_path("power", "herd7-ppc.log")
    tests = sorted(shared_path("power", "tests").glob("*.litmus"))[::400][:16]
    names = [name_and_arch(str(t))[0] for t in tests]
    actions = {
        names[0]: "verdict",
        names[1]: "counts",
        names[2]: "hash",
        names[3]: "input",
        names[4]: "internal",
    }
    oracle = OracleWorker(str(log), actions=actions)
    results = []
    for workers in (Workers(jobs=2), Workers(dask_local=2)):
        db = tmp_path / f"{len(results)}.sqlite"
        cfg = CampaignConfig(
            inputs=[str(t) for t in tests],
            expect=str(log),
            model="power",
            db=str(db),
            progress=False,
            workers=workers,
        )
        outcome = run_campaign(cfg, io.StringIO(), io.StringIO(), oracle)
        results.append((outcome.status, _rows(db)))
    assert results[0] == results[1]
    categories = sorted(r[3] for r in results[0][1])
    assert categories.count("identical") == len(tests) - 5 and results[0][0] == 2


# ----------------------------------------------------------------------------- dead workers


@pytest.mark.slow
def test_dead_workers_lose_nothing_and_resume_reruns_the_lost_test(
    tmp_path: Path, expect: str, inputs: list[str], local_pool_rows: tuple
) -> None:
    """MP kills its worker once (run again at once, identical); LB kills it in both its
    attempts (lost, exit status 3), then ``--resume`` runs LB alone."""
    marks = tmp_path / "marks"
    marks.mkdir()
    trace = tmp_path / "trace"
    worker = DyingWorker({"MP": 1, "LB": 2}, str(marks), str(trace))
    db = tmp_path / "d.sqlite"
    argv = _argv(expect, db, inputs, "--dask-local", "2", "--json", str(tmp_path / "r.json"))
    status, out = _validate(argv, worker)
    assert status == 3, out
    by_name = _by_name(db)
    assert sorted(by_name) == sorted([*NAMES, "Bad"])
    assert _recorded(db) == len(inputs)  # one row per test, none recorded twice
    local = {r[1]: r for r in local_pool_rows[1]}
    assert by_name["MP"] == local["MP"] and by_name["MP"][3] == "identical"
    _, _, lb_status, lb_category, lb_text, lb_details = by_name["LB"]
    assert (lb_status, lb_category) == ("lost", "error")
    assert lb_details == {"input_error": False, "worker_died": True}
    assert "error: worker process died (dask worker tcp://" in lb_text and ", 2 times)" in lb_text
    assert {n: r for n, r in by_name.items() if n != "LB"} == {
        n: r for n, r in local.items() if n != "LB"
    }
    assert f"{'of which lost':<22}{1:>8}" in out
    assert json.loads((tmp_path / "r.json").read_text())["tests_lost"] == 1
    assert [n for n in trace.read_text().split() if n in ("MP", "LB")].count("LB") == 2
    # --resume runs the lost test again, and only it (it has no kill left)
    trace.write_text("")
    status, out = _validate([*argv, "--resume"], worker)
    assert trace.read_text().split() == ["LB"]
    assert _rows(db) == local_pool_rows[1]
    assert _recorded(db) == len(inputs) + 1
    assert status == local_pool_rows[0]


# ----------------------------------------------------------------------------- time limits


@pytest.mark.slow
def test_test_past_its_time_limit_is_reported_and_its_batch_run_again(
    tmp_path: Path, expect: str, local_pool_rows: tuple
) -> None:
    """SB sleeps past --timeout and its grace (1 s): a timeout row, at once; every other
    test has its one row, as with the local pool."""
    db = tmp_path / "d.sqlite"
    worker = SleepyWorker("SB", 2.5)
    t0 = time.monotonic()
    argv = _argv(expect, db, TESTS, "--dask-local", "2", "--timeout", "0.5")
    status, out = _validate(argv, worker)
    assert status == 3, out  # a test over its time limit: exit status 3, as in every command
    by_name = _by_name(db)
    assert sorted(by_name) == sorted(NAMES) and _recorded(db) == len(TESTS)
    _, _, sb_status, sb_category, sb_text, sb_details = by_name["SB"]
    assert (sb_status, sb_category, sb_details) == ("timeout", "timeout", {"timeout": 0.5})
    assert sb_text.endswith("error: time limit of 1 s exceeded")
    local = {r[1]: r for r in local_pool_rows[1]}
    assert all(by_name[n] == local[n] for n in NAMES if n != "SB")
    assert time.monotonic() - t0 < 60


# ----------------------------------------------------------------------------- the pool


def test_pool_results_and_failing_tasks() -> None:
    pool: DaskPool[int] = DaskPool(_square_factory, 2, DaskCluster(local_workers=1))
    try:
        assert pool.jobs == 1
        results: dict[str, int | TaskLost] = {}
        tasks = ["1", "2", "raise", "3", "input", "4"]
        pool.run(tasks, lambda t, r: results.setdefault(t, r))
    finally:
        pool.close()
    assert set(results) == set(tasks)
    assert [results[t] for t in ("1", "2", "3", "4")] == [1, 4, 9, 16]
    raised, bad = results["raise"], results["input"]
    assert isinstance(raised, TaskLost) and isinstance(bad, TaskLost)
    assert raised.cause == "raised"
    assert raised.message == "raise:0:0: error: internal error (ValueError: bad task)"
    assert (bad.cause, bad.message) == ("input", "input:2:3: error: bad input")


def test_workers_that_cannot_start_stop_the_campaign(
    tmp_path: Path, expect: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(expect, tmp_path / "d.sqlite", TESTS[:3], "--dask-local", "1")
    assert guarded("herdsman validate", lambda: _cmd_validate(argv, broken_worker)) == 2
    err = capsys.readouterr().err
    assert err == "tso:0:0: error: workers cannot start: m.cat:1:1: error: broken model\n"


# ----------------------------------------------------------------------------- command line


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--scheduler", "tcp://127.0.0.1:8786", "--dask-local", "2"],
            "argument --dask-local: not allowed with argument --scheduler",
        ),
        (["--dask-local", "0"], "--dask-local must be at least 1"),
        (["--dask-local", "2", "--jobs", "2"], "--jobs runs local worker processes"),
        (["--connect-timeout", "3"], "--connect-timeout needs --scheduler or --dask-local"),
        (["--scheduler", "tcp://127.0.0.1:8786", "--max-memory", "512"], "--max-memory is"),
    ],
)
def test_cli_cluster_options_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    argv = ["validate", *TESTS[:2], "--expect", str(tmp_path / "none.log"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"herdsman validate: error: {message}") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("tcp://127.0.0.1:1", "Timed out trying to connect to tcp://127.0.0.1:1 after 0.5 s"),
        ("foo://host:8786", "unknown address scheme 'foo'"),
        ("tcp://localhost", "missing port number in address 'localhost'"),
    ],
)
def test_cli_unreachable_scheduler(tmp_path: Path, expect: str, address: str, reason: str) -> None:
    """One line, exit status 2, nothing else on stderr (dask's own complaints included),
    and no result in the database."""
    db = tmp_path / "d.sqlite"
    argv = [*TESTS[:2], "--expect", expect, "--db", str(db), "--scheduler", address]
    proc = subprocess.run(
        [sys.executable, "-m", "herdsman.herd_compat.cli.main", "validate", *argv]
        + ["--connect-timeout", "0.5"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(
        f"herdsman validate: error: cannot connect to the dask scheduler {address}: {reason}"
    )
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert db_rows(db) == []
