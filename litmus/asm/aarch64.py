"""AArch64 assembler: one program cell to IR operations, with herd's canonical text.

Mnemonics, operand shapes and semantics follow herd (``lib/AArch64Lexer.mll``,
``lib/AArch64Parser.mly``, ``lib/AArch64Base.ml`` ``dump_instruction``,
``herd/AArch64Sem.ml``).  Mnemonics are upper or lower case; registers ``W0``..``W30``
and ``X0``..``X30`` are two views of one register, named ``X<n>`` in the IR (states and
conditions say ``0:X1``); ``WZR``/``XZR`` read as 0 (no register event) and discard
writes.  Immediates are ``#k`` (the ``#`` may be omitted, as herd allows).

- ``MOV``, ``ADD``, ``SUB``, ``EOR``, ``ORR``, ``AND`` (register or immediate operand,
  ``ADD Xd,Xn,Wm,SXTW`` extended form) are register operations; ``CMP``/``TST`` write the
  flags register ``NZCV`` (the comparison, as herd's ``SUBS``/``ANDS`` with ``ZR``
  destination) and ``B.EQ``/``B.NE``/``B.GE``/``B.GT``/``B.LE``/``B.LT`` test it;
  ``CBZ``/``CBNZ`` test a register;
- ``LDR``/``STR`` (W and X, addresses ``[Xn]``, ``[Xn,#k]``, ``[Xn,Rm]``,
  ``[Xn,Wm,SXTW]``, ``[Xn,Xm,LSL #0]``...), ``LDAR`` (set ``A``), ``LDAPR`` (``Q``),
  ``STLR`` (``L``), ``LDXR``/``LDAXR`` (``X``, ``A``: a load-reserve writing the
  reservation register ``Res``), ``STXR``/``STLXR`` (``X``, ``L``: store-conditionals);
- ``DMB``/``DSB`` with every domain and type (``SY``, ``LD``, ``ST``, ``ISH``, ``ISHLD``,
  ``OSH``, ``NSHST``...) are fences named herd's way (``DMB.ISHLD``), ``ISB`` too; ``NOP``.

Instructions of herd's list whose effect herdsman does not model (pre/post-indexed
accesses, shifted addresses, flag-setting arithmetic with a destination, atomics such as
``CAS``, ``SWP``, ``LDADD``, the other condition codes, SIMD...) are errors naming them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from herdsman.litmus.asm.cells import (
    CellError,
    Token,
    assemble,
    branch,
    fence,
    lower_at,
    nop,
    op,
    operands,
    unknown_instruction,
)
from herdsman.litmus.base.ir import Branch, Imm, Load, Reg, Store, StoreCond
from herdsman.litmus.base.ir import Operand as IrOperand
from herdsman.litmus.test import CodeItem, Instruction

#: The IR registers of the flags and of the exclusive reservation (herd's names).
FLAGS = "NZCV"
RESERVATION = "Res"

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<num>#?[-+]?[0-9]+)|(?P<off>\.[-+][0-9]+)"
    r"|(?P<sreg>[WwXx]?%[A-Za-z_.$][A-Za-z0-9_/.$]*)"
    r"|(?P<name>[A-Za-z_.$][A-Za-z0-9_/.$]*)|(?P<p>[,\[\]!:{}])|(?P<bad>.)"
)
_GPR = re.compile(r"([WwXx])([0-9]+)")
_EXTS = ("SXTW", "UXTW", "SXTX", "UXTX", "LSL", "SXTB", "SXTH", "UXTB", "UXTH")
_SHIFTS = ("LSL", "LSR", "ASR", "ROR")
_CONDS = {"EQ": "eq", "NE": "ne", "GE": "ge", "GT": "gt", "LE": "le", "LT": "lt"}
_OTHER_CONDS = ("CS", "CC", "MI", "PL", "VS", "VC", "HI", "LS", "HS", "LO")
_BARRIER_OPTS = tuple(
    (dom if not typ else (typ if dom == "SY" else dom + typ))
    for dom in ("SY", "OSH", "ISH", "NSH")
    for typ in ("", "ST", "LD")
)


def _gpr(text: str) -> tuple[str, str] | None:
    """(view ``W``/``X``, IR register) of a general register name, ``ZR`` for the zero
    register; None for another name."""
    up = text.upper()
    if up in ("WZR", "XZR"):
        return up[0], "ZR"
    if up == "SP":
        return "X", "SP"
    if up == "WSP":
        return "W", "SP"
    if up == "LR":
        return "X", "X30"
    m = _GPR.fullmatch(text)
    if m and text[0] in "WwXx" and str(int(m.group(2))) == m.group(2) and int(m.group(2)) <= 30:
        return up[0], "X" + m.group(2)
    return None


def _rname(view: str, reg: str) -> str:
    """herd's text of a register in view ``view`` (``W3``, ``XZR``)."""
    if reg == "ZR":
        return view + "ZR"
    if reg == "SP":
        return "SP" if view == "X" else "WSP"
    return view + reg[1:]


