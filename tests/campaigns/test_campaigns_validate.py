"""Campaign machinery: database, resume, worker pool, timeouts, comparisons, reports.

The engine-independent parts are tested with an *oracle worker*
(``support.campaigns.OracleWorker``): a worker factory that "runs" a POWER test by
returning an outcome made from herd's own block (herd's log is loaded once per worker, like
a model), optionally altered, delayed, hung or crashed on request.  The real engine is
exercised by tests/test_compat_realrun.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SHARED, shared_path
from support.campaigns import OracleWorker, db_rows, name_and_arch, stop_after

from herdsman.herd_compat.campaigns.campaign_db import CampaignDB, Row
from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.campaigns.validate import CampaignConfig, make_row, run_campaign
from herdsman.herd_compat.campaigns.workers import TaskLost, WorkerPool, WorkerStartError
from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.formats.herdlog import read_expectations, read_herd_log
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import Limits
from herdsman.litmus.base.errors import InputError

HERE = Path(__file__).resolve().parents[1]  # tests/
ROOT = HERE.parent

# ----------------------------------------------------------------------------- oracle worker


def _test_name(path: str) -> str:
    return name_and_arch(path)[0]


def _power_sample(n: int) -> list[str]:
    tests = shared_path("power", "tests")
    names = sorted(p.name for p in tests.glob("*.litmus"))
    step = max(1, len(names) // n)
    return [str(tests / x) for x in names[::step][:n]]


def _oracle(**kw) -> OracleWorker:
    return OracleWorker(str(SHARED / "power" / "herd7-ppc.log"), **kw)


def _cfg(tmp_path: Path, tests: list[str], **kw) -> CampaignConfig:
    return CampaignConfig(
        inputs=tests,
        expect=str(shared_path("power", "herd7-ppc.log")),
        model="power",
        db=str(tmp_path / "c.sqlite"),
        progress=False,
        **kw,
    )


def _run(cfg: CampaignConfig, oracle: OracleWorker | None = None):
    return run_campaign(cfg, worker=oracle or _oracle())


@pytest.fixture
def fork_workers(monkeypatch):
    """In-process campaigns fork their workers (faster than spawn, the default, which the
    subprocess tests below exercise)."""
    monkeypatch.setenv("HERDSMAN_MP_START", "fork")


# ----------------------------------------------------------------------------- database


def test_database_records_and_fingerprint(tmp_path: Path) -> None:
    db = CampaignDB(str(tmp_path / "sub" / "x.sqlite"))
    assert db.start("fp1", resume=False) == 0
    db.record(Row("k1", "a.litmus", "A", "done", "identical", "Test A...", {}, 0.5, 0.7))
    db.record(Row("k2", "b.litmus", "B", "error", "error", "b.litmus:1:1: error: x"))
    db.close()
    db = CampaignDB(str(tmp_path / "sub" / "x.sqlite"))
    assert db.get_meta("fingerprint") == "fp1"
    assert db.start("fp1", resume=True) == 2
    rows = db.rows()
    assert [r.seq for r in rows.values()] == [1, 2] and rows["k1"].cpu == 0.5
    assert db.done_keys() == {"k1", "k2"}
    db.record(Row("k3", "c.litmus", "C", "timeout", "timeout", "slow"))
    assert db.rows()["k3"].seq == 3
    with pytest.raises(InputError, match="other inputs"):
        db.start("fp2", resume=True)
    assert db.start("fp2", resume=False) == 0  # a fresh run drops old results
    assert db.rows() == {}
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_database_unwritable(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="cannot open campaign database"):
        CampaignDB(str(tmp_path / "file" / "db.sqlite"))


# ----------------------------------------------------------------------------- worker pool


def _slow_square_factory(arg):
    def work(task: str) -> dict:
        if task == "hang":
            time.sleep(3600)
        if task == "crash":
            os._exit(7)
        if task == "raise":
            raise ValueError("bad task")
        time.sleep(arg)
        return {"status": "done", "pid": os.getpid(), "value": int(task) ** 2}

    return work


def _failing_factory(arg):
    raise InputError("m.cat", 1, 1, "broken model")


def test_pool_results_timeouts_crashes() -> None:
    results: dict[str, dict | TaskLost] = {}
    pool = WorkerPool(_slow_square_factory, 0.01, jobs=2, timeout=1.0)
    tasks = ["1", "hang", "2", "crash", "3", "raise", "4"]
    t0 = time.monotonic()
    pool.run(tasks, lambda t, r: results.setdefault(t, r))
    elapsed = time.monotonic() - t0
    assert set(results) == set(tasks)
    assert [results[t]["value"] for t in ("1", "2", "3", "4")] == [1, 4, 9, 16]
    hang, crash, raised = results["hang"], results["crash"], results["raise"]
    assert isinstance(hang, TaskLost) and isinstance(crash, TaskLost)
    assert isinstance(raised, TaskLost)
    assert hang.cause == "timeout" and "time limit of 1 s" in hang.message
    assert hang.elapsed is not None and hang.elapsed >= 1.0
    assert crash.cause == "died" and "exit code 7" in crash.message
    assert raised.cause == "raised" and "ValueError: bad task" in raised.message
    assert pool.restarts == 2  # the hung worker was killed, the crashed one replaced
    assert elapsed < 30
    assert len({r["pid"] for r in results.values() if isinstance(r, dict)}) >= 2


def test_pool_tasks_queued_behind_a_lost_one_run_once() -> None:
    """A worker holds the next task in its pipe while it runs one: when the running task
    kills it (a crash, a hang past the limit), the queued task runs on the fresh worker,
    once, and only the lost task is reported lost."""
    calls: list[str] = []
    pool = WorkerPool(_slow_square_factory, 0.0, jobs=1, timeout=1.0)
    tasks = ["1", "crash", "2", "hang", "3"]

    def on_result(task: str, res: dict | TaskLost) -> None:
        calls.append(task)
        assert isinstance(res, TaskLost) == (task in ("crash", "hang")), (task, res)
        if task == "1":  # a slow parent: the worker has died on "crash" before the next send
            time.sleep(0.5)

    pool.run(tasks, on_result)
    assert sorted(calls) == sorted(tasks)
    assert pool.restarts == 2


def test_pool_factory_failure_stops() -> None:
    pool = WorkerPool(_failing_factory, None, jobs=2)
    with pytest.raises(WorkerStartError, match="m.cat:1:1: error: broken model"):
        pool.run(["a", "b"], lambda t, r: None)


# ----------------------------------------------------------------------------- campaigns


def test_campaign_identical_and_reports(tmp_path: Path, capsys, fork_workers) -> None:
    tests = _power_sample(24)
    cfg = _cfg(
        tmp_path,
        tests,
        workers=Workers(jobs=2),
        json_out=str(tmp_path / "r.json"),
        junit_out=str(tmp_path / "r.xml"),
    )
    outcome = _run(cfg)
    out = capsys.readouterr().out
    assert outcome.status == 0, out
    assert [r.category for r in outcome.rows] == ["identical"] * 24
    assert "identical                   24" in out and "total                       24" in out
    assert "CPU time: ours 0.24 s, herd" in out
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["summary"]["identical"] == 24 and len(doc["tests"]) == 24
    suite = ET.parse(tmp_path / "r.xml").getroot()
    assert suite.get("tests") == "24" and suite.get("failures") == "0"
    # the database has one row per test with the full block
    rows = (
        sqlite3.connect(tmp_path / "c.sqlite")
        .execute("SELECT name, result_text FROM results")
        .fetchall()
    )
    assert len(rows) == 24 and all(t.startswith(f"Test {n} ") for n, t in rows)


def test_campaign_categories(tmp_path: Path, capsys, fork_workers) -> None:
    tests = _power_sample(12)
    names = [_test_name(t) for t in tests]
    herd = {r.name: r for r in read_herd_log(SHARED / "power" / "herd7-ppc.log")}
    states_victim = next(n for n in names[2:] if len(herd[n].states) > 1)
    actions = {
        names[0]: "verdict",
        states_victim: "states",
        names[1]: "counts",
        names[-1]: "hash",
        names[-2]: "input",
        names[-3]: "internal",
    }
    missing = tmp_path / "Unknown.litmus"
    missing.write_text("PPC NoSuchTestInHerdLog\n")
    actions["NoSuchTestInHerdLog"] = "verdict"
    cfg = _cfg(
        tmp_path, tests + [str(missing)], workers=Workers(jobs=2), junit_out=str(tmp_path / "j.xml")
    )
    oracle = _oracle(actions=actions)
    with pytest.raises(KeyError):  # the oracle has no block for an unknown test
        oracle(RunConfig())(str(missing))
    actions.pop("NoSuchTestInHerdLog")
    outcome = _run(cfg, oracle)
    out = capsys.readouterr().out
    by_name = {r.name: r for r in outcome.rows}
    assert by_name[names[0]].category == "verdict"
    assert by_name[states_victim].category == "states"
    assert by_name[states_victim].details["herd_only"] == [herd[states_victim].states[-1]]
    assert by_name[names[1]].category == "counts"
    assert by_name[names[-1]].category == "hash"
    assert by_name[names[-2]].category == "error"
    assert by_name[names[-3]].category == "error"
    assert "internal error (RuntimeError: boom)" in by_name[names[-3]].result_text
    assert by_name[names[-2]].result_text.endswith("error: unknown PPC instruction 'lwzz'")
    assert outcome.status == 2  # input errors win over mismatches
    assert f"VERDICT MISMATCH: {names[0]}" in out
    assert f"  herd only: {herd[states_victim].states[-1]}" in out
    assert "  Positive/Negative: herd " in out
    junit = ET.parse(tmp_path / "j.xml").getroot()
    assert junit.get("failures") == "4" and junit.get("errors") == "3"


def test_campaign_table_expectation_and_missing(tmp_path: Path, capsys, fork_workers) -> None:
    tests = _power_sample(6)
    table = shared_path("power", "ppc.allowed")
    cfg = _cfg(tmp_path, tests, workers=Workers(jobs=1))
    cfg.expect = str(table)
    cfg.expect_column = 1  # hardware column: differs from the model on Ok/No tests
    outcome = _run(cfg)
    exp = read_expectations(table, column=1)
    herd = {r.name: r for r in read_herd_log(SHARED / "power" / "herd7-ppc.log")}
    for r in outcome.rows:
        want = "identical" if exp[r.name].verdict == herd[r.name].verdict else "verdict"
        assert r.category == want
    out = capsys.readouterr().out
    assert "(verdict table)" in out
    done = _oracle()(RunConfig())(tests[0])
    row = make_row("k", "X.litmus", done, {}, None)
    assert row.category == "missing" and row.name == _test_name(tests[0])
    assert row.result_text == format_result(replace(herd[row.name], time=0.01))


def test_campaign_timeout_and_resume_in_process(tmp_path: Path, capsys, fork_workers) -> None:
    tests = _power_sample(8)
    names = [_test_name(t) for t in tests]
    trace = tmp_path / "trace.txt"
    cfg = _cfg(tmp_path, tests, workers=Workers(jobs=2), limits=Limits(time_limit=0.5))
    oracle = _oracle(actions={names[3]: "hang"}, trace=str(trace))
    outcome = _run(cfg, oracle)
    by_name = {r.name: r for r in outcome.rows}
    # a test over its time limit: exit status 3, as in every command
    assert by_name[names[3]].category == "timeout" and outcome.status == 3
    assert "time limit of" in by_name[names[3]].result_text
    assert sorted(trace.read_text().split()) == sorted(names)
    # resume: nothing left to do, nothing re-run, same results
    trace.write_text("")
    cfg.resume = True
    again = _run(cfg, oracle)
    assert trace.read_text() == ""
    assert [(r.name, r.category, r.result_text) for r in again.rows] == [
        (r.name, r.category, r.result_text) for r in outcome.rows
    ]
    # resume after losing some rows: only those run again
    conn = sqlite3.connect(cfg.db)
    conn.execute("DELETE FROM results WHERE name IN (?, ?)", (names[0], names[5]))
    conn.commit()
    conn.close()
    third = _run(cfg, oracle)
    assert sorted(trace.read_text().split()) == sorted([names[0], names[5]])
    assert len(third.rows) == 8
    assert "resuming" in capsys.readouterr().err


def test_campaign_worker_start_failure(tmp_path: Path, fork_workers) -> None:
    cfg = _cfg(tmp_path, _power_sample(2), workers=Workers(jobs=2))
    with pytest.raises(InputError, match="workers cannot start: model.cat:3:1"):
        _run(cfg, _oracle(fail_start=True))


# ----------------------------------------------------------------------------- CLI, killed


def _validate_cmd(tmp_path: Path, index: Path, db: Path, *extra: str) -> list[str]:
    """``herdsman validate`` with the oracle as worker (see support/campaigns.py)."""
    return [
        sys.executable,
        str(HERE / "support" / "campaigns.py"),
        f"@{index}",
        "--model",
        "power",
        "--expect",
        str(SHARED / "power" / "herd7-ppc.log"),
        "--db",
        str(db),
        "--jobs",
        "2",
        *extra,
    ]


def _env(extra: dict) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")])
    env["HERDSMAN_TEST_ORACLE"] = json.dumps(extra)
    return env


def test_cli_sigkill_and_resume(tmp_path: Path) -> None:
    tests = _power_sample(30)
    index = tmp_path / "sample"
    index.write_text("\n".join(os.path.relpath(t, tmp_path) for t in tests) + "\n")
    trace = tmp_path / "trace.txt"
    extra = {"log": str(SHARED / "power" / "herd7-ppc.log"), "sleep": 0.1, "trace": str(trace)}
    db = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(
        _validate_cmd(tmp_path, index, db),
        env=_env(extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    stop_after(proc, db, 8, timeout=60, poll=0.05)
    proc.wait()
    before = db_rows(db)
    assert 8 <= len(before) < 30, "the campaign was not killed mid-run"
    time.sleep(0.5)  # orphaned workers die with their parent (PR_SET_PDEATHSIG)
    ran_before = trace.read_text().split()
    resumed = subprocess.run(
        _validate_cmd(tmp_path, index, db, "--resume"),
        env=_env(extra),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{len(before)} tests done" in resumed.stderr
    after = db_rows(db)
    assert len(after) == 30 and len({k for k, *_ in after}) == 30
    done_before = {name for _, name, _, _ in before}
    ran_after = trace.read_text().split()[len(ran_before) :]
    assert not done_before & set(ran_after), "finished tests were run again"
    assert set(ran_after) | done_before == {_test_name(t) for t in tests}
    # the same as a run that was not interrupted: the oracle's answer is herd's block
    herd = {r.name: r for r in read_herd_log(SHARED / "power" / "herd7-ppc.log")}
    assert all(cat == "identical" for _, _, cat, _ in after)
    assert all(_same_but_time(text, format_result(herd[name])) for _, name, _, text in after)
    assert "identical                   30" in resumed.stdout


def test_cli_validate_exit_status_on_mismatch(tmp_path: Path) -> None:
    tests = _power_sample(3)
    index = tmp_path / "idx"
    index.write_text("\n".join(tests) + "\n")
    name = _test_name(tests[1])
    extra = {"log": str(SHARED / "power" / "herd7-ppc.log"), "actions": {name: "verdict"}}
    r = subprocess.run(
        _validate_cmd(tmp_path, index, tmp_path / "m.sqlite", "--json", str(tmp_path / "m.json")),
        env=_env(extra),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"VERDICT MISMATCH: {name}" in r.stdout
    assert json.loads((tmp_path / "m.json").read_text())["summary"]["verdict"] == 1


def test_cli_ctrl_c_keeps_results(tmp_path: Path) -> None:
    tests = _power_sample(20)
    index = tmp_path / "idx"
    index.write_text("\n".join(tests) + "\n")
    # 0.5 s a test: room for a poller on a loaded machine to see 3 rows before the end
    extra = {"log": str(SHARED / "power" / "herd7-ppc.log"), "sleep": 0.5}
    db = tmp_path / "int.sqlite"
    proc = subprocess.Popen(
        _validate_cmd(tmp_path, index, db),
        env=_env(extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stop_after(proc, db, 3, timeout=60, poll=0.05, sig=signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err and "continue with --resume" in err
    kept = db_rows(db)
    assert 3 <= len(kept) < 20
    assert all(cat == "identical" for _, _, cat, _ in kept)


def test_progress_bar_runs(tmp_path: Path, capsys, fork_workers) -> None:
    cfg = _cfg(tmp_path, _power_sample(3), workers=Workers(jobs=1))
    cfg.progress = True
    assert _run(cfg).status == 0
    err = capsys.readouterr().err
    assert "validate" in err and "3/3" in err


def _same_but_time(ours: str, herds: str) -> bool:
    time_line = re.compile(r"(?m)^Time (\S+) \S+$")
    return time_line.sub(r"Time \1", ours) == time_line.sub(r"Time \1", herds)


def _sleepy_factory(arg):
    time.sleep(arg)
    return lambda task: {"status": "done"}


def test_pool_start_timeout() -> None:
    pool = WorkerPool(_sleepy_factory, 30, jobs=1, start_timeout=1.0, start_method="fork")
    t0 = time.monotonic()
    with pytest.raises(WorkerStartError, match="did not start within 1 s"):
        pool.run(["a"], lambda t, r: None)
    assert time.monotonic() - t0 < 10
