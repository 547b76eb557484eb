"""TruSt's compiled core under RC11 and RA (``_core.c``'s C11 step: ``cat/c11.py``'s
checks in C) against the Python explorer with ``cat/c11.py``'s checker: the same
outcomes and the same counts, on the C examples and on random C programs (relaxed,
acquire, release and SC accesses, read-modify-writes, SC fences, non-atomic accesses
that race).  A racy execution is undefined either way; with races reported as errors
the run goes back to the Python explorer, which reports the race it finds first."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import ROOT, shared_path
from hypothesis import HealthCheck, given, settings
from support.c_oracle.gen import c_programs
from support.engine import c_target, spy_on_fallback

from herdsman.cat.api import C11_SLOTS, GENMC_VARIANTS, C11Step, load_model
from herdsman.cat.contract import C11Variants
from herdsman.engine.run import RunOptions
from herdsman.engine.trust import core
from herdsman.engine.trust.run import explore_program, trust_applies
from herdsman.graphs.execution import Layout
from herdsman.litmus.base.ir import Program
from herdsman.litmus.c import c_program_from_text, load_c_program

PROGRAMS = ROOT / "litmus" / "examples" / "programs"

pytestmark = pytest.mark.skipif(not core.CORE, reason="the compiled core is not built")

MODELS = ["rc11", "ra"]
#: herd's rc11.cat's semantics, and GenMC's (the models' variants, verify's default)
VARIANTS = {"herd": (), "genmc": GENMC_VARIANTS}


def both(
    program: Program, spec: str, monkeypatch, variants: str = "herd", **kw
) -> tuple[object, dict]:
    """Explore both ways; the outcomes and statistics must be the same."""
    model = load_model(spec, variants=VARIANTS[variants])
    got = []
    for compiled in (True, False):
        monkeypatch.setattr(core, "CORE", compiled)
        run = explore_program(program, model, RunOptions(engine="trust", **kw))
        stats = run.stats.as_dict()
        del stats["time"], stats["checks"]  # the core checks a read's options at once
        r = run.result
        got.append(
            (
                (r.states, r.positive, r.negative, sorted(r.flags), r.undefined),
                [(e.message, e.thread, e.complete, e.race) for e in r.errors],
                stats,
            )
        )
    assert got[0] == got[1], program.name
    return got[0][0], got[0][2]


def test_the_c11_checker_has_a_plan():
    lay = Layout(["x"], [0], [2, 2])
    for spec, sc in (("rc11", True), ("ra", False)):
        plan = load_model(spec).consistency_checker("C", lay).compiled_plan()
        assert plan is not None and plan.steps == (C11Step(sc),)
        assert plan.nslots == len(C11_SLOTS)
        assert len(plan.statics((0, 0), 2)) == plan.nslots * lay.size * 16
        genmc = load_model(spec, variants=GENMC_VARIANTS).consistency_checker("C", lay)
        plan = genmc.compiled_plan()
        assert plan is not None and plan.steps == (C11Step(sc, C11Variants(True, sc)),)
        assert core.core_steps(plan) == [(-3, 3, ()) if sc else (-2, 1, ())]
    # herd's own rc11.cat reads no variant: GenMC's change nothing there
    herd = load_model(str(shared_path("c11", "cat", "rc11.cat")), variants=GENMC_VARIANTS)
    plan = herd.consistency_checker("C", lay).compiled_plan()
    assert plan is not None and plan.steps == (C11Step(True),)


@pytest.mark.parametrize("variants", sorted(VARIANTS))
@pytest.mark.parametrize("spec", MODELS)
def test_c_examples(spec, variants, monkeypatch):
    """Locks, fences, loops, read-modify-writes, spawns and joins: no run goes back to
    Python but the racy ones (errors here, as GenMC reports them)."""
    model = load_model(spec)
    raised = spy_on_fallback(monkeypatch)
    done = racy = complete = 0
    for f in sorted(PROGRAMS.glob("*.c")):
        program = load_c_program(str(f), c_target(spec), {}, [], unroll=3)
        if not trust_applies(model, program):
            continue
        before = len(raised)
        outcome, stats = both(program, spec, monkeypatch, variants, unroll=3, races=True)
        racy += len(raised) > before
        done += 1
        complete += stats["complete"]
    assert done >= 15 and complete > 1000
    assert racy < done


def test_a_race_is_found_by_the_core(monkeypatch):
    """The core sees the race at the leaf: undefined without race errors, an error (by
    way of the Python explorer) with them."""
    text = (PROGRAMS / "counter_racy.c").read_text()
    program = c_program_from_text(text, target=c_target("rc11"))
    raised = spy_on_fallback(monkeypatch)
    (states, _, _, _, undefined), _ = both(program, "rc11", monkeypatch, unroll=3)
    assert undefined and raised == []
    both(program, "rc11", monkeypatch, unroll=3, races=True)
    assert raised


AGREEMENT = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("variants", sorted(VARIANTS))
@pytest.mark.parametrize("spec", MODELS)
def test_random_programs(spec, variants, monkeypatch):
    @AGREEMENT
    @given(c_programs())
    def check(text: str) -> None:
        program = replace(c_program_from_text(text, target="c"), loop_bound="block")
        both(program, spec, monkeypatch, variants, unroll=2, stop_on_error=False)

    check()
