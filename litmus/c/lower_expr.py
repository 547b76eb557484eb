"""Lowering C expressions to IR operations (one thread's code, being built).

Every expression becomes ``Op``/``Load``/``Store``... in C's evaluation order (``&&``,
``||`` and ``?:`` branch), its value an operand (a register or a constant) with its C
type.  Integer arithmetic follows C's types: an unsigned result wraps (the IR's ``conv``),
a comparison between signed and unsigned compares unsigned.  Pointers are values:
addresses (an allocation and an offset, :class:`~litmus.base.ir.Sym`) that flow through
registers and memory; arithmetic on them counts elements.  Calls are :meth:`call`
(:mod:`litmus.c.lower_call`); a statement expression ``({ ... })`` is
:meth:`stmt_expr` (:mod:`litmus.c.lower_stmt`).
"""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import Assert, Branch, Imm, Label, Op, Operand, Reg, Sym
from herdsman.litmus.c.consts import BINOP, COMPARE, conv_code
from herdsman.litmus.c.ctype import VOID, CType, arithmetic, pointer_to
from herdsman.litmus.c.lvalues import LValueLowerer
from herdsman.litmus.c.scan import has_calls_or_writes, walk
from herdsman.litmus.c.values import Const, Local, MemLV, Ref, RegLV, Stack, Val, imm_int

#: results that wrap to their unsigned type
_WRAPS = frozenset({"add", "sub", "mul", "shl", "neg", "xor"})