# ----------------------------------------------------------------------------- operands


@dataclass(frozen=True, slots=True)
class _Mem:
    """A memory operand: base register, immediate offset or index register (view, IR
    register) with its extension (``SXTW``...) and shift amount (-1: none), herd's text."""

    base: str
    offset: int
    index: tuple[str, str] | None
    ext: str | None
    amount: int
    text: str


@dataclass(frozen=True, slots=True)
class _Operand:
    """One written operand: ``kind`` is reg (``bits`` 32 or 64, ``reg`` the IR register
    or ``ZR``), num (``value``), mem (``mem``), name (a label or an option), shift (an
    extension or shift keyword in ``text``, its amount in ``value``, -1 for none)."""

    kind: str
    text: str
    pos: int
    value: int = 0
    reg: str = ""
    bits: int = 0
    mem: _Mem | None = None


def _reg_operand(text: str, pos: int) -> _Operand | None:
    got = _gpr(text)
    if got is None:
        return None
    view, reg = got
    return _Operand("reg", text, pos, reg=reg, bits=32 if view == "W" else 64)


def _num(text: str) -> int:
    return int(text[1:] if text.startswith("#") else text)


def _operand(toks: list[Token], i: int, m: str) -> tuple[_Operand, int]:
    """The operand at token ``i`` and the index of the token after it."""
    kind, text, pos = toks[i]
    n = len(toks)
    if text == "[":
        return _memory(toks, i, m)
    if kind == "num":
        return _Operand("num", text, pos, _num(text)), i + 1
    if kind == "off":
        raise CellError(pos, f"branch offsets such as '{text}' are not supported (use a label)")
    if kind == "sreg":
        raise CellError(pos, f"symbolic registers such as '{text}' are not supported")
    if kind == "name":
        reg = _reg_operand(text, pos)
        if reg is not None:
            return reg, i + 1
        up = text.upper()
        if up in _EXTS or up in _SHIFTS:
            if i + 1 < n and toks[i + 1][0] == "num":
                return _Operand("shift", up, pos, _num(toks[i + 1][1])), i + 2
            return _Operand("shift", up, pos, -1), i + 1
        return _Operand("name", text, pos), i + 1
    raise CellError(pos, f"expected an operand of '{m}', found '{text}'")


