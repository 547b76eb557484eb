"""Arrays observed whole, end to end: ``herdsman herd7`` on the tests of
``tests/data/arrays`` prints herd7 7.57's block beside each (``.expected``, without
``Time``; hashes included).

- ``AR-MPcells``: ``a={1,2}`` in an ``exists`` over two threads (the cells sort the
  states cell by cell);
- ``AR-shown``: ``locations [w[2];u;w;x;u[1];]``: whole arrays, then scalars, then cells
  (herd's ``Deref`` after every ``Loc``), typed cells printed at their type, ``<>`` of a
  vector printed ``not (w={1,2,3})``;
- ``AR-false``: a vector never equals a register, a scalar or an array of another size,
  a whole array never equals a constant (``v=1`` printed ``[v]=1``);
- ``AR-ppc``: PPC's arrays.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.herdrun import herd7_block

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import And, Atom, MemLoc, PFalse, Vector
from herdsman.litmus.jsonir import from_json, to_json
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_text
from herdsman.litmus.printer import print_test

DATA = Path(__file__).resolve().parents[1] / "data" / "arrays"
NAMES = sorted(p.stem for p in DATA.glob("*.litmus"))


def test_every_test_has_its_block() -> None:
    assert len(NAMES) == 4
    assert all((DATA / f"{n}.expected").exists() for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_blocks_are_herds(name: str) -> None:
    want = (DATA / f"{name}.expected").read_text()
    assert herd7_block(DATA / f"{name}.litmus").rstrip("\n") == want.rstrip("\n")


_TEST = "AArch64 A\n{{ int v[2] = {{1,2}}; 0:X2=v; }}\nP0 ;\nLDR W1,[X2] ;\n{}\n"


def test_a_vector_is_a_condition_constant_compared_cell_by_cell() -> None:
    test = parse_text(_TEST.format("exists (v={0x1,-1})"))
    assert test.condition.prop == Atom(MemLoc("v"), Vector((1, -1)))
    assert test.observed_locations() == [MemLoc("v")]
    program = lower(test)
    assert program.observed == (MemLoc("v"), MemLoc("v+4"))
    assert program.condition.prop == And((Atom(MemLoc("v"), 1, 32), Atom(MemLoc("v+4"), -1, 32)))
    assert lower(parse_text(_TEST.format("exists (0:X1={1})"))).condition.prop == PFalse()


def test_vectors_print_back_and_travel_as_json() -> None:
    test = parse_text(_TEST.format("exists (v={1,2} /\\ v<>{y,1})"))
    assert parse_text(print_test(test)) == test
    assert from_json(json.loads(json.dumps(to_json(test)))) == test


@pytest.mark.parametrize("cond", ["exists (v={})", "exists (v={1", "exists (v={{1}})"])
def test_bad_vectors_are_one_error_line(cond: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_text(_TEST.format(cond))
    assert str(exc.value).count("\n") == 0
    assert "error: " in str(exc.value)
