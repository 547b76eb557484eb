"""AArch64 atomics (CAS, SWP, LD<op>, ST<op> and their A/L/AL forms): herd's events and
herd7 7.57's blocks.

The hand-written tests of ``tests/data/aarch64/atomics`` cover every order form, W and X
registers, the zero register (herd's ``NoRet`` reads), a failing CAS between an
exclusive pair, CAS with one register twice; ``herd7-atomics.log`` is herd7 7.57's
output on them under its ``aarch64.cat`` (Time lines left out), which the built-in
``aarch64`` model gives too."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path
from test_engine_aarch64 import herd_text

from herdsman.cat.api import load_model
from herdsman.engine.semantics.enumerate import thread_executions
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

DATA = Path(__file__).resolve().parents[1] / "data" / "aarch64" / "atomics"


def logged() -> dict[str, str]:
    text = (DATA / "herd7-atomics.log").read_text()
    blocks = [b.strip("\n") for b in text.split("\n\n") if b.strip()]
    return {b.splitlines()[0].split()[1]: b for b in blocks}


@pytest.mark.parametrize("spec", ["aarch64", "shared"])
def test_atomics_identical_to_herd(spec: str) -> None:
    model = load_model(
        str(shared_path("aarch64", "cat", "aarch64.cat")) if spec == "shared" else spec
    )
    expected = logged()
    files = sorted(DATA.glob("*.litmus"))
    assert len(files) == len(expected) >= 12
    for f in files:
        t = parse_file(str(f))
        assert herd_text(t, model) == expected[t.name], f.name


def events_of(text: str) -> list[list[list[tuple[str, int]]]]:
    """Per thread, per thread execution: (kind:register-or-location, iico masks) of each
    event."""
    program = lower(parse_text(text, "t.litmus"))
    execs = thread_executions(program, regs=True).execs
    return [
        [[(f"{e.kind}:{e.reg or e.loc}", e.iico, e.iico_ctrl) for e in te.events] for te in ts]
        for ts in execs
    ]


def test_swap_and_fetch_add_events_as_herd_gives_them() -> None:
    text = (
        "AArch64 T\n{ 0:X1=x; }\n P0 ;\n SWPAL W0,W2,[X1] ;\n LDADD W0,W3,[X1] ;\nexists (0:X2=0)\n"
    )
    ((swp_then_add, *_),) = events_of(text)
    # SWP: address read, value read (data port), R, W fed by the address and value (not
    # the read: herd's swp orders them, no data), the destination fed by the read
    assert swp_then_add[:5] == [
        ("Rreg:X1", 0, 0),
        ("Rreg:X0", 0, 0),
        ("R:x", 0b1, 0),
        ("W:x", 0b11, 0),
        ("Wreg:X2", 0b100, 0),
    ]
    # LDADD: the write also fed by the read
    assert [k for k, _, _ in swp_then_add[5:]] == ["Rreg:X1", "Rreg:X0", "R:x", "W:x", "Wreg:X3"]
    assert swp_then_add[8][1] == (1 << 5) | (1 << 6) | (1 << 7)


def test_cas_goes_two_ways_per_outcome() -> None:
    """herd's CAS: a branch commit fed by the read and the compared register; two
    executions of each outcome (the compared register's write fed two ways)."""
    text = "AArch64 T\n{ 0:X1=x; }\n P0 ;\n MOV W0,#0 ;\n CASA W0,W2,[X1] ;\nexists (0:X0=0)\n"
    (ts,) = events_of(text)
    ok = [te for te in ts if "W:x" in [k for k, _, _ in te]]
    failed = [te for te in ts if "W:x" not in [k for k, _, _ in te]]
    assert len(ok) == 2
    kinds = [k for k, _, _ in ok[0]]
    assert kinds == ["Wreg:X0", "Rreg:X1", "Rreg:X0", "Rreg:X2", "R:x", "B:None", "W:x", "Wreg:X0"]
    commit, write = ok[0][5], ok[0][6]
    assert commit[1] == (1 << 2) | (1 << 4)  # the compared register and the read
    assert write[1:] == ((1 << 1) | (1 << 3), 1 << 5)  # address and new value; the commit
    feeds = {te[7][1:] for te in ok}
    assert feeds == {(1 << 2, 1 << 5), (1 << 4, 0)}
    # the read takes the value 0 only (x is never written): no failing way survives
    assert failed == []


def test_failing_cas_read_is_not_atomic() -> None:
    text = "AArch64 T\n{ 0:X1=x; }\n P0 ;\n MOV W0,#1 ;\n CASL W0,W2,[X1] ;\nexists (0:X0=0)\n"
    program = lower(parse_text(text, "t.litmus"))
    (ts,) = thread_executions(program, regs=True).execs
    assert len(ts) == 2
    for te in ts:
        read = next(e for e in te.events if e.kind == "R")
        assert read.annots == frozenset()