def _memory(toks: list[Token], i: int, m: str) -> tuple[_Operand, int]:
    """``[Xn]``, ``[Xn,#k]``, ``[Xn,Rm]``, ``[Xn,Rm,EXT]``, ``[Xn,Rm,EXT #k]``; a
    following ``!`` or ``,#k`` (pre/post-indexing) is an error."""
    pos = toks[i][2]
    n = len(toks)
    close = next((j for j in range(i + 1, n) if toks[j][1] == "]"), -1)
    if close < 0:
        raise CellError(pos, f"unterminated memory operand of '{m}' (missing ']')")
    parts: list[list[Token]] = [[]]
    for t in toks[i + 1 : close]:
        if t[1] == ",":
            parts.append([])
        else:
            parts[-1].append(t)
    if len(parts[0]) != 1:
        at = parts[0][0][2] if parts[0] else toks[close][2]
        raise CellError(at, f"expected a base register in the memory operand of '{m}'")
    bk, btext, bpos = parts[0][0]
    base = _reg_operand(btext, bpos) if bk == "name" else None
    if base is None or base.bits != 64 or base.reg in ("ZR", "SP"):
        raise CellError(bpos, f"the base of a memory operand must be X0..X30, not '{btext}'")
    after = close + 1
    if after < n and toks[after][1] == "!":
        raise CellError(toks[after][2], f"pre-indexed addressing of '{m}' is not supported")
    if after + 1 < n and toks[after][1] == "," and toks[after + 1][0] == "num":
        raise CellError(toks[after][2], f"post-indexed addressing of '{m}' is not supported")
    btext = _rname("X", base.reg)
    if len(parts) == 1:
        mem = _Mem(base.reg, 0, None, None, -1, f"[{btext}]")
    elif len(parts) == 2 and len(parts[1]) == 1 and parts[1][0][0] == "num":
        k = _num(parts[1][0][1])
        mem = _Mem(base.reg, k, None, None, -1, f"[{btext}]" if k == 0 else f"[{btext},#{k}]")
    elif len(parts) in (2, 3) and len(parts[1]) == 1:
        mem = _indexed(base.reg, btext, parts, toks[close][2], m)
    else:
        at = parts[1][0][2] if parts[1] else toks[close][2]
        raise CellError(at, f"malformed memory operand of '{m}'")
    return _Operand("mem", mem.text, pos, reg=base.reg, mem=mem), after


def _indexed(base: str, btext: str, parts: list[list[Token]], end: int, m: str) -> _Mem:
    """``[Xn,Rm(,EXT( #k))]`` in herd's text (``mem_ea``, ``pp_addr``): a W index
    without extension is sign-extended, written ``,SXTW``."""
    ik, itext, ipos = parts[1][0]
    idx = _reg_operand(itext, ipos) if ik == "name" else None
    if idx is None or idx.reg == "SP":
        raise CellError(ipos, f"expected an offset or an index register, found '{itext}'")
    view = "W" if idx.bits == 32 else "X"
    rtext = _rname(view, idx.reg)
    ext, amount = ("SXTW" if view == "W" else "LSL"), -1
    if len(parts) == 3:
        et = parts[2]
        if not et or et[0][1].upper() not in ("SXTW", "UXTW", "SXTX", "LSL"):
            raise CellError(et[0][2] if et else end, "expected SXTW, UXTW, SXTX or LSL here")
        ext = et[0][1].upper()
        if len(et) == 2 and et[1][0] == "num":
            amount = _num(et[1][1])
        elif len(et) != 1:
            raise CellError(et[-1][2], f"malformed extension in the memory operand of '{m}'")
    if amount > 0 or (amount == 0 and ext != "LSL"):
        text = f"[{btext},{rtext},{ext} #{amount}]"
    elif ext == "LSL":
        text = f"[{btext},{rtext}]"
    else:
        text = f"[{btext},{rtext},{ext}]"
    return _Mem(base, 0, (view, idx.reg), ext, amount, text)


# ----------------------------------------------------------------------------- checks


def _arity(m: str, ops: list[_Operand], n: int, syntax: str, end: int) -> None:
    if len(ops) < n:
        raise CellError(end, f"missing operand for '{m}' (syntax: {m} {syntax})")
    if len(ops) > n:
        raise CellError(ops[n].pos, f"too many operands for '{m}' (syntax: {m} {syntax})")


def _want(o: _Operand, kinds: tuple[str, ...], what: str, m: str) -> None:
    if o.kind not in kinds:
        raise CellError(o.pos, f"expected {what} as operand of '{m}', found '{o.text}'")


def _reg(o: _Operand, m: str, view: int | None = None, zr: bool = True) -> str:
    """The IR register of operand ``o`` (a register of ``view`` bits when given)."""
    _want(o, ("reg",), "a register", m)
    if view is not None and o.bits != view:
        want = "a W register" if view == 32 else "an X register"
        raise CellError(o.pos, f"expected {want} as operand of '{m}', found '{o.text}'")
    if o.reg == "SP":
        raise CellError(o.pos, f"the stack pointer is not supported as operand of '{m}'")
    if o.reg == "ZR" and not zr:
        raise CellError(o.pos, f"the zero register cannot be used here in '{m}'")
    return o.reg


