"""herd's output block: format_result reproduces every block of herd's logs byte for byte."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.herd_compat import output
from herdsman.herd_compat.herdlog import HerdRecord, parse_location, parse_state_line, read_herd_log
from herdsman.herd_compat.output import format_result, location_key, state_lines
from herdsman.litmus.ir import MemLoc, RegLoc, Sym

LOGS = [
    ("PPC", ("power", "herd7-ppc.log")),
    ("X86", ("x86", "herd7-tests-x86tso.log")),
    ("X86", ("x86", "herd7-tests-sc.log")),
    ("X86", ("x86", "generated", "herd7-x86tso.log")),
    ("X86", ("x86", "generated", "herd7-sc.log")),
]


def _condition_locations(cond: str) -> list:
    out = []
    for m in re.finditer(r"(\d+:[A-Za-z0-9_%]+|\[[^\]]+\])=", cond):
        loc = parse_location(m.group(1))
        if loc not in out:
            out.append(loc)
    return out


def result_from_record(rec: HerdRecord, rng: random.Random) -> output.TestResult:
    """A TestResult holding what herd's block says, with the locations in a shuffled order
    and the states as an unordered set, so that the printer must restore herd's orders."""
    parsed = [dict(parse_state_line(line)) for line in rec.states]
    observed = _condition_locations(rec.condition)
    for st in parsed[:1]:
        observed += [loc for loc in st if loc not in observed]
    rng.shuffle(observed)
    states = {tuple(st[loc] for loc in observed) for st in parsed}
    assert len(states) == len(parsed)
    quant = rec.quant
    pos, neg = rec.positive, rec.negative
    if quant == "~exists":
        pos, neg = neg, pos
    return output.TestResult(
        name=rec.name,
        kind=rec.kind,
        quant=quant,
        observed=observed,
        states=states,
        positive=pos,
        negative=neg,
        hash=rec.hash or "",
        condition_text=rec.condition,
        flags=list(rec.flags),
        undefined=rec.verdict == "Undef",
        loop=rec.loop,
        time=0.0,
    )


def _without_time(text: str) -> str:
    return re.sub(r"(?m)^Time (\S+) \S+$", r"Time \1 T", text)


@pytest.mark.parametrize("arch,parts", LOGS, ids=[p[-1] + ":" + p[-2] for _, p in LOGS])
def test_every_block_of_herd_logs(arch: str, parts: tuple[str, ...]) -> None:
    log = shared_path(*parts)
    records = read_herd_log(log)
    assert records
    rng = random.Random(1234)
    mismatches = []
    for rec in records:
        r = result_from_record(rec, rng)
        # the observation counts are the raw (unswapped) pos/neg of the proposition
        assert (rec.obs_positive, rec.obs_negative) == (r.positive, r.negative)
        for given_arch in (arch, ""):  # explicit, and guessed from the register names
            out = format_result(r, arch=given_arch)
            if _without_time(out) != _without_time(rec.text):
                mismatches.append((rec.name, out, rec.text))
    assert not mismatches, mismatches[:2]


def test_log_blocks_concatenate_to_the_log(shared: Path) -> None:
    log = shared / "power" / "herd7-ppc.log"
    recs = read_herd_log(log)
    assert "".join(r.text for r in recs) == log.read_text()


def _mp(quant: str, pos: int, neg: int) -> output.TestResult:
    obs = [RegLoc(1, "r3"), RegLoc(1, "r1")]
    states = {(0, 0), (1, 0), (0, 1), (1, 1)}
    return output.TestResult(
        name="MPx",
        kind={"exists": "Allowed", "~exists": "Forbidden", "forall": "Required"}[quant],
        quant=quant,
        observed=obs,
        states=states,
        positive=pos,
        negative=neg,
        hash="237fae775d3e8c7efd484ad95ba9d32b",
        condition_text=f"{quant} (1:r1=1 /\\ 1:r3=0)",
        time=0.004,
    )


