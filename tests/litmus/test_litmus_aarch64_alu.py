"""AArch64 register instructions (litmus/asm/aarch64_alu.py) and the word arithmetic they
use (litmus/base/armops.py): herd's text, the IR operation (with ``NZCV`` as a second
destination), the flags of ``AddWithCarry`` and the condition codes, one clean error each
for what herd does not read."""

from __future__ import annotations

import pytest

from herdsman.litmus.asm import aarch64
from herdsman.litmus.asm.cells import CellError
from herdsman.litmus.base import armops
from herdsman.litmus.base.ir import Branch, Imm, Load, Op, Reg, Select, Store
from herdsman.litmus.base.numbers import int_op
from herdsman.litmus.base.regflow import defines, uses
from herdsman.litmus.jsonir import from_json, to_json
from herdsman.litmus.parser import parse_text
from herdsman.litmus.printer import print_test
from herdsman.litmus.test import Instruction

F = "NZCV"


def one(text: str) -> Instruction:
    ins = aarch64.parse_cell(text)[-1]
    assert isinstance(ins, Instruction)
    return ins


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("ADDS X0, X1, X2", "ADDS X0,X1,X2"),
        ("subs w0,w1,#3", "SUBS W0,W1,#3"),
        ("SUBS XZR,X1,X2", "CMP X1,X2"),
        ("ANDS WZR,W1,W2", "TST W1,W2"),
        ("ADDS WZR,W1,#1", "ADDS WZR,W1,#1"),
        ("CMP X1,X2,ASR #1", "CMP X1,X2,ASR #1"),
        ("CSET W3, MI", "CSET W3,MI"),
        ("CSET W3,LT", "CSET W3,GT"),  # herd's inverse of GE is GT
        ("CSETM X3,VC", "CSETM X3,VC"),
        ("csel w3,w2,w1,ne", "CSEL W3,W2,W1,NE"),
        ("mrs x0,NZCV", "MRS X0,NZCV"),
        ("smull x3,w2,w1", "SMULL X3,W2,W1"),
        ("UMSUBL X8,W1,W1,X10", "UMSUBL X8,W1,W1,X10"),
        ("MSR NZCV,X1", "MSR NZCV,X1"),
        ("CSINC W3,WZR,WZR,EQ", "CSET W3,NE"),  # herd shows its own reading back
        ("CSINV X3,XZR,XZR,LT", "CSETM X3,GE"),
        ("CSINC W3,W2,W2,GT", "CINC W3,W2,LE"),
        ("CINC W3,W2,GE", "CINC W3,W2,LE"),  # CSINC W3,W2,W2,GT shown back
        ("CSNEG X1,X0,X2,EQ", "CSNEG X1,X0,X2,EQ"),
        ("MOVZ X0, #42, LSL #16", "MOVZ X0,#42,,LSL #16"),
        ("MOVK W0,#1", "MOVK W0,#1"),
        ("MOVN W0,#0", "MOVN W0,#0"),
        ("ADD X0,X0,X1,lsl #0", "ADD X0,X0,X1"),
        ("ADD X0,X0,X1,LSL 2", "ADD X0,X0,X1,LSL #2"),
        ("ADD X0,X0,#1,LSL #12", "ADD X0,X0,#1,LSL #12"),
        ("ASR X0,X1,#3", "ASR X0,X1,#3"),
        ("ASRV X0,X1,X2", "ASR X0,X1,X2"),
        ("EON W0,W1,W2", "EOR W0,W1,W2"),
        ("NEG W0,W1", "NEG W0,W1"),
        ("MVN X0,X1", "MVN X0,X1"),
        ("B.CS L", "B.CS L"),
    ],
)
def test_canonical_text(written: str, canonical: str) -> None:
    assert one(written).text == canonical


