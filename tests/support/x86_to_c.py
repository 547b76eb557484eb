"""X86 litmus tests to C litmus tests of the same shape (herd's C litmus format).

    python tests/support/x86_to_c.py SRC.litmus... -o OUTDIR

Each X86 test (read by herdsman's parser) becomes ``OUTDIR/<stem>.litmus``: one function
``P<i>(int *x, ...)`` per thread, taking the globals the thread uses, with the thread's
instructions written as C from their IR operations:

| X86 | C |
|---|---|
| ``MOV [x],$1`` / ``MOV [x],EAX`` | ``WRITE_ONCE(*x, 1);`` / ``WRITE_ONCE(*x, r0);`` |
| ``MOV EAX,[x]`` | ``r0 = READ_ONCE(*x);`` |
| ``MOV EAX,$1`` / ``MOV EAX,EBX`` | ``r0 = 1;`` / ``r0 = r1;`` |
| ``ADD EAX,$1`` (``SUB XOR OR AND INC DEC``) | ``r0 = r0 + 1;`` |
| ``MFENCE`` / ``SFENCE`` / ``LFENCE`` | ``smp_mb();`` / ``smp_wmb();`` / ``smp_rmb();`` |
| ``XCHG [x],EAX`` | ``r0 = xchg(x, r0);`` |
| ``LOCK; ADD [x],$1`` (``SUB AND OR XOR INC DEC``) | ``atomic_fetch_add_explicit(x, 1, mo);`` |
| ``CMP EAX,$1`` ``JNE L`` ... ``L:`` (forward) | ``if (r0 == 1) { ... }`` |

X86 registers are renamed by their place in herd's register list (``EAX`` -> ``r0``,
``EBX`` -> ``r1``, ``ECX`` -> ``r2``, ...), the same in every thread, and declared
``int rN;`` in each thread that uses them (``int rN = v;`` for an init value or a read
before any write; ``int *rN = x;`` for the address of ``x``; ``int *rN;`` for a register
used as an address).  The init's memory items are kept; the condition (with
``locations``/``filter``) is kept as written, register atoms renamed (``0:EAX=1`` ->
``0:r0=1``).  Under the ``tso`` mapping of C (``WRITE_ONCE``/``READ_ONCE`` plain,
``smp_mb`` MFENCE, ``xchg``/atomic RMWs locked RMWs, ``smp_wmb``/``smp_rmb`` nothing, as
``SFENCE``/``LFENCE`` are nothing to x86-TSO) the C test has the same final states as the
X86 one under ``tso`` and ``sc`` (``tests/test_c_litmus_x86.py`` checks all 475 shared
tests).

What has no C equivalent is refused with an error naming it: symbolic registers,
accesses of size other than 4 bytes, memory initialised with an address, backward jumps
(loops), jumps that do not nest as ``if`` blocks, a conditional jump whose flags are not
known from straight-line code before it.

(``mo`` above is ``memory_order_seq_cst``: a LOCK'd instruction is fully ordered.)
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from herdsman.litmus.base.arch import X86_REGS
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    RMW,
    Branch,
    Fence,
    Imm,
    Label,
    Load,
    MemLoc,
    Nop,
    Op,
    Operand,
    Reg,
    RegLoc,
    Store,
    Sym,
    prop_locations,
)
from herdsman.litmus.base.source import Source, read_source
from herdsman.litmus.parser import parse_source
from herdsman.litmus.splitter import split
from herdsman.litmus.test import CodeItem, Instruction, LitmusTest

FLAGS = "cr0"  # herdsman's X86 flags register (litmus/x86.py)
_ARITH = {"add": "+", "sub": "-", "xor": "^", "or": "|", "and": "&"}
_FENCES = {"MFENCE": "smp_mb();", "SFENCE": "smp_wmb();", "LFENCE": "smp_rmb();"}
_COND_REG = re.compile(r"(?<![\w.$/\-])(P?)(\d+)(\s*):(\s*)(%?[A-Za-z_][A-Za-z0-9_]*)")


def c_register(x86: str) -> str:
    """The C name of X86 register ``x86`` (``EAX`` -> ``r0``)."""
    return f"r{X86_REGS.index(x86)}"


def x86_register(c: str) -> str:
    """The X86 register a C name stands for (``r0`` -> ``EAX``)."""
    return X86_REGS[int(c[1:])]


class Refused(Exception):
    """The test has something with no C equivalent (``message`` says what)."""


@dataclass
class _Thread:
    """What one thread's C function needs besides its statements."""

    tid: int
    globals: set[str] = field(default_factory=set)
    pointers: set[str] = field(default_factory=set)  # X86 registers used as addresses
    read_first: set[str] = field(default_factory=set)  # X86 registers read before written
    written: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _Flags:
    """What the flags hold: ``left`` compared with ``right``, reading ``regs``."""

    left: str
    right: str
    regs: frozenset[str]


