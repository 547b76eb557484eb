"""ARM (ARMv7) assembler: one program cell to IR operations, with herd's canonical text.

Syntax and canonical text follow herd (``lib/ARMLexer.mll``, ``lib/ARMParser.mly``,
``lib/ARMBase.ml`` ``dump_instruction``); semantics follow ``herd/ARMSem.ml``:

- mnemonics in upper or lower case; immediates ``#k`` or ``k``; registers ``R0``..``R12``
  (``IP`` is ``R12``), ``SP``, ``FP``, ``LR``, ``PC``, in any case;
- ``LDR rt,[rn]`` (also ``LDR rt,rn``), ``LDR rt,[rn,rm]``, ``LDR rt,[rn,rm,lsl #k]``
  and ``LDR rt,[rn,#k]`` load from ``rn``, ``rn+rm``, ``rn+(rm<<k)``, ``rn+k``; ``STR``
  likewise (its register is a data port); ``LDM``/``LDMIB rn,{r1,r2(,r3)}`` and
  ``LDRD r1,(r2,)[rn(,#k)]`` load consecutive words in one instruction;
- ``MOV``, ``ADD``, ``SUB``, ``AND``, ``ORR``, ``EOR`` (and the flag-setting ``ADDS``,
  ``SUBS``, ``ANDS``, ``EORS``) compute in registers;
- the flags are one compare register (``cr0``, as X86's): ``CMP a,b`` writes
  ``cmp(a, b)`` (herd's Z flag is ``cr0 = 0``), the flag-setting forms ``cmp(result, 0)``;
  ``BEQ``/``BNE`` test it and issue a branch commit, ``CBZ``/``CBNZ r`` test ``r``;
- ``DMB``/``DSB`` with an option (``SY`` — the default —, ``ST``, ``ISH``, ``ISHST``,
  ``NSH``, ``NSHST``, ``OSH``, ``OSHST``) and ``ISB`` are fences of kind ``DMB``,
  ``DMB.ST``, ``DSB.ISH``..., herd's names of the barriers;
- ``LDREX``/``STREX`` are a load-reserve and a store-conditional (set ``X``);
- ``MOVEQ``/``MOVNE``, ``MOVWEQ``, ``MOVTEQ``, ``ANDEQ`` compute only when the flags say
  so (the IR's :class:`Select` without a commit).

Instructions herd's ARM parser knows whose effect the IR does not model (conditional
execution of accesses ``LDRNE``/``STREQ``..., ``PUSH``/``POP``, ``LDA``/``STL``, indirect branches,
SIMD) are errors naming them.
"""

from __future__ import annotations

import re

from herdsman.litmus.asm import cells
from herdsman.litmus.asm.cells import CellError, Operand, Token
from herdsman.litmus.base import ir
from herdsman.litmus.base.arch import arm_register
from herdsman.litmus.base.ir import Imm, Reg
from herdsman.litmus.base.ir import Operand as IrOperand
from herdsman.litmus.test import CodeItem, Instruction

FLAGS = "cr0"  # the register standing for the flags (see the module docstring)
RESERVE = "RESADDR"  # the register an exclusive load leaves its address in (herd's)

_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<num>#?-?[0-9]+)"
    r"|(?P<sreg>%[A-Za-z][A-Za-z0-9_/.\-]*)|(?P<name>[A-Za-z][A-Za-z0-9_/.\-]*)"
    r"|(?P<p>[,\[\]{}:])|(?P<bad>.)"
)

#: Barrier options, herd's order (``ARMBase.fold_barrier_option``).
OPTIONS = ("SY", "ST", "ISH", "ISHST", "NSH", "NSHST", "OSH", "OSHST")

_ARITH = {"ADD": "add", "SUB": "sub", "AND": "and", "ORR": "or", "EOR": "xor"}
#: Mnemonics herd reads (``ARMLexer.mll``) that herdsman does not model, and why.
_UNMODELLED = {
    **{m: "conditional execution" for m in ("LDRNE", "LDREQ", "STRNE", "STREQ")},
    **{m: "multiple-register load" for m in ("PUSH", "POP")},
    "LDA": "load-acquire",
    "LDAEX": "load-acquire exclusive",
    "STL": "store-release",
    "STLEX": "store-release exclusive",
    "BX": "indirect branch",  # but BX LR, a return: litmus.returns
    "SADD16": "SIMD (herd does not implement it)",
    "SEL": "SIMD (herd does not implement it)",
}
#: the register instructions herd executes under a condition (``ARMSem.ml``'s
#: ``checkZ``), each with its unconditional form
_CONDITIONAL = {"MOVEQ": "MOV", "MOVNE": "MOV", "MOVWEQ": "MOVW", "MOVTEQ": "MOVT", "ANDEQ": "AND"}
_KNOWN = (
    set(_ARITH)
    | {m + "S" for m in ("ADD", "SUB", "AND", "EOR")}
    | {"XOR", "MOV", "CMP", "LDR", "STR", "LDREX", "STREX", "B", "BEQ", "BNE", "CBZ", "CBNZ"}
    | {"MOVW", "MOVT", "LDM", "LDMIB", "LDRD"}
    | set(_CONDITIONAL)
    | {"DMB", "DSB", "ISB", "NOP"}
    | set(_UNMODELLED)
)


