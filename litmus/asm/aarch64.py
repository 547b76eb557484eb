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
  ``OSH``, ``NSHST``...) are fences named herd's way (``DMB.ISHLD``), ``ISB`` too; ``NOP``;
- the atomics (W and X registers, plain address ``[Xn]``), with ``A``/``L``/``AL`` forms:
  ``SWP`` and ``LD<op>`` (``ADD``, ``CLR``, ``EOR``, ``SET``, ``SMAX``, ``SMIN``) are the
  IR's read-modify-writes, ``ST<op>`` (and ``L``) is ``LD<op>`` into the zero register
  (herd prints it so), ``CAS`` is the IR's compare-and-swap; the read is ``X`` (``A``
  with A), or ``NoRet`` when the old value goes to the zero register, the write ``X``
  (``L`` with L).  Their events with herd's register events: ``engine/semantics/rmwevents``.

Instructions of herd's list whose effect herdsman does not model (pre/post-indexed
accesses, shifted addresses, flag-setting arithmetic with a destination, the pair and
byte/half-word atomics ``CASP``, ``SWPB``, ``LDADDH``..., ``LDUMAX``/``LDUMIN``, the
other condition codes, SIMD...) are errors naming them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from herdsman.litmus.asm import aarch64_alu as alu
from herdsman.litmus.asm.aarch64_alu import FLAGS
from herdsman.litmus.asm.aarch64_operands import (
    TOKEN,
    Arg,
    Mem,
    address,
    arity,
    mem_of,
    operand,
    reg,
    rname,
    rt,
    value,
    want,
    writeback,
)
from herdsman.litmus.asm.cells import (
    CellError,
    Token,
    assemble,
    branch,
    fence,
    lower_at,
    nop,
    operands,
    unknown_instruction,
)
from herdsman.litmus.base.armops import CONDITIONS
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Branch,
    Exit,
    Instr,
    Load,
    Operand,
    Reg,
    Select,
    Store,
    StoreCond,
)
from herdsman.litmus.test import CodeItem, Instruction

#: The IR register of the exclusive reservation (herd's name).
RESERVATION = "Res"
_BARRIER_OPTS = tuple(
    (dom if not typ else (typ if dom == "SY" else dom + typ))
    for dom in ("SY", "OSH", "ISH", "NSH")
    for typ in ("", "ST", "LD")
)


# ----------------------------------------------------------------------------- builders

Builder = Callable[[str, str, list[Arg], int], Instruction]


_LOADS = {
    "LDR": frozenset(),
    "LDAR": frozenset({"A"}),
    "LDAPR": frozenset({"Q"}),
    "LDXR": frozenset({"X"}),
    "LDAXR": frozenset({"X", "A"}),
}
_STORES = {"STR": frozenset(), "STLR": frozenset({"L"})}
_STORE_CONDS = {"STXR": frozenset({"X"}), "STLXR": frozenset({"X", "L"})}


def _indexed(m: str, o: Arg, d: str) -> None:
    """Refuse a pre- or post-indexed access whose base register is ``d``, the register
    it loads (the Arm ARM leaves it unpredictable)."""
    mem = o.mem
    assert mem is not None
    if mem.mode and mem.base == d:
        raise CellError(o.pos, f"'{m}' loads its written-back base register {rt(o)}")


