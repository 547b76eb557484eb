"""bench/bench_relalg.py runs on a small sample, and its three representations agree."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_relalg.py"


def load():
    spec = importlib.util.spec_from_file_location("bench_relalg", BENCH)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def test_quick_run_prints_every_operation(capsys) -> None:
    mod = load()
    assert mod.main(["--quick"]) == 0
    out = capsys.readouterr().out
    for op in ("union", "seq", "inverse", "closure", "acyclic", "ppc-like"):
        assert op in out
    assert "rows/int" in out and "numpy/int" in out


def test_representations_agree() -> None:
    mod = load()
    rng = random.Random(7)
    for n in (3, 12, 30):
        impls = {"int": mod.Ints(n), "rows": mod.Rows(n), "numpy": mod.Numpy(n)}
        mod.check_agree(impls, n, rng)  # raises if any disagrees