def _operand(toks: list[Token], i: int, m: str) -> tuple[Operand, int]:
    """The operand at token ``i`` and the index of the token after it: a register, an
    immediate, a name (label or barrier option) or a memory operand ``[rn{,rm|,#k}]``
    (kind ``mem``: ``reg`` the base, ``text`` the written form)."""
    kind, text, pos = toks[i]
    n = len(toks)
    if text == "[":
        j = i + 1
        parts: list[Operand] = []
        while j < n and toks[j][1] != "]":
            if parts:
                if toks[j][1] != ",":
                    raise CellError(toks[j][2], f"expected ',' or ']' in the address of '{m}'")
                j += 1
                if j == n:
                    break
            part, j = _operand(toks, j, m)
            if part.kind == "name" and part.text in ("LSL", "lsl"):  # lsl #k: a shift
                if j == n or toks[j][0] != "num":
                    raise CellError(part.pos, f"expected 'lsl #k' in the address of '{m}'")
                k = cells.literal(toks[j][1].lstrip("#"), toks[j][2])
                part = Operand("shift", "lsl", part.pos, k)
                j += 1
            if part.kind in ("mem", "list"):
                raise CellError(part.pos, f"nested '[' in the address of '{m}'")
            parts.append(part)
        if j == n:
            raise CellError(toks[-1][2] + 1, f"missing ']' in the address of '{m}'")
        return _memory(parts, pos, m), j + 1
    if text == "{":  # a register list {R1,R2}: kind list, ``text`` the registers
        close = next((j for j in range(i + 1, n) if toks[j][1] == "}"), -1)
        if close < 0:
            raise CellError(pos, f"missing '}}' in the register list of '{m}'")
        regs = [t for t in toks[i + 1 : close] if t[1] != ","]
        names = [cells.plain_operand(t, m, arm_register) for t in regs]
        for r in names:
            _kind(r, "reg", "a register", m)
        return Operand("list", ",".join(r.reg for r in names), pos), close + 1
    return cells.plain_operand(toks[i], m, arm_register), i + 1


def _memory(parts: list[Operand], pos: int, m: str) -> Operand:
    """``[rn]``, ``[rn,rm]`` or ``[rn,#k]`` as one operand (``value``: the offset, ``text``
    the index register or '' )."""
    if not parts:
        raise CellError(pos, f"empty address in '{m}'")
    base = parts[0]
    if base.kind != "reg":
        raise CellError(base.pos, f"expected a base register in the address of '{m}'")
    if len(parts) == 1:
        return Operand("mem", "", pos, 0, base.reg)
    off = parts[1]
    if len(parts) > 3 or (len(parts) == 3 and (parts[2].kind != "shift" or off.kind != "reg")):
        raise CellError(parts[-1].pos, f"malformed address in '{m}' ([rn,rm,lsl #k])")
    if len(parts) == 3:  # [rn,rm,lsl #k]: ``value`` the shift (1 more: 0 is no shift)
        return Operand("mem", off.reg, pos, parts[2].value + 1, base.reg)
    if off.kind == "reg":
        return Operand("mem", off.reg, pos, 0, base.reg)
    if off.kind == "num":
        return Operand("mem", "#", pos, off.value, base.reg)
    raise CellError(off.pos, f"expected a register or an immediate offset in '{m}'")


def _kind(o: Operand, kinds: str, what: str, m: str) -> None:
    cells.expect(o.kind in kinds.split("|"), o, what, m)


