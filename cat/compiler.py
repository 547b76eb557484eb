"""Run a model's instructions at compile time into a :class:`Program` of checks.

The instructions (our ``stdlib.cat`` first, then the model, ``include`` s inlined) are
executed once, symbolically: ``let`` binds lazily (and evaluates at once, keeping an
error for the binding's uses: :func:`_settle`), ``let rec`` compiles fixpoints,
procedures are inlined at their ``call`` s, ``if "variant"`` and matches on known tags are
decided, ``forall`` over known sets is unrolled, an ``include`` inside itself is an include
cycle.  What remains for each candidate execution
is a :class:`Program`: checks in model order, and at a ``with`` the rest of the model as a
continuation run once per choice.  The standard coherence-order generation
(``with co from generate_cos(...)``) is recognised (``cat.costandard``) and replaced by the
engine's own co enumeration (``co_mode == "native"``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from herdsman.cat import ast as A
from herdsman.cat.bell import Bell
from herdsman.cat.checks import operand
from herdsman.cat.conditions import variant
from herdsman.cat.costandard import Digests, known_digests, recognise
from herdsman.cat.env import Env, Lazy, force
from herdsman.cat.errors import CatError, excerpt, quote
from herdsman.cat.evaluator import Evaluator
from herdsman.cat.generation import Generations
from herdsman.cat.generation import known as known_generations
from herdsman.cat.generation import recognise as recognise_generation
from herdsman.cat.ir import Graph, Node
from herdsman.cat.library import LIB_DIR
from herdsman.cat.modelfiles import file_keys, find_include, load_file
from herdsman.cat.parser import parse_builtin
from herdsman.cat.prims import PRIMS
from herdsman.cat.program import (
    Axiom,
    CheckStep,
    Compiled,
    CoStep,
    End,
    ForallStep,
    Program,
    RejectStep,
    WithStep,
)
from herdsman.cat.symbolic import vtype
from herdsman.cat.types import ANY, REL, SET, is_valset_t, tag_t, valset_t
from herdsman.cat.values import EMPTY, Proc, VTag, VValSet, sorted_items
from herdsman.graphs.herdnames import static_names
from herdsman.graphs.skeleton import Skeleton

#: The most checks a model may have (herd's models have tens): the code made for each
#: costs memory, about 30 KB a check to compile.
MAX_CHECKS = 10_000


@dataclass
class _St:
    env: Env
    prog: Program
    shows: dict
    #: the files being run, the model's own first, then each ``include`` d one in turn
    #: (real paths): one included again inside itself is a cycle
    includes: tuple[str, ...] = ()


class _Stop(Exception):
    pass


def _settle(v: Any) -> None:
    """Evaluate a top-level ``let`` binding now, in model order, keeping its value or its
    error for its uses (herd's bindings are lazy, and so is an error: an unused ill-typed
    binding is no error).  Forcing each one as it comes bounds the depth of evaluation:
    a binding then finds the ones it uses already evaluated, where a chain of 20,000
    ``let`` s each using the previous one would otherwise be evaluated 20,000 calls deep
    at its first use."""
    if type(v) is Lazy:
        try:
            v.force()
        except CatError:
            pass  # remembered by the binding: raised where it is used


# ----------------------------------------------------------------------------- predefined


def predefined_kinds(arch: str | Sequence[str]) -> dict[str, str]:
    """Names herd predefines for ``arch`` (or the union over several), with their kind."""
    archs = [arch] if isinstance(arch, str) else list(arch)
    sk = Skeleton(events=(), nthreads=0)
    out: dict[str, str] = {}
    for a in archs:
        for name, (kind, _) in static_names(sk, a).items():
            out[name] = kind
    return out


# ----------------------------------------------------------------------------- compiler


class ModelCompiler:
    """Compile one model for one architecture (see the module docstring)."""

    def __init__(
        self,
        arch: str | Sequence[str],
        variants=frozenset(),
        include_dirs=(),
        skipchecks=(),
        through: bool = False,
        native: bool = True,
        stdlib: str | None = None,
        bell: Bell | None = None,
        recognise: bool = True,
    ) -> None:
        self.arch = arch
        self.bell = bell
        self.tag_sets = bell.tag_sets() if bell is not None else {}
        self.variants = frozenset(v.lower() for v in variants)
        self.include_dirs = [str(d) for d in include_dirs]
        self.skipchecks = frozenset(skipchecks)
        self.through = through
        self.native_allowed = native
        self.stdlib = stdlib or str(LIB_DIR / "stdlib.cat")
        self.recognising = recognise  # probes compiling the library recognise nothing
        self.g = Graph()
        self.ev = Evaluator(graph=self.g, variants=self.variants)
        self.axioms: list[Axiom] = []
        self.withs = 0
        self.native_with = False
        self.forall_depth = 0
        self.included: set[str] = set()
        self.main_path = ""
        self.catdep = False
        self.bindings: list = []  # (name, value, pos) of the model's own top-level lets

    # ------------------------------------------------------------------ entry
    def compile(self, model: A.Model) -> Compiled:
        self.main_path = model.path
        self.catdep = model.catdep
        env = self.initial_env()
        self.initial = env
        root = Program()
        st = _St(env, root, {}, file_keys(model.path))
        stdlib = load_file(self.stdlib)
        self.final_env: Env | None = None

        def run_model(st1: _St) -> None:
            self.run(list(model.instrs), 0, st1, self.finish)

        def after_stdlib(st1: _St) -> None:
            if self.bell is None:
                run_model(st1)
                return
            # herd runs the bell file as if included here, its declarations ignored
            outer = st1.includes
            st1.includes = (*outer, os.path.realpath(self.bell.path))
            self.run(
                list(self.bell.ast.instrs), 0, st1, self._resume_include([], 0, run_model, outer)
            )

        self.run(list(stdlib.instrs), 0, st, after_stdlib)
        if self.withs == 0:
            co_mode = "none"
        elif self.native_with:
            co_mode = "native"
        else:
            co_mode = "generic"
        return Compiled(
            self.g,
            root,
            self.axioms,
            co_mode,
            self.withs,
            self.native_with,
            self.final_env,
            self.bindings,
            dict(self.tag_sets),
            self.ev.reads_values,
            frozenset(self.ev.variants_read),
        )

    def finish(self, st: _St) -> None:
        co = st.env.get("co")
        try:
            co = force(co) if co is not None else None
        except CatError:
            co = None
        if co is not None and vtype(co) not in (REL, ANY):
            co = None
        st.prog.tail = End(dict(st.shows), co)
        self.final_env = st.env

    def initial_env(self) -> Env:
        g = self.g
        vals: dict[str, Any] = {}
        for name, kind in predefined_kinds(self.arch).items():
            t = SET if kind == "set" else REL
            vals[name] = g.node("name", (), t, info=name)
        for name in self.tag_sets:  # a bell file's event sets
            vals[name] = g.node("name", (), SET, info=name)
        rf = g.node("input", (), REL, info="rf", deps=frozenset({"rf"}))
        vals["rf"] = rf
        if self.catdep:  # with register events, herd's rf includes rf-reg
            vals["rf"] = g.union([rf, vals["rf-reg"]], REL)
        if self.native_allowed:
            co = g.node("input", (), REL, info="co", deps=frozenset({"co"}))
            self.co_input: Node | None = co
            vals["FW"] = g.diff(vals["W"], g.domain(co), SET)
        else:
            self.co_input = None
            vals["FW"] = g.node("input", (), SET, info="fw", deps=frozenset({"fw"}))
        # herd's syntactic coherence constraints (cos-ok-opt.cat), from graphs.herdnames
        vals["pco"] = g.node("pco", (rf, vals["FW"]), REL)
        self.ev.predef = dict(vals)
        for name, p in PRIMS.items():
            vals[name] = p
        return Env(vals)

    def co0_node(self):
        """``loc & ((IW * (W \\ IW)) | ((W \\ FW) * FW))`` with the predefined names (shared
        with any equal definition by hash-consing)."""
        e = parse_builtin("let co0 = loc & ((IW * (W \\ IW)) | ((W \\ FW) * FW))", "<co0>")
        return self.ev.eval(e.instrs[0].bindings[0].exp, self.initial)

    # ------------------------------------------------------------------ instructions
    def run(self, instrs: list, i: int, st: _St, k) -> None:
        ev = self.ev
        while i < len(instrs):
            ins = instrs[i]
            i += 1
            cls = type(ins)
            try:
                if cls is A.Let:
                    st.env = env = ev.let_bindings(ins.bindings, st.env)
                    main = ins.pos.file == self.main_path
                    for b in ins.bindings:
                        for name in A.pat_names(b.pat):
                            v = env.get(name)
                            if main:
                                self.bindings.append((name, v, b.pos))
                            _settle(v)
                elif cls is A.Rec:
                    self.ins_rec(ins, st)
                elif cls is A.Test:
                    self.ins_test(ins, st)
                elif cls is A.ShowAs:
                    try:
                        st.shows = {**st.shows, ins.name: ev.eval(ins.exp, st.env)}
                    except CatError:
                        pass
                elif cls is A.Show:
                    shows = dict(st.shows)
                    for n in ins.names:
                        if n in st.env:
                            try:
                                shows[n] = force(st.env.get(n))
                            except CatError:
                                pass
                    st.shows = shows
                elif cls is A.UnShow:
                    st.shows = {n: v for n, v in st.shows.items() if n not in ins.names}
                elif cls is A.Enum:
                    self.ins_enum(ins, st)
                elif cls is A.Procedure:
                    p = Proc(ins.pat, ins.body, st.env, ins.name, ins.pos)
                    st.env = st.env.bind({ins.name: p})
                    if ins.rec:
                        p.env = st.env
                elif cls in (A.Debug, A.Events):
                    pass
                elif cls is A.Include:
                    path = self.resolve_include(ins)
                    outer = st.includes
                    key = os.path.realpath(path)
                    if key in outer:
                        cycle = [*outer[outer.index(key) :], key]
                        raise CatError(
                            ins.pos,
                            "include cycle: "
                            + " → ".join(excerpt(os.path.basename(f)) for f in cycle),
                        )
                    model = load_file(path)
                    st.includes = (*outer, key)
                    self.run(list(model.instrs), 0, st, self._resume_include(instrs, i, k, outer))
                    return
                elif cls is A.IfVariant:
                    holds = variant(ev.variants, ins.cond, ev.variants_read)
                    body = ins.then if holds else ins.else_
                    self.run(list(body), 0, st, self._resume(instrs, i, k))
                    return
                elif cls is A.Call:
                    if self.ins_call(ins, st, instrs, i, k):
                        return
                elif cls is A.InsMatch:
                    v = ev.eval(ins.exp, st.env)
                    body = self.match_clause(ins, v)
                    self.run(list(body), 0, st, self._resume(instrs, i, k))
                    return
                elif cls is A.Forall:
                    if self.ins_forall(ins, st, instrs, i, k):
                        return
                elif cls is A.WithFrom:
                    self.ins_with(ins, st, instrs, i, k)
                    return
                else:  # pragma: no cover
                    raise CatError(ins.pos, f"unknown instruction {cls.__name__}")
            except CatError as e:
                if e.pos is None:
                    e.pos = ins.pos
                raise
        k(st)

    def _resume(self, instrs: list, i: int, k):
        """The continuation running ``instrs[i:]`` then k."""
        return lambda st2: self.run(instrs, i, st2, k)

    def _resume_include(self, instrs: list, i: int, k, outer: tuple[str, ...]):
        """The continuation after an included file: back in the including one, running
        ``instrs[i:]`` then k."""

        def resume(st2: _St) -> None:
            st2.includes = outer
            self.run(instrs, i, st2, k)

        return resume

    def resolve_include(self, ins: A.Include) -> str:
        """The path of the file ``include`` d by ``ins``."""
        path, here = find_include(ins, self.include_dirs)
        if path is not None:
            self.included.add(os.path.abspath(path))
            return path
        shown = [repr(d) for d in dict.fromkeys([here, *self.include_dirs])]
        dirs = ", ".join([*shown, "the built-in library"])
        name = quote(ins.fname, '"')
        raise CatError(ins.pos, f"cannot find included file {name} (searched {dirs})")

    def match_clause(self, ins: A.InsMatch, v):
        if type(v) is Node:
            raise CatError(ins.exp.pos, "match instruction on a run-time value is not supported")
        if type(v) is VTag:
            for tag, body in ins.clauses:
                if tag == v.name:
                    return body
            if ins.default is not None:
                return ins.default
            raise CatError(ins.pos, f"pattern matching failed on value '{v.name}'")
        if v is EMPTY:
            raise CatError(ins.exp.pos, "matching on empty")
        raise CatError(ins.exp.pos, "matching on non-tag value")

    def ins_enum(self, ins: A.Enum, st: _St) -> None:
        env = st.env
        tags = dict(env.tags)
        for t in ins.tags:
            tags[t] = ins.name
        enums = dict(env.enums)
        enums[ins.name] = ins.tags
        self.ev.enums[ins.name] = ins.tags
        tagset = VValSet(tag_t(ins.name), frozenset(VTag(ins.name, t) for t in ins.tags))
        st.env = env.bind({ins.name: tagset}).retag(tags, enums)

    def new_axiom(self, test: A.AppTest, mode: str, name: str | None, skipped: bool) -> int:
        if len(self.axioms) >= MAX_CHECKS:
            too_many = f"more than {MAX_CHECKS} checks in the model (herdsman's limit)"
            raise CatError(test.pos, too_many)
        self.axioms.append(Axiom(name, test.kind, test.negated, mode, test.pos, skipped))
        return len(self.axioms) - 1

    def ins_test(self, ins: A.Test, st: _St) -> None:
        t = ins.test
        skipped = t.name is not None and t.name in self.skipchecks
        idx = self.new_axiom(t, ins.mode, t.name, skipped)
        if skipped or (self.through and ins.mode == "check"):
            return
        v = self.ev.eval(t.exp, st.env)
        operand(self.ev, t.kind, v, t.exp.pos)  # type-check now
        step = CheckStep(t.kind, t.negated, ins.mode, t.name, v, ins.pos, idx)
        self.axioms[idx].steps.append(step)
        st.prog.steps.append(step)

    def ins_rec(self, ins: A.Rec, st: _St) -> None:
        test = ins.test
        skipped = test is not None and test.name is not None and test.name in self.skipchecks
        if test is not None and (skipped or self.through):
            idx = self.new_axiom(test, "check", test.name, True)
            test = None
        env, ok = self.ev.rec_bind(ins.bindings, st.env, ins.pos, test)
        st.env = env
        if ins.test is None or test is None:
            return
        idx = self.new_axiom(test, "check", test.name, False)
        if ok is True:
            return
        if ok is False:
            st.prog.steps.append(RejectStep(ins.pos, "let rec ... when"))
            return
        step = CheckStep("when", False, "check", test.name, ok, ins.pos, idx)
        self.axioms[idx].steps.append(step)
        st.prog.steps.append(step)

    def ins_call(self, ins: A.Call, st: _St, instrs, i, k) -> bool:
        if (
            ins.as_name is not None and ins.as_name in self.skipchecks
        ) or ins.name in self.skipchecks:
            return False
        p = self.ev.lookup(st.env, ins.name, ins.pos)
        if type(p) is not Proc:
            raise CatError(ins.pos, "procedure expected")
        arg = self.ev.eval(ins.arg, st.env)
        env1 = self.ev.bind_args(p.pat, arg, p.env, ins.pos)
        caller_env = st.env
        st_call = replace(st, env=env1)

        def back(st2: _St) -> None:
            self.run(instrs, i, replace(st2, env=caller_env), k)

        self.run(list(p.body), 0, st_call, back)
        return True

    def ins_forall(self, ins: A.Forall, st: _St, instrs, i, k) -> bool:
        v = self.ev.eval(ins.exp, st.env)
        if type(v) is VTag:
            v = VValSet(tag_t(v.enum), frozenset([v]))
        if v is EMPTY:
            return False
        if type(v) is VValSet:
            elems = sorted_items(v)
            env0 = st.env

            def loop(j: int, st1: _St) -> None:
                if j == len(elems):
                    self.run(instrs, i, replace(st1, env=env0), k)
                    return
                st2 = replace(st1, env=env0.bind({ins.var: elems[j]}))
                self.run(list(ins.body), 0, st2, lambda st3: loop(j + 1, st3))

            loop(0, st)
            return True
        if type(v) is Node and (v.type == ANY or is_valset_t(v.type)):
            elem_t = v.type[1] if is_valset_t(v.type) else ANY
            key = self.g.fresh("x")
            var = self.g.node("withvar", (), elem_t, info=key, deps=frozenset({key}))
            body = Program()
            self.forall_depth += 1
            try:
                self.run(
                    list(ins.body),
                    0,
                    _St(st.env.bind({ins.var: var}), body, st.shows, st.includes),
                    lambda st3: None,
                )
            finally:
                self.forall_depth -= 1
            st.prog.steps.append(ForallStep(var, v, body, ins.pos))
            return False
        raise CatError(ins.exp.pos, "forall instruction applied to non-set value")

    def generated(self, ins: A.WithFrom, st: _St):
        """The set a ``with`` chooses from: computed natively when it is one of
        ``cross.cat``'s generations (:mod:`cat.generation`), else evaluated."""
        if not self.recognising:
            return self.ev.eval(ins.exp, st.env)
        gen = recognise_generation(self.ev, st.env, ins.exp, library_generations())
        if gen is None:
            return self.ev.eval(ins.exp, st.env)
        if gen[0] == "orders":
            return self.ev.defer("gen_orders", gen[1:], ins.pos, valset_t(REL))
        return self.ev.defer("gen_cross", gen[1:], ins.pos, valset_t(REL))

    def ins_with(self, ins: A.WithFrom, st: _St, instrs, i, k) -> None:
        if self.forall_depth:
            raise CatError(ins.pos, "with inside forall over a run-time set is not supported")
        self.withs += 1
        if self.native_allowed and self.co_input is not None and not self.native_with:
            cobase = recognise(self.ev, st.env, ins.exp, standard_generations())
            if cobase is not None:
                self.native_with = True
                if cobase is not self.co0_node():  # co0 holds of every co the engine makes
                    st.prog.steps.append(CoStep(cobase, ins.pos))
                st.env = st.env.bind({ins.var: self.co_input})
                self.run(instrs, i, st, k)
                return
        v = self.generated(ins, st)
        if v is EMPTY:
            st.prog.steps.append(RejectStep(ins.pos, "empty with set"))
            return
        if type(v) is VValSet:
            branches: list[tuple[object, Program]] = []
            step = WithStep(None, v, None, ins.pos, branches)
            st.prog.tail = step
            for x in sorted_items(v):
                prog = Program()
                branches.append((x, prog))
                st2 = _St(st.env.bind({ins.var: x}), prog, st.shows, st.includes)
                self.run(instrs, i, st2, k)
            return
        if type(v) is Node and (v.type == ANY or is_valset_t(v.type)):
            elem_t = v.type[1] if is_valset_t(v.type) else ANY
            key = self.g.fresh("w")
            var = self.g.node("withvar", (), elem_t, info=key, deps=frozenset({key}))
            cont = Program()
            st.prog.tail = WithStep(var, v, cont, ins.pos)
            st2 = _St(st.env.bind({ins.var: var}), cont, st.shows, st.includes)
            self.run(instrs, i, st2, k)
            return
        raise CatError(ins.exp.pos, "set expected")


