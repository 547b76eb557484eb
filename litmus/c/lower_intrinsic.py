"""What the lowering of intrinsic calls shares: arity checks, an assertion that fails,
an assumption, the object a pointer argument points to."""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import Assert, Assume, Imm, Op, Operand
from herdsman.litmus.c.ctype import VOID, CType
from herdsman.litmus.c.lower_expr import ExprLowerer
from herdsman.litmus.c.values import Demote, MemLV, Ref, Val


class IntrinsicBase(ExprLowerer):
    """Helpers of the intrinsics (see the module docstring)."""

    def arity(self, node: c_ast.FuncCall, name: str, args: list, *counts: int) -> None:
        if len(args) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise self.error(node, f"{name} takes {want} arguments, not {len(args)}")

    def failure(self, message: str) -> Val:
        """An assertion that fails here (``message`` says why)."""
        t = self.temp()
        self.emit(Op(t, "mov", (Imm(0),)), Assert(t, "ne", message=message))
        return Val(Imm(0), VOID)

    def result(self, dst: str | None, used: bool) -> str | None:
        return dst or self.temp() if used else None

    def assume(self, c: str | int) -> None:
        """Block the execution unless ``c`` (a register, or a known truth) holds."""
        if isinstance(c, int):
            if c:
                return
            t = self.temp()
            self.emit(Op(t, "mov", (Imm(0),)))
            c = t
        self.emit(Assume(c, "ne"))

    def pointee_arg(self, node: c_ast.Node) -> tuple[tuple[Operand, ...], CType]:
        """Address and type of the object a pointer argument points to (in memory: a
        register variable whose address is passed moves to memory)."""
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            lv = self.lvalue(node.expr)
            if not isinstance(lv, MemLV):
                raise Demote(self.key_of(node.expr))
            return lv.addr, self.complete(lv.ctype)
        v = self.expr(node)
        if isinstance(v.op, Ref):
            raise Demote(v.op.key)
        if v.ctype.kind != "ptr" or v.ctype.target is None:
            raise self.error(node, "expected a pointer to a shared object")
        return (v.op,), self.complete(v.ctype.target)

    def key_of(self, node: c_ast.Node) -> int:
        """The declaration of the register variable ``node`` names."""
        v = self.address_of(c_ast.UnaryOp("&", node, node.coord))
        if isinstance(v.op, Ref):
            return v.op.key
        raise self.error(node, "unsupported: the address of this object")
