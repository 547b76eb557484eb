"""AArch64 operands: herd's registers (``W``/``X`` views of one IR register), immediates,
memory operands (``[Xn]``, ``[Xn,#k]``, ``[Xn,Rm(,EXT( #k))]``) read from a cell's tokens,
their checks, and herd's text of each (``lib/AArch64Parser.mly``, ``AArch64Base.ml``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from herdsman.litmus.asm.cells import CellError, Token
from herdsman.litmus.base.ir import Imm, Op, Reg
from herdsman.litmus.base.ir import Operand as IrOperand

TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<num>#?[-+]?[0-9]+)|(?P<off>\.[-+][0-9]+)"
    r"|(?P<sreg>[WwXx]?%[A-Za-z_.$][A-Za-z0-9_/.$]*)"
    r"|(?P<name>[A-Za-z_.$][A-Za-z0-9_/.$]*)|(?P<p>[,\[\]!:{}])|(?P<bad>.)"
)
_GPR = re.compile(r"([WwXx])([0-9]+)")
EXTS = ("SXTW", "UXTW", "SXTX", "UXTX", "LSL", "SXTB", "SXTH", "UXTB", "UXTH")
SHIFTS = ("LSL", "LSR", "ASR", "ROR")


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


def rname(view: str, reg: str) -> str:
    """herd's text of a register in view ``view`` (``W3``, ``XZR``)."""
    if reg == "ZR":
        return view + "ZR"
    if reg == "SP":
        return "SP" if view == "X" else "WSP"
    if reg.startswith("%"):  # a symbolic register: X%name
        return view + reg
    return view + reg[1:]


# ----------------------------------------------------------------------------- operands


@dataclass(frozen=True, slots=True)
class Mem:
    """A memory operand: base register, immediate offset or index register (view, IR
    register) with its extension (``SXTW``...) and shift amount (-1: none), herd's text;
    ``mode`` "pre" (``[Xn,#k]!``: the access at ``Xn+k``, then ``Xn <- Xn+k``) or "post"
    (``[Xn],#k``: the access at ``Xn``, then ``Xn <- Xn+k``), else ""."""

    base: str
    offset: int
    index: tuple[str, str] | None
    ext: str | None
    amount: int
    text: str
    mode: str = ""


@dataclass(frozen=True, slots=True)
class Arg:
    """One written operand: ``kind`` is reg (``bits`` 32 or 64, ``reg`` the IR register
    or ``ZR``), num (``value``), mem (``mem``), name (a label or an option), off (a
    branch offset ``.+8``: ``value`` its bytes), shift (an
    extension or shift keyword in ``text``, its amount in ``value``, -1 for none)."""

    kind: str
    text: str
    pos: int
    value: int = 0
    reg: str = ""
    bits: int = 0
    mem: Mem | None = None


def _reg_operand(text: str, pos: int) -> Arg | None:
    got = _gpr(text)
    if got is None:
        return None
    view, reg = got
    return Arg("reg", text, pos, reg=reg, bits=32 if view == "W" else 64)


def _symbolic(text: str, pos: int) -> Arg:
    """herd's symbolic register ``X%name`` (``W%name`` its low word), IR register ``%name``."""
    view, _, name = text.partition("%")
    return Arg("reg", text, pos, reg="%" + name, bits=32 if view in ("W", "w") else 64)


def _num(text: str) -> int:
    return int(text[1:] if text.startswith("#") else text)


def operand(toks: list[Token], i: int, m: str) -> tuple[Arg, int]:
    """The operand at token ``i`` and the index of the token after it."""
    kind, text, pos = toks[i]
    n = len(toks)
    if text == "[":
        return _memory(toks, i, m)
    if kind == "num":
        return Arg("num", text, pos, _num(text)), i + 1
    if kind == "off":  # a branch offset .+8: ``value`` the bytes
        return Arg("off", text, pos, int(text[1:])), i + 1
    if kind == "sreg":
        return _symbolic(text, pos), i + 1
    if kind == "name":
        got = _reg_operand(text, pos)
        if got is not None:
            return got, i + 1
        up = text.upper()
        if up in EXTS or up in SHIFTS:
            if i + 1 < n and toks[i + 1][0] == "num":
                return Arg("shift", up, pos, _num(toks[i + 1][1])), i + 2
            return Arg("shift", up, pos, -1), i + 1
        return Arg("name", text, pos), i + 1
    raise CellError(pos, f"expected an operand of '{m}', found '{text}'")


