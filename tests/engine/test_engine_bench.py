"""bench/bench_engine.py runs, on a tiny sample, and reports no mismatch."""

from __future__ import annotations

import importlib.util

from conftest import ROOT, shared_path


def load_bench():
    spec = importlib.util.spec_from_file_location(
        "bench_engine", ROOT / "bench" / "bench_engine.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_tiny_sample(capsys):
    shared_path("power", "herd7-ppc.log")
    bench = load_bench()
    assert bench.main(["--tiny", "--model", "oracle-power", "--profile"]) == 0
    out = capsys.readouterr().out
    assert "TOTAL 4 tests" in out and "mismatches 0" in out
    assert "partial_violation" in out and "engine (threads, skeletons, search)" in out
    for name in bench.TINY:
        assert name in out


def test_bench_sample_has_herds_slowest():
    bench = load_bench()
    tests = shared_path("power", "tests")
    recs = bench.herd_times(shared_path("power", "herd7-ppc.log"))
    files = [f for f in (tests / "@all").read_text().split() if f]
    names = {f: bench.header_name(tests / f) for f in files}

    class Args:
        names = ""
        tiny = False
        all = False
        spread = 40

    chosen = bench.pick(files, recs, names, Args)
    slowest = sorted(recs.values(), key=lambda r: -(r.time or 0))[:15]
    assert {r.name for r in slowest} <= {names[f] for f in chosen}
    assert "MOREDETOUR0956" in {names[f] for f in chosen}
