"""Lowering calls: the intrinsics herdsman knows (C11 atomics, pthreads, assert/assume,
the Linux kernel's primitives of C litmus tests) and, through :meth:`inline`, calls of
the program's own functions.  Anything else is an error naming it."""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import Assert, Assume, Branch, Imm, Label, Op, Operand, Reg
from herdsman.litmus.c.ctype import INT, VOID, CType
from herdsman.litmus.c.kernel import PRIMITIVES, lower_primitive
from herdsman.litmus.c.lower_expr import ExprLowerer, HandleLV, RegLV, Val
from herdsman.litmus.c.scan import expr_text
from herdsman.litmus.c.target import ORDERS

_FETCH = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor"}
_NO_OPS = frozenset(
    {
        "printf",
        "fprintf",
        "puts",
        "putchar",
        "fflush",
        "fputs",
        "perror",
        "pthread_mutex_init",
        "pthread_mutex_destroy",
        "atomic_signal_fence",
        "rcu_read_lock",
        "rcu_read_unlock",
    }
)
_ALLOC = frozenset({"malloc", "calloc", "realloc", "free", "alloca", "aligned_alloc"})
_ABORT = frozenset({"abort", "reach_error", "__VERIFIER_error", "__assert_fail"})
_KERNEL_FENCES = {
    "smp_mb": "mb",
    "smp_rmb": "rmb",
    "smp_wmb": "wmb",
    "smp_mb__before_atomic": "mb",
    "smp_mb__after_atomic": "mb",
    "smp_mb__after_spinlock": "mb",
}
_FLAVOURS = {"": "mb", "_relaxed": "once", "_acquire": "acquire", "_release": "release"}
#: intrinsics that only read memory (allowed in spin loops)
LOAD_INTRINSICS = frozenset(
    {"atomic_load", "atomic_load_explicit", "READ_ONCE", "smp_load_acquire", "atomic_read"}
)