@lru_cache(maxsize=1)
def library_generations() -> Generations:
    """The known implementations of ``cross.cat``'s generations (:mod:`cat.generation`):
    herd's, and our library's (compiled once, recognising nothing)."""
    model = parse_builtin('"probe"\ninclude "cross.cat"\n', "<generation probe>")
    env = ModelCompiler("PPC", native=False, recognise=False).compile(model).env
    assert env is not None
    fns = [force(env.get(n)) for n in ("generate_cos", "generate_orders", "cross")]
    return known_generations(*fns)


@lru_cache(maxsize=1)
def standard_generations() -> Digests:
    """The known implementations of the standard co generation: herd's, and those of our
    own ``cross.cat`` (compiled once, without recognising anything)."""
    model = parse_builtin('"probe"\ninclude "cross.cat"\n', "<costandard probe>")
    env = ModelCompiler("PPC", native=False, recognise=False).compile(model).env
    assert env is not None, "the probe runs to its end"
    return known_digests(force(env.get("generate_cos")), force(env.get("generate_orders")))


def compile_model(model: A.Model, arch, **kw) -> Compiled:
    """Compile, natively enumerating co when the model's generation is the standard one."""
    c = ModelCompiler(arch, **kw).compile(model)
    if c.co_mode != "native" and kw.get("native", True):
        kw = dict(kw)
        kw["native"] = False  # FW is then chosen by the engine, not derived from co
        c = ModelCompiler(arch, **kw).compile(model)
    return c


__all__ = [
    "LIB_DIR",
    "load_file",
    "compile_model",
    "ModelCompiler",
    "Program",
    "CheckStep",
    "CoStep",
    "WithStep",
    "ForallStep",
    "RejectStep",
    "End",
    "Compiled",
    "Axiom",
]
