"""What the lowering knows of C expressions without running them: their value when it is
a compile-time constant (:meth:`ConstEval.const_value`: integers, enumerators, addresses
of globals, string literals, ``sizeof``, ``offsetof``), and their type
(:meth:`ConstEval.type_of`, for ``typeof`` and ``sizeof``)."""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.ir import Sym, Value
from herdsman.litmus.base.numbers import ValueOutOfRange, parse_c_literal
from herdsman.litmus.c.ctype import (
    BOOL,
    CHAR,
    INT,
    LONG,
    ULONG,
    UNBOUNDED,
    VOID,
    CType,
    arithmetic,
    pointer_to,
)
from herdsman.litmus.c.fold import convert_int, fold
from herdsman.litmus.c.lower_base import LowerBase
from herdsman.litmus.c.scan import text
from herdsman.litmus.c.values import Const, Local, Ref, Stack

BINOP = {
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
COMPARE = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
#: a function's address, as a value
FUNCTION_PREFIX = "fn:"


def conv_code(t: CType) -> int:
    """The immediate of the IR's ``conv`` operation converting to ``t`` (its bits,
    negative when signed)."""
    return -t.bits if t.signed and t.bits > 1 else t.bits


class ConstEval(LowerBase):
    """Compile-time values and types of expressions (see the module docstring).
    ``fold_globals``: a global nothing writes counts as its initial value (while
    unrolling a loop that starts threads: GenMC reads it at run time, and that read is
    an event like any other)."""

    fold_globals = False
    use_known = False  # registers the code so far fixes count (a loop's entry)

    def int_type(self) -> CType:
        return INT if self.ctx.types.widths else UNBOUNDED

    def resolve(self, node: c_ast.Node) -> CType:
        types = self.ctx.types
        types.type_of = self.type_of
        types.value_of = self.const_value
        return types.resolve(node, self.const_value)

    def complete(self, t: CType) -> CType:
        return self.ctx.types.complete(t)

    # ---- constants
    def const_value(self, node: c_ast.Node | None) -> Value | None:
        """The value of ``node`` if it is known at compile time, else None."""
        if isinstance(node, c_ast.Constant):
            return self.constant(node)
        if isinstance(node, c_ast.ID):
            b = self.lookup(node.name)
            if isinstance(b, Const):
                return b.value if not isinstance(b.value, Ref) else None
            if isinstance(b, Local) and self.use_known:
                return self.known.get(b.reg)
            if isinstance(b, Stack):
                return b.addr if b.ctype.kind == "array" else None
            if b is None and node.name in self.ctx.types.enums:
                return self.ctx.types.enums[node.name]
            if b is None and (node.name in self.ctx.functions or node.name in self.ctx.prototypes):
                return self.function_value(node.name)
            if b is None and node.name in self.ctx.globals:
                t = self.ctx.globals[node.name]
                if self.fold_globals and node.name in self.ctx.constant:
                    return self.ctx.memory.get(node.name, 0)
                return Sym(node.name) if t.kind == "array" else None
            if b is None and node.name in self.ctx.tls:
                t = self.ctx.tls[node.name]
                return self.thread_local(node.name) if t.kind == "array" else None
            return None
        if isinstance(node, c_ast.Cast):
            v = self.const_value(node.expr)
            if isinstance(v, int):
                t = self.resolve(node.to_type)
                return convert_int(v, t) if t.kind == "int" else v
            return v
        if isinstance(node, c_ast.UnaryOp):
            return self._const_unary(node)
        if isinstance(node, c_ast.BinaryOp):
            return self._const_binary(node)
        if isinstance(node, c_ast.TernaryOp):
            c = self.const_value(node.cond)
            if c is None:
                return None
            return self.const_value(node.iftrue if c != 0 else node.iffalse)
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            if node.name.name == "offsetof" and node.args is not None:
                return self.offsetof(node)
        if isinstance(node, c_ast.GenericSelection):
            return self.const_value(self.generic_choice(node))
        return None

    def generic_choice(self, node: c_ast.GenericSelection) -> c_ast.Node:
        """The expression ``_Generic`` selects: the association of the controlling
        expression's type (with its ``_Atomic``, else without), else the default."""
        t = (
            self.value_type(node.expr)
            if self.type_of(node.expr).kind == "array"
            else self.type_of(node.expr)
        )
        default = None
        for want in (t, t.plain()):
            for assoc in node.associations:
                if assoc.type is None:
                    default = assoc.expr
                elif self.resolve(assoc.type) == want:
                    return assoc.expr
        if default is None:
            raise self.error(node, f"_Generic: no association for {t.show()}")
        return default

    def _const_unary(self, node: c_ast.UnaryOp) -> Value | None:
        if node.op == "&":
            inner = node.expr
            if isinstance(inner, c_ast.ID) and self.lookup(inner.name) is None:
                if inner.name in self.ctx.functions or inner.name in self.ctx.prototypes:
                    return self.function_value(inner.name)  # &f is f
            a = self.const_address(inner)
            return a[0] if a is not None else None
        if node.op in ("sizeof", "_Alignof"):
            return self.sizeof(node.expr) if node.op == "sizeof" else 1
        v = self.const_value(node.expr)
        if isinstance(v, Sym) and node.op == "!":
            return 0
        if not isinstance(v, int):
            return None
        return {"-": -v, "+": v, "!": int(v == 0), "~": ~v}.get(node.op)

    def _const_binary(self, node: c_ast.BinaryOp) -> Value | None:
        a, b = self.const_value(node.left), self.const_value(node.right)
        if node.op == "&&" and a == 0 or node.op == "||" and isinstance(a, int) and a:
            return int(bool(a))
        if a is None or b is None:
            return None
        if node.op in ("&&", "||"):
            ta, tb = (
                bool(a) if isinstance(a, int) else True,
                bool(b) if isinstance(b, int) else True,
            )
            return int(ta and tb) if node.op == "&&" else int(ta or tb)
        fn = BINOP.get(node.op)
        if fn is None:
            return None
        if isinstance(a, int) and isinstance(b, int):
            return self.folded(node, fn, a, b)
        if isinstance(a, Sym) and isinstance(b, int) and fn in ("add", "sub"):
            scale = self.elem_size(node.left)
            return Sym(a.name, a.offset + (b if fn == "add" else -b) * scale)
        if isinstance(a, Sym) and isinstance(b, Sym) and fn in ("eq", "ne"):
            return int((a == b) == (fn == "eq"))
        return None

    def folded(self, node: c_ast.Node, fn: str, a: int, b: int) -> int:
        """``fold(fn, a, b)``; a value beyond the bound is an error at ``node``."""
        try:
            return fold(fn, a, b)
        except ValueOutOfRange as e:
            raise self.error(node, f"'{text(node)}': {e}") from None

    def elem_size(self, node: c_ast.Node) -> int:
        """The cells a pointer (or array) expression's step covers (1 when unknown)."""
        t = self.type_of(node)
        target = self.complete(t.target) if t.target is not None else None
        return target.size if target is not None and target.size else 1

    def function_value(self, name: str) -> Sym:
        """The address of function ``name`` (a value calls can go through)."""
        self.ctx.pointed.add(name)
        return Sym(FUNCTION_PREFIX + name)

    def const_address(self, node: c_ast.Node) -> tuple[Sym, CType] | None:
        """The address and type of a global, thread-local or memory-local object named
        by a constant lvalue."""
        if isinstance(node, c_ast.ID):
            b = self.lookup(node.name)
            if isinstance(b, Stack):
                return b.addr, b.ctype
            if b is not None:
                return None
            if node.name in self.ctx.globals:
                return Sym(node.name), self.ctx.globals[node.name]
            if node.name in self.ctx.tls:
                return self.thread_local(node.name), self.ctx.tls[node.name]
            return None
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
            if base is None or base[1].kind not in ("struct", "union"):
                return None
            f = self.complete(base[1]).field(node.field.name)
            if f is None:
                return None
            return Sym(base[0].name, base[0].offset + f[0]), f[1]
        if isinstance(node, c_ast.Constant) and node.type == "string":
            return self.string(node), CType("array", target=CHAR, length=1)
        return None

    def constant(self, node: c_ast.Constant) -> Value:
        v = node.value
        if node.type == "char":
            chars = _string_chars(f'"{v[1:-1]}"') if v.startswith("'") else None
            if chars is None or len(chars) != 1:
                raise self.error(node, f"unsupported character constant {v}")
            return chars[0]
        if node.type == "string":
            return self.string(node)
        if node.type == "bool":
            return int(v == "true")
        if node.type in ("float", "double", "long double"):
            raise self.error(node, f"unsupported: floating constant {v}")
        try:
            return parse_c_literal(v.replace("'", ""))
        except ValueOutOfRange as e:
            raise self.error(node, str(e)) from None
        except ValueError:
            raise self.error(node, f"bad integer constant {v}") from None

    def string(self, node: c_ast.Constant) -> Sym:
        """The address of a string literal: a read-only array of its characters."""
        text = node.value
        got = self.ctx.strings.get(text)
        if got is None:
            chars = _string_chars(text)
            if chars is None:
                raise self.error(node, f"unsupported string literal {text[:20]}")
            got = self.ctx.strings[text] = Sym(f"str.{len(self.ctx.strings) + 1}")
            t = CType("array", target=CHAR, length=len(chars) + 1)
            self.ctx.cells(got, t, dict(enumerate(chars)))
        return got

    def offsetof(self, node: c_ast.FuncCall) -> int:
        assert node.args is not None
        typ, member = node.args.exprs
        t = self.complete(self.resolve(typ))
        off = 0
        for part in _designator_path(member):
            if isinstance(part, str):
                f = t.field(part) if t.kind in ("struct", "union") else None
                if f is None:
                    raise self.error(node, f"offsetof: no field '{part}' in {t.show()}")
                off, t = off + f[0], self.complete(f[1])
            else:
                i = self.const_value(part)
                if not isinstance(i, int) or t.kind != "array" or t.target is None:
                    raise self.error(node, "offsetof: a constant index into an array")
                off, t = off + i * t.target.size, self.complete(t.target)
        return off

    def sizeof(self, node: c_ast.Node) -> int:
        """``sizeof``: in cells (one per scalar), as pointer arithmetic counts."""
        t = self.resolve(node) if isinstance(node, c_ast.Typename) else self.type_of(node)
        return max(self.complete(t).size, 1) if t.kind != "void" else 1

    # ---- types of expressions
    def type_of(self, node: c_ast.Node) -> CType:
        """The type of an expression, without lowering it (``typeof``, ``sizeof``)."""
        return self._type(node)

    def _type(self, node: c_ast.Node) -> CType:
        if isinstance(node, c_ast.ID):
            return self._name_type(node)
        if isinstance(node, c_ast.Constant):
            if node.type == "string":
                return CType("array", target=CHAR, length=len(node.value) - 1)
            if node.type == "char":
                return CHAR
            suffix = node.value.lower().rstrip("0123456789abcdefx'")
            t = LONG if "l" in suffix else self.int_type()
            return ULONG if "u" in suffix and "l" in suffix else t
        if isinstance(node, c_ast.Cast):
            return self.resolve(node.to_type)
        if isinstance(node, c_ast.UnaryOp):
            return self._unary_type(node)
        if isinstance(node, c_ast.BinaryOp):
            fn = BINOP.get(node.op)
            if node.op in ("&&", "||") or fn in COMPARE:
                return self.int_type()
            a, b = self.value_type(node.left), self.value_type(node.right)
            if a.kind == "ptr" and b.kind == "ptr":
                return LONG
            if a.kind == "ptr" or b.kind == "ptr":
                return a if a.kind == "ptr" else b
            return arithmetic(a, b) if fn not in ("shl", "sra") else a
        if isinstance(node, c_ast.Assignment):
            return self.type_of(node.lvalue).plain()
        if isinstance(node, c_ast.TernaryOp):
            a = self.value_type(node.iftrue)
            return a if a.kind != "void" else self.value_type(node.iffalse)
        if isinstance(node, c_ast.ArrayRef):
            t = self.value_type(node.name)
            if t.kind != "ptr":
                t = self.value_type(node.subscript)  # i[a]
            return self.complete(t.target) if t.target is not None else self._untyped(node)
        if isinstance(node, c_ast.StructRef):
            t = self.type_of(node.name)
            if node.type == "->":
                t = t.target if t.target is not None else t
            f = self.complete(t).field(node.field.name)
            return f[1] if f is not None else self._untyped(node)
        if isinstance(node, c_ast.FuncCall):
            return self.call_type(node)
        if isinstance(node, c_ast.ExprList):
            return self.type_of(node.exprs[-1]) if node.exprs else VOID
        if isinstance(node, c_ast.Compound):
            return self.block_type(node)
        if isinstance(node, c_ast.CompoundLiteral):
            return self.resolve(node.type)
        if isinstance(node, c_ast.GenericSelection):
            return self.type_of(self.generic_choice(node))
        return self._untyped(node)

    def value_type(self, node: c_ast.Node) -> CType:
        """The type of ``node`` used as a value (arrays and functions decay to
        pointers)."""
        t = self.type_of(node)
        if t.kind == "array" and t.target is not None:
            return pointer_to(t.target)
        if t.kind == "func":
            return pointer_to(t)
        return t.plain()

    def _name_type(self, node: c_ast.ID) -> CType:
        b = self.lookup(node.name)
        if isinstance(b, (Local, Const, Stack)):
            return b.ctype
        if node.name in self.ctx.globals:
            return self.ctx.globals[node.name]
        if node.name in self.ctx.tls:
            return self.ctx.tls[node.name]
        if node.name in self.ctx.types.enums:
            return self.int_type()
        f = self.ctx.functions.get(node.name)
        if f is not None:
            return self.resolve(f.decl.type)
        if node.name in self.ctx.prototypes:
            return self.ctx.prototypes[node.name]
        raise self.error(node, f"undeclared identifier '{node.name}'")

    def _unary_type(self, node: c_ast.UnaryOp) -> CType:
        if node.op == "&":
            return pointer_to(self.type_of(node.expr))
        if node.op == "*":
            t = self.value_type(node.expr)
            return self.complete(t.target) if t.target is not None else self._untyped(node)
        if node.op in ("sizeof", "_Alignof"):
            return ULONG
        if node.op == "!":
            return self.int_type()
        t = self.value_type(node.expr)
        if t.kind == "int" and t.bits and t.bits < 32 and node.op in ("-", "~", "+"):
            return INT
        return t

    def block_type(self, node: c_ast.Compound) -> CType:
        """The type of a statement expression: that of its last expression statement."""
        items = list(node.block_items or [])
        if not items or isinstance(items[-1], (c_ast.Decl, c_ast.DeclList)):
            return VOID
        self.scopes.append({})
        try:
            for item in items[:-1]:
                for d in item.decls if isinstance(item, c_ast.DeclList) else [item]:
                    if isinstance(d, c_ast.Decl) and d.name:
                        self.scopes[-1][d.name] = Const(0, self.resolve(d))
            last = items[-1]
            return self.value_type(last) if not _is_statement(last) else VOID
        finally:
            self.scopes.pop()

    def call_type(self, node: c_ast.FuncCall) -> CType:
        raise NotImplementedError  # lower_call.CallLowerer

    def _untyped(self, node: c_ast.Node) -> CType:
        raise self.error(node, "unsupported: the type of this expression")


_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8}


