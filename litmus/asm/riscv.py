"""RISC-V assembler: one program cell to IR operations, with herd's canonical text.

Syntax and canonical text follow herd (``lib/RISCVLexer.mll``, ``lib/RISCVParser.mly``,
``lib/RISCVBase.ml`` ``dump_instruction``); semantics follow ``herd/RISCVSem.ml``:

- registers ``x0``..``x31`` or their ABI names (``a0``, ``t1``, ``s2``...), printed
  ``x5``; ``x0`` reads as 0 (an immediate: no dependency) and writing it does nothing;
- ``li rd,k`` is herd's ``ori rd,x0,k``; ``addi rd,rs,0`` is ``mv rd,rs``; ``addi``,
  ``slti``, ``andi``, ``ori``, ``xori``, ``slli``, ``srli``, ``addiw``, ``slliw``,
  ``lui``, ``add``, ``slt``, ``and``, ``or``, ``xor``, ``sll``, ``sub``, ``addw``,
  ``sllw``, ``subw``, ``sext.w`` compute in registers;
- ``lw``, ``ld``... (``.aq``, ``.aq.rl``) and ``sw``, ``sd``... (``.rl``, ``.aq.rl``) are
  accesses at ``k(rs)`` annotated ``Acq``, ``Rel`` or ``AcqRel``; ``lr``/``sc`` are a
  load-reserve and a store-conditional (set ``X``, herd's reading of their ``.aq``/
  ``.rl``: ``lr.w.rl`` and ``sc.w.aq`` are plain); ``amo<op>`` is one read-modify-write
  event (set ``X`` and ``AMO``: herd's single event, both a read and a write);
- ``fence pred,succ`` (``fence`` alone is ``fence rw,rw``), ``fence.tso`` and
  ``fence.i`` are fences of kind ``Fence.r.rw``, ``Fence.tso``, ``Fence.i`` (herd's
  sets; ``ir``, ``ow``, ``iorw`` count as ``r``, ``w``, ``rw``);
- ``j``, and ``beq``/``bne``/``blt``/``bge`` comparing two registers, with a commit.

Instructions herd's RISC-V parser reads but does not implement (``sltiu``, ``srai``,
``sltu``, ``sra``, ``srl``, ``bltu``, ``bgeu``, ``amomaxu``, ``amominu``...) and those
herdsman does not model (``la``, ``auipc``, ``ret``) are errors naming them.
"""

from __future__ import annotations

import re

from herdsman.litmus.asm.cells import (
    CellError,
    Operand,
    Token,
    assemble,
    branch,
    branch_hash_text,
    fence,
    lower_at,
    nop,
    op,
    operands,
    plain_operand,
    unknown_instruction,
)
from herdsman.litmus.base import ir
from herdsman.litmus.base.arch import riscv_register
from herdsman.litmus.base.ir import Branch, Imm, Reg
from herdsman.litmus.base.ir import Operand as IrOperand
from herdsman.litmus.test import CodeItem, Instruction

#: The register a load-reserve leaves its address in (herd's RESADDR, printed ``res``).
RESERVE = "res"

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<num>-?[0-9]+)"
    r"|(?P<sreg>%[A-Za-z][A-Za-z0-9_/.\-]*)|(?P<name>[A-Za-z][A-Za-z0-9_/.\-]*)"
    r"|(?P<p>[,():])|(?P<bad>.)"
)

_WIDTH = {"b": 1, "h": 2, "w": 4, "d": 8}
#: herd's orders: the written suffix -> the order (Rlx is "")
_MO_TEXT = {"": "", "Acq": ".aq", "Rel": ".rl", "AcqRel": ".aqrl"}
_OPI = {"addi": "add", "slti": "lt", "andi": "and", "ori": "or", "xori": "xor"}
_OPI |= {"slli": "shl", "srli": "shr", "addiw": "add", "slliw": "shl"}
_OP = {"add": "add", "slt": "lt", "and": "and", "or": "or", "xor": "xor", "sll": "shl"}
_OP |= {"sub": "sub", "addw": "add", "sllw": "shl", "subw": "sub"}
_AMO = {"swap": "second", "add": "add", "and": "and", "or": "or", "xor": "xor"}
_AMO |= {"max": "max", "min": "min"}
_BCC = {"beq": "eq", "bne": "ne", "blt": "lt", "bge": "ge"}
_UNIMPLEMENTED = (
    *("sltiu", "srai", "sltu", "sra", "srl", "srliw", "sraiw", "srlw", "sraw"),
    *("bltu", "bgeu"),
)
_UNMODELLED = {"la": "labels as values", "auipc": "pc-relative", "ret": "returns"}
_ACCESSES = ("r", "w", "rw", "ir", "ow", "iorw")
_SAME = {"ir": "r", "ow": "w", "iorw": "rw"}

