"""End-to-end runs with the real stack (litmus parser, cat models, engine): herdsman herd7
prints herd's blocks, herd's run-time behaviours, and a real campaign killed with SIGKILL
and resumed."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED, many_stores, shared_path, warm_model
from support.campaigns import db_rows, stop_after

from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
from herdsman.herd_compat.cli.main import main
from herdsman.herd_compat.cli.run import run_tests
from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.formats.herdlog import parse_herd_log, read_herd_log
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import Limits

ROOT = Path(__file__).resolve().parents[2]
PPC_TESTS = ["MP", "SB", "LB+lwsyncs", "MP+lwsync+addr", "2+2W", "IRIW+syncs", "WRC+lwsync+addr"]


def _herd_blocks(log: Path) -> dict[str, str]:
    return {r.name: format_result(r) for r in read_herd_log(log)}


def _no_time(text: str) -> str:
    return re.sub(r"(?m)^Time (\S+) \S+$", r"Time \1 T", text)


def _herd7(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    from herdsman.herd_compat.cli.herd7opts import parse_herd7_args

    cfg, _ = parse_herd7_args(argv)
    rc = run_tests(cfg, out, err)
    return rc, out.getvalue(), err.getvalue()


def _ppc(name: str) -> str:
    p = shared_path("power", "tests", name + ".litmus")
    return str(p)


def test_herd7_blocks_equal_herds(shared: Path) -> None:
    herd = _herd_blocks(shared / "power" / "herd7-ppc.log")
    rc, out, err = _herd7([_ppc(n) for n in PPC_TESTS])
    assert rc == 0, err
    assert _no_time(out) == _no_time("".join(herd[n] for n in PPC_TESTS))


#: X86 tests whose herd blocks differ between x86tso.cat and sc.cat, and two that agree.
X86_TSO_NOT_SC = ["SB", "SB+rfi-pos", "R", "R+mfence+po", "MP", "SB+mfences"]


def test_x86_default_model_is_tso(shared: Path) -> None:
    tso = _herd_blocks(shared / "x86" / "herd7-tests-x86tso.log")
    sc = _herd_blocks(shared / "x86" / "herd7-tests-sc.log")
    assert [_no_time(tso[n]) != _no_time(sc[n]) for n in X86_TSO_NOT_SC] == [True] * 4 + [False] * 2
    files = [str(shared / "x86" / "tests" / f"{n}.litmus") for n in X86_TSO_NOT_SC]
    rc, out, err = _herd7(files)
    assert rc == 0, err
    assert [r.name for r in parse_herd_log(out)] == X86_TSO_NOT_SC
    assert _no_time(out) == _no_time("".join(tso[n] for n in X86_TSO_NOT_SC))


def test_duplicates_and_errors_continue(tmp_path: Path, shared: Path) -> None:
    mp = Path(_ppc("MP"))
    same = tmp_path / "MPcopy.litmus"
    same.write_text(mp.read_text())
    other = tmp_path / "MPother.litmus"
    other.write_text(mp.read_text().replace("li r1,1", "li r1,2"))
    broken = tmp_path / "broken.litmus"
    broken.write_text(mp.read_text().replace("lwz r1,0(r2)", "lwzz r1,0(r2)"))
    rc, out, err = _herd7([str(mp), str(same), str(other), str(broken), _ppc("SB")])
    assert rc == 2
    assert out.count("Test MP Allowed") == 1 and "Test SB Allowed" in out
    lines = err.strip().splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith(f"{other}:0:0: error: different hashes for test MP")
    assert lines[1].startswith(f"{broken}:")
    assert re.match(r"^\S+:\d+:\d+: error: .+$", lines[1])


def test_conds_keep_hash(tmp_path: Path, shared: Path) -> None:
    herd = {r.name: r for r in read_herd_log(shared / "power" / "herd7-ppc.log")}
    conds = tmp_path / "conds"
    conds.write_text('MP "~exists\n(1:r1=1 /\\ 1:r3=0)\n"\n')
    rc, out, err = _herd7(["-conds", str(conds), _ppc("MP")])
    assert rc == 0, err
    assert "Test MP Forbidden\n" in out and "\nNo\n" in out
    assert "Condition ~exists (1:r1=1 /\\ 1:r3=0)\n" in out
    assert f"Hash={herd['MP'].hash}\n" in out
    conds.write_text('MP "exists (1:r1=1 /\\ "\n')
    rc, out, err = _herd7(["-conds", str(conds), _ppc("MP")])
    assert rc == 2 and err.startswith(f"{conds}:1:1: error: bad condition for test MP")


def test_names_excl_and_candidates(tmp_path: Path) -> None:
    names = tmp_path / "names"
    names.write_text("SB\nMP\n")
    excl = tmp_path / "excl"
    excl.write_text("MP\n")
    rc, out, _ = _herd7(
        [
            "-names",
            str(names),
            "-excl",
            str(excl),
            "-candidates",
            "true",
            _ppc("MP"),
            _ppc("SB"),
            _ppc("LB"),
        ]
    )
    assert rc == 0
    assert [b.split()[1] for b in out.split("\n\n") if b] == ["SB"]
    assert re.search(r"(?m)^Candidates SB \d+$", out)


def test_show_writes_dot(tmp_path: Path) -> None:
    rc, out, err = _herd7(["-show", "prop", "-o", str(tmp_path), _ppc("MP")])
    assert rc == 0, err
    dot = (tmp_path / "MP.dot").read_text()
    assert dot.count("digraph G {") == 1 and "Test MP" in dot
    rc, out, err = _herd7(["-show", "all", "-nshow", "2", "-o", "-", _ppc("MP")])
    assert rc == 0, err
    assert out.startswith("\nDOTBEGIN MP\nDOTCOM dot\n") and "\nDOTEND MP\nTest MP Allowed" in out
    assert out.count("digraph G {") == 2


def test_run_command(capsys) -> None:
    assert main(["run", "--model", "power", _ppc("MP")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Test MP Allowed\nStates 4\n")


def test_bad_model_file(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.cat"
    bad.write_text('"bad"\nacyclic po | rfx as x\n')
    assert main(["herd7", "-model", str(bad), _ppc("MP")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:2:")


# ----------------------------------------------------------------------------- campaigns


def _sample(n: int) -> list[str]:
    """n POWER tests herd runs in 0.01-0.2 s, spread over the catalogue."""
    recs = [
        r
        for r in read_herd_log(shared_path("power", "herd7-ppc.log"))
        if r.time is not None and 0.01 <= r.time <= 0.2
    ]
    recs = recs[:: max(1, len(recs) // n)][:n]
    by_name = {}
    for f in (SHARED / "power" / "tests").glob("*.litmus"):
        first = f.open().readline().split()
        by_name[first[1].removesuffix(".litmus")] = str(f)
    return [by_name[r.name] for r in recs]


def _cmd(index: Path, db: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "herdsman.herd_compat.cli.main",
        "validate",
        f"@{index}",
        "--model",
        "power",
        "--expect",
        str(SHARED / "power" / "herd7-ppc.log"),
        "--db",
        str(db),
        *extra,
    ]


def _rows(db: Path) -> list[tuple[str, str, str]]:
    return [(k, c, _no_time(t)) for k, c, t in db_rows(db, "key, category, result_text")]


def test_real_campaign_sigkill_resume(tmp_path: Path) -> None:
    tests = _sample(30)
    assert len(tests) == 30
    index = tmp_path / "sample"
    index.write_text("\n".join(tests) + "\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    db = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(
        _cmd(index, db, "--jobs", "1"), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    stop_after(proc, db, 2, timeout=300, poll=0.01)
    proc.wait()
    before = _rows(db)
    if len(before) >= 30:
        pytest.fail("the campaign finished before it could be killed; use slower tests")
    assert len(before) >= 2
    resumed = subprocess.run(
        _cmd(index, db, "--resume", "--jobs", "2"),
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert f"resuming {db}: {len(before)} tests done" in resumed.stderr
    after = _rows(db)
    assert len(after) == 30 and len({k for k, _, _ in after}) == 30
    assert set(before) <= set(after)  # finished results were kept as they were
    straight_db = tmp_path / "straight.sqlite"
    straight = subprocess.run(
        _cmd(index, straight_db, "--jobs", "2"),
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert straight.returncode == resumed.returncode, straight.stdout + resumed.stdout
    assert sorted(after) == sorted(_rows(straight_db))
    assert straight.returncode == 0, straight.stdout + straight.stderr  # all identical


# ----------------------------------------------------------------------------- run --json


class _Lines(io.StringIO):
    """stdout that remembers how many complete lines it held at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.at_flush: list[int] = []

    def flush(self) -> None:
        self.at_flush.append(self.getvalue().count("\n"))
        super().flush()


