"""Objects of C programs as the lowering reaches them: the lvalue an expression names (a
register, or memory at a summed address: a global, a thread-local, a local on the stack,
a heap cell through a pointer), reading it and writing it, with C's conversions between
integer types (an object holds its type's values)."""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import Imm, Op, Operand, Reg, Sym
from herdsman.litmus.c.consts import ConstEval, conv_code, convert_int
from herdsman.litmus.c.context import scalar_offsets
from herdsman.litmus.c.ctype import CType, pointer_to
from herdsman.litmus.c.values import Const, Demote, Local, LValue, MemLV, Ref, RegLV, Stack, Val


def add_offset(addr: tuple[Operand, ...], k: int) -> tuple[Operand, ...]:
    """``addr`` plus ``k`` cells (folded into a constant part when there is one)."""
    if k == 0:
        return addr
    out = list(addr)
    for i, a in enumerate(out):
        if isinstance(a, Imm) and isinstance(a.value, Sym):
            out[i] = Imm(Sym(a.value.name, a.value.offset + k))
            return tuple(out)
        if isinstance(a, Imm) and isinstance(a.value, int):
            out[i] = Imm(a.value + k)
            return tuple(out)
    return (*out, Imm(k))


class LValueLowerer(ConstEval):
    """lvalues, loads, stores and conversions (see the module docstring)."""

    def expr(self, node: c_ast.Node, dst: str | None = None, used: bool = True) -> Val:
        raise NotImplementedError  # lower_expr.ExprLowerer

    def compound_literal(self, node: c_ast.CompoundLiteral) -> MemLV:
        raise NotImplementedError  # lower_stmt.CodeLowerer (initialisers)

    # ---- addresses
    def addr_operand(self, addr: tuple[Operand, ...]) -> Operand:
        """One operand holding the sum ``addr``."""
        if len(addr) == 1:
            return addr[0]
        acc: Operand = addr[0]
        for a in addr[1:]:
            t = self.temp()
            self.emit(Op(t, "add", (acc, a)))
            acc = Reg(t)
        return acc

    def pointee(self, v: Val, node: c_ast.Node) -> CType:
        t = v.ctype
        if t.kind != "ptr" or t.target is None:
            raise self.error(node, "dereference of a value that is not a pointer")
        target = self.complete(t.target)
        if target.kind == "void":
            raise self.error(node, "dereference of a void pointer (cast it first)")
        return target

    def lvalue(self, node: c_ast.Node) -> LValue:
        if isinstance(node, c_ast.ID):
            return self.name_lvalue(node)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            v = self.expr(node.expr)
            t = self.pointee(v, node)
            if isinstance(v.op, Ref):
                if t.kind != v.op.ctype.kind:
                    raise Demote(v.op.key)
                return RegLV(v.op.reg, v.op.ctype)
            return MemLV((v.op,), t)
        if isinstance(node, c_ast.ArrayRef):
            return self.index_lvalue(node)
        if isinstance(node, c_ast.StructRef):
            if node.type == ".":
                base = self.lvalue(node.name)
                if not isinstance(base, MemLV) or base.ctype.kind not in ("struct", "union"):
                    raise self.error(node, "'.' on a value that is not a struct or union")
                return self.field_lvalue(node, base.addr, base.ctype)
            v = self.expr(node.name)
            t = self.pointee(v, node)
            if t.kind not in ("struct", "union"):
                raise self.error(node, "'->' on a value that is not a pointer to a struct")
            return self.field_lvalue(node, (self.reg_of(v),), t)
        if isinstance(node, c_ast.Cast):
            inner = self.lvalue(node.expr)
            t = self.resolve(node.to_type)
            return RegLV(inner.reg, t) if isinstance(inner, RegLV) else MemLV(inner.addr, t)
        if isinstance(node, c_ast.CompoundLiteral):
            return self.compound_literal(node)
        if isinstance(node, c_ast.Constant) and node.type == "string":
            s = self.string(node)
            return MemLV((Imm(s),), CType("array", target=self.type_of(node).target, length=1))
        raise self.error(node, "not an assignable expression")

    def field_lvalue(self, node: c_ast.StructRef, addr: tuple[Operand, ...], t: CType) -> MemLV:
        f = self.complete(t).field(node.field.name)
        if f is None:
            raise self.error(node.field, f"{t.show()} has no field '{node.field.name}'")
        return MemLV(add_offset(addr, f[0]), f[1])

    def name_lvalue(self, node: c_ast.ID) -> LValue:
        b = self.lookup(node.name)
        if isinstance(b, Local):
            return RegLV(b.reg, b.ctype)
        if isinstance(b, Stack):
            return MemLV((Imm(b.addr),), b.ctype)
        if isinstance(b, Const):
            if isinstance(b.value, Ref):
                raise self.error(node, f"cannot assign to '{node.name}' here")
            raise self.error(node, f"cannot assign to '{node.name}' here (a compile-time value)")
        if node.name in self.ctx.globals:
            return MemLV((Imm(Sym(node.name)),), self.ctx.globals[node.name])
        if node.name in self.ctx.tls:
            return MemLV((Imm(self.thread_local(node.name)),), self.ctx.tls[node.name])
        if node.name in self.ctx.functions or node.name in self.ctx.prototypes:
            raise self.error(node, f"a function ('{node.name}') is not an object")
        raise self.error(node, f"undeclared identifier '{node.name}'")

    def index_lvalue(self, node: c_ast.ArrayRef) -> LValue:
        base_node, sub = node.name, node.subscript
        if self.value_type(base_node).kind != "ptr" and self.value_type(sub).kind == "ptr":
            base_node, sub = sub, base_node  # i[a]
        if self.type_of(base_node).kind == "array":
            base = self.lvalue(base_node)
            if not isinstance(base, MemLV):
                raise self.error(node, "subscript of an array that is not in memory")
            elem, addr = base.ctype.target, base.addr
        else:
            v = self.expr(base_node)
            elem = self.pointee(v, node)
            if isinstance(v.op, Ref):
                if self.const_value(sub) != 0:
                    raise Demote(v.op.key)
                return RegLV(v.op.reg, v.op.ctype)
            addr = (v.op,)
        assert elem is not None
        elem = self.complete(elem)
        i = self.expr(sub)
        if isinstance(i.op, Imm) and isinstance(i.op.value, int):
            return MemLV(add_offset(addr, i.op.value * elem.size), elem)
        idx = self.reg_of(i)
        if elem.size != 1:
            t = self.temp()
            self.emit(Op(t, "mul", (idx, Imm(elem.size))))
            idx = Reg(t)
        return MemLV((*addr, idx), elem)

    # ---- reading and writing lvalues
    def load(self, lv: LValue, node: c_ast.Node, dst: str | None = None) -> Val:
        if isinstance(lv, RegLV):
            k = self.known.get(lv.reg)
            return Val(Reg(lv.reg) if k is None else Imm(k), lv.ctype.plain())
        t = self.complete(lv.ctype)
        if t.kind == "array":
            assert t.target is not None
            return Val(self.addr_operand(lv.addr), pointer_to(t.target))
        if t.kind in ("struct", "union"):  # a struct value is its address (copied on store)
            return Val(self.addr_operand(lv.addr), t.plain())
        if t.kind == "func":
            raise self.error(node, "unsupported: a function used as an object")
        d = dst or self.temp()
        self.emit(*self.map.load(d, lv.addr, self.map.plain(t.atomic)))
        return Val(Reg(d), t.plain())

    def store(self, lv: LValue, v: Val, node: c_ast.Node) -> Val:
        """Write ``v`` (converted to the lvalue's type) to ``lv``; the value written."""
        if isinstance(lv, RegLV):
            w = self.convert(v, lv.ctype, lv.reg)
            if w.op != Reg(lv.reg):
                self.emit(Op(lv.reg, "mov", (self.reg_of(w),)))
            return Val(Reg(lv.reg), lv.ctype.plain())
        t = self.complete(lv.ctype)
        if t.kind in ("struct", "union"):
            self.copy_object(lv.addr, self.reg_of(v), t, node)
            return v
        if not t.scalar:
            raise self.error(node, f"unsupported: assignment of a {t.show()}")
        w = self.convert(v, t)
        self.emit(*self.map.store(self.reg_of(w), lv.addr, self.map.plain(t.atomic)))
        return w

    def copy_object(
        self, dst: tuple[Operand, ...], src: Operand, t: CType, node: c_ast.Node
    ) -> None:
        """Copy a struct or union cell by cell from address ``src`` to ``dst``."""
        order = self.map.plain(t.atomic)
        for off in scalar_offsets(t, 0):
            r = self.temp()
            self.emit(*self.map.load(r, add_offset((src,), off), order))
            self.emit(*self.map.store(Reg(r), add_offset(dst, off), order))

    # ---- conversions
    def convert(self, v: Val, t: CType, dst: str | None = None) -> Val:
        """``v`` converted to type ``t`` (integers wrap to ``t``'s width)."""
        s = v.ctype
        if t.kind != "int" or not t.bits or isinstance(v.op, Ref):
            return Val(v.op, t.plain() if t.kind in ("int", "ptr") else v.ctype)
        if isinstance(v.op, Imm):
            x = v.op.value
            return Val(Imm(convert_int(x, t) if isinstance(x, int) else x), t.plain())
        if (
            s.kind == "int"
            and s.bits
            and (
                (s.bits < t.bits and (s.signed == t.signed or not s.signed))
                or (s.bits == t.bits and s.signed == t.signed)
            )
        ):
            return Val(v.op, t.plain())
        if s.kind == "ptr" and t.bits == 64:
            return Val(v.op, t.plain())
        d = dst or self.temp()
        self.emit(Op(d, "conv", (v.op, Imm(conv_code(t)))))
        return Val(Reg(d), t.plain())
