"""Lowering C statements of one thread: declarations of locals, if, loops, break,
continue, return, and the inlining of the program's functions.

Loops (see the spec in ``litmus/c/__init__.py``): counted loops with a constant bound
whose counter is not written in the body are unrolled at compile time; spin loops
(their condition and body only read memory and write locals) become GenMC's
spin-assume; any other loop is rotated so that its one backward branch is taken exactly
when one more iteration runs (the engine bounds those).
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from herdsman.litmus.base.ir import Assume, Branch, Imm, Label, Op, Reg, Value
from herdsman.litmus.c.ctype import VOID, CType
from herdsman.litmus.c.lower_call import LOAD_INTRINSICS, CallLowerer
from herdsman.litmus.c.lower_expr import Binding, Const, Handles, Local, Val
from herdsman.litmus.c.scan import (
    has_calls_or_writes,
    has_loop_exits,
    line_of,
    text,
    walk,
    written_names,
)

#: iterations beyond which a counted loop is not unrolled (it is rotated instead)
UNROLL_LIMIT = 4096


@dataclass
class LoopCtx:
    brk: str
    cont: str
    rotated: bool


@dataclass
class FuncCtx:
    name: str
    end: str
    result: str | None


class CodeLowerer(CallLowerer):
    """Statements of one thread, from its entry function."""

    def __init__(self, ctx, tid: int) -> None:  # noqa: ANN001
        super().__init__(ctx, tid)
        self.loops: list[LoopCtx] = []
        self.funcs: list[FuncCtx] = []
        self.thread_end = self.new_label()
        self.registers: dict[str, Value] = {}

    def in_rotated_loop(self) -> bool:
        return any(lp.rotated for lp in self.loops)

    # ---- entry points
    def thread(self, func: c_ast.FuncDef, params: list[Binding | Value | None]) -> None:
        """Lower thread entry ``func``; ``params`` gives each parameter a binding (a
        :class:`Const`...) or an initial register value (None: unused)."""
        decls = self.params_of(func)
        scope: dict[str, Binding] = {}
        for i, d in enumerate(decls):
            p = params[i] if i < len(params) else None
            if isinstance(p, Local | Const | Handles):
                scope[d.name] = p
                continue
            t = self.resolve(d)
            reg = self.fresh(d.name)
            scope[d.name] = Local(reg, t)
            if p is not None:
                self.registers[reg] = p
        self.scopes = [scope]
        self.funcs.append(FuncCtx(func.decl.name, self.thread_end, None))
        self.origin = f"{line_of(func)}: {func.decl.name}"
        self.body(func.body)
        self.funcs.pop()
        self.origin = f"{line_of(func)}: end of {func.decl.name}"
        self.label_if_used(self.thread_end)

    def label_if_used(self, name: str) -> None:
        if name in self.targets:
            self.emit(Label(name))

    def params_of(self, func: c_ast.FuncDef) -> list[c_ast.Decl]:
        t = func.decl.type
        plist = t.args.params if isinstance(t, c_ast.FuncDecl) and t.args else []
        out = []
        for p in plist:
            if isinstance(p, c_ast.EllipsisParam):
                raise self.error(p, f"unsupported: variadic function {func.decl.name}")
            if isinstance(p, c_ast.Typename):
                if self.resolve(p).kind == "void":
                    continue
                raise self.error(p, "unnamed parameter")
            out.append(p)
        return out

    def body(self, block: c_ast.Compound) -> None:
        """A function's body: a final ``return`` falls through to the end."""
        items = list(block.block_items or [])
        self.scopes.append({})
        for i, s in enumerate(items):
            if i == len(items) - 1 and isinstance(s, c_ast.Return):
                self.origin = f"{line_of(s)}: {text(s)}"
                self.ret(s, last=True)
            else:
                self.stmt(s)
        self.scopes.pop()

    def inline(self, node: c_ast.FuncCall, func: c_ast.FuncDef) -> Val:
        name = func.decl.name
        if any(f.name == name for f in self.funcs):
            raise self.error(node, f"recursion is not supported: {name} calls itself")
        decls = self.params_of(func)
        args = list(node.args.exprs) if node.args is not None else []
        if len(args) != len(decls):
            raise self.error(node, f"{name} takes {len(decls)} arguments, not {len(args)}")
        written = written_names(func.body)
        scope: dict[str, Binding] = {}
        for d, a in zip(decls, args, strict=True):
            t = self.resolve(d)
            v = self.expr(a)
            if isinstance(v.op, Imm) and d.name not in written:
                scope[d.name] = Const(v.op.value, t)
                continue
            reg = self.fresh(d.name)
            self.emit(Op(reg, "mov", (v.op,)))
            scope[d.name] = Local(reg, t)
        rtype = self.resolve(func.decl.type.type)
        res = self.temp() if rtype.kind != "void" else None
        end = self.new_label()
        saved, saved_loops = self.scopes, self.loops
        self.scopes = [scope]
        self.loops = [LoopCtx("", "", True)] if self.in_rotated(saved_loops) else []
        self.funcs.append(FuncCtx(name, end, res))
        outer = self.origin
        self.body(func.body)
        self.origin = outer
        self.funcs.pop()
        self.scopes, self.loops = saved, saved_loops
        self.label_if_used(end)
        return Val(Reg(res), rtype) if res else Val(Imm(0), VOID)

    @staticmethod
    def in_rotated(loops: list[LoopCtx]) -> bool:
        return any(lp.rotated for lp in loops)

    # ---- statements
    def stmt(self, s: c_ast.Node) -> None:
        if not isinstance(s, c_ast.Compound):
            self.origin = f"{line_of(s)}: {text(s)}"
        if isinstance(s, c_ast.Compound):
            self.scopes.append({})
            for item in s.block_items or []:
                self.stmt(item)
            self.scopes.pop()
        elif isinstance(s, c_ast.Decl):
            self.declare(s)
        elif isinstance(s, c_ast.DeclList):
            for d in s.decls:
                self.declare(d)
        elif isinstance(s, c_ast.If):
            self.if_(s)
        elif isinstance(s, c_ast.While | c_ast.DoWhile):
            self.loop(s, s.cond, s.stmt, None, isinstance(s, c_ast.DoWhile))
        elif isinstance(s, c_ast.For):
            self.for_(s)
        elif isinstance(s, c_ast.Break | c_ast.Continue):
            if not self.loops or not self.loops[-1].brk:
                raise self.error(
                    s, f"{'break' if isinstance(s, c_ast.Break) else 'continue'} outside a loop"
                )
            lp = self.loops[-1]
            self.emit(Branch(lp.brk if isinstance(s, c_ast.Break) else lp.cont))
        elif isinstance(s, c_ast.Return):
            self.ret(s, last=False)
        elif isinstance(s, c_ast.EmptyStatement | c_ast.Pragma):
            pass
        elif isinstance(s, c_ast.Typedef):
            self.ctx.types.typedefs[s.name] = s
        elif isinstance(s, c_ast.Goto | c_ast.Label):
            raise self.error(s, "unsupported: goto")
        elif isinstance(s, c_ast.Switch):
            raise self.error(s, "unsupported: switch")
        elif isinstance(s, c_ast.FuncDef):
            raise self.error(s, "unsupported: nested function")
        else:
            self.expr(s, used=False)

    def declare(self, d: c_ast.Decl) -> None:
        if d.name is None:
            self.ctx.types.note_specifiers(d.type, self.const_value)
            return
        if "static" in (d.storage or []) or "extern" in (d.storage or []):
            raise self.error(d, f"unsupported: {d.storage[0]} local variable '{d.name}'")
        self.ctx.types.note_specifiers(d.type, self.const_value)
        t = self.resolve(d)
        if t.kind == "func":
            raise self.error(d, f"unsupported: local function declaration '{d.name}'")
        is_handle = t.kind == "handle" or (
            t.kind == "array" and t.target is not None and t.target.kind == "handle"
        )
        if is_handle:
            self.scopes[-1][d.name] = Handles({}, d.name, t)
            return
        if t.kind in ("array", "struct", "lock"):
            raise self.error(d, f"unsupported: local {t.kind} '{d.name}' (make it global)")
        reg = self.fresh(d.name)
        if d.init is not None:
            if isinstance(d.init, c_ast.InitList):
                raise self.error(d.init, "unsupported: initialiser list for a scalar")
            v = self.expr(d.init, reg)
            if v.op != Reg(reg):
                self.emit(Op(reg, "mov", (v.op,)))
        self.scopes[-1][d.name] = Local(reg, CType(t.kind, False, t.target))

    def ret(self, s: c_ast.Return, last: bool) -> None:
        f = self.funcs[-1]
        if s.expr is not None:
            v = self.expr(s.expr, f.result)
            if f.result is not None and v.op != Reg(f.result):
                self.emit(Op(f.result, "mov", (v.op,)))
        if not last:
            self.emit(Branch(f.end))

    def if_(self, s: c_ast.If) -> None:
        c = self.cond(s.cond)
        if isinstance(c, int):
            branch = s.iftrue if c else s.iffalse
            if branch is not None:
                self.scoped(branch)
            return
        other = self.new_label()
        self.emit(Branch(other, "eq", c))
        self.scoped(s.iftrue)
        if s.iffalse is not None:
            end = self.new_label()
            self.emit(Branch(end), Label(other))
            self.scoped(s.iffalse)
            self.emit(Label(end))
        else:
            self.emit(Label(other))

    def scoped(self, s: c_ast.Node) -> None:
        self.scopes.append({})
        self.stmt(s)
        self.scopes.pop()

    # ---- loops
    def for_(self, s: c_ast.For) -> None:
        self.scopes.append({})
        try:
            if self.unroll(s):
                return
            if s.init is not None:
                self.stmt(s.init)
            self.origin = f"{line_of(s)}: {text(s)}"
            self.loop(s, s.cond, s.stmt, s.next, False)
        finally:
            self.scopes.pop()

    def unroll(self, s: c_ast.For) -> bool:
        """Unroll a counted loop with a constant bound at compile time (False: it is not
        one)."""
        init, var = s.init, None
        start: Value | None = None
        declared = False
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
            d = init.decls[0]
            if d.init is not None and self.resolve(d).kind == "int":
                var, start, declared = d.name, self.const_value(d.init), True
        elif isinstance(init, c_ast.Assignment) and init.op == "=":
            if isinstance(init.lvalue, c_ast.ID) and isinstance(
                self.lookup(init.lvalue.name), Local
            ):
                var, start = init.lvalue.name, self.const_value(init.rvalue)
        if var is None or not isinstance(start, int) or s.cond is None or s.next is None:
            return False
        if var in written_names(s.stmt) or has_calls_or_writes(s.cond):
            return False
        values: list[int] = []
        v: Value | None = start
        while True:
            if not isinstance(v, int) or len(values) > UNROLL_LIMIT:
                return False
            self.scopes.append({var: Const(v, CType("int"))})
            c = self.const_value(s.cond)
            nxt = self.step(s.next, var)
            self.scopes.pop()
            if not isinstance(c, int):
                return False
            if not c:
                break
            values.append(v)
            v = nxt
        origin = f"{line_of(s)}: {text(s)}"
        brk = self.new_label()
        for value in values:
            cont = self.new_label()
            self.scopes.append({var: Const(value, CType("int"))})
            self.loops.append(LoopCtx(brk, cont, False))
            self.scoped(s.stmt)
            self.loops.pop()
            self.scopes.pop()
            self.label_if_used(cont)
        self.origin = origin
        if not declared:
            b = self.lookup(var)
            assert isinstance(b, Local)
            self.emit(Op(b.reg, "mov", (Imm(v),)))
        self.label_if_used(brk)
        return True

    def step(self, nxt: c_ast.Node, var: str) -> Value | None:
        """The counter's next value (None: not a recognised step)."""
        if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID):
            if nxt.expr.name != var or nxt.op not in ("++", "--", "p++", "p--"):
                return None
            cur = self.const_value(nxt.expr)
            return cur + (1 if "+" in nxt.op else -1) if isinstance(cur, int) else None
        if isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID):
            if nxt.lvalue.name != var:
                return None
            if nxt.op == "=":
                return self.const_value(nxt.rvalue)
            cur = self.const_value(nxt.lvalue)
            k = self.const_value(nxt.rvalue)
            if not (isinstance(cur, int) and isinstance(k, int)):
                return None
            ops = {"+=": cur + k, "-=": cur - k, "*=": cur * k, "<<=": cur << k}
            return ops.get(nxt.op)
        return None

    def spin(self, cond: c_ast.Node | None, body: c_ast.Node | None) -> bool:
        """Whether a loop is a spin loop: only loads and writes of locals."""
        if cond is None or has_loop_exits(body):
            return False
        for n in (*walk(cond), *walk(body)):
            if isinstance(n, c_ast.FuncCall):
                if not isinstance(n.name, c_ast.ID) or n.name.name not in LOAD_INTRINSICS:
                    return False
                if n.name.name in self.ctx.functions:
                    return False
            elif isinstance(n, c_ast.Assignment):
                if not self.local_name(n.lvalue):
                    return False
            elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
                if not self.local_name(n.expr):
                    return False
        return True

    def cond_reg(self, node: c_ast.Node) -> str:
        """A register holding the condition ``node`` (constants are moved into one)."""
        c = self.cond(node)
        if isinstance(c, int):
            t = self.temp()
            self.emit(Op(t, "mov", (Imm(c),)))
            return t
        return c

    def local_name(self, node: c_ast.Node) -> bool:
        if not isinstance(node, c_ast.ID):
            return False
        b = self.lookup(node.name)
        return isinstance(b, Local) or (b is None and node.name not in self.ctx.globals)

    def loop(
        self,
        s: c_ast.Node,
        cond: c_ast.Node | None,
        body: c_ast.Node | None,
        nxt: c_ast.Node | None,
        do: bool,
    ) -> None:
        origin = f"{line_of(s)}: {text(s)}"
        static = (
            1
            if cond is None
            else (self.const_value(cond) if not has_calls_or_writes(cond) else None)
        )
        if static is not None and not static:  # while (0), do ... while (0)
            if do:
                end = self.new_label()
                self.loops.append(LoopCtx(end, end, False))
                self.scoped(body)
                self.loops.pop()
                self.label_if_used(end)
            return
        if static is None and nxt is None and self.spin(cond, body):
            assert cond is not None
            end = self.new_label()
            if not do:
                self.origin = origin
                self.emit(Branch(end, "eq", self.cond_reg(cond)))
            if body is not None:
                self.scoped(body)
            self.origin = origin
            self.emit(Assume(self.cond_reg(cond), "eq"))
            self.label_if_used(end)
            return
        top, cont, check, end = (self.new_label() for _ in range(4))
        if static is None and not do:
            self.emit(Branch(check))
        self.emit(Label(top))
        self.loops.append(LoopCtx(end, cont, True))
        if body is not None:
            self.scoped(body)
        self.loops.pop()
        self.origin = origin
        self.label_if_used(cont)
        if nxt is not None:
            self.expr(nxt, used=False)
        if static is None:
            if not do:
                self.emit(Label(check))
            c = self.cond(cond)
            if isinstance(c, int):  # a condition with effects, constant value
                if c:
                    self.emit(Branch(top))
            else:
                self.emit(Branch(top, "ne", c))
        else:
            self.emit(Branch(top))
        self.label_if_used(end)
