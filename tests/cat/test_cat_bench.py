"""The cat benchmark runs (on a small sample) and both models agree on it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_cat_quick() -> None:
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_cat.py"), "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "skeleton: 20 events" in r.stdout
    assert "power" in r.stdout and "µs/cand" in r.stdout
