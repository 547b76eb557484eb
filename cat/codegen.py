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

from dataclasses import dataclass, field

from herdsman.cat.backend import Backend
from herdsman.cat.checks import operand
from herdsman.cat.compiler import (
    CheckStep,
    Compiled,
    CoStep,
    End,
    ForallStep,
    Program,
    RejectStep,
    WithStep,
)
from herdsman.cat.ir import Node, is_static, walk
from herdsman.cat.values import EMPTY, REL, SET, VRel, VSet
from herdsman.graphs.relalg import KERNEL

MEMO_LIMIT = 50_000
#: Operands of an n-ary node written as one nested expression at most: Python's parser
#: refuses an expression nested 200 deep, so a longer sequence is composed by a call
#: over a flat tuple (``RT.seqs``) and a longer union or intersection in groups.
NEST_MAX = 32
#: Dynamic ops worth a memo table (a dict lookup costs far less than the op).  Compiled
#: (``graphs.relalg.KERNEL``), sequence and closure cost about as much as a lookup keyed on
#: their operands: not memoised then (the POWER campaign is 7 % faster without).
MEMO_OPS = frozenset() if KERNEL else frozenset({"seq", "plus", "inv"})
#: Whether acyclicity tests get a memo table (compiled, the test costs about a lookup).
MEMO_ACYCLIC = not KERNEL

#: Ops computed by a constant, and ops computed by a call: the names ``_PRELUDE`` binds.
_CONSTS = {"all": "ALL", "id": "ID", "full": "FULL"}
_CALLS = {
    "inv": "inverse",
    "plus": "plus",
    "domain": "domain",
    "range": "range_",
    "prod": "product",
    "toid": "ident",
}

#: First lines of the generated ``statics`` and ``make``: the relalg kernels as locals.
_PRELUDE = [
    "    seq = U.seq; inverse = U.inverse; plus = U.plus; domain = U.domain",
    "    range_ = U.range; product = U.product; ident = U.ident",
    "    acyclic = RT.acyclic; ALL = U.ALL; ID = U.ID; FULL = U.FULL; NN = U.n * U.cap",
]


@dataclass
class Scope:
    avail: dict[int, str]
    lines: list[str]
    ind: int
    fails: str = "fails"
    in_fix: bool = False  # inside a fixpoint loop: no memo tables (the fixpoint has one)


@dataclass
class CheckPlan:
    """How a check step tests its operand: a bare int of type t, or a tagged value."""

    step: CheckStep
    operand: object  # Node | int | tagged value
    t: object
    monotone: bool = False


@dataclass
class Generated:
    source: str
    consts: list
    plans: list[CheckPlan] = field(default_factory=list)


def check_operand(c: Compiled, step: CheckStep):
    """(operand, type) a check tests (see cat.checks.operand)."""
    if step.kind == "when":
        return step.value, "bool"
    return operand(Backend(graph=c.graph), step.kind, step.value, step.pos)


def program_values(c: Compiled) -> list:
    """Every value the program reads (check operands, co bases, with sets, shows)."""
    out: list = []
    ev = Backend(graph=c.graph)

    def walk(prog: Program | None) -> None:
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
                walk(s.body)
        t = prog.tail
        if isinstance(t, End):
            out.extend(t.shows.values())
            out.append(t.co)
        elif isinstance(t, WithStep):
            out.append(t.setval)
            walk(t.cont)
            for _, p in t.branches or ():
                walk(p)

    walk(c.program)
    return out