_LOAD = re.compile(r"l([bhwd])(u?)(\.aq(?:\.?rl)?)?$")
_STORE = re.compile(r"s([bhwd])(\.rl|\.aq\.?rl)?$")
_LRSC = re.compile(r"(lr|sc)\.([wd])(\.aq|\.rl|\.aq\.?rl)?$")
_AMO_RE = re.compile(r"amo(swap|add|and|or|xor|max|min|maxu|minu)\.([wd])(\.aq|\.rl|\.aq\.?rl)?$")


def _mo(suffix: str | None) -> str:
    """herd's order of a written suffix: '', Acq, Rel or AcqRel."""
    if not suffix:
        return ""
    if "aq" in suffix and "rl" in suffix:
        return "AcqRel"
    return "Acq" if "aq" in suffix else "Rel"


def _annots(*names: str) -> frozenset[str]:
    return frozenset(n for n in names if n)


def _operand(toks: list[Token], i: int, m: str) -> tuple[Operand, int]:
    """The operand at token ``i`` and the index of the token after it: a register, an
    integer, a name, or a memory operand ``k(rs)`` / ``(rs)`` (kind ``mem``)."""
    kind, text, pos = toks[i]
    n = len(toks)
    if text == "(" or (kind == "num" and i + 1 < n and toks[i + 1][1] == "("):
        j = i if text == "(" else i + 1
        if j + 2 >= n or toks[j + 2][1] != ")":
            at = toks[j + 2][2] if j + 2 < n else toks[j][2] + 1
            raise CellError(at, f"malformed memory operand of '{m}' (expected k(rs))")
        rk, rtext, rpos = toks[j + 1]
        reg = _register(rk, rtext, rpos)
        off = 0 if text == "(" else int(text)
        return Operand("mem", text, pos, off, reg), j + 3
    return plain_operand(toks[i], m, riscv_register), i + 1


def _register(kind: str, text: str, pos: int) -> str:
    reg = text if kind == "sreg" else riscv_register(text) if kind == "name" else None
    if reg is None:
        raise CellError(pos, f"bad RISC-V register '{text}' (expected x0..x31 or an ABI name)")
    return reg


def _form(m: str, ops: list[Operand], kinds: str, syntax: str, end: int) -> None:
    """Check the operands' kinds (R register, K integer, M memory, L label)."""
    names = {"R": "a register", "K": "an integer", "M": "a memory operand k(rs)", "L": "a label"}
    of = {"reg": "R", "num": "K", "mem": "M", "name": "L"}
    hint = f"(syntax: {m} {syntax})"
    for j, k in enumerate(kinds):
        if j >= len(ops):
            raise CellError(end, f"missing operand for '{m}' {hint}")
        if of[ops[j].kind] != k:
            o = ops[j]
            raise CellError(
                o.pos, f"expected {names[k]} as operand {j + 1} of '{m}', found '{o.text}' {hint}"
            )
    if len(ops) > len(kinds):
        raise CellError(ops[len(kinds)].pos, f"too many operands for '{m}' {hint}")


def _src(reg: str) -> IrOperand:
    """A register read: ``x0`` reads as the constant 0."""
    return Imm(0) if reg == "x0" else Reg(reg)


def _write(text: str, m: str, dst: str, fn: str, args: tuple[IrOperand, ...]) -> Instruction:
    """``dst <- fn(args)``; writing ``x0`` does nothing."""
    if dst == "x0":
        return nop(text, m)
    return op(text, m, dst, fn, args)


def _addr(mem: Operand) -> tuple[IrOperand, ...]:
    base = _src(mem.reg)
    return (base,) if mem.value == 0 else (base, Imm(mem.value))