def test_run_json_lines(tmp_path: Path, shared: Path) -> None:
    herd = {r.name: r for r in read_herd_log(shared / "power" / "herd7-ppc.log")}
    # the 0.5 s limit below (SLOWCO takes ~12 s, MP and SB a few ms: room for a loaded
    # machine and a full garbage collection of this process) applies to loading the model,
    # and to the first test of a process building the parsers and the model's code: warm
    # them up, untimed
    run_tests(RunConfig(tests=[_ppc("MP"), _ppc("SB")], model="power"), io.StringIO())
    broken = tmp_path / "broken.litmus"
    broken.write_text(Path(_ppc("MP")).read_text().replace("lwz r1,0(r2)", "lwzz r1,0(r2)"))
    slow_file = tmp_path / "SLOWCO.litmus"
    slow_file.write_text(many_stores(5))
    slow = str(slow_file)
    cfg = RunConfig(
        tests=[_ppc("MP"), str(broken), _ppc("SB"), slow],
        model="power",
        json=True,
        limits=Limits(time_limit=0.5),
    )
    out, err = _Lines(), io.StringIO()
    assert run_tests(cfg, out, err) == 2
    docs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert out.at_flush[:4] == [1, 2, 3, 4]  # one line as each test finishes
    assert [d["status"] for d in docs] == ["done", "error", "done", "timeout"]
    mp, bad, sb, late = docs
    assert (mp["file"], mp["test"], mp["arch"], mp["model"]) == (_ppc("MP"), "MP", "PPC", "PPC")
    rec = herd["MP"]
    assert (mp["hash"], mp["condition"], mp["kind"]) == (rec.hash, rec.condition, rec.kind)
    assert mp["verdict"] == rec.verdict_line and mp["time"] >= 0
    outcome = mp["outcome"]
    assert (outcome["positive"], outcome["negative"]) == (rec.obs_positive, rec.obs_negative)
    assert outcome["observed"] == ["1:r1", "1:r3"] and len(outcome["states"]) == len(rec.states)
    assert outcome["condition_holds"] is True and outcome["engine"] == "reference"
    assert sb["test"] == "SB" and sb["verdict"] == herd["SB"].verdict_line
    errors = err.getvalue().splitlines()
    # a test that cannot be read is named after its file
    assert bad == {"status": "error", "file": str(broken), "test": "broken", "error": errors[0]}
    assert errors[0].startswith(f"{broken}:") and "lwzz" in errors[0]
    assert (
        late["error"]
        == errors[1]
        == f"{slow}:0:0: warning: time limit of 0.5 s exceeded, no result"
    )
    assert "Test " not in out.getvalue()


