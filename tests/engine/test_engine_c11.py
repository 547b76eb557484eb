"""RC11 and RA on C programs: TruSt with GenMC's checker (``cat/c11.py``, views one event
at a time) against TruSt evaluating the built-in model (``cat/models/rc11.cat``,
``ra.cat``) and against the reference engine, on random C programs
(``tests/support/c_oracle/gen.py``: relaxed, acquire, release, seq_cst accesses,
read-modify-writes, SC fences) and on the C examples."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest
from conftest import shared_path
from hypothesis import HealthCheck, event, given, reject, settings
from support.c_oracle.gen import c_programs

from herdsman.cat.api import GENMC_VARIANTS, PreparedModel, load_model
from herdsman.cat.c11 import C11_FAMILIES, C11Checker
from herdsman.engine.outcome import Outcome
from herdsman.engine.run import RunOptions, TimeLimitExceeded, run_program
from herdsman.graphs.execution import Layout
from herdsman.litmus.base.ir import Program
from herdsman.litmus.c import c_program_from_text

UNROLL = 2
#: CPU seconds the reference engine may take on one program (beyond: rejected)
LIMIT = 1.0

Summary = tuple[bool, bool, dict[object, int], int, int]


#: GenMC's variants of the models (verify's default), or none (herd's rc11.cat)
VARIANTS = {"herd": (), "genmc": GENMC_VARIANTS}


@cache
def model_of(name: str, variants: str = "herd") -> PreparedModel:
    return load_model(name, variants=VARIANTS[variants])


def summary(out: Outcome) -> Summary:
    """What must agree: an assertion failing, undefined (a data race), final states with
    their counts, complete and blocked executions."""
    return (
        bool(out.errors),
        out.undefined,
        {s: c.executions for s, c in out.states.items()},
        out.stats.complete,
        out.stats.blocked,
    )


def run(
    program: Program, name: str, engine: str, checker: str = "auto", variants: str = "herd"
) -> Summary:
    opts = RunOptions(
        engine=engine, unroll=UNROLL, stop_on_error=False, time_limit=LIMIT, checker=checker
    )
    return summary(run_program(program, model_of(name, variants), opts))


def test_the_built_in_models_are_c11s() -> None:
    assert model_of("rc11").identity.family == "rc11"
    assert model_of("ra").identity.family == "ra"
    herd = shared_path("c11", "cat", "rc11.cat")
    assert load_model(str(herd)).identity.family == "rc11"  # herd's file, by its text
    assert set(C11_FAMILIES) == {"rc11", "ra"}


def agree(text: str, name: str, variants: str = "herd") -> None:
    prog = replace(c_program_from_text(text, target="c"), loop_bound="block")
    try:
        ref = run(prog, name, "reference", variants=variants)
    except TimeLimitExceeded:
        event("reference engine over the time limit")
        reject()
    cat = run(prog, name, "trust", "cat", variants)
    c11 = run(prog, name, "trust", "auto", variants)
    event(f"undefined: {c11[1]}")
    why = f"{name} {variants}\n{text}\nreference {ref}\ncat {cat}\nc11 {c11}"
    assert cat == c11, why
    assert ref[:4] == cat[:4], why  # the reference engine counts no blocked execution


AGREEMENT = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("variants", sorted(VARIANTS))
@pytest.mark.parametrize("name", ["rc11", "ra"])
def test_views_agree_with_the_model(name: str, variants: str) -> None:
    """herd's rc11.cat's semantics, and GenMC's (the models' variants genmc-rs and
    genmc-sc): the checker's views are the model's."""

    @AGREEMENT
    @given(c_programs())
    def check(text: str) -> None:
        agree(text, name, variants)

    check()


def test_the_checker_is_the_c11_one_on_c_programs() -> None:
    lay = Layout(["x"], [0], [2, 2])
    rc11 = model_of("rc11")
    assert isinstance(rc11.consistency_checker("C", lay), C11Checker)
    assert not isinstance(rc11.consistency_checker("C", lay, "cat"), C11Checker)
    assert not isinstance(model_of("sc").consistency_checker("C", lay), C11Checker)
