"""PPC assembler: one program cell to IR operations, with herd's canonical text.

Mnemonics, operand shapes and semantics follow herd (``lib/PPCLexer.mll``,
``lib/PPCParser.mly``, ``lib/PPCBase.ml`` ``dump_instruction``, ``herd/PPCSem.ml``):

- ``li rD,k`` and ``addi rD,r0,k`` are moves of ``k`` (herd reads r0 as 0 in ``addi``);
  ``subi rD,rA,k`` is herd's ``addi rD,rA,-k`` (and is printed so);
- indexed accesses ``lwzx rD,rA,rB`` address ``rA+rB`` with ``rA = r0`` read as 0
  (the operand is then dropped); a displacement of 0 is dropped from addresses;
- ``cmpw``/``cmpwi``/``cmplwi`` write ``crN`` (default ``cr0``) with fn ``cmp``/``cmpu``;
  dotted forms and ``andi.`` also set ``cr0``; branches test ``cr0``;
- ``sync``/``hwsync`` are SYNC fences, ``lwsync``, ``isync``, ``eieio`` likewise;
  ``lwarx`` is a load in set ``EX``; ``dcbf``, ``nop`` and ``com "..."`` do nothing;
- ``rlwinm``/``rlwimi`` rotate and mask as herd computes it (``litmus.base.ppcops``).

Instructions of herd's list whose effect the IR cannot express as one operation (update
forms, ``stwcx.``, link-register and multiple-register instructions) are
rejected with an error naming them.  The canonical text of ``cmplwi``, ``lis``, ``addis``,
``lwa``, ``lwax`` and ``clrldi`` (absent from herd's version of ``dump_instruction`` we
follow) is written by analogy with the others.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from herdsman.litmus.asm.cells import (
    CellError,
    Operand,
    Token,
    assemble,
    branch,
    fence,
    literal,
    load,
    lower_at,
    nop,
    op,
    operands,
    store,
    unknown_instruction,
)
from herdsman.litmus.base.ir import Branch, Exit, Imm, Reg
from herdsman.litmus.base.ir import Operand as IrOperand
from herdsman.litmus.state import check_register
from herdsman.litmus.test import CodeItem, Instruction

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<str>\"[^\"\n]*\")|(?P<num>-?[0-9]+)"
    r"|(?P<sreg>%[A-Za-z_][A-Za-z0-9_/.\-]*)|(?P<name>[A-Za-z_][A-Za-z0-9_/.\-]*)"
    r"|(?P<p>[,():&])|(?P<bad>.)"
)
_CR = re.compile(r"cr([0-7])")
_REGLIKE = re.compile(r"[rR][0-9]+")


def _operand(toks: list[Token], i: int, mnemonic: str) -> tuple[Operand, int]:
    """The operand at token ``i`` and the index of the token after it."""
    kind, text, pos = toks[i]
    n = len(toks)
    if kind == "num":
        if i + 1 < n and toks[i + 1][1] == "(":
            if i + 3 >= n or toks[i + 3][1] != ")":
                at = toks[i + 2][2] if i + 2 < n else toks[i + 1][2] + 1
                raise CellError(at, f"malformed memory operand of '{mnemonic}' (expected d(rA))")
            rk, rtext, rpos = toks[i + 2]
            reg = _register(rk, rtext, rpos)
            return Operand("mem", f"{text}({rtext})", pos, literal(text, pos), reg), i + 4
        return Operand("num", text, pos, literal(text, pos)), i + 1
    if kind == "sreg":
        return Operand("reg", text, pos, reg=text), i + 1
    if kind == "name":
        named = check_register("PPC", text)
        if named is not None:
            return Operand("reg", text, pos, reg=named), i + 1
        if _CR.fullmatch(text):
            return Operand("cr", text, pos, int(text[2])), i + 1
        return Operand("name", text, pos), i + 1
    if kind == "str":
        return Operand("str", text, pos), i + 1
    if text == "&":
        raise CellError(pos, "symbolic immediates '&name' are not supported")
    raise CellError(pos, f"expected an operand of '{mnemonic}', found '{text}'")


def _register(kind: str, text: str, pos: int) -> str:
    if kind == "sreg":
        return text
    reg = check_register("PPC", text) if kind == "name" else None
    if reg is None:
        raise CellError(pos, f"bad PPC register '{text}' (expected r0..r31)")
    return reg


# ----------------------------------------------------------------------------- forms
# An operand form is a sequence of kinds: R register, K integer, M memory operand (d(rA)
# or d,rA), C optional crN, L label, S string.

_KIND_NAMES = {
    "R": "a register",
    "K": "an integer",
    "L": "a label",
    "S": "a string",
    "C": "a condition register",
    "M": "a memory operand d(rA)",
}


_KIND_OF = {"reg": "R", "num": "K", "mem": "M", "cr": "C", "name": "L", "str": "S"}


def _match(m: str, form: str, syntax: str, ops: list[Operand], end: int) -> list[Operand]:
    """Check ``ops`` against ``form``: ``d,rA`` becomes a mem operand, an absent optional
    ``crN`` becomes ``cr0``; a mismatch is an error at the offending operand."""
    hint = f"(syntax: {m} {syntax})" if syntax else f"(syntax: {m})"
    if "M" in form and [o.kind for o in ops] == ["reg", "num", "reg"]:
        d, r = ops[1], ops[2]
        ops = [ops[0], Operand("mem", f"{d.text},{r.text}", d.pos, d.value, r.reg)]
    want = form
    if form.startswith("C") and not (ops and ops[0].kind == "cr"):
        want = form[1:]
    for j, k in enumerate(want):
        if j >= len(ops):
            raise CellError(end, f"missing operand for '{m}' {hint}")
        got = ops[j]
        if _KIND_OF[got.kind] != k:
            if k == "R" and got.kind == "name" and _REGLIKE.fullmatch(got.text):
                raise CellError(got.pos, f"bad PPC register '{got.text}' (expected r0..r31)")
            raise CellError(
                got.pos,
                f"expected {_KIND_NAMES[k]} as operand {j + 1} of '{m}', found '{got.text}' {hint}",
            )
    if len(ops) > len(want):
        raise CellError(ops[len(want)].pos, f"too many operands for '{m}' {hint}")
    if want != form:
        ops = [Operand("cr", "cr0", -1, 0), *ops]
    return ops


# ----------------------------------------------------------------------------- builders

Builder = Callable[[str, list[Operand]], Instruction]


def _addr(base: str, disp: int) -> tuple[IrOperand, ...]:
    return (Reg(base),) if disp == 0 else (Reg(base), Imm(disp))


def _addr_x(ra: str, rb: str) -> tuple[IrOperand, ...]:
    return (Reg(rb),) if ra == "r0" else (Reg(ra), Reg(rb))


def _op3(fn: str, sets_cr: bool = False, swap: bool = False) -> Builder:
    def build(m: str, o: list[Operand]) -> Instruction:
        d, a, b = o[0].reg, o[1].reg, o[2].reg
        args = (Reg(b), Reg(a)) if swap else (Reg(a), Reg(b))
        return op(f"{m} {d},{a},{b}", m, d, fn, args, sets_cr)

    return build


def _op2(fn: str, sets_cr: bool = False) -> Builder:
    def build(m: str, o: list[Operand]) -> Instruction:
        d, a = o[0].reg, o[1].reg
        return op(f"{m} {d},{a}", m, d, fn, (Reg(a),), sets_cr)

    return build


def _opi(fn: str, sets_cr: bool = False) -> Builder:
    def build(m: str, o: list[Operand]) -> Instruction:
        d, a, k = o[0].reg, o[1].reg, o[2].value
        return op(f"{m} {d},{a},{k}", m, d, fn, (Reg(a), Imm(k)), sets_cr)

    return build


def _extsw(m: str, o: list[Operand]) -> Instruction:
    """``extsw rA,rS``: the low word of ``rS`` sign-extended."""
    d, a = o[0].reg, o[1].reg
    return op(f"extsw {d}, {a}", m, d, "conv", (Reg(a), Imm(-32)))  # herd's ", "


def _rotate(m: str, o: list[Operand]) -> Instruction:
    """``rlwinm rA,rS,SH,MB,ME``: the low word of ``rS`` rotated by ``SH``, masked by
    ``MB``..``ME``; ``rlwimi`` inserts it into ``rA`` under the mask
    (:mod:`litmus.base.ppcops`)."""
    d, a = o[0].reg, o[1].reg
    sh, mb, me = (x.value for x in o[2:])
    for k in o[2:]:
        if not 0 <= k.value <= 31:
            raise CellError(k.pos, f"'{m}' takes SH, MB and ME from 0 to 31, not {k.value}")
    text = f"{m} {d},{a},{sh}, {mb},{me}"  # herd's text: ", " before MB
    fn = f"{m}.{sh}.{mb}.{me}"
    args = (Reg(a),) if m == "rlwinm" else (Reg(d), Reg(a))
    return op(text, m, d, fn, args)


def _li(m: str, o: list[Operand]) -> Instruction:
    return op(f"li {o[0].reg},{o[1].value}", m, o[0].reg, "mov", (Imm(o[1].value),))


def _lis(m: str, o: list[Operand]) -> Instruction:
    k = o[1].value
    return op(f"lis {o[0].reg},{k}", m, o[0].reg, "mov", (Imm(k << 16),))


def _addi(m: str, o: list[Operand]) -> Instruction:
    d, a, k = o[0].reg, o[1].reg, o[2].value
    if m == "subi":
        k = -k
    text = f"addi {d},{a},{k}"
    if a == "r0":  # herd (Power ISA): addi rD,0,k is li rD,k
        return op(text, m, d, "mov", (Imm(k),))
    return op(text, m, d, "add", (Reg(a), Imm(k)))


def _addis(m: str, o: list[Operand]) -> Instruction:
    d, a, k = o[0].reg, o[1].reg, o[2].value
    text = f"addis {d},{a},{k}"
    if a == "r0":
        return op(text, m, d, "mov", (Imm(k << 16),))
    return op(text, m, d, "add", (Reg(a), Imm(k << 16)))


def _mr(m: str, o: list[Operand]) -> Instruction:
    return op(f"mr {o[0].reg},{o[1].reg}", m, o[0].reg, "mov", (Reg(o[1].reg),))


def _clrldi(m: str, o: list[Operand]) -> Instruction:
    d, s, n = o[0].reg, o[1].reg, o[2].value
    if not 0 <= n < 64:
        raise CellError(o[2].pos, f"clrldi: the bit count must be in 0..63, not {n}")
    return op(f"clrldi {d},{s},{n}", m, d, "and", (Reg(s), Imm((1 << (64 - n)) - 1)))


def _cmp(fn: str, imm: bool) -> Builder:
    def build(m: str, o: list[Operand]) -> Instruction:
        cr, a, b = o[0].value, o[1].reg, o[2]
        arg: IrOperand = Imm(b.value) if imm else Reg(b.reg)
        shown = str(b.value) if imm else b.reg
        prefix = "" if cr == 0 else f"cr{cr},"
        return op(f"{m} {prefix}{a},{shown}", m, f"cr{cr}", fn, (Reg(a), arg))

    return build


def _access(canon: str, o: list[Operand]) -> tuple[str, tuple[IrOperand, ...]]:
    """Text and address of an access ``canon rX,d(rA)`` (form RM) or ``canon rX,rA,rB``
    (indexed, form RRR)."""
    r = o[0].reg
    if len(o) == 2:
        mem = o[1]
        return f"{canon} {r},{mem.value}({mem.reg})", _addr(mem.reg, mem.value)
    a, b = o[1].reg, o[2].reg
    return f"{canon} {r},{a},{b}", _addr_x(a, b)


def _load(
    size: int, canon: str, annots: frozenset[str] = frozenset(), sign: bool = False
) -> Builder:
    """A load; ``sign``: the bytes read are sign-extended (``lwa``: herd's ``Sxt Word``;
    the others move them as they are)."""

    def build(m: str, o: list[Operand]) -> Instruction:
        text, addr = _access(canon, o)
        return load(text, m, o[0].reg, addr, size, annots, sign)

    return build


def _store(size: int, canon: str) -> Builder:
    def build(m: str, o: list[Operand]) -> Instruction:
        text, addr = _access(canon, o)
        return store(text, m, Reg(o[0].reg), addr, size)

    return build


def _fence(kind: str, canon: str) -> Builder:
    return lambda m, o: fence(canon, m, kind)


def _branch(cond: str | None) -> Builder:
    def build(m: str, o: list[Operand]) -> Instruction:
        target = o[0].text
        text = f"b   {target}" if cond is None else f"b{cond}  {target}"
        return branch(text, m, target, cond, "cr0")

    return build


def _nop(m: str, o: list[Operand]) -> Instruction:
    if m == "com":
        return nop(f"com {o[0].text}", m)
    if m == "dcbf":
        return nop(f"dcbf {o[0].reg},{o[1].reg}", m)
    return nop("nop", m)


def _unsupported(reason: str) -> Builder:
    def build(m: str, o: list[Operand]) -> Instruction:
        raise CellError(0, f"unsupported PPC instruction '{m}' ({reason})")

    return build


def _return(m: str, o: list[Operand]) -> Instruction:
    """``blr``: the thread's end under ``-variant telechat`` (:mod:`litmus.returns`)."""
    return Instruction("blr", m, Exit())