def test_forbidden_swaps_witnesses_not_observation() -> None:
    # herd 7.58 on MP with ~exists: No / Positive: 3 Negative: 1 / Observation Sometimes 1 3
    out = format_result(_mp("~exists", 1, 3), arch="PPC")
    assert out == (
        "Test MPx Forbidden\nStates 4\n"
        "1:r1=0; 1:r3=0;\n1:r1=0; 1:r3=1;\n1:r1=1; 1:r3=0;\n1:r1=1; 1:r3=1;\n"
        "No\nWitnesses\nPositive: 3 Negative: 1\n"
        "Condition ~exists (1:r1=1 /\\ 1:r3=0)\n"
        "Observation MPx Sometimes 1 3\nTime MPx 0.00\n"
        "Hash=237fae775d3e8c7efd484ad95ba9d32b\n\n"
    )


def test_required_and_ok_rules() -> None:
    out = format_result(_mp("forall", 1, 3), arch="PPC")
    assert "\nNo\nWitnesses\nPositive: 1 Negative: 3\n" in out
    assert format_result(_mp("forall", 4, 0)).count("\nOk\n") == 1
    assert "\nOk\n" in format_result(_mp("~exists", 0, 4))
    assert "Observation MPx Never 0 4" in format_result(_mp("~exists", 0, 4))
    assert "Observation MPx Always 4 0" in format_result(_mp("exists", 4, 0))
    assert "Observation MPx Never 0 0" in format_result(_mp("exists", 0, 0))


def test_flags_undef_loop_candidates() -> None:
    r = _mp("exists", 1, 3)
    r.flags = ["zz", "Dr", "zz"]
    r.undefined = True
    r.loop = True
    r.candidates = 17
    out = format_result(r, candidates=True)
    assert "\nLoop Undef\nWitnesses\nPositive: 1 Negative: 3\n" in out
    assert "\nFlag *undef*\nFlag Dr\nFlag zz\nCondition " in out
    assert "\nTime MPx 0.00\nCandidates MPx 17\nHash=" in out


def test_register_orders() -> None:
    # PPC numeric order, X86 constructor order, memory after registers, threads first
    ppc = [MemLoc("a"), RegLoc(3, "r10"), RegLoc(3, "r8"), RegLoc(0, "r9")]
    assert sorted(ppc, key=lambda x: location_key("PPC", x)) == [
        RegLoc(0, "r9"),
        RegLoc(3, "r8"),
        RegLoc(3, "r10"),
        MemLoc("a"),
    ]
    x86 = [RegLoc(0, "ECX"), RegLoc(0, "EAX"), RegLoc(0, "ESI"), RegLoc(0, "EBX")]
    assert [x.reg for x in sorted(x86, key=lambda x: location_key("X86", x))] == [
        "EAX",
        "EBX",
        "ECX",
        "ESI",
    ]
    x64 = [RegLoc(0, "r8"), RegLoc(0, "rbx"), RegLoc(0, "rax")]
    assert [x.reg for x in sorted(x64, key=lambda x: location_key("X86_64", x))] == [
        "rax",
        "rbx",
        "r8",
    ]
    c = [RegLoc(0, "r2"), RegLoc(0, "r10")]
    assert [x.reg for x in sorted(c, key=lambda x: location_key("C", x))] == ["r10", "r2"]


def test_state_values_ints_before_symbols() -> None:
    obs = [RegLoc(1, "r4"), RegLoc(1, "r3")]
    states = {(Sym("z"), 1), (Sym("y"), 0), (-1, 0), (2, 0)}
    assert state_lines(obs, states, "PPC") == [
        "1:r3=0; 1:r4=-1;",
        "1:r3=0; 1:r4=2;",
        "1:r3=0; 1:r4=y;",
        "1:r3=1; 1:r4=z;",
    ]


def test_no_states() -> None:
    r = _mp("exists", 0, 0)
    r.states = set()
    assert format_result(r).startswith("Test MPx Allowed\nStates 0\nNo\nWitnesses\n")
