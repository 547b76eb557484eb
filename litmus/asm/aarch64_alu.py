"""AArch64 register instructions: moves, arithmetic and logic (with shifted operands),
the flag-setting forms and comparisons that write ``NZCV``, and ``CSET``/``CSETM``.

Texts and semantics follow herd (``lib/AArch64Base.ml``'s ``dump_instruction``,
``herd/AArch64Sem.ml``'s ``mop3``, ``op_set_flags``, ``tr_cond``); the word operations
and flags are :mod:`litmus.base.armops`'s (``add.w``, ``nzcv.sub.x``, ``cset.eq``...).

- ``MOV``, ``ADD``, ``SUB``, ``EOR``, ``ORR``, ``AND`` (register or immediate) keep the IR's
  plain functions (``add``...); with a shifted register (``ADD X0,X1,X2,LSL #2``), and
  ``ORN``, ``BIC``, ``ASR``, ``LSL``, ``LSR``, ``ROR``, ``NEG``, ``MVN``, they compute on
  the word (``add.lsl2.x``; herd's 32-bit ``ASR`` instruction shifts the zero-extended
  word: a logical shift, unlike its shifted operands); ``EON`` is ``EOR`` and
  ``ASRV``... are ``ASR``... (herd's lexer);
- ``ADDS``, ``SUBS``, ``ANDS``, ``BICS``, ``NEGS`` write their destination and ``NZCV``
  (the IR's ``Op.flags``); ``CMP``, ``TST`` only ``NZCV`` (herd has no ``CMN``);
- ``MOVZ``, ``MOVN``, ``MOVK`` (``#k`` with ``LSL #0/16/32/48``); ``UBFM``/``SBFM``;
  ``ABS``, ``RBIT``, ``REV``, ``REV16``, ``REV32``, ``REV64``, ``SXTW``; ``ADD``/``SUB``
  with an extended register (``ADD X0,X1,W2,SXTB #2``: ``add.sxtb2.x``);
- ``SMADDL``, ``SMSUBL``, ``UMADDL``, ``UMSUBL`` and ``SMULL``, ``SMNEGL``, ``UMULL``,
  ``UMNEGL`` (long multiplications: armops' ``smaddl``...);
- ``MRS Xt,NZCV``/``MSR NZCV,Xt`` move the flags from and to bits 28..31 (no other
  system register);
- ``CSET``/``CSETM`` read ``NZCV`` (every condition code; herd reads ``CSET Rd,GE`` as
  ``CSINC Rd,ZR,ZR,GT``: it computes and shows ``LE``, as herd does).
"""

from __future__ import annotations

from collections.abc import Callable

from herdsman.litmus.asm.aarch64_operands import (
    EXTS,
    SHIFTS,
    Arg,
    arity,
    reg,
    rname,
    rt,
    value,
    want,
)
from herdsman.litmus.asm.cells import CellError, op
from herdsman.litmus.base.armops import CONDITIONS, INVERSE
from herdsman.litmus.base.ir import Imm, Op, Reg, Select
from herdsman.litmus.base.ir import Operand as IrOperand
from herdsman.litmus.test import Instruction

#: The IR register of the flags (herd's name).
FLAGS = "NZCV"

Builder = Callable[[str, str, list[Arg], int], Instruction]