def _address(o: Operand) -> tuple[str, tuple[IrOperand, ...]]:
    """herd's text of an address and its IR operands: ``[R1]``, ``[R1,R2]``, ``[R1,#4]``."""
    if o.kind == "reg":  # LDR rt,rn
        return f"[{o.reg}]", (Reg(o.reg),)
    if o.text == "":
        return f"[{o.reg}]", (Reg(o.reg),)
    if o.text == "#":
        return f"[{o.reg},#{o.value}]", (Reg(o.reg), Imm(o.value))
    if o.value:  # a shifted index register
        return f"[{o.reg},{o.text},lsl #{o.value - 1}]", (Reg(o.reg), Reg(o.text, o.value - 1))
    return f"[{o.reg},{o.text}]", (Reg(o.reg), Reg(o.text))


def _multiple(m: str, canon: str, ops: list[Operand], end: int) -> Instruction:
    """``LDM``/``LDMIB rn,{r1,r2(,r3)}`` and ``LDRD r1,(r2,)[rn(,#k)]`` (``r2`` is
    ``r1``'s next register): words read at ``rn`` (``rn+4`` with IB, ``rn+k``) and on,
    in one instruction, every read before the registers are written (herd's ``ldm``,
    ``ldrd``)."""
    if canon == "LDRD":
        if len(ops) == 2 and ops[0].kind == "reg":
            num = ops[0].reg[1:]
            if not num.isdigit() or int(num) >= 12:
                raise CellError(ops[0].pos, f"'{m}' needs a register R0..R11 here")
            ops = [ops[0], Operand("reg", "", ops[0].pos, reg=f"R{int(num) + 1}"), ops[1]]
        cells.arity(m, ops, 3, "r1,r2,[rn{,#k}]", end)
        r1, r2, mem = ops
        _kind(r1, "reg", "a register", m)
        _kind(r2, "reg", "a register", m)
        _kind(mem, "mem", "an address [rn{,#k}]", m)
        if mem.text not in ("", "#"):
            raise CellError(mem.pos, f"'{m}' takes an address [rn] or [rn,#k]")
        regs, base, off = [r1.reg, r2.reg], mem.reg, mem.value
        where = f"[{base}, #{off}]" if mem.text == "#" else f"[{base}]"
        text = f"LDRD {r1.reg}, {r2.reg}, {where}"
    else:
        cells.arity(m, ops, 2, "rn,{r1,r2...}", end)
        rn, rl = ops
        _kind(rn, "reg", "a register", m)
        _kind(rl, "list", "a register list {r1,r2...}", m)
        regs = rl.text.split(",")
        if len(regs) not in (2, 3):
            raise CellError(rl.pos, f"'{m}' loads two or three registers")
        base, off = rn.reg, 4 if canon == "LDMIB" else 0
        text = f"{canon} {base}, {{{','.join(regs)}}}"
    if len(set(regs)) != len(regs):
        raise CellError(ops[1].pos, f"'{m}' loads a register twice")
    loads = [
        ir.Load(r, (Reg(base), Imm(off + 4 * i)) if off + 4 * i else (Reg(base),))
        for i, r in enumerate(regs)
    ]
    # the base register's read comes first: the load that overwrites it last
    loads.sort(key=lambda x: x.dst == base)
    return Instruction(text, m, loads[0], tuple(loads[1:]))


def _conditional(m: str, canon: str, ops: list[Operand], end: int) -> Instruction:
    """``MOVEQ``, ``MOVNE``, ``MOVWEQ``, ``MOVTEQ``, ``ANDEQ``: the instruction's effect
    when the Z flag says so (``cr0`` = 0, or not), else nothing (herd's ``checkZ``: the
    flag's read guards the effect, with no commit), herd's texts."""
    cond = canon[-2:]
    if canon == "ANDEQ":  # three registers (herd's I_ANDC)
        cells.arity(m, ops, 3, "rd,rn,rm", end)
        for o in ops:
            _kind(o, "reg", "a register", m)
        rd, rn, rm = (o.reg for o in ops)
        if rd == rn == rm:  # herd's parser: the historical no-op
            return cells.nop("NOP", m)
        text = f"ANDEQ {rd}, {rn}, {rm}"
        fn = "and"
        args: tuple[IrOperand, ...] = (Reg(rn), Reg(rm))
    else:
        base = _lower(m, _CONDITIONAL[canon], ops, end)
        assert isinstance(base.op, ir.Op)
        rd, fn, args = base.op.dst, base.op.fn, base.op.args
        word, _, rest = base.text.partition(" ")
        if canon.startswith("MOVW"):  # herd's "MOVWR0, #1" with the condition
            text = f"MOVW{cond}{base.text[4:]}"
        elif canon.startswith("MOVT"):
            text = f"MOVT {cond}{rest}"
        else:
            text = f"{word}{cond} {rest}"
    keep = (Reg(rd),)  # a failing condition leaves the register as it was
    sel = ir.Select(rd, FLAGS, cond.lower(), fn, args, "mov", keep, commit=False)
    return Instruction(text, m, sel)