def _memory(toks: list[Token], i: int, m: str) -> tuple[Arg, int]:
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
    if bk == "sreg":
        base = _symbolic(btext, bpos)
    if base is None or base.bits != 64 or base.reg == "ZR":
        raise CellError(bpos, f"the base of a memory operand must be X0..X30 or SP, not '{btext}'")
    after = close + 1
    btext = rname("X", base.reg)
    if after < n and toks[after][1] == "!":  # pre-indexed: [Xn,#k]!
        if len(parts) != 2 or len(parts[1]) != 1 or parts[1][0][0] != "num":
            raise CellError(toks[after][2], f"pre-indexing of '{m}' takes [Xn,#k]!")
        k = _num(parts[1][0][1])
        mem = Mem(base.reg, k, None, None, -1, f"[{btext},#{k}]!", "pre")
        return Arg("mem", mem.text, pos, reg=base.reg, mem=mem), after + 1
    if after + 1 < n and toks[after][1] == "," and toks[after + 1][0] == "num":
        if len(parts) != 1:  # post-indexed: [Xn],#k
            raise CellError(toks[after][2], f"post-indexing of '{m}' takes [Xn],#k")
        k = _num(toks[after + 1][1])
        mem = Mem(base.reg, k, None, None, -1, f"[{btext}],#{k}", "post")
        return Arg("mem", mem.text, pos, reg=base.reg, mem=mem), after + 2
    if len(parts) == 1:
        mem = Mem(base.reg, 0, None, None, -1, f"[{btext}]")
    elif len(parts) == 2 and len(parts[1]) == 1 and parts[1][0][0] == "num":
        k = _num(parts[1][0][1])
        mem = Mem(base.reg, k, None, None, -1, f"[{btext}]" if k == 0 else f"[{btext},#{k}]")
    elif len(parts) in (2, 3) and len(parts[1]) == 1:
        mem = _indexed(base.reg, btext, parts, toks[close][2], m)
    else:
        at = parts[1][0][2] if parts[1] else toks[close][2]
        raise CellError(at, f"malformed memory operand of '{m}'")
    return Arg("mem", mem.text, pos, reg=base.reg, mem=mem), after


def _indexed(base: str, btext: str, parts: list[list[Token]], end: int, m: str) -> Mem:
    """``[Xn,Rm(,EXT( #k))]`` in herd's text (``mem_ea``, ``pp_addr``): a W index
    without extension is sign-extended, written ``,SXTW``."""
    ik, itext, ipos = parts[1][0]
    idx = _reg_operand(itext, ipos) if ik == "name" else None
    if idx is None or idx.reg == "SP":
        raise CellError(ipos, f"expected an offset or an index register, found '{itext}'")
    view = "W" if idx.bits == 32 else "X"
    rtext = rname(view, idx.reg)
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
    return Mem(base, 0, (view, idx.reg), ext, amount, text)


# ----------------------------------------------------------------------------- checks


def arity(m: str, ops: list[Arg], n: int, syntax: str, end: int) -> None:
    if len(ops) < n:
        raise CellError(end, f"missing operand for '{m}' (syntax: {m} {syntax})")
    if len(ops) > n:
        raise CellError(ops[n].pos, f"too many operands for '{m}' (syntax: {m} {syntax})")


def want(o: Arg, kinds: tuple[str, ...], what: str, m: str) -> None:
    if o.kind not in kinds:
        raise CellError(o.pos, f"expected {what} as operand of '{m}', found '{o.text}'")


def reg(o: Arg, m: str, view: int | None = None, zr: bool = True) -> str:
    """The IR register of operand ``o`` (a register of ``view`` bits when given)."""
    want(o, ("reg",), "a register", m)
    if view is not None and o.bits != view:
        which = "a W register" if view == 32 else "an X register"
        raise CellError(o.pos, f"expected {which} as operand of '{m}', found '{o.text}'")
    if o.reg == "ZR" and not zr:
        raise CellError(o.pos, f"the zero register cannot be used here in '{m}'")
    return o.reg


def value(o: Arg) -> IrOperand:
    """A register operand's value: the register, or 0 for the zero register."""
    return Imm(0) if o.reg == "ZR" else Reg(o.reg)


def rt(o: Arg) -> str:
    return rname("W" if o.bits == 32 else "X", o.reg)


def address(mem: Mem, extra: int = 0) -> tuple[IrOperand, ...]:
    """The address an access of ``mem`` reads or writes (``extra`` bytes further: the
    second access of a pair); a post-indexed one accesses the base register's value."""
    out: list[IrOperand] = [Reg(mem.base)]
    off = extra + (0 if mem.mode == "post" else mem.offset)
    if mem.index is not None:
        if mem.index[1] != "ZR":
            out.append(Reg(mem.index[1], max(mem.amount, 0)))
    if off:
        out.append(Imm(off))
    return tuple(out)


def writeback(mem: Mem) -> tuple[Op, ...]:
    """The base register's update after a pre- or post-indexed access (none for an
    offset of 0, which leaves it as it is), as herd's ``write_reg`` of the address."""
    if not mem.mode or not mem.offset:
        return ()
    return (Op(mem.base, "add", (Reg(mem.base), Imm(mem.offset))),)


def mem_of(o: Arg, m: str, plain: bool = False, indexed: bool = False) -> Mem:
    """The memory operand ``o`` of ``m``: a plain one ``[Xn]`` with ``plain``; pre- and
    post-indexing only with ``indexed``."""
    want(o, ("mem",), "a memory operand [Xn...]", m)
    mem = o.mem
    assert mem is not None
    if plain and (mem.index is not None or mem.offset):
        raise CellError(o.pos, f"'{m}' takes a plain address [Xn], not '{mem.text}'")
    if mem.mode and not indexed:
        raise CellError(o.pos, f"'{m}' takes no pre- or post-indexed address '{mem.text}'")
    return mem