def _load(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    arity(m, o, 2, "Rt,[Xn...]", end)
    d = reg(o[0], m)
    mem = mem_of(o[1], m, plain=up != "LDR", indexed=True)
    size = 4 if o[0].bits == 32 else 8
    res = RESERVATION if "X" in _LOADS[up] else None
    text = f"{up} {rt(o[0])},{mem.text}"
    if d == "ZR":
        raise CellError(o[0].pos, f"loads into the zero register are not supported ('{m}')")
    _indexed(m, o[1], d)
    widen = 32 if size == 4 else 0  # a W register: the low word, zero-extended
    load = Load(d, address(mem), size, _LOADS[up], res, widen)
    return Instruction(text, m, load, writeback(mem))


#: the byte and half-word accesses (W registers, the addresses of LDR/STR) and their sizes
_BYTES = {"LDRB": 1, "LDRH": 2, "STRB": 1, "STRH": 2}


def _bytes(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``LDRB``/``LDRH Wt,<addr>``: the low byte (half-word) of the location, zero-extended;
    ``STRB``/``STRH Wt,<addr>``: the low byte (half-word) of ``Wt`` (herd without
    ``-variant mixed``: the location's value is accessed whole, its low bits moved)."""
    arity(m, o, 2, "Wt,[Xn...]", end)
    d = reg(o[0], m, 32, zr=up.startswith("ST"))
    mem = mem_of(o[1], m, indexed=True)
    text = f"{up} {rt(o[0])},{mem.text}"
    if up.startswith("ST"):
        store = Store(value(o[0]), address(mem), _BYTES[up])
        return Instruction(text, m, store, writeback(mem))
    _indexed(m, o[1], d)
    return Instruction(text, m, Load(d, address(mem), _BYTES[up]), writeback(mem))


#: the sign-extending loads and the bytes they read
_SIGNED = {"LDRSB": 1, "LDRSH": 2, "LDRSW": 4}


def _signed(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``LDRSB``/``LDRSH Rt,<addr>``, ``LDRSW Xt,<addr>``: the low byte (half-word, word)
    of the location, sign-extended to the register (herd's ``ldrs``: to 32 bits then
    zero-extended for a W register)."""
    arity(m, o, 2, "Rt,[Xn...]", end)
    d = reg(o[0], m, 64 if up == "LDRSW" else None, zr=False)
    mem = mem_of(o[1], m, indexed=True)
    _indexed(m, o[1], d)
    size = _SIGNED[up]
    text = f"{up} {rt(o[0])},{mem.text}"
    widen = 32 if o[0].bits == 32 else 0
    load = Load(d, address(mem), size, widen=widen, sign=True)
    return Instruction(text, m, load, writeback(mem))


#: the pair accesses: loads, and LDPSW's sign-extended words; the non-temporal pairs
#: (herd's annotation ``NT``); LDIAPP's ``Q`` reads and STILP's ``L`` writes, ordered
#: inside the instruction (herd's ``iico_order``: ``graphs.skeleton.iico_order``)
_PAIRS = ("LDP", "STP", "LDPSW", "LDNP", "STNP", "LDIAPP", "STILP")
_PAIR_ANNOTS = {"LDNP": "NT", "STNP": "NT", "LDIAPP": "Q", "STILP": "L"}


def _ordered_pair(m: str, up: str, mem: Mem, sz: int, pos: int) -> None:
    """Refuse an ``LDIAPP`` (``STILP``) address herd's parser refuses: ``[Xn]``, or
    post- (pre-) indexed by the pair's size (herd's ``ldp_instr``, ``stp_instr``)."""
    plain = not mem.mode and not mem.offset and mem.index is None
    step = 2 * sz if up == "LDIAPP" else -2 * sz
    mode = "post" if up == "LDIAPP" else "pre"
    if not plain and (mem.mode != mode or mem.offset != step):
        shown = f"[Xn],#{step}" if mode == "post" else f"[Xn,#{step}]!"
        raise CellError(pos, f"'{m}' takes an address [Xn] or {shown}, not '{mem.text}'")


def _pair(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``LDP``/``STP Rt1,Rt2,<addr>`` (``[Xn{,#k}]``, ``[Xn,#k]!``, ``[Xn],#k``): two
    accesses of one instruction, at the address and the next register's width further,
    then the base register's update (herd's ``ldp``/``stp``); ``LDPSW Xt1,Xt2,<addr>``
    loads two words, sign-extended; ``LDNP``/``STNP``, ``LDIAPP``/``STILP`` likewise,
    annotated (a pre-indexed ``STILP`` writes its second register first, as herd
    orders them)."""
    arity(m, o, 3, "Rt1,Rt2,[Xn...]", end)
    store = up.startswith("ST")
    r1 = reg(o[0], m, 64 if up == "LDPSW" else None, zr=store)
    r2 = reg(o[1], m, o[0].bits, zr=store)
    mem = mem_of(o[2], m, indexed=True)
    if mem.index is not None:
        raise CellError(o[2].pos, f"'{m}' takes no index register, not '{mem.text}'")
    sz = 4 if o[0].bits == 32 or up == "LDPSW" else 8
    annots = frozenset({_PAIR_ANNOTS[up]}) if up in _PAIR_ANNOTS else frozenset()
    if up in ("LDIAPP", "STILP"):
        _ordered_pair(m, up, mem, sz, o[2].pos)
    text = f"{up} {rt(o[0])},{rt(o[1])},{mem.text}"
    if store:
        first: Instr = Store(value(o[0]), address(mem), sz, annots)
        second: Instr = Store(value(o[1]), address(mem, sz), sz, annots)
        if up == "STILP" and mem.mode == "pre":
            first, second = second, first
        return Instruction(text, m, first, (second, *writeback(mem)))
    if r1 == r2:
        raise CellError(o[1].pos, f"'{m}' loads {rt(o[1])} twice")
    _indexed(m, o[2], r1)
    _indexed(m, o[2], r2)
    widen = 32 if o[0].bits == 32 else 0
    sign = up == "LDPSW"
    first = Load(r1, address(mem), sz, annots, widen=widen, sign=sign)
    second = Load(r2, address(mem, sz), sz, annots, widen=widen, sign=sign)
    if r1 == mem.base:  # the second read first: its address is the base's old value
        first, second = second, first
    return Instruction(text, m, first, (second, *writeback(mem)))


def _ldur(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``LDUR Rt,[Xn{,#k}]``: a load with an unscaled offset (herd's text ``LDUR Rt, [Xn,#k]``)."""
    arity(m, o, 2, "Rt,[Xn{,#k}]", end)
    d = reg(o[0], m, zr=False)
    mem = mem_of(o[1], m)
    if mem.index is not None:
        raise CellError(o[1].pos, f"'{m}' takes an address [Xn] or [Xn,#k], not '{mem.text}'")
    size = 4 if o[0].bits == 32 else 8
    base = rname("X", mem.base)
    text = f"LDUR {rt(o[0])}, [{base}{f',#{mem.offset}' if mem.offset else ''}]"
    return Instruction(text, m, Load(d, address(mem), size, widen=32 if size == 4 else 0))


def _store(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    arity(m, o, 2, "Rt,[Xn...]", end)
    reg(o[0], m)
    mem = mem_of(o[1], m, plain=up != "STR", indexed=True)
    size = 4 if o[0].bits == 32 else 8
    text = f"{up} {rt(o[0])},{mem.text}"
    store = Store(value(o[0]), address(mem), size, _STORES[up])
    return Instruction(text, m, store, writeback(mem))


def _store_cond(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    arity(m, o, 3, "Ws,Rt,[Xn]", end)
    status = reg(o[0], m, 32, zr=False)
    reg(o[1], m)
    mem = mem_of(o[2], m, plain=True)
    size = 4 if o[1].bits == 32 else 8
    text = f"{up} {rt(o[0])},{rt(o[1])},{mem.text}"
    sc = StoreCond(status, value(o[1]), address(mem), RESERVATION, size, _STORE_CONDS[up])
    return Instruction(text, m, sc)


#: the atomic operations of ``LD<op>``/``ST<op>`` (herd's ``atomic_op``) as IR functions
_AOPS = {"ADD": "add", "EOR": "xor", "SET": "or", "CLR": "andnot", "SMAX": "max", "SMIN": "min"}
_ORDERS = ("", "A", "L", "AL")


def _rmw_annots(order: str, noret: bool) -> tuple[frozenset[str], frozenset[str]]:
    """herd's annotations of the read and the write of an atomic of ``order`` (``A``,
    ``L``, ``AL`` or ""): the read ``X`` (``XA`` with A), or ``NoRet`` (in herd's set
    ``X`` too) when the old value goes nowhere; the write ``X`` (``XL`` with L)."""
    read = frozenset({"X", "NoRet"}) if noret else frozenset({"X", *("A" if "A" in order else "")})
    return read, frozenset({"X", *("L" if "L" in order else "")})


def _atomic_regs(m: str, o: list[Arg], n: int, syntax: str, end: int) -> Mem:
    """Check ``n`` registers of one view then a plain address; the address."""
    arity(m, o, n + 1, syntax, end)
    for r in o[:n]:
        reg(r, m, o[0].bits)
    return mem_of(o[n], m, plain=True)


def _swp(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``SWP{A,L,AL} Rs,Rt,[Xn]``: ``Rt <- mem; mem <- Rs`` (herd's ``swp``)."""
    mem = _atomic_regs(m, o, 2, "Rs,Rt,[Xn]", end)
    order = up[3:]
    noret = o[1].reg == "ZR"
    read, write = _rmw_annots(order, noret)
    size = 4 if o[0].bits == 32 else 8
    text = f"{up} {rt(o[0])},{rt(o[1])},[{rname('X', mem.base)}]"
    dst = None if noret else o[1].reg
    swp = RMW(dst, address(mem), "second", value(o[0]), size, read, write_annots=write)
    return Instruction(text, m, swp)


def _ldop(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``LD<op>{A,L,AL} Rs,Rt,[Xn]``: ``Rt <- mem; mem <- op(mem, Rs)``; ``ST<op>{L}
    Rs,[Xn]`` is ``LD<op>{,L} Rs,ZR,[Xn]``, herd's text for both (``ldop``)."""
    store = up.startswith("ST")
    name = next(a for a in sorted(_AOPS, key=len, reverse=True) if up[2:].startswith(a))
    order = up[2 + len(name) :]
    if store:
        mem = _atomic_regs(m, o, 1, "Rs,[Xn]", end)
        dest = "ZR"
    else:
        mem = _atomic_regs(m, o, 2, "Rs,Rt,[Xn]", end)
        dest = o[1].reg
    noret = dest == "ZR"
    read, write = _rmw_annots(order, noret)
    size = 4 if o[0].bits == 32 else 8
    base = rname("X", mem.base)
    view = "W" if o[0].bits == 32 else "X"
    if noret and order in ("", "L"):
        text = f"ST{name}{order} {rt(o[0])},[{base}]"
    else:
        text = f"LD{name}{order} {rt(o[0])},{rname(view, dest)},[{base}]"
    dst = None if noret else dest
    fn = _AOPS[name]
    if name in ("SMAX", "SMIN"):  # signed words of the access's size (herd's sxt_op)
        fn = f"{fn}.{view.lower()}"
    ldop = RMW(dst, address(mem), fn, value(o[0]), size, read, write_annots=write)
    return Instruction(text, m, ldop)


def _cas(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``CAS{A,L,AL} Rs,Rt,[Xn]``: ``old <- mem; if old == Rs: mem <- Rt; Rs <- old``
    (herd's ``cas``; a failing one only reads, its read plain, ``A`` with A: the IR's
    annotations are the success's, ``engine/semantics/rmwevents`` makes the failure's)."""
    mem = _atomic_regs(m, o, 2, "Rs,Rt,[Xn]", end)
    order = up[3:]
    noret = o[0].reg == "ZR"
    read, write = _rmw_annots(order, noret)
    text = f"{up} {rt(o[0])},{rt(o[1])},[{rname('X', mem.base)}]"
    dst = None if noret else o[0].reg
    cas = CAS(dst, address(mem), value(o[0]), value(o[1]), read, write_annots=write)
    return Instruction(text, m, cas)


def _branch(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    arity(m, o, 1, "label", end)
    want(o[0], ("name", "off"), "a label", m)
    target = o[0].text
    if up == "B":
        return branch(f"B {target}", m, target)
    cond = alu.condition(up[2:], 0, m)
    if cond == "AL":
        return branch(f"B.AL {target}", m, target)
    return branch(f"B.{cond} {target}", m, target, f"nzcv.{cond.lower()}", FLAGS)


def _cbz(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    arity(m, o, 2, "Rt,label", end)
    r = reg(o[0], m)
    want(o[1], ("name", "off"), "a label", m)
    target = o[1].text
    text = f"{up} {rt(o[0])},{target}"
    if r == "ZR":  # herd reads ZR as 0 without an event: the branch is decided
        raise CellError(o[0].pos, f"'{m}' on the zero register is not supported")
    return branch(text, m, target, "eq" if up == "CBZ" else "ne", r)


def _tbz(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``TBZ``/``TBNZ Rt,#k,label``: branch when bit ``k`` of ``Rt`` is clear (set)."""
    arity(m, o, 3, "Rt,#k,label", end)
    r = reg(o[0], m)
    want(o[1], ("num",), "a bit number", m)
    want(o[2], ("name", "off"), "a label", m)
    k, target = o[1].value, o[2].text
    if not 0 <= k < o[0].bits:
        raise CellError(o[1].pos, f"bit number {k} of '{m}' is out of range (0..{o[0].bits - 1})")
    if r == "ZR":
        raise CellError(o[0].pos, f"'{m}' on the zero register is not supported")
    text = f"{up} {rt(o[0])},#{k},{target}"
    return branch(text, m, target, f"{up.lower()}{k}", r)


def _barrier(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    if up == "ISB":
        arity(m, o, 0, "", end)
        return fence("ISB", m, "ISB")
    arity(m, o, 1, "option (SY, ISH, ISHLD...)", end)
    want(o[0], ("name",), "a barrier option", m)
    opt = o[0].text
    if opt not in _BARRIER_OPTS and opt.lower() not in [x.lower() for x in _BARRIER_OPTS]:
        raise CellError(o[0].pos, f"unknown barrier option '{opt}' of '{m}'")
    opt = opt.upper()
    return fence(f"{up} {opt}", m, f"{up}.{opt}")


def _ret(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    """``RET``: the thread's end under ``-variant telechat`` (:mod:`litmus.returns`);
    ``RET Xn`` jumps to a register's value, which herdsman does not model."""
    if o:
        raise CellError(o[0].pos, f"'{m}' to a register (an indirect jump) is not supported")
    arity(m, o, 0, "", end)
    return Instruction("RET", m, Exit())


def _nop(m: str, up: str, o: list[Arg], end: int) -> Instruction:
    arity(m, o, 0, "", end)
    return nop("NOP", m)


SPEC: dict[str, Builder] = {
    **alu.SPEC,
    **{k: _load for k in _LOADS},
    "LDUR": _ldur,
    **{k: _bytes for k in _BYTES},
    **{k: _signed for k in _SIGNED},
    **{k: _pair for k in _PAIRS},
    **{k: _store for k in _STORES},
    **{k: _store_cond for k in _STORE_CONDS},
    **{f"SWP{o}": _swp for o in _ORDERS},
    **{f"CAS{o}": _cas for o in _ORDERS},
    **{f"LD{a}{o}": _ldop for a in _AOPS for o in _ORDERS},
    **{f"ST{a}{o}": _ldop for a in _AOPS for o in ("", "L")},
    "B": _branch,
    **{f"B.{c}": _branch for c in CONDITIONS},
    "CBZ": _cbz,
    "CBNZ": _cbz,
    "TBZ": _tbz,
    "TBNZ": _tbz,
    "DMB": _barrier,
    "DSB": _barrier,
    "ISB": _barrier,
    "NOP": _nop,
    "RET": _ret,
}

#: herd's other AArch64 mnemonics (a selection): known to herd, not modelled here.
UNSUPPORTED = (
    *("ADR",),
    *("STUR",),
    *("LDXP", "LDAXP", "STXP", "STLXP", "LDARB", "LDARH"),
    *("STLRB", "STLRH", "LDXRB", "LDXRH", "STXRB", "STXRH", "LDAXRB", "STLXRB", "LDAPRB"),
    *("CASP", "CASPA", "CASPL", "CASPAL", "CASB", "CASH", "SWPB", "SWPH", "LDADDB"),
    *("LDADDH", "STADDB", "STADDH", "LDUMAX", "LDUMIN", "STUMAX", "STUMIN"),
    *("EXTR",),
    *("BR", "BL", "BLR", "ERET", "DC", "IC", "TLBI", "HINT", "HLT"),
    *("UDF", "STG", "STZG", "LDG", "FMOV", "MOVI", "DUP"),
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
    return assemble(text, TOKEN, _instruction)


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
    ops = operands(toks, i + 1, m, operand)
    return lower_at(pos, build, m, up, ops, len(text))


# ----------------------------------------------------------------------------- texts

#: a post-indexed address ending an instruction's text: ``[Xn]`` then ``#k``
_POST = re.compile(r"(\[[^\[\]]*\]),(#-?[0-9]+)$")


def hash_text(ins: Instruction, rename: dict[str, str]) -> str:
    """herd's text of ``ins`` for the hash (``dump_instruction_hash``; labels renamed)."""
    if isinstance(ins.op, Branch):
        head, _, rest = ins.text.rpartition(",") if "," in ins.text else ins.text.partition(" ")
        target = rename.get(ins.op.target, ins.op.target)  # an offset stays
        if "," in ins.text:
            return f"{head},{target}"
        return f"{head} {target}"
    if ins.mnemonic.upper().startswith("LD") and ins.text.startswith("ST"):
        # herd hashes LD<op> Rs,ZR,[Xn] as written (``compat``), prints it ST<op>
        word, _, rest = ins.text.partition(" ")
        rs, _, addr = rest.partition(",")
        return f"LD{word[2:]} {rs},{rs[0]}ZR,{addr}"
    post = _POST.search(ins.text)
    if post is not None:  # herd hashes ``[Xn],#k`` as ``[Xn]#k`` (`` [Xn]#k`` in a pair)
        space = " " if ins.text.split(" ", 1)[0] in _PAIRS else ""
        return f"{ins.text[: post.start()]}{space}{post.group(1)}{post.group(2)}"
    return alu.hash_text(ins)


def event_texts(code: tuple[CodeItem, ...]) -> tuple[str, ...]:
    """herd's text of each instruction of a thread as its events show it (pictures):
    a branch to a label written as the offset of its target, ``.+24``, ``.-8`` (herd
    7.57 resolves labels to addresses, 4 bytes an instruction); labels give ""."""
    at: dict[str, int] = {}
    n = 0
    for item in code:
        if isinstance(item, Instruction):
            n += 1
        else:
            at[item.name] = n
    out: list[str] = []
    k = 0
    for item in code:
        if not isinstance(item, Instruction):
            out.append("")
            continue
        text = item.text
        if isinstance(item.op, Branch) and item.op.target in at:
            off = 4 * (at[item.op.target] - k)
            head = text[: len(text) - len(item.op.target)]
            text = f"{head}.{'+' if off >= 0 else ''}{off}"
        out.append(text)
        k += 1
    return tuple(out)


def source_text(ins: Instruction) -> str:
    """Text that parses back to ``ins``: its canonical text with the mnemonic as written
    (a selection herd shows as ``CSET``/``CINC``: its registers and condition again)."""
    text = ins.text
    word, sep, rest = text.partition(" ")
    sel = ins.op
    if isinstance(sel, Select) and ins.mnemonic.upper() in _SELECTS and word not in _SELECTS:
        view = rest[0]
        second = (
            sel.other[0] if len(sel.other) == 1 or sel.other_fn.startswith("add") else sel.other[1]
        )
        regs = [_shown(view, o) for o in (Reg(sel.dst), sel.args[0], second)]
        return f"{ins.mnemonic} {','.join(regs)},{sel.text}"
    return f"{ins.mnemonic}{sep}{rest}"


#: the selections herd shows otherwise when their registers repeat (``CSET``, ``CINC``)
_SELECTS = ("CSEL", "CSINC", "CSINV", "CSNEG")


def _shown(view: str, o: Operand) -> str:
    """A register operand in the ``W`` or ``X`` view (the zero register for 0)."""
    return rname(view, o.name if isinstance(o, Reg) else "ZR")


__all__ = ["FLAGS", "RESERVATION", "SPEC", "event_texts", "parse_cell", "hash_text", "source_text"]
