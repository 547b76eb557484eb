"""X86_64 (AT&T syntax) assembler: one program cell to IR operations.

Syntax and canonical text follow herd (``lib/X86_64Lexer.mll``, ``lib/X86_64Parser.mly``,
``lib/X86_64Base.ml`` ``dump_instruction``: ``movl $1,(x)``, ``movq (%rbx),%rax``,
``lock; addl $3,(x)``, ``jne L0``); semantics follow ``herd/X86_64Sem.ml``:

- operands are ``src,dst``; registers ``%rax``/``%eax``/``%r8d``... (the ``%`` may be
  left out) are one IR register per base register, named by its 64-bit name (``rax``:
  the only names herd accepts in an initial state or a condition); immediates ``$k``;
  memory ``(x)``, ``[x]``, ``(%rbx)``, ``8(%rbx)``, ``8(%rbx,%rcx,4)`` (a scaled index);
- ``mov``/``movb``/``movw``/``movl``/``movq`` move, load or store; ``movnti`` is a store
  annotated ``NT``;
- ``add``, ``xor``, ``or``, ``and``, ``shl`` on a register, ``inc``/``dec``, and ``cmp``
  set the flags, modelled as one compare register ``cr0`` as X86's: herd's ZF is
  ``cr0 = 0`` and SF ``cr0 > 0``, so ``je``/``jne``/``jg``/``jle``/``jge``/``js``/``jns``
  test it (herd reads ``jl`` as "ZF or not SF", that is ``cr0 <= 0``), without a commit;
- on memory they are a read and a write of one instruction (``lock``: an atomic one,
  set ``X``, as ``xchg`` with a memory operand);
- ``mfence``, ``sfence``, ``lfence`` are fences; ``nop``, ``nopl``, ``nopw``,
  ``endbr64`` do nothing.

Forms the IR cannot express (writes to 8- and 16-bit register parts, which keep the
register's other bits; ``cmpxchg``, whose flags an IR
compare-and-swap does not set; ``cmovc``, ``setnb``, ``ret``, ``movd``, ``movntdqa``,
``clflush``, ``uxch``) are errors naming the instruction.
"""

from __future__ import annotations

import re

from herdsman.litmus.asm import cells
from herdsman.litmus.asm.cells import CellError, Operand, Token
from herdsman.litmus.base import ir
from herdsman.litmus.base.arch import x86_64_part
from herdsman.litmus.base.ir import Imm, Reg, Sym
from herdsman.litmus.base.ir import Operand as IrOperand
from herdsman.litmus.test import CodeItem, Instruction

FLAGS = "cr0"  # the register standing for ZF/SF/CF (see the module docstring)

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<imm>\$-?[0-9]+)|(?P<num>-?[0-9]+)"
    r"|(?P<reg>%_?[A-Za-z][A-Za-z0-9_/.\-]*)|(?P<name>_?[A-Za-z][A-Za-z0-9_/.\-]*)"
    r"|(?P<p>[,\[\]():;])|(?P<bad>.)"
)
_SIZES = {"": 4, "b": 1, "w": 2, "l": 4, "q": 8}
_ARITH = {"add": "add", "xor": "xor", "or": "or", "and": "and", "shl": "shl"}
_JCC = {"je": "eq", "jne": "ne", "jle": "le", "jlt": "le", "jgt": "gt", "jge": "ge"}
_JCC |= {"js": "gt", "jns": "le"}
_JCC_TEXT = {"jlt": "jl", "jgt": "jg"}  # herd prints C_LT and C_GT so
_NOPS = ("nop", "nopl", "nopw", "endbr64")
_FENCES = ("mfence", "sfence", "lfence")
_UNMODELLED = {
    **{"cmpxchg" + s: "its flags are not modelled" for s in _SIZES},
    **{"cmovc" + s: "conditional move" for s in _SIZES},
    **{"uxch" + s: "unlocked exchange" for s in _SIZES},
    "setnb": "carry flag",
    "retq": "returns",
    "movd": "xmm registers",
    "movntdqa": "xmm registers",
    "clflush": "cache flush",
    "clflushopt": "cache flush",
}
_WORDS = (
    *(m + s for m in ("mov", "add", "xor", "or", "cmp", "dec", "inc", "xchg") for s in _SIZES),
    *("and", "shl", "movnti", "movntil", "movntiq", "jmp", "lock", "ret"),
    *_JCC,
    *_NOPS,
    *_FENCES,
    *_UNMODELLED,
)


