"""Lowering calls: the program's own functions (inlined, :meth:`inline`), calls through
function pointers (a value compared with each function whose address the program takes,
the matching one inlined), and the intrinsics herdsman knows: C11 atomics and GCC's
``__atomic`` builtins (:mod:`.lower_atomics`), threads and locks (:mod:`.lower_threads`),
the heap and memory functions (:mod:`.lower_memory`), ``assert``/``assume``, output that
does nothing.  Anything else is an error naming it."""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import Assert, Branch, Imm, Label, Op, Reg, Sym
from herdsman.litmus.c.consts import FUNCTION_PREFIX
from herdsman.litmus.c.ctype import INT, LONG, ULONG, VOID, CType, pointer_to
from herdsman.litmus.c.kernel import PRIMITIVES, lower_primitive
from herdsman.litmus.c.lower_atomics import AtomicsLowerer
from herdsman.litmus.c.lower_memory import MemoryLowerer
from herdsman.litmus.c.lower_threads import ThreadsLowerer
from herdsman.litmus.c.scan import expr_text
from herdsman.litmus.c.values import Val

_NO_OPS = frozenset(
    {
        "printf",
        "fprintf",
        "puts",
        "putchar",
        "fflush",
        "fputs",
        "perror",
        "rcu_read_lock",
        "rcu_read_unlock",
        "thrd_yield",
        "sched_yield",
        "pthread_yield",
        "__VERIFIER_loop_begin",
        "__VERIFIER_spin_start",
        "__herdsman_unused",
    }
)
_ABORT = frozenset({"abort", "reach_error", "__VERIFIER_error", "__assert_fail"})
_REFUSED = {
    "__VERIFIER_nondet_int": "values only come from reads of memory",
    "exit": "exit",
}


