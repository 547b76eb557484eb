"""Lowering threads and locks: ``pthread_create`` (C11's ``thrd_create``, GenMC's
``__VERIFIER_spawn``) starts a thread numbered in static creation order (a creation in a
loop whose bound is not known at compile time is refused); a ``pthread_t`` is that number,
an ordinary value (stored, passed, compared); ``pthread_join`` waits for the thread its
value names, and reads its result through the thread's ``__ret`` cell when asked;
``pthread_self`` is the thread's number.  A thread's argument known at compile time is
its parameter's initial value; any other goes through the thread's ``__arg`` cell.
Mutexes (``pthread_mutex_*``, ``mtx_*``, kernel spin locks) are lock cells."""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import BARRIER_FIELD, Assume, Branch, Imm, Op, Reg, Sym
from herdsman.litmus.c.consts import FUNCTION_PREFIX
from herdsman.litmus.c.context import ARGS, RESULTS
from herdsman.litmus.c.ctype import INT, ULONG, VOID, pointer_to
from herdsman.litmus.c.lower_intrinsic import IntrinsicBase
from herdsman.litmus.c.values import Demote, LValue, MemLV, Ref, RegLV, Val, imm_int

_LOCKS = {
    "pthread_mutex_lock": "lock",
    "spin_lock": "lock",
    "mtx_lock": "lock",
    "lock": "lock",
    "pthread_mutex_unlock": "unlock",
    "spin_unlock": "unlock",
    "mtx_unlock": "unlock",
    "unlock": "unlock",
    "pthread_mutex_trylock": "trylock",
    "mtx_trylock": "trylock",
}
_NO_EFFECT = frozenset(
    {
        "pthread_mutex_init",
        "pthread_mutex_destroy",
        "mtx_init",
        "mtx_destroy",
        "pthread_attr_init",
        "pthread_attr_destroy",
    }
)
#: GenMC's busy error number, pthread_mutex_trylock's answer on a held lock
_EBUSY = 16