#: the IR's plain functions of the unshifted register operations (as before words)
_PLAIN = {"ADD": "add", "SUB": "sub", "EOR": "xor", "ORR": "or", "AND": "and"}
#: the word operation of each mnemonic (``litmus.base.armops``)
_WORD = {
    **{"ADD": "add", "SUB": "sub", "EOR": "xor", "ORR": "or", "AND": "and"},
    **{"ORN": "orn", "BIC": "bic", "ASR": "asr", "LSL": "lsl", "LSR": "lsr", "ROR": "ror"},
    **{"ADDS": "add", "SUBS": "sub", "ANDS": "and", "BICS": "bic"},
}
#: herd's lexer reads these as other mnemonics (``EON`` is ``EOR``, ``ASRV`` is ``ASR``)
ALIASES = {"EON": "EOR", "ASRV": "ASR", "LSLV": "LSL", "LSRV": "LSR", "RORV": "ROR"}
#: the flags each flag-setting mnemonic computes
_FLAGS = {"ADDS": "add", "SUBS": "sub", "ANDS": "and", "BICS": "bic"}
_SHIFT_OPS = ("ASR", "LSL", "LSR", "ROR")
_EXT_ONLY = ("SXTW", "UXTW", "SXTX", "UXTX")


def _w(o: Arg) -> str:
    """The word suffix of a register operand's view."""
    return "w" if o.bits == 32 else "x"


def _shift_of(o: list[Arg], m: str, up: str) -> tuple[str, int, list[Arg]]:
    """The shift of a register operation's last operand (kind, amount; ("", 0) for
    none or a zero one) and the operands without it."""
    if len(o) < 4:
        return "", 0, o
    sh = o[3]
    want(sh, ("shift",), "a shift (LSL #k...)", m)
    if sh.text not in SHIFTS:
        raise CellError(sh.pos, f"extension '{sh.text}' of '{m}' is not supported")
    k = max(sh.value, 0)
    bits = o[0].bits if o[0].kind == "reg" else 64
    if k >= bits:
        raise CellError(sh.pos, f"shift amount {k} of '{m}' is out of range (0..{bits - 1})")
    return (sh.text if k else ""), k, o[:3]


def _shown_shift(kind: str, k: int) -> str:
    return f",{kind} #{k}" if kind else ""


def _second(o: Arg, m: str, bits: int, kind: str, k: int) -> tuple[IrOperand, str]:
    """The second source operand (register or immediate) and herd's text of it."""
    if o.kind == "num":
        if kind not in ("", "LSL"):
            raise CellError(o.pos, f"an immediate of '{m}' may only be shifted by LSL")
        return Imm(o.value << k), f"#{o.value}" + (f",LSL #{k}" if kind else "")
    reg(o, m, bits)
    return value(o), rt(o) + _shown_shift(kind, k)


def _fn(word: str, kind: str, k: int, w: str) -> str:
    """The IR function of word operation ``word`` on a second operand shifted so."""
    return f"{word}.{kind.lower()}{k}.{w}" if kind else f"{word}.{w}"


