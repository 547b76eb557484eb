"""Lowering C loops as GenMC runs them.

A loop's *head* is where each iteration starts: its condition for ``while`` and
``for``, its body for ``do``.  With GenMC's bound (``-unroll=N``, :attr:`Context.unroll`)
the head runs at most N times per entry to the loop: arriving there once more ends the
thread (the IR's ``Kill``); GenMC counts the execution as complete unless a thread joins
the one ended (that join blocks).
Counted loops whose bound is a compile-time constant are unrolled at compile time (with
the same bound); any other loop keeps its back branches, which GenMC's spin-assume
transformation (:mod:`litmus.c.spin`) may turn into blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assume,
    Branch,
    Imm,
    Instr,
    Kill,
    Label,
    Lock,
    Op,
    Reg,
    Store,
    Sym,
    Unlock,
    Value,
)
from herdsman.litmus.c.ctype import CType
from herdsman.litmus.c.lower_call import CallLowerer
from herdsman.litmus.c.lower_memory import HEAP_COUNT
from herdsman.litmus.c.scan import has_calls_or_writes, line_of, text, written_names
from herdsman.litmus.c.spin import LoopView, analyse, carried_registers
from herdsman.litmus.c.values import Const, Local

#: iterations beyond which a counted loop is not unrolled at compile time
UNROLL_LIMIT = 4096


@dataclass
class LoopCtx:
    brk: str
    cont: str
    dynamic: bool  # a loop whose number of iterations is not known at compile time


class LoopLowerer(CallLowerer):
    """Loops (see the module docstring)."""

    def __init__(self, ctx, tid: int) -> None:  # noqa: ANN001
        super().__init__(ctx, tid)
        self.loops: list[LoopCtx] = []
        self.hidden: set[str] = {HEAP_COUNT}  # registers of the lowering's own
        self.gotos: dict[str, str] = {}  # label -> the bound counter of a backward goto

    def in_rotated_loop(self) -> bool:
        return any(lp.dynamic for lp in self.loops)

    def scoped(self, s: c_ast.Node) -> None:
        raise NotImplementedError  # lower_stmt.CodeLowerer

    def stmt(self, s: c_ast.Node) -> None:
        raise NotImplementedError  # lower_stmt.CodeLowerer

    def label_if_used(self, name: str) -> None:
        raise NotImplementedError  # lower_stmt.CodeLowerer

    # ---- GenMC's bound
    def bounded(self) -> int | None:
        """The bound on a loop's head here (None: none)."""
        n = self.ctx.unroll
        if n is None or any(f.name in self.ctx.no_unroll for f in self.funcs[-1:]):
            return None
        return n

    def kill_unless(self, reg: str) -> None:
        """Stop the thread unless register ``reg`` is not zero."""
        skip = self.new_label()
        self.emit(Branch(skip, "ne", reg), Kill(), Label(skip))

    def head_bound(self, counter: str) -> None:
        """At a loop's head: stop the thread when its bound is spent, else count."""
        z = self.temp()
        self.emit(Op(z, "ne", (Reg(counter), Imm(0))))
        self.kill_unless(z)
        self.emit(Op(counter, "sub", (Reg(counter), Imm(1))))

    def goto_bound(self, target: str) -> None:
        """A backward ``goto`` to a label: a loop's head too (counted up, never reset)."""
        n = self.bounded()
        if n is None or not any(isinstance(i, Label) and i.name == target for i in self.code):
            return
        counter = self.gotos.get(target)
        if counter is None:
            counter = self.gotos[target] = self.fresh("goto.count")
            self.hidden.add(counter)
        z = self.temp()
        self.emit(Op(counter, "add", (Reg(counter), Imm(1))), Op(z, "lt", (Reg(counter), Imm(n))))
        self.kill_unless(z)

    def goto_spin(self, target: str, s: c_ast.Node) -> None:
        """GenMC's spin-assume on the loop a backward ``goto`` just closed (LLVM sees a
        loop there too): a latch with no effect on any path from the label blocks."""
        start = next(
            (i for i, ins in enumerate(self.code) if isinstance(ins, Label) and ins.name == target),
            None,
        )
        if start is None:
            return
        view = LoopView(self.code, start, target, self.local_write)
        frame = self.funcs[-1] if self.funcs else None
        returns = (frame.end, {frame.result} if frame.result else set()) if frame else None
        carried = carried_registers(view, self.live_after(s), returns)
        verdict = analyse(view, frozenset(self.hidden), carried)
        if verdict.dynamic or verdict.unlocks or verdict.zne:
            return  # effects to check as it runs: left to the loop bound
        for latch in verdict.blocking:
            br = self.code[latch]
            assert isinstance(br, Branch)
            ops: list[Instr]
            if br.cond is None:
                z = self.temp()
                ops = [Op(z, "mov", (Imm(0),)), Assume(z, "ne")]
            else:
                ops = [Assume(br.creg, _negate(br.cond))]
            self.code[latch : latch + 1] = ops
            self.origins[latch : latch + 1] = [self.origins[latch]] * len(ops)

    # ---- for loops
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
        step_node, extra = s.next, []  # for (...; ...; j++, i++): j's step, then i++
        if isinstance(s.next, c_ast.ExprList):
            steps = [e for e in s.next.exprs if var in written_names(e)]
            if len(steps) != 1:
                return False
            step_node = steps[0]
            extra = [e for e in s.next.exprs if e is not step_node]
            if any(var in written_names(e) or _reads(e, var) for e in extra):
                return False
        ctype = (
            self.resolve(init.decls[0])
            if declared and isinstance(init, c_ast.DeclList)
            else self.int_type()
        )
        self.fold_globals = starts_threads(s.stmt)
        try:
            values = self.trip(s, var, ctype, start, step_node)
        finally:
            self.fold_globals = False
        if values is None:
            return False
        v = values.pop()
        origin = f"{line_of(s)}: {text(s)}"
        bound = self.bounded()
        killed = bound is not None and len(values) + 1 > bound
        brk = self.new_label()
        for value in values[:bound] if killed else values:
            cont = self.new_label()
            self.scopes.append({var: Const(value, ctype)})
            self.loops.append(LoopCtx(brk, cont, False))
            self.scoped(s.stmt)
            self.loops.pop()
            self.label_if_used(cont)
            for e in extra:
                self.expr(e, used=False)
            self.scopes.pop()
        self.origin = origin
        if killed:
            self.emit(Kill())
        elif not declared:
            b = self.lookup(var)
            assert isinstance(b, Local)
            self.emit(Op(b.reg, "mov", (Imm(v),)))
        self.label_if_used(brk)
        return True

    def trip(
        self, s: c_ast.For, var: str, ctype: CType, start: int, step_node: c_ast.Node
    ) -> list[Value] | None:
        """The counter's values in each iteration, then its value after the loop (None:
        not known at compile time)."""
        values: list[Value] = []
        v: Value | None = start
        while True:
            if not isinstance(v, int) or len(values) > UNROLL_LIMIT:
                return None
            self.scopes.append({var: Const(v, ctype)})
            c = self.const_value(s.cond)
            nxt = self.step(step_node, var)
            self.scopes.pop()
            if not isinstance(c, int):
                return None
            if not c:
                return [*values, v]
            values.append(v)
            v = nxt

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
        if isinstance(nxt, c_ast.ExprList):
            return None
        return None

    # ---- other loops
    def loop(
        self,
        s: c_ast.Node,
        cond: c_ast.Node | None,
        body: c_ast.Node | None,
        nxt: c_ast.Node | None,
        do: bool,
        first: c_ast.Node | None = None,
    ) -> None:
        """A loop as LLVM has it: the head (its bound, its check of effects), the
        statement ``first`` starting each iteration (a condensed loop), the condition
        (``while``, ``for``), the body, the step, a branch back to the head (``do``:
        the condition, a conditional branch back)."""
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
        threaded = self.jump_threads(cond, body, nxt) if not do and first is None else []
        if threaded and static is None:
            do = True  # its head moves to the body: the condition is checked at the end
        bound = self.bounded()
        counter = None
        if bound is not None:
            counter = self.fresh("loop.bound")
            self.hidden.add(counter)
            self.emit(Op(counter, "mov", (Imm(bound),)))
        head, cont, end = self.new_label(), self.new_label(), self.new_label()
        before = dict(self.known)
        flag = self.fresh("spin.wrote")
        self.hidden.add(flag)
        self.emit(Op(flag, "mov", (Imm(1),)))
        start = len(self.code)
        self.origin = origin
        self.emit(Label(head))
        if counter is not None:
            self.head_bound(counter)
        check = len(self.code)
        if first is not None:
            self.expr(first, used=False)
            self.origin = origin
        if not do and static is None:
            assert cond is not None
            c = self.cond(cond)
            if isinstance(c, int):
                if not c:
                    self.emit(Branch(end))
            else:
                self.emit(Branch(end, "eq", c))
        # a while loop's continue goes back to the head, a for loop's to its step
        self.loops.append(LoopCtx(end, head if not do and nxt is None else cont, True))
        if body is not None:
            self.scoped(body)
        self.loops.pop()
        self.origin = origin
        self.label_if_used(cont)
        if nxt is not None:
            self.expr(nxt, used=False)
        if do and static is None:
            assert cond is not None
            c = self.cond(cond)
            if isinstance(c, int):
                if c:
                    self.emit(Branch(head))
            else:
                self.emit(Branch(head, "ne", c))
        else:
            self.emit(Branch(head))
        self.spin_assume(start, check, head, flag, s, set(threaded))
        if end in self.targets:
            self.keep_known(end, before, start)

    def jump_threads(
        self, cond: c_ast.Node | None, body: c_ast.Node | None, nxt: c_ast.Node | None
    ) -> list[str]:
        """GenMC's loop jump threading: when the first check of a loop's condition
        always passes, a variable the loop writes and the condition reads being a known
        constant on entry, the body reading that variable only to write it again, the
        loop is checked at its end (``do ... while``), and that variable carries no
        value from an iteration to the next (where the body does not write it, it has
        its entry value: the loop would have ended otherwise).  Its registers, or []."""
        if cond is None:
            return []
        written = written_names(body) | written_names(nxt)
        critical = [
            n.name
            for n in _id_nodes(cond)
            if n.name in written
            and isinstance(b := self.lookup(n.name), Local)
            and b.reg in self.known
        ]
        if not critical:
            return []
        for name in critical:  # read in the loop: only a value the condition pins (LLVM's phi
            # of one constant: the loop goes on only when it holds that value again)
            if any(_reads(x, name) for x in (body, nxt) if x) and not self._pins(cond, name):
                return []
        self.use_known = True
        try:
            c = self.const_value(cond)
        finally:
            self.use_known = False
        if not isinstance(c, int) or c == 0:
            return []
        return [b.reg for name in critical if isinstance(b := self.lookup(name), Local)]

    def _pins(self, cond: c_ast.Node, name: str) -> bool:
        """Whether ``cond`` holding fixes variable ``name`` to its value on entry
        (``!v``, ``v == c``, ``c == v`` with a constant ``c`` equal to it)."""
        b = self.lookup(name)
        if not isinstance(b, Local) or b.reg not in self.known:
            return False
        entry = self.known[b.reg]
        if isinstance(cond, c_ast.UnaryOp) and cond.op == "!" and _is_id(cond.expr, name):
            return entry == 0
        if isinstance(cond, c_ast.BinaryOp) and cond.op == "==":
            for v, c in ((cond.left, cond.right), (cond.right, cond.left)):
                if _is_id(v, name) and not has_calls_or_writes(c):
                    return self.const_value(c) == entry
        return False

    def spin_assume(
        self, start: int, check: int, head: str, flag: str, s: c_ast.Node, threaded: set[str]
    ) -> None:
        """Apply GenMC's spin-assume transformation to the loop just lowered (its head
        label at ``start``, its check of effects to go at ``check``)."""
        view = LoopView(self.code, start, head, self.local_write)
        live = self.live_after(s)
        frame = self.funcs[-1] if self.funcs else None
        returns = (frame.end, {frame.result} if frame.result else set()) if frame else None
        carried = carried_registers(view, live, returns) - threaded
        verdict = analyse(view, frozenset(self.hidden), carried)
        edits: list[tuple[int, list[Instr], bool]] = []  # (index, operations, replace)
        for latch in verdict.blocking:
            br = self.code[latch]
            assert isinstance(br, Branch)
            if br.cond is None:
                z = self.temp()
                edits.append((latch, [Op(z, "mov", (Imm(0),)), Assume(z, "ne")], True))
            else:
                edits.append((latch, [Assume(br.creg, _negate(br.cond))], True))
        for unlock in verdict.unlocks:  # the lock released with nothing done: block
            z = self.temp()
            edits.append((unlock, [Op(z, "mov", (Imm(0),)), Assume(z, "ne")], False))
        if verdict.zne:  # an undoing fetch-and-add with no other write since the head
            other = self.fresh("zne.wrote")
            self.hidden.add(other)
            edits.append((check, [Op(other, "mov", (Imm(0),))], False))
            for i in range(start, len(self.code)):
                ins = self.code[i]
                if isinstance(ins, (Store, CAS, Lock, Unlock)) and not self.local_write(ins, i):
                    edits.append((i + 1, self.effect_flag(i, other), False))
            for i in verdict.zne:
                edits.append((i, [Assume(other, "ne")], False))
        if verdict.dynamic:
            edits.append((check, [Assume(flag, "ne"), Op(flag, "mov", (Imm(0),))], False))
            edits.extend((i + 1, self.effect_flag(i, flag), False) for i in verdict.writes)
        for at, ops, replace in sorted(edits, key=lambda e: -e[0]):
            origin = self.origins[at if replace or not at else at - 1]
            self.code[at : at + int(replace)] = ops
            self.origins[at : at + int(replace)] = [origin] * len(ops)
        if not verdict.dynamic:  # no check of effects: no flag
            del self.code[start - 1], self.origins[start - 1]

    def effect_flag(self, i: int, flag: str) -> list[Instr]:
        """What sets ``flag`` after the write at ``i`` when it has an effect (a failed
        compare-and-swap, an exchange writing the value it read, have none)."""
        ins = self.code[i]
        t = self.temp()
        if isinstance(ins, CAS) and ins.dst:
            return [Op(t, "eq", (Reg(ins.dst), ins.expected)), Op(flag, "or", (Reg(flag), Reg(t)))]
        if isinstance(ins, RMW) and ins.fn == "second" and ins.dst:
            return [Op(t, "ne", (Reg(ins.dst), ins.src)), Op(flag, "or", (Reg(flag), Reg(t)))]
        return [Op(flag, "mov", (Imm(1),))]

    def local_write(self, ins: Instr, i: int) -> bool:
        """Whether a write goes to the thread's own stack or to a heap allocation it
        made and has not published (GenMC's local stores)."""
        if not isinstance(ins, (Store, RMW, CAS, Lock, Unlock)):
            return False
        addr = ins.addr
        if len(addr) == 1 and isinstance(addr[0], Imm) and isinstance(addr[0].value, Sym):
            return addr[0].value.name in {s.name for s in self.stack.values()}
        if not isinstance(ins, Store):
            return False
        regs = [a.name for a in addr if isinstance(a, Reg)]
        return len(regs) == 1 and regs[0] in fresh_allocations(self.code, i)

    def live_after(self, s: c_ast.Node) -> set[str]:
        """Registers of local variables in scope that the code after the loop may read
        (a variable declared outside the loop and named after it in its function)."""
        body = self.current_body()
        if body is None:
            return set()
        after = names_after(body, s)
        out = set()
        for scope in self.scopes:
            for name, b in scope.items():
                if isinstance(b, Local) and (after is None or name in after):
                    out.add(b.reg)
        return out

    def current_body(self) -> c_ast.Node | None:
        raise NotImplementedError  # lower_stmt.CodeLowerer


