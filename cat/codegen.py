"""Generate Python code for a compiled model.

Two functions per compiled model and architecture:

* ``statics(U, N, K, RT, EV)`` computes every node that depends on the skeleton only (the
  binding-time static part: ``po``, fences, ``ppo`` when its inputs are static...) and
  returns them by node id;
* ``make(U, N, K, RT, EV, S)``, generated per *signature* (the static nodes found empty,
  see ``cat.specialise``), defines ``check(rf, co, fw, explain, want_shows)`` and
  ``partial(rf, co, fw)`` as straight-line code over bare ints (sets and relations).  Each
  dynamic node is computed just before the first check that needs it, so a failing check
  stops the work; expensive ones (sequences, closures, inverses, fixpoints, acyclicity
  tests) are memoised on their input values, which many candidates of one skeleton share.
  Checks on the skeleton only are decided once, in ``make``.  ``with`` continuations
  become nested functions called once per element.  ``partial`` evaluates only the
  monotone checks (``cat.monotone``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from herdsman.cat.backend import Backend
from herdsman.cat.checks import operand
from herdsman.cat.ir import Node, is_static, walk
from herdsman.cat.nodecode import MEMO_ACYCLIC, NodeCode, Scope
from herdsman.cat.program import (
    CheckStep,
    Compiled,
    CoStep,
    End,
    ForallStep,
    Program,
    RejectStep,
    WithStep,
)
from herdsman.cat.values import EMPTY, REL, SET, VRel, VSet


@dataclass
class PlannedCheck:
    """How a check step tests its operand: a bare int of type t, or a tagged value."""

    step: CheckStep
    operand: object  # Node | int | tagged value
    t: object
    monotone: bool = False


@dataclass
class Generated:
    source: str
    consts: list
    plans: list[PlannedCheck] = field(default_factory=list)


def check_operand(c: Compiled, step: CheckStep):
    """(operand, type) a check tests (see cat.checks.operand)."""
    if step.kind == "when":
        return step.value, "bool"
    return operand(Backend(graph=c.graph), step.kind, step.value, step.pos)


def program_values(c: Compiled) -> list:
    """Every value the program reads (check operands, co bases, with sets, shows)."""
    out: list = []
    ev = Backend(graph=c.graph)

    # ``walk`` is passed along rather than named: a function that names itself makes a
    # reference cycle, left for the collector to find
    def walk(prog: Program | None, again: Callable[..., None]) -> None:
        if prog is None:
            return
        for s in prog.steps:
            if isinstance(s, CheckStep):
                out.append(check_operand(c, s)[0])
            elif isinstance(s, CoStep):
                if s.cobase is not EMPTY:
                    out.append(ev.raw(s.cobase, REL, s.pos))
            elif isinstance(s, ForallStep):
                out.append(s.setval)
                again(s.body, again)
        t = prog.tail
        if isinstance(t, End):
            out.extend(t.shows.values())
            out.append(t.co)
        elif isinstance(t, WithStep):
            out.append(t.setval)
            again(t.cont, again)
            for _, p in t.branches or ():
                again(p, again)

    walk(c.program, walk)
    return out


class CodeGen(NodeCode):
    """Generates ``statics`` (sp None, precomputed empty) or ``make`` (see module doc)."""

    def __init__(
        self,
        compiled: Compiled,
        monotone: dict[int, bool] | None = None,
        sp=None,
        precomputed: frozenset[int] = frozenset(),
        native: bool = False,
    ) -> None:
        super().__init__(compiled.graph, sp, precomputed)
        self.c = compiled
        self.nfun = 0
        self.monotone = monotone or {}
        self.plans: list[PlannedCheck] = []
        self.sl_W: str | None = None
        self.static_checks: set[str] = set()
        self.native = native
        self.co_node = None
        self.needed: set[int] = set()
        for n in self.g.nodes:
            if n.op == "input" and n.info == "co":
                self.co_node = n

    # ------------------------------------------------------------------ checks
    def plan(self, step: CheckStep) -> PlannedCheck:
        x, t = check_operand(self.c, step)
        p = PlannedCheck(step, self.map(x), t)
        p.monotone = self.monotone.get(id(step), False)
        self.plans.append(p)
        return p

    def check_test(self, p: PlannedCheck, sc: Scope) -> str:
        """Expression true iff the check passes."""
        step = p.step
        if p.t == "bool":
            assert type(p.operand) is Node, "a check left to run time is a test node"
            return self.ensure(p.operand, sc)
        x = p.operand
        if type(x) is Node and x.op == "const":
            x = x.info
        if type(x) is int:
            return repr((x == 0) != step.negated)
        if type(x) is not Node:
            return f"RT.test_value({step.kind!r}, {step.negated!r}, {self.const(x)})"
        if step.kind in ("acyclic", "irreflexive") and x is self.co_node and self.native:
            return repr(not step.negated)  # the engine's co is a strict order
        if not x.deps:
            # a check on the skeleton only: decided once in make
            key = f"c{x.id}_{step.kind}_{int(step.negated)}"
            if key not in self.static_checks:
                xv = self.ensure(x, self.static)
                test = self.test_expr(step.kind, step.negated, xv, p.t)
                self.emit(self.static, f"{key} = {test}")
                self.static_checks.add(key)
            return key
        if step.kind == "acyclic" and p.t == REL:
            return self.acyclic_test(x, step.negated, sc)
        xv = self.ensure(x, sc)
        return self.test_expr(step.kind, step.negated, xv, p.t)

    def acyclic_test(self, x: Node, negated: bool, sc: Scope) -> str:
        """acyclic(x): through plus(x) when that closure is computed anyway (shared),
        else by the peeling kernel, memoised."""
        if x.op == "plus":
            x = x.args[0]
        closure = self.g._cse.get(("plus", (x.id,), REL, None))
        if closure is not None and closure.id in self.needed:
            cv = self.ensure(closure, sc)
            e = f"not ({cv} & ID)"
        else:
            xv = self.ensure(x, sc)
            var = f"a{x.id}"
            if sc.avail.get(-x.id - 1) is None:
                if MEMO_ACYCLIC:
                    self.emit_memoised(sc, var, self.memo_table(f"ma{x.id}"), xv, f"acyclic({xv})")
                else:
                    self.emit(sc, f"{var} = acyclic({xv})")
                sc.avail[-x.id - 1] = var
            e = var
        return f"not {e}" if negated else e

    def witness(self, p: PlannedCheck, sc: Scope) -> str:
        step = p.step
        x = p.operand
        if step.negated or type(x) is not Node or p.t == "bool" or x.op == "const":
            return "None"
        xv = self.ensure(x, sc)
        return f"RT.witness({step.kind!r}, {xv}, {p.t!r})"

    # ------------------------------------------------------------------ programs
    def gen_program(self, prog: Program, sc: Scope) -> None:
        for step in prog.steps:
            self.gen_step(step, sc)
        tail = prog.tail
        if tail is None:
            self.emit(sc, "return OUT")
        elif isinstance(tail, End):
            self.gen_end(tail, sc)
        else:
            self.gen_with(tail, sc)

    def gen_step(self, step, sc: Scope) -> None:
        if isinstance(step, CheckStep):
            p = self.plan(step)
            test = self.check_test(p, sc)
            if test == "True":
                return
            name = self.const(step.name)
            kind = step.kind
            if step.mode == "check":
                self.emit(sc, f"if not ({test}):")
                self.emit(sc, "    if not explain:")
                self.emit(sc, f"        OUT.append(RT.rejected({name}, {kind!r}, fl, ud))")
                self.emit(sc, "        return OUT")
                wsc = Scope(dict(sc.avail), sc.lines, sc.ind + 1)
                w = self.witness(p, wsc)
                self.emit(wsc, f"{sc.fails}.append(RT.failure({name}, {kind!r}, {w}))")
            elif step.mode == "flag":
                if step.name is not None and test != "False":
                    self.emit(sc, f"if {test}:")
                    self.emit(sc, f"    fl = fl | {self.const(frozenset([step.name]))}")
            elif step.mode == "undefined_unless":
                self.emit(sc, f"if not ({test}):")
                self.emit(sc, "    ud = True")
            else:  # assert
                self.emit(sc, f"if not ({test}):")
                self.emit(sc, f"    RT.assertion({name}, {self.const(step.pos)})")
        elif isinstance(step, CoStep):
            if step.cobase is EMPTY:
                return
            base = self.map(Backend(graph=self.g).raw(step.cobase, REL, step.pos))
            if type(base) is int or (type(base) is Node and base.op == "const"):
                return
            bv = self.value(base, sc, want_raw=True)
            if self.sl_W is None:
                g = self.g
                W = g.node("name", (), SET, info="W")
                slw = g.inter([g.node("name", (), REL, info="loc"), g.prod(W, W)], REL)
                self.sl_W = self.ensure(slw, self.static)
            self.emit(sc, f"if {bv} & {self.sl_W} & ~co:")
            self.emit(sc, "    return OUT")
        elif isinstance(step, RejectStep):
            self.emit(sc, "return OUT")
        elif isinstance(step, ForallStep):
            self.gen_forall(step, sc)
        else:  # pragma: no cover
            raise NotImplementedError(type(step).__name__)

    def gen_end(self, end: End, sc: Scope) -> None:
        co = "None"
        endco = self.map(end.co)
        if endco is not None:
            if type(endco) is Node and endco.raw:
                co = self.ensure(endco, sc)
            elif type(endco) is Node:
                co = f"RT.relation_or_none({self.ensure(endco, sc)})"
            elif type(endco) is VRel:
                co = str(endco.bits)
        self.emit(sc, "if want_shows:")
        ssc = Scope(dict(sc.avail), sc.lines, sc.ind + 1)
        rels: list[tuple[str, str]] = []
        sets: list[tuple[str, str]] = []
        others: list[tuple[str, str]] = []
        for name, v in end.shows.items():
            v = self.map(v)
            if type(v) is Node and v.raw:
                (rels if v.type == REL else sets).append((name, self.ensure(v, ssc)))
            elif type(v) is Node:
                others.append((name, self.ensure(v, ssc)))
            elif type(v) is VRel:
                rels.append((name, str(v.bits)))
            elif type(v) is VSet:
                sets.append((name, str(v.bits)))
            elif v is EMPTY:
                rels.append((name, "0"))
        self.emit(ssc, "SH = {" + ", ".join(f"{n!r}: {x}" for n, x in rels) + "}")
        self.emit(ssc, "SS = {" + ", ".join(f"{n!r}: {x}" for n, x in sets) + "}")
        for n, x in others:  # values typed at run time
            self.emit(ssc, f"RT.show({n!r}, {x}, SH, SS)")
        self.emit(sc, "else:")
        self.emit(sc, "    SH = SS = NOSHOW")
        f = sc.fails  # (the verdict made here, without a call of the run time's)
        self.emit(sc, f"OUT.append(Verdict(not {f}, tuple({f}), fl, ud, {co}, SH, SS))")
        self.emit(sc, "return OUT")

    def new_fun(self) -> str:
        self.nfun += 1
        return f"k{self.nfun}"

    def gen_with(self, w: WithStep, sc: Scope) -> None:
        if w.branches is not None:
            for _, prog in w.branches:
                name = self.new_fun()
                self.emit(sc, f"def {name}(fl, ud, fails):")
                inner = Scope(dict(sc.avail), sc.lines, sc.ind + 1)
                self.gen_program(prog, inner)
                self.emit(sc, f"{name}(fl, ud, {sc.fails}[:])")
            self.emit(sc, "return OUT")
            return
        var, cont = w.var, w.cont
        assert var is not None and cont is not None, "a with over a run-time set"
        sv = self.value(self.map(w.setval), sc)
        name, inner = self.element_fun(sc, var, "fl, ud, fails", "fails")
        self.gen_program(cont, inner)
        conv = self.emit_element_loop(sc, sv, var, w.pos)
        self.emit(sc, f"    {name}({conv}, fl, ud, {sc.fails}[:])")
        self.emit(sc, "return OUT")

    def element_fun(self, sc: Scope, var: Node, params: str, fails: str) -> tuple[str, Scope]:
        """Open ``def kN(v<var>, <params>):``, the body run per element of a ``with`` or
        ``forall`` set; its name and the scope of its body (var bound)."""
        name = self.new_fun()
        v = f"v{var.id}"
        self.emit(sc, f"def {name}({v}, {params}):")
        inner = Scope(dict(sc.avail), sc.lines, sc.ind + 1, fails=fails)
        inner.avail[var.id] = v
        return name, inner

    def emit_element_loop(self, sc: Scope, sv: str, var: Node, pos) -> str:
        """``for _x in <the elements of sv>:``; returns the value of var for ``_x`` (a bare
        int when var is a set or relation)."""
        conv = "_x"
        if var.raw:
            conv = f"EV.raw(_x, {var.type!r}, {self.const(pos)})"
        self.emit(sc, f"for _x in RT.items({sv}, {self.const(pos)}):")
        return conv

    def gen_forall(self, f: ForallStep, sc: Scope) -> None:
        sv = self.value(self.map(f.setval), sc)
        name, inner = self.element_fun(sc, f.var, "fl, ud", "_ff")
        self.emit(inner, "_ff = []")
        for step in f.body.steps:
            if isinstance(step, CheckStep) and step.mode == "check":
                p = self.plan(step)
                test = self.check_test(p, inner)
                self.emit(inner, f"if not ({test}):")
                self.emit(
                    inner, f"    return False, fl, ud, {self.const(step.name)}, {step.kind!r}"
                )
            else:
                self.gen_step(step, inner)
        self.emit(inner, "return True, fl, ud, None, None")
        conv = self.emit_element_loop(sc, sv, f.var, f.pos)
        self.emit(sc, f"    _ok, fl, ud, _fn, _fk = {name}({conv}, fl, ud)")
        self.emit(sc, "    if not _ok:")
        self.emit(sc, "        if not explain:")
        self.emit(sc, "            OUT.append(RT.rejected(_fn, _fk, fl, ud))")
        self.emit(sc, "            return OUT")
        self.emit(sc, f"        {sc.fails}.append(RT.failure(_fn, _fk, None))")

    # ------------------------------------------------------------------ partial checks
    def gen_partial(self, sc: Scope) -> None:
        for p in list(self.plans):
            if not p.monotone or p.step.mode != "check":
                continue
            test = self.check_test(p, sc)
            if test == "True":
                continue
            self.emit(sc, f"if not ({test}):")
            self.emit(sc, "    return True")
        self.emit(sc, "return False")

    # ------------------------------------------------------------------ needed nodes
    def compute_needed(self) -> None:
        """Nodes reachable from what the (specialised) program reads."""
        read = [self.map(v) for v in program_values(self.c)]
        self.read = {v.id for v in read if type(v) is Node}
        self.needed = {n.id for n in walk(read)}

    def generate(self) -> Generated:
        self.compute_needed()
        check = Scope({}, [], 2)
        for n in self.g.nodes:
            if n.op == "input":
                check.avail[n.id] = n.info
        if any(n.op == "input" and n.info == "fw" for n in self.g.nodes):
            self.emit(check, "if fw is None and co is not None:")
            self.emit(check, "    fw = RT.final_writes(co)")
        self.emit(check, "OUT = []")
        self.emit(check, "fl = NOFLAGS")
        self.emit(check, "ud = False")
        self.emit(check, "fails = []")
        self.gen_program(self.c.program, check)
        partial = Scope({k: v for k, v in check.avail.items() if v in ("rf", "co", "fw")}, [], 2)
        self.gen_partial(partial)
        head = self.head(
            "make(U, N, K, RT, EV, S)", "; NOFLAGS = frozenset(); NOSHOW = {}; Verdict = RT.Verdict"
        )
        lines = head + self.static.lines
        lines.append("    def check(rf, co=None, fw=None, explain=False, want_shows=False):")
        lines += check.lines
        lines.append("    def partial(rf, co=None, fw=None):")
        lines += partial.lines
        lines.append("    return check, partial")
        return Generated("\n".join(lines) + "\n", self.consts, self.plans)

    def generate_statics(self) -> tuple[Generated, list[int]]:
        """``statics``: every static node the unspecialised program may use."""
        statics = {n.id: n for n in walk(program_values(self.c), stop=is_static) if not n.deps}
        ids = sorted(statics)
        self.read = set(ids)  # returned, each: none is made only under a test
        for i in ids:
            self.ensure(statics[i], self.static)
        head = self.head("statics(U, N, K, RT, EV)")
        out = "    return {" + ", ".join(f"{i}: {self.static.avail[i]}" for i in ids) + "}"
        src = "\n".join(head + self.static.lines + [out]) + "\n"
        return Generated(src, self.consts), ids


def generate(
    compiled: Compiled,
    monotone: dict[int, bool] | None = None,
    sp=None,
    precomputed: frozenset[int] = frozenset(),
    native: bool = False,
) -> Generated:
    return CodeGen(compiled, monotone, sp, precomputed, native).generate()


def generate_statics(compiled: Compiled) -> tuple[Generated, list[int]]:
    return CodeGen(compiled).generate_statics()