class CodeGen:
    """Generates ``statics`` (sp None, precomputed empty) or ``make`` (see module doc)."""

    def __init__(
        self,
        compiled: Compiled,
        monotone: dict[int, bool] | None = None,
        sp=None,
        precomputed: frozenset[int] = frozenset(),
        native: bool = False,
    ) -> None:
        self.c = compiled
        self.g = compiled.graph
        self.consts: list = []
        self.static = Scope({}, [], 1)
        self.nfun = 0
        self.memos: list[str] = []
        self.monotone = monotone or {}
        self.plans: list[CheckPlan] = []
        self.sl_W: str | None = None
        self.static_checks: set[str] = set()
        self.sp = sp
        self.precomputed = precomputed
        self.native = native
        self.co_node = None
        self.needed: set[int] = set()
        for n in self.g.nodes:
            if n.op == "input" and n.info == "co":
                self.co_node = n

    # ------------------------------------------------------------------ helpers
    def const(self, v) -> str:
        self.consts.append(v)
        return f"K[{len(self.consts) - 1}]"

    def emit(self, sc: Scope, text: str) -> None:
        sc.lines.append("    " * sc.ind + text)

    def map(self, v):
        return self.sp.value(v) if self.sp is not None else v

    def value(self, v, sc: Scope, want_raw=None) -> str:
        """Python expression for an abstract value in scope sc."""
        if type(v) is Node:
            return self.ensure(v, sc)
        if type(v) is int:
            return str(v)
        if want_raw is not None:
            if v is EMPTY:
                return "0"
            if type(v) in (VSet, VRel):
                return str(v.bits)
        return self.const(v)

    def ensure(self, n: Node, sc: Scope) -> str:
        """Make node n available in scope sc (computing it and its arguments if needed)."""
        var = sc.avail.get(n.id)
        if var is not None:
            return var
        if not n.deps and sc is not self.static:
            var = self.ensure(n, self.static)
            sc.avail[n.id] = var
            return var
        var = f"v{n.id}"
        if not n.deps and n.id in self.precomputed:
            self.emit(sc, f"{var} = S[{n.id}]")
            sc.avail[n.id] = var
            return var
        op = n.op
        if op == "fix":
            return self.gen_fix(n, sc)
        if op == "const":
            sc.avail[n.id] = str(n.info)
            return str(n.info)
        args = [self.ensure(a, sc) for a in n.args]
        expr = self.expr(n, args)
        if n.deps and op in MEMO_OPS and not sc.in_fix:
            key = args[0] if len(args) == 1 else f"({', '.join(args)})"
            self.emit_memoised(sc, var, self.memo_table(f"m{n.id}"), key, expr)
        else:
            self.emit(sc, f"{var} = {expr}")
        sc.avail[n.id] = var
        return var

    def memo_table(self, memo: str) -> str:
        """Declare memo table ``memo`` (a dict local to ``make``)."""
        if memo not in self.memos:
            self.memos.append(memo)
        return memo

    def emit_memoised(self, sc: Scope, var: str, memo: str, key: str, expr: str) -> None:
        """``var = expr``, looked up first in ``memo`` under ``key``."""
        self.emit_lookup(sc, var, memo, key)
        self.emit(sc, f"    {var} = {expr}")
        self.emit_store(sc, var, memo, key, "    ")

    def emit_lookup(self, sc: Scope, var: str, memo: str, key: str) -> None:
        """``var`` from ``memo``, then the head of the block computing it on a miss."""
        self.emit(sc, f"{var} = {memo}.get({key})")
        self.emit(sc, f"if {var} is None:")

    def emit_store(self, sc: Scope, var: str, memo: str, key: str, pad: str = "") -> None:
        """Store ``var`` in ``memo`` (emptied first when it outgrows MEMO_LIMIT)."""
        self.emit(sc, f"{pad}if len({memo}) > {MEMO_LIMIT}:")
        self.emit(sc, f"{pad}    {memo}.clear()")
        self.emit(sc, f"{pad}{memo}[{key}] = {var}")

    def expr(self, n: Node, a: list[str]) -> str:
        op = n.op
        if op == "name":
            return f"N[{n.info!r}]"
        if op in _CONSTS:
            return _CONSTS[op]
        if op in _CALLS:
            return f"{_CALLS[op]}({', '.join(a)})"
        if op == "union":
            return _grouped(" | ", a)
        if op == "inter":
            return _grouped(" & ", a)
        if op == "diff":
            return f"{a[0]} & ~{a[1]}"
        if op == "seq":
            if len(a) > NEST_MAX:
                return f"RT.seqs(({', '.join(a)}))"
            out = a[0]
            for x in a[1:]:
                out = f"seq({out}, {x})"
            return out
        if op == "proj":
            return f"{a[0]}[{n.info}]"
        if op == "fixvals":
            return f"({', '.join(a)}, True)"
        if op == "unbox":
            t, pos = n.info
            return f"EV.raw({a[0]}, {t!r}, {self.const(pos)})"
        if op in ("generic", "runtime"):
            f = self.const(n)
            boxed = [self.boxed(x, v) for x, v in zip(n.args, a, strict=True)]
            call = f"RT.call({f}, ({', '.join(boxed)}{',' if len(boxed) == 1 else ''}))"
            if n.type == SET or n.type == REL:  # the call gives a tagged value: its bits
                return f"RT.bits({call})"
            return call
        if op == "test":
            kind, negated, pos, t = n.info
            return self.test_expr(kind, negated, a[0], t)
        if op == "input":
            return n.info
        if op == "pco":
            return f"RT.pco({a[0]}, {a[1]})"
        if op == "select":
            cond = f"{a[0]} == {a[1]}" if n.info == "eq" else f"not ({a[0]} & ~{a[1]})"
            return f"({a[2]} if {cond} else {a[3]})"
        raise NotImplementedError(f"codegen: {op}")  # fixvar/withvar are bound by their scope

    @staticmethod
    def boxed(n: Node, var: str) -> str:
        if n.type == SET:
            return f"VSet({var})"
        if n.type == REL:
            return f"VRel({var})"
        return var

    def test_expr(self, kind: str, negated: bool, x: str, t) -> str:
        if t in (SET, REL):
            if kind == "empty":
                e = f"not {x}"
            elif kind == "irreflexive":
                e = f"not ({x} & ID)"
            else:
                e = f"acyclic({x})"
        else:
            e = f"RT.test({kind!r}, {x})"
        return f"not ({e})" if negated else e

    # ------------------------------------------------------------------ fixpoints
    def gen_fix(self, n: Node, sc: Scope) -> str:
        info = n.info
        # the memo lives per skeleton: only the dynamic inputs make the key
        for a in n.args:
            self.ensure(a, sc)
        ins = [sc.avail[a.id] for a in n.args if a.deps]
        memo = self.memo_table(f"m{n.id}")
        var = f"v{n.id}"
        kv = f"_k{n.id}"
        if ins:
            self.emit(sc, f"{kv} = ({', '.join(ins)}{',' if len(ins) == 1 else ''})")
        else:
            self.emit(sc, f"{kv} = None")
        self.emit_lookup(sc, var, memo, kv)
        inner = Scope(dict(sc.avail), sc.lines, sc.ind + 1)
        fvs = [fv for fv in info.fvars if type(fv) is Node]
        for fv in fvs:
            init = "0" if fv.raw else self.const(EMPTY)
            self.emit(inner, f"v{fv.id} = {init}")
            inner.avail[fv.id] = f"v{fv.id}"
        nraw = sum(1 for fv in fvs if fv.raw)
        bound = f"{nraw} * NN + 3" if nraw == len(fvs) else "100000"
        self.emit(inner, f"for _it in range({bound}):")
        body = Scope(dict(inner.avail), sc.lines, inner.ind + 1, in_fix=True)
        res = []
        for r in info.results:
            res.append(self.value(r, body, want_raw=True) if r is not EMPTY else self.const(EMPTY))
        if info.test is not None:
            kind, negated, tv, pos = info.test
            x, t = operand(Backend(graph=self.g), kind, tv, pos)
            xe = self.value(x, body, want_raw=True)
            ok = self.test_expr(kind, negated, xe, t)
            self.emit(body, f"if not ({ok}):")
            self.emit(body, f"    {var} = ({', '.join('None' for _ in res)}, False)")
            self.emit(body, "    break")
        conds = []
        for fv, rv in zip(info.fvars, res, strict=True):
            if type(fv) is not Node:
                continue
            if fv.raw:
                conds.append(f"({rv} & ~v{fv.id})")
            else:
                conds.append(f"not RT.stabilised(v{fv.id}, {rv})")
        stable = " or ".join(conds) if conds else "False"
        self.emit(body, f"if not ({stable}):")
        self.emit(body, f"    {var} = ({', '.join(res)}, True)")
        self.emit(body, "    break")
        for fv, rv in zip(info.fvars, res, strict=True):
            if type(fv) is Node:
                self.emit(body, f"v{fv.id} = {rv}")
        self.emit(inner, "else:")
        self.emit(inner, f"    RT.nonconvergence({self.const(info.pos)})")
        self.emit_store(inner, var, memo, kv)
        sc.avail[n.id] = var
        return var

    # ------------------------------------------------------------------ checks
    def plan(self, step: CheckStep) -> CheckPlan:
        x, t = check_operand(self.c, step)
        p = CheckPlan(step, self.map(x), t)
        p.monotone = self.monotone.get(id(step), False)
        self.plans.append(p)
        return p

    def check_test(self, p: CheckPlan, sc: Scope) -> str:
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

    def witness(self, p: CheckPlan, sc: Scope) -> str:
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
        self.emit(sc, f"OUT.append(RT.verdict({sc.fails}, fl, ud, {co}, SH, SS))")
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
        self.needed = {n.id for n in walk(self.map(v) for v in program_values(self.c))}

    # ------------------------------------------------------------------ whole modules
    def head(self, signature: str, more: str = "") -> list[str]:
        """``def signature:``, the kernels as locals (``more`` after the last of them), the
        memo tables."""
        return [
            f"def {signature}:",
            *_PRELUDE,
            f"    VSet = RT.VSet; VRel = RT.VRel{more}",
            *(f"    {m} = {{}}" for m in self.memos),
        ]

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
        head = self.head("make(U, N, K, RT, EV, S)", "; NOFLAGS = frozenset(); NOSHOW = {}")
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
        for i in ids:
            self.ensure(statics[i], self.static)
        head = self.head("statics(U, N, K, RT, EV)")
        out = "    return {" + ", ".join(f"{i}: {self.static.avail[i]}" for i in ids) + "}"
        src = "\n".join(head + self.static.lines + [out]) + "\n"
        return Generated(src, self.consts), ids


def _grouped(op: str, a: list[str]) -> str:
    """``a[0] op a[1] op ...``, in parenthesised groups of at most :data:`NEST_MAX`
    operands (so that no expression nests deeper than that many operators per level)."""
    if len(a) <= NEST_MAX:
        return op.join(a)
    groups = [f"({op.join(a[i : i + NEST_MAX])})" for i in range(0, len(a), NEST_MAX)]
    return _grouped(op, groups)


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