def test_operations() -> None:
    adds = one("ADDS X0,X1,X2").op
    assert adds == Op("X0", "add.x", (Reg("X1"), Reg("X2")), flags=(F, "nzcv.add.x"))
    assert defines(adds) == ("X0", F)
    assert one("SUBS W0,W1,#3").op == Op(
        "X0", "sub.w", (Reg("X1"), Imm(3)), flags=(F, "nzcv.sub.w")
    )
    assert one("CMP W0,#1").op == Op(F, "nzcv.sub.w", (Reg("X0"), Imm(1)))
    assert one("TST X0,X1").op == Op(F, "nzcv.and.x", (Reg("X0"), Reg("X1")))
    assert one("CMP XZR,X1,ASR #1").op == Op(F, "nzcv.sub.asr1.x", (Imm(0), Reg("X1")))
    # herd's CSINC W3,WZR,WZR,inverse(cond): 0 when the inverse holds, else 0+1
    one_ = (Imm(0), Imm(1))
    cset_eq = Select("X3", F, "nzcv.ne", "mov.w", (Imm(0),), "add.w", one_, "NE")
    assert one("CSET W3,EQ").op == cset_eq
    cset_ge = Select("X3", F, "nzcv.gt", "mov.w", (Imm(0),), "add.w", one_, "GT")
    assert one("CSET W3,GE").op == cset_ge  # as herd computes it: herd's inverse of GE is GT
    assert one("MOVZ X0,#42,LSL #16").op == Op("X0", "mov.x", (Imm(42 << 16),))
    assert one("MOVK X0,#1,LSL #48").op == Op("X0", "movk48.x", (Reg("X0"), Imm(1)))
    assert one("ADD X0,X1,X2,LSL #2").op == Op("X0", "add.lsl2.x", (Reg("X1"), Reg("X2")))
    assert one("ADD X0,X1,X2").op == Op("X0", "add", (Reg("X1"), Reg("X2")))
    assert one("NEGS W0,W1").op == Op("X0", "sub.w", (Imm(0), Reg("X1")), flags=(F, "nzcv.sub.w"))
    assert one("B.HI L").op == Branch("L", "nzcv.hi", F)
    assert one("ASR W0,W1,#4").op == Op("X0", "lsr.w", (Reg("X1"), Imm(4)))  # as herd
    assert one("TBNZ X0,#3,L").op == Branch("L", "tbnz3", "X0")
    assert one("tbz w1, #31, L").text == "TBZ W1,#31,L"
    ubfm = one("UBFM W20, W19, #24, #7")  # herd shows X registers
    assert (ubfm.text, ubfm.op) == ("UBFM X20,X19,#24,#7", Op("X20", "ubfm.24.7.w", (Reg("X19"),)))
    assert one("LDRB W0,[X1,X2,UXTW]").op == Load("X0", (Reg("X1"), Reg("X2")), 1)
    assert one("STRH WZR,[X1]").op == Store(Imm(0), (Reg("X1"),), 2)
    ldur = one("LDUR X0, [X1,#8]")
    assert (ldur.text, ldur.op) == ("LDUR X0, [X1,#8]", Load("X0", (Reg("X1"), Imm(8)), 8))


