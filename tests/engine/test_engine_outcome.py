"""The Outcome every engine returns (engine/outcome.py): counts, verdicts, JSON, pickling."""

from __future__ import annotations

import json
import pickle

from conftest import ROOT

from herdsman.cat.api import Verdict, load_model
from herdsman.engine.outcome import OutcomeBuilder, StateCount
from herdsman.engine.run import RunOptions, run_program
from herdsman.litmus.base.ir import MemLoc, RegLoc, Sym
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

EXAMPLES = ROOT / "litmus" / "examples"


def test_counts_and_the_condition():
    b = OutcomeBuilder([RegLoc(0, "r1"), MemLoc("x")], "exists")
    ok, no = Verdict(allowed=True, flags=frozenset({"f"})), Verdict(allowed=False)
    assert b.count((1, 2), True, False, [ok, no, ok]) == 2
    assert b.count((0, 2), False, True, [ok]) == 0  # cut by the unrolling bound: Loop only
    assert b.count((0, 3), False, False, [no]) == 0
    b.count((1, 2), True, False, [ok])
    b.count((0, 4), False, False, [ok])
    o = b.finish("T", "reference")
    assert o.states == {(1, 2): StateCount(3, True), (0, 4): StateCount(1, False)}
    assert (o.positive, o.negative, o.condition_holds) == (3, 1, True)
    assert o.flags == {"f"} and o.unroll_cut and not o.undefined
    for quant, holds in (("~exists", False), ("forall", False)):
        o.quantifier = quant
        assert o.condition_holds == holds


def test_every_engine_gives_the_same_outcome_and_it_travels():
    test = parse_file(EXAMPLES / "x86" / "SB.litmus")
    model = load_model("tso")
    ref = run_program(lower(test), model, RunOptions(engine="reference"))
    tr = run_program(lower(test), model, RunOptions(engine="trust"))
    assert (ref.engine, tr.engine) == ("reference", "trust")
    assert ref.states == tr.states and ref.observed == tr.observed
    back = pickle.loads(pickle.dumps(tr))  # campaign workers send outcomes
    assert back == tr and back.stats == tr.stats
    assert all(type(c) is StateCount for c in back.states.values())
    data = json.loads(json.dumps(tr.to_json()))
    assert data["observed"] == ["0:EAX", "1:EAX"] and data["condition_holds"] is True
    assert sorted((s["values"]["0:EAX"], s["values"]["1:EAX"]) for s in data["states"]) == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
    ]
    assert data["stats"]["complete"] == 4


def test_addresses_in_json_are_names():
    b = OutcomeBuilder([RegLoc(0, "r1")], "exists")
    b.count((Sym("x", 4),), True, False, [Verdict(allowed=True)])
    assert b.finish("T", "reference").to_json()["states"][0]["values"] == {"0:r1": "x+4"}
