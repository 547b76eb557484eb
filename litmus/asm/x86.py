"""X86 (32-bit, Intel syntax) assembler: one program cell to IR operations.

Syntax and canonical text follow herd (``lib/X86Lexer.mll``, ``lib/X86Parser.mly``,
``lib/X86Base.ml`` ``dump_instruction``: ``MOV [x],$1``, ``MOV EAX,[y]``, ``INC  EAX`` and
``CMP  EAX,$1`` with two spaces, ``LOCK; ADD [x],$1``); semantics follow ``herd/X86Sem.ml``:

- ``MOV`` between registers, immediates and memory (``[x]``, ``[EAX]``) is a move, a load
  or a store (``MOVB/W/L/Q``: sizes 1/2/4/8);
- ``XCHG`` with a memory operand is an atomic RMW (set ``X``); ``LOCK`` makes ``ADD``,
  ``SUB``, ``AND``, ``OR``, ``XOR``, ``INC``, ``DEC`` on memory atomic RMWs;
- the flags are modelled as one compare register, named ``cr0`` like PPC's, so that the
  IR's ``sets_cr`` and branch conventions apply unchanged: ``CMP a,b`` writes
  ``cmp(a, b)``, arithmetic on registers writes ``cmp(result, 0)`` (ZF is "eq"), ``JE``/
  ``JNE`` test it;
- ``MFENCE``, ``LFENCE``, ``SFENCE`` are fences of those kinds.

``SUB`` and ``AND`` are accepted beyond herd's 32-bit X86 lexer (their text follows the
same pattern).  Forms the IR cannot express as one operation (arithmetic reading memory
without LOCK, memory-to-memory moves, register-register XCHG) and instructions herd does
not implement (``CMPXCHG``, ``MOVSD``...) are errors naming the instruction.  Flags set by
LOCK'd instructions are not modelled.
"""

from __future__ import annotations

import re

from herdsman.litmus.asm import cells
from herdsman.litmus.asm.cells import CellError, Operand, Token
from herdsman.litmus.base.arch import X86_OTHER_REGS, X86_REGS
from herdsman.litmus.base.ir import Imm, Reg, Sym
from herdsman.litmus.base.ir import Operand as IrOperand
from herdsman.litmus.test import CodeItem, Instruction

FLAGS = "cr0"  # the register standing for ZF/SF/CF (see the module docstring)

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<imm>\$-?[0-9]+)|(?P<num>-?[0-9]+)"
    r"|(?P<sreg>%[A-Za-z_][A-Za-z0-9_/.\-]*)|(?P<name>[A-Za-z][A-Za-z0-9_/.\-]*)"
    r"|(?P<p>[,\[\]():;])|(?P<bad>.)"
)
_SIZES = {"MOV": 4, "MOVB": 1, "MOVW": 2, "MOVL": 4, "MOVQ": 8}
_ARITH = {"ADD": "add", "SUB": "sub", "XOR": "xor", "OR": "or", "AND": "and"}
_FENCES = ("MFENCE", "LFENCE", "SFENCE")
_HERD_UNIMPLEMENTED = ("CMPXCHG", "MOVSD", "MOVT", "CMOVC", "SETNB", "READ")
_KNOWN = (
    set(_SIZES)
    | set(_ARITH)
    | set(_FENCES)
    | set(_HERD_UNIMPLEMENTED)
    | {"INC", "DEC", "CMP", "XCHG", "JMP", "JE", "JNE", "NOP", "LOCK"}
)


def _register(text: str, pos: int) -> str | None:
    """The register named ``text``, None for a non-register name; errors for misuse."""
    if text in X86_REGS:
        return text
    if text in X86_OTHER_REGS:
        raise CellError(pos, f"register '{text}' cannot be used as an operand")
    if text.upper() in X86_REGS + X86_OTHER_REGS:
        raise CellError(
            pos, f"bad X86 register '{text}' (registers are upper case: {text.upper()})"
        )
    return None