def _canon(text: str) -> str | None:
    """herd's mnemonic of ``text`` (its lexer takes lower or upper case), or None."""
    return "endbr64" if text == "endbr64" else cells.cased(text, _WORDS, False)


def _register(text: str, pos: int) -> Operand | None:
    """A register operand (``%eax``, ``rax``), or None when ``text`` names none."""
    name = text[1:] if text.startswith("%") else text
    got = x86_64_part(name)
    if got is None:
        return None
    base, bits = got
    return Operand("reg", name.lower(), pos, bits, base)


def _operand(toks: list[Token], i: int, m: str) -> tuple[Operand, int]:
    """The operand at token ``i`` and the index of the token after it: ``imm`` ($k),
    ``reg`` (``value``: its width in bits, ``reg``: its base register), ``mem``
    (``text``: herd's text, ``reg``: the base register or a symbol)."""
    kind, text, pos = toks[i]
    n = len(toks)
    off = 0
    if kind == "num" and i + 1 < n and toks[i + 1][1] in ("(", "["):
        off = int(text)
        i += 1
        kind, text, pos = toks[i]
    if text in ("(", "["):
        close = ")" if text == "(" else "]"
        if i + 2 < n and toks[i + 2][1] == "," and close == ")":
            return _scaled(toks, i, off, m)
        if i + 2 >= n or toks[i + 2][1] != close:
            at = toks[i + 2][2] if i + 2 < n else toks[i][2] + 1
            raise CellError(at, f"malformed memory operand of '{m}' (expected (x) or (%reg))")
        ik, itext, ipos = toks[i + 1]
        if ik in ("reg", "name"):
            r = _register(itext, ipos)
            if r is not None:
                shown = f"{off if off else ''}(%{r.text})"
                return Operand("mem", shown, pos, off, r.reg), i + 3
            if ik == "name" and not off:
                return Operand("mem", f"({itext})", pos, 0, "&" + itext), i + 3
            if ik == "reg":
                return Operand("mem", f"({itext})", pos, off, itext), i + 3
        raise CellError(ipos, f"malformed memory operand of '{m}': unexpected '{itext}'")
    if kind == "imm":
        return Operand("imm", text, pos, int(text[1:])), i + 1
    if kind == "num":  # herd reads a bare number as an immediate too
        return Operand("imm", text, pos, int(text)), i + 1
    if kind in ("reg", "name"):
        r = _register(text, pos)
        if r is not None:
            return r, i + 1
        if kind == "reg":  # a symbolic register
            return Operand("reg", text, pos, 64, text), i + 1
        return Operand("name", text, pos), i + 1
    raise CellError(pos, f"expected an operand of '{m}', found '{text}'")


#: the scales of an index register and their shifts
_SCALES = {1: 0, 2: 1, 4: 2, 8: 3}


def _scaled(toks: list[Token], i: int, off: int, m: str) -> tuple[Operand, int]:
    """``k(%rA,%rB,s)`` from the ``(`` at token ``i``: the address ``rA + k + rB*s``
    (herd's ``Rm64_scaled``; ``s`` 1, 2, 4 or 8), herd's text ``k(%rA, %rB,s)``."""
    pos = toks[i][2]
    got = toks[i + 1 : i + 7]
    shape = [t[1] for t in got[1::2]] == [",", ",", ")"] and got[4][0] == "num"
    base = _register(got[0][1], got[0][2]) if shape else None
    index = _register(got[2][1], got[2][2]) if shape else None
    if base is None or index is None:
        raise CellError(pos, f"malformed memory operand of '{m}' (expected k(%rA,%rB,s))")
    scale = int(got[4][1])
    if scale not in _SCALES:
        raise CellError(got[4][2], f"the scale of an index register is 1, 2, 4 or 8, not {scale}")
    shown = f"{off if off else ''}(%{base.text}, %{index.text},{scale})"
    mem = Operand("mem", shown, pos, off, base.reg, (index.reg, _SCALES[scale]))
    return mem, i + 7


