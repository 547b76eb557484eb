"""PPC's rotate-and-mask arithmetic (``litmus.base.ppcops``), herd's values (its
instruction tests PPC A011, A013, A014, and herd's rotation count ``63 - n``)."""

from __future__ import annotations

from herdsman.litmus.base.numbers import int_op
from herdsman.litmus.base.ppcops import mask, rot32, rotate


def test_mask() -> None:
    assert mask(62, 63) == 3
    assert mask(32, 47) == 0xFFFF0000
    assert mask(63, 0) == (1 << 63) | 1  # wrapping: every bit but 1..62


def test_rlwinm_and_rlwimi_as_herd() -> None:
    assert int_op("rlwinm.4.30.31", -1) == 3
    assert int_op("rlwinm.16.0.15", -1) == 0xFFFF0000
    assert int_op("rlwinm.5.0.31", 0) == 0
    old = 0xAAAAAAAAAAAAAAAA - (1 << 64)
    assert int_op("rlwimi.16.0.15", old, -1) == 0xAAAAAAAAFFFFAAAA - (1 << 64)
    assert int_op("rlwimi.0.30.31", old, -1) == 0xAAAAAAAAAAAAAAAB - (1 << 64)


def test_herds_rotation_count() -> None:
    """herd or's the word shifted right by 63 - n (not 64 - n): a rotation by 0 of a word
    whose top bit is set sets bit 0 too."""
    assert rot32(0x80000000, 0) & 1 == 1
    assert int_op("rlwinm.0.31.31", 0x80000000) == 1


def test_other_names() -> None:
    assert rotate("rlwinm.32.0.31") is None
    assert rotate("rlwnm.1.2.3") is None
