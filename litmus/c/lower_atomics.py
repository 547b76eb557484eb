"""Lowering atomic operations: C11's ``atomic_*`` (and ``atomic_flag``), GCC's
``__atomic_*`` and ``__sync_*`` builtins, and the Linux kernel's primitives of C litmus
tests (``READ_ONCE``, ``smp_mb``, ``xchg``...).  Each becomes the target's operations
(:mod:`litmus.c.target`) with its C11 memory order."""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import Branch, Imm, Label, Op, Reg
from herdsman.litmus.c.ctype import INT, VOID, CType
from herdsman.litmus.c.lower_intrinsic import IntrinsicBase
from herdsman.litmus.c.target import ORDERS
from herdsman.litmus.c.values import Ref, RegLV, Val

_FETCH = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor"}
_KERNEL_FENCES = {
    "smp_mb": "mb",
    "smp_rmb": "rmb",
    "smp_wmb": "wmb",
    "smp_mb__before_atomic": "mb",
    "smp_mb__after_atomic": "mb",
    "smp_mb__after_spinlock": "mb",
}
_FLAVOURS = {"": "mb", "_relaxed": "once", "_acquire": "acquire", "_release": "release"}
#: the Linux kernel's primitives C programs may call too (lkmm.h)
_KERNEL_NAMES = frozenset(
    {"READ_ONCE", "WRITE_ONCE", "smp_load_acquire", "smp_store_release", *_KERNEL_FENCES}
    | {"xchg" + f for f in _FLAVOURS}
    | {"cmpxchg" + f for f in _FLAVOURS}
)
#: GCC's __ATOMIC_* orders (the same numbers as C11's memory_order)
_GCC_FETCH = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor"}
_GCC_FETCH.update({"max": "max", "min": "min", "umax": "umax", "umin": "umin"})
#: intrinsics that only read memory (allowed in spin loops)
LOAD_INTRINSICS = frozenset(
    {
        "atomic_load",
        "atomic_load_explicit",
        "READ_ONCE",
        "smp_load_acquire",
        "atomic_read",
        "__atomic_load_n",
    }
)


