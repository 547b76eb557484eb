"""Forms herd's own instruction tests use, outside AArch64's register instructions: the
init section's nested braces, RISC-V's upper-case ``NOP``/``MV`` and ``sext.w``, PPC's
``extsw``, ARM's ``MOVW``/``MOVT``, and a condition's constants read at their location's
type (litmus/base/casts.py)."""

from __future__ import annotations

import pytest

from herdsman.litmus.asm import arm, ppc, riscv
from herdsman.litmus.base.casts import typed_condition
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    And,
    Atom,
    Condition,
    Imm,
    MemLoc,
    Nop,
    Not,
    Op,
    Reg,
    RegLoc,
    eval_prop,
)
from herdsman.litmus.base.numbers import convert_code, int_op
from herdsman.litmus.base.source import Source
from herdsman.litmus.hash import init_digest_text
from herdsman.litmus.lower import cell_names, lower
from herdsman.litmus.parser import parse_text
from herdsman.litmus.printer import loc_text
from herdsman.litmus.splitter import split
from herdsman.litmus.test import Instruction


def _one(parse, text: str) -> Instruction:
    ins = parse(text)[-1]
    assert isinstance(ins, Instruction)
    return ins


def test_the_init_section_nests_braces() -> None:
    text = "AArch64 T\n{ int64_t v[2] = {22,44}; 0:X2=v; }\nP0 ;\nNOP ;\nexists (0:X0=0)\n"
    sp = split(Source(text, "t"))
    assert text[sp.init[0] : sp.init[1]] == " int64_t v[2] = {22,44}; 0:X2=v; "
    assert text[sp.prog[0] : sp.prog[1]].split() == ["P0", ";", "NOP", ";"]


def test_riscv_forms() -> None:
    assert _one(riscv.parse_cell, "NOP").op == Nop()
    mv = _one(riscv.parse_cell, "MV a0, a1")
    assert (mv.text, mv.op) == ("mv x10,x11", Op("x10", "mov", (Reg("x11"),)))
    sext = _one(riscv.parse_cell, "sext.w a0,a1").op
    assert sext == Op("x10", "conv", (Reg("x11"), Imm(-32)))
    assert convert_code(0xFFFFFFFF, -32) == -1


def test_ppc_extsw() -> None:
    ins = _one(ppc.parse_cell, "extsw r0,r1")
    assert ins.text == "extsw r0, r1"  # herd's text
    assert ins.op == Op("r0", "conv", (Reg("r1"), Imm(-32)))


def test_arm_movw_movt() -> None:
    movt = _one(arm.parse_cell, "MOVT R0, #48879")
    assert (movt.text, movt.op) == ("MOVT R0, #48879", Op("R0", "mov.w", (Imm(48879 << 16),)))
    assert _one(arm.parse_cell, "MOVW R1,#3").text == "MOVWR1, #3"  # herd's, no space
    assert int_op("mov.w", 48879 << 16, 0) == -1091633152


def test_condition_constants_are_read_at_their_type() -> None:
    r0, x = RegLoc(0, "R0"), MemLoc("x")
    cond = Condition("forall", Not(Atom(r0, 0xBEEF0000)))
    assert typed_condition(cond, 32) == Condition("forall", Not(Atom(r0, -1091633152)))
    kept = Condition("exists", Atom(x, 0xFFFFFFFFFFFF))
    assert typed_condition(kept, 64) is kept
    assert typed_condition(kept, None) is kept
    assert typed_condition(Condition("exists", Atom(x, (1 << 64) - 2)), 64).prop == Atom(x, -2)
    test = parse_text("ARM T\n{ }\nP0 ;\nMOVT R0, #48879 ;\nforall 0:R0=0xBEEF0000\n")
    assert test.condition.prop == Atom(r0, -1091633152)


ARRAYS = """AArch64 A
{ int64_t v[2] = {22,44}; int t[3]; 0:X2=v; }
P0 ;
STR X0,[X2,#8] ;
locations [t[2];]
forall (v[0]=22 /\\ v[1]=0)
"""


def test_arrays() -> None:
    test = parse_text(ARRAYS)
    v = next(it for it in test.init if it.loc == MemLoc("v"))
    assert (v.ctype, v.cells) == ("int64_t", (22, 44))
    t = next(it for it in test.init if it.loc == MemLoc("t"))
    assert t.cells == (0, 0, 0)
    assert "int64_t v[2]" in init_digest_text(test)  # herd digests no values
    program = lower(test)
    assert dict(program.memory) == {"v": 22, "v+8": 44, "t": 0, "t+4": 0, "t+8": 0}
    assert program.observed == (MemLoc("v"), MemLoc("v+8"), MemLoc("t+8"))
    assert cell_names(test)[MemLoc("v+8")] == MemLoc("v[1]")
    assert loc_text(MemLoc("v[1]")) == "v[1]"


@pytest.mark.parametrize(
    "init, cond, message",
    [
        ("int v[2] = {1}", "v[0]=1", "of 2 cells has 1 values"),
        ("int v[2] = {}", "v[0]=1", "unexpected"),
        ("foo_t v[2]", "v[0]=1", "not a sized type"),
        ("int v[2]", "v[2]=1", "no cell of an array"),
        ("int v[2]", "x[0]=1", "no cell of an array"),
        ("int v[2]", "v[0]={1}", "the cell 'v[0]' is compared with a vector"),
        ("int v[2]", "v={1,}", "syntax error in the condition"),
    ],
)
def test_array_errors(init: str, cond: str, message: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_text(f"AArch64 A\n{{ {init}; }}\nP0 ;\nNOP ;\nexists ({cond})\n")
    assert message in str(exc.value)


def test_constants_compare_at_the_locations_type() -> None:
    text = (
        "AArch64 T\n{ uint32_t 0:X1; int8_t x = 257; }\nP0 ;\nNOP ;\n"
        "exists (0:X1=0xfffffffe /\\ 0:X2=-1 /\\ x=1)\n"
    )
    test = parse_text(text)
    program = lower(test)
    x1, x2 = RegLoc(0, "X1"), RegLoc(0, "X2")
    assert program.condition.prop == And(
        (
            Atom(x1, 0xFFFFFFFE, 32),  # a uint32_t, compared on 32 bits
            Atom(x2, -1, 32),  # an undeclared int
            Atom(MemLoc("x"), 1, 8),
        )
    )
    # herd masks both sides to the type's bits (its mask_type): any 64-bit value whose
    # low word is 0xfffffffe satisfies the first atom, the constant read either way
    x1_atom = program.condition.prop.props[0]
    assert all(eval_prop(x1_atom, {x1: v}) for v in (-2, 0xFFFFFFFE, 0x1FFFFFFFE))
    assert not eval_prop(x1_atom, {x1: 0xFFFFFFFF})
    assert dict(program.memory)["x"] == 1  # 257 read as an int8_t
    assert test.condition.prop.props[0] == Atom(x1, 0xFFFFFFFE)  # shown as written