def _zero_offset(mem: Operand, m: str) -> None:
    if mem.value != 0:
        raise CellError(mem.pos, f"'{m}' takes an address 0(rs) or (rs), without offset")


def _lower(m: str, ops: list[Operand], end: int) -> Instruction:
    """The IR of instruction ``m ops``."""
    if m in _UNIMPLEMENTED:
        raise CellError(0, f"unsupported RISC-V instruction '{m}' (herd does not implement it)")
    if m in _UNMODELLED:
        raise CellError(0, f"unsupported RISC-V instruction '{m}' ({_UNMODELLED[m]})")
    if m == "nop":
        _form(m, ops, "", "", end)
        return nop("nop", m)
    if m == "li":
        _form(m, ops, "RK", "rd,k", end)
        rd, k = ops[0].reg, ops[1].value
        return _write(f"ori {rd},x0,{k}", m, rd, "mov", (Imm(k),))
    if m == "lui":
        _form(m, ops, "RK", "rd,k", end)
        rd, k = ops[0].reg, ops[1].value
        return _write(f"lui {rd},{k}", m, rd, "mov", (Imm(k << 12),))
    if m in ("mv", "sext.w"):  # a copy; sext.w sign-extends the low 32 bits
        _form(m, ops, "RR", "rd,rs", end)
        rd, rs = ops[0].reg, ops[1].reg
        if m == "sext.w":
            return _write(f"{m} {rd},{rs}", m, rd, "conv", (_src(rs), Imm(-32)))
        return _write(f"{m} {rd},{rs}", m, rd, "mov", (_src(rs),))
    if m in _OPI:
        _form(m, ops, "RRK", "rd,rs,k", end)
        rd, rs, k = ops[0].reg, ops[1].reg, ops[2].value
        if m == "addi" and k == 0:
            return _write(f"mv {rd},{rs}", m, rd, "mov", (_src(rs),))
        word = " xori" if m == "xori" else m  # herd's pp_opi has that space
        return _write(f"{word} {rd},{rs},{k}", m, rd, _OPI[m], (_src(rs), Imm(k)))
    if m in _OP:
        _form(m, ops, "RRR", "rd,rs1,rs2", end)
        rd, a, b = ops[0].reg, ops[1].reg, ops[2].reg
        return _write(f"{m} {rd},{a},{b}", m, rd, _OP[m], (_src(a), _src(b)))
    if m == "j":
        _form(m, ops, "L", "label", end)
        return branch(f"j {ops[0].text}", m, ops[0].text)
    if m in _BCC:
        _form(m, ops, "RRL", "rs1,rs2,label", end)
        a, b, lbl = ops[0].reg, ops[1].reg, ops[2].text
        text = f"{m} {a},{b},{lbl}"
        cond = _BCC[m]
        if b == "x0":
            return Instruction(text, m, Branch(lbl, cond, a) if a != "x0" else Branch(lbl, cond, b))
        if a == "x0":  # 0 ? b is the reverse of b ? 0
            flip = {"eq": "eq", "ne": "ne", "lt": "gt", "ge": "le"}[cond]
            return Instruction(text, m, Branch(lbl, flip, b))
        return Instruction(text, m, Branch(lbl, cond, a, b))
    if m == "fence":
        if not ops:
            return fence("fence rw,rw", m, "Fence.rw.rw")
        _form(m, ops, "LL", "pred,succ", end)
        pred, succ = ops[0].text, ops[1].text
        for o in ops:
            if o.text not in _ACCESSES:
                raise CellError(o.pos, f"bad fence set '{o.text}' (one of {', '.join(_ACCESSES)})")
        kind = f"Fence.{_SAME.get(pred, pred)}.{_SAME.get(succ, succ)}"
        return fence(f"fence {pred},{succ}", m, kind)
    if m in ("fence.i", "fence.tso"):
        _form(m, ops, "", "", end)
        return fence(m, m, "Fence.i" if m == "fence.i" else "Fence.tso")
    if mt := _LOAD.fullmatch(m):
        _form(m, ops, "RM", "rd,k(rs)", end)
        w, u, suffix = mt.groups()
        mo = _mo(suffix)
        rd, mem = ops[0].reg, ops[1]
        text = f"l{w}{u}{_MO_TEXT[mo]} {rd},{mem.value}({mem.reg})"
        return Instruction(text, m, ir.Load(rd, _addr(mem), _WIDTH[w], _annots(mo)))
    if mt := _STORE.fullmatch(m):
        _form(m, ops, "RM", "rs2,k(rs1)", end)
        w, suffix = mt.groups()
        mo = _mo(suffix)
        rs, mem = ops[0].reg, ops[1]
        text = f"s{w}{_MO_TEXT[mo]} {rs},{mem.value}({mem.reg})"
        return Instruction(text, m, ir.Store(_src(rs), _addr(mem), _WIDTH[w], _annots(mo)))
    if mt := _LRSC.fullmatch(m):
        kind, w, suffix = mt.groups()
        mo = _mo(suffix)
        # herd's lexer: lr.w.rl is a plain lr, sc.w.aq a plain sc
        if (kind == "lr" and mo == "Rel") or (kind == "sc" and mo == "Acq"):
            mo = ""
        word = f"{kind}.{w}{_MO_TEXT[mo]}"
        if kind == "lr":
            _form(m, ops, "RM", "rd,(rs)", end)
            rd, mem = ops[0].reg, ops[1]
            _zero_offset(mem, m)
            load = ir.Load(rd, _addr(mem), _WIDTH[w], _annots("X", mo), reserve=RESERVE)
            return Instruction(f"{word} {rd},0({mem.reg})", m, load)
        _form(m, ops, "RRM", "rd,rs2,(rs1)", end)
        rd, rs, mem = ops[0].reg, ops[1].reg, ops[2]
        _zero_offset(mem, m)
        sc = ir.StoreCond(
            rd, _src(rs), _addr(mem), RESERVE, _WIDTH[w], _annots("X", mo), status_deps=True
        )
        return Instruction(f"{word} {rd},{rs},0({mem.reg})", m, sc)
    if mt := _AMO_RE.fullmatch(m):
        name, w, suffix = mt.groups()
        if name in ("maxu", "minu"):
            raise CellError(0, f"unsupported RISC-V instruction '{m}' (herd does not implement it)")
        mo = _mo(suffix)
        _form(m, ops, "RRM", "rd,rs2,(rs1)", end)
        rd, rs, mem = ops[0].reg, ops[1].reg, ops[2]
        _zero_offset(mem, m)
        text = f"amo{name}.{w}{_MO_TEXT[mo]} {rd},{rs},({mem.reg})"
        amo = ir.RMW(
            None if rd == "x0" else rd,
            _addr(mem),
            _AMO[name],
            _src(rs),
            _WIDTH[w],
            _annots("X", "AMO", mo),
        )
        return Instruction(text, m, amo)
    raise CellError(0, f"unknown RISC-V instruction '{m}'")


