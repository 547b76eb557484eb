"""Campaign durability: one campaign per database (a second is refused while the first
runs), tests whose worker died run again (once at once, then by ``--resume``), stored rows
checked against their checksums, file names that are not UTF-8, and the note about
dropped results.

The campaigns run the real engine (reference) on a few X86 examples
(``litmus/examples/x86``) under the built-in ``tso`` model; their expectations are a log
of ``herdsman herd7`` on the same tests, made once per module, so that a complete campaign
is all identical (comparisons with herd's own logs are tests/test_compat_campaign.py's
job).  The worker factories below wrap the engine's worker to make a test wait for a gate
file or SIGKILL its own worker process mid-test: test-only hooks, passed from Python as
the campaign's worker factory (production workers honour no such hook);
``python tests/test_campaign_durability.py VALIDATE-ARGS...`` runs ``herdsman validate``
with the gated worker of ``$HERDSMAN_TEST_GATE``.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.campaigns import db_rows

from herdsman.herd_compat.campaigns.campaign_db import CampaignDB
from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
from herdsman.herd_compat.campaigns.worker import engine_worker
from herdsman.herd_compat.cli.main import guarded, main, validate
from herdsman.herd_compat.cli.run import run_tests
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.run_file import Done, Failed
from herdsman.litmus.base.errors import InputError

HERE = Path(__file__).resolve().parents[1]  # tests/
ROOT = HERE.parent
X86 = ROOT / "litmus" / "examples" / "x86"
NAMES = ["SB", "MP", "LB", "IRIW", "2+2W", "R"]
TESTS = [str(X86 / f"{n}.litmus") for n in NAMES]
#: herd's candidate enumeration: the engine with the fewest moving parts
ENGINE = "reference"

# ----------------------------------------------------------------------------- workers


def _name(path: str) -> str:
    return os.path.basename(path).removesuffix(".litmus")


def _wait_for(cond: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not come true in time")
        time.sleep(0.02)


@dataclass
class GatedWorker:
    """The engine's worker, but each test after a worker's first waits until the file
    ``gate`` exists: the campaign stays open, with results stored, until the test says."""

    gate: str

    def __call__(self, cfg: RunConfig) -> Callable[[str], Done | Failed]:
        work = engine_worker(cfg)
        ran = [0]

        def task(path: str) -> Done | Failed:
            if ran[0]:
                _wait_for(lambda: os.path.exists(self.gate))
            ran[0] += 1
            return work(path)

        return task


@dataclass
class KillingWorker:
    """The engine's worker, but the test ``victim`` SIGKILLs its worker process mid-test
    while fewer than ``kills`` kills are counted in the file ``counter``; every test run
    is appended to the file ``trace``."""

    victim: str
    counter: str
    kills: int
    trace: str

    def __call__(self, cfg: RunConfig) -> Callable[[str], Done | Failed]:
        work = engine_worker(cfg)

        def task(path: str) -> Done | Failed:
            with open(self.trace, "a", encoding="utf-8") as f:
                f.write(_name(path) + "\n")
            if _name(path) == self.victim:
                done = (
                    Path(self.counter).read_text().count("x") if os.path.exists(self.counter) else 0
                )
                if done < self.kills:
                    with open(self.counter, "a", encoding="utf-8") as f:
                        f.write("x")
                    os.kill(os.getpid(), signal.SIGKILL)
            return work(path)

        return task


@dataclass
class DeletingWorker:
    """The engine's worker, but the test ``at`` first deletes every row stored so far in
    the database ``db``, behind the campaign's back (as an unlocked second run did), once
    the ``before`` tests run before it are stored (the parent may still be storing the
    one before while a worker runs the next)."""

    at: str
    db: str
    before: int

    def __call__(self, cfg: RunConfig) -> Callable[[str], Done | Failed]:
        work = engine_worker(cfg)

        def task(path: str) -> Done | Failed:
            if _name(path) == self.at:
                conn = sqlite3.connect(self.db, timeout=30)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    (stored,) = conn.execute("SELECT COUNT(*) FROM results").fetchone()
                    if stored >= self.before:
                        break
                    time.sleep(0.01)
                conn.execute("DELETE FROM results")
                conn.commit()
                conn.close()
            return work(path)

        return task


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def expect(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A herd7 log of the X86 examples under tso, made by ``herdsman herd7``."""
    out, err = io.StringIO(), io.StringIO()
    assert run_tests(RunConfig(tests=TESTS, model="tso", engine=ENGINE), out, err) == 0, (
        err.getvalue()
    )
    log = tmp_path_factory.mktemp("expect") / "x86-tso.log"
    log.write_text(out.getvalue(), encoding="utf-8")
    return str(log)