def test_run_json_command_line(capsys) -> None:
    assert main(["run", "--json", "--model", "power", _ppc("MP")]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["outcome"]["program"] == "MP"
    assert main(["run", "--json", "-o", "-", _ppc("MP")]) == 2
    assert "--json prints JSON on stdout" in capsys.readouterr().err
    assert main(["run", "--help"]) == 0
    assert "JSON Lines" in capsys.readouterr().out


# ----------------------------------------------------------------------------- campaign rows


def test_real_campaign_errors_and_timeouts(tmp_path: Path, shared: Path, monkeypatch) -> None:
    """The engine's workers: a test that runs, bad input, and a test over its time limit
    (stopped by the engine, or killed by the pool when the machine is slow)."""
    monkeypatch.setenv("HERDSMAN_MP_START", "fork")
    warm_model("power")  # forked workers inherit it: the limit is the tests'
    broken = tmp_path / "broken.litmus"
    broken.write_text(Path(_ppc("SB")).read_text().replace("stw r1,0(r2)", "stw r1,0(r2"))
    slow = tmp_path / "SLOWCO.litmus"  # ten stores to one location: ~12 s of CPU
    slow.write_text(many_stores(5))
    cfg = CampaignConfig(
        inputs=[_ppc("MP"), str(broken), str(slow)],
        expect=str(shared / "power" / "herd7-ppc.log"),
        model="power",
        db=str(tmp_path / "c.sqlite"),
        # well above a worker's loading of the model (under the limit too: ~15 ms)
        limits=Limits(time_limit=0.25),
        progress=False,
    )
    outcome = run_campaign(cfg, io.StringIO(), io.StringIO())
    mp, bad, late = outcome.rows
    assert (mp.category, mp.status) == ("identical", "done")
    assert mp.result_text.startswith("Test MP Allowed\nStates 4\n") and mp.cpu is not None
    assert (bad.name, bad.category, bad.details) == ("broken", "error", {"input_error": True})
    assert bad.result_text.startswith(f"{broken}:")
    assert (late.name, late.category) == ("SLOWCO", "timeout")
    assert "time limit of" in late.result_text
    assert outcome.status == 2
