"""A test file to a program for a model: the one way every command reads its input.

:func:`load_program` reads a litmus test (PPC or X86 in herd's syntax, or herd's C
dialect) or, for ``herdsman verify``, a C program; lets the caller decide whether a test
runs (herd's ``-names``, ``-excl`` and repeated names: :data:`Admit`, given the test's
name and hash); applies ``-conds`` (keeping the original hash, as herd); picks the model
(:class:`~herd_compat.pipeline.models.ModelCache`: herd's default per architecture, the
test's variants, herd's architecture check); and lowers the test for the model (a C test
or program for the target of the model's identity, :mod:`cat.identity`).  ``run``,
``herd7``, ``validate``'s workers, ``verify``, ``explain`` and ``diff`` all read through
it; ``fences`` reads its input with :func:`read_input` (it re-lowers fenced texts itself).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from herdsman.cat.api import Model
from herdsman.engine.mixed import sizes_together
from herdsman.engine.options import DEFAULT_UNROLL
from herdsman.herd_compat.formats.conds import replace_condition
from herdsman.herd_compat.formats.herd_block import Cast, Whole, c_cast
from herdsman.herd_compat.pipeline.config import InputKind, RunConfig
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.litmus.base.casts import DEFAULT_CAST
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Condition, Loc, MemLoc, Program, prop_locations
from herdsman.litmus.base.source import read_source
from herdsman.litmus.hash import herd_hash
from herdsman.litmus.lower import (
    cell_names,
    declared_sizes,
    declared_types,
    lower,
    whole_arrays,
)
from herdsman.litmus.parser import parse_source, parse_text
from herdsman.litmus.printer import herd_condition_text, hexa_condition_text
from herdsman.litmus.returns import check_returns
from herdsman.litmus.sizes import check_sizes
from herdsman.litmus.test import LitmusTest

if TYPE_CHECKING:  # the C front-end (pycparser, pcpp: a tenth of a second to import) is
    # imported by the functions that read C: a run of assembly tests never loads it
    from herdsman.litmus.c import CLitmus

__all__ = [
    "Admit",
    "HeaderFacts",
    "Loaded",
    "Skipped",
    "admit_all",
    "apply_conds",
    "load_program",
    "read_input",
    "warm_up_parser",
]


@dataclass(frozen=True)
class HeaderFacts:
    """What herd prints of a test besides its outcome: its name, architecture (which orders
    the registers of state lines), hash (of the original test under ``-conds``) and
    condition text.  A C program has architecture ``C``, no hash and no condition text."""

    name: str
    arch: str
    hash: str
    condition: str
    #: a C test's locations with the types herd prints their values by
    casts: tuple[tuple[Loc, Cast | None], ...] = ()
    #: herd's names of the program's locations where they differ (an array's cells)
    names: tuple[tuple[Loc, Loc], ...] = ()
    #: values in hexadecimal (herd's ``-hexa true``; the condition text is already so)
    hexa: bool = False
    #: the locations herd displays when some array is observed whole (empty: the
    #: outcome's, named as ``names`` says)
    shown: tuple[Loc | Whole, ...] = ()

    def __reduce__(self) -> tuple[type[HeaderFacts], tuple]:
        # positional: a campaign's workers send one a test to the parent
        t = (self.name, self.arch, self.hash, self.condition, self.casts, self.names)
        return (HeaderFacts, (*t, self.hexa, self.shown))


@dataclass(frozen=True)
class Loaded:
    """A test or program ready to run: its facts, its program lowered for ``model``, its
    final condition and thread count, the C mapping it was lowered for (None for an
    assembly test) and the CPU seconds spent loading the model (not the test's own
    time: herd's ``Time`` leaves it out)."""

    path: str
    facts: HeaderFacts
    program: Program
    model: Model
    condition: Condition
    nthreads: int
    target: str | None
    model_cpu: float

    @property
    def name(self) -> str:
        return self.facts.name

    @property
    def arch(self) -> str:
        return self.facts.arch


@dataclass(frozen=True)
class Skipped:
    """A test not run: not selected (``-names``/``-excl``) or a repeat of a test already
    run (same name, same hash), which herd skips silently."""

    path: str
    name: str


#: Whether a test read from ``path`` with this name and hash is to run (False: skip it
#: silently; an InputError: refuse it).
Admit = Callable[[str, str, str], bool]


def admit_all(path: str, name: str, hash: str) -> bool:
    return True


#: The header of a C litmus test (its architecture is C).
_C_HEADER = re.compile(r"\s*C\s")


def refuse_other_kind(path: str, kind: InputKind) -> None:
    """An InputError when ``path`` holds the other kind of input than ``kind`` (a C
    program where litmus tests are read, a litmus test or no file where C programs are)."""
    if kind == "programs":
        if not os.path.exists(path):  # directories, FIFOs and devices: refused when read
            raise InputError(path, 0, 0, "no such file")
        if path.endswith(".litmus"):
            raise InputError(path, 1, 1, "a litmus test, not a C program: 'herdsman run' runs it")
    elif path.endswith(".c") and _readable_file(path):
        raise InputError(path, 1, 1, "a C program, not a litmus test: 'herdsman verify' checks it")


def read_input(path: str) -> LitmusTest | CLitmus:
    """Parse the litmus test (assembly or C) in ``path``; an InputError for a missing or
    unreadable file, and for a C program."""
    refuse_other_kind(path, "tests")
    try:
        src = read_source(path)  # a missing or unreadable file is refused there
    except InputError:
        if os.path.isdir(path):
            raise InputError(path, 0, 0, "is a directory, expected a litmus test file") from None
        raise
    if _C_HEADER.match(src.text):
        from herdsman.litmus.c import parse_c_litmus

        return parse_c_litmus(src.text, path)
    return parse_source(src)


def _readable_file(path: str) -> bool:
    return os.path.exists(path) and not os.path.isdir(path) and os.access(path, os.R_OK)


def condition_text(
    cond: Condition, hexa: bool, casts: tuple[tuple[Loc, Cast | None], ...] = ()
) -> str:
    """The condition as herd prints it (integers in hexadecimal under ``-hexa true``: as
    words of a C test's types ``casts``, of 64 bits in an assembly test)."""
    if not hexa:
        return herd_condition_text(cond)
    bits = {loc: DEFAULT_CAST[0] for loc in prop_locations(cond.prop)} if casts else {}
    bits.update((loc, c[0]) for loc, c in casts if c is not None)
    return hexa_condition_text(cond, bits)


def apply_conds(test: LitmusTest, cfg: RunConfig) -> LitmusTest:
    """The test with its condition replaced per ``-conds``."""
    entry = cfg.conds.get(test.name)
    if entry is None:
        return test
    cond, line = entry
    text = read_source(test.path).text
    try:
        return parse_text(replace_condition(text, cond), test.path)
    except InputError as e:
        raise InputError(
            cfg.conds_path, line, 1, f"bad condition for test {test.name}: {e.message}"
        ) from None


def load_program(
    path: str,
    models: ModelCache,
    admit: Admit = admit_all,
    test: LitmusTest | CLitmus | None = None,
) -> Loaded | Skipped:
    """The test or program in ``path`` lowered for its model, chosen by ``models`` (the
    run's model options, ``-conds`` and C options are ``models.cfg``'s); Skipped when
    ``admit`` refuses it.  ``test``: the litmus test already read from ``path`` (by
    :func:`read_input`), if so.  Every problem is an InputError."""
    cfg = models.cfg
    if cfg.inputs == "programs":
        from herdsman.litmus.c import load_c_program

        refuse_other_kind(path, "programs")
        spec = models.spec_for_program(path)
        model, cpu = _timed_model(models, spec)
        target = cfg.target or model.identity.target
        # a stateful search stops at states it has seen: its loops need no bound
        unroll = None if cfg.stateful else cfg.unroll
        program = _for_model(
            load_c_program(path, target, cfg.defines, cfg.c_include_dirs, unroll, cfg.no_unroll),
            model,
        )
        facts = HeaderFacts(program.name, "C", "", "")
        n = len(program.threads)
        return Loaded(path, facts, program, model, program.condition, n, target, cpu)
    if test is None:
        test = read_input(path)
    if not isinstance(test, LitmusTest):
        return _load_c_litmus(path, models, admit, test)
    h = herd_hash(test)
    if not admit(path, test.name, h):
        return Skipped(path, test.name)
    test = apply_conds(test, cfg)
    loaded_before = models.loading_cpu  # (no clock read for a model already loaded)
    model = models.for_test(test)
    cpu = models.loading_cpu - loaded_before
    names = tuple(cell_names(test).items())
    cond = condition_text(test.condition, cfg.hexa)
    # herd prints a declared location's values at its type; the others as ints
    types = declared_types(test)
    observed = test.observed_locations()
    wholes = whole_arrays(test)
    shown: tuple[Loc | Whole, ...] = ()
    if wholes:
        shown = tuple(
            Whole(x, wholes[x]) if isinstance(x, MemLoc) and x in wholes else x for x in observed
        )
    typed: tuple[tuple[Loc, Cast | None], ...] = ()
    if types:  # a whole array's values at its cells' type
        typed = tuple(
            (x.loc, types.get(x.cells[0], DEFAULT_CAST))
            if isinstance(x, Whole)
            else (x, types.get(x, DEFAULT_CAST))
            for x in shown or observed
        )
    facts = HeaderFacts(test.name, test.arch, h, cond, typed, names, cfg.hexa, shown)
    n = len(test.threads)
    program = lower(test)
    # herd's mixed-size rules: a location of two sizes judged on its executions
    unroll = DEFAULT_UNROLL if cfg.unroll is None else cfg.unroll
    check_sizes(
        program, model.variants, path, declared_sizes(test), sizes_together(program, unroll)
    )
    check_returns(program, model.variants, path)  # returns end threads under telechat
    return Loaded(path, facts, program, model, test.condition, n, None, cpu)


def _load_c_litmus(path: str, models: ModelCache, admit: Admit, test: CLitmus) -> Loaded | Skipped:
    """:func:`load_program` for a C litmus test."""
    from herdsman.litmus.c import lower_c_litmus
    from herdsman.litmus.c.herdhash import c_litmus_hash
    from herdsman.litmus.c.target import TARGET_ARCH

    cfg = models.cfg
    h = c_litmus_hash(test)
    if not admit(path, test.name, h):
        return Skipped(path, test.name)
    if test.name in cfg.conds:
        raise InputError(cfg.conds_path, cfg.conds[test.name][1], 1, "-conds on a C test")
    spec = models.spec_for("C", path)
    loading = time.process_time()
    model = models.get(spec)
    target = model.identity.target
    macros = models.macros()  # herd's -macros, read once
    models.warm(model, TARGET_ARCH[target])
    cpu = time.process_time() - loading  # the model and macros are not the test's
    v2 = "lkmmv2" in {v.lower() for v in cfg.variants}
    program = _for_model(lower_c_litmus(test, target, macros, kernel_v2=v2), model)
    casts = tuple((it.loc, None if it.pointer else c_cast(it.ctype)) for it in test.init)
    cond = condition_text(test.condition, cfg.hexa, casts)
    facts = HeaderFacts(test.name, "C", h, cond, casts, hexa=cfg.hexa)
    n = len(test.threads)
    return Loaded(path, facts, program, model, test.condition, n, target, cpu)


def _timed_model(models: ModelCache, spec: str) -> tuple[Model, float]:
    """The model ``spec`` and the CPU seconds its loading took (0 once cached)."""
    loading = time.process_time()
    model = models.get(spec)
    return model, time.process_time() - loading


#: Tiny tests parsed once per worker, so that building the parsers (~0.2 s) is not
#: charged to the first test's time (a pointer's initial value: the sections' grammar,
#: which the usual init sections and conditions do not reach).
_WARM_UP = (
    "PPC W\n{\n0:r2=x; int *y = &x;\n}\n P0 ;\n lwz r1,0(r2) ;\nlocations [x;]\nexists (0:r1=0)\n",
    "X86 W\n{\n}\n P0 ;\n MOV EAX,[x] ;\nexists (0:EAX=0)\n",
)


#: ... and a C one (its init section has a grammar of its own).
_WARM_UP_C = "C W\n{ x = 0; }\nP0(int *x)\n{\n\tint r0;\n\tr0 = *x;\n}\nexists (0:r0=0)\n"


def warm_up_parser() -> None:
    for text in _WARM_UP:
        try:
            parse_text(text, "<warm-up>")
        except InputError:
            pass  # only an optimisation
    from herdsman.litmus.c import parse_c_litmus

    try:
        parse_c_litmus(_WARM_UP_C, "<warm-up>")
    except InputError:
        pass


def _for_model(program: Program, model: Model) -> Program:
    """A C program as ``model`` needs it: without branch commit events when the model
    never looks at them (RC11, RA: see :attr:`Program.branch_events`)."""
    if model.identity.branch_events:
        return program
    return replace(program, branch_events=False)
