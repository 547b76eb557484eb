"""herd's ``-hexa true``: values in hexadecimal, in the state lines as unsigned words of
their location's type (an ``int`` when undeclared), in the condition as 64-bit words in an
assembly test and words of their type in a C test; the blocks beside the tests of
``tests/data/hexa`` are herd7 7.57's (``Time`` removed)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from herdsman.herd_compat.cli.herd7opts import parse_herd7_args
from herdsman.herd_compat.cli.run import run_tests

DATA = Path(__file__).resolve().parents[1] / "data" / "hexa"


@pytest.mark.parametrize("name, model", [("HX", []), ("CH", ["-model", "rc11"])])
def test_hexa_blocks_are_herds(name: str, model: list[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    cfg, _ = parse_herd7_args(["-hexa", "true", *model, str(DATA / f"{name}.litmus")])
    assert run_tests(cfg, out, err) in (0, 1), err.getvalue()
    got = "".join(x + "\n" for x in out.getvalue().split("\n") if not x.startswith("Time "))
    assert got.rstrip("\n") == (DATA / f"{name}.expected").read_text().rstrip("\n")
