"""herd's primitives of the Linux kernel's C (``herd/CSem.ml``), as IR operations.

A macro file (:mod:`litmus.c.macros`) maps the kernel's names onto these primitives; once
expanded, a call ``__load("ONCE", *x)`` is lowered here.  The events are herd's: an
access carries the annotations the macro gives it (``ONCE``, ``RELEASE``, ``MB``...), a
read-modify-write is a read and a write of one instruction, both atomic (herd's sets
``X`` and ``RMW``), a fence is an ``F`` event with its annotations, and the lock and SRCU
primitives make events that are no memory access (:class:`~litmus.base.ir.Effect`:
``LKR``/``LKW`` for a lock taken, ``UL``, ``LF`` for a failed ``spin_trylock``,
``RL``/``RU`` for ``spin_is_locked``), whose reads the model decides.  Where herd's
semantics choose (a trylock that takes the lock or fails, an ``atomic_add_unless`` that
adds or not) the code offers both ways (:class:`~litmus.base.ir.Choose`), each
constrained by the value it reads (an ``assume`` that is no branch: no control
dependency).

Two versions of the model give some primitives different events (herd's variant
``lkmmv2``, which ``linux-kernel.cfg`` sets): without it (``lkmmv1``), a fully ordered
read-modify-write (annotation ``mb``) is fenced by two ``F[mb]`` events and its accesses
are ``once``, and ``__atomic_op``'s read is ``noreturn``; with it, every access carries
the macro's annotations and no fence is added.
"""

from __future__ import annotations

from typing import Protocol

from pycparser import c_ast

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assume,
    Branch,
    Choose,
    Effect,
    Fence,
    Imm,
    Instr,
    Label,
    Load,
    Op,
    Operand,
    Reg,
    Store,
)
from herdsman.litmus.c.context import Context
from herdsman.litmus.c.ctype import INT, VOID, CType
from herdsman.litmus.c.macros import PRIMITIVES
from herdsman.litmus.c.values import Val

__all__ = ["PRIMITIVES", "KernelLowerer", "lower_primitive"]

#: The sets herd puts the accesses of a read-modify-write in (atomic accesses).
_ATOMIC = frozenset({"X", "RMW"})
#: herd's operators of ``__atomic_op`` and friends -> the IR's function (``&~``: see below).
_OPS = {"+": "add", "-": "sub", "&": "and", "|": "or", "^": "xor", "&~": "and"}
_ONCE = frozenset({"once"})
_MB = frozenset({"mb"})


class KernelLowerer(Protocol):
    """What lowering a primitive needs from the thread's lowerer (``litmus.c.lower_*``)."""

    ctx: Context

    def emit(self, *ops: Instr) -> None: ...
    def temp(self) -> str: ...
    def new_label(self) -> str: ...
    def error(self, node: c_ast.Node | None, message: str) -> InputError: ...
    def expr(self, node: c_ast.Node, dst: str | None = None, used: bool = True) -> Val: ...
    def reg_of(self, v: Val) -> Operand: ...
    def pointee_arg(self, node: c_ast.Node) -> tuple[tuple[Operand, ...], CType]: ...


def lower_primitive(
    lw: KernelLowerer,
    node: c_ast.FuncCall,
    name: str,
    args: list,
    dst: str | None,
    used: bool = True,
) -> Val:
    """The operations of the call ``node`` of herd's primitive ``name`` (its value;
    ``used``: the value is wanted)."""
    return _Primitive(lw, node, name, args, dst, used).lower()


