"""Lowering C statements of one thread: declarations of locals (registers, or memory on
the thread's stack for arrays, structs and variables whose address must be kept), blocks,
``if``, ``switch``, ``goto`` and labels, ``return``, statement expressions, and the
inlining of the program's functions (recursion is refused).  Loops are
:mod:`litmus.c.loops`."""

from __future__ import annotations

from pycparser import c_ast, c_generator

from herdsman.litmus.base.ir import Branch, Imm, Label, Op, Reg, Sym, Value
from herdsman.litmus.c.context import scalar_offsets
from herdsman.litmus.c.ctype import VOID, CType
from herdsman.litmus.c.init import Initialiser
from herdsman.litmus.c.loops import LoopCtx, LoopLowerer
from herdsman.litmus.c.lvalues import add_offset
from herdsman.litmus.c.scan import line_of, text, written_names
from herdsman.litmus.c.values import Binding, Const, Frame, Local, MemLV, Ref, Stack, Val

#: How deep a function may call itself (calls are inlined: a recursion whose depth the
#: compile-time values do not bound is refused).
MAX_RECURSION = 16


class CodeLowerer(LoopLowerer):
    """Statements of one thread, from its entry function."""

    def __init__(self, ctx, tid: int) -> None:  # noqa: ANN001
        super().__init__(ctx, tid)
        self.thread_end = self.new_label()
        self.registers: dict[str, Value] = {}
        self.labels: list[dict[str, str]] = []  # per inlined function: C label -> IR label
        self.init = Initialiser(self.complete, self.const_value, self.error)

    # ---- entry points
    def thread(self, func: c_ast.FuncDef, params: list[Binding | Value | None]) -> None:
        """Lower thread entry ``func``; ``params`` gives each parameter a binding (a
        :class:`Const`...), an initial register value, or None (unused, or read from
        the thread's argument cell when ``arg_in_memory``)."""
        self.thread_params(func, params, False)

    def thread_params(
        self, func: c_ast.FuncDef, params: list[Binding | Value | None], arg_in_memory: bool
    ) -> None:
        decls = self.params_of(func)
        scope: dict[str, Binding] = {}
        self.scopes = [scope]
        rtype = self.return_type(func)
        self.funcs.append(Frame(func.decl.name, self.thread_end, None, rtype))
        self.labels.append({})
        self.origin = f"{line_of(func)}: {func.decl.name}"
        for i, d in enumerate(decls):
            p = params[i] if i < len(params) else None
            if isinstance(p, (Local, Const, Stack)):
                scope[d.name] = p
                continue
            t = self.param_type(d)
            if id(d) in self.demoted:
                addr = self.stack_object(id(d), d.name, t)
                scope[d.name] = Stack(addr, t)
                if p is not None or arg_in_memory:
                    r = self.temp()
                    self.load_argument(r, p)
                    self.emit(*self.map.store(Reg(r), (Imm(addr),), "na"))
                continue
            reg = self.fresh(d.name)
            scope[d.name] = Local(reg, t, id(d))
            if arg_in_memory and i == 0:
                self.argument(reg)
            elif p is not None:
                self.registers[reg] = p
        self.body(func.body)
        self.funcs.pop()
        self.labels.pop()
        self.origin = f"{line_of(func)}: end of {func.decl.name}"
        self.label_if_used(self.thread_end)

    def load_argument(self, reg: str, value: Value | None) -> None:
        if value is None:
            self.argument(reg)
        else:
            self.emit(Op(reg, "mov", (Imm(value),)))

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

    def param_type(self, d: c_ast.Decl) -> CType:
        t = self.resolve(d)
        if t.kind == "array" and t.target is not None:
            return CType("ptr", target=t.target)
        return t

    def return_type(self, func: c_ast.FuncDef) -> CType:
        t = self.resolve(func.decl.type)
        return t.target if t.target is not None else VOID

    def body(self, block: c_ast.Compound) -> None:
        """A function's body: a final ``return`` falls through to the end."""
        self.scopes.append({})
        self.items(list(block.block_items or []), True)
        self.scopes.pop()

    def items(self, items: list[c_ast.Node], returns: bool = False) -> None:
        """A block's statements (``returns``: a function's body, whose last ``return``
        falls through).  A statement repeated at the end of the ``while`` loop after it
        starts each iteration instead (GenMC's code condenser: ``x = f(); while (c)
        { ...; x = f(); }`` runs as ``for (;;) { x = f(); if (!c) break; ... }``)."""
        i = 0
        while i < len(items):
            s = items[i]
            nxt = items[i + 1] if i + 1 < len(items) else None
            first = condensed(s, nxt)
            if first is not None and isinstance(nxt, c_ast.While):
                if isinstance(s, c_ast.Decl):
                    self.origin = f"{line_of(s)}: {text(s)}"
                    self.declare(
                        c_ast.Decl(
                            s.name,
                            s.quals,
                            s.align,
                            s.storage,
                            s.funcspec,
                            s.type,
                            None,
                            s.bitsize,
                            s.coord,
                        )
                    )
                self.origin = f"{line_of(nxt)}: {text(nxt)}"
                self.loop(nxt, nxt.cond, _without_last(nxt.stmt), None, False, first)
                i += 2
                continue
            if returns and i == len(items) - 1 and isinstance(s, c_ast.Return):
                self.origin = f"{line_of(s)}: {text(s)}"
                self.ret(s, last=True)
            else:
                self.stmt(s)
            i += 1

    def inline(self, node: c_ast.Node, func: c_ast.FuncDef, args: list[Val]) -> Val:
        name = func.decl.name
        if sum(1 for f in self.funcs if f.name == name) >= MAX_RECURSION:
            raise self.error(
                node, f"unsupported: {name} calls itself more than {MAX_RECURSION} deep"
            )
        decls = self.params_of(func)
        if len(args) != len(decls):
            raise self.error(node, f"{name} takes {len(decls)} arguments, not {len(args)}")
        written = written_names(func.body)
        scope: dict[str, Binding] = {}
        for d, v in zip(decls, args, strict=True):
            t = self.param_type(d)
            if t.kind in ("struct", "union"):  # passed by value: the callee's own copy
                addr = self.stack_object(id(d), d.name, t)
                self.copy_object((Imm(addr),), self.reg_of(v), self.complete(t), node)
                scope[d.name] = Stack(addr, t)
                continue
            if id(d) in self.demoted:
                addr = self.stack_object(id(d), d.name, t)
                self.emit(*self.map.store(self.reg_of(self.convert(v, t)), (Imm(addr),), "na"))
                scope[d.name] = Stack(addr, t)
                continue
            if isinstance(v.op, (Imm, Ref)) and d.name not in written:
                value = v.op if isinstance(v.op, Ref) else v.op.value
                scope[d.name] = Const(value, v.ctype if isinstance(v.op, Ref) else t)
                continue
            reg = self.fresh(d.name)
            w = self.convert(v, t, reg)
            if w.op != Reg(reg):
                self.emit(Op(reg, "mov", (self.reg_of(w),)))
            scope[d.name] = Local(reg, t, id(d))
        rtype = self.return_type(func)
        res = self.temp() if rtype.kind != "void" else None
        end = self.new_label()
        saved, saved_loops = self.scopes, self.loops
        self.scopes = [scope]
        self.loops = [LoopCtx("", "", True)] if self.in_rotated_loop() else []
        self.funcs.append(Frame(name, end, res, rtype))
        self.labels.append({})
        outer = self.origin
        try:
            self.body(func.body)
        finally:
            self.origin = outer
            self.funcs.pop()
            self.labels.pop()
            self.scopes, self.loops = saved, saved_loops
        self.label_if_used(end)
        return Val(Reg(res), rtype.plain()) if res else Val(Imm(0), VOID)

    # ---- statements
    def stmt(self, s: c_ast.Node) -> None:
        if not isinstance(s, c_ast.Compound):
            self.origin = f"{line_of(s)}: {text(s)}"
        if isinstance(s, c_ast.Compound):
            self.scopes.append({})
            self.items(list(s.block_items or []))
            self.scopes.pop()
        elif isinstance(s, c_ast.Decl):
            self.declare(s)
        elif isinstance(s, c_ast.DeclList):
            for d in s.decls:
                self.declare(d)
        elif isinstance(s, c_ast.If):
            self.if_(s)
        elif isinstance(s, (c_ast.While, c_ast.DoWhile)):
            self.loop(s, s.cond, s.stmt, None, isinstance(s, c_ast.DoWhile))
        elif isinstance(s, c_ast.For):
            self.for_(s)
        elif isinstance(s, (c_ast.Break, c_ast.Continue)):
            self.jump(s)
        elif isinstance(s, c_ast.Return):
            self.ret(s, last=False)
        elif isinstance(s, (c_ast.EmptyStatement, c_ast.Pragma, c_ast.StaticAssert)):
            pass
        elif isinstance(s, c_ast.Typedef):
            self.ctx.types.note_specifiers(s.type, self.const_value)
            self.ctx.types.typedefs[s.name] = s
        elif isinstance(s, c_ast.Label):
            self.emit(Label(self.c_label(s.name)))
            self.stmt(s.stmt)
        elif isinstance(s, c_ast.Goto):
            self.goto(s)
        elif isinstance(s, c_ast.Switch):
            self.switch(s)
        elif isinstance(s, (c_ast.Case, c_ast.Default)):
            raise self.error(s, "case label outside a switch")
        elif isinstance(s, c_ast.FuncDef):
            raise self.error(s, "unsupported: nested function")
        else:
            self.expr(s, used=False)

    def jump(self, s: c_ast.Break | c_ast.Continue) -> None:
        brk = isinstance(s, c_ast.Break)
        for lp in reversed(self.loops):
            target = lp.brk if brk else lp.cont
            if target:
                self.emit(Branch(target))
                return
        raise self.error(s, f"{'break' if brk else 'continue'} outside a loop")

    def c_label(self, name: str) -> str:
        """The IR label of C label ``name`` in the function being lowered."""
        table = self.labels[-1]
        got = table.get(name)
        if got is None:
            got = table[name] = self.new_label()
        return got

    def goto(self, s: c_ast.Goto) -> None:
        target = self.c_label(s.name)
        self.goto_bound(target)
        self.emit(Branch(target))
        self.goto_spin(target, s)

    def declare(self, d: c_ast.Decl) -> None:
        self.ctx.types.note_specifiers(d.type, self.const_value)
        if d.name is None:
            return
        storage = d.storage or []
        t = self.resolve(d)
        if t.kind == "func" or "extern" in storage:
            return  # a prototype, or a global's declaration
        if "static" in storage or "_Thread_local" in storage or "thread_local" in storage:
            self.static_local(d, t)
            return
        if t.aggregate or t.atomic or id(d) in self.demoted:
            cells: list = []
            if d.init is not None:
                t, cells = self.init.cells(t, d.init)
            addr = self.stack_object(id(d), d.name, t)
            self.scopes[-1][d.name] = Stack(addr, t)
            if d.init is not None:
                self.initialise((Imm(addr),), t, cells)
            return
        reg = self.fresh(d.name)
        local = Local(reg, t.plain(), id(d))
        self.scopes[-1][d.name] = local  # in scope in its own initialiser
        if d.init is not None:
            init = (
                d.init.exprs[0] if isinstance(d.init, c_ast.InitList) and d.init.exprs else d.init
            )
            v = self.expr(init, reg)
            if isinstance(v.op, Ref) and d.name not in self.assigned_later(d):
                self.scopes[-1][d.name] = Const(v.op, t)  # a pointer to a register variable
                return
            w = self.convert(v, t, reg)
            if w.op != Reg(reg):
                self.emit(Op(reg, "mov", (self.reg_of(w),)))

    def assigned_later(self, d: c_ast.Decl) -> set[str]:
        """Names assigned in the body of the function being lowered (conservative)."""
        return written_names(self.current_body()) if self.current_body() is not None else {d.name}

    def current_body(self) -> c_ast.Node | None:
        fname = self.funcs[-1].name if self.funcs else ""
        f = self.ctx.functions.get(fname)
        return f.body if f is not None else None

    def static_local(self, d: c_ast.Decl, t: CType) -> None:
        """A static or thread-local local: a global of its own (``f.x``)."""
        fname = self.funcs[-1].name if self.funcs else "?"
        name = f"{fname}.{d.name}"
        thread_local = "static" not in (d.storage or [])
        table = self.ctx.tls if thread_local else self.ctx.globals
        if name not in table:
            values: dict[int, Value] = {}
            if d.init is not None:
                t, cells = self.init.cells(t, d.init)
                values = self.constant_cells(cells)
            table[name] = t
            if thread_local:
                self.ctx.tls_init[name] = values
            else:
                self.ctx.cells(Sym(name), t, values)
        addr = self.thread_local(name) if thread_local else Sym(name)
        self.scopes[-1][d.name] = Stack(addr, table[name])

    def constant_cells(self, cells: list) -> dict[int, Value]:
        out: dict[int, Value] = {}
        for off, node, _ in cells:
            v = node if isinstance(node, int) else self.const_value(node)
            if v is None:
                raise self.error(node, "the initialiser must be a constant or an address")
            out[off] = v
        return out

    def initialise(self, addr: tuple, t: CType, cells: list) -> None:
        """Write an initialised local object: every cell 0, then the initialiser's."""
        given = {off for off, _, ct in cells if ct.scalar}
        for off in scalar_offsets(t, 0):
            if off not in given:
                self.emit(*self.map.store(Imm(0), add_offset(addr, off), "na"))
        for off, node, ct in cells:
            lv = MemLV(add_offset(addr, off), ct)
            v = Val(Imm(node), ct) if isinstance(node, int) else self.expr(node)
            self.store(lv, v, node if not isinstance(node, int) else c_ast.EmptyStatement())

    def compound_literal(self, node: c_ast.CompoundLiteral) -> MemLV:
        t, cells = self.init.cells(self.resolve(node.type), node.init)
        addr = self.stack_object(id(node), "literal", t)
        self.initialise((Imm(addr),), t, cells)
        return MemLV((Imm(addr),), t)

    def ret(self, s: c_ast.Return, last: bool) -> None:
        f = self.funcs[-1]
        if s.expr is not None:
            v = self.expr(s.expr, f.result)
            if f.result is not None:
                w = self.convert(v, f.rtype, f.result)
                if w.op != Reg(f.result):
                    self.emit(Op(f.result, "mov", (self.reg_of(w),)))
            elif len(self.funcs) == 1:
                self.thread_result(v)
        if not last:
            self.emit(Branch(f.end))

    def stmt_expr(self, node: c_ast.Compound, dst: str | None) -> Val:
        """``({ ...; e; })``: the statements, the value of the last."""
        items = list(node.block_items or [])
        self.scopes.append({})
        try:
            for item in items[:-1]:
                self.stmt(item)
            if not items:
                return Val(Imm(0), VOID)
            last = items[-1]
            if isinstance(last, (c_ast.Decl, c_ast.DeclList)) or _statement(last):
                self.stmt(last)
                return Val(Imm(0), VOID)
            return self.expr(last, dst)
        finally:
            self.scopes.pop()

    def if_(self, s: c_ast.If) -> None:
        c = self.cond(s.cond)
        if isinstance(c, int):
            branch = s.iftrue if c else s.iffalse
            if branch is not None:
                self.scoped(branch)
            return
        other = self.new_label()
        self.emit(Branch(other, "eq", c))
        before = dict(self.known)
        self.scoped(s.iftrue)
        if s.iffalse is not None:
            end = self.new_label()
            after_then = dict(self.known)
            self.emit(Branch(end), Label(other))
            self.known.update(before)
            self.scoped(s.iffalse)
            self.merge_known(end, after_then)
        else:
            self.merge_known(other, before)

    def scoped(self, s: c_ast.Node) -> None:
        self.scopes.append({})
        self.stmt(s)
        self.scopes.pop()

    def switch(self, s: c_ast.Switch) -> None:
        """A switch: the value compared with each case in turn, then the body with its
        case labels (falling through as C does); ``break`` leaves it."""
        v = self.reg_of(self.expr(s.cond))
        items = s.stmt.block_items if isinstance(s.stmt, c_ast.Compound) else [s.stmt]
        cases: list[tuple[c_ast.Node, str]] = []
        default = None
        for item in _case_labels(items or []):
            lab = self.new_label()
            if isinstance(item, c_ast.Default):
                default = lab
            cases.append((item, lab))
        end = self.new_label()
        for item, lab in cases:
            if isinstance(item, c_ast.Case):
                k = self.const_value(item.expr)
                if not isinstance(k, int):
                    raise self.error(item.expr, "a case label must be a constant")
                t = self.temp()
                self.emit(Op(t, "eq", (v, Imm(k))), Branch(lab, "ne", t))
        self.emit(Branch(default or end))
        labels = {id(item): lab for item, lab in cases}
        self.loops.append(LoopCtx(end, "", False))
        self.scopes.append({})
        for item in items or []:
            self.switch_item(item, labels)
        self.scopes.pop()
        self.loops.pop()
        self.emit(Label(end))

    def switch_item(self, item: c_ast.Node, labels: dict[int, str]) -> None:
        if isinstance(item, (c_ast.Case, c_ast.Default)):
            self.emit(Label(labels[id(item)]))
            for st in item.stmts or []:
                self.switch_item(st, labels)
        else:
            self.stmt(item)


