"""A location at an offset no init item names (``x+4``) has no initial write in herd: its
reads read the test's stores only.  ``herdsman herd7`` on ``tests/data/offsets`` prints
herd7 7.57's block (``.expected``, without ``Time``), with the reference engine and
RSMC; a C program's location at a computed address still starts at 0
(``Program.computed_init``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.herdrun import herd7_block

from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

DATA = Path(__file__).resolve().parents[1] / "data" / "offsets"


@pytest.mark.parametrize("engine", ["reference", "rsmc"])
def test_reads_at_an_offset_read_the_stores(engine: str) -> None:
    want = (DATA / "OF-fed.expected").read_text()
    got = herd7_block(DATA / "OF-fed.litmus", "-engine", engine)
    assert got.rstrip("\n") == want.rstrip("\n")


def test_only_the_named_locations_are_initially_written() -> None:
    program = lower(parse_file(DATA / "OF-fed.litmus"))
    assert program.initially_written("x")
    assert not program.initially_written("x+4")