def _string_chars(text: str) -> list[int] | None:
    """The characters of a string literal's text (with its quotes), or None."""
    if not (text.startswith('"') and text.endswith('"')):
        return None
    body, out, i = text[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            e = body[i + 1]
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
                i += 2
                continue
            if e == "x":
                j = i + 2
                while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                    j += 1
                out.append(int(body[i + 2 : j] or "0", 16) & 0xFF)
                i = j
                continue
            return None
        out.append(ord(c) & 0xFF)
        i += 1
    return out


def _designator_path(node: c_ast.Node) -> list[str | c_ast.Node]:
    """``a.b[2].c`` of ``offsetof`` as the path of its fields and indexes."""
    if isinstance(node, c_ast.ID):
        return [node.name]
    if isinstance(node, c_ast.StructRef):
        return [*_designator_path(node.name), node.field.name]
    if isinstance(node, c_ast.ArrayRef):
        return [*_designator_path(node.name), node.subscript]
    return [node.__class__.__name__]


def _is_statement(node: c_ast.Node) -> bool:
    return isinstance(
        node,
        c_ast.If
        | c_ast.While
        | c_ast.DoWhile
        | c_ast.For
        | c_ast.Return
        | c_ast.Break
        | c_ast.Continue
        | c_ast.Goto
        | c_ast.Label
        | c_ast.Switch
        | c_ast.EmptyStatement
        | c_ast.Compound,
    )


__all__ = [
    "BOOL",
    "BINOP",
    "COMPARE",
    "ConstEval",
    "FUNCTION_PREFIX",
    "conv_code",
    "convert_int",
    "fold",
]