def _operand(toks: list[Token], i: int, m: str) -> tuple[Operand, int]:
    """The operand at token ``i`` and the index of the token after it."""
    kind, text, pos = toks[i]
    n = len(toks)
    if text in ("[", "("):
        close = "]" if text == "[" else ")"
        if i + 2 >= n or toks[i + 2][1] != close:
            at = toks[i + 2][2] if i + 2 < n else toks[i][2] + 1
            raise CellError(at, f"malformed memory operand of '{m}' (expected [x] or [REG])")
        ik, itext, ipos = toks[i + 1]
        if ik == "sreg":
            return Operand("deref", f"[{itext}]", pos, reg=itext), i + 3
        if ik == "name":
            reg = _register(itext, ipos)
            if reg is not None:
                return Operand("deref", f"[{reg}]", pos, reg=reg), i + 3
            if close == ")":
                raise CellError(ipos, f"expected a register inside '(...)', found '{itext}'")
            return Operand("abs", f"[{itext}]", pos, reg=itext), i + 3
        if ik == "num":
            raise CellError(ipos, "absolute numeric addresses are not supported")
        raise CellError(ipos, f"malformed memory operand of '{m}': unexpected '{itext}'")
    if kind == "imm":
        return Operand("num", text, pos, cells.literal(text[1:], pos + 1)), i + 1
    if kind == "num":
        return Operand("num", text, pos, cells.literal(text, pos)), i + 1
    if kind == "sreg":
        return Operand("reg", text, pos, reg=text), i + 1
    if kind == "name":
        reg = _register(text, pos)
        if reg is not None:
            return Operand("reg", text, pos, reg=reg), i + 1
        return Operand("name", text, pos), i + 1
    raise CellError(pos, f"expected an operand of '{m}', found '{text}'")


# ----------------------------------------------------------------------------- lowering


def _ea(op: Operand) -> str:
    """herd's text of an operand: registers by name, memory ``[x]``, immediates ``$k``."""
    if op.kind == "num":
        return f"${op.value}"
    if op.kind == "reg":
        return op.reg
    return op.text


def _addr(op: Operand) -> tuple[IrOperand, ...]:
    if op.kind == "abs":
        return (Imm(Sym(op.reg)),)
    return (Reg(op.reg),)


def _src(op: Operand) -> IrOperand:
    return Imm(op.value) if op.kind == "num" else Reg(op.reg)


def _is_mem(op: Operand) -> bool:
    return op.kind in ("abs", "deref")