_GEN = c_generator.CGenerator()


def condensed(s: c_ast.Node, loop: c_ast.Node | None) -> c_ast.Node | None:
    """The statement starting each iteration of ``loop`` when ``s``, the statement
    before it, is repeated as the last of its body (``s`` as an assignment when it
    declares the variable), else None."""
    if not isinstance(loop, c_ast.While) or loop.stmt is None:
        return None
    body = loop.stmt
    last = (body.block_items or [None])[-1] if isinstance(body, c_ast.Compound) else body
    if last is None or isinstance(last, (c_ast.Decl, c_ast.Compound)):
        return None
    if isinstance(s, c_ast.Decl) and s.init is not None and not isinstance(s.init, c_ast.InitList):
        if not (isinstance(last, c_ast.Assignment) and last.op == "="):
            return None
        if not (isinstance(last.lvalue, c_ast.ID) and last.lvalue.name == s.name):
            return None
        return last if _GEN.visit(last.rvalue) == _GEN.visit(s.init) else None
    if isinstance(s, (c_ast.Assignment, c_ast.FuncCall, c_ast.UnaryOp)):
        return last if _GEN.visit(s) == _GEN.visit(last) else None
    return None


def _without_last(body: c_ast.Node) -> c_ast.Node | None:
    if isinstance(body, c_ast.Compound):
        return c_ast.Compound((body.block_items or [])[:-1], body.coord)
    return None


def _case_labels(items: list[c_ast.Node]) -> list[c_ast.Node]:
    """The case and default labels of a switch body, in order (nested in their
    statements too)."""
    out: list[c_ast.Node] = []
    for item in items:
        if isinstance(item, (c_ast.Case, c_ast.Default)):
            out.append(item)
            out.extend(_case_labels(list(item.stmts or [])))
    return out


def _statement(node: c_ast.Node) -> bool:
    return not isinstance(
        node,
        c_ast.Assignment
        | c_ast.FuncCall
        | c_ast.ID
        | c_ast.Constant
        | c_ast.BinaryOp
        | c_ast.UnaryOp
        | c_ast.TernaryOp
        | c_ast.Cast
        | c_ast.ArrayRef
        | c_ast.StructRef
        | c_ast.ExprList
        | c_ast.Compound
        | c_ast.CompoundLiteral,
    )
