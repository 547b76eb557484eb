"""Preemption-bounded TruSt (engine/preemption.py) against brute force.

The brute force (in bench/bench_trust_preemption.py) takes every execution the reference
engine finds and minimises, over all interleavings, the switches away from a thread that
still has events; TruSt with bound k must visit every execution with at most k
preemptions, none twice, and count each as the brute force does.
"""

from __future__ import annotations

import pytest
from conftest import ROOT, shared_path
from support.bench import load_bench

from herdsman.cat.api import load_model
from herdsman.engine.run import RunOptions
from herdsman.engine.trust.preemption import SLACK_RULES, PreemptionBound
from herdsman.engine.trust.run import explore_program
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

EXAMPLES = ROOT / "litmus" / "examples"


@pytest.fixture(scope="module")
def bench():
    return load_bench("bench_trust_preemption")


def test_hundred_tests_with_three_threads_k_0_1_2(bench):
    shared_path("power", "tests")
    model = load_model("sc")
    paths = bench.pick_tests(step=37, limit=100)
    assert len(paths) == 100
    within = {0: 0, 1: 0, 2: 0}
    for p in paths:
        test = parse_file(p)
        assert test.nthreads >= 3
        for row in bench.check_test(test, model):
            assert row["ok"], (test.name, row)
            within[row["k"]] += row["want"]
    assert 0 < within[0] < within[1] < within[2]


def test_literal_genmc_slack_misses_executions(bench):
    """Why the slack is GenMC's plus the spawning thread litmus tests do not have."""
    test = parse_file(shared_path("power", "tests", "DETOUR0634.litmus"))
    model = load_model("sc")
    (row,) = bench.check_test(test, model, bounds=(0,), slack="genmc")
    assert row["missed"] > 0
    (row,) = bench.check_test(test, model, bounds=(0,))
    assert row["ok"] and row["missed"] == 0


def test_examples(bench):
    model = load_model("sc")
    for f in sorted((EXAMPLES / "ppc").glob("*.litmus")):
        for row in bench.check_test(parse_file(f), model):
            assert row["ok"], (f.name, row)


def test_counts_on_store_buffering():
    """SB+mfences: two executions with no preemption (one thread runs entirely first),
    one (both read 1) that needs a switch in the middle of a thread."""
    test = parse_file(EXAMPLES / "x86" / "SB+mfences.litmus")
    run = explore_program(
        lower(test), load_model("sc"), RunOptions(preemption_bound=0, print_executions=True)
    )
    counts = sorted(e.preemptions for e in run.result.executions)
    assert counts == [0, 0, 1]
    assert run.result.positive + run.result.negative == 2  # the result keeps those <= k
    assert run.stats.extra["beyond_bound"] == 1
    assert run.stats.extra["within_bound"] == 2


def test_outcome_only_beyond_the_bound_is_reported():
    """The lost update (x=1 after two increments) needs a preemption: under the bound 0
    it is seen only beyond the bound, which the report says."""
    test = parse_text("""X86 TWO
{ x=0; }
 P0          | P1          ;
 MOV EAX,[x] | MOV EBX,[x] ;
 INC EAX     | INC EBX     ;
 MOV [x],EAX | MOV [x],EBX ;
exists (x=1)
""")
    from herdsman.herd_compat.formats.genmc import summary

    run = explore_program(lower(test), load_model("sc"), RunOptions(preemption_bound=0))
    assert run.result.positive == 0  # the lost update needs a preemption
    assert run.stats.extra["decisive_beyond_bound"] > 0
    assert "reached only beyond the preemption bound" in summary(run.result)
    run = explore_program(lower(test), load_model("sc"), RunOptions(preemption_bound=1))
    assert run.result.positive > 0


def test_slack_rules():
    assert set(SLACK_RULES) >= {"spawner", "genmc"}
    with pytest.raises(ValueError):
        PreemptionBound(0, "nope")


def test_bounding_needs_an_sc_model():
    """Preemptions are those of SC interleavings: a model accepting a non-SC execution
    (TSO's store buffering) is refused, since cutting such graphs could lose others."""
    from herdsman.litmus.base.errors import InputError

    test = parse_file(EXAMPLES / "x86" / "SB.litmus")
    with pytest.raises(InputError, match="no interleaving produces"):
        explore_program(lower(test), load_model("tso"), RunOptions(preemption_bound=1))
    assert explore_program(
        lower(test), load_model("sc"), RunOptions(preemption_bound=1)
    ).stats.complete
