"""Instructions with several effects or scaled addresses, end to end and concurrent:
``herdsman herd7`` on the tests of ``tests/data/instructions`` prints herd7 7.57's block
beside each (``.expected``, without ``Time``; hashes included).

- ``A64-MPstp``, ``A64-LBstp``, ``A64-SBpair``: ``STP``/``LDP`` (two accesses of one
  instruction, post-indexed too) against single accesses and each other;
- ``A64-MPpostnodep``: a post-indexed load's base update depends on the base only (an
  access through the updated base carries no dependency on the load);
- ``A64-MPldpdep``, ``A64-LBpre``: an address dependency from a pair's second read
  through a scaled index ``[X0,X7,LSL #3]``; pre-indexed loads and stores;
- ``ARM-MPldm``: ``LDM``, ``LDRD`` and ``[rn,rm,lsl #2]`` under herd's ``arm.cat``;
- ``X86_64-SBscaled``: scaled index addresses ``k(%rA,%rB,s)``;
- ``PPC-RL``: ``rlwinm``/``rlwimi`` values, herd's rotation count included;
- ``A64-LBcsel*``, ``A64-LBcsneg``: ``CSEL``/``CSINC``/``CSNEG`` order a later write
  after the reads feeding their flags and their chosen register (herd's ``pick``
  dependencies), not after those feeding the register they do not choose;
- ``A64-MPilp``, ``A64-MPnp``: ``STILP``/``LDIAPP`` order their two accesses (herd's
  ``iico_order``), ``STNP``/``LDNP`` do not;
- ``A64-MPret``: ``RET`` under ``Variant=telechat`` ends its thread (herd's ``B.Exit``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.herdrun import herd7_block

DATA = Path(__file__).resolve().parents[1] / "data" / "instructions"
NAMES = sorted(p.stem for p in DATA.glob("*.litmus"))


def test_every_test_has_its_block() -> None:
    assert len(NAMES) == 16
    assert all((DATA / f"{n}.expected").exists() for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_blocks_are_herds(name: str) -> None:
    want = (DATA / f"{name}.expected").read_text()
    assert herd7_block(DATA / f"{name}.litmus").rstrip("\n") == want.rstrip("\n")