class ThreadsLowerer(IntrinsicBase):
    """Threads and locks (see the module docstring)."""

    thread_end = ""

    def in_rotated_loop(self) -> bool:
        raise NotImplementedError  # loops.LoopLowerer

    def threads(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        if name in ("pthread_create", "thrd_create"):
            self.arity(node, name, args, 4 if name == "pthread_create" else 3)
            start, arg = (args[2], args[3]) if name == "pthread_create" else (args[1], args[2])
            tid = self.create(node, start, arg)
            handle = self.lvalue(c_ast.UnaryOp("*", args[0], args[0].coord))
            self.store(handle, Val(Imm(tid), ULONG), node)
            return Val(Imm(0), INT)
        if name in ("__VERIFIER_spawn", "__VERIFIER_spawn_symmetric"):
            self.arity(node, name, args, 2 if name == "__VERIFIER_spawn" else 3)
            declared = name == "__VERIFIER_spawn_symmetric"
            return Val(Imm(self.create(node, args[0], args[1], declared)), ULONG)
        if name in ("pthread_join", "thrd_join", "__VERIFIER_join", "__VERIFIER_join_symmetric"):
            self.arity(node, name, args, 2 if name in ("pthread_join", "thrd_join") else 1)
            return self.join(node, name, args, dst)
        if name in ("pthread_exit", "thrd_exit"):
            self.arity(node, name, args, 1)
            self.thread_result(self.expr(args[0]))
            self.emit(Branch(self.thread_end))
            return Val(Imm(0), VOID)
        if name in ("pthread_self", "thrd_current"):
            self.arity(node, name, args, 0)
            return Val(Imm(self.tid), ULONG)
        if name in _LOCKS:
            self.arity(node, name, args, 1)
            addr, _ = self.pointee_arg(args[0])
            what = _LOCKS[name]
            if what == "lock":
                self.emit(*self.map.lock(addr))
            elif what == "unlock":
                self.emit(*self.map.unlock(addr))
            else:
                old = self.temp()
                self.emit(*self.map.cas(old, addr, Imm(0), Imm(1), "acq"))
                d = dst or self.temp()
                self.emit(Op(d, "ne", (Reg(old), Imm(0))), Op(d, "mul", (Reg(d), Imm(_EBUSY))))
                return Val(Reg(d), INT)
            return Val(Imm(0), INT)
        if name in ("pthread_barrier_init", "pthread_barrier_wait", "pthread_barrier_destroy"):
            return self.barrier(node, name, args, dst)
        if name in _NO_EFFECT:
            for a in args:
                self.expr(a, used=False)
            return Val(Imm(0), INT)
        if name.startswith("pthread_") or name.startswith("thrd_") or name.startswith("mtx_"):
            raise self.error(node, f"unsupported: {name}")
        return None

    def barrier(self, node: c_ast.FuncCall, name: str, args: list, dst: str | None) -> Val:
        """POSIX barriers.  A barrier holds its generation, its count and the arrivals
        it still waits for (the IR's ``barrier``): a thread arrives (a read-modify-write;
        the last one starts the next generation), then reads the barrier until its
        generation has moved on; the last arrival returns
        ``PTHREAD_BARRIER_SERIAL_THREAD``."""
        self.arity(node, name, args, 3 if name == "pthread_barrier_init" else 1)
        addr, _ = self.pointee_arg(args[0])
        if name == "pthread_barrier_destroy":
            return Val(Imm(0), INT)
        if name == "pthread_barrier_init":
            self.expr(args[1], used=False)
            n = self.reg_of(self.expr(args[2]))
            state = self.temp()
            self.emit(Op(state, "shl", (n, Imm(BARRIER_FIELD))), Op(state, "or", (Reg(state), n)))
            self.emit(*self.map.store(Reg(state), addr, "na"))
            return Val(Imm(0), INT)
        old, now, gen, ok = self.temp(), self.temp(), self.temp(), self.temp()
        self.emit(*self.map.barrier_arrive(old, addr))
        self.emit(Op(gen, "sra", (Reg(old), Imm(2 * BARRIER_FIELD))))
        self.emit(*self.map.barrier_wait(now, addr))
        self.emit(Op(ok, "sra", (Reg(now), Imm(2 * BARRIER_FIELD))))
        self.emit(Op(ok, "gt", (Reg(ok), Reg(gen))), Assume(ok, "ne"))
        last = dst or self.temp()
        mask = (1 << BARRIER_FIELD) - 1
        self.emit(Op(last, "and", (Reg(old), Imm(mask))), Op(last, "eq", (Reg(last), Imm(1))))
        self.emit(Op(last, "neg", (Reg(last),)))
        return Val(Reg(last), INT)

    def create(
        self, node: c_ast.FuncCall, start: c_ast.Node, arg: c_ast.Node, declared: bool = False
    ) -> int:
        """Start a thread running ``start`` with ``arg``: its number (``declared``: the
        program says it is symmetric to an earlier thread)."""
        if self.in_rotated_loop():
            raise self.error(node, "pthread_create in a loop whose bound is not a constant")
        f = self.const_value(start)
        func = None
        if isinstance(f, Sym) and f.name.startswith(FUNCTION_PREFIX):
            func = self.ctx.functions.get(f.name[len(FUNCTION_PREFIX) :])
        if func is None:
            raise self.error(start, "the start routine must be a function defined in the program")
        c = self.const_value(arg)
        v = Val(Imm(c), ULONG) if c is not None else self.expr(arg)
        if isinstance(v.op, Ref):
            raise Demote(v.op.key)
        if isinstance(v.op, Imm):
            tid = self.ctx.new_thread(func, v.op.value, False, self.tid, len(self.code), declared)
        else:
            tid = self.ctx.new_thread(func, None, True, self.tid, len(self.code), declared)
            self.emit(*self.map.store(v.op, (Imm(Sym(ARGS, tid)),), "na"))
        self.emit(*self.map.spawn(tid))
        return tid

    def join(self, node: c_ast.FuncCall, name: str, args: list, dst: str | None) -> Val:
        v = self.expr(args[0])
        tid = imm_int(v.op)
        if tid is not None:
            if not 0 < tid < self.ctx.nthreads:
                raise self.error(args[0], f"{name} of thread {tid}, which no pthread_create made")
            self.emit(*self.map.join(tid))
            where: tuple = (Imm(Sym(RESULTS, tid)),)
        else:
            reg = self.reg_of(v)
            if not isinstance(reg, Reg):  # an address (a function's, a variable's)
                raise self.error(args[0], f"{name} of something no pthread_create made")
            self.emit(*self.map.join_dynamic(reg.name))
            where = (Imm(Sym(RESULTS)), reg)
        out = args[1] if len(args) == 2 else None
        if name == "__VERIFIER_join" or out is not None and self.const_value(out) != 0:
            r = dst or self.temp()
            self.emit(*self.map.load(r, where, "na"))
            if out is not None:
                self.store(self.result_lvalue(out), Val(Reg(r), pointer_to(VOID)), node)
                return Val(Imm(0), INT)
            return Val(Reg(r), pointer_to(VOID))
        return Val(Imm(0), INT)

    def result_lvalue(self, out: c_ast.Node) -> LValue:
        """Where a join writes the result: ``*out`` (a ``void **`` whatever its cast)."""
        v = self.expr(out)
        if isinstance(v.op, Ref):
            return RegLV(v.op.reg, v.op.ctype)
        t = v.ctype.target if v.ctype.kind == "ptr" and v.ctype.target is not None else VOID
        t = self.complete(t)
        return MemLV((v.op,), t if t.scalar else pointer_to(VOID))

    def thread_result(self, v: Val) -> None:
        """Keep the thread's result in its ``__ret`` cell when some join reads it."""
        if self.ctx.results and self.tid:
            self.emit(*self.map.store(self.reg_of(v), (Imm(Sym(RESULTS, self.tid)),), "na"))

    def argument(self, reg: str) -> None:
        """Read the thread's argument from its ``__arg`` cell into ``reg``."""
        self.emit(*self.map.load(reg, (Imm(Sym(ARGS, self.tid)),), "na"))