class AtomicsLowerer(IntrinsicBase):
    """Atomic operations (see the module docstring)."""

    def atomics(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        v = self.kernel(node, name, args, dst, used)
        if v is not None:
            return v
        if name.startswith("atomic_") or name == "kill_dependency":
            return self.c11(node, name, args, dst, used)
        if name.startswith(("__atomic_", "__sync_")):
            return self.gcc(node, name, args, dst, used)
        return None

    def order(self, node: c_ast.Node) -> str:
        v = self.const_value(node)
        if not isinstance(v, int) or not 0 <= v < len(ORDERS):
            raise self.error(node, "the memory order must be a constant memory_order_...")
        return ORDERS[v]

    def _typed(self, t: CType) -> CType:
        return t.plain() if t.kind in ("int", "ptr", "lock") else INT

    # ---- C11
    def c11(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        explicit = name.endswith("_explicit")
        base = name.removesuffix("_explicit")
        if base == "kill_dependency":
            self.arity(node, name, args, 1)
            return self.expr(args[0], dst)
        if base in ("atomic_thread_fence", "atomic_signal_fence"):
            self.arity(node, name, args, 1)
            order = self.order(args[0])
            self.emit(*self.map.fence(order))  # a signal fence too, as GenMC runs it
            return Val(Imm(0), VOID)
        if base == "atomic_load":
            self.arity(node, name, args, 2 if explicit else 1)
            order = self.order(args[1]) if explicit else "sc"
            if order in ("rel", "acq_rel"):
                raise self.error(args[1], "invalid memory order for a load")
            return self.load_atomic(args[0], order, dst)
        if base in ("atomic_store", "atomic_init"):
            self.arity(node, name, args, 3 if explicit else 2)
            order = "na" if base == "atomic_init" else self.order(args[2]) if explicit else "sc"
            if order in ("acq", "acq_rel"):
                raise self.error(args[2], "invalid memory order for a store")
            addr, t = self.pointee_arg(args[0])
            v = self.convert(self.expr(args[1]), t)
            self.emit(*self.map.store(self.reg_of(v), addr, order))
            return Val(Imm(0), VOID)
        if base == "atomic_exchange" or base.startswith("atomic_fetch_"):
            fn = "second" if base == "atomic_exchange" else _FETCH.get(base[13:])
            if fn is None:
                return None
            self.arity(node, name, args, 3 if explicit else 2)
            order = self.order(args[2]) if explicit else "sc"
            return self.rmw(args[0], fn, args[1], order, dst, used)
        if base in ("atomic_compare_exchange_strong", "atomic_compare_exchange_weak"):
            self.arity(node, name, args, 5 if explicit else 3)
            order = self.order(args[3]) if explicit else "sc"
            return self.compare_exchange(args[0], args[1], args[2], order, dst)
        if base in ("atomic_flag_test_and_set", "atomic_flag_clear"):
            self.arity(node, name, args, 2 if explicit else 1)
            order = self.order(args[1]) if explicit else "sc"
            addr, _ = self.pointee_arg(args[0])
            if base == "atomic_flag_clear":
                self.emit(*self.map.store(Imm(0), addr, order))
                return Val(Imm(0), VOID)
            d = self.result(dst, used)
            self.emit(*self.map.rmw(d, addr, "second", Imm(1), order))
            return Val(Reg(d) if d else Imm(0), INT)
        raise self.error(node, f"unsupported: {name}")

    def load_atomic(self, ptr: c_ast.Node, order: str, dst: str | None) -> Val:
        addr, t = self.pointee_arg(ptr)
        d = dst or self.temp()
        self.emit(*self.map.load(d, addr, order))
        return Val(Reg(d), self._typed(t))

    def rmw(
        self, ptr: c_ast.Node, fn: str, operand: c_ast.Node, order: str, dst: str | None, used: bool
    ) -> Val:
        """A fetch-and-op (``fn``) or exchange (``second``): the old value."""
        addr, t = self.pointee_arg(ptr)
        v = self.expr(operand)
        src = self.reg_of(v)
        if t.kind == "ptr" and fn in ("add", "sub"):
            src = self.scale(src, self._step(t))
        d = self.result(dst, used)
        self.emit(*self.map.rmw(d, addr, fn, src, order))
        return Val(Reg(d) if d else Imm(0), self._typed(t))

    def compare_exchange(
        self,
        ptr: c_ast.Node,
        expected: c_ast.Node,
        desired: c_ast.Node,
        order: str,
        dst: str | None,
    ) -> Val:
        """C11's compare-exchange: on failure the old value is written to ``*expected``
        (a register variable stays one); the value is whether it succeeded."""
        addr, t = self.pointee_arg(ptr)
        e = self.expr(expected)
        if isinstance(e.op, Ref):  # expected in a register variable
            reg = e.op.reg
            want = self.reg_of(self.convert(self.expr(desired), t))
            old = self.temp()
            self.emit(*self.map.cas(old, addr, Reg(reg), want, order))
            d = dst or self.temp()
            self.emit(Op(d, "eq", (Reg(old), Reg(reg))), Op(reg, "mov", (Reg(old),)))
            return Val(Reg(d), INT)
        eaddr = (self.reg_of(e),)
        cur = self.temp()
        self.emit(*self.map.load(cur, eaddr, "na"))
        want = self.reg_of(self.convert(self.expr(desired), t))
        old = self.temp()
        self.emit(*self.map.cas(old, addr, Reg(cur), want, order))
        d = dst or self.temp()
        end = self.new_label()
        self.emit(Op(d, "eq", (Reg(old), Reg(cur))), Branch(end, "ne", d))
        self.emit(*self.map.store(Reg(old), eaddr, "na"))
        self.emit(Label(end))
        return Val(Reg(d), INT)

    # ---- GCC's builtins
    def gcc(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        if name == "__atomic_load_n":
            self.arity(node, name, args, 2)
            return self.load_atomic(args[0], self.order(args[1]), dst)
        if name == "__atomic_store_n":
            self.arity(node, name, args, 3)
            addr, t = self.pointee_arg(args[0])
            v = self.convert(self.expr(args[1]), t)
            self.emit(*self.map.store(self.reg_of(v), addr, self.order(args[2])))
            return Val(Imm(0), VOID)
        if name == "__atomic_exchange_n":
            self.arity(node, name, args, 3)
            return self.rmw(args[0], "second", args[1], self.order(args[2]), dst, used)
        if name.startswith("__atomic_fetch_") and name[15:] in _GCC_FETCH:
            self.arity(node, name, args, 3)
            return self.rmw(args[0], _GCC_FETCH[name[15:]], args[1], self.order(args[2]), dst, used)
        if name.startswith("__sync_fetch_and_") and name[17:] in _GCC_FETCH:
            self.arity(node, name, args, 2)
            return self.rmw(args[0], _GCC_FETCH[name[17:]], args[1], "sc", dst, used)
        if name == "__atomic_compare_exchange_n":
            self.arity(node, name, args, 6)
            return self.compare_exchange(args[0], args[1], args[2], self.order(args[4]), dst)
        if name in ("__sync_bool_compare_and_swap", "__sync_val_compare_and_swap"):
            self.arity(node, name, args, 3)
            addr, t = self.pointee_arg(args[0])
            exp = self.reg_of(self.convert(self.expr(args[1]), t))
            want = self.reg_of(self.convert(self.expr(args[2]), t))
            old = self.temp()
            self.emit(*self.map.cas(old, addr, exp, want, "sc"))
            if name == "__sync_val_compare_and_swap":
                return Val(Reg(old), self._typed(t))
            return Val(self.value_op("eq", (Reg(old), exp), dst), INT)
        if name in ("__atomic_thread_fence", "__sync_synchronize"):
            self.emit(*self.map.fence(self.order(args[0]) if args else "sc"))
            return Val(Imm(0), VOID)
        raise self.error(node, f"unsupported: {name}")

    # ---- the Linux kernel's primitives (C litmus tests)
    def kernel(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        if not self.ctx.lkmm and name not in _KERNEL_NAMES:
            return None
        if name in _KERNEL_FENCES:
            self.arity(node, name, args, 0)
            self.emit(*self.map.kernel_fence(_KERNEL_FENCES[name]))
            return Val(Imm(0), VOID)
        if name in ("READ_ONCE", "atomic_read", "smp_load_acquire"):
            self.arity(node, name, args, 1)
            order = "acquire" if name == "smp_load_acquire" else "once"
            if name == "READ_ONCE":
                lv = self.lvalue(args[0])
                if isinstance(lv, RegLV):
                    return Val(Reg(lv.reg), lv.ctype)
                addr, t = lv.addr, self.complete(lv.ctype)
            else:
                addr, t = self.pointee_arg(args[0])
            d = dst or self.temp()
            self.emit(*self.map.load(d, addr, order))
            return Val(Reg(d), self._typed(t))
        if name in ("WRITE_ONCE", "atomic_set", "smp_store_release"):
            self.arity(node, name, args, 2)
            order = "release" if name == "smp_store_release" else "once"
            if name == "WRITE_ONCE":
                lv = self.lvalue(args[0])
                if isinstance(lv, RegLV):
                    self.store(lv, self.expr(args[1]), node)
                    return Val(Imm(0), VOID)
                addr = lv.addr
            else:
                addr, _ = self.pointee_arg(args[0])
            v = self.expr(args[1])
            self.emit(*self.map.store(self.reg_of(v), addr, order))
            return Val(Imm(0), VOID)
        for stem, fn in (("xchg", "second"), ("cmpxchg", None)):
            for suffix, order in _FLAVOURS.items():
                if name != stem + suffix:
                    continue
                self.arity(node, name, args, 2 if fn else 3)
                addr, t = self.pointee_arg(args[0])
                d = self.result(dst, used) or self.temp()
                if fn is not None:
                    v = self.expr(args[1])
                    self.emit(*self.map.rmw(d, addr, fn, self.reg_of(v), order))
                else:
                    old = self.reg_of(self.expr(args[1]))
                    new = self.reg_of(self.expr(args[2]))
                    self.emit(*self.map.cas(d, addr, old, new, order))
                return Val(Reg(d), self._typed(t))
        ops = {"atomic_inc": ("add", 1), "atomic_dec": ("sub", 1)}
        ops.update({"atomic_add": ("add", 0), "atomic_sub": ("sub", 0)})
        if name in ops:
            fn, k = ops[name]
            self.arity(node, name, args, 1 if k else 2)
            src = Imm(k) if k else self.reg_of(self.expr(args[0]))
            addr, _ = self.pointee_arg(args[-1])
            self.emit(*self.map.rmw(None, addr, fn, src, "once"))
            return Val(Imm(0), VOID)
        if name in ("spin_trylock", "spin_is_locked", "synchronize_rcu", "rcu_dereference"):
            raise self.error(node, f"unsupported: {name}")
        if name == "rcu_assign_pointer":
            raise self.error(node, f"unsupported: {name}")
        return None
