"""herd's output block: made from outcomes, every block of herd's logs comes out byte for
byte; read from herd's logs and printed again, every log comes out whole."""

from __future__ import annotations

import random
import re

import pytest
from conftest import shared_path
from support.campaigns import outcome_from_block

from herdsman.engine.outcome import Outcome, StateCount, Stats
from herdsman.herd_compat.formats.herd_block import (
    format_result,
    herd_result,
    location_key,
    state_lines,
)
from herdsman.herd_compat.formats.herdlog import read_herd_log
from herdsman.litmus.base.ir import MemLoc, RegLoc, Sym

LOGS = [
    ("PPC", ("power", "herd7-ppc.log")),
    ("X86", ("x86", "herd7-tests-x86tso.log")),
    ("X86", ("x86", "herd7-tests-sc.log")),
    ("X86", ("x86", "generated", "herd7-x86tso.log")),
    ("X86", ("x86", "generated", "herd7-sc.log")),
]


def _without_time(text: str) -> str:
    return re.sub(r"(?m)^Time (\S+) \S+$", r"Time \1 T", text)


@pytest.mark.parametrize("arch,parts", LOGS, ids=[p[-1] + ":" + p[-2] for _, p in LOGS])
def test_every_block_of_herd_logs(arch: str, parts: tuple[str, ...]) -> None:
    log = shared_path(*parts)
    blocks = read_herd_log(log)
    assert blocks
    rng = random.Random(1234)
    mismatches = []
    for b in blocks:
        herds = format_result(b)
        outcome = outcome_from_block(b, rng)
        # the observation counts are the raw (unswapped) pos/neg of the proposition
        assert (b.obs_positive, b.obs_negative) == (outcome.positive, outcome.negative)
        for given_arch in (arch, ""):  # explicit, and guessed from the register names
            ours = herd_result(outcome, b.name, b.hash or "", b.condition, arch=given_arch)
            if _without_time(format_result(ours)) != _without_time(herds):
                mismatches.append((b.name, format_result(ours), herds))
    assert not mismatches, mismatches[:2]


@pytest.mark.parametrize("parts", [p for _, p in LOGS], ids=[p[-1] for _, p in LOGS])
def test_logs_read_and_printed_again(parts: tuple[str, ...]) -> None:
    log = shared_path(*parts)
    assert "".join(format_result(b) for b in read_herd_log(log)) == log.read_text()


def _mp(quant: str, pos: int, neg: int) -> Outcome:
    """An outcome of MP: ``pos`` executions reach the state satisfying the proposition
    (1:r1=1 /\\ 1:r3=0), ``neg`` the three others (as many as there are executions)."""
    obs = (RegLoc(1, "r3"), RegLoc(1, "r1"))
    others = [(0, 0), (1, 0), (1, 1)][:neg]
    states = {(0, 1): StateCount(pos, True)} if pos else {}
    for i, st in enumerate(others):
        states[st] = StateCount(1 + (neg - len(others) if i == 0 else 0), False)
    return Outcome("MPx", "test", obs, quant, states, stats=Stats(time=0.004, candidates=17))


def _block(outcome: Outcome, **kw) -> str:
    cond = f"{outcome.quantifier} (1:r1=1 /\\ 1:r3=0)"
    return format_result(
        herd_result(outcome, "MPx", "237fae775d3e8c7efd484ad95ba9d32b", cond, **kw)
    )


def test_forbidden_swaps_witnesses_not_observation() -> None:
    # herd 7.58 on MP with ~exists: No / Positive: 3 Negative: 1 / Observation Sometimes 1 3
    out = _block(_mp("~exists", 1, 3), arch="PPC")
    assert out == (
        "Test MPx Forbidden\nStates 4\n"
        "1:r1=0; 1:r3=0;\n1:r1=0; 1:r3=1;\n1:r1=1; 1:r3=0;\n1:r1=1; 1:r3=1;\n"
        "No\nWitnesses\nPositive: 3 Negative: 1\n"
        "Condition ~exists (1:r1=1 /\\ 1:r3=0)\n"
        "Observation MPx Sometimes 1 3\nTime MPx 0.00\n"
        "Hash=237fae775d3e8c7efd484ad95ba9d32b\n\n"
    )


def test_required_and_ok_rules() -> None:
    out = _block(_mp("forall", 1, 3), arch="PPC")
    assert "\nNo\nWitnesses\nPositive: 1 Negative: 3\n" in out
    assert _block(_mp("forall", 4, 0)).count("\nOk\n") == 1
    assert "\nOk\n" in _block(_mp("~exists", 0, 4))
    assert "Observation MPx Never 0 4" in _block(_mp("~exists", 0, 4))
    assert "Observation MPx Always 4 0" in _block(_mp("exists", 4, 0))
    assert "Observation MPx Never 0 0" in _block(_mp("exists", 0, 0))


def test_flags_undef_loop_candidates() -> None:
    r = _mp("exists", 1, 3)
    r.flags = frozenset({"zz", "Dr"})
    r.undefined = True
    r.unroll_cut = True
    assert "\nCandidates " not in _block(r)
    out = _block(r, candidates=True)
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


def test_untyped_values_print_as_ints() -> None:
    """herd prints a location of no declared type as an ``int``: a 64-bit register's
    0x1fffffffe is -2 (herd7 7.57: ``LDR X0`` of a ``uint64_t`` holding it)."""
    obs = [RegLoc(0, "X0"), MemLoc("x")]
    states = {(0x1FFFFFFFE, 0x100000002), (5, Sym("y"))}
    assert state_lines(obs, states, "AArch64") == ["0:X0=5; [x]=y;", "0:X0=-2; [x]=2;"]
    assert state_lines(obs, states, "AArch64", {MemLoc("x"): (64, False)}) == [
        "0:X0=5; [x]=y;",
        "0:X0=-2; [x]=4294967298;",
    ]


def test_no_states() -> None:
    assert _block(_mp("exists", 0, 0)).startswith("Test MPx Allowed\nStates 0\nNo\nWitnesses\n")


def test_time_is_the_tests() -> None:
    """The engine's time unless the caller gives the test's (parsing included)."""
    assert "\nTime MPx 0.00\n" in _block(_mp("exists", 1, 3))
    assert "\nTime MPx 1.25\n" in _block(_mp("exists", 1, 3), time=1.25)