def parse_cell(text: str) -> tuple[CodeItem, ...]:
    """The IR of one non-empty, stripped RISC-V program cell (labels first)."""
    return assemble(text, _TOKEN, _instruction)


def _instruction(text: str, toks: list[Token], i: int) -> Instruction:
    """The instruction of the cell ``text`` from token ``i`` (its mnemonic) to the end."""
    kind, m, pos = toks[i]
    if kind != "name" or riscv_register(m) is not None:
        raise unknown_instruction(toks, i, "RISC-V")
    ops = operands(toks, i + 1, m, _operand)
    if m in ("NOP", "MV"):  # herd's lexer reads these two in upper case too
        m = m.lower()
    return lower_at(pos, _lower, m, ops, len(text))


# ----------------------------------------------------------------------------- texts


#: herd's text of an instruction for the hash (labels renamed)
hash_text = branch_hash_text


def source_text(ins: Instruction) -> str:
    """Text that parses back to ``ins``: its canonical text with the mnemonic as written
    (``li x5,1`` for herd's ``ori x5,x0,1``, ``addi x5,x6,0`` for its ``mv x5,x6``)."""
    m = ins.mnemonic
    word, _, rest = ins.text.strip().partition(" ")
    if m == "li":
        rd, _, k = rest.partition(",x0,")
        return f"li {rd},{k}"
    if m == "addi" and word == "mv":
        return f"addi {rest},0"
    return f"{m} {rest}".rstrip()


__all__ = ["RESERVE", "parse_cell", "hash_text", "source_text"]
