"""bench/campaign.py on small samples: its report (summary, CPU ratio, slowest tests)."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

from support.campaigns import OracleWorker

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parents[1]  # tests/


def _bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / "campaign.py"), "--db-dir", str(tmp_path), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _bench_module():
    """bench/campaign.py, imported as a module."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        return importlib.import_module("campaign")
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_bench_report_with_oracle(tmp_path: Path, shared: Path, capsys, monkeypatch) -> None:
    """The report's plumbing, with herd's own answers as the worker (always identical)."""
    monkeypatch.setenv("HERDSMAN_MP_START", "fork")
    campaign = _bench_module()
    argv = ["--db-dir", str(tmp_path), "--sets", "power,x86gen-tso", "--sample", "12"]
    status = campaign.main([*argv, "--jobs", "1"], worker=lambda s: OracleWorker(str(s.log)))
    out = capsys.readouterr().out
    assert status == 0, out
    assert "== power: 12 tests, model power" in out and "== x86gen-tso: 12 tests" in out
    assert out.count("identical                   12") == 2
    assert re.search(r"CPU time: ours 0\.12 s, herd \d+\.\d+ s on the same 12 tests", out)
    slow = out[out.index("ten slowest tests of power") :].splitlines()[1:12]
    assert slow[0].split() == ["test", "ours", "(s)", "herd", "(s)", "ratio"]
    assert len(slow) == 11 and all(len(line.split()) == 4 for line in slow[1:])
    assert re.search(r"all sets: ours 0\.24 s CPU, herd \d+\.\d+ s \(ratio \d", out)


def test_bench_real_engine_sample(tmp_path: Path, shared: Path) -> None:
    r = _bench(tmp_path, "--sets", "power,x86-tso", "--sample", "4", "--jobs", "1")
    assert r.returncode == 0, r.stdout + r.stderr  # every test identical to herd's
    assert "== power: 4 tests, model power" in r.stdout
    assert "identical                    4" in r.stdout
    assert "ten slowest tests of x86-tso" in r.stdout
    assert re.search(r"CPU time: ours \d+\.\d+ s, herd", r.stdout)


def test_herd_slow_lines_counts_tests_where_we_are_slower() -> None:
    """The line behind the target "not slower than herd on any test herd took over 1 s"."""
    campaign = _bench_module()
    from herdsman.herd_compat.campaigns.campaign_db import Row
    from herdsman.herd_compat.campaigns.validate import CampaignOutcome

    def row(name: str, cpu: float, herd: float, status: str = "done") -> Row:
        return Row(name, name, name, status, "identical", "", cpu=cpu, herd_time=herd)

    rows = [row("A", 0.2, 4.0), row("B", 3.0, 2.0), row("C", 5.0, 0.5), row("D", 0.1, 1.5)]
    lines = campaign.herd_slow_lines(CampaignOutcome(0, rows, None, ""))
    assert lines[0] == (
        "tests herd took over 1 s: 3; ours done 3, slower than herd on 1; worst ratio 1.500 (B)"
    )
    assert lines[1:] == ["  slower: B ours 3.00 s, herd 2.00 s"]
    assert campaign.herd_slow_lines(CampaignOutcome(0, rows[2:3], None, "")) == []


def test_side_by_side_runs_herd7_on_a_sample(
    tmp_path: Path, shared: Path, capsys, monkeypatch
) -> None:
    """--herd-sample: the herd7 found ($HERD7; here a stand-in printing one Time line of
    0.5 s per test) runs on N of the campaign's tests, its times beside ours and its log's."""
    fake = tmp_path / "herd7"
    fake.write_text(
        '#!/bin/sh\nfor f in "$@"; do case "$f" in *.litmus) echo "Time T 0.50";; esac; done\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("HERD7", str(fake))
    monkeypatch.setenv("HERDSMAN_MP_START", "fork")
    campaign = _bench_module()
    argv = ["--db-dir", str(tmp_path), "--sets", "x86gen-tso", "--sample", "6", "--jobs", "1"]
    status = campaign.main([*argv, "--herd-sample", "3"], worker=lambda s: OracleWorker(str(s.log)))
    out = capsys.readouterr().out
    assert status == 0, out
    side = re.search(
        r"side by side on 3 tests: herd7 here \d+\.\d+ s CPU \(its Time lines 1\.50 s, "
        r"its log's (\d+\.\d+) s: x(\d+\.\d+)\), ours 0\.03 s: ratio \d",
        out,
    )
    assert side, out
    assert "whole campaign against herd7 at this machine's speed now" in out
    # each herd7 process's own peak memory (wait4), beside the workers'
    memory = re.search(r"peak resident memory of the largest process: herd7 (\d+) MB, ", out)
    assert memory and int(memory.group(1)) > 0, out
    assert re.search(r"the largest worker's peak resident memory (at most )?\d+ MB", out), out
    monkeypatch.setenv("HERD7", str(tmp_path / "none"))
    campaign.main([*argv, "--herd-sample", "3"], worker=lambda s: OracleWorker(str(s.log)))
    assert "side by side: no herd7 built here (set $HERD7)" in capsys.readouterr().out
