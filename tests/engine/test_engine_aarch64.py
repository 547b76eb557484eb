"""AArch64: herd's events (register events, iico, rf-reg, exclusive pairs) and exactness
against herd7's log on a sample of the shared suite, under herd's own ``aarch64.cat``
(unmodified, from ../shared) and the built-in ``aarch64`` model.

The expected event structures are herd7 7.57's (``herd/AArch64Sem.ml``), as its pictures
show them with ``-showevents all``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.cat.api import load_model
from herdsman.engine.options import RunOptions
from herdsman.engine.rsmc.run import rsmc_refusal
from herdsman.engine.run import run_program
from herdsman.engine.semantics.enumerate import thread_executions
from herdsman.engine.trust.run import program_refusal
from herdsman.graphs.herdnames import static_names
from herdsman.graphs.skeleton import Skeleton
from herdsman.herd_compat.formats.herd_block import format_result, herd_result
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.hash import herd_hash
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text
from herdsman.litmus.printer import herd_condition_text

EXCLUSIVE = """AArch64 X
{ 0:X0=x; }
 P0              ;
 MOV W1,#2       ;
 LDXR W2,[X0]    ;
 STXR W3,W1,[X0] ;
 CBNZ W3,Fail    ;
 Fail:           ;
exists (0:X3=0)
"""


def executions(text: str, regs: bool = True):
    program = lower(parse_text(text, "t.litmus"))
    return program, thread_executions(program, regs=regs).execs


def pairs(mask_of, events) -> set[tuple[str, str]]:
    """(source, target) names of the pairs an event field declares."""
    out = set()
    for e in events:
        m = mask_of(e)
        for i in range(len(events)):
            if (m >> i) & 1:
                out.add((name(events[i]), name(e)))
    return out


def name(e) -> str:
    return f"{e.kind}:{e.reg or e.loc}"


def test_store_exclusive_events_as_herd_gives_them() -> None:
    _, execs = executions(EXCLUSIVE)
    (ts,) = execs
    assert len(ts) == 4  # the read sees 0 or 2; the store succeeds or fails
    ok = next(te for te in ts if te.reg("X3") == 0 and te.events[2].value == 0)
    kinds = [name(e) for e in ok.events]
    assert kinds == [
        "Wreg:X1",
        "Rreg:X0",
        "R:x",
        "Wreg:X2",
        "Wreg:Res",
        "Rreg:Res",
        "Rreg:X1",
        "Rreg:X0",
        "W:x",
        "Wreg:Res",
        "Wreg:X3",
        "Rreg:X3",
        "B:None",
    ]
    evs = ok.events
    data = pairs(lambda e: e.iico, evs)
    assert ("Rreg:X1", "W:x") in data and ("Rreg:X0", "W:x") in data
    assert ("R:x", "Wreg:X2") in data and ("Rreg:X0", "Wreg:Res") in data
    assert pairs(lambda e: e.iico_ctrl, evs) == {
        ("Rreg:Res", "W:x"),
        ("Rreg:Res", "Wreg:Res"),
        ("Rreg:X0", "W:x"),
    }
    assert "DATA" in evs[6].annots and "DATA" not in evs[7].annots
    failed = next(te for te in ts if te.reg("X3") == 1 and te.events[2].value == 0)
    assert [name(e) for e in failed.events][5:10] == [
        "Rreg:Res",
        "Rreg:X1",
        "Rreg:X0",
        "Wreg:Res",
        "Wreg:X3",
    ]
    assert pairs(lambda e: e.iico_ctrl, failed.events) == {("Rreg:Res", "Wreg:Res")}


def test_skeleton_names_of_an_exclusive_pair() -> None:
    _, execs = executions(EXCLUSIVE)
    te = next(te for te in execs[0] if te.reg("X3") == 0)
    sk = Skeleton((*te.events,), 1)
    names = static_names(sk, "AArch64")
    U = sk.U
    ev = sk.events
    got = {(name(ev[a]), name(ev[b])) for a, b in U.pairs(names["rf-reg"][1])}
    assert got == {("Wreg:X1", "Rreg:X1"), ("Wreg:Res", "Rreg:Res"), ("Wreg:X3", "Rreg:X3")}
    assert {(name(ev[a]), name(ev[b])) for a, b in U.pairs(names["rmw"][1])} == {("R:x", "W:x")}
    assert names["amo"][1] == 0
    assert {name(ev[i]) for i in range(len(ev)) if (names["X"][1] >> i) & 1} == {"R:x", "W:x"}
    # register events of one register are at one location; po excludes an instruction's own
    assert U.has(names["loc"][1], 3, 3) and not U.has(names["po"][1], 1, 2)


def test_operations_read_each_register_once() -> None:
    text = "AArch64 O\n{ 0:X4=y; }\n P0 ;\n EOR W2,W0,W0 ;\n ADD X5,X4,W2,SXTW ;\n"
    text += " CMP W0,#1 ;\n B.NE L ;\n L: ;\nexists (0:X2=0)\n"
    _, execs = executions(text)
    assert [name(e) for e in execs[0][0].events] == [
        "Rreg:X0",
        "Wreg:X2",
        "Rreg:X4",
        "Rreg:X2",
        "Wreg:X5",
        "Rreg:X0",
        "Wreg:NZCV",
        "Rreg:NZCV",
        "B:None",
    ]
    _, plain = executions(text, regs=False)
    assert [name(e) for e in plain[0][0].events] == ["B:None"]


def test_selection_reads_the_chosen_register_only() -> None:
    """``CSEL``: the flags' read feeds herd's predicate commit (in ``B``, not ``BCC``; its
    text the condition when it holds), which controls the read of the chosen register
    alone (a data port), which feeds the write (``AArch64Sem.ml``'s ``I_CSEL``)."""
    text = "AArch64 S\n{ 0:X1=1; 0:X2=2; }\n P0 ;\n CMP W1,#1 ;\n"
    text += " CSEL W3,W1,W2,EQ ;\n CSINC W4,W2,W1,EQ ;\nexists (0:X3=1 /\\ 0:X4=2)\n"
    _, execs = executions(text)
    (te,) = execs[0]
    evs = te.events
    assert [name(e) for e in evs][2:] == [
        "Rreg:NZCV",
        "B:None",
        "Rreg:X1",
        "Wreg:X3",
        "Rreg:NZCV",
        "B:None",
        "Rreg:X2",
        "Wreg:X4",
    ]
    assert evs[3].fence == "EQ" and te.reg("X3") == 1 and te.reg("X4") == 2
    assert ("Rreg:NZCV", "B:None") in pairs(lambda e: e.iico, evs)
    assert ("Rreg:X1", "Wreg:X3") in pairs(lambda e: e.iico, evs)
    assert pairs(lambda e: e.iico_ctrl, evs) == {("B:None", "Rreg:X1"), ("B:None", "Rreg:X2")}
    assert "DATA" in evs[4].annots
    sk = Skeleton((*te.events,), 1)
    assert sk.B != 0 and sk.BCC == 0  # predicate commits, no branch
    _, plain = executions(text, regs=False)  # without register events: the commits only
    assert [e.fence for e in plain[0][0].events] == ["EQ", "EQ"]


def test_rsmc_leaves_selections_to_the_reference_engine() -> None:
    """RSMC fetches past uncommitted reads; a selection waits for its flags' read, so
    RSMC would miss load buffering past a ``CSET``: it refuses, ``auto`` runs the
    reference engine (herd: ``Sometimes``)."""
    text = "AArch64 L\n{ 0:X1=x; 0:X4=y; 1:X1=y; 1:X4=x; }\n P0 | P1 ;\n"
    text += " LDR W0,[X1] | LDR W0,[X1] ;\n CMP W0,#1 | CMP W0,#1 ;\n CSET W2,EQ | CSET W2,EQ ;\n"
    text += " MOV W3,#1 | MOV W3,#1 ;\n STR W3,[X4] | STR W3,[X4] ;\nexists (0:X0=1 /\\ 1:X0=1)\n"
    program = lower(parse_text(text, "l.litmus"))
    model = load_model("aarch64")
    assert "conditional selections" in (rsmc_refusal(model, program) or "")
    r = run_program(program, model, RunOptions())
    block = herd_result(r, "L", "", "", arch="AArch64")
    assert "Observation L Sometimes 1 3" in format_result(block)


def test_graph_growing_engines_refuse_store_conditionals() -> None:
    program = lower(parse_text(EXCLUSIVE, "t.litmus"))
    assert program_refusal(program) is not None
    sc = load_model("sc")
    with pytest.raises(InputError, match="store-conditionals"):
        run_program(program, sc, RunOptions(engine="trust"))


def herd_text(t, model) -> str:
    """herd's block of test ``t`` under ``model``, without its Time line."""
    r = run_program(lower(t), model)
    block = herd_result(r, t.name, herd_hash(t), herd_condition_text(t.condition), arch=t.arch)
    lines = format_result(block).splitlines()
    return "\n".join(x for x in lines if x and not x.startswith("Time "))


#: Tests herd7's log has from older versions of their files (herd7 7.57 on the shared
#: files gives our blocks): ATOM03 and ATOM05's code changed since (the log's Hash is not
#: the file's), ARMARM04+BIS and ARMARM06+AP+AA's condition was ``~exists`` (same Hash:
#: herd's hash leaves the condition out). See test_why_the_log_differs.
STALE = {"ATOM03", "ATOM05", "ARMARM04+BIS", "ARMARM06+AP+AA"}


def log_blocks() -> dict[str, list[str]]:
    text = shared_path("aarch64", "herd7-aarch64.log").read_text()
    out: dict[str, list[str]] = {}
    for block in text.split("\n\n"):
        lines = [x for x in block.strip("\n").splitlines() if not x.startswith("Time ")]
        if lines and lines[0].startswith("Test "):
            out.setdefault(lines[0].split()[1], []).append("\n".join(lines))
    return out


@pytest.mark.parametrize("spec", ["shared", "aarch64"])
def test_sample_identical_to_herd(spec: str) -> None:
    """Every 25th shared test: herd's block byte for byte but the Time line."""
    tests = shared_path("aarch64", "tests")
    model = load_model(str(tests.parent / "cat" / "aarch64.cat") if spec == "shared" else spec)
    expected = log_blocks()
    files = (tests / "@all").read_text().split()
    bad, done = [], 0
    for f in files[::25]:
        t = parse_file(str(tests / f))
        if t.name in STALE or t.name not in expected:
            continue
        if herd_text(t, model) not in expected[t.name]:
            bad.append(f)
        done += 1
    assert done > 90 and bad == []


#: Hand-written tests of the forms the shared suite lacks (LDAPR, ORR/AND/SUB/TST, B.GE and
#: B.LT, DSB, DMB ISH and its flag, ISB, MOV between X registers, STR WZR, [Xn,Xm],
#: LDAXR/STLXR, a store between an exclusive pair), with herd7 7.57's blocks under its
#: aarch64.cat (tests/data/aarch64/herd7-aarch64.log, Time lines left out).
DATA = Path(__file__).resolve().parents[1] / "data" / "aarch64"


@pytest.mark.parametrize("spec", ["aarch64", "shared"])
def test_hand_written_tests_identical_to_herd(spec: str) -> None:
    if spec == "shared":
        model = load_model(str(shared_path("aarch64", "cat", "aarch64.cat")))
    else:
        model = load_model(spec)
    expected = (DATA / "herd7-aarch64.log").read_text().strip("\n").split("\n\n")
    got = []
    for f in sorted(DATA.glob("*.litmus")):
        t = parse_file(str(f))
        got.append(herd_text(t, model))
    assert got == expected


def test_jumps_and_nops_issue_an_empty_event() -> None:
    """herd's AArch64 B and NOP issue an event with no action (NoAction), with or
    without register events; it has no location.  Events show a branch's target as
    herd 7.57 does, an offset (``.+4``)."""
    text = "AArch64 J\n{}\n P0 ;\n B L ;\n L: ;\n NOP ;\nexists (0:X0=0)\n"
    for regs in (False, True):
        _, execs = executions(text, regs)
        (te,) = execs[0]
        assert [(e.kind, e.poi, e.instr) for e in te.events] == [("N", 0, "B .+4"), ("N", 1, "NOP")]
    sk = Skeleton(te.events, 1)
    assert static_names(sk, "AArch64")["no-loc"][1] == 0b11


#: herd7 7.57's blocks on the shared files of the tests its log has from older versions
#: of their files (STALE) or lacks (herd takes 66 to 108 s on each), Time lines left out.
SHARED_FILES = (
    "HAND/ATOM03",
    "HAND/ATOM05",
    "HAND/ARMARM04+BIS",
    "HAND/ARMARM06+AP+AA",
    "ATOM/Z6.1+poxxs",
    "ATOM/Z6.3+poxxs",
    "ATOM/Z6.5+poxxs",
)


@pytest.mark.parametrize("spec", ["shared", "aarch64"])
def test_tests_beside_the_log_identical_to_herd(spec: str) -> None:
    tests = shared_path("aarch64", "tests")
    model = load_model(str(tests.parent / "cat" / "aarch64.cat") if spec == "shared" else spec)
    expected = (DATA / "herd7-shared-files.log").read_text().strip("\n").split("\n\n")
    got = []
    for f in SHARED_FILES:
        t = parse_file(str(tests / f"{f}.litmus"))
        got.append(herd_text(t, model))
    assert got == expected


def test_why_the_log_differs() -> None:
    """The reasons recorded for the 7 tests the shared log has stale or lacks: two whose
    code changed (Hash), two whose condition was negated, three never logged."""
    tests = shared_path("aarch64", "tests")
    logged = log_blocks()
    for f in SHARED_FILES:
        t = parse_file(str(tests / f"{f}.litmus"))
        cond = "Condition " + herd_condition_text(t.condition)
        if t.name in ("ATOM03", "ATOM05"):
            (block,) = logged[t.name]
            assert f"Hash={herd_hash(t)}" not in block and cond in block
        elif t.name in STALE:
            (block,) = logged[t.name]
            assert f"Hash={herd_hash(t)}" in block
            assert cond.startswith("Condition exists") and "Condition ~" + cond[10:] in block
        else:
            assert t.name not in logged


LB_BARRIER = """AArch64 LB+{name}
{{
0:X1=x; 0:X3=y;
1:X1=y; 1:X3=x;
}}
 P0          | P1          ;
 LDR W0,[X1] | LDR W0,[X1] ;
 {bar:<11} | {bar:<11} ;
 MOV W2,#1   | MOV W2,#1   ;
 STR W2,[X3] | STR W2,[X3] ;
exists (0:X0=1 /\\ 1:X0=1)
"""


@pytest.mark.parametrize("bar", ["DMB OSHLD", "DSB ISHLD", "DSB OSHLD", "DMB ISHST"])
def test_load_barriers_forbid_load_buffering(bar: str) -> None:
    """The built-in ``aarch64`` forbids load buffering through every load barrier, and
    ``DSB OSHLD`` too (the Arm ARM); herd's ``aarch64fences.cat`` defines ``DSB.OSHLD`` as
    ``DSB.OSH``'s events, so under herd's file (and herd7 7.57) ``DSB OSHLD`` alone lets
    it through: the one place the built-in model departs from herd's (README, AArch64)."""
    text = LB_BARRIER.format(name=bar.lower().replace(" ", "."), bar=bar)
    program = lower(parse_text(text, "t.litmus"))
    allowed = bar == "DMB ISHST"  # a store barrier does not order loads before stores
    got = run_program(program, load_model("aarch64"), RunOptions()).positive > 0
    assert got == allowed
    herds = shared_path("aarch64", "cat", "aarch64.cat")
    got = run_program(program, load_model(str(herds)), RunOptions()).positive > 0
    assert got == (allowed or bar == "DSB OSHLD")
