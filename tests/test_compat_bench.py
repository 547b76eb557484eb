"""bench/campaign.py on small samples: its report (summary, CPU ratio, slowest tests)."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


def _bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / "campaign.py"), "--db-dir", str(tmp_path), *args],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_bench_report_with_oracle(tmp_path: Path, shared: Path) -> None:
    """The report's plumbing, with herd's own answers as the worker (always identical)."""
    r = _bench(tmp_path, "--sets", "power,x86gen-tso", "--sample", "12", "--jobs", "1",
               "--worker", "test_compat_campaign:oracle_worker")  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "== power: 12 tests, model power" in out and "== x86gen-tso: 12 tests" in out
    assert out.count("identical                   12") == 2
    assert re.search(r"CPU time: ours 0\.12 s, herd \d+\.\d+ s on the same 12 tests", out)
    slow = out[out.index("ten slowest tests of power"):].splitlines()[1:12]
    assert slow[0].split() == ["test", "ours", "(s)", "herd", "(s)", "ratio"]
    assert len(slow) == 11 and all(len(line.split()) == 4 for line in slow[1:])
    assert re.search(r"all sets: ours 0\.24 s CPU, herd \d+\.\d+ s \(ratio \d", out)


def test_bench_real_engine_sample(tmp_path: Path, shared: Path) -> None:
    for mod in ("litmus.parser", "litmus.hash", "cat.api", "engine.run"):
        try:
            importlib.import_module(mod)
        except ImportError:
            pytest.skip(f"needs {mod}")
    r = _bench(tmp_path, "--sets", "power,x86-tso", "--sample", "4", "--jobs", "1")
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert "== power: 4 tests, model power" in r.stdout
    assert "ten slowest tests of x86-tso" in r.stdout
    assert re.search(r"CPU time: ours \d+\.\d+ s, herd", r.stdout)