# ----------------------------------------------------------------------------- operands


def _reg(name: str) -> str:
    if name.startswith("%"):
        raise Refused(f"symbolic register '{name}' has no C litmus equivalent")
    if name not in X86_REGS:
        raise Refused(f"register '{name}' has no C litmus equivalent")
    return c_register(name)


def _value(v: Operand, th: _Thread) -> str:
    if isinstance(v, Reg):
        if v.name not in th.written:
            th.read_first.add(v.name)
        return _reg(v.name)
    if isinstance(v.value, Sym):
        raise Refused(f"the address {v.value} as a value has no C litmus equivalent here")
    return str(v.value)


def _pointer(addr: tuple[Operand, ...], th: _Thread) -> str:
    """The C pointer expression of an X86 memory operand (``x`` or ``rN``)."""
    if len(addr) != 1:
        raise Refused("indexed addressing has no C litmus equivalent here")
    a = addr[0]
    if isinstance(a, Imm):
        if not isinstance(a.value, Sym) or a.value.offset:
            raise Refused(f"memory operand [{a.value}] has no C litmus equivalent")
        th.globals.add(a.value.name)
        return a.value.name
    th.pointers.add(a.name)
    if a.name not in th.written:
        th.read_first.add(a.name)
    return _reg(a.name)


def _size(size: int, what: str) -> None:
    if size != 4:
        raise Refused(f"a {size}-byte {what} has no C litmus equivalent (C tests use int)")


# ----------------------------------------------------------------------------- statements


def _statement(ins: Instruction, th: _Thread) -> str | None:
    """The C statement of one straight-line instruction (None: nothing to write)."""
    op = ins.op
    if isinstance(op, Nop):
        return None
    if isinstance(op, Fence):
        if op.kind not in _FENCES:
            raise Refused(f"fence '{op.kind}' has no C litmus equivalent")
        return _FENCES[op.kind]
    if isinstance(op, Load):
        _size(op.size, "load")
        ptr = _pointer(op.addr, th)
        th.written.add(op.dst)
        return f"{_reg(op.dst)} = READ_ONCE(*{ptr});"
    if isinstance(op, Store):
        _size(op.size, "store")
        ptr = _pointer(op.addr, th)
        return f"WRITE_ONCE(*{ptr}, {_value(op.src, th)});"
    if isinstance(op, RMW):
        _size(op.size, "read-modify-write")
        ptr = _pointer(op.addr, th)
        src = _value(op.src, th)
        if op.fn == "second" and op.dst is not None:
            th.written.add(op.dst)
            return f"{_reg(op.dst)} = xchg({ptr}, {src});"
        if op.fn in _ARITH and op.dst is None:
            return f"atomic_fetch_{op.fn}_explicit({ptr}, {src}, memory_order_seq_cst);"
        raise Refused(f"'{ins.text}' has no C litmus equivalent")
    if isinstance(op, Op) and op.dst != FLAGS:
        if op.fn == "mov":
            text = f"{_reg(op.dst)} = {_value(op.args[0], th)};"
        elif op.fn in _ARITH and len(op.args) == 2:
            a, b = (_value(x, th) for x in op.args)
            sign = _ARITH[op.fn]
            if sign in "+-" and b.startswith("-"):  # r1 + -3 is written r1 - 3
                sign, b = "+-"[sign == "+"], b[1:]
            text = f"{_reg(op.dst)} = {a} {sign} {b};"
        else:
            raise Refused(f"'{ins.text}' has no C litmus equivalent")
        th.written.add(op.dst)
        return text
    if isinstance(op, Op):  # CMP: only the flags, used by the branch that follows
        for a in op.args:
            _value(a, th)
        return None
    raise Refused(f"'{ins.text}' has no C litmus equivalent")