class ExprLowerer(LValueLowerer):
    """Expressions (see the module docstring)."""

    def call(self, node: c_ast.FuncCall, dst: str | None, used: bool) -> Val:
        raise NotImplementedError  # lower_call.CallLowerer

    def stmt_expr(self, node: c_ast.Compound, dst: str | None) -> Val:
        raise NotImplementedError  # lower_stmt.CodeLowerer

    def expr(self, node: c_ast.Node, dst: str | None = None, used: bool = True) -> Val:
        """Lower ``node``; the value is an operand (``dst`` is a register the last
        operation may write directly; ``used`` False when the value is discarded)."""
        if isinstance(node, c_ast.Constant):
            return Val(Imm(self.constant(node)), self.value_type(node))
        if isinstance(node, c_ast.ID):
            return self.name_value(node, dst)
        if isinstance(node, c_ast.UnaryOp):
            return self.unary(node, dst, used)
        if isinstance(node, c_ast.BinaryOp):
            if node.op in ("&&", "||"):
                return self.logical(node, dst)
            return self.binary(node, dst)
        if isinstance(node, c_ast.Assignment):
            return self.assign(node, used)
        if isinstance(node, c_ast.TernaryOp):
            return self.ternary(node, dst)
        if isinstance(node, c_ast.Cast):
            t = self.resolve(node.to_type)
            v = self.expr(node.expr, None if t.kind == "int" else dst, used)
            if t.kind == "void":
                return Val(v.op, t)
            if t.kind == "ptr":
                return Val(v.op, t.plain())
            if t.kind == "int":
                return self.convert(v, t, dst)
            raise self.error(node, f"unsupported: cast to {t.show()}")
        if isinstance(node, c_ast.FuncCall):
            return self.call(node, dst, used)
        if isinstance(node, (c_ast.ArrayRef, c_ast.StructRef, c_ast.CompoundLiteral)):
            return self.load(self.lvalue(node), node, dst)
        if isinstance(node, c_ast.ExprList):
            v = Val(Imm(0), VOID)
            for i, e in enumerate(node.exprs):
                last = i == len(node.exprs) - 1
                v = self.expr(e, dst if last else None, used or not last)
            return v
        if isinstance(node, c_ast.Compound):
            return self.stmt_expr(node, dst)
        if isinstance(node, c_ast.GenericSelection):
            return self.expr(self.generic_choice(node), dst, used)
        raise self.error(node, f"unsupported expression ({type(node).__name__})")

    def name_value(self, node: c_ast.ID, dst: str | None) -> Val:
        b = self.lookup(node.name)
        if isinstance(b, Local):
            k = self.known.get(b.reg)
            return Val(Reg(b.reg) if k is None else Imm(k), b.ctype)
        if isinstance(b, Const):
            return Val(b.value if isinstance(b.value, Ref) else Imm(b.value), b.ctype)
        if b is None and node.name in self.ctx.types.enums:
            return Val(Imm(self.ctx.types.enums[node.name]), self.int_type())
        if b is None and (node.name in self.ctx.functions or node.name in self.ctx.prototypes):
            return Val(Imm(self.function_value(node.name)), self.value_type(node))
        if isinstance(b, Stack) and b.ctype.kind == "array":
            assert b.ctype.target is not None
            return Val(Imm(b.addr), pointer_to(b.ctype.target))
        return self.load(self.name_lvalue(node), node, dst)

    def value_op(self, fn: str, args: tuple[Operand, ...], dst: str | None) -> Reg:
        d = dst or self.temp()
        self.emit(Op(d, fn, args))
        return Reg(d)

    def wrap(self, op: Operand, t: CType, fn: str, dst: str | None) -> Operand:
        """``op``, the result of ``fn`` of type ``t``, wrapped to ``t`` when unsigned."""
        if t.kind != "int" or not t.bits or t.signed and fn != "shl" or fn not in _WRAPS:
            return op
        return self.value_op("conv", (op, Imm(conv_code(t))), dst)

    def address_of(self, node: c_ast.UnaryOp) -> Val:
        c = self.const_value(node)
        if isinstance(c, Sym):
            return Val(Imm(c), pointer_to(self.type_of(node.expr)))
        inner = node.expr
        if isinstance(inner, c_ast.UnaryOp) and inner.op == "*":  # &*p is p
            return self.expr(inner.expr)
        if isinstance(inner, c_ast.ID):
            b = self.lookup(inner.name)
            if isinstance(b, Local):  # a register variable: its address at compile time
                return Val(Ref(b.reg, b.key, b.ctype), pointer_to(b.ctype))
        lv = self.lvalue(inner)
        if isinstance(lv, RegLV):
            raise self.error(node, "unsupported: the address of this register")
        return Val(self.addr_operand(lv.addr), pointer_to(lv.ctype))

    def unary(self, node: c_ast.UnaryOp, dst: str | None, used: bool) -> Val:
        op = node.op
        if op == "&":
            return self.address_of(node)
        if op == "*":
            t = self.value_type(node.expr)
            if t.kind == "ptr" and t.target is not None and t.target.kind == "func":
                return self.expr(node.expr, dst)  # *fp is fp
            return self.load(self.lvalue(node), node, dst)
        if op in ("sizeof", "_Alignof"):
            c = self.const_value(node)
            assert isinstance(c, int)
            return Val(Imm(c), self.type_of(node))
        if op in ("++", "--", "p++", "p--"):
            return self.increment(node, used)
        v = self.expr(node.expr)
        t = self.type_of(node)
        if op == "+":
            return v
        x = imm_int(v.op)
        if x is not None:
            return self.convert(Val(Imm({"-": -x, "!": int(x == 0), "~": ~x}[op]), t), t)
        src = self.reg_of(v)
        if op == "-":
            return Val(self.wrap(self.value_op("neg", (src,), None), t, "neg", dst), t)
        if op == "!":
            if v.ctype.kind == "ptr":
                return Val(self.value_op("eq", (src, Imm(0)), dst), t)
            return Val(self.value_op("not", (src,), dst), t)
        if op == "~":
            return Val(self.wrap(self.value_op("xor", (src, Imm(-1)), None), t, "xor", dst), t)
        raise self.error(node, f"unsupported operator '{op}'")

    def increment(self, node: c_ast.UnaryOp, used: bool) -> Val:
        lv = self.lvalue(node.expr)
        fn = "add" if "+" in node.op else "sub"
        post = node.op.startswith("p")
        t = self.complete(lv.ctype)
        target = self.complete(t.target) if t.kind == "ptr" and t.target is not None else None
        step = Imm(target.size if target is not None and target.size else 1)
        if isinstance(lv, MemLV) and t.atomic:
            o = self.temp()
            self.emit(*self.map.rmw(o, lv.addr, fn, step, "sc"))
            if post or not used:
                return Val(Reg(o), t.plain())
            return Val(self.wrap(self.value_op(fn, (Reg(o), step), None), t, fn, None), t.plain())
        cur = self.load(lv, node)
        old: Operand = self.reg_of(cur)
        if isinstance(lv, RegLV) and post and used:
            old = Reg(self.temp())
            self.emit(Op(old.name, "mov", (Reg(lv.reg),)))
        new = self.store(lv, Val(self.value_op(fn, (self.reg_of(cur), step), None), t), node)
        return Val(old if post else self.reg_of(new), t.plain())

    def arith(self, fn: str, a: Val, b: Val, node: c_ast.Node, dst: str | None) -> Val:
        """``a fn b`` with C's pointer arithmetic (in elements) and integer types."""
        ta, tb = a.ctype, b.ctype
        if fn == "sub" and ta.kind == "ptr" and tb.kind == "ptr":
            size = self._step(ta)
            d = self.value_op("sub", (self.reg_of(a), self.reg_of(b)), None if size != 1 else dst)
            if size != 1:
                d = self.value_op("div", (d, Imm(size)), dst)
            return Val(d, self.type_of(node) if isinstance(node, c_ast.BinaryOp) else tb)
        if fn in ("add", "sub") and (ta.kind == "ptr" or tb.kind == "ptr"):
            if ta.kind != "ptr":
                a, b, ta, tb = b, a, tb, ta
            size = self._step(ta)
            x, y = self.reg_of(a), self.scale(self.reg_of(b), size)
            if isinstance(x, Imm) and isinstance(y, Imm):
                xv, yv = x.value, y.value
                if isinstance(xv, Sym) and isinstance(yv, int):
                    k = yv if fn == "add" else -yv
                    return Val(Imm(Sym(xv.name, xv.offset + k)), ta)
            return Val(self.value_op(fn, (x, y), dst), ta)
        if fn not in COMPARE and (ta.kind == "ptr" or tb.kind == "ptr"):
            if fn not in ("and", "or") or ta.kind == tb.kind:
                raise self.error(node, f"unsupported: operator '{fn}' on a pointer")
        rtype = arithmetic(ta, tb) if ta.kind == tb.kind == "int" else ta
        if fn in ("shl", "sra"):
            rtype = ta if ta.kind != "int" or ta.bits >= 32 or not ta.bits else self.int_type()
        x, y = self.reg_of(a), self.reg_of(b)
        if fn in COMPARE:
            if rtype.kind == "int" and rtype.bits and not rtype.signed:
                x = self.reg_of(self.convert(Val(x, ta), rtype))
                y = self.reg_of(self.convert(Val(y, tb), rtype))
            rtype = self.int_type()
        if isinstance(x, Imm) and isinstance(y, Imm):
            xv, yv = x.value, y.value
            if isinstance(xv, int) and isinstance(yv, int):
                return self.convert(Val(Imm(self.folded(node, fn, xv, yv)), rtype), rtype)
        return Val(self.wrap(self.value_op(fn, (x, y), None), rtype, fn, dst), rtype)

    def _step(self, t: CType) -> int:
        target = self.complete(t.target) if t.target is not None else None
        return target.size if target is not None and target.size else 1

    def scale(self, v: Operand, size: int) -> Operand:
        if size == 1:
            return v
        if isinstance(v, Imm) and isinstance(v.value, int):
            return Imm(v.value * size)
        return self.value_op("mul", (v, Imm(size)), None)

    def binary(self, node: c_ast.BinaryOp, dst: str | None) -> Val:
        fn = BINOP.get(node.op)
        if fn is None:
            raise self.error(node, f"unsupported operator '{node.op}'")
        a = self.expr(node.left)
        b = self.expr(node.right)
        if fn in ("eq", "ne") and (isinstance(a.op, Ref) or isinstance(b.op, Ref)):
            if a.op == b.op:
                return Val(Imm(int(fn == "eq")), self.int_type())
        divisor = b.op
        if fn in ("div", "mod") and (isinstance(divisor, Reg) or divisor == Imm(0)):
            assert isinstance(divisor, (Reg, Imm))
            self.divisor_check(divisor)
        return self.arith(fn, a, b, node, dst)

    def divisor_check(self, divisor: Operand) -> None:
        """C's division by zero is undefined: the execution is an error there (GenMC
        v0.11 dies of it, SIGFPE), not herd's quotient 0."""
        ok = self.temp()
        self.emit(Op(ok, "ne", (divisor, Imm(0))), Assert(ok, "ne", "division by zero"))

    def truth(self, v: Val) -> Operand:
        """0 or 1: whether ``v`` is not zero."""
        if isinstance(v.op, Ref):
            return Imm(1)
        if isinstance(v.op, Imm):
            return Imm(int(v.op.value != 0))
        return self.value_op("ne", (v.op, Imm(0)), None)

    def cond(self, node: c_ast.Node) -> str | int:
        """Lower a condition: a register whose value is not zero when it holds, or its
        truth (0 or 1) when it is known at compile time."""
        c = self.const_value(node)
        if c is not None and not has_calls_or_writes(node):
            return int(c != 0)
        v = self.expr(node)
        if isinstance(v.op, Ref):
            return 1
        if isinstance(v.op, Imm):
            return int(v.op.value != 0)
        if v.ctype.kind == "ptr" or v.ctype.kind == "int" and v.ctype.bits > 32:
            r = self.value_op("ne", (v.op, Imm(0)), None)
            assert isinstance(r, Reg)
            return r.name
        return v.op.name

    def pure(self, node: c_ast.Node) -> bool:
        """Whether ``node`` only reads locals and constants (no memory, no call)."""
        for n in walk(node):
            if isinstance(n, (c_ast.FuncCall, c_ast.Assignment, c_ast.ArrayRef, c_ast.Compound)):
                return False
            if isinstance(n, c_ast.StructRef):
                return False
            if isinstance(n, c_ast.UnaryOp) and n.op in ("*", "++", "--", "p++", "p--"):
                return False
            if isinstance(n, c_ast.ID) and not isinstance(self.lookup(n.name), (Local, Const)):
                if n.name not in self.ctx.types.enums:
                    return False
        return True

    def logical(self, node: c_ast.BinaryOp, dst: str | None) -> Val:
        c = self.const_value(node)
        it = self.int_type()
        if c is not None and not has_calls_or_writes(node):
            return Val(Imm(int(c != 0)), it)
        a = self.truth(self.expr(node.left))
        if isinstance(a, Imm):
            short = a.value == (0 if node.op == "&&" else 1)
            if short:
                return Val(a, it)
            return Val(self.truth(self.expr(node.right)), it)
        if self.pure(node.right):
            b = self.truth(self.expr(node.right))
            return Val(self.value_op("and" if node.op == "&&" else "or", (a, b), dst), it)
        t = self.temp()
        end = self.new_label()
        self.emit(Op(t, "mov", (a,)), Branch(end, "eq" if node.op == "&&" else "ne", t))
        b = self.truth(self.expr(node.right))
        self.emit(Op(t, "mov", (b,)), Label(end))
        return Val(Reg(t), it)

    def ternary(self, node: c_ast.TernaryOp, dst: str | None) -> Val:
        c = self.cond(node.cond)
        if isinstance(c, int):
            return self.expr(node.iftrue if c else node.iffalse, dst)
        t = dst or self.temp()
        rtype = self.value_type(node)
        other, end = self.new_label(), self.new_label()
        self.emit(Branch(other, "eq", c))
        a = self.convert(self.expr(node.iftrue, t), rtype, t)
        if a.op != Reg(t):
            self.emit(Op(t, "mov", (self.reg_of(a),)))
        self.emit(Branch(end), Label(other))
        b = self.convert(self.expr(node.iffalse, t), rtype, t)
        if b.op != Reg(t):
            self.emit(Op(t, "mov", (self.reg_of(b),)))
        self.emit(Label(end))
        return Val(Reg(t), rtype)

    def assign(self, node: c_ast.Assignment, used: bool) -> Val:
        lv = self.lvalue(node.lvalue)
        if node.op == "=":
            if isinstance(lv, RegLV):
                return self.store(lv, self.expr(node.rvalue, lv.reg), node)
            return self.store(lv, self.expr(node.rvalue), node)
        fn = BINOP.get(node.op[:-1])
        if fn is None:
            raise self.error(node, f"unsupported operator '{node.op}'")
        t = self.complete(lv.ctype)
        if isinstance(lv, MemLV) and t.atomic and fn in ("add", "sub", "and", "or", "xor"):
            v = self.expr(node.rvalue)
            o = self.temp() if used else None
            self.emit(*self.map.rmw(o, lv.addr, fn, self.reg_of(v), "sc"))
            if o is None:
                return Val(Imm(0), VOID)
            after = self.value_op(fn, (Reg(o), self.reg_of(v)), None)
            return Val(self.wrap(after, t, fn, None), t.plain())
        cur = self.load(lv, node)
        v = self.expr(node.rvalue)
        new = self.arith(fn, cur, v, node, lv.reg if isinstance(lv, RegLV) else None)
        return self.store(lv, new, node)