#: calls that start a thread
THREAD_STARTS = frozenset(
    {"pthread_create", "thrd_create", "__VERIFIER_spawn", "__VERIFIER_spawn_symmetric"}
)


def starts_threads(node: c_ast.Node | None) -> bool:
    """Whether ``node`` calls a function that starts a thread (by name)."""
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID):
            if n.name.name in THREAD_STARTS:
                return True
        stack.extend(child for _, child in n.children())
    return False


def _reads(node: c_ast.Node, name: str) -> bool:
    """Whether ``node`` reads variable ``name`` (not counting plain assignments to it)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.ID) and n.name == name:
            return True
        if isinstance(n, c_ast.Assignment) and n.op == "=" and isinstance(n.lvalue, c_ast.ID):
            stack.append(n.rvalue)
            continue
        stack.extend(child for _, child in n.children())
    return False


def _is_id(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _id_nodes(node: c_ast.Node) -> list[c_ast.ID]:
    return [n for n in _ids(node)]


def _negate(cond: str) -> str:
    return {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}[cond]


def fresh_allocations(code: list[Instr], before: int) -> set[str]:
    """Registers holding heap allocations made by the code before ``before`` that no
    write, read-modify-write or compare-and-swap has published yet."""
    fresh: set[str] = set()
    for ins in code[:before]:
        if isinstance(ins, Op):
            if ins.fn == "alloc":
                fresh.add(ins.dst)
                continue
            if ins.fn in ("mov", "add") and any(
                isinstance(a, Reg) and a.name in fresh for a in ins.args
            ):
                fresh.add(ins.dst)
                continue
            fresh.discard(ins.dst)
        elif isinstance(ins, (Store, RMW)):
            if isinstance(ins.src, Reg):
                fresh.discard(ins.src.name)
        elif isinstance(ins, CAS) and isinstance(ins.desired, Reg):
            pass  # published only if it succeeds: GenMC looks at the paths (spin.py)
    return fresh


def names_after(body: c_ast.Node, target: c_ast.Node) -> set[str] | None:
    """The names used after statement ``target`` in ``body`` (in its block and the
    enclosing ones; inside an enclosing loop, anything: None)."""
    path = _path_to(body, target)
    if path is None:
        return None
    out: set[str] = set()
    for k, node in enumerate(path[:-1]):
        child = path[k + 1]
        if isinstance(node, (c_ast.While, c_ast.DoWhile, c_ast.For)):
            return None
        if isinstance(node, c_ast.Compound):
            items = list(node.block_items or [])
            for item in items[items.index(child) + 1 :] if child in items else []:
                out |= {n.name for n in _ids(item)}
    return out


def _path_to(node: c_ast.Node, target: c_ast.Node) -> list[c_ast.Node] | None:
    stack: list[tuple[c_ast.Node, list[c_ast.Node]]] = [(node, [node])]
    while stack:
        n, path = stack.pop()
        if n is target:
            return path
        for _, child in n.children():
            stack.append((child, [*path, child]))
    return None


def _ids(node: c_ast.Node) -> list[c_ast.ID]:
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.ID):
            out.append(n)
        stack.extend(child for _, child in n.children())
    return out