class CallLowerer(AtomicsLowerer, ThreadsLowerer, MemoryLowerer):
    """Calls (see the module docstring)."""

    def inline(self, node: c_ast.Node, func: c_ast.FuncDef, args: list[Val]) -> Val:
        raise NotImplementedError  # lower_stmt.CodeLowerer

    def call(self, node: c_ast.FuncCall, dst: str | None, used: bool) -> Val:
        f = node.name
        args = list(node.args.exprs) if node.args is not None else []
        if isinstance(f, c_ast.ID) and self.lookup(f.name) is None:
            name = f.name
            if name == "offsetof":
                return Val(Imm(self.offsetof(node)), self.int_type())
            func = self.ctx.functions.get(name)
            if func is not None:
                return self.inline(node, func, [self.expr(a) for a in args])
            v = self.intrinsic(node, name, args, dst, used)
            if v is not None:
                return v
            if name in self.ctx.prototypes or name in self.ctx.types.typedefs:
                raise self.error(node, f"unsupported: {name} (not modelled)")
            raise self.error(node, f"unknown function '{name}'")
        fp = self.expr(f)
        vals = [self.expr(a) for a in args]
        if isinstance(fp.op, Imm) and isinstance(fp.op.value, Sym):
            target = self._function_named(fp.op.value)
            if target is None:
                raise self.error(node, "call through a pointer that is no function")
            return self.inline(node, target, vals)
        return self.dispatch(node, fp, vals)

    def _function_named(self, s: Sym) -> c_ast.FuncDef | None:
        if s.offset or not s.name.startswith(FUNCTION_PREFIX):
            return None
        return self.ctx.functions.get(s.name[len(FUNCTION_PREFIX) :])

    def dispatch(self, node: c_ast.FuncCall, fp: Val, args: list[Val]) -> Val:
        """A call through a function pointer known only at run time: compared with each
        function of the program whose address is taken (with as many parameters)."""
        target = self.reg_of(fp)
        names = [
            n for n in sorted(self.ctx.pointed)
            if n in self.ctx.functions and self.arity_of(self.ctx.functions[n]) == len(args)
        ]  # fmt: skip
        ftype = fp.ctype
        while ftype.kind == "ptr" and ftype.target is not None:
            ftype = ftype.target
        if ftype.kind == "func" and ftype.params is not None:  # C: only compatible types
            want = [_shape(p) for p in ftype.params]
            fits = [n for n in names if self._params_shape(n) == want]
            names = fits or names
        if not names:
            raise self.error(node, "call through a function pointer: no function fits")
        rtype = self.call_type(node)
        res = self.temp() if rtype.kind != "void" else None
        end = self.new_label()
        for name in names:
            nxt = self.new_label()
            t = self.temp()
            self.emit(Op(t, "eq", (target, Imm(Sym(FUNCTION_PREFIX + name)))))
            self.emit(Branch(nxt, "eq", t))
            v = self.inline(node, self.ctx.functions[name], args)
            if res is not None and v.ctype.kind != "void":
                self.emit(Op(res, "mov", (self.reg_of(v),)))
            self.emit(Branch(end), Label(nxt))
        self.failure("call through an invalid function pointer")
        self.emit(Label(end))
        return Val(Reg(res), rtype) if res is not None else Val(Imm(0), VOID)

    def _params_shape(self, name: str) -> list[tuple]:
        t = self.resolve(self.ctx.functions[name].decl.type)
        return [_shape(p) for p in t.params or ()]

    def arity_of(self, func: c_ast.FuncDef) -> int:
        t = self.resolve(func.decl.type)
        return len(t.params) if t.params is not None else -1

    def intrinsic(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        if name == "__VERIFIER_optional_block":  # its executions all block: none counts
            return Val(Imm(0), INT)
        if name in _NO_OPS:
            for a in args:
                if not isinstance(a, c_ast.Constant):
                    self.expr(a, used=False)
            return Val(Imm(0), INT)
        if name in _ABORT:
            return self.failure(f"{name}()")
        if name in PRIMITIVES:  # herd's primitives, from a macro file's expansion
            return lower_primitive(self, node, name, args, dst, used)
        if name in _REFUSED:
            raise self.error(node, f"unsupported: {_REFUSED[name]}")
        for lower in (self.atomics, self.threads, self.memory):
            v = lower(node, name, args, dst, used)
            if v is not None:
                return v
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
        if name in ("assume", "__VERIFIER_assume", "__VERIFIER_spin_end"):
            self.arity(node, name, args, 1)
            self.assume(self.cond(args[0]))
            return Val(Imm(0), VOID)
        if name in ("abs", "labs"):
            self.arity(node, name, args, 1)
            v = self.expr(args[0])
            x, neg, out = self.reg_of(v), self.temp(), dst or self.temp()
            end = self.new_label()
            self.emit(Op(neg, "lt", (x, Imm(0))), Op(out, "mov", (x,)), Branch(end, "eq", neg))
            self.emit(Op(out, "neg", (x,)), Label(end))
            return Val(Reg(out), v.ctype)
        return None

    def call_type(self, node: c_ast.FuncCall) -> CType:
        """The type of a call's value."""
        f = node.name
        if isinstance(f, c_ast.ID) and self.lookup(f.name) is None:
            func = self.ctx.functions.get(f.name)
            if func is not None:
                t = self.resolve(func.decl.type)
                return t.target if t.target is not None else INT
            it = self.intrinsic_type(node, f.name)
            if it is not None:
                return it
            proto = self.ctx.prototypes.get(f.name)
            if proto is not None and proto.target is not None:
                return proto.target
            return INT
        t = self.value_type(f)
        while t.kind == "ptr" and t.target is not None:
            t = t.target
        return t.target if t.kind == "func" and t.target is not None else INT

    def intrinsic_type(self, node: c_ast.FuncCall, name: str) -> CType | None:
        args = list(node.args.exprs) if node.args is not None else []
        base = name.removesuffix("_explicit")
        if base.startswith(("atomic_load", "atomic_exchange", "atomic_fetch_", "__atomic_")):
            if args and not base.startswith("__atomic_compare"):
                t = self.value_type(args[0])
                if t.kind == "ptr" and t.target is not None:
                    return self.complete(t.target).plain()
        if base.startswith("atomic_compare_exchange") or name.startswith("__atomic_compare"):
            return INT
        if name in ("malloc", "calloc", "aligned_alloc", "memset", "memcpy", "memmove"):
            return pointer_to(VOID)
        if name in (
            "pthread_self",
            "thrd_current",
            "__VERIFIER_spawn",
            "__VERIFIER_spawn_symmetric",
        ):
            return ULONG
        if name == "__VERIFIER_join":
            return pointer_to(VOID)
        if name in ("READ_ONCE", "smp_load_acquire") and args:
            return self.value_type(args[0]) if name == "READ_ONCE" else LONG
        return None


def _shape(t: CType) -> tuple:
    """A parameter type as far as calls through function pointers tell them apart
    (pointers by what they point to, one level deep)."""
    inner = t.target if t.kind in ("ptr", "array") else None
    deeper = (inner.kind, inner.name, inner.bits) if inner is not None else None
    kind = "ptr" if t.kind == "array" else t.kind
    return (kind, t.name, t.bits, t.signed, deeper)