def _text(o: Operand) -> str:
    """herd's text of an operand: ``$1``, ``%eax``, ``(x)``, ``8(%rbx)``."""
    if o.kind == "imm":
        return f"${o.value}"
    if o.kind == "reg":
        return o.text if o.text.startswith("%") else f"%{o.text}"
    return o.text


def _addr(o: Operand) -> tuple[IrOperand, ...]:
    if o.reg.startswith("&"):
        return (Imm(Sym(o.reg[1:])),)
    scaled = () if o.index is None else (Reg(*o.index),)
    return (Reg(o.reg), *scaled) if o.value == 0 else (Reg(o.reg), *scaled, Imm(o.value))


def _src(o: Operand) -> IrOperand:
    return Imm(o.value) if o.kind == "imm" else Reg(o.reg)


def _written(o: Operand, m: str) -> str:
    """The register ``o`` writes: 32- and 64-bit parts only (a write to an 8- or 16-bit
    part keeps the register's other bits, which the IR does not express)."""
    if o.value < 32:
        raise CellError(
            o.pos, f"'{m}': writing the {o.value}-bit register '{o.text}' is not supported"
        )
    return o.reg


def _lower(m: str, canon: str, ops: list[Operand], end: int, locked: bool) -> Instruction:
    """The IR of ``canon ops`` (``m`` as written; ``locked``: after a ``lock`` prefix)."""
    if canon in _UNMODELLED:
        raise CellError(0, f"unsupported X86_64 instruction '{m}' ({_UNMODELLED[canon]})")
    prefix = "lock; " if locked else ""
    base, size = canon, ""
    if canon[-1] in "bwlq" and canon[:-1] in (
        "mov",
        "add",
        "xor",
        "or",
        "cmp",
        "dec",
        "inc",
        "xchg",
    ):
        base, size = canon[:-1], canon[-1]
    if locked and base not in ("xchg", "add", "xor", "inc", "dec"):
        raise CellError(0, f"illegal lock prefix on '{m}' (herd allows xchg, add, xor, inc, dec)")
    annots = frozenset({"X"}) if locked else frozenset()
    width = _SIZES[size]
    if base in ("mov", "movnti", "movntil", "movntiq"):
        cells.arity(m, ops, 2, "src,dst", end)
        src, dst = ops
        if base != "mov":
            cells.expect(src.kind == "reg", src, "a register", m)
            cells.expect(dst.kind == "mem", dst, "memory", m)
            word = "movnti" + {"movntil": "l", "movntiq": "q"}.get(canon, "")
            return cells.store(
                f"{word} {_text(src)},{_text(dst)}",
                m,
                Reg(src.reg),
                _addr(dst),
                8,
                frozenset({"NT"}),
            )
        text = f"mov{size} {_text(src)},{_text(dst)}"
        cells.expect(
            src.kind in ("imm", "reg", "mem"), src, "an immediate, a register or memory", m
        )
        if dst.kind == "reg":
            if src.kind == "mem":
                return cells.load(text, m, _written(dst, m), _addr(src), width)
            return cells.op(text, m, _written(dst, m), "mov", (_src(src),))
        cells.expect(dst.kind == "mem", dst, "a register or memory destination", m)
        cells.expect(
            src.kind != "mem", src, "a register or an immediate (no memory-to-memory move)", m
        )
        return cells.store(text, m, _src(src), _addr(dst), width)
    if base in _ARITH or base in ("inc", "dec"):
        if base in _ARITH:
            cells.arity(m, ops, 2, "src,dst", end)
            src, dst = ops
            fn = _ARITH[base]
            text = f"{prefix}{base}{size} {_text(src)},{_text(dst)}"
            cells.expect(src.kind in ("imm", "reg"), src, "an immediate or a register", m)
        else:
            cells.arity(m, ops, 1, "dst", end)
            dst, src = ops[0], Operand("imm", "$1", -1, 1)
            fn = "add" if base == "inc" else "sub"
            text = f"{prefix}{base}{size} {_text(dst)}"
        if dst.kind == "mem":
            return Instruction(
                text, m, ir.RMW(None, _addr(dst), fn, _src(src), width, annots, True)
            )
        cells.expect(dst.kind == "reg", dst, "a register or memory destination", m)
        reg = _written(dst, m)
        return Instruction(text, m, ir.Op(reg, fn, (Reg(dst.reg), _src(src)), True))
    if base == "cmp":
        cells.arity(m, ops, 2, "src,dst", end)
        src, dst = ops
        cells.expect(src.kind in ("imm", "reg"), src, "an immediate or a register", m)
        cells.expect(dst.kind == "reg", dst, "a register", m)
        text = f"cmp{size} {_text(src)},{_text(dst)}"
        return cells.op(text, m, FLAGS, "cmp", (Reg(dst.reg), _src(src)))
    if base == "xchg":
        cells.arity(m, ops, 2, "a,b", end)
        a, b = ops
        text = f"{prefix}xchg{size} {_text(a)},{_text(b)}"
        if a.kind == "mem" and b.kind == "reg":
            mem, other = a, b
        elif b.kind == "mem" and a.kind == "reg":
            mem, other = b, a
        else:
            bad = b if a.kind in ("mem", "reg") else a
            raise CellError(bad.pos, f"'{m}' needs one register and one memory operand")
        return cells.rmw(text, m, _written(other, m), _addr(mem), "second", Reg(other.reg))
    if canon == "jmp" or canon in _JCC:
        cells.arity(m, ops, 1, "label", end)
        cells.expect(ops[0].kind == "name", ops[0], "a label", m)
        target = ops[0].text
        word = _JCC_TEXT.get(canon, canon)
        return cells.branch(f"{word} {target}", m, target, _JCC.get(canon), FLAGS)
    if canon in _FENCES:
        cells.arity(m, ops, 0, "", end)
        return cells.fence(canon, m, canon.upper())
    if canon == "ret":  # the thread's end under -variant telechat (litmus.returns)
        cells.arity(m, ops, 0, "", end)
        return Instruction("ret", m, ir.Exit())
    if canon in _NOPS:
        if canon in ("nop", "endbr64"):
            cells.arity(m, ops, 0, "", end)
        return cells.nop("NOP", m)
    raise CellError(0, f"unsupported X86_64 instruction '{m}'")


