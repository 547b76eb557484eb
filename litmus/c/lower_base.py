"""One thread's code being built: its operations and their origins, registers, labels,
the scopes of local names, and the inlined functions' frames.  The lowering's classes
(:mod:`.consts`, :mod:`.lower_expr`, :mod:`.lower_call`, :mod:`.lower_stmt`) build on it.
"""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Branch, Instr, Label, Op, Operand, Sym, Value
from herdsman.litmus.base.regflow import defines
from herdsman.litmus.c.context import Context
from herdsman.litmus.c.ctype import CType
from herdsman.litmus.c.fold import op_value
from herdsman.litmus.c.parse import node_error
from herdsman.litmus.c.target import Mapping
from herdsman.litmus.c.values import Binding, Demote, Frame, Ref, Val

#: The most operations one thread may have after unrolling and inlining (a program
#: beyond it is no program an exhaustive explorer can finish).
MAX_OPS = 20_000


class LowerBase:
    """One thread's code being built (see the module docstring)."""

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
        self.funcs: list[Frame] = []
        self.demoted: set[int] = ctx.demoted.setdefault(tid, set())
        self.stack: dict[tuple[int, int], Sym] = {}  # memory locals by declaration, depth
        #: registers whose value the code emitted so far fixes (straight-line code since
        #: the last label: constant propagation)
        self.known: dict[str, Value] = {}

    # ---- emission and names
    def emit(self, *ops: Instr) -> None:
        known = self.known
        for op in ops:
            self.code.append(op)
            self.origins.append(self.origin)
            if isinstance(op, Branch):
                self.targets.add(op.target)
            elif isinstance(op, Label):
                known.clear()  # code may arrive here from elsewhere
            elif isinstance(op, Op):
                v = op_value(op, known)
                if v is None:
                    known.pop(op.dst, None)
                else:
                    known[op.dst] = v
            else:
                for r in defines(op):
                    known.pop(r, None)
        if len(self.code) > MAX_OPS:
            raise InputError(
                self.path,
                0,
                0,
                f"unsupported: a thread of more than {MAX_OPS} operations once its loops "
                "are unrolled and its functions inlined",
            )

    def merge_known(self, label: str, other: dict[str, Value]) -> None:
        """Emit ``label``, where the code so far meets code whose known registers were
        ``other``: the registers both fix alike stay known."""
        here = dict(self.known)
        self.emit(Label(label))
        self.known.update({r: v for r, v in here.items() if other.get(r, v) == v and r in other})

    def keep_known(self, label: str, before: dict[str, Value], start: int) -> None:
        """Emit ``label``, the exit of a loop whose code starts at ``start``: the
        registers known before it that the loop does not write stay known."""
        written = {r for op in self.code[start:] for r in defines(op)}
        self.emit(Label(label))
        self.known.update({r: v for r, v in before.items() if r not in written})

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

    def reg_of(self, v: Val) -> Operand:
        """``v``'s operand, which must be a run-time value (a register's address is one
        only in memory: :class:`Demote`)."""
        if isinstance(v.op, Ref):
            raise Demote(v.op.key)
        return v.op

    # ---- memory names (see litmus.c.context)
    def thread_local(self, name: str) -> Sym:
        """This thread's copy of thread-local ``name``, its cells made on first use."""
        sym = Sym(f"{name}@t{self.tid}")
        if str(sym) not in self.ctx.memory:
            self.ctx.cells(sym, self.ctx.tls[name], self.ctx.tls_init.get(name))
        return sym

    def stack_object(self, key: int, name: str, t: CType) -> Sym:
        """The address of local ``name`` (declaration ``key``) on this thread's stack
        (``f.v@t1``: the same for every instance of the declaration, but for those of
        recursive calls), its cells made on first use."""
        fname = self.funcs[-1].name if self.funcs else "?"
        depth = sum(1 for f in self.funcs if f.name == fname)  # a recursive call's own
        sym = self.stack.get((key, depth))
        if sym is None:
            base, n = f"{fname}.{name}", 1
            sym = Sym(f"{base}@t{self.tid}")
            while sym in self.stack.values():
                n += 1
                sym = Sym(f"{base}#{n}@t{self.tid}")
            self.stack[(key, depth)] = sym
            self.ctx.cells(sym, t)
        return sym
