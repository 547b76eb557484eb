"""bench/fuzz_inputs.py on a small sample: mutated tests give results or clean errors."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "fuzz_inputs.py"


def _bench():
    spec = importlib.util.spec_from_file_location("fuzz_inputs", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_fuzz_sample_breaks_no_rule(tmp_path, capsys):
    bench = _bench()
    assert bench.main(["--count", "40", "--seed", "3", "--keep", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "40 mutated tests" in out and "0 broke the rules" in out
    assert not list(tmp_path.iterdir())  # nothing kept when nothing failed


def test_fuzz_judge_catches_what_it_must():
    bench = _bench()
    assert bench.problem(0, "") is None
    assert bench.problem(2, "t.litmus:3:4: error: expected a register\n") is None
    assert bench.problem(2, "herdsman run: internal error (KeyError: 3)") == "internal error"
    assert bench.problem(2, "Traceback (most recent call last):\n") == "internal error"
    assert bench.problem(2, "") == "exit status 2 without a message"
    assert bench.problem(2, "something went wrong\n") is not None
    assert bench.problem(3, "") == "exit status 3"