# mnemonic -> (operand form, syntax shown in errors, builder)
SPEC: dict[str, tuple[str, str, Builder]] = {
    "nop": ("", "", _nop),
    "li": ("RK", "rD,k", _li),
    "lis": ("RK", "rD,k", _lis),
    "addi": ("RRK", "rD,rA,k", _addi),
    "subi": ("RRK", "rD,rA,k", _addi),
    "addis": ("RRK", "rD,rA,k", _addis),
    "xori": ("RRK", "rD,rA,k", _opi("xor")),
    "ori": ("RRK", "rD,rA,k", _opi("or")),
    "andi.": ("RRK", "rD,rA,k", _opi("and", True)),
    "mulli": ("RRK", "rD,rA,k", _opi("mul")),
    "srawi": ("RRK", "rD,rS,k", _opi("sra")),
    "clrldi": ("RRK", "rA,rS,n", _clrldi),
    "mr": ("RR", "rD,rS", _mr),
    "neg": ("RR", "rD,rA", _op2("neg")),
    "neg.": ("RR", "rD,rA", _op2("neg", True)),
    "cmpw": ("CRR", "[crN,]rA,rB", _cmp("cmp", False)),
    "cmpwi": ("CRK", "[crN,]rA,k", _cmp("cmp", True)),
    "cmplwi": ("CRK", "[crN,]rA,k", _cmp("cmpu", True)),
    "lbz": ("RM", "rD,d(rA)", _load(1, "lbz")),
    "lhz": ("RM", "rD,d(rA)", _load(2, "lhz")),
    "lwz": ("RM", "rD,d(rA)", _load(4, "lwz")),
    "lwa": ("RM", "rD,d(rA)", _load(4, "lwa", sign=True)),
    "ld": ("RM", "rD,d(rA)", _load(8, "ld")),
    "lbzx": ("RRR", "rD,rA,rB", _load(1, "lbzx")),
    "lhzx": ("RRR", "rD,rA,rB", _load(2, "lhzx")),
    "lwzx": ("RRR", "rD,rA,rB", _load(4, "lwzx")),
    "lwax": ("RRR", "rD,rA,rB", _load(4, "lwax", sign=True)),
    "ldx": ("RRR", "rD,rA,rB", _load(8, "ldx")),
    "lwarx": ("RRR", "rD,rA,rB", _load(4, "lwarx", frozenset({"EX"}))),
    "stb": ("RM", "rS,d(rA)", _store(1, "stb")),
    "sth": ("RM", "rS,d(rA)", _store(2, "sth")),
    "stw": ("RM", "rS,d(rA)", _store(4, "stw")),
    "std": ("RM", "rS,d(rA)", _store(8, "std")),
    "stbx": ("RRR", "rS,rA,rB", _store(1, "stbx")),
    "sthx": ("RRR", "rS,rA,rB", _store(2, "sthx")),
    "stwx": ("RRR", "rS,rA,rB", _store(4, "stwx")),
    "stdx": ("RRR", "rS,rA,rB", _store(8, "stdx")),
    "sync": ("", "", _fence("SYNC", "sync")),
    "hwsync": ("", "", _fence("SYNC", "sync")),
    "lwsync": ("", "", _fence("LWSYNC", "lwsync")),
    "isync": ("", "", _fence("ISYNC", "isync")),
    "eieio": ("", "", _fence("EIEIO", "eieio")),
    "dcbf": ("RR", "rA,rB", _nop),
    "com": ("S", '"text"', _nop),
    "b": ("L", "label", _branch(None)),
    "beq": ("L", "label", _branch("eq")),
    "bne": ("L", "label", _branch("ne")),
    "blt": ("L", "label", _branch("lt")),
    "bge": ("L", "label", _branch("ge")),
    "bnl": ("L", "label", _branch("ge")),
    "bgt": ("L", "label", _branch("gt")),
    "ble": ("L", "label", _branch("le")),
    "bng": ("L", "label", _branch("le")),
    "lwzu": ("RM", "rD,d(rA)", _unsupported("update form: it writes two registers")),
    "stwu": ("RM", "rS,d(rA)", _unsupported("update form: it writes two registers")),
    "stwcx.": ("RRR", "rS,rA,rB", _unsupported("store conditional")),
    "bl": ("L", "label", _unsupported("calls are not supported")),
    "blr": ("", "", _return),
    "mtlr": ("R", "rS", _unsupported("link register")),
    "mflr": ("R", "rD", _unsupported("link register")),
    "mfcr": ("R", "rD", _unsupported("whole condition register")),
    "lmw": ("RM", "rD,d(rA)", _unsupported("multiple registers")),
    "stmw": ("RM", "rS,d(rA)", _unsupported("multiple registers")),
    "rlwinm": ("RRKKK", "rA,rS,SH,MB,ME", _rotate),
    "rlwimi": ("RRKKK", "rA,rS,SH,MB,ME", _rotate),
    "extsw": ("RR", "rA,rS", _extsw),
}

