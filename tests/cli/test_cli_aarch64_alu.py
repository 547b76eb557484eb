"""AArch64's flags and word operations end to end: ``herdsman herd7`` on the small tests of
``tests/data/aarch64/alu`` prints the block beside each (``.expected``, without ``Time``).

- ``F2``: ``ADDS``/``SUBS``/``ANDS``/``BICS``/``NEGS``, ``CSET``/``CSETM`` and ``B.cond``
  on the flags (carry out of a 32-bit ``ADDS``, borrow, overflow clear, herd's ``CSET``);
- ``F3``: ``MOVZ``/``MOVK``/``MOVN``, ``ASR``/``LSR``/``LSL``/``ROR``, shifted operands,
  ``MVN``/``ORN``/``EON``/``BIC``/``NEG``;
- ``F4``: MP whose reader branches on ``SUBS`` flags before an ``ISB``: the control
  dependency through ``NZCV`` forbids the outcome;
- ``F5``: arrays of the init section (8- and 4-byte cells at their offsets, ``v[i]`` in
  ``locations``, the condition and the states);
- ``F6``: byte and half-word loads and stores (their low bits), typed registers and
  locations (init values and states at their type, constants compared at it);
- ``F7``: 32-bit loads (``LDR``/``LDAR Wt``) move the low word, zero-extended, and a
  register or location of no declared type prints as herd's ``int`` (32 bits, signed).

Each value was checked by hand against the Arm ARM's ``AddWithCarry`` and condition
codes; the blocks are herd7 7.57's (hashes included)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from support.herdrun import herd7_block

from herdsman.herd_compat.cli.herd7opts import parse_herd7_args
from herdsman.herd_compat.cli.run import run_tests

DATA = Path(__file__).resolve().parents[1] / "data" / "aarch64" / "alu"


@pytest.mark.parametrize("name", ["F2", "F3", "F4", "F5", "F6", "F7"])
def test_blocks_are_herds(name: str) -> None:
    want = (DATA / f"{name}.expected").read_text()
    assert herd7_block(DATA / f"{name}.litmus").rstrip("\n") == want.rstrip("\n")


def test_word_load_of_an_address_is_an_error(tmp_path: Path) -> None:
    """herd rejects a 32-bit load of a pointer ("Illegal operation mask32"): one error line
    naming the instruction, exit status 2."""
    test = tmp_path / "W.litmus"
    test.write_text(
        "AArch64 W\n{\n int *p = &x;\n 0:X2=p;\n}\n P0 ;\n LDR W0,[X2] ;\nlocations [0:X0;]\n"
    )
    out, err = io.StringIO(), io.StringIO()
    cfg, _ = parse_herd7_args([str(test)])
    assert run_tests(cfg, out, err) == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{test}:"), lines
    assert "'LDR W0,[X2]'" in lines[0] and "32-bit load of the address of x" in lines[0]