def _lower(m: str, canon: str, ops: list[Operand], end: int) -> Instruction:
    """The IR of ``canon ops`` (``m`` as written)."""
    if canon in _CONDITIONAL:
        return _conditional(m, canon, ops, end)
    if canon == "BX" and len(ops) == 1 and ops[0].kind == "reg" and ops[0].reg == "LR":
        return Instruction("BX LR", m, ir.Exit())  # a return: litmus.returns
    if canon in _UNMODELLED:
        raise CellError(0, f"unsupported ARM instruction '{m}' ({_UNMODELLED[canon]})")
    if canon in ("LDM", "LDMIB", "LDRD"):
        return _multiple(m, canon, ops, end)
    if canon in ("LDR", "STR", "LDREX"):
        cells.arity(m, ops, 2, "rt,[rn{,rm|,#k}]", end)
        rt, mem = ops
        _kind(rt, "reg", "a register", m)
        _kind(mem, "mem|reg", "an address [rn]", m)
        if canon == "LDREX" and mem.kind == "mem" and mem.text:
            raise CellError(mem.pos, f"'{m}' takes an address [rn] without offset")
        where, addr = _address(mem)
        text = f"{canon} {rt.reg},{where}"
        if canon == "STR":
            return cells.store(text, m, Reg(rt.reg), addr)
        if canon == "LDREX":
            lrx = ir.Load(rt.reg, addr, 4, frozenset({"X"}), reserve=RESERVE)
            return Instruction(text, m, lrx)
        return cells.load(text, m, rt.reg, addr)
    if canon == "STREX":
        cells.arity(m, ops, 3, "rd,rt,[rn]", end)
        rd, rt, mem = ops
        _kind(rd, "reg", "a register", m)
        _kind(rt, "reg", "a register", m)
        _kind(mem, "mem", "an address [rn]", m)
        if mem.text:
            raise CellError(mem.pos, f"'{m}' takes an address [rn] without offset")
        text = f"STREX {rd.reg},{rt.reg},[{mem.reg}]"
        sc = ir.StoreCond(rd.reg, Reg(rt.reg), (Reg(mem.reg),), RESERVE, 4, frozenset({"X"}))
        return Instruction(text, m, sc)
    if canon == "MOV":
        cells.arity(m, ops, 2, "rd,rs|#k", end)
        rd, src = ops
        _kind(rd, "reg", "a register", m)
        _kind(src, "reg|num", "a register or an immediate", m)
        if src.kind == "num":
            return cells.op(f"MOV {rd.reg},#{src.value}", m, rd.reg, "mov", (Imm(src.value),))
        return cells.op(f"MOV {rd.reg},{src.reg}", m, rd.reg, "mov", (Reg(src.reg),))
    if canon in ("MOVW", "MOVT"):  # herd writes k (MOVW), k << 16 (MOVT): ARMSem.ml
        cells.arity(m, ops, 2, "rd,#k", end)
        rd, src = ops
        _kind(rd, "reg", "a register", m)
        _kind(src, "num", "an immediate", m)
        if not 0 <= src.value <= 0xFFFF:
            raise CellError(src.pos, f"the immediate of '{m}' is 16 bits (0..65535)")
        k = src.value << (16 if canon == "MOVT" else 0)
        # herd's texts: "MOVT R0, #1", and "MOVWR0, #1" (no space after MOVW)
        text = f"{'MOVT ' if canon == 'MOVT' else 'MOVW'}{rd.reg}, #{src.value}"
        return cells.op(text, m, rd.reg, "mov.w", (Imm(k),))  # a 32-bit word, signed
    base = canon[:-1] if canon.endswith("S") and canon[:-1] in _ARITH else canon
    if base == "XOR":
        base = "EOR"
    if base in _ARITH:
        setflags = base != canon and canon != "XOR"
        cells.arity(m, ops, 3, "rd,rn,rm|#k", end)
        rd, rn, src = ops
        _kind(rd, "reg", "a register", m)
        _kind(rn, "reg", "a register", m)
        _kind(src, "reg|num" if base != "EOR" else "reg", "a register or an immediate", m)
        if base in ("AND", "ORR") and src.kind == "reg":
            raise CellError(src.pos, f"'{m}' takes an immediate as its last operand")
        word = base + ("S" if setflags else "")
        shown = f"#{src.value}" if src.kind == "num" else src.reg
        arg: IrOperand = Imm(src.value) if src.kind == "num" else Reg(src.reg)
        text = f"{word} {rd.reg},{rn.reg},{shown}"
        if not setflags:
            return cells.op(text, m, rd.reg, _ARITH[base], (Reg(rn.reg), arg))
        return Instruction(text, m, ir.Op(rd.reg, _ARITH[base], (Reg(rn.reg), arg), True))
    if canon == "CMP":
        cells.arity(m, ops, 2, "rn,rm|#k", end)
        a, b = ops
        _kind(a, "reg", "a register", m)
        _kind(b, "reg|num", "a register or an immediate", m)
        shown = f"#{b.value}" if b.kind == "num" else b.reg
        arg = Imm(b.value) if b.kind == "num" else Reg(b.reg)
        return cells.op(f"CMP {a.reg},{shown}", m, FLAGS, "cmp", (Reg(a.reg), arg))
    if canon in ("B", "BEQ", "BNE"):
        cells.arity(m, ops, 1, "label", end)
        _kind(ops[0], "name", "a label", m)
        target = ops[0].text
        cond = {"B": None, "BEQ": "eq", "BNE": "ne"}[canon]
        return cells.branch(f"{canon} {target}", m, target, cond, FLAGS)
    if canon in ("CBZ", "CBNZ"):
        cells.arity(m, ops, 2, "rn,label", end)
        r, lbl = ops
        _kind(r, "reg", "a register", m)
        _kind(lbl, "name", "a label", m)
        cond = "eq" if canon == "CBZ" else "ne"
        return cells.branch(f"{canon} {r.reg},{lbl.text}", m, lbl.text, cond, r.reg)
    if canon in ("DMB", "DSB"):
        if len(ops) > 1:
            raise CellError(ops[1].pos, f"too many operands for '{m}' (syntax: {m} [option])")
        opt = "SY"
        if ops:
            o = ops[0]
            opt = o.text.upper()
            if o.kind != "name" or opt not in OPTIONS or o.text not in (opt, opt.lower()):
                raise CellError(
                    o.pos, f"unknown barrier option '{o.text}' (one of {', '.join(OPTIONS)})"
                )
        text = canon if opt == "SY" else f"{canon} {opt}"
        kind = canon if opt == "SY" else f"{canon}.{opt}"
        return cells.fence(text, m, kind)
    if canon == "ISB":
        cells.arity(m, ops, 0, "", end)
        return cells.fence("ISB", m, "ISB")
    cells.arity(m, ops, 0, "", end)
    return cells.nop("NOP", m)