@pytest.fixture
def fork_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process campaigns fork their workers (faster than spawn)."""
    monkeypatch.setenv("HERDSMAN_MP_START", "fork")


def _cfg(expect: str, db: Path, tests: list[str] = TESTS, **kw) -> CampaignConfig:
    return CampaignConfig(
        inputs=tests, expect=expect, model="tso", engine=ENGINE, db=str(db), progress=False, **kw
    )


def _argv(expect: str, db: Path, *extra: str, tests: list[str] = TESTS) -> list[str]:
    return [
        "validate",
        *tests,
        "--model",
        "tso",
        "--engine",
        ENGINE,
        "--expect",
        expect,
        "--db",
        str(db),
        *extra,
    ]


def _one_line(err: str) -> str:
    lines = err.strip().split("\n")
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ----------------------------------------------------------------------------- one writer


def test_second_campaign_is_refused_while_the_first_runs(
    tmp_path: Path, expect: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock follows the database file: a second campaign is refused whatever name it
    gives the file (the same path, a symbolic link, a hard link, a relative path through
    ``..``), with or without ``--resume``, and the first finishes with every result."""
    db = tmp_path / "c.sqlite"
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    symlink, hardlink = tmp_path / "link.sqlite", tmp_path / "hard.sqlite"
    symlink.symlink_to(db)
    relative = Path("..") / "sub" / ".." / "c.sqlite"
    gate = tmp_path / "gate"
    env = dict(os.environ, HERDSMAN_TEST_GATE=str(gate))
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")])
    first = subprocess.Popen(
        [sys.executable, __file__, *_argv(expect, db)[1:], "--jobs", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(lambda: len(db_rows(db)) >= 1 or first.poll() is not None)
        assert first.poll() is None, first.communicate()
        os.link(db, hardlink)  # made by the first campaign
        stored = len(db_rows(db))
        for name in (db, symlink, hardlink, relative):
            for extra in ([], ["--resume"]):
                assert main(_argv(expect, name, *extra)) == 2
                line = _one_line(capsys.readouterr().err)
                assert line == (
                    f"{name}:0:0: error: campaign database is in use by another herdsman "
                    f"validate (process {first.pid}); wait for it to finish or use another --db"
                )
        assert len(db_rows(db)) == stored  # the refused runs dropped nothing
        assert not (tmp_path / "hard.sqlite-wal").exists()  # nor opened the file
    finally:
        gate.touch()
        out, err = first.communicate(timeout=120)
    assert first.returncode == 0, out + err
    assert f"identical{len(NAMES):>21}" in out and f"total{len(NAMES):>25}" in out
    assert sorted(name for _, name, _, _ in db_rows(db)) == sorted(NAMES)
    # the lock went with the first campaign: the database opens again
    CampaignDB(str(db)).close()


def test_lock_is_per_opening_and_released_on_close(tmp_path: Path) -> None:
    path = str(tmp_path / "x.sqlite")
    first = CampaignDB(path)
    with pytest.raises(
        InputError, match=f"in use by another herdsman validate \\(process {os.getpid()}\\)"
    ):
        CampaignDB(path)
    first.close()
    CampaignDB(path).close()


def test_partial_report_is_never_a_clean_exit(
    tmp_path: Path, expect: str, fork_workers: None
) -> None:
    db = tmp_path / "c.sqlite"
    err = io.StringIO()
    cfg = _cfg(expect, db, workers=Workers(jobs=1))
    outcome = run_campaign(
        cfg, io.StringIO(), err, DeletingWorker(NAMES[-1], str(db), len(NAMES) - 1)
    )
    assert outcome.status == 3 and len(outcome.rows) == 1
    assert f"note: {len(NAMES) - 1} of {len(NAMES)} tests have no result in {db}" in err.getvalue()
    cfg.resume = True
    assert run_campaign(cfg, io.StringIO(), io.StringIO()).status == 0


# ----------------------------------------------------------------------------- dead workers


def test_killed_worker_retried_at_once(tmp_path: Path, expect: str, fork_workers: None) -> None:
    trace = tmp_path / "trace"
    worker = KillingWorker("LB", str(tmp_path / "kills"), 1, str(trace))
    outcome = run_campaign(
        _cfg(expect, tmp_path / "c.sqlite", workers=Workers(jobs=2)),
        io.StringIO(),
        io.StringIO(),
        worker,
    )
    assert outcome.status == 0
    assert [r.category for r in outcome.rows] == ["identical"] * len(NAMES)
    assert trace.read_text().split().count("LB") == 2  # killed once, then run again


def test_killed_worker_lost_then_retried_by_resume(
    tmp_path: Path, expect: str, fork_workers: None
) -> None:
    trace = tmp_path / "trace"
    worker = KillingWorker("LB", str(tmp_path / "kills"), 2, str(trace))
    cfg = _cfg(
        expect, tmp_path / "c.sqlite", workers=Workers(jobs=2), json_out=str(tmp_path / "r.json")
    )
    out, err = io.StringIO(), io.StringIO()
    outcome = run_campaign(cfg, out, err, worker)
    assert outcome.status == 3, out.getvalue() + err.getvalue()
    lb = next(r for r in outcome.rows if r.name == "LB")
    assert (lb.status, lb.category) == ("lost", "error")
    assert "worker process died (exit code -9, 2 times)" in lb.result_text
    assert f"{'of which lost':<22}{1:>8}  (worker died; --resume runs them again)" in out.getvalue()
    assert "1 tests were lost to dead worker processes; run again with --resume" in err.getvalue()
    assert json.loads((tmp_path / "r.json").read_text())["tests_lost"] == 1
    assert sorted(trace.read_text().split()) == sorted(NAMES + ["LB"])
    # --resume runs the lost test again, and only it
    trace.write_text("")
    cfg.resume = True
    err = io.StringIO()
    again = run_campaign(cfg, io.StringIO(), err, worker)
    assert f"{len(NAMES) - 1} tests done, 1 to run" in err.getvalue()
    assert trace.read_text().split() == ["LB"]
    assert again.status == 0
    assert [(r.name, r.status, r.category) for r in again.rows] == [
        (n, "done", "identical") for n in NAMES
    ]


# ----------------------------------------------------------------------------- integrity


def _flip_byte(db: Path, name: str) -> None:
    conn = sqlite3.connect(db)
    (text,) = conn.execute("SELECT result_text FROM results WHERE name = ?", (name,)).fetchone()
    raw = bytearray(text.encode())
    raw[raw.index(b"Positive") + 10] ^= 0x01  # a digit of the Positive count
    conn.execute("UPDATE results SET result_text = ? WHERE name = ?", (raw.decode(), name))
    conn.commit()
    conn.close()


def _bad_value(db: Path, name: str) -> None:
    conn = sqlite3.connect(db)
    conn.execute("UPDATE results SET cpu = 'fast' WHERE name = ?", (name,))
    conn.commit()
    conn.close()


def _smash_table(db: Path, name: str) -> None:
    """Garbage over the root page of the results table: SQLite's own corruption."""
    conn = sqlite3.connect(db)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'results'").fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * size + 8)
        f.write(b"\xa5" * (size - 16))


@pytest.mark.parametrize("corrupt", [_flip_byte, _bad_value, _smash_table])
def test_corrupt_database_refused_on_resume(
    tmp_path: Path,
    expect: str,
    fork_workers: None,
    capsys: pytest.CaptureFixture[str],
    corrupt: Callable[[Path, str], None],
) -> None:
    db = tmp_path / "c.sqlite"
    assert main(_argv(expect, db)) == 0
    capsys.readouterr()
    assert not Path(str(db) + "-wal").exists() or Path(str(db) + "-wal").stat().st_size == 0
    conn = sqlite3.connect(db)
    (rowid, key) = conn.execute("SELECT rowid, key FROM results WHERE name = 'MP'").fetchone()
    conn.close()
    corrupt(db, "MP")
    assert main(_argv(expect, db, "--resume")) == 2
    line = _one_line(capsys.readouterr().err)
    if corrupt is _smash_table:
        assert line.startswith(f"{db}:0:0: error: corrupt campaign database (")
    else:
        assert line == (
            f"{db}:0:0: error: corrupt campaign database: row {rowid} (test {key}) does not "
            "match its checksum; run without --resume to start afresh, or use another --db"
        )


def test_flipped_byte_seen_in_the_final_report_too(tmp_path: Path, expect: str) -> None:
    """The report reads the rows back through the same check: a flipped byte is never
    reported as a result."""
    db_path = tmp_path / "c.sqlite"
    db = CampaignDB(str(db_path))
    db.start("fp", resume=False)
    from herdsman.herd_compat.campaigns.campaign_db import Row

    db.record(Row("k", "MP.litmus", "MP", "done", "identical", "Test MP Allowed\nPositive: 0"))
    _flip_byte(db_path, "MP")
    with pytest.raises(InputError, match=r"row 1 \(test k\) does not match its checksum"):
        db.rows()
    db.close()


# ----------------------------------------------------------------------------- file names


def test_non_utf8_file_name(
    tmp_path: Path, expect: str, fork_workers: None, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "tests"
    folder.mkdir()
    raw = os.path.join(os.fsencode(folder), b"SB\xff.litmus")
    with open(raw, "w", encoding="utf-8") as f:
        f.write((X86 / "SB.litmus").read_text(encoding="utf-8").replace("X86 SB", "X86 SBodd", 1))
    shutil.copy(X86 / "MP.litmus", folder / "MP.litmus")
    db = tmp_path / "c.sqlite"
    report = tmp_path / "r.json"
    assert main(_argv(expect, db, "--json", str(report), tests=[str(folder)])) == 1
    out = capsys.readouterr().out
    shown = f"{folder}/SB\\xff.litmus"
    assert f"MISSING EXPECTATION: SBodd ({shown})" in out
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert {t["path"] for t in doc["tests"]} == {shown, str(folder / "MP.litmus")}
    # stored losslessly: the file's own bytes
    conn = sqlite3.connect(db)
    keys = [k for (k,) in conn.execute("SELECT key FROM results")]
    conn.close()
    assert os.path.realpath(raw) in keys and os.fsdecode(os.path.realpath(raw)) not in keys
    # and read back as the same test: --resume has nothing to do
    assert main(_argv(expect, db, "--resume", tests=[str(folder)])) == 1
    assert "2 tests done, 0 to run" in capsys.readouterr().err


# ----------------------------------------------------------------------------- notes


def test_note_on_dropped_results(tmp_path: Path, expect: str, fork_workers: None) -> None:
    db = tmp_path / "c.sqlite"
    tests = TESTS[:3]
    err = io.StringIO()
    assert run_campaign(_cfg(expect, db, tests), io.StringIO(), err).status == 0
    assert "starting afresh" not in err.getvalue()
    err = io.StringIO()
    assert run_campaign(_cfg(expect, db, tests), io.StringIO(), err).status == 0
    assert f"note: {db} had 3 results; starting afresh\n" in err.getvalue()
    assert len(db_rows(db)) == 3


if __name__ == "__main__":
    worker = GatedWorker(os.environ["HERDSMAN_TEST_GATE"])
    sys.exit(guarded("herdsman validate", lambda: validate(sys.argv[1:], worker)))


_HOLD_DIFF_JOURNAL = """
import os, sys, time
from herdsman.herd_compat.campaigns.diff_db import DiffDB
db = DiffDB(sys.argv[1])
db.start("fingerprint", False)
print("held", flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.02)
db.set_meta("finished", "yes")
db.close()
"""


def test_diff_journal_lock_follows_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``herdsman diff --db`` through a symbolic link, a hard link or a path through ``..``
    to a journal another process holds is refused, and the holder goes on unharmed."""
    journal, gate = tmp_path / "j.sqlite", tmp_path / "gate"
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_DIFF_JOURNAL, str(journal), str(gate)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        symlink, hardlink = tmp_path / "link.sqlite", tmp_path / "hard.sqlite"
        symlink.symlink_to(journal)
        os.link(journal, hardlink)
        sb = str(X86 / "SB.litmus")
        for name in (journal, symlink, hardlink, Path("..") / "sub" / ".." / "j.sqlite"):
            assert main(["diff", "tso", "sc", sb, "--db", str(name), "--no-progress"]) == 2
            line = _one_line(capsys.readouterr().err)
            assert line == (
                f"{name}:0:0: error: diff journal is in use by another herdsman diff "
                f"(process {holder.pid}); wait for it to finish or use another --db"
            )
    finally:
        gate.touch()
        holder.wait(timeout=60)
    assert holder.returncode == 0
    conn = sqlite3.connect(journal)
    assert conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone() == (
        "fingerprint",
    )
    assert conn.execute("SELECT value FROM meta WHERE key = 'finished'").fetchone() == ("yes",)
    conn.close()
