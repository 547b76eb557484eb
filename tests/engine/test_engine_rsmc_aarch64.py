"""RSMC on AArch64: ``cb^aarch64`` (engine/rsmc/cb.py), checked per model by the model's
own verdicts on the smallest programs that would close a cycle of it
(engine/rsmc/aarch64probes.py), and RSMC = the reference engine on a sample of the
shared AArch64 suite under herd's ``aarch64.cat`` and the built-in ``aarch64``."""

from __future__ import annotations

import re

import pytest
from conftest import shared_path

from herdsman.cat.api import load_model
from herdsman.engine.choice import auto_engine
from herdsman.engine.rsmc.cb import aarch64_preds
from herdsman.engine.rsmc.run import rsmc_refusal
from herdsman.engine.rsmc.support import choose
from herdsman.engine.run import RunOptions, run_program
from herdsman.graphs.events import Event
from herdsman.herd_compat.formats.herd_block import format_result, herd_result
from herdsman.litmus.base.ir import StoreCond
from herdsman.litmus.hash import herd_hash
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text
from herdsman.litmus.printer import herd_condition_text

SHARED_CAT = "shared"


def model(spec: str):
    if spec == SHARED_CAT:
        return load_model(str(shared_path("aarch64", "cat", "aarch64.cat")))
    return load_model(spec)


def block(t, m, engine: str) -> str:
    """herd's block of test ``t`` under ``m`` by ``engine``, without its Time line."""
    out = run_program(lower(t), m, RunOptions(engine=engine))
    cond = herd_condition_text(t.condition)
    lines = format_result(herd_result(out, t.name, herd_hash(t), cond, arch=t.arch))
    return "\n".join(x for x in lines.splitlines() if not x.startswith("Time "))


@pytest.mark.parametrize("spec", ["aarch64", SHARED_CAT])
def test_models_get_cb_aarch64(spec: str) -> None:
    assert choose(model(spec), "AArch64").order == "aarch64"


#: A release write forwarded to a later read of its thread: allowed (herd7 7.57 says
#: Sometimes), and a cycle through ``po;[L]`` and ``rf``: no cb^aarch64 edge.
RELEASE = """AArch64 REL
{ 0:X1=x; 0:X3=y; 0:X5=z; 1:X1=z; 1:X3=x; }
 P0           | P1           ;
 LDR W0,[X1]  | LDR W0,[X1]  ;
 MOV W2,#1    | EOR W2,W0,W0 ;
 STLR W2,[X3] | ADD W2,W2,#1 ;
 LDR W4,[X3]  | STR W2,[X3]  ;
 EOR W6,W4,W4 |              ;
 ADD W6,W6,#1 |              ;
 STR W6,[X5]  |              ;
exists (0:X0=1 /\\ 0:X4=1 /\\ 1:X0=1)
"""


@pytest.mark.parametrize("spec", ["aarch64", SHARED_CAT])
def test_release_forwarding_found(spec: str) -> None:
    t = parse_text(RELEASE, "rel.litmus")
    m = model(spec)
    got = block(t, m, "rsmc")
    assert "Observation REL Sometimes 1 3" in got
    assert got == block(t, m, "reference")


def ev(kind: str, **kw) -> Event:
    return Event(kind, 0, 0, 0, **kw)


def test_cb_aarch64_edges() -> None:
    evs = [
        ev("R", loc="x", annots=frozenset({"A"})),  # 0: acquire
        ev("W", loc="y", annots=frozenset({"L"})),  # 1: release
        ev("F", fence="DMB.ISHST"),  # 2
        ev("W", loc="z"),  # 3
        ev("R", loc="z"),  # 4
        ev("F", fence="DMB.LD"),  # 5
        ev("W", loc="u"),  # 6
        ev("F", fence="DMB.NSH"),  # 7
        ev("R", loc="v"),  # 8
    ]
    assert aarch64_preds(evs, 1) == 0b1  # after the acquire; a release waits for nothing
    # a DMB ST after the writes before it, a write after it after the fence (cb is the
    # transitive closure of these direct predecessors)
    assert aarch64_preds(evs, 2) == 0b11
    assert aarch64_preds(evs, 3) == 0b101
    assert aarch64_preds(evs, 4) == 0b1  # a read: only the acquire
    assert aarch64_preds(evs, 5) == 0b10001  # a DMB LD after the reads before it
    assert aarch64_preds(evs, 6) == 0b100101  # and the DMB ST: a write
    assert aarch64_preds(evs, 8) == 0b100001  # the DMB LD; DMB NSH orders nothing


def test_read_modify_writes_go_to_the_reference_engine() -> None:
    text = "AArch64 T\n{ 0:X1=x; }\n P0 ;\n MOV W0,#1 ;\n SWP W0,W2,[X1] ;\nexists (0:X2=0)\n"
    program = lower(parse_text(text, "t.litmus"))
    why = rsmc_refusal(model("aarch64"), program)
    assert why is not None and "register events" in why
    assert auto_engine(model("aarch64"), program) == "reference"


def test_a_model_allowing_load_buffering_through_a_dependency_is_refused(tmp_path) -> None:
    cat = tmp_path / "weak.cat"
    cat.write_text('"weak"\ncatdep\ninclude "cos.cat"\nacyclic po-loc | rf | co | fr as uni\n')
    m = load_model(str(cat))
    why = choose(m, "AArch64").refusal or ""
    assert re.search(r"load buffering through addr.*cb\^aarch64", why), why


@pytest.mark.shared
@pytest.mark.parametrize("spec", ["aarch64", SHARED_CAT])
def test_rsmc_matches_the_reference_on_a_sample(spec: str) -> None:
    """Every 60th shared test (those without store-conditionals, which RSMC leaves to
    the reference engine): the same block."""
    tests = shared_path("aarch64", "tests")
    m = model(spec)
    done = 0
    for f in (tests / "@all").read_text().split()[::60]:
        t = parse_file(str(tests / f))
        if lower(t).has(StoreCond):
            continue
        assert block(t, m, "rsmc") == block(t, m, "reference"), f
        done += 1
    assert done >= 35
