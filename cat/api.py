"""The door into cat (ARCHITECTURE.md): load a model once, then judge candidates or grow
graphs with it.

    model = load_model("power")                   # or a path to a .cat file
    session = model.prepare(sk, "PPC")            # once per skeleton
    session.check(rf, co=co)                      # -> list[Verdict], once per candidate
    session.partial_violation(rf, co)             # prune: a monotone check already fails
    checker = model.consistency_checker("X86", layout)   # for graphs grown an event at a time
    model.identity                                # which model it is: family, machine, C target

The protocols explorers program against (``Session``, ``PreparedModel``,
``ConsistencyChecker``), ``Verdict``, ``ModelIdentity`` and ``CheckPlan`` come from
:mod:`cat.contract`.  A model is parsed and type-checked by :func:`load_model`, identified
(``cat.identity``: the table of built-in models), compiled to Python code once per
architecture (``cat.compiler``, ``cat.codegen``), and its skeleton-only part is computed
by ``prepare``.  Explanations read a check through :func:`check_view` and :func:`probe`
(terms, not cat's AST: ``cat.explainable``).  Every model error is an
:class:`litmus.errors.InputError`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from herdsman.cat import ast as A
from herdsman.cat.bell import Bell, read_bell, resolve_bell
from herdsman.cat.c11 import C11_FAMILIES, C11Checker
from herdsman.cat.codegen import generate, generate_statics, program_values
from herdsman.cat.compared import compared_events
from herdsman.cat.compiler import compile_model
from herdsman.cat.consistency import CatChecker
from herdsman.cat.contract import (
    C11_SLOTS,
    GENMC_VARIANTS,
    AcyclicStep,
    AxiomInfo,
    Base,
    C11Step,
    C11Variants,
    CheckPlan,
    ConsistencyChecker,
    EmptyMeetStep,
    Failure,
    ModelIdentity,
    PlanStep,
    PlanTerm,
    PreparedModel,
    Session,
    Verdict,
)
from herdsman.cat.deadline import DeadlinePassed, cpu_deadline
from herdsman.cat.env import force
from herdsman.cat.errors import TOO_DEEP, CatError, ModelInputError
from herdsman.cat.evaluator import Evaluator
from herdsman.cat.explainable import (
    CheckView,
    Definition,
    Probe,
    Term,
    check_site,
    parse_term,
    with_shows,
)
from herdsman.cat.form import Form, incremental_form
from herdsman.cat.fused import CheckFn, PartialFn, fused_code
from herdsman.cat.identity import (
    BUILTINS,
    MODELS_DIR,
    Builtin,
    builtin_file,
    builtin_names,
    identify,
)
from herdsman.cat.incremental import IncrementalChecker
from herdsman.cat.library import LIB_DIR
from herdsman.cat.modelfiles import load_file
from herdsman.cat.monotone import STABLE, Analysis
from herdsman.cat.parser import parse_text
from herdsman.cat.program import Compiled
from herdsman.cat.recursion import DeepRecursion
from herdsman.cat.runtime import Runtime
from herdsman.cat.session import CatSession
from herdsman.cat.specialise import Specialiser, frontier, signature
from herdsman.cat.values import VRel, VSet
from herdsman.graphs.execution import Layout
from herdsman.graphs.fuse import Fused, fuse
from herdsman.graphs.herdnames import static_names
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.arch import ARCHS, is_arch
from herdsman.litmus.base.errors import InputError

__all__ = [
    "BUILTINS",
    "CHECKERS",
    "CHECK_ARCHS",
    "MODELS_DIR",
    "STABLE",
    "AcyclicStep",
    "AxiomInfo",
    "Base",
    "Builtin",
    "C11_SLOTS",
    "C11Step",
    "CatSession",
    "CheckPlan",
    "CheckView",
    "ConsistencyChecker",
    "DeadlinePassed",
    "Definition",
    "EmptyMeetStep",
    "Failure",
    "GENMC_VARIANTS",
    "Model",
    "ModelIdentity",
    "PlanStep",
    "PlanTerm",
    "PreparedModel",
    "Probe",
    "Session",
    "Term",
    "Verdict",
    "builtin_names",
    "check_view",
    "cpu_deadline",
    "load_model",
    "load_model_text",
    "parse_term",
    "probe",
    "resolve_spec",
    "scratch_checker",
]

#: Architectures whose predefined names are used to type-check a model of no architecture:
#: those with herd's fence sets, and C (lock events), whose names herdsman's front-ends
#: make (a model must type-check with the union of their names).
CHECK_ARCHS = tuple(a.name for a in ARCHS.values() if a.fences or a.name == "C")


#: The generated ``statics(U, N, K, RT, EV)``: the skeleton-only nodes' values by node id.
StaticsFn = Callable[..., dict[int, Any]]
#: The generated ``make(U, N, K, RT, EV, S)``: check and partial for one skeleton.
MakeFn = Callable[..., tuple[CheckFn, PartialFn]]
#: A model compiled for one architecture or, to type-check it, for several.
ArchKey = str | tuple[str, ...]


@dataclass
class _Unit:
    """A model compiled for one architecture: its static part (``statics``), and the
    check code specialised per signature of empty static nodes (``makes``)."""

    compiled: Compiled
    analysis: Analysis
    monotone: dict[int, bool]
    statics_source: str
    statics_consts: list[Any]
    statics: StaticsFn
    static_ids: frozenset[int]
    frontier: list[int]
    #: signature -> (make, consts, source)
    makes: dict[int, tuple[MakeFn, list[Any], str]] = field(default_factory=dict)


class Predefined(Mapping[str, Any]):
    """herd's predefined names of a skeleton as cat values, made on first use (the run
    time rarely looks one up: ``fromto``, ``tag2events``)."""

    def __init__(self, names: Mapping[str, tuple[str, int]]) -> None:
        self._names = names
        self._made: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        got = self._made.get(name)
        if got is None:
            kind, b = self._names[name]
            got = self._made[name] = VSet(b) if kind == "set" else VRel(b)
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


#: Consistency checkers: ``incremental`` (only what a new event can break; needs a model
#: whose monotone checks it can read), ``cat`` (the model from scratch), ``auto`` (RC11's
#: and RA's own on C, ``cat/c11.py``; else the incremental one when the model has an
#: incremental form: measured faster, ``bench/bench_trust.py``).
CHECKERS = ("auto", "cat", "incremental")


class Model:
    """A loaded cat model (see :func:`load_model`)."""

    def __init__(
        self,
        ast: A.Model,
        spec: str,
        include_dirs: Iterable[str | os.PathLike[str]] = (),
        variants: Iterable[str] = frozenset(),
        skipchecks: Iterable[str] = (),
        through: bool = False,
        bell: Bell | None = None,
    ) -> None:
        self.ast = ast
        self.bell = bell
        self.path = ast.path
        self.spec = spec
        self.arch = ast.arch
        self.name = ast.name
        self.include_dirs = tuple(str(d) for d in include_dirs)
        self.variants = frozenset(v.lower() for v in variants)
        self.skipchecks = tuple(skipchecks)
        self.through = through
        self._units: dict[ArchKey, _Unit] = {}
        self._forms: dict[str, Form | None] = {}
        unit = self._unit(self._first_key())
        self._main = unit
        self.co_mode: str = unit.compiled.co_mode
        self.axioms: list[AxiomInfo] = self._axioms(unit)
        #: the model compares events' values (``different-values``): a skeleton must hold
        #: the values of the candidate it is asked about
        self.reads_values: bool = unit.compiled.reads_values
        self.variants_read = unit.compiled.variants_read  #: the variant names it tests
        exact = not through and not any(ax.skipped for ax in self.axioms)
        #: every check as written (none skipped, no -through, no variant but GenMC's)
        self.exact = exact and self.variants <= set(GENMC_VARIANTS)
        #: which model this is (``cat.identity``): decided here, once
        self.identity: ModelIdentity = identify(ast.source, ast.arch, exact)
        #: the model computes dependencies from herd's register events (``catdep``)
        self.register_events: bool = ast.catdep

    def __repr__(self) -> str:
        return f"<cat model {self.name} ({self.arch}) from {self.path}>"

    def _axioms(self, unit: _Unit) -> list[AxiomInfo]:
        out = []
        for ax in unit.compiled.axioms:
            mono = bool(ax.steps) and all(unit.monotone.get(id(s), False) for s in ax.steps)
            out.append(AxiomInfo(ax.name, ax.kind, ax.negated, ax.mode, mono, ax.pos, ax.skipped))
        return out

    def _unit(self, arch: str | Sequence[str]) -> _Unit:
        """The model compiled for ``arch`` (compiled on first use)."""
        key = arch if isinstance(arch, str) else tuple(arch)
        u = self._units.get(key)
        if u is not None:
            return u
        with DeepRecursion():
            return self._compile(key)

    def _compile(self, key: ArchKey) -> _Unit:
        """Compile the model for ``key`` and generate its static part."""
        try:
            compiled = compile_model(
                self.ast,
                key,
                variants=self.variants,
                include_dirs=self.include_dirs,
                skipchecks=self.skipchecks,
                through=self.through,
                bell=self.bell,
            )
            analysis = Analysis(compiled)
            mono = analysis.monotone_steps()
            gen, ids = generate_statics(compiled)
            front = [n.id for n in frontier(program_values(compiled))]
            code = compile(gen.source, f"<cat {self.name} statics for {key}>", "exec")
        except CatError as e:
            raise e.to_input_error() from None
        except RecursionError:
            raise ModelInputError(self.path, 0, 0, TOO_DEEP) from None
        ns: dict[str, Any] = {}
        exec(code, ns)  # noqa: S102 - our own generated code
        u = _Unit(
            compiled, analysis, mono, gen.source, gen.consts, ns["statics"], frozenset(ids), front
        )
        self._units[key] = u
        if key == self._first_key():
            self._make(u, 0)  # type-check the code generation at load time
        return u

    def _first_key(self) -> ArchKey:
        return self.arch if is_arch(self.arch) else CHECK_ARCHS

    def _make(self, unit: _Unit, sig: int) -> tuple[MakeFn, list[Any], str]:
        """The check code of ``unit`` specialised to the signature ``sig`` (a mask over
        ``unit.frontier``: its empty nodes), generated on first use."""
        got = unit.makes.get(sig)
        if got is None:
            empty = frozenset(n for k, n in enumerate(unit.frontier) if (sig >> k) & 1)
            try:
                gen = generate(
                    unit.compiled,
                    unit.monotone,
                    Specialiser(unit.compiled.graph, empty),
                    unit.static_ids,
                    unit.compiled.co_mode == "native",
                )
                code = compile(gen.source, f"<cat {self.name} ({len(unit.makes)})>", "exec")
            except CatError as e:
                raise e.to_input_error() from None
            except RecursionError:
                raise ModelInputError(self.path, 0, 0, TOO_DEEP) from None
            ns: dict[str, Any] = {}
            exec(code, ns)  # noqa: S102 - our own generated code
            got = (ns["make"], gen.consts, gen.source)
            unit.makes[sig] = got
        return got

    def lint(self) -> list[InputError]:
        """Errors in the model's own top-level bindings, used or not (herd evaluates
        bindings lazily, so an unused ill-typed one is not an error when running), each
        once, in the order of the bindings."""
        out: dict[str, InputError] = {}  # bindings using a bad one raise its error again
        with DeepRecursion():
            for _name, v, _pos in self._main.compiled.bindings:
                try:
                    force(v)
                except CatError as e:
                    err = e.to_input_error()
                    out.setdefault(err.render(), err)
        return list(out.values())

    def source_for(self, arch: str, sk: Skeleton | None = None) -> str:
        """The generated Python code for ``arch`` (for skeleton ``sk``'s signature)."""
        with DeepRecursion():
            unit = self._unit(arch)
            sig = 0 if sk is None else signature(unit.frontier, self._statics(unit, sk, arch)[1])
            return unit.statics_source + "\n" + self._make(unit, sig)[2]

    def _statics(
        self, unit: _Unit, sk: Skeleton, arch: str
    ) -> tuple[Mapping[str, int], dict[int, Any], Runtime, Evaluator]:
        """The predefined names' bits, the static nodes' values, and the run-time support
        and evaluator of ``sk``."""
        names = static_names(sk, arch, unit.compiled.tag_sets)
        N = names.bits()
        ev = Evaluator(universe=sk.U, sk=sk, variants=self.variants)
        ev.predef = Predefined(names)
        env = unit.compiled.env
        if env is not None:
            ev.enums.update(env.enums)
        rt = Runtime(sk, ev, Verdict, Failure)
        try:
            S = unit.statics(sk.U, N, unit.statics_consts, rt, ev)
        except CatError as e:
            raise e.to_input_error() from None
        return N, S, rt, ev

    def compared_events(self, sk: Skeleton, arch: str) -> int | None:
        """A superset of the events whose values the model may compare on ``sk`` (a mask:
        0 for a model that compares none; None when it cannot tell), see
        :mod:`cat.compared`."""
        if not self.reads_values:
            return 0
        with DeepRecursion():
            unit = self._unit(arch)
            names = static_names(sk, arch, unit.compiled.tag_sets)
            bits = {name: b for name, (_, b) in names.items()}
            return compared_events(unit.compiled, unit.analysis, sk, bits)

    def incremental_form(self, arch: str) -> Form | None:
        """The incremental form of the model's monotone checks on ``arch`` (None if it
        has a check the incremental checker cannot read)."""
        if arch not in self._forms:
            unit = self._unit(arch)
            self._forms[arch] = incremental_form(unit.compiled, unit.analysis, unit.monotone)
        return self._forms[arch]

    def prepare(self, sk: Skeleton, arch: str) -> CatSession:
        """Compile for ``arch`` if needed and compute the skeleton-only part of the model
        (a skeleton with read-modify-writes herd makes one event is judged fused:
        :mod:`cat.fused`)."""
        fused = fuse(sk)
        if fused is not None:
            return self._prepare(fused.sk, arch, fused)
        return self._prepare(sk, arch)

    def _prepare(self, sk: Skeleton, arch: str, fused: Fused | None = None) -> CatSession:
        """:meth:`prepare` on a skeleton without fused read-modify-writes (the fused one of
        ``fused``, whose code then judges the candidates of the original skeleton)."""
        if is_arch(self.arch) and arch != self.arch:
            raise InputError(
                self.path,
                0,
                0,
                f"Architecture mismatch between test and model ({arch} test, {self.arch} model)",
            )
        with DeepRecursion():
            unit = self._unit(arch)
            N, S, rt, ev = self._statics(unit, sk, arch)

            def build(sig: int) -> tuple[CheckFn, PartialFn]:
                """The check and partial functions of signature ``sig`` (deep recursion
                allowed by the caller)."""
                make, consts, _ = self._make(unit, sig)
                try:
                    check, partial = make(sk.U, N, consts, rt, ev, S)
                except CatError as e:
                    raise e.to_input_error() from None
                return (check, partial) if fused is None else fused_code(check, partial, fused)

            def specialised() -> tuple[CheckFn, PartialFn]:
                with DeepRecursion():
                    return build(signature(unit.frontier, S))

            if len(unit.makes) > (0 in unit.makes):  # some signature has its own code
                sig = signature(unit.frontier, S)
                if sig in unit.makes or not sig:
                    return CatSession(self, *build(sig), rt)
            elif 0 not in map(S.get, unit.frontier):
                return CatSession(self, *build(0), rt)  # signature 0
            # a signature whose code is not made yet starts on the unspecialised code: its
            # own (about 2 ms to generate and compile) pays only for a long search, which
            # switches to it (and later sessions of the signature start with it)
            return CatSession(self, *build(0), rt, specialise=specialised)

    def consistency_checker(self, arch: str, lay: Layout, kind: str = "auto") -> ConsistencyChecker:
        """A consistency checker of this model for the graphs of layout ``lay`` (see
        :data:`CHECKERS`); a model with no incremental form refuses ``incremental`` (a
        ``ValueError``)."""
        if kind not in CHECKERS:
            raise ValueError(f"unknown checker {kind!r} (known: {', '.join(CHECKERS)})")
        sc = C11_FAMILIES.get(self.identity.family)
        if kind == "auto" and arch == "C" and sc is not None and self.exact:
            v = C11Variants.of(self.variants & self.variants_read)
            return C11Checker(self, arch, lay, sc, v)  # RC11 and RA: GenMC's views
        if kind != "cat":
            form = self.incremental_form(arch)
            if form is not None:
                return IncrementalChecker(form, self, arch, lay)
            if kind == "incremental":
                raise ValueError("this model has no incremental form")
        return CatChecker(self, arch)


def resolve_spec(spec: str | os.PathLike[str]) -> Path:
    """A built-in model name or a path to a .cat file."""
    s = str(spec)
    builtin = builtin_file(s)
    if builtin is not None:
        return builtin
    p = Path(s)
    # os.path's tests, not pathlib's: a name too long for a path is no file, not an OSError
    if os.path.isfile(p) or (os.path.exists(p) and (p.suffix == ".cat" or os.sep in s)):
        return p  # (a directory, FIFO or device: reading it says what it is)
    if p.suffix == ".cat" and os.sep not in s:  # as herd, a bare file name: the library
        builtin = builtin_file(p.stem)  # herd's ppc.cat, x86tso.cat, sc.cat...
        if builtin is not None:
            return builtin
        if os.path.isfile(LIB_DIR / p.name):
            return LIB_DIR / p.name
    if p.suffix == ".cat" or os.sep in s:
        raise InputError(
            s,
            0,
            0,
            "cannot read model: no such file (nor a model of herdsman's library of that name)",
        )
    raise InputError(
        s,
        0,
        0,
        f"unknown model '{s}'; built-in models are "
        f"{', '.join(builtin_names())} (or give a .cat file)",
    )


def scratch_checker(model: PreparedModel, arch: str) -> ConsistencyChecker:
    """A consistency checker asking ``model``'s sessions from scratch (for models that are
    not cat's, such as tests' oracles)."""
    return CatChecker(model, arch)


def load_model(
    spec: str | os.PathLike[str],
    include_dirs: Iterable[str | os.PathLike[str]] = (),
    variants: Iterable[str] = frozenset(),
    skipchecks: Iterable[str] = (),
    through: bool = False,
    bell: str | os.PathLike[str] | None = None,
) -> Model:
    """Load, type-check and compile a model (built-in name or path), run after the bell
    file ``bell`` when given (:mod:`cat.bell`); InputError if bad."""
    path = resolve_spec(spec)
    with DeepRecursion():
        b = read_bell(resolve_bell(bell, include_dirs)) if bell is not None else None
        ast = load_file(str(path))
        return Model(ast, str(spec), include_dirs, variants, skipchecks, through, b)


def load_model_text(
    text: str,
    path: str = "<string>",
    include_dirs: Iterable[str | os.PathLike[str]] = (),
    variants: Iterable[str] = frozenset(),
    skipchecks: Iterable[str] = (),
    through: bool = False,
) -> Model:
    """A model from source text (includes resolve from ``path``'s directory first)."""
    with DeepRecursion():
        return Model(parse_text(text, path), path, include_dirs, variants, skipchecks, through)


def check_view(model: Model, info: AxiomInfo) -> CheckView | None:
    """Check ``info`` of ``model`` as explanations read it: its operand and the
    definitions in force there, as terms (``cat.explainable``); None when it cannot be
    read (a check inside a procedure, say)."""
    try:
        site = check_site(model.ast, info.pos, model.include_dirs, model.variants)
    except InputError:
        return None
    return None if site is None else CheckView(site)


def probe(model: Model, view: CheckView, terms: Sequence[Term]) -> Probe | None:
    """``terms`` (of ``view``) evaluated by ``model`` right after the check of ``view``,
    on candidate executions (``Probe.values``); None when the model showing them does not
    compile."""
    names = [f"herdsman-x{k}" for k in range(len(terms))]
    ast = with_shows(model.ast, view, list(zip(names, terms, strict=True)))
    try:
        with DeepRecursion():
            copy = Model(
                ast,
                model.spec,
                model.include_dirs,
                model.variants,
                model.skipchecks,
                model.through,
                model.bell,
            )
    except InputError:
        return None
    return Probe(copy, names)
