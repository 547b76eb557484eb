"""The static operands of a union or intersection computed per candidate are combined
once per skeleton (cat/nodecode.py): every shared and built-in model still compiles, and
herd's RISC-V model's preserved program order reads its static part from one variable."""

from __future__ import annotations

import pytest
from conftest import shared_path

from herdsman.cat.api import load_model
from herdsman.cat.identity import builtin_names
from herdsman.litmus.base.errors import InputError


def _compiles(spec: str) -> None:
    m = load_model(spec)
    unit = m._unit(m._first_key())
    m._make(unit, 0)


@pytest.mark.parametrize("suite", ["aarch64", "arm", "riscv", "power", "x86", "c11", "linux"])
def test_every_shared_model_compiles(suite: str) -> None:
    cats = sorted(shared_path(suite, "cat").glob("*.cat"))
    if not cats:
        pytest.skip(f"no cat files for {suite}")
    for cat in cats:
        try:
            _compiles(str(cat))
        except InputError:  # an include-only file may not load alone: not codegen's matter
            continue


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_model_compiles(name: str) -> None:
    _compiles(name)


def test_a_union_of_static_relations_is_made_once_per_skeleton() -> None:
    m = load_model(str(shared_path("riscv", "cat", "riscv.cat")))
    src = m.source_for("RISCV")
    hoisted = [line.strip() for line in src.splitlines() if line.strip().startswith("h")]
    assert hoisted, "no static part combined"
    name = hoisted[0].split(" = ")[0]
    uses = [line for line in src.splitlines() if name in line and "def " not in line]
    assert any(line.startswith("        ") for line in uses)  # read inside check