def _mnemonic(text: str) -> str | None:
    """The canonical (upper-case) mnemonic of ``text`` if herd's lexer accepts it."""
    return cells.cased(text, _KNOWN, True)


def parse_cell(text: str) -> tuple[CodeItem, ...]:
    """The IR of one non-empty, stripped ARM program cell (labels first)."""
    return cells.assemble(text, _TOKEN, _instruction)


def _instruction(text: str, toks: list[Token], i: int) -> Instruction:
    """The instruction of the cell ``text`` from token ``i`` (its mnemonic) to the end."""
    canon, m, pos = cells.mnemonic_at(toks, i, _mnemonic, "ARM")
    if canon in _UNMODELLED and canon != "BX":  # before its operands (forms not read here)
        raise CellError(pos, f"unsupported ARM instruction '{m}' ({_UNMODELLED[canon]})")
    ops = cells.operands(toks, i + 1, m, _operand)
    return cells.lower_at(pos, _lower, m, canon, ops, len(text))


# ----------------------------------------------------------------------------- texts


#: herd's text of an instruction for the hash (labels renamed)
hash_text = cells.branch_hash_text


def source_text(ins: Instruction) -> str:
    """Text that parses back to ``ins``: its canonical text with the mnemonic as written."""
    text = ins.text
    if ins.mnemonic.upper() == "ANDEQ" and text == "NOP":  # ANDEQ Rx,Rx,Rx, herd's no-op
        return f"{ins.mnemonic} R0,R0,R0"
    for glued in ("MOVWEQ", "MOVT EQ", "MOVW"):  # herd's texts with no space after them
        if text.startswith(glued) and not text.startswith(glued + " "):
            return f"{ins.mnemonic} {text[len(glued) :]}"
    _, _, rest = text.partition(" ")
    return f"{ins.mnemonic} {rest}".rstrip()


__all__ = ["FLAGS", "OPTIONS", "RESERVE", "parse_cell", "hash_text", "source_text"]