def _flags_at(items: Sequence[CodeItem], i: int) -> _Flags:
    """What the flags hold at the branch ``items[i]``, from the straight-line code before
    it (a label in between means another path may reach the branch)."""
    clobbered: set[str] = set()
    for j in range(i - 1, -1, -1):
        it = items[j]
        if isinstance(it, Label):
            break
        op = it.op
        if isinstance(op, Op) and (op.dst == FLAGS or op.sets_cr):
            if op.dst == FLAGS:
                left, right = op.args
                regs = frozenset(a.name for a in op.args if isinstance(a, Reg))
                flags = _Flags(_operand_text(left), _operand_text(right), regs)
            else:
                flags = _Flags(_reg(op.dst), "0", frozenset((op.dst,)))
            if flags.regs & clobbered:
                break
            return flags
        if isinstance(op, Load | Op) or (isinstance(op, RMW) and op.dst):
            clobbered.add(op.dst or "")
    raise Refused(
        f"'{items[i].text}': the flags it tests are not set by straight-line code before it"
    )


def _operand_text(v: Operand) -> str:
    if isinstance(v, Reg):
        return _reg(v.name)
    return str(v.value)


def _block(
    items: Sequence[CodeItem], lo: int, hi: int, where: dict[str, int], th: _Thread, ind: str
) -> list[str]:
    """C lines of ``items[lo:hi]``; forward jumps become ``if`` blocks."""
    out: list[str] = []
    i = lo
    while i < hi:
        it = items[i]
        if isinstance(it, Label):
            i += 1
            continue
        if not isinstance(it.op, Branch):
            s = _statement(it, th)
            if s is not None:
                out.append(ind + s)
            i += 1
            continue
        br = it.op
        t = where.get(br.target)
        if t is None:
            raise Refused(f"'{it.text}': label {br.target} is not in this thread")
        if t <= i:
            raise Refused(f"'{it.text}': a backward jump (a loop) has no C litmus equivalent here")
        if t > hi:
            raise Refused(f"'{it.text}': jumps that do not nest as if blocks are not supported")
        _check_nesting(items, i, t, where)
        if br.cond is None:  # JMP: what it skips is never run
            i = t
            continue
        f = _flags_at(items, i)
        neg = {"eq": "!=", "ne": "=="}.get(br.cond)
        if neg is None:
            raise Refused(f"'{it.text}' has no C litmus equivalent")
        out.append(f"{ind}if ({f.left} {neg} {f.right}) {{")
        out.extend(_block(items, i + 1, t, where, th, ind + "\t"))
        out.append(ind + "}")
        i = t
    return out


def _check_nesting(items: Sequence[CodeItem], i: int, t: int, where: dict[str, int]) -> None:
    """The jump at ``i`` to ``t`` must not have jumps into the middle of what it skips."""
    inside = {n for n, k in where.items() if i < k < t}
    for j, it in enumerate(items):
        if i < j < t or not isinstance(it, Instruction) or not isinstance(it.op, Branch):
            continue
        if it.op.target in inside:
            raise Refused(f"'{it.text}': jumps that do not nest as if blocks are not supported")


# ----------------------------------------------------------------------------- test


