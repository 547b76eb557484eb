"""bench/bench_parse.py on a small sample: it runs, checks, and reports every test ok."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import shared_path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_parse.py"


def test_bench_parse_on_a_sample(capsys):
    shared = shared_path()
    spec = importlib.util.spec_from_file_location("bench_parse", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--shared", str(shared), "--sample", "60"]) == 0
    out = capsys.readouterr().out
    assert ", 0 bad" in out
    for what in ("campaign", "warm", "uncached"):
        assert f"{what} " in out and "ms/test" in out
