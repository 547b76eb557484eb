"""The TruSt benchmarks run, on small samples, and report what they must.

The campaign-sized runs (all 8141 POWER tests under sc, SB+NW+mfences up to N=10, all
POWER tests with 3+ threads under bounds 0..2) are for ``bench/``; here a sample of a few
hundred POWER tests is compared with the reference engine, and the other scripts run on
their smallest sizes.
"""

from __future__ import annotations

from conftest import shared_path
from support.bench import load_bench


def test_power_sample_under_sc(capsys):
    shared_path("power", "tests")
    bench = load_bench("bench_trust")
    assert bench.main(["--sets", "ppc", "--ppc-step", "25"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("ppc sc"))
    assert "326 tests (0 refused), mismatches 0, duplicates 0" in line
    assert "blocked 0 (0.00 %)" in line
    assert "exec/s" in out and out.rstrip().endswith("OK")


def test_x86_sample_with_both_checkers(capsys):
    shared_path("x86", "generated")
    bench = load_bench("bench_trust")
    assert bench.main(["--sets", "x86", "--x86-step", "25", "--checkers"]) == 0
    out = capsys.readouterr().out
    assert "trust[auto]" in out and "trust[cat]" in out
    assert out.count("mismatches 0, duplicates 0") == 4  # sc, tso, pso, ALL


def test_sbnw_family(capsys):
    bench = load_bench("bench_trust_sbnw")
    assert bench.main(["--max", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [x.split() for x in out if x.startswith(("sc ", "tso "))]
    assert len(rows) == 8
    assert [int(r[2]) for r in rows[:4]] == [3, 4, 8, 22]  # sc executions, N = 0..3
    assert all(r[2] == r[4] for r in rows)  # TruSt and the reference agree


def test_memory_in_fresh_processes(capsys):
    bench = load_bench("bench_trust_memory")
    assert bench.main(["--sizes", "2,3", "--no-check"]) == 0
    out = capsys.readouterr().out
    assert "executions grew 9x" in out and "peak RSS max/min" in out
    assert bench.increments(2).count("INC EAX") == 2


def test_preemption_sample(capsys):
    shared_path("power", "tests")
    bench = load_bench("bench_trust_preemption")
    assert bench.main(["--step", "400", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "5 tests with 3+ threads" in out and "missed 0, duplicates 0" in out