@pytest.mark.parametrize(
    "fn, a, b, want",
    [
        ("nzcv.add.w", 0x7FFFFFFF, 1, 0b1001),  # signed overflow: N, V
        ("nzcv.add.w", -1, -1, 0b1010),  # carry out, negative
        ("nzcv.add.w", -1, 1, 0b0110),  # zero with carry
        ("nzcv.sub.x", 3, 3, 0b0110),  # equal: Z, no borrow (C)
        ("nzcv.sub.x", 2, 3, 0b1000),  # borrow: N, C clear
        ("nzcv.sub.x", -(1 << 63), 1, 0b0011),  # overflow
        ("nzcv.and.w", 2, 1, 0b0100),
        ("nzcv.bic.x", -1, 0, 0b1000),
        ("add.w", 0x7FFFFFFF, 1, -(1 << 31)),
        ("add.x", (1 << 63) - 1, 1, -(1 << 63)),
        ("movk16.w", 0x20002, 1, 0x10002),
        ("movk48.x", 1, 1, (1 << 48) + 1),
        ("asr.w", -1, 4, -1),
        ("or.asr4.w", 0, 0xF000000F, -16777216),
        ("asr.x", -16, 2, -4),
        ("lsr.x", -1, 60, 15),
        ("ror.w", 6, 1, 3),
        ("add.lsl2.x", 6, 0x30, 198),
        ("sub.asr1.w", 0x30, 6, 45),
        ("ubfm.4.31.w", 0x55667788, 0, 0x5566778),  # a field down to bit 0
        ("ubfm.24.7.w", 0x55667788, 0, 0x8800),  # the low byte up to bit 8
        ("sbfm.4.31.w", 0xAA998878, 0, -89548665),  # sign-extended from bit 27
        ("sbfm.0.0.x", 1, 0, -1),
        ("cset.hi", 0b0010, 0, 1),
        ("cset.hi", 0b0110, 0, 0),
        ("csetm.ge", 0b1001, 0, -1),
    ],
)
def test_word_operations_and_flags(fn: str, a: int, b: int, want: int) -> None:
    assert int_op(fn, a, b) == want


def test_every_condition_code_is_its_flags() -> None:
    # the Arm ARM's ConditionHolds, on every combination of N, Z, C, V
    for f in range(16):
        n, z, c, v = (f >> 3) & 1, (f >> 2) & 1, (f >> 1) & 1, f & 1
        want = {
            "EQ": z == 1,
            "CS": c == 1,
            "MI": n == 1,
            "VS": v == 1,
            "HI": c == 1 and z == 0,
            "GE": n == v,
            "GT": z == 0 and n == v,
            "AL": True,
        }
        for cond, holds in want.items():
            assert armops.CONDITIONS[cond](f) is holds
            if cond != "AL":
                assert armops.CONDITIONS[armops.INVERSE[cond]](f) is not holds


@pytest.mark.parametrize(
    "cell, message",
    [
        ("CMN W0,#1", "unknown AArch64 instruction 'CMN'"),  # herd reads no CMN
        ("B.HS L", "unknown AArch64 instruction 'B.HS'"),
        ("CSET W0,AL", "takes no AL condition"),
        ("CSET W0,XX", "unknown condition 'XX'"),
        ("CSEL W0,W1,X2,EQ", "expected a W register"),
        ("CSEL WZR,W1,W2,EQ", "zero register cannot be used"),
        ("CSINV W0,W1,W2", "missing operand"),
        ("MRS X0,TPIDR_EL0", "system register 'TPIDR_EL0' of 'MRS' is not supported"),
        ("MSR NZCV,W1", "expected an X register"),
        ("SMADDL X0,X1,W2,X3", "expected a W register"),
        ("UMULL X0,W1", "missing operand"),
        ("MOVZ W0,#1,LSL #32", "LSL #0, #16, #32 or #48"),
        ("MOVZ W0,#70000", "16 bits"),
        ("ADD X0,X1,X2,LSL #64", "out of range"),
        ("ADD X0,X1,#1,ASR #2", "only be shifted by LSL"),
        ("ADD X0,X1,W2,SXTB #5", "shifts by 0 to 4, not 5"),
        ("NEG W0", "missing operand"),
        ("CMP", "missing operand"),
        ("ADR X0,L", "unsupported AArch64 instruction 'ADR'"),
        ("UBFM W0,W1,#0,#32", "bit numbers 0..31"),
        ("TBZ W0,#32,L", "out of range"),
        ("LDRB X0,[X1]", "expected a W register"),
    ],
)
def test_clean_errors(cell: str, message: str) -> None:
    with pytest.raises(CellError) as exc:
        aarch64.parse_cell(cell)
    assert message in exc.value.message