def _op3(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``OP Rd,Rn,#k|Rm{,shift #k}`` (and ``ADDS``..., which also write ``NZCV``)."""
    up = ALIASES.get(up, up)
    if len(o) == 4 and o[3].kind == "shift" and o[3].text in EXTS and o[3].text not in SHIFTS:
        if up in ("ADD", "SUB"):
            return _addsubext(m, up, o, end)
    kind, k, o = _shift_of(o, m, up)
    arity(m, o, 3, "Rd,Rn,#k|Rm", end)
    bits, w = o[0].bits, _w(o[0])
    flags = up in _FLAGS
    d = reg(o[0], m, zr=flags)
    reg(o[1], m, bits)
    src, shown = _second(o[2], m, bits, kind, k)
    if o[2].kind == "num":
        kind = ""
    if up in _SHIFT_OPS and o[2].kind == "reg" and kind:
        raise CellError(o[2].pos, f"'{m}' takes no shifted operand")
    text = f"{up} {rt(o[0])},{rt(o[1])},{shown}"
    args = (value(o[1]), src)
    if up in _PLAIN and not kind:
        return op(text, m, d, _PLAIN[up], args)
    fn = _fn(_WORD[up], kind, k, w)
    if up == "ASR" and w == "w":  # herd shifts the zero-extended word: a logical shift
        fn = "lsr.w"
    if not flags:
        return op(text, m, d, fn, args)
    nzcv = _fn("nzcv." + _FLAGS[up], kind, k, w)
    if d == "ZR":  # herd shows SUBS/ANDS into the zero register as CMP/TST
        alias = {"SUBS": "CMP", "ANDS": "TST"}.get(up)
        if alias is not None:
            text = f"{alias} {rt(o[1])},{shown}"
        return op(text, m, FLAGS, nzcv, args)
    return Instruction(text, m, Op(d, fn, args, flags=(FLAGS, nzcv)))


def _addsubext(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``ADD Xd,Xn,Wm,SXTW``: the third register extended (herd's ADDSUBEXT)."""
    d = reg(o[0], m, zr=False)
    reg(o[1], m, o[0].bits)
    reg(o[2], m)
    ext = o[3]
    if not 0 <= max(ext.value, 0) <= 4:
        raise CellError(ext.pos, f"the extension of '{m}' shifts by 0 to 4, not {ext.value}")
    amount = "" if ext.value < 0 else f" #{ext.value}"
    text = f"{up} {rt(o[0])},{rt(o[1])},{rt(o[2])},{ext.text}{amount}"
    args = (value(o[1]), value(o[2]))
    if ext.text in _EXT_ONLY and ext.value in (-1, 0):
        return op(text, m, d, _PLAIN[up], args)
    return op(text, m, d, f"{_PLAIN[up]}.{ext.text.lower()}{max(ext.value, 0)}.{_w(o[0])}", args)


def _cmp(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``CMP``/``TST Rn,#k|Rm{,shift}``: the flags of ``SUBS``/``ANDS`` into the zero
    register."""
    if not o:
        arity(m, o, 2, "Rn,#k|Rm", end)
    kind, k, o3 = _shift_of([o[0], *o], m, up) if len(o) == 3 else ("", 0, [o[0], *o])
    o = o3[1:]
    arity(m, o, 2, "Rn,#k|Rm", end)
    bits, w = o[0].bits, _w(o[0])
    reg(o[0], m)
    src, shown = _second(o[1], m, bits, kind, k)
    if o[1].kind == "num":
        kind = ""
    word = {"CMP": "sub", "TST": "and"}[up]
    text = f"{up} {rt(o[0])},{shown}"
    return op(text, m, FLAGS, _fn("nzcv." + word, kind, k, w), (value(o[0]), src))


def _unary(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``NEG``/``NEGS``/``MVN Rd,Rm{,shift}``: ``SUB(S) Rd,ZR,Rm``, ``ORN Rd,ZR,Rm``."""
    if not o:
        arity(m, o, 2, "Rd,Rm", end)
    kind, k, o3 = _shift_of([o[0], *o], m, up) if len(o) == 3 else ("", 0, [o[0], *o])
    o = [o3[0], *o3[2:]]
    arity(m, o, 2, "Rd,Rm", end)
    bits, w = o[0].bits, _w(o[0])
    d = reg(o[0], m, zr=False)
    reg(o[1], m, bits)
    shown = rt(o[1]) + _shown_shift(kind, k)
    text = f"{up} {rt(o[0])},{shown}"
    args = (Imm(0), value(o[1]))
    if up == "MVN":
        return op(text, m, d, _fn("orn", kind, k, w), args)
    fn = _fn("sub", kind, k, w)
    if up == "NEG":
        return op(text, m, d, fn, args)
    return Instruction(text, m, Op(d, fn, args, flags=(FLAGS, _fn("nzcv.sub", kind, k, w))))


#: the one-register word operations: their function and the view they take (None: both)
_BITS = {
    "ABS": ("abs", None),
    "RBIT": ("rbit", None),
    "REV": ("rev", None),
    "REV16": ("rev16", None),
    "REV32": ("rev32", 64),
    "REV64": ("rev", 64),
}


def _bits(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``ABS``, ``RBIT``, ``REV``, ``REV16``, ``REV32``, ``REV64 Rd,Rn``: the word's
    absolute value, bits reversed, bytes reversed (in each half-word, word); herd shows
    ``REV64`` as ``REV``.  ``SXTW Xd,Wn``: the low word sign-extended."""
    arity(m, o, 2, "Rd,Rn", end)
    if up == "SXTW":
        d = reg(o[0], m, 64, zr=False)
        reg(o[1], m, 32)
        return op(f"SXTW {rt(o[0])},{rt(o[1])}", m, d, "conv", (value(o[1]), Imm(-32)))
    fn, view = _BITS[up]
    d = reg(o[0], m, view, zr=False)
    reg(o[1], m, o[0].bits)
    word = "REV" if up == "REV64" else up
    return op(f"{word} {rt(o[0])},{rt(o[1])}", m, d, f"{fn}.{_w(o[0])}", (value(o[1]),))


def _movw(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``MOVZ``/``MOVN``/``MOVK Rd,#k{,LSL #s}`` (``s`` a multiple of 16 in the word)."""
    shift = 0
    shown = ""
    if len(o) == 3:
        sh = o[2]
        want(sh, ("shift",), "LSL #0/16/32/48", m)
        shift = max(sh.value, 0)
        if sh.text != "LSL" or shift % 16 or shift >= o[0].bits:
            raise CellError(sh.pos, f"'{m}' shifts its immediate by LSL #0, #16, #32 or #48")
        shown = f",,LSL #{shift}"  # herd's text (a doubled comma)
    arity(m, o[:2], 2, "Rd,#k{,LSL #s}", end)
    d = reg(o[0], m, zr=False)
    want(o[1], ("num",), "an immediate", m)
    k = o[1].value
    if not 0 <= k <= 0xFFFF:
        raise CellError(o[1].pos, f"the immediate of '{m}' is 16 bits (0..65535)")
    w = _w(o[0])
    text = f"{up} {rt(o[0])},#{k}{shown}"
    if up == "MOVK":
        return op(text, m, d, f"movk{shift}.{w}", (Reg(d), Imm(k)))
    v = k << shift
    return op(text, m, d, f"mov.{w}", (Imm(~v if up == "MOVN" else v),))


def _bfm(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``UBFM``/``SBFM Rd,Rn,#immr,#imms``: a bitfield moved, zero- or sign-extended."""
    arity(m, o, 4, "Rd,Rn,#immr,#imms", end)
    d = reg(o[0], m, zr=False)
    bits, w = o[0].bits, _w(o[0])
    reg(o[1], m, bits)
    for k in o[2:]:
        want(k, ("num",), "an immediate", m)
        if not 0 <= k.value < bits:
            raise CellError(k.pos, f"'{m}' takes bit numbers 0..{bits - 1}")
    immr, imms = o[2].value, o[3].value
    # herd shows its registers in their X view, whatever the instruction's
    text = f"{up} {rname('X', d)},{rname('X', o[1].reg)},#{immr},#{imms}"
    return op(text, m, d, f"{up.lower()}.{immr}.{imms}.{w}", (value(o[1]),))


def condition(text: str, pos: int, m: str) -> str:
    """herd's name of the condition code ``text`` (upper or lower case; herd reads no
    ``HS``/``LO``)."""
    up = text.upper()
    if up not in CONDITIONS or text not in (text.upper(), text.lower()):
        raise CellError(pos, f"unknown condition '{text}' of '{m}'")
    return up


#: the operation of each conditional selection on its second register when the
#: condition fails (herd's ``csel_op``: ``Cpy``, ``Inc``, ``Inv``, ``Neg``)
_SEL = {"CSEL": "mov", "CSINC": "add", "CSINV": "orn", "CSNEG": "sub"}


def _select(m: str, up: str, d: Arg, n: Arg, k: Arg, cond: str) -> Instruction:
    """``up Rd,Rn,Rm,cond`` (herd's ``I_CSEL``): ``Rd <- Rn`` when the flags say
    ``cond``, else ``Rm`` (``CSEL``), ``Rm+1``, ``NOT Rm``, ``-Rm``, on the word; herd's
    text (``CSET``/``CSETM`` for zero registers, ``CINC`` for one register twice)."""
    w = _w(d)
    inverse = _HERD_INVERSE[cond]
    if n.reg == "ZR" and k.reg == "ZR" and up in ("CSINC", "CSINV"):
        text = f"{'CSET' if up == 'CSINC' else 'CSETM'} {rt(d)},{inverse}"
    elif n.reg == k.reg and up == "CSINC":
        text = f"CINC {rt(d)},{rt(n)},{inverse}"
    else:
        text = f"{up} {rt(d)},{rt(n)},{rt(k)},{cond}"
    first = "mov" if w == "x" else "mov.w"
    other: tuple[IrOperand, ...] = (value(k),)
    fn = first
    if up == "CSINC":
        fn, other = f"add.{w}", (value(k), Imm(1))
    elif up != "CSEL":
        fn, other = f"{_SEL[up]}.{w}", (Imm(0), value(k))
    sel = Select(d.reg, FLAGS, f"nzcv.{cond.lower()}", first, (value(n),), fn, other, cond)
    return Instruction(text, m, sel)


def _csel(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``CSEL``/``CSINC``/``CSINV``/``CSNEG Rd,Rn,Rm,cond``."""
    arity(m, o, 4, "Rd,Rn,Rm,cond", end)
    reg(o[0], m, zr=False)
    for r in o[1:3]:
        reg(r, m, o[0].bits)
    want(o[3], ("name",), "a condition (EQ, NE, CS...)", m)
    return _select(m, up, o[0], o[1], o[2], condition(o[3].text, o[3].pos, m))


def _cinc(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``CINC Rd,Rn,cond``: ``CSINC Rd,Rn,Rn,inverse(cond)`` (herd's parser)."""
    arity(m, o, 3, "Rd,Rn,cond", end)
    reg(o[0], m, zr=False)
    reg(o[1], m, o[0].bits)
    want(o[2], ("name",), "a condition (EQ, NE, CS...)", m)
    cond = condition(o[2].text, o[2].pos, m)
    return _select(m, "CSINC", o[0], o[1], o[1], _HERD_INVERSE[cond])


def _cset(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``CSET``/``CSETM Rd,cond``: 1 (all ones) when the flags say ``cond``, else 0:
    herd reads them as ``CSINC``/``CSINV Rd,ZR,ZR,inverse(cond)`` (and shows that back
    as ``CSET``/``CSETM inverse(inverse(cond))``, herd's inverse of GE being GT)."""
    arity(m, o, 2, "Rd,cond", end)
    reg(o[0], m, zr=False)
    want(o[1], ("name",), "a condition (EQ, NE, CS...)", m)
    cond = condition(o[1].text, o[1].pos, m)
    if cond == "AL":
        raise CellError(o[1].pos, f"'{m}' takes no AL condition")
    zr = Arg("reg", "ZR", o[0].pos, reg="ZR", bits=o[0].bits)
    word = "CSINC" if up == "CSET" else "CSINV"
    return _select(m, word, o[0], zr, zr, _HERD_INVERSE[cond])


#: herd's ``inverse_cond`` (``lib/AArch64Base.ml``): the inverse, except GE's, GT
_HERD_INVERSE = {**INVERSE, "GE": "GT"}


#: the long multiplications: (signed, subtracting), with an accumulator or without
_MOPL = {"SMADDL": "smaddl", "SMSUBL": "smsubl", "UMADDL": "umaddl", "UMSUBL": "umsubl"}
_MOPLZ = {"SMULL": "SMADDL", "SMNEGL": "SMSUBL", "UMULL": "UMADDL", "UMNEGL": "UMSUBL"}


def _mopl(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``SMADDL``/``SMSUBL``/``UMADDL``/``UMSUBL Xd,Wn,Wm,Xa``: ``Xa`` plus (minus) the
    product of the words, sign- (zero-) extended; ``SMULL``... ``Xd,Wn,Wm``: with ``XZR``
    (herd's ``I_MOPL``)."""
    plain = up in _MOPLZ
    arity(m, o, 3 if plain else 4, "Xd,Wn,Wm" if plain else "Xd,Wn,Wm,Xa", end)
    d = reg(o[0], m, 64, zr=False)
    reg(o[1], m, 32)
    reg(o[2], m, 32)
    acc: IrOperand = Imm(0)
    text = f"{up} {rt(o[0])},{rt(o[1])},{rt(o[2])}"
    if not plain:
        reg(o[3], m, 64)
        acc = value(o[3])
        text += f",{rt(o[3])}"
    fn = _MOPL[_MOPLZ.get(up, up)]
    return op(text, m, d, fn, (value(o[1]), value(o[2]), acc))


def _sysreg(o: Arg, m: str) -> None:
    """Check that ``o`` names the flags, the one system register herdsman models."""
    want(o, ("name",), "a system register", m)
    if o.text != FLAGS:
        raise CellError(o.pos, f"system register '{o.text}' of '{m}' is not supported")


def _mrs(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``MRS Xt,NZCV``: the flags into bits 28..31 of ``Xt`` (herd's ``I_MRS``)."""
    arity(m, o, 2, "Xt,NZCV", end)
    d = reg(o[0], m, 64, zr=False)
    _sysreg(o[1], m)
    return op(f"MRS {rt(o[0])},{FLAGS}", m, d, "shl", (Reg(FLAGS), Imm(28)))


def _msr(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``MSR NZCV,Xt``: bits 28..31 of ``Xt`` into the flags (herd's ``I_MSR``)."""
    arity(m, o, 2, "NZCV,Xt", end)
    _sysreg(o[0], m)
    reg(o[1], m, 64)
    return op(f"MSR {FLAGS},{rt(o[1])}", m, FLAGS, "ubfm.28.31.x", (value(o[1]),))


def _mov(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    arity(m, o, 2, "Rd,#k|Rm", end)
    d = reg(o[0], m, zr=False)
    src = o[1]
    if src.kind == "num":
        return op(f"MOV {rt(o[0])},#{src.value}", m, d, "mov", (Imm(src.value),))
    reg(src, m, o[0].bits)
    return op(f"MOV {rt(o[0])},{rt(src)}", m, d, "mov", (value(src),))


SPEC: dict[str, Builder] = {
    "MOV": _mov,
    **{k: _op3 for k in (*_WORD, *ALIASES)},
    "CMP": _cmp,
    "TST": _cmp,
    "NEG": _unary,
    "NEGS": _unary,
    "MVN": _unary,
    "MOVZ": _movw,
    "MOVN": _movw,
    "MOVK": _movw,
    "CSET": _cset,
    "CSETM": _cset,
    **{k: _csel for k in _SEL},
    "CINC": _cinc,
    "MRS": _mrs,
    **{k: _mopl for k in (*_MOPL, *_MOPLZ)},
    "MSR": _msr,
    "UBFM": _bfm,
    "SBFM": _bfm,
    **{k: _bits for k in (*_BITS, "SXTW")},
}


def hash_text(ins: Instruction) -> str:
    """herd's text of ``ins`` for the hash where it differs (``compat``): ``NEG``/``NEGS``
    are ``SUB``/``SUBS`` from the zero register."""
    word, _, rest = ins.text.partition(" ")
    if word in ("NEG", "NEGS"):
        d, _, src = rest.partition(",")
        return f"SUB{word[3:]} {d},{d[0]}ZR,{src}"
    return ins.text


__all__ = ["FLAGS", "SPEC", "condition", "hash_text"]