for _m, _fn in (
    ("add", "add"),
    ("sub", "sub"),
    ("subf", "sub"),
    ("or", "or"),
    ("and", "and"),
    ("xor", "xor"),
    ("mullw", "mul"),
    ("divw", "div"),
    ("nor", "nor"),
):
    for _dot in (False, True):
        SPEC[_m + ("." if _dot else "")] = ("RRR", "rD,rA,rB", _op3(_fn, _dot, swap=_m == "subf"))
SPEC["slw"] = ("RRR", "rD,rA,rB", _op3("shl"))
SPEC["sraw"] = ("RRR", "rD,rA,rB", _op3("sra"))


def parse_cell(text: str) -> tuple[CodeItem, ...]:
    """The IR of one non-empty, stripped PPC program cell (labels first)."""
    return assemble(text, _TOKEN, _instruction)


def _instruction(text: str, toks: list[Token], i: int) -> Instruction:
    """The instruction of the cell ``text`` from token ``i`` (its mnemonic) to the end."""
    kind, m, pos = toks[i]
    if kind != "name":
        raise CellError(pos, f"expected an instruction, found '{m}'")
    spec = SPEC.get(m)
    if spec is None:
        if i + 1 < len(toks) and toks[i + 1][1] == "(":
            raise CellError(pos, f"macro call '{m}(...)' is not supported")
        raise unknown_instruction(toks, i, "PPC")
    form, syntax, build = spec
    ops = operands(toks, i + 1, m, _operand)
    ops = _match(m, form, syntax, ops, len(text))
    return lower_at(pos, build, m, ops)


# ----------------------------------------------------------------------------- texts

_NORM32 = {"ld": "lwz", "ldx": "lwzx", "std": "stw", "stdx": "stwx"}


def hash_text(ins: Instruction, rename: dict[str, str]) -> str:
    """herd's text of ``ins`` for the hash: 64-bit accesses as 32-bit, labels renamed."""
    if isinstance(ins.op, Branch):
        target = rename[ins.op.target]
        return f"b   {target}" if ins.op.cond is None else f"b{ins.op.cond}  {target}"
    text = ins.text
    word, sep, rest = text.partition(" ")
    if word in _NORM32:
        return _NORM32[word] + sep + rest
    return text


def source_text(ins: Instruction) -> str:
    """Text that parses back to ``ins`` (its canonical text with the mnemonic as written)."""
    text = ins.text
    m = ins.mnemonic
    word, _, rest = text.partition(" ")
    if word == m:
        return text
    if m == "subi":
        d, a, k = rest.split(",")
        return f"subi {d},{a},{-int(k)}"
    return f"{m} {rest.strip()}".rstrip()


__all__ = ["SPEC", "parse_cell", "hash_text", "source_text"]
