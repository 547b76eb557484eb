"""A location at an offset no init item names (``x+4``) has no initial write in herd: its
reads read the test's stores only.  ``herdsman herd7`` on ``tests/data/offsets`` prints
herd7 7.57's block (``.expected``, without ``Time``): the reference engine reads such a
location as herd does, ``auto`` turns to it from TruSt and RSMC (``OF-x86``: X86_64's
default is TruSt), which refuse it when named; a C program's location at a computed
address still starts at 0 (``Program.computed_init``)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from support.herdrun import herd7_block

from herdsman.herd_compat.cli.herd7opts import parse_herd7_args
from herdsman.herd_compat.cli.run import run_tests
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

DATA = Path(__file__).resolve().parents[1] / "data" / "offsets"


@pytest.mark.parametrize(
    "name, engine", [("OF-fed", "reference"), ("OF-fed", "auto"), ("OF-x86", "auto")]
)
def test_reads_at_an_offset_read_the_stores(name: str, engine: str) -> None:
    want = (DATA / f"{name}.expected").read_text()
    got = herd7_block(DATA / f"{name}.litmus", "-engine", engine)
    assert got.rstrip("\n") == want.rstrip("\n")


@pytest.mark.parametrize("engine", ["trust", "rsmc"])
def test_other_engines_refuse_it(engine: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    path = DATA / "OF-x86.litmus"
    cfg, _ = parse_herd7_args(["-engine", engine, str(path)])
    assert run_tests(cfg, out, err) == 2 and out.getvalue() == ""
    assert err.getvalue() == (
        f"{path}:0:0: error: the {engine} engine meets location x+4, which has no initial "
        "write (herd's location at a computed address): use --engine reference\n"
    )


def test_only_the_named_locations_are_initially_written() -> None:
    program = lower(parse_file(DATA / "OF-fed.litmus"))
    assert program.initially_written("x")
    assert not program.initially_written("x+4")
