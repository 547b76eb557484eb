"""Lowering the heap and the memory functions.  ``malloc``, ``calloc`` and
``aligned_alloc`` give a new allocation of the thread, named by the thread and its count
of allocations so far and its size in bytes (``heap@t1#0(8)``, ``heap@t1#1(16)``...: the
IR's ``alloc``; an offset within the size is a cell of it, initially 0, an access
outside is GenMC's "Attempt to access non-allocated memory"); an allocation is no
shared-memory event (as in GenMC).
``free`` releases one: a later access to it, or a second ``free``, is an error.
``memset``, ``memcpy`` and ``memmove`` with a size known at compile time access each
scalar cell of the objects the pointers' types say they cover."""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import Free, Imm, Op, Operand, Reg
from herdsman.litmus.c.context import scalar_offsets
from herdsman.litmus.c.ctype import CHAR, VOID, CType, pointer_to
from herdsman.litmus.c.lower_intrinsic import IntrinsicBase
from herdsman.litmus.c.lvalues import add_offset
from herdsman.litmus.c.values import Val


def _uncast(node: c_ast.Node) -> c_ast.Node:
    """``node`` without its casts (the object a pointer argument points to)."""
    while isinstance(node, c_ast.Cast):
        node = node.expr
    return node


#: the register counting a thread's allocations
HEAP_COUNT = "heap.n"
#: the most cells a memset or memcpy covers
MAX_CELLS = 4096


class MemoryLowerer(IntrinsicBase):
    """The heap and the memory functions (see the module docstring)."""

    def memory(
        self, node: c_ast.FuncCall, name: str, args: list, dst: str | None, used: bool
    ) -> Val | None:
        if name in ("malloc", "calloc", "aligned_alloc"):
            self.arity(node, name, args, 2 if name != "malloc" else 1)
            sizes = [self.reg_of(self.expr(a)) for a in args]
            size = sizes[-1]
            if name == "calloc":  # n objects of a size each
                total = self.temp()
                self.emit(Op(total, "mul", (sizes[0], sizes[1])))
                size = Reg(total)
            return self.allocate(dst, size)
        if name == "free":
            self.arity(node, name, args, 1)
            p = self.reg_of(self.expr(args[0]))
            if not (isinstance(p, Imm) and p.value == 0):
                self.emit(Free((p,)))
            return Val(Imm(0), VOID)
        if name in ("memset", "memcpy", "memmove"):
            self.arity(node, name, args, 3)
            n = self.const_value(args[2])
            if not isinstance(n, int) or not 0 <= n <= 8 * MAX_CELLS:
                raise self.error(
                    args[2], f"unsupported: {name} of a size not known at compile time"
                )
            target = self.elem_type(self.type_of(_uncast(args[0])))
            cells = self.cells_of(target, n)
            d = self.expr(args[0])
            base = (self.reg_of(d),)
            order = self.map.plain(target.atomic)
            if name == "memset":
                v = self.reg_of(self.expr(args[1]))
                if v != Imm(0) and target.kind == "int" and target.bits != 8:
                    raise self.error(args[1], "unsupported: memset of a non-zero value but bytes")
                for k in cells:
                    self.emit(*self.map.store(v, add_offset(base, k), order))
            else:
                s = self.expr(args[1])
                src = (self.reg_of(s),)
                regs = []
                for k in cells:
                    r = self.temp()
                    self.emit(*self.map.load(r, add_offset(src, k), order))
                    regs.append(r)
                for k, r in zip(cells, regs, strict=True):
                    self.emit(*self.map.store(Reg(r), add_offset(base, k), order))
            return Val(base[0], d.ctype)
        return None

    def allocate(self, dst: str | None, size: Operand) -> Val:
        """A new heap allocation of this thread, of ``size`` bytes: its address."""
        d = dst or self.temp()
        self.emit(Op(d, "alloc", (Imm(self.tid), Reg(HEAP_COUNT), size)))
        self.emit(Op(HEAP_COUNT, "add", (Reg(HEAP_COUNT), Imm(1))))
        return Val(Reg(d), pointer_to(VOID))

    def elem_type(self, t: CType) -> CType:
        """The type of the objects a pointer (or array) argument covers (bytes when it
        does not say)."""
        if t.kind == "array" and t.target is not None:
            return self.complete(t.target)
        target = self.complete(t.target) if t.kind == "ptr" and t.target is not None else CHAR
        return target if target.kind != "void" else CHAR

    def cells_of(self, t: CType, n: int) -> list[int]:
        """The offsets of the scalar cells of the objects of type ``t`` in ``n`` bytes."""
        step = max(t.size, 1)
        inner = scalar_offsets(t, 0)
        return [i * step + o for i in range(n // step) for o in inner]