def parse_cell(text: str) -> tuple[CodeItem, ...]:
    """The IR of one non-empty, stripped X86_64 program cell (labels first)."""
    return cells.assemble(text, _TOKEN, _instruction)


def _instruction(text: str, toks: list[Token], i: int) -> Instruction:
    """The instruction of the cell ``text`` from token ``i`` (its mnemonic or lock) on."""
    i, canon, prefix = cells.prefixed(text, toks, i, "lock", _canon, "X86_64")
    _, m, pos = toks[i]
    locked = prefix is not None
    if canon in _NOPS and not locked:  # herd reads an address after nopl/nopw: ignored
        return cells.nop("NOP", m)
    ops = cells.operands(toks, i + 1, m, _operand)
    return cells.lower_at(pos, _lower, m, canon, ops, len(text), locked)


# ----------------------------------------------------------------------------- texts


#: herd's text of an instruction for the hash (labels renamed)
hash_text = cells.branch_hash_text


def source_text(ins: Instruction) -> str:
    """Text that parses back to ``ins``: its canonical text with the mnemonic as written."""
    text: str = ins.text
    if text == "NOP":
        return ins.mnemonic
    lock = text.startswith("lock; ")
    inner = text[len("lock; ") :] if lock else text
    _, _, rest = inner.partition(" ")
    out = f"{ins.mnemonic} {rest}".rstrip()
    return "lock; " + out if lock else out


__all__ = ["FLAGS", "parse_cell", "hash_text", "source_text"]
