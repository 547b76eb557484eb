"""Lowering C expressions to IR operations (one thread's code, being built).

:class:`ExprLowerer` holds a thread's code as it is emitted (operations and their
origins), its registers and labels, and the scopes of local names; it evaluates
constants at compile time (:meth:`const_value`), computes lvalues (a register, memory at
a summed address, or a static thread handle) and the value of every expression,
flattened to ``Op``/``Load``/``Store``... in C's evaluation order (``&&``, ``||`` and
``?:`` branch).  Calls are :meth:`call`, defined by :mod:`litmus.c.lower_call`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Branch, Imm, Instr, Label, Op, Operand, Reg, Sym, Value
from herdsman.litmus.base.numbers import ValueOutOfRange, int_op, parse_c_literal
from herdsman.litmus.c.context import Context
from herdsman.litmus.c.ctype import INT, VOID, CType, pointer_to
from herdsman.litmus.c.parse import node_error
from herdsman.litmus.c.scan import has_calls_or_writes, walk
from herdsman.litmus.c.target import Mapping

_BINOP = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "%": "mod",
    "&": "and",
    "|": "or",
    "^": "xor",
    "<<": "shl",
    ">>": "sra",
    "==": "eq",
    "!=": "ne",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
}
_COMPARE = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})


def fold(fn: str, a: int, b: int) -> int:
    """``fn(a, b)`` on integers, as the program computes it at run time
    (:func:`litmus.base.numbers.int_op`: C's truncating division, bounded values)."""
    return int_op(fn, a, b)


# ----------------------------------------------------------------------------- bindings


#: The most operations one thread may have after unrolling and inlining (a program
#: beyond it is no program an exhaustive explorer can finish).
MAX_OPS = 20_000


@dataclass
class Local:
    """A local variable: register ``reg``."""

    reg: str
    ctype: CType


@dataclass
class Const:
    """A name bound to a compile-time value (an unrolled loop's counter, a constant
    argument, a litmus test's pointer parameter)."""

    value: Value
    ctype: CType


@dataclass
class Handles:
    """A local ``pthread_t`` (or array of them): index -> thread id."""

    table: dict[tuple[str, int], int]
    name: str
    ctype: CType


Binding = Local | Const | Handles


# ----------------------------------------------------------------------------- lvalues


@dataclass(frozen=True)
class RegLV:
    reg: str
    ctype: CType


@dataclass(frozen=True)
class MemLV:
    addr: tuple[Operand, ...]
    ctype: CType


@dataclass(frozen=True)
class HandleLV:
    table: dict[tuple[str, int], int]
    key: tuple[str, int]


LValue = RegLV | MemLV | HandleLV


@dataclass(frozen=True)
class Val:
    op: Operand
    ctype: CType


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


class ExprLowerer:
    """One thread's code being built, and the lowering of expressions."""

    def __init__(self, ctx: Context, tid: int) -> None:
        self.ctx = ctx
        self.tid = tid
        self.path = ctx.path
        self.map = Mapping(ctx.target, self.new_label, herd=ctx.lkmm)
        self.code: list[Instr] = []
        self.targets: set[str] = set()  # labels some branch of ``code`` jumps to
        self.origins: list[str] = []
        self.origin = ""
        self.used: set[str] = {"cr0"}
        self.ntemp = 0
        self.nlabel = 0
        self.scopes: list[dict[str, Binding]] = [{}]

    # ---- emission and names
    def emit(self, *ops: Instr) -> None:
        for op in ops:
            self.code.append(op)
            self.origins.append(self.origin)
            if type(op) is Branch:
                self.targets.add(op.target)
        if len(self.code) > MAX_OPS:
            raise InputError(
                self.path,
                0,
                0,
                f"unsupported: a thread of more than {MAX_OPS} operations once its loops "
                "are unrolled and its functions inlined",
            )

    def error(self, node: c_ast.Node | None, message: str) -> InputError:
        return node_error(node, self.path, message)

    def fresh(self, base: str) -> str:
        """A new register named ``base`` (``base.2``... when taken)."""
        name, n = base, 1
        while name in self.used:
            n += 1
            name = f"{base}.{n}"
        self.used.add(name)
        return name

    def temp(self) -> str:
        while True:
            self.ntemp += 1
            name = f"t.{self.ntemp}"
            if name not in self.used:
                self.used.add(name)
                return name

    def new_label(self) -> str:
        self.nlabel += 1
        return f"L.{self.nlabel}"

    def lookup(self, name: str) -> Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def call(self, node: c_ast.FuncCall, dst: str | None, used: bool) -> Val:
        raise NotImplementedError  # lower_call.CallLowerer

    # ---- constants
    def const_value(self, node: c_ast.Node | None) -> Value | None:
        """The value of ``node`` if it is known at compile time, else None."""
        if isinstance(node, c_ast.Constant):
            return self.constant(node)
        if isinstance(node, c_ast.ID):
            bound = self.lookup(node.name)
            if isinstance(bound, Const):
                return bound.value
            if bound is None and node.name in self.ctx.types.enums:
                return self.ctx.types.enums[node.name]
            if bound is None and node.name in self.ctx.globals:
                t = self.ctx.globals[node.name]
                return Sym(node.name) if t.kind == "array" else None
            return None
        if isinstance(node, c_ast.Cast):
            return self.const_value(node.expr)
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "&":
                place = self.const_address(node.expr)
                return place[0] if place is not None else None
            if node.op == "sizeof":
                return self.sizeof(node.expr)
            v = self.const_value(node.expr)
            if not isinstance(v, int):
                return None
            return {"-": -v, "+": v, "!": int(v == 0), "~": ~v}.get(node.op)
        if isinstance(node, c_ast.BinaryOp):
            a, b = self.const_value(node.left), self.const_value(node.right)
            if node.op == "&&" and a == 0 or node.op == "||" and isinstance(a, int) and a:
                return int(bool(a))
            if a is None or b is None:
                return None
            if node.op in ("&&", "||"):
                if not (isinstance(a, int) and isinstance(b, int)):
                    return None
                return int(bool(a) and bool(b)) if node.op == "&&" else int(bool(a) or bool(b))
            fn = _BINOP.get(node.op)
            if fn is None:
                return None
            if isinstance(a, int) and isinstance(b, int):
                return self.folded(node, fn, a, b)
            if isinstance(a, Sym) and isinstance(b, int) and fn in ("add", "sub"):
                return Sym(a.name, a.offset + (b if fn == "add" else -b))
            return None
        if isinstance(node, c_ast.TernaryOp):
            c = self.const_value(node.cond)
            if c is None:
                return None
            return self.const_value(node.iftrue if c != 0 else node.iffalse)
        return None

    def const_address(self, node: c_ast.Node) -> tuple[Sym, CType] | None:
        """The address and type of a global object named by a constant lvalue."""
        if isinstance(node, c_ast.ID):
            if self.lookup(node.name) is not None or node.name not in self.ctx.globals:
                return None
            return Sym(node.name), self.ctx.globals[node.name]
        if isinstance(node, c_ast.ArrayRef):
            base = self.const_address(node.name)
            i = self.const_value(node.subscript)
            if base is None or not isinstance(i, int) or base[1].kind != "array":
                return None
            elem = base[1].target
            assert elem is not None
            return Sym(base[0].name, base[0].offset + i * elem.size), elem
        if isinstance(node, c_ast.StructRef) and node.type == ".":
            base = self.const_address(node.name)
            if base is None or base[1].kind != "struct":
                return None
            f = base[1].field(node.field.name)
            if f is None:
                return None
            return Sym(base[0].name, base[0].offset + f[0]), f[1]
        return None

    def folded(self, node: c_ast.Node, fn: str, a: int, b: int) -> int:
        """``fold(fn, a, b)``; a value beyond the bound is an error at ``node``."""
        try:
            return fold(fn, a, b)
        except ValueOutOfRange as e:
            raise self.error(node, str(e)) from None

    def constant(self, node: c_ast.Constant) -> int:
        v = node.value
        if node.type == "char":
            body = v[1:-1]
            escapes = {"\\n": 10, "\\t": 9, "\\0": 0, "\\\\": 92, "\\'": 39}
            if body in escapes:
                return escapes[body]
            if len(body) == 1:
                return ord(body)
            raise self.error(node, f"unsupported character constant {v}")
        if node.type == "string":
            raise self.error(node, "unsupported: string literal")
        if node.type in ("float", "double", "long double"):
            raise self.error(node, f"unsupported: floating constant {v}")
        try:
            return parse_c_literal(v)
        except ValueOutOfRange as e:
            raise self.error(node, str(e)) from None
        except ValueError:
            raise self.error(node, f"bad integer constant {v}") from None

    def sizeof(self, node: c_ast.Node) -> int:
        """``sizeof``: 4 bytes a cell (only ratios of sizes are meaningful here)."""
        if isinstance(node, c_ast.Typename):
            return 4 * self.resolve(node).size
        return 4 * self.type_of(node).size

    def resolve(self, node: c_ast.Node) -> CType:
        return self.ctx.types.resolve(node, self.const_value)

    def type_of(self, node: c_ast.Node) -> CType:
        """The type of an lvalue expression, without evaluating it (``sizeof x``)."""
        if isinstance(node, c_ast.ID):
            b = self.lookup(node.name)
            if b is not None:
                return b.ctype
            if node.name in self.ctx.globals:
                return self.ctx.globals[node.name]
        if isinstance(node, c_ast.ArrayRef):
            t = self.type_of(node.name)
            if t.target is not None:
                return t.target
        raise self.error(node, "unsupported: sizeof of this expression")

    # ---- addresses and lvalues
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

    def lvalue(self, node: c_ast.Node) -> LValue:
        if isinstance(node, c_ast.ID):
            return self.name_lvalue(node)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            v = self.expr(node.expr)
            if v.ctype.kind != "ptr" or v.ctype.target is None:
                raise self.error(node, "dereference of a value that is not a pointer")
            if v.ctype.target.kind == "void":
                raise self.error(node, "dereference of a void pointer (cast it first)")
            return MemLV((v.op,), v.ctype.target)
        if isinstance(node, c_ast.ArrayRef):
            return self.index_lvalue(node)
        if isinstance(node, c_ast.StructRef):
            if node.type == ".":
                base = self.lvalue(node.name)
                if not isinstance(base, MemLV) or base.ctype.kind != "struct":
                    raise self.error(node, "'.' on a value that is not a global struct")
                return self.field_lvalue(node, base.addr, base.ctype)
            v = self.expr(node.name)
            t = v.ctype.target
            if v.ctype.kind != "ptr" or t is None or t.kind != "struct":
                raise self.error(node, "'->' on a value that is not a pointer to a struct")
            return self.field_lvalue(node, (v.op,), t)
        if isinstance(node, c_ast.Cast):
            return self.lvalue(node.expr)
        raise self.error(node, "not an assignable expression")

    def field_lvalue(self, node: c_ast.StructRef, addr: tuple[Operand, ...], t: CType) -> MemLV:
        f = t.field(node.field.name)
        if f is None:
            raise self.error(node.field, f"struct {t.name} has no field '{node.field.name}'")
        return MemLV(add_offset(addr, f[0]), f[1])

    def name_lvalue(self, node: c_ast.ID) -> LValue:
        b = self.lookup(node.name)
        if isinstance(b, Local):
            return RegLV(b.reg, b.ctype)
        if isinstance(b, Handles):
            return HandleLV(b.table, (b.name, 0))
        if isinstance(b, Const):
            raise self.error(node, f"cannot assign to '{node.name}' here (a compile-time value)")
        if node.name in self.ctx.globals:
            t = self.ctx.globals[node.name]
            if t.kind == "handle" or t.kind == "array" and t.target and t.target.kind == "handle":
                return HandleLV(self.ctx.handles, (node.name, 0))
            return MemLV((Imm(Sym(node.name)),), t)
        if node.name in self.ctx.functions or node.name in self.ctx.prototypes:
            raise self.error(node, f"unsupported: function pointer ('{node.name}')")
        raise self.error(node, f"undeclared identifier '{node.name}'")

    def index_lvalue(self, node: c_ast.ArrayRef) -> LValue:
        base_node = node.name
        if isinstance(base_node, c_ast.ID | c_ast.ArrayRef | c_ast.StructRef):
            base = self.lvalue(base_node) if self.is_array(base_node) else None
        else:
            base = None
        if isinstance(base, HandleLV):
            i = self.const_value(node.subscript)
            if not isinstance(i, int):
                raise self.error(
                    node.subscript, "the index of a pthread_t array must be a constant"
                )
            return HandleLV(base.table, (base.key[0], i))
        if isinstance(base, MemLV):
            elem = base.ctype.target
            addr = base.addr
        else:
            v = self.expr(base_node)
            if v.ctype.kind != "ptr" or v.ctype.target is None:
                raise self.error(node, "subscript of a value that is not an array or pointer")
            elem = v.ctype.target
            addr = (v.op,)
        assert elem is not None
        sub = self.expr(node.subscript)
        if isinstance(sub.op, Imm) and isinstance(sub.op.value, int):
            return MemLV(add_offset(addr, sub.op.value * elem.size), elem)
        idx = sub.op
        if elem.size != 1:
            t = self.temp()
            self.emit(Op(t, "mul", (idx, Imm(elem.size))))
            idx = Reg(t)
        return MemLV((*addr, idx), elem)

    def is_array(self, node: c_ast.Node) -> bool:
        """Whether ``node`` names an array object (as opposed to a pointer value)."""
        if isinstance(node, c_ast.ID):
            b = self.lookup(node.name)
            if isinstance(b, Handles):
                return True
            if b is not None:
                return False
            t = self.ctx.globals.get(node.name)
            return t is not None and t.kind == "array"
        try:
            return self.type_of(node).kind == "array"
        except InputError:
            return False

    # ---- reading and writing lvalues
    def load(self, lv: LValue, node: c_ast.Node, dst: str | None = None) -> Val:
        if isinstance(lv, RegLV):
            return Val(Reg(lv.reg), lv.ctype)
        if isinstance(lv, HandleLV):
            raise self.error(node, "unsupported: pthread_t used as a value")
        t = lv.ctype
        if t.kind == "array":
            assert t.target is not None
            return Val(self.addr_operand(lv.addr), pointer_to(t.target))
        if t.kind == "struct":
            raise self.error(node, "unsupported: struct value (access its fields)")
        if t.kind == "func":
            raise self.error(node, "unsupported: function pointer")
        d = dst or self.temp()
        self.emit(*self.map.load(d, lv.addr, self.map.plain(t.atomic)))
        return Val(Reg(d), CType(t.kind, False, t.target))

    def store(self, lv: LValue, v: Operand, node: c_ast.Node) -> None:
        if isinstance(lv, RegLV):
            self.emit(Op(lv.reg, "mov", (v,)))
            return
        if isinstance(lv, HandleLV):
            raise self.error(node, "unsupported: assignment of a pthread_t")
        if not lv.ctype.scalar:
            raise self.error(node, f"unsupported: assignment of a {lv.ctype.show()}")
        self.emit(*self.map.store(v, lv.addr, self.map.plain(lv.ctype.atomic)))

    # ---- expressions
    def expr(self, node: c_ast.Node, dst: str | None = None, used: bool = True) -> Val:
        """Lower ``node``; the value is an operand (``dst`` is a register the last
        operation may write directly; ``used`` False when the value is discarded)."""
        if isinstance(node, c_ast.Constant):
            return Val(Imm(self.constant(node)), INT)
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
            return self.ternary(node)
        if isinstance(node, c_ast.Cast):
            v = self.expr(node.expr, dst, used)
            t = self.resolve(node.to_type)
            if t.kind in ("ptr", "int") and v.ctype.kind in ("ptr", "int"):
                return Val(v.op, CType(t.kind, False, t.target))
            return Val(v.op, t if t.kind == "void" else v.ctype)
        if isinstance(node, c_ast.FuncCall):
            return self.call(node, dst, used)
        if isinstance(node, c_ast.ArrayRef | c_ast.StructRef):
            return self.load(self.lvalue(node), node, dst)
        if isinstance(node, c_ast.ExprList):
            v = Val(Imm(0), VOID)
            for i, e in enumerate(node.exprs):
                last = i == len(node.exprs) - 1
                v = self.expr(e, dst if last else None, used or not last)
            return v
        if isinstance(node, c_ast.CompoundLiteral):
            raise self.error(node, "unsupported: compound literal")
        raise self.error(node, f"unsupported expression ({type(node).__name__})")

    def name_value(self, node: c_ast.ID, dst: str | None) -> Val:
        b = self.lookup(node.name)
        if isinstance(b, Local):
            return Val(Reg(b.reg), b.ctype)
        if isinstance(b, Const):
            return Val(Imm(b.value), b.ctype)
        if b is None and node.name in self.ctx.types.enums:
            return Val(Imm(self.ctx.types.enums[node.name]), INT)
        return self.load(self.name_lvalue(node), node, dst)

    def value_op(self, fn: str, args: tuple[Operand, ...], dst: str | None) -> Reg:
        d = dst or self.temp()
        self.emit(Op(d, fn, args))
        return Reg(d)

    def unary(self, node: c_ast.UnaryOp, dst: str | None, used: bool) -> Val:
        op = node.op
        if op == "&":
            c = self.const_value(node)
            if isinstance(c, Sym):
                a = self.const_address(node.expr)
                assert a is not None
                return Val(Imm(c), pointer_to(a[1]))
            lv = self.lvalue(node.expr)
            if isinstance(lv, RegLV):
                raise self.error(node, "unsupported: address of a local variable")
            if isinstance(lv, HandleLV):
                raise self.error(node, "unsupported: address of a pthread_t here")
            return Val(self.addr_operand(lv.addr), pointer_to(lv.ctype))
        if op == "*":
            return self.load(self.lvalue(node), node, dst)
        if op == "sizeof":
            return Val(Imm(self.sizeof(node.expr)), INT)
        if op in ("++", "--", "p++", "p--"):
            return self.increment(node, used)
        v = self.expr(node.expr)
        if op == "+":
            return v
        if isinstance(v.op, Imm) and isinstance(v.op.value, int):
            x = v.op.value
            return Val(Imm({"-": -x, "!": int(x == 0), "~": ~x}[op]), INT)
        if op == "-":
            return Val(self.value_op("neg", (v.op,), dst), INT)
        if op == "!":
            if v.ctype.kind == "ptr":
                return Val(self.value_op("eq", (v.op, Imm(0)), dst), INT)
            return Val(self.value_op("not", (v.op,), dst), INT)
        if op == "~":
            return Val(self.value_op("xor", (v.op, Imm(-1)), dst), INT)
        raise self.error(node, f"unsupported operator '{op}'")

    def increment(self, node: c_ast.UnaryOp, used: bool) -> Val:
        lv = self.lvalue(node.expr)
        fn = "add" if "+" in node.op else "sub"
        post = node.op.startswith("p")
        t = lv.ctype if not isinstance(lv, HandleLV) else INT
        step = Imm(t.target.size if t.kind == "ptr" and t.target and t.target.size else 1)
        if isinstance(lv, RegLV):
            old: Operand = Reg(lv.reg)
            if post and used:
                old = Reg(self.temp())
                self.emit(Op(old.name, "mov", (Reg(lv.reg),)))
            self.emit(Op(lv.reg, fn, (Reg(lv.reg), step)))
            return Val(old if post else Reg(lv.reg), t)
        if isinstance(lv, MemLV) and t.atomic:
            o = self.temp()
            self.emit(*self.map.rmw(o, lv.addr, fn, step, "sc"))
            if post or not used:
                return Val(Reg(o), t)
            return Val(self.value_op(fn, (Reg(o), step), None), t)
        cur = self.load(lv, node)
        new = self.value_op(fn, (cur.op, step), None)
        self.store(lv, new, node)
        return Val(cur.op if post else new, t)

    def arith(self, fn: str, a: Val, b: Val, node: c_ast.Node, dst: str | None) -> Val:
        """``a fn b`` with C's pointer arithmetic (in elements)."""
        ta, tb = a.ctype, b.ctype
        rtype = INT
        if fn in ("add", "sub") and ta.kind == "ptr" and tb.kind == "ptr" and fn == "sub":
            size = ta.target.size if ta.target else 1
            d = self.value_op("sub", (a.op, b.op), None if size != 1 else dst)
            if size != 1:
                d = self.value_op("div", (d, Imm(size)), dst)
            return Val(d, INT)
        if fn in ("add", "sub") and (ta.kind == "ptr" or tb.kind == "ptr"):
            if ta.kind != "ptr":
                a, b, ta, tb = b, a, tb, ta
            rtype = CType("ptr", False, ta.target)
            size = ta.target.size if ta.target and ta.target.size else 1
            if size != 1:
                b = Val(self.scale(b.op, size), INT)
        elif fn not in _COMPARE and (ta.kind == "ptr" or tb.kind == "ptr"):
            raise self.error(node, f"unsupported: operator '{fn}' on a pointer")
        x, y = a.op, b.op
        if isinstance(x, Imm) and isinstance(y, Imm):
            xv, yv = x.value, y.value
            if isinstance(xv, int) and isinstance(yv, int):
                return Val(Imm(self.folded(node, fn, xv, yv)), rtype)
            if isinstance(xv, Sym) and isinstance(yv, int) and fn in ("add", "sub"):
                k = yv if fn == "add" else -yv
                return Val(Imm(Sym(xv.name, xv.offset + k)), rtype)
        return Val(self.value_op(fn, (x, y), dst), rtype)

    def scale(self, v: Operand, size: int) -> Operand:
        if isinstance(v, Imm) and isinstance(v.value, int):
            return Imm(v.value * size)
        return self.value_op("mul", (v, Imm(size)), None)

    def binary(self, node: c_ast.BinaryOp, dst: str | None) -> Val:
        fn = _BINOP.get(node.op)
        if fn is None:
            raise self.error(node, f"unsupported operator '{node.op}'")
        a = self.expr(node.left)
        b = self.expr(node.right)
        return self.arith(fn, a, b, node, dst)

    def truth(self, v: Val) -> Operand:
        """0 or 1: whether ``v`` is not zero."""
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
        if isinstance(v.op, Imm):
            return int(v.op.value != 0)
        if v.ctype.kind == "ptr":
            return self.value_op("ne", (v.op, Imm(0)), None).name
        return v.op.name

    def pure(self, node: c_ast.Node) -> bool:
        """Whether ``node`` only reads locals and constants (no memory, no call)."""
        for n in walk(node):
            if isinstance(n, c_ast.FuncCall | c_ast.Assignment | c_ast.ArrayRef):
                return False
            if isinstance(n, c_ast.StructRef):
                return False
            if isinstance(n, c_ast.UnaryOp) and n.op in ("*", "++", "--", "p++", "p--"):
                return False
            if isinstance(n, c_ast.ID) and self.lookup(n.name) is None:
                if n.name in self.ctx.globals:
                    return False
        return True

    def logical(self, node: c_ast.BinaryOp, dst: str | None) -> Val:
        c = self.const_value(node)
        if c is not None and not has_calls_or_writes(node):
            return Val(Imm(int(c != 0)), INT)
        a = self.truth(self.expr(node.left))
        if isinstance(a, Imm):
            short = a.value == (0 if node.op == "&&" else 1)
            if short:
                return Val(a, INT)
            return Val(self.truth(self.expr(node.right)), INT)
        if self.pure(node.right):
            b = self.truth(self.expr(node.right))
            return Val(self.value_op("and" if node.op == "&&" else "or", (a, b), dst), INT)
        t = self.temp()
        end = self.new_label()
        self.emit(Op(t, "mov", (a,)), Branch(end, "eq" if node.op == "&&" else "ne", t))
        b = self.truth(self.expr(node.right))
        self.emit(Op(t, "mov", (b,)), Label(end))
        return Val(Reg(t), INT)

    def ternary(self, node: c_ast.TernaryOp) -> Val:
        c = self.cond(node.cond)
        if isinstance(c, int):
            return self.expr(node.iftrue if c else node.iffalse)
        t = self.temp()
        other, end = self.new_label(), self.new_label()
        self.emit(Branch(other, "eq", c))
        a = self.expr(node.iftrue, t)
        if a.op != Reg(t):
            self.emit(Op(t, "mov", (a.op,)))
        self.emit(Branch(end), Label(other))
        b = self.expr(node.iffalse, t)
        if b.op != Reg(t):
            self.emit(Op(t, "mov", (b.op,)))
        self.emit(Label(end))
        return Val(Reg(t), a.ctype if a.ctype.kind == "ptr" else b.ctype)

    def assign(self, node: c_ast.Assignment, used: bool) -> Val:
        lv = self.lvalue(node.lvalue)
        if isinstance(lv, HandleLV):
            raise self.error(node, "unsupported: assignment of a pthread_t")
        if node.op == "=":
            if isinstance(lv, RegLV):
                v = self.expr(node.rvalue, lv.reg)
                if v.op != Reg(lv.reg):
                    self.emit(Op(lv.reg, "mov", (v.op,)))
                return Val(Reg(lv.reg), lv.ctype)
            v = self.expr(node.rvalue)
            self.store(lv, v.op, node)
            return Val(v.op, lv.ctype)
        fn = _BINOP.get(node.op[:-1])
        if fn is None:
            raise self.error(node, f"unsupported operator '{node.op}'")
        if isinstance(lv, MemLV) and lv.ctype.atomic and fn in ("add", "sub", "and", "or", "xor"):
            v = self.expr(node.rvalue)
            o = self.temp() if used else None
            self.emit(*self.map.rmw(o, lv.addr, fn, v.op, "sc"))
            if o is None:
                return Val(Imm(0), VOID)
            return Val(self.value_op(fn, (Reg(o), v.op), None), lv.ctype)
        cur = self.load(lv, node)
        v = self.expr(node.rvalue)
        dst = lv.reg if isinstance(lv, RegLV) else None
        new = self.arith(fn, cur, v, node, dst)
        if isinstance(lv, RegLV):
            if new.op != Reg(lv.reg):
                self.emit(Op(lv.reg, "mov", (new.op,)))
        else:
            self.store(lv, new.op, node)
        return Val(new.op, lv.ctype)