class _Primitive:
    """One call of a primitive being lowered."""

    def __init__(
        self,
        lw: KernelLowerer,
        node: c_ast.FuncCall,
        name: str,
        args: list,
        dst: str | None,
        used: bool,
    ) -> None:
        self.lw = lw
        self.node = node
        self.name = name
        self.dst = dst
        self.used = used or dst is not None
        self.v2 = lw.ctx.kernel_v2
        self.annots: frozenset[str] = frozenset()
        if name in PRIMITIVES - {"__lock", "__unlock", "__trylock", "__islocked"}:
            first = args[0] if args else None
            if not (isinstance(first, c_ast.Constant) and first.type == "string"):
                raise lw.error(node, f"{name} needs its annotations ({name}{{...}})")
            text = first.value.strip('"')
            self.annots = frozenset(a for a in text.split(",") if a)
            args = args[1:]
        self.args = args

    def error(self, message: str) -> InputError:
        return self.lw.error(self.node, message)

    def arity(self, *counts: int) -> None:
        if len(self.args) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise self.error(f"{self.name} takes {want} arguments, not {len(self.args)}")

    def result(self) -> str:
        return self.dst or self.lw.temp()

    # ------------------------------------------------------------------ operands
    def pointer(self, node: c_ast.Node) -> tuple[tuple[Operand, ...], CType]:
        """The location a pointer argument points to, and its type."""
        return self.lw.pointee_arg(node)

    def location(self, node: c_ast.Node) -> tuple[tuple[Operand, ...], CType]:
        """The location of ``__load``'s and ``__store``'s argument, which must be ``*E``
        (herd: "Bad __load argument")."""
        if not (isinstance(node, c_ast.UnaryOp) and node.op == "*"):
            raise self.lw.error(
                node, f"bad {self.name} argument: expected a location *E (as READ_ONCE(*x))"
            )
        return self.pointer(node.expr)

    def value(self, node: c_ast.Node) -> Operand:
        return self.lw.reg_of(self.lw.expr(node))

    def operator(self, node: c_ast.Node) -> str:
        if not (isinstance(node, c_ast.Constant) and node.type == "string"):
            raise self.lw.error(node, f"{self.name}: expected an operator (+ - & | ^ &~)")
        op = node.value.strip('"')
        if op not in _OPS:
            raise self.lw.error(node, f"{self.name}: '{op}' is not one of + - & | ^ &~")
        return op

    def operand_for(self, op: str, v: Operand) -> Operand:
        """The IR operand of ``x OP v``: ``x &~ v`` is ``x & ~v`` (``nor(v, v)`` is ``~v``)."""
        if op != "&~":
            return v
        t = self.lw.temp()
        self.lw.emit(Op(t, "nor", (v, v)))
        return Reg(t)

    # ------------------------------------------------------------------ the primitives
    def lower(self) -> Val:
        n = self.name
        if n == "__load":
            return self.load()
        if n == "__store":
            return self.store()
        if n == "__fence":
            self.arity(0)
            self.lw.emit(self.fence(self.annots))
            return Val(Imm(0), VOID)
        if n == "__xchg":
            return self.xchg()
        if n == "__cmpxchg":
            return self.cmpxchg()
        if n in ("__atomic_op", "__atomic_op_return", "__atomic_fetch_op"):
            return self.atomic_op()
        if n == "__atomic_add_unless":
            return self.add_unless()
        if n == "__srcu":
            return self.srcu()
        return self.lock()

    @staticmethod
    def fence(annots: frozenset[str]) -> Fence:
        return Fence("F." + ".".join(sorted(annots)))

    def load(self) -> Val:
        self.arity(1)
        addr, t = self.location(self.args[0])
        d = self.result()
        if self.annots in (frozenset({"deref"}), frozenset({"lderef"})):  # old rcu_dereference
            self.lw.emit(Load(d, addr, annots=_ONCE), self.fence(frozenset({"rb_dep"})))
        else:
            self.lw.emit(Load(d, addr, annots=self.annots))
        return Val(Reg(d), CType(t.kind, False, t.target) if t.scalar else INT)

    def store(self) -> Val:
        self.arity(2)
        addr, _ = self.location(self.args[0])
        v = self.value(self.args[1])
        self.lw.emit(Store(v, addr, annots=self.annots))
        return Val(Imm(0), VOID)

    def rmw_annots(self, mb_fenced: bool = True) -> tuple[frozenset[str], frozenset[str], bool]:
        """The read's and the write's annotations, and whether ``F[mb]`` fences surround
        the accesses (``lkmmv1``'s fully ordered read-modify-writes)."""
        a = self.annots
        if self.v2:
            return a, a, False
        if a == _MB and mb_fenced:
            return _ONCE, _ONCE, True
        return (a if a == {"acquire"} else _ONCE), (a if a == {"release"} else _ONCE), False

    def xchg(self) -> Val:
        self.arity(2)
        addr, t = self.pointer(self.args[0])
        v = self.value(self.args[1])
        ra, wa, fenced = self.rmw_annots()
        d = self.result()
        op = RMW(d, addr, "second", v, annots=ra | _ATOMIC, write_annots=wa | _ATOMIC)
        self.lw.emit(*self.fenced([op], fenced))
        return Val(Reg(d), CType(t.kind, False, t.target) if t.scalar else INT)

    def fenced(self, ops: list[Instr], fenced: bool) -> list[Instr]:
        if not fenced:
            return ops
        f = self.fence(self.annots)
        return [f, *ops, f]

    def cmpxchg(self) -> Val:
        """herd: either the read sees the expected value and the write follows, or it
        sees another and there is no write."""
        self.arity(3)
        addr, t = self.pointer(self.args[0])
        old = self.value(self.args[1])
        new = self.value(self.args[2])
        d = self.result()
        ty = CType(t.kind, False, t.target) if t.scalar else INT
        ra, wa, fenced = self.rmw_annots()
        fail_annots = self.annots if self.v2 else _ONCE
        if not fenced and ra == fail_annots:  # the same read either way
            self.lw.emit(CAS(d, addr, old, new, annots=ra | _ATOMIC, write_annots=wa | _ATOMIC))
            return Val(Reg(d), ty)
        cas = CAS(d, addr, old, new, annots=ra | _ATOMIC, write_annots=wa | _ATOMIC)
        ok, no, end = self.lw.new_label(), self.lw.new_label(), self.lw.new_label()
        t1, t2 = self.lw.temp(), self.lw.temp()
        self.lw.emit(Choose((ok, no)), Label(ok))
        self.lw.emit(*self.fenced([cas, Op(t1, "eq", (Reg(d), old))], fenced))
        self.lw.emit(Assume(t1, commit=False), Branch(end), Label(no))
        self.lw.emit(Load(d, addr, annots=fail_annots | _ATOMIC), Op(t2, "ne", (Reg(d), old)))
        self.lw.emit(Assume(t2, commit=False), Label(end))
        return Val(Reg(d), ty)

    def atomic_op(self) -> Val:
        self.arity(3)
        addr, t = self.pointer(self.args[0])
        op = self.operator(self.args[1])
        v = self.operand_for(op, self.value(self.args[2]))
        if self.name == "__atomic_op":  # no value: herd's lkmmv1 reads it 'noreturn'
            ra, wa = (self.annots, self.annots) if self.v2 else (frozenset({"noreturn"}), _ONCE)
            self.lw.emit(
                RMW(None, addr, _OPS[op], v, annots=ra | _ATOMIC, write_annots=wa | _ATOMIC)
            )
            return Val(Imm(0), VOID)
        ra, wa, fenced = self.rmw_annots()
        old = self.lw.temp()
        rmw = RMW(old, addr, _OPS[op], v, annots=ra | _ATOMIC, write_annots=wa | _ATOMIC)
        self.lw.emit(*self.fenced([rmw], fenced))
        ty = CType(t.kind, False, t.target) if t.scalar else INT
        if self.name == "__atomic_fetch_op":
            return Val(Reg(old), ty)
        d = self.result()
        self.lw.emit(Op(d, _OPS[op], (Reg(old), v)))
        return Val(Reg(d), ty)

    def add_unless(self) -> Val:
        """``atomic_add_unless(x, a, u)``: herd's two ways, adding (the value read is not
        ``u``; 1) or not (it is; 0); the result is a constant, not the value read."""
        self.arity(3)
        addr, _ = self.pointer(self.args[0])
        a = self.value(self.args[1])
        u = self.value(self.args[2])
        annots = self.annots if self.v2 else _ONCE
        fenced = not self.v2
        d = self.result()
        old = self.lw.temp()
        t1, t2 = self.lw.temp(), self.lw.temp()
        ok, no, end = self.lw.new_label(), self.lw.new_label(), self.lw.new_label()
        rmw = RMW(old, addr, "add", a, annots=annots | _ATOMIC)
        self.lw.emit(Choose((ok, no)), Label(ok))
        mb = [Fence("F.mb")] if fenced else []
        self.lw.emit(*mb, rmw, Op(t1, "ne", (Reg(old), u)), Assume(t1, commit=False), *mb)
        self.lw.emit(Op(d, "mov", (Imm(1),)), Branch(end), Label(no))
        self.lw.emit(Load(old, addr, annots=annots | _ATOMIC), Op(t2, "eq", (Reg(old), u)))
        self.lw.emit(Assume(t2, commit=False), Op(d, "mov", (Imm(0),)), Label(end))
        return Val(Reg(d), INT)

    def srcu(self) -> Val:
        if len(self.args) != 1 or self.used:
            raise self.error(
                f"unsupported: {self.name} with a value (an older macro file's "
                "srcu_read_lock/srcu_read_unlock); use a macro file mapping them to "
                "__load/__store"
            )
        addr, _ = self.pointer(self.args[0])
        self.lw.emit(Effect("SRCU", addr, self.annots))
        return Val(Imm(0), VOID)

    def lock(self) -> Val:
        """``__lock`` (LKR then LKW), ``__unlock`` (UL), ``__trylock`` (the lock taken,
        1, or LF, 0), ``__islocked`` (RL, 1, or RU, 0)."""
        self.arity(1)
        addr, _ = self.pointer(self.args[0])
        taken: list[Instr] = [
            Effect("LKR", addr, frozenset({"LK", "LKR"})),
            Effect("LKW", addr, frozenset({"LK", "LKW"})),
        ]
        if self.name == "__lock":
            self.lw.emit(*taken)
            return Val(Imm(0), VOID)
        if self.name == "__unlock":
            self.lw.emit(Effect("UL", addr, frozenset({"UL"})))
            return Val(Imm(0), VOID)
        if self.name == "__trylock":
            yes: list[Instr] = taken
            other = Effect("LF", addr, frozenset({"LF"}))
        else:
            yes = [Effect("RL", addr, frozenset({"RL"}))]
            other = Effect("RU", addr, frozenset({"RU"}))
        d = self.result()
        one, zero, end = self.lw.new_label(), self.lw.new_label(), self.lw.new_label()
        self.lw.emit(Choose((one, zero)), Label(one), *yes, Op(d, "mov", (Imm(1),)))
        self.lw.emit(Branch(end), Label(zero), other, Op(d, "mov", (Imm(0),)), Label(end))
        return Val(Reg(d), INT)
