"""The incremental consistency checker (cat/incremental.py) against the cat one.

Both decide consistency of TruSt's partial graphs; the incremental one reads the model's
monotone checks as unions of ``rf``/``co``/``fr`` terms and checks only cycles through
the new event, filters options that certainly close a cycle, and answers complete graphs
itself when the model is nothing but those checks.  Explorations must be identical.
"""

from __future__ import annotations

import textwrap

import pytest
from conftest import ROOT, shared_path

from herdsman.cat.api import load_model
from herdsman.cat.consistency import CatChecker
from herdsman.cat.incremental import IncrementalChecker
from herdsman.engine.run import RunOptions
from herdsman.engine.trust.run import explore_program
from herdsman.graphs.execution import Layout
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

EXAMPLES = ROOT / "litmus" / "examples"


def stats_key(st):
    return (
        st.complete,
        st.extra["revisits"],
        st.extra["refused"],
        st.blocked,
        st.extra["pruned"],
        st.extra["revisits_inconsistent"] + st.extra["revisits_doomed"],
    )


def agree(test, model) -> None:
    a = explore_program(lower(test), model, RunOptions(checker="cat"))
    b = explore_program(lower(test), model, RunOptions(checker="incremental"))
    assert stats_key(a.stats) == stats_key(b.stats), test.name
    assert (a.result.states, a.result.positive, a.result.negative, a.result.flags) == (
        b.result.states,
        b.result.positive,
        b.result.negative,
        b.result.flags,
    )


@pytest.mark.parametrize("spec", ["sc", "tso", "pso"])
def test_builtin_models_have_an_exact_incremental_form(spec):
    form = load_model(spec).incremental_form("X86")
    assert form is not None and form.stable and form.exact
    acyclic = [s for s in form.steps if s.kind == "acyclic"]
    assert acyclic and all(s.terms is not None for s in acyclic)
    assert {t.base for s in acyclic for t in s.terms} >= {"co", "fr"}


@pytest.mark.parametrize("name", ["sc.cat", "x86tso.cat"])
def test_herds_models_have_an_incremental_form(name):
    model = load_model(str(shared_path("herd-cat", name)))
    form = model.incremental_form("X86")
    assert form is not None and form.stable
    assert all(s.terms is not None for s in form.steps if s.kind == "acyclic")


@pytest.mark.parametrize("spec", ["sc", "tso", "pso", "herd:sc.cat", "herd:x86tso.cat"])
def test_same_exploration_on_every_x86_test(spec):
    if spec.startswith("herd:"):
        spec = str(shared_path("herd-cat", spec[5:]))
    model = load_model(spec)
    files = sorted(shared_path("x86", "generated").glob("*.litmus"))[::3]
    files += sorted(shared_path("x86", "tests").glob("*.litmus"))
    for f in files:
        agree(parse_file(f), model)


def test_same_exploration_on_power_tests_under_sc():
    model = load_model("sc")
    tests = sorted(shared_path("power", "tests").glob("*.litmus"))[::60]
    for f in tests:
        agree(parse_file(f), model)


def test_unstable_statics_are_evaluated_per_prefix(tmp_path):
    """A skeleton-only relation whose value on a prefix is not the restriction of its
    value on the whole thread (``domain``): evaluated on each prefix, same exploration."""
    p = tmp_path / "lastw.cat"
    p.write_text(
        textwrap.dedent("""\
        "SC with an odd static term"
        include "cos.cat"
        let notlast = domain(po)
        acyclic po | rf | co | fr | ([notlast & W] ; po-loc ; [R]) as sc
        """)
    )
    model = load_model(str(p))
    form = model.incremental_form("X86")
    assert form is not None and not form.stable
    for f in sorted((EXAMPLES / "x86").glob("*.litmus")):
        test = parse_file(f)
        if "LOCK" not in f.read_text() and "XCHG" not in f.read_text():
            agree(test, model)


def test_model_without_incremental_form_uses_the_cat_checker(tmp_path):
    p = tmp_path / "fix.cat"
    p.write_text(
        textwrap.dedent("""\
        "SC through a fixpoint"
        include "cos.cat"
        let rec hb = po | rf | co | fr | (hb ; hb)
        irreflexive hb as sc
        """)
    )
    model = load_model(str(p))
    assert model.incremental_form("X86") is None
    test = parse_file(EXAMPLES / "x86" / "SB.litmus")
    lay = Layout(["x", "y"], [0, 0], [2, 2])
    assert isinstance(model.consistency_checker("X86", lay), CatChecker)
    with pytest.raises(ValueError, match="no incremental form"):
        model.consistency_checker("X86", lay, "incremental")
    sc = load_model("sc")
    assert isinstance(sc.consistency_checker("X86", lay), IncrementalChecker)
    run = explore_program(lower(test), model, RunOptions(engine="trust"))
    assert run.stats.complete == 3