def _lower(m: str, canon: str, ops: list[Operand], end: int, locked: str | None) -> Instruction:
    """The IR of ``canon ops`` (``locked``: the LOCK prefix as written, if any)."""
    prefix = "LOCK; " if locked is not None else ""
    written = f"{locked} {m}" if locked is not None else m
    if canon in _SIZES:
        cells.arity(m, ops, 2, "dst,src", end)
        dst, src = ops
        text = f"{canon} {_ea(dst)},{_ea(src)}"
        size = _SIZES[canon]
        if locked is not None:
            raise CellError(0, f"'{m}' cannot take a LOCK prefix")
        if dst.kind == "reg":
            if _is_mem(src):
                return cells.load(text, written, dst.reg, _addr(src), size)
            cells.expect(src.kind in ("reg", "num"), src, "a register, an immediate or memory", m)
            return cells.op(text, written, dst.reg, "mov", (_src(src),))
        cells.expect(_is_mem(dst), dst, "a register or memory destination", m)
        cells.expect(
            src.kind in ("reg", "num"),
            src,
            "a register or an immediate (no memory-to-memory moves)",
            m,
        )
        return cells.store(text, written, _src(src), _addr(dst), size)
    if canon in _ARITH or canon in ("INC", "DEC"):
        if canon in _ARITH:
            cells.arity(m, ops, 2, "dst,src", end)
            dst, src = ops
            fn = _ARITH[canon]
            text = f"{prefix}{canon} {_ea(dst)},{_ea(src)}"
        else:
            cells.arity(m, ops, 1, "dst", end)
            dst, src = ops[0], Operand("num", "1", -1, 1)
            fn = "add" if canon == "INC" else "sub"
            text = f"{prefix}{canon}  {_ea(dst)}"
        cells.expect(src.kind in ("reg", "num"), src, "a register or an immediate", m)
        if locked is not None:
            cells.expect(_is_mem(dst), dst, "a memory destination (LOCK)", m)
            return cells.rmw(text, written, None, _addr(dst), fn, _src(src))
        if _is_mem(dst):
            raise CellError(dst.pos, f"'{m}' on memory is only supported with a LOCK prefix")
        cells.expect(dst.kind == "reg", dst, "a register", m)
        args = (Reg(dst.reg), _src(src))
        return cells.op(text, written, dst.reg, fn, args, sets_cr=True)
    if canon == "XCHG":
        cells.arity(m, ops, 2, "a,b", end)
        a, b = ops
        text = f"{prefix}XCHG {_ea(a)},{_ea(b)}"
        if _is_mem(a) and b.kind == "reg":
            mem, reg = a, b
        elif _is_mem(b) and a.kind == "reg":
            mem, reg = b, a
        else:
            bad = b if _is_mem(a) or a.kind == "reg" else a
            raise CellError(bad.pos, f"'{m}' needs one register and one memory operand")
        return cells.rmw(text, written, reg.reg, _addr(mem), "second", Reg(reg.reg))
    if locked is not None:
        raise CellError(0, f"'{m}' cannot take a LOCK prefix")
    if canon == "CMP":
        cells.arity(m, ops, 2, "a,b", end)
        a, b = ops
        cells.expect(a.kind == "reg", a, "a register", m)
        cells.expect(b.kind in ("reg", "num"), b, "a register or an immediate", m)
        return cells.op(f"CMP  {_ea(a)},{_ea(b)}", written, FLAGS, "cmp", (Reg(a.reg), _src(b)))
    if canon in ("JMP", "JE", "JNE"):
        cells.arity(m, ops, 1, "label", end)
        cells.expect(ops[0].kind == "name", ops[0], "a label", m)
        target = ops[0].text
        cond = {"JMP": None, "JE": "eq", "JNE": "ne"}[canon]
        return cells.branch(f"{canon} {target}", written, target, cond, FLAGS)
    if canon in _FENCES:
        cells.arity(m, ops, 0, "", end)
        return cells.fence(canon, written, canon)
    if canon == "NOP":
        cells.arity(m, ops, 0, "", end)
        return cells.nop("NOP", written)
    raise CellError(0, f"unsupported X86 instruction '{m}' (herd does not implement it)")


def _mnemonic(text: str) -> str | None:
    """The canonical (upper-case) mnemonic of ``text`` if herd's lexer accepts it."""
    return cells.cased(text, _KNOWN, True)


def parse_cell(text: str) -> tuple[CodeItem, ...]:
    """The IR of one non-empty, stripped X86 program cell (labels first)."""
    return cells.assemble(text, _TOKEN, _instruction)


def _instruction(text: str, toks: list[Token], i: int) -> Instruction:
    """The instruction of the cell ``text`` from token ``i`` (its mnemonic or LOCK) on."""
    i, canon, locked = cells.prefixed(text, toks, i, "LOCK", _mnemonic, "X86")
    _, m, pos = toks[i]
    ops = cells.operands(toks, i + 1, m, _operand)
    return cells.lower_at(pos, _lower, m, canon, ops, len(text), locked)


# ----------------------------------------------------------------------------- texts


#: herd's text of an instruction for the hash (labels renamed)
hash_text = cells.branch_hash_text


def source_text(ins: Instruction) -> str:
    """Text that parses back to ``ins``: its canonical text with the mnemonic as written."""
    text: str = ins.text
    words = ins.mnemonic.split()
    if text.startswith("LOCK; "):
        inner = text[len("LOCK; ") :]
        head, _, rest = inner.partition(" ")
        return f"{words[0]}; {words[1]} {rest}".rstrip()
    head, _, rest = text.partition(" ")
    return f"{words[0]} {rest}".rstrip()


__all__ = ["FLAGS", "parse_cell", "hash_text", "source_text"]