def test_long_multiplications() -> None:
    """``SMADDL``... on sign- or zero-extended words, 64-bit results (herd's L098)."""
    assert one("SMNEGL X5,W1,W1").op == Op("X5", "smsubl", (Reg("X1"), Reg("X1"), Imm(0)))
    mull = armops.TERNARY
    assert mull["smaddl"](-1, 15, 3840) == 3825
    assert mull["umaddl"](-1, -1, 0) == -8589934591  # 0xfffffffe00000001, signed
    assert mull["umsubl"](-2, -2, 1) == 17179869181
    assert mull["smsubl"](-2, -2, 1) == -3


def test_selections() -> None:
    """The ``CSEL`` family: the first register when the condition holds, else the
    second one copied, incremented, inverted or negated on the word."""
    assert one("CSEL X3,X2,XZR,EQ").op == Select(
        "X3", F, "nzcv.eq", "mov", (Reg("X2"),), "mov", (Imm(0),), "EQ"
    )
    assert one("CSNEG W1,W0,W2,NE").op == Select(
        "X1", F, "nzcv.ne", "mov.w", (Reg("X0"),), "sub.w", (Imm(0), Reg("X2")), "NE"
    )
    assert one("CSINV W1,W0,W2,NE").op.other_fn == "orn.w"
    assert one("MRS X0,NZCV").op == Op("X0", "shl", (Reg(F), Imm(28)))
    assert one("MSR NZCV,X2").op == Op(F, "ubfm.28.31.x", (Reg("X2"),))
    sel = one("CSINC W1,W0,W2,HI").op
    assert uses(sel) == (F, "X0", "X2") and defines(sel) == ("X1",)


def test_bit_and_byte_operations() -> None:
    """``ABS``, ``RBIT``, ``REV``/``REV16``/``REV32``/``REV64``, ``SXTW`` and extended
    registers of ``ADD``: herd's texts and values (its instruction tests L088-L097)."""
    assert one("REV64 X4,X3").text == "REV X4,X3"
    assert one("rbit w2,w1").op == Op("X2", "rbit.w", (Reg("X1"),))
    assert one("SXTW X4,W0").op == Op("X4", "conv", (Reg("X0"), Imm(-32)))
    ext = one("ADD X0,X1,W2,SXTB 2")
    assert ext.text == "ADD X0,X1,W2,SXTB #2"
    assert ext.op == Op("X0", "add.sxtb2.x", (Reg("X1"), Reg("X2")))
    assert int_op("add.sxtb2.x", 2, 255) == -2
    assert int_op("rbit.x", 0xFEDCBA87654321) == 0x84C2A6E15D3B7F00 - (1 << 64)
    assert int_op("rev.w", 0x87654321) == 0x21436587
    assert int_op("rev16.x", 0xFEDCBA87654321) == 0xFE00BADC65872143 - (1 << 64)
    assert int_op("rev32.x", 0xFEDCBA87654321) == 0xBADCFE0021436587 - (1 << 64)
    assert int_op("abs.w", 0x80000000) == -(1 << 31)
    assert armops.ARITIES["abs.w"] == 1
    with pytest.raises(CellError, match="expected an X register"):
        aarch64.parse_cell("REV32 W0,W1")


def test_selections_print_back() -> None:
    """A test printed back (the mnemonic as written) reads back to itself, also where herd
    shows a selection otherwise (``CSINC W3,WZR,WZR,EQ`` is shown ``CSET W3,NE``)."""
    cells = ("CSINC W3,WZR,WZR,EQ", "csinv x6,xzr,xzr,lt", "CSINC W4,W2,W2,GT", "CINC W5,W2,GE")
    cells += ("CSNEG X1,XZR,X2,EQ", "CSINV W1,W2,WZR,HI", "MRS X8,NZCV", "SMULL X9,W1,W2")
    text = "AArch64 A\n{ }\n P0 ;\n" + "".join(f" {c} ;\n" for c in cells) + "exists (0:X3=0)\n"
    t = parse_text(text, "a.litmus")
    assert parse_text(print_test(t), "a.litmus") == t
    assert from_json(to_json(t)) == t  # the IR's JSON knows selections
