"""Returns (``RET``, ``ret``, ``blr``, ``BX LR``): the IR's ``Exit``, which ends the thread
under ``-variant telechat`` (herd's ``B.Exit``) and is refused without it, one error line
naming the instruction (litmus/returns.py)."""

from __future__ import annotations

import pytest

from herdsman.litmus.asm import aarch64, arm, ppc, x86_64
from herdsman.litmus.asm.cells import CellError
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Exit
from herdsman.litmus.jsonir import from_json, to_json
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_text
from herdsman.litmus.returns import check_returns
from herdsman.litmus.test import Instruction

_TEST = """X86_64 R
{ }
 P0          ;
 movl $1,(x) ;
 ret         ;
 movl $2,(x) ;
exists ([x]=1)
"""


@pytest.mark.parametrize(
    "module, cell, text",
    [(aarch64, "ret", "RET"), (x86_64, "ret", "ret"), (ppc, "blr", "blr"), (arm, "BX LR", "BX LR")],
)
def test_returns_are_exits(module, cell: str, text: str) -> None:
    ins = module.parse_cell(cell)[-1]
    assert isinstance(ins, Instruction)
    assert (ins.text, ins.op) == (text, Exit())


def test_other_indirect_jumps_stay_refused() -> None:
    with pytest.raises(CellError, match="to a register"):
        aarch64.parse_cell("RET X1")
    with pytest.raises(CellError, match=r"'BX' \(indirect branch\)"):
        arm.parse_cell("BX R0")


def test_only_under_telechat() -> None:
    test = parse_text(_TEST, "r.litmus")
    assert from_json(to_json(test)) == test  # the IR's JSON knows returns
    program = lower(test)
    check_returns(program, frozenset({"telechat"}), "r.litmus")
    with pytest.raises(InputError) as exc:
        check_returns(program, frozenset({"mixed"}), "r.litmus")
    assert exc.value.header() == (  # the file is not there: no position
        "r.litmus:0:0: error: unsupported X86_64 instruction 'ret' "
        "(a return: only with -variant telechat)"
    )


def test_refusal_names_the_cell(tmp_path) -> None:
    p = tmp_path / "r.litmus"
    p.write_text(_TEST.replace(" ret         ;", " RET         ;"))
    program = lower(parse_text(p.read_text(), str(p)))
    with pytest.raises(InputError) as exc:
        check_returns(program, frozenset(), str(p))
    assert (exc.value.line, exc.value.col) == (5, 2)
