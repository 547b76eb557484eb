"""What a thread's step does with addresses and registers: an address from its operands,
the location it names, a register set, the state after an operation.  Shared by the
step function (:mod:`engine.semantics.step`) and its instructions with several events
(:mod:`engine.semantics.regevents`, :mod:`engine.semantics.storecond`).
"""

from __future__ import annotations

from herdsman.engine.semantics.arith import AnyValue, EvalError, Expr, apply_op
from herdsman.engine.semantics.state import ThreadState
from herdsman.litmus.base.ir import Load, Sym, Value
from herdsman.litmus.base.numbers import convert_code

_new = tuple.__new__


def address(regs: tuple, taint: tuple, cops: tuple[tuple[int, Value], ...]) -> tuple:
    """(the address ``sum`` of the compiled operands ``cops`` (a register's immediate:
    its shift), its taint): a :class:`Sym`, a symbolic value, or None when it is no
    location."""
    base: AnyValue | None = None
    off = 0
    t = 0
    sym: list[AnyValue] = []
    v: AnyValue
    for slot, imm in cops:
        if slot < 0:
            v = imm
        else:
            v = regs[slot]
            if v is None:
                continue
            t |= taint[slot]
            if imm:  # a scaled index register (ir.Reg.shift)
                if type(v) is Sym:
                    return None, t
                v = apply_op("shl", [v, imm])
        tv = type(v)
        if tv is int:
            off += v  # type: ignore[operator]
        elif tv is Sym:
            if base is not None:
                return None, t
            base = v
        else:
            sym.append(v)
    if sym:
        expr: AnyValue = sym[0]
        for x in sym[1:]:
            expr = Expr("add", (expr, x))
        if base is not None:
            expr = Expr("add", (expr, base))
        return (Expr("add", (expr, off)) if off else expr), t
    if base is None:
        return None, t
    assert isinstance(base, Sym)
    return (Sym(base.name, base.offset + off) if off else base), t


LOC_NAMES: dict[Sym, str] = {}


def loc_name(a: Sym) -> str:
    """The location an address denotes (``x``, ``x+4``), memoised."""
    if not a.offset:  # the usual address: its global's name (no hash of the Sym)
        return a.name
    got = LOC_NAMES.get(a)
    if got is None:
        if len(LOC_NAMES) > 4096:
            LOC_NAMES.clear()
        got = LOC_NAMES[a] = str(a)
    return got


def sized(size: int, v: AnyValue) -> AnyValue:
    """The value a byte or half-word access (``size`` 1 or 2) moves: ``v``'s low bits, as
    herd's ``LDRB``/``STRH``...; wider accesses move ``v`` as it is."""
    if size >= 4:
        return v
    return apply_op("and", [v, (1 << (8 * size)) - 1])


def widened(code: int, v: AnyValue) -> AnyValue:
    """The value a load of part of a register's width moves into it (``Load.widen``):
    ``v``'s low ``|code|`` bits, sign-extended when ``code`` is negative.  An address
    cannot be cut (herd: "Illegal operation mask32")."""
    if isinstance(v, Sym):
        bits = abs(code)
        raise EvalError(
            f"a {bits}-bit load of the address of {v} (herd: illegal operation mask{bits})"
        )
    return apply_op("conv", [v, code])


def loaded(ins: Load, v: AnyValue) -> AnyValue:
    """The value a load ``ins`` that read ``v`` puts in its register: the bytes it read
    (sign-extended with ``Load.sign``), widened as ``Load.widen`` says."""
    if type(v) is int:  # the usual value: what sized and widened compute, at once
        w = ins.widen
        if 0 <= v < 128 and (w == 0 or w >= 8 or w <= -8):
            return v  # in every word of 8 bits or more, signed or not
        if ins.sign:
            v = convert_code(v, -8 * ins.size)
        elif not ins.widen:
            return v if ins.size >= 4 else v & ((1 << (8 * ins.size)) - 1)
        return convert_code(v, ins.widen) if ins.widen else v
    if ins.sign:
        v = widened(-8 * ins.size, v)
    elif not ins.widen:
        return sized(ins.size, v)
    return widened(ins.widen, v) if ins.widen else v


def state_at(st: ThreadState, pc: int, regs: tuple, taint: tuple, n: int, poi: int) -> ThreadState:
    """``st`` with these fields replaced (the hot path: no keyword ``_replace``)."""
    return _new(
        ThreadState, (pc, regs, taint, st.ctrl, n, poi, st.loops, st.pending, st.cut, st.freed)
    )


def set_reg(regs: tuple, taint: tuple, slot: int, v: AnyValue, t: int) -> tuple[tuple, tuple]:
    """The registers and taints with register ``slot`` set to ``v`` tainted by ``t``."""
    r = list(regs)
    r[slot] = v
    if taint[slot] == t:
        return tuple(r), taint
    k = list(taint)
    k[slot] = t
    return tuple(r), tuple(k)


__all__ = ["address", "loaded", "loc_name", "set_reg", "sized", "state_at", "widened"]