class CallLowerer(ExprLowerer):
    """Calls: intrinsics here, the program's functions by :meth:`inline`."""

    thread_end = ""

    def inline(self, node: c_ast.FuncCall, func: c_ast.FuncDef) -> Val:
        raise NotImplementedError  # lower_stmt.CodeLowerer

    def in_rotated_loop(self) -> bool:
        raise NotImplementedError  # lower_stmt.CodeLowerer

    def call(self, node: c_ast.FuncCall, dst: str | None, used: bool) -> Val:
        f = node.name
        if not isinstance(f, c_ast.ID):
            raise self.error(node, "unsupported: call through a function pointer")
        name = f.name
        args = list(node.args.exprs) if node.args is not None else []
        if self.lookup(name) is not None:
            raise self.error(node, f"unsupported: call through a function pointer ('{name}')")
        func = self.ctx.functions.get(name)
        if func is not None:
            return self.inline(node, func)
        if name in _NO_OPS:
            return Val(Imm(0), VOID)
        if name in _ALLOC:
            raise self.error(node, f"unsupported: {name}")
        if name.startswith("__VERIFIER_nondet"):
            raise self.error(node, f"unsupported: {name} (values only come from reads of memory)")
        if name in _ABORT:
            return self.failure(f"{name}()")
        if name in PRIMITIVES:  # herd's primitives, from a macro file's expansion
            return lower_primitive(self, node, name, args, dst, used)
        if name == "exit":
            raise self.error(node, "unsupported: exit")
        v = self.intrinsic(node, name, args, dst, used)
        if v is None:
            raise self.error(node, f"unknown function '{name}'")
        return v

    def arity(self, node: c_ast.FuncCall, name: str, args: list, *counts: int) -> None:
        if len(args) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise self.error(node, f"{name} takes {want} arguments, not {len(args)}")

    def failure(self, message: str) -> Val:
        t = self.temp()
        self.emit(Op(t, "mov", (Imm(0),)), Assert(t, "ne", message=message))
        return Val(Imm(0), VOID)

    def order(self, node: c_ast.Node) -> str:
        v = self.const_value(node)
        if not isinstance(v, int) or not 0 <= v < len(ORDERS):
            raise self.error(node, "the memory order must be a constant memory_order_...")
        return ORDERS[v]

    def pointee(self, node: c_ast.Node) -> tuple[tuple[Operand, ...], CType]:
        """Address and type of the object a pointer argument points to."""
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            lv = self.lvalue(node.expr)
            if isinstance(lv, RegLV):
                raise self.error(node, "unsupported: atomic operation on a local variable")
            if isinstance(lv, HandleLV):
                raise self.error(node, "unsupported: atomic operation on a pthread_t")
            return lv.addr, lv.ctype
        v = self.expr(node)
        if v.ctype.kind != "ptr" or v.ctype.target is None:
            raise self.error(node, "expected a pointer to a shared object")
        return (v.op,), v.ctype.target

    def object(self, node: c_ast.Node) -> tuple[tuple[Operand, ...], CType] | RegLV:
        """Address and type of an object argument (``READ_ONCE(*x)``), or a register."""
        lv = self.lvalue(node)
        if isinstance(lv, HandleLV):
            raise self.error(node, "unsupported: pthread_t here")
        if isinstance(lv, RegLV):
            return lv
        return lv.addr, lv.ctype

    def result(self, dst: str | None, used: bool) -> str | None:
        return dst or self.temp() if used else None

    def intrinsic(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        if self.ctx.lkmm or name in _KERNEL_FENCES or name.isupper():
            v = self.kernel(node, name, args, dst, used)
            if v is not None:
                return v
        if name.startswith("atomic_") or name == "kill_dependency":
            v = self.c11(node, name, args, dst, used)
            if v is not None:
                return v
        if name.startswith("pthread_") or name in (
            "spin_lock",
            "spin_unlock",
            "mtx_lock",
            "mtx_unlock",
            "lock",
            "unlock",
        ):
            return self.threads(node, name, args)
        if name in ("assert", "__herdsman_assert"):
            self.arity(node, name, args, 1, 2)
            if len(args) == 2 and isinstance(args[1], c_ast.Constant):
                message = args[1].value.strip('"')
            else:
                message = expr_text(args[0])
            c = self.cond(args[0])
            if isinstance(c, int):
                if not c:
                    self.failure(message)
                return Val(Imm(0), VOID)
            self.emit(Assert(c, "ne", message=message))
            return Val(Imm(0), VOID)
        if name in ("assume", "__VERIFIER_assume"):
            self.arity(node, name, args, 1)
            c = self.cond(args[0])
            if isinstance(c, int):
                if c:
                    return Val(Imm(0), VOID)
                t = self.temp()
                self.emit(Op(t, "mov", (Imm(0),)))
                c = t
            self.emit(Assume(c, "ne"))
            return Val(Imm(0), VOID)
        return None

    # ---- C11
    def c11(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        explicit = name.endswith("_explicit")
        base = name.removesuffix("_explicit")
        if base == "kill_dependency":
            self.arity(node, name, args, 1)
            return self.expr(args[0], dst)
        if base == "atomic_thread_fence" or base == "atomic_signal_fence":
            self.arity(node, name, args, 1)
            order = self.order(args[0])
            if base == "atomic_thread_fence":
                self.emit(*self.map.fence(order))
            return Val(Imm(0), VOID)
        if base == "atomic_load":
            self.arity(node, name, args, 2 if explicit else 1)
            order = self.order(args[1]) if explicit else "sc"
            if order in ("rel", "acq_rel"):
                raise self.error(args[1], "invalid memory order for a load")
            addr, t = self.pointee(args[0])
            d = dst or self.temp()
            self.emit(*self.map.load(d, addr, order))
            return Val(Reg(d), CType(t.kind, False, t.target))
        if base in ("atomic_store", "atomic_init"):
            self.arity(node, name, args, 3 if explicit else 2)
            order = self.order(args[2]) if explicit else "sc"
            if base == "atomic_init":
                order = "na"
            if order in ("acq", "acq_rel"):
                raise self.error(args[2], "invalid memory order for a store")
            addr, _ = self.pointee(args[0])
            v = self.expr(args[1])
            self.emit(*self.map.store(v.op, addr, order))
            return Val(Imm(0), VOID)
        if base == "atomic_exchange" or base.startswith("atomic_fetch_"):
            fn = "second" if base == "atomic_exchange" else _FETCH.get(base[13:])
            if fn is None:
                return None
            self.arity(node, name, args, 3 if explicit else 2)
            order = self.order(args[2]) if explicit else "sc"
            addr, t = self.pointee(args[0])
            v = self.expr(args[1])
            old = self.result(dst, used)
            self.emit(*self.map.rmw(old, addr, fn, v.op, order))
            return Val(Reg(old) if old else Imm(0), CType(t.kind, False, t.target))
        if base in ("atomic_compare_exchange_strong", "atomic_compare_exchange_weak"):
            self.arity(node, name, args, 5 if explicit else 3)
            order = self.order(args[3]) if explicit else "sc"
            addr, _ = self.pointee(args[0])
            exp = args[1]
            lv = self.lvalue(exp.expr) if isinstance(exp, c_ast.UnaryOp) and exp.op == "&" else None
            if isinstance(lv, RegLV):
                desired = self.expr(args[2])
                old = self.temp()
                self.emit(*self.map.cas(old, addr, Reg(lv.reg), desired.op, order))
                d = dst or self.temp()
                self.emit(Op(d, "eq", (Reg(old), Reg(lv.reg))), Op(lv.reg, "mov", (Reg(old),)))
                return Val(Reg(d), INT)
            # expected in memory (herd's C tests): compare with it, write it back on failure
            eaddr, _ = self.pointee(exp)
            e = self.temp()
            self.emit(*self.map.load(e, eaddr, "na"))
            desired = self.expr(args[2])
            old = self.temp()
            self.emit(*self.map.cas(old, addr, Reg(e), desired.op, order))
            d = dst or self.temp()
            end = self.new_label()
            self.emit(Op(d, "eq", (Reg(old), Reg(e))), Branch(end, "ne", d))
            self.emit(*self.map.store(Reg(old), eaddr, "na"))
            self.emit(Label(end))
            return Val(Reg(d), INT)
        return None

    # ---- threads and locks
    def threads(self, node: c_ast.FuncCall, name: str, args: list) -> Val | None:
        if name == "pthread_create":
            self.arity(node, name, args, 4)
            return self.create(node, args)
        if name == "pthread_join":
            self.arity(node, name, args, 2)
            lv = self.lvalue(args[0])
            if not isinstance(lv, HandleLV):
                raise self.error(args[0], "pthread_join needs a pthread_t")
            tid = lv.table.get(lv.key)
            if tid is None:
                raise self.error(
                    args[0], "pthread_join of a thread that is not statically known to exist"
                )
            if self.const_value(args[1]) != 0:
                raise self.error(args[1], "unsupported: pthread_join's result (pass NULL)")
            self.emit(*self.map.join(tid))
            return Val(Imm(0), INT)
        if name == "pthread_exit":
            self.arity(node, name, args, 1)
            self.emit(Branch(self.thread_end))
            return Val(Imm(0), VOID)
        if name in ("pthread_mutex_lock", "spin_lock", "mtx_lock", "lock"):
            self.arity(node, name, args, 1)
            addr, _ = self.pointee(args[0])
            self.emit(*self.map.lock(addr))
            return Val(Imm(0), INT)
        if name in ("pthread_mutex_unlock", "spin_unlock", "mtx_unlock", "unlock"):
            self.arity(node, name, args, 1)
            addr, _ = self.pointee(args[0])
            self.emit(*self.map.unlock(addr))
            return Val(Imm(0), INT)
        raise self.error(node, f"unsupported: {name}")

    def create(self, node: c_ast.FuncCall, args: list) -> Val:
        if self.in_rotated_loop():
            raise self.error(node, "pthread_create in a loop whose bound is not a constant")
        h = args[0]
        if not (isinstance(h, c_ast.UnaryOp) and h.op == "&"):
            raise self.error(h, "pthread_create needs the address of a pthread_t: &t")
        lv = self.lvalue(h.expr)
        if not isinstance(lv, HandleLV):
            raise self.error(h, "pthread_create needs the address of a pthread_t: &t")
        f = args[2]
        while isinstance(f, c_ast.Cast) or isinstance(f, c_ast.UnaryOp) and f.op == "&":
            f = f.expr
        func = self.ctx.functions.get(f.name) if isinstance(f, c_ast.ID) else None
        if func is None:
            raise self.error(f, "the start routine must be a function defined in the program")
        arg = self.const_value(args[3])
        if arg is None:
            raise self.error(
                args[3], "the thread argument must be a constant or the address of a global"
            )
        tid = self.ctx.new_thread(func, arg)
        lv.table[lv.key] = tid
        self.emit(*self.map.spawn(tid))
        return Val(Imm(0), INT)

    # ---- the Linux kernel's primitives (C litmus tests)
    def kernel(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        if name in _KERNEL_FENCES:
            self.arity(node, name, args, 0)
            self.emit(*self.map.kernel_fence(_KERNEL_FENCES[name]))
            return Val(Imm(0), VOID)
        if name in ("READ_ONCE", "atomic_read", "smp_load_acquire"):
            self.arity(node, name, args, 1)
            order = "acquire" if name == "smp_load_acquire" else "once"
            if name == "READ_ONCE":
                obj = self.object(args[0])
                if isinstance(obj, RegLV):
                    return Val(Reg(obj.reg), obj.ctype)
            else:
                obj = self.pointee(args[0])
            addr, t = obj
            d = dst or self.temp()
            self.emit(*self.map.load(d, addr, order))
            return Val(Reg(d), CType(t.kind, False, t.target))
        if name in ("WRITE_ONCE", "atomic_set", "smp_store_release"):
            self.arity(node, name, args, 2)
            order = "release" if name == "smp_store_release" else "once"
            if name == "WRITE_ONCE":
                obj = self.object(args[0])
                if isinstance(obj, RegLV):
                    v = self.expr(args[1])
                    self.emit(Op(obj.reg, "mov", (v.op,)))
                    return Val(Imm(0), VOID)
            else:
                obj = self.pointee(args[0])
            addr, _ = obj
            v = self.expr(args[1])
            self.emit(*self.map.store(v.op, addr, order))
            return Val(Imm(0), VOID)
        for stem, fn in (("xchg", "second"), ("cmpxchg", None)):
            for suffix, order in _FLAVOURS.items():
                if name != stem + suffix:
                    continue
                self.arity(node, name, args, 2 if fn else 3)
                addr, t = self.pointee(args[0])
                d = self.result(dst, used) or self.temp()
                if fn is not None:
                    v = self.expr(args[1])
                    self.emit(*self.map.rmw(d, addr, fn, v.op, order))
                else:
                    old = self.expr(args[1])
                    new = self.expr(args[2])
                    self.emit(*self.map.cas(d, addr, old.op, new.op, order))
                return Val(Reg(d), CType(t.kind, False, t.target))
        ops = {"atomic_inc": ("add", 1), "atomic_dec": ("sub", 1)}
        ops.update({"atomic_add": ("add", 0), "atomic_sub": ("sub", 0)})
        if name in ops:
            fn, k = ops[name]
            self.arity(node, name, args, 1 if k else 2)
            v = Val(Imm(k), INT) if k else self.expr(args[0])
            addr, _ = self.pointee(args[-1])
            self.emit(*self.map.rmw(None, addr, fn, v.op, "once"))
            return Val(Imm(0), VOID)
        if name in ("spin_trylock", "spin_is_locked", "synchronize_rcu", "rcu_dereference"):
            raise self.error(node, f"unsupported: {name}")
        if name == "rcu_assign_pointer":
            raise self.error(node, f"unsupported: {name}")
        return None