def _value(o: _Operand) -> IrOperand:
    """A register operand's value: the register, or 0 for the zero register."""
    return Imm(0) if o.reg == "ZR" else Reg(o.reg)


def _rt(o: _Operand) -> str:
    return _rname("W" if o.bits == 32 else "X", o.reg)


# ----------------------------------------------------------------------------- builders

Builder = Callable[[str, str, list[_Operand], int], Instruction]


def _mov(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    _arity(m, o, 2, "Rd,#k|Rm", end)
    d = _reg(o[0], m, zr=False)
    src = o[1]
    if src.kind == "num":
        return op(f"MOV {_rt(o[0])},#{src.value}", m, d, "mov", (Imm(src.value),))
    _reg(src, m, o[0].bits)
    return op(f"MOV {_rt(o[0])},{_rt(src)}", m, d, "mov", (_value(src),))


_OPS = {"ADD": "add", "SUB": "sub", "EOR": "xor", "ORR": "or", "AND": "and"}


def _op3(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    if len(o) == 4 and o[3].kind == "shift" and o[3].text in _EXTS and up in ("ADD", "SUB"):
        return _addsubext(m, up, o, end)
    if len(o) == 4:
        sh = o[3]
        _want(sh, ("shift",), "a shift (LSL #k...)", m)
        if sh.value not in (0, -1) or sh.text not in _SHIFTS:
            raise CellError(sh.pos, f"shifted operands of '{m}' are not supported")
        o = o[:3]
    _arity(m, o, 3, "Rd,Rn,#k|Rm", end)
    v = o[0].bits
    d = _reg(o[0], m, zr=False)
    _reg(o[1], m, v)
    fn = _OPS[up]
    if o[2].kind == "num":
        k = o[2].value
        text = f"{up} {_rt(o[0])},{_rt(o[1])},#{k}"
        return op(text, m, d, fn, (_value(o[1]), Imm(k)))
    _reg(o[2], m, v)
    text = f"{up} {_rt(o[0])},{_rt(o[1])},{_rt(o[2])}"
    return op(text, m, d, fn, (_value(o[1]), _value(o[2])))


def _addsubext(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    """``ADD Xd,Xn,Wm,SXTW``: the third register extended (herd's ADDSUBEXT)."""
    d = _reg(o[0], m, zr=False)
    _reg(o[1], m, o[0].bits)
    _reg(o[2], m)
    ext = o[3]
    if ext.text not in ("SXTW", "UXTW", "SXTX", "UXTX") or ext.value not in (-1, 0):
        raise CellError(ext.pos, f"extension '{ext.text}' of '{m}' is not supported")
    amount = "" if ext.value < 0 else f" #{ext.value}"
    text = f"{up} {_rt(o[0])},{_rt(o[1])},{_rt(o[2])},{ext.text}{amount}"
    return op(text, m, d, _OPS[up], (_value(o[1]), _value(o[2])))


def _cmp(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    _arity(m, o, 2, "Rn,#k|Rm", end)
    v = o[0].bits
    _reg(o[0], m)
    fn = "cmp" if up == "CMP" else "and"
    if o[1].kind == "num":
        return op(f"{up} {_rt(o[0])},#{o[1].value}", m, FLAGS, fn, (_value(o[0]), Imm(o[1].value)))
    _reg(o[1], m, v)
    return op(f"{up} {_rt(o[0])},{_rt(o[1])}", m, FLAGS, fn, (_value(o[0]), _value(o[1])))


def _address(mem: _Mem) -> tuple[IrOperand, ...]:
    out: list[IrOperand] = [Reg(mem.base)]
    if mem.index is not None:
        if mem.amount > 0:
            raise CellError(0, "shifted index registers are not supported")
        if mem.index[1] != "ZR":
            out.append(Reg(mem.index[1]))
    elif mem.offset:
        out.append(Imm(mem.offset))
    return tuple(out)


def _mem_of(o: _Operand, m: str, plain: bool = False) -> _Mem:
    _want(o, ("mem",), "a memory operand [Xn...]", m)
    mem = o.mem
    assert mem is not None
    if plain and (mem.index is not None or mem.offset):
        raise CellError(o.pos, f"'{m}' takes a plain address [Xn], not '{mem.text}'")
    return mem


_LOADS = {
    "LDR": frozenset(),
    "LDAR": frozenset({"A"}),
    "LDAPR": frozenset({"Q"}),
    "LDXR": frozenset({"X"}),
    "LDAXR": frozenset({"X", "A"}),
}
_STORES = {"STR": frozenset(), "STLR": frozenset({"L"})}
_STORE_CONDS = {"STXR": frozenset({"X"}), "STLXR": frozenset({"X", "L"})}


def _load(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    _arity(m, o, 2, "Rt,[Xn...]", end)
    d = _reg(o[0], m)
    mem = _mem_of(o[1], m, plain=up != "LDR")
    size = 4 if o[0].bits == 32 else 8
    res = RESERVATION if "X" in _LOADS[up] else None
    text = f"{up} {_rt(o[0])},{mem.text}"
    if d == "ZR":
        raise CellError(o[0].pos, f"loads into the zero register are not supported ('{m}')")
    return Instruction(text, m, Load(d, _address(mem), size, _LOADS[up], res))


def _store(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    _arity(m, o, 2, "Rt,[Xn...]", end)
    _reg(o[0], m)
    mem = _mem_of(o[1], m, plain=up != "STR")
    size = 4 if o[0].bits == 32 else 8
    text = f"{up} {_rt(o[0])},{mem.text}"
    return Instruction(text, m, Store(_value(o[0]), _address(mem), size, _STORES[up]))


def _store_cond(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    _arity(m, o, 3, "Ws,Rt,[Xn]", end)
    status = _reg(o[0], m, 32, zr=False)
    _reg(o[1], m)
    mem = _mem_of(o[2], m, plain=True)
    size = 4 if o[1].bits == 32 else 8
    text = f"{up} {_rt(o[0])},{_rt(o[1])},{mem.text}"
    sc = StoreCond(status, _value(o[1]), _address(mem), RESERVATION, size, _STORE_CONDS[up])
    return Instruction(text, m, sc)


def _branch(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    _arity(m, o, 1, "label", end)
    _want(o[0], ("name",), "a label", m)
    target = o[0].text
    if up == "B":
        return branch(f"B {target}", m, target)
    cond = up[2:]
    if cond == "AL":
        return branch(f"B.AL {target}", m, target)
    if cond not in _CONDS:
        raise CellError(
            0, f"unsupported AArch64 instruction '{m}' (condition {cond} is not modelled)"
        )
    return branch(f"B.{cond} {target}", m, target, _CONDS[cond], FLAGS)


def _cbz(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    _arity(m, o, 2, "Rt,label", end)
    r = _reg(o[0], m)
    _want(o[1], ("name",), "a label", m)
    target = o[1].text
    text = f"{up} {_rt(o[0])},{target}"
    if r == "ZR":  # herd reads ZR as 0 without an event: the branch is decided
        raise CellError(o[0].pos, f"'{m}' on the zero register is not supported")
    return branch(text, m, target, "eq" if up == "CBZ" else "ne", r)


def _barrier(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    if up == "ISB":
        _arity(m, o, 0, "", end)
        return fence("ISB", m, "ISB")
    _arity(m, o, 1, "option (SY, ISH, ISHLD...)", end)
    _want(o[0], ("name",), "a barrier option", m)
    opt = o[0].text
    if opt not in _BARRIER_OPTS and opt.lower() not in [x.lower() for x in _BARRIER_OPTS]:
        raise CellError(o[0].pos, f"unknown barrier option '{opt}' of '{m}'")
    opt = opt.upper()
    return fence(f"{up} {opt}", m, f"{up}.{opt}")


def _nop(m: str, up: str, o: list[_Operand], end: int) -> Instruction:
    _arity(m, o, 0, "", end)
    return nop("NOP", m)


SPEC: dict[str, Builder] = {
    "MOV": _mov,
    **{k: _op3 for k in _OPS},
    "CMP": _cmp,
    "TST": _cmp,
    **{k: _load for k in _LOADS},
    **{k: _store for k in _STORES},
    **{k: _store_cond for k in _STORE_CONDS},
    "B": _branch,
    **{f"B.{c}": _branch for c in (*_CONDS, *_OTHER_CONDS, "AL")},
    "CBZ": _cbz,
    "CBNZ": _cbz,
    "DMB": _barrier,
    "DSB": _barrier,
    "ISB": _barrier,
    "NOP": _nop,
}

#: herd's other AArch64 mnemonics (a selection): known to herd, not modelled here.
UNSUPPORTED = (
    *("ADDS", "SUBS", "ANDS", "BICS", "EON", "ORN", "BIC", "NEG", "NEGS", "MVN"),
    *("ASR", "LSL", "LSR", "ROR", "MOVZ", "MOVN", "MOVK", "ADR", "SXTW", "UBFM", "SBFM"),
    *("LDRB", "LDRH", "LDRSB", "LDRSH", "LDRSW", "STRB", "STRH", "LDUR", "STUR"),
    *("LDP", "STP", "LDNP", "STNP", "LDXP", "LDAXP", "STXP", "STLXP", "LDARB", "LDARH"),
    *("STLRB", "STLRH", "LDXRB", "LDXRH", "STXRB", "STXRH", "LDAXRB", "STLXRB", "LDAPRB"),
    *("CAS", "CASA", "CASL", "CASAL", "CASP", "SWP", "SWPA", "SWPL", "SWPAL"),
    *("LDADD", "LDADDA", "LDADDL", "LDADDAL", "STADD", "STADDL", "LDCLR", "LDSET", "LDEOR"),
    *("LDSMAX", "LDSMIN", "LDUMAX", "LDUMIN", "STCLR", "STSET", "STEOR"),
    *("CSEL", "CSINC", "CSINV", "CSNEG", "CSET", "CSETM", "CINC", "TBZ", "TBNZ"),
    *("BR", "BL", "BLR", "RET", "ERET", "DC", "IC", "TLBI", "MRS", "MSR", "HINT", "HLT"),
    *("UDF", "STG", "STZG", "LDG", "RBIT", "REV", "ABS", "EXTR", "FMOV", "MOVI", "DUP"),
)


def _mnemonic(text: str) -> str | None:
    """The canonical (upper-case) mnemonic of ``text``: herd accepts all-upper or
    all-lower case."""
    up = text.upper()
    if text not in (up, text.lower()):
        return None
    return up


def parse_cell(text: str) -> tuple[CodeItem, ...]:
    """The IR of one non-empty, stripped AArch64 program cell (labels first)."""
    return assemble(text, _TOKEN, _instruction)


def _instruction(text: str, toks: list[Token], i: int) -> Instruction:
    """The instruction of the cell ``text`` from token ``i`` (its mnemonic) to the end."""
    kind, m, pos = toks[i]
    up = _mnemonic(m) if kind == "name" else None
    build = SPEC.get(up) if up is not None else None
    if build is None:
        if up is not None and (up in UNSUPPORTED or up.startswith("LD") or up.startswith("ST")):
            if up in UNSUPPORTED:
                raise CellError(pos, f"unsupported AArch64 instruction '{m}'")
        raise unknown_instruction(toks, i, "AArch64")
    ops = operands(toks, i + 1, m, _operand)
    return lower_at(pos, build, m, up, ops, len(text))


# ----------------------------------------------------------------------------- texts


def hash_text(ins: Instruction, rename: dict[str, str]) -> str:
    """herd's text of ``ins`` for the hash (``dump_instruction_hash``; labels renamed)."""
    if isinstance(ins.op, Branch):
        head, _, rest = ins.text.rpartition(",") if "," in ins.text else ins.text.partition(" ")
        target = rename[ins.op.target]
        if "," in ins.text:
            return f"{head},{target}"
        return f"{head} {target}"
    return ins.text


def source_text(ins: Instruction) -> str:
    """Text that parses back to ``ins``: its canonical text with the mnemonic as written."""
    text = ins.text
    _, sep, rest = text.partition(" ")
    return f"{ins.mnemonic}{sep}{rest}"


__all__ = ["FLAGS", "RESERVATION", "SPEC", "parse_cell", "hash_text", "source_text"]