def x86_to_c(test: LitmusTest, condition_text: str) -> str:
    """The C litmus text of the X86 test ``test`` (``condition_text``: its condition part
    as written, from the condition keyword on)."""
    if test.arch != "X86":
        raise Refused(f"not an X86 test (architecture {test.arch})")
    memory: list[str] = []
    reg_init: dict[tuple[int, str], str] = {}
    cond_globals: set[str] = set()
    for it in test.init:
        if isinstance(it.loc, RegLoc):
            _reg(it.loc.reg)
            value = it.text if it.value is not None else "0"
            reg_init[(it.loc.tid, it.loc.reg)] = value
        elif isinstance(it.loc, MemLoc):
            if isinstance(it.value, Sym) or it.pointer:
                raise Refused(f"memory {it.loc.name} initialised with an address")
            typ = f"{it.ctype} " if it.ctype else ""
            memory.append(f"{typ}{it.loc.name} = {it.text if it.value is not None else '0'};")
            cond_globals.add(it.loc.name)
        else:
            raise Refused(f"symbolic register {it.loc} has no C litmus equivalent")
    cond_regs: dict[int, set[str]] = {}
    props = prop_locations(test.condition.prop)
    if test.filter is not None:
        props += prop_locations(test.filter)
    for loc in [*props, *test.locations]:
        if isinstance(loc, RegLoc):
            _reg(loc.reg)
            cond_regs.setdefault(loc.tid, set()).add(loc.reg)
        elif isinstance(loc, MemLoc):
            cond_globals.add(loc.name)
        else:
            raise Refused(f"symbolic register {loc} has no C litmus equivalent")
    for value in reg_init.values():
        if not re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|[0-9]+)", value):
            cond_globals.add(value)  # the address of a global

    threads: list[tuple[_Thread, list[str]]] = []
    for tid, items in enumerate(test.threads):
        th = _Thread(tid)
        for tid_reg in reg_init:
            if tid_reg[0] == tid:
                th.written.add(tid_reg[1])
        where = {it.name: k for k, it in enumerate(items) if isinstance(it, Label)}
        body = _block(items, 0, len(items), where, th, "\t")
        threads.append((th, body))
    used = set().union(*(th.globals for th, _ in threads)) if threads else set()
    if threads:
        threads[0][0].globals |= cond_globals - used

    out = [f"C {test.name}"]
    if test.doc is not None:
        out.append(f'"{test.doc}"')
    out.append(f"(* From the X86 test {test.name} by tests/support/x86_to_c.py *)")
    out.append("{")
    out.extend(memory)
    out.append("}")
    for th, body in threads:
        out.append("")
        out.extend(_function(th, body, reg_init, cond_regs.get(th.tid, set())))
    out.append("")
    out.append(_rename_condition(condition_text.strip()))
    return "\n".join(out) + "\n"


def _function(
    th: _Thread, body: list[str], reg_init: dict[tuple[int, str], str], cond_regs: set[str]
) -> list[str]:
    params = ", ".join(f"int *{g}" for g in sorted(th.globals))
    regs = th.written | th.read_first | th.pointers | cond_regs
    decls = []
    for r in sorted(regs, key=X86_REGS.index):
        name = c_register(r)
        init = reg_init.get((th.tid, r))
        is_sym = init is not None and not re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|[0-9]+)", init)
        star = "*" if is_sym or r in th.pointers else ""
        if init is not None:
            decls.append(f"\tint {star}{name} = {init};")
        elif r in th.read_first or r not in th.written:
            decls.append(f"\tint {star}{name} = 0;")
        else:
            decls.append(f"\tint {star}{name};")
    lines = [f"P{th.tid}({params})", "{"]
    lines.extend(decls)
    if decls and body:
        lines.append("")
    lines.extend(body)
    lines.append("}")
    return lines


def _rename_condition(text: str) -> str:
    """The condition with each ``N:REG`` atom's register renamed to its C name."""

    def sub(m: re.Match[str]) -> str:
        reg = m.group(5)
        if reg.startswith("%") or reg not in X86_REGS:
            raise Refused(f"register '{reg}' in the condition has no C litmus equivalent")
        return f"{m.group(1)}{m.group(2)}{m.group(3)}:{m.group(4)}{c_register(reg)}"

    return _COND_REG.sub(sub, text)


def convert_source(src: Source) -> str:
    """The C litmus text of the X86 test in ``src`` (InputError when it is refused)."""
    test = parse_source(src)
    cond = split(src).cond
    try:
        return x86_to_c(test, src.text[cond[0] : cond[1]])
    except Refused as exc:
        raise InputError(src.path, 0, 0, f"no C equivalent: {exc}") from None


def convert_file(path: str | Path) -> str:
    """The C litmus text of the X86 test file at ``path``."""
    return convert_source(read_source(path))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="+", type=Path, metavar="SRC")
    ap.add_argument("-o", "--outdir", type=Path, required=True)
    args = ap.parse_args(argv)
    args.outdir.mkdir(parents=True, exist_ok=True)
    refused = 0
    for path in args.sources:
        try:
            text = convert_file(path)
        except InputError as exc:
            print(exc.render(), file=sys.stderr)
            refused += 1
            continue
        (args.outdir / f"{path.stem}.litmus").write_text(text)
    done = len(args.sources) - refused
    print(f"{done} C tests written to {args.outdir}, {refused} refused")
    return 2 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
