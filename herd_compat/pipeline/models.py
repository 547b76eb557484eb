"""Which cat model runs a test, loaded once per run: herd's default model per architecture
(PPC -> ``power``, X86 -> ``tso``) unless one is given, the test's own variants, herd's
architecture check, and model files found in ``-I`` directories; with the model, its bell
file (``-bell``) and the run's macro file (``-macros``)."""

from __future__ import annotations

import os
import re
import time
from typing import TYPE_CHECKING

from herdsman.cat.api import Model, load_model
from herdsman.engine.reference.uniproc import reads_own_later
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.litmus.base.arch import ARCHS, is_arch
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.test import LitmusTest

if TYPE_CHECKING:  # the C front-end is imported when a C test needs it (start-up)
    from herdsman.litmus.c.macros import Macros


def test_variants(test: LitmusTest) -> frozenset[str]:
    """Variant tags a test adds itself (info line ``Variant=t1,t2``)."""
    tags: set[str] = set()
    for key, value in test.info:
        if key == "Variant":
            tags |= {t for t in value.replace(",", " ").split() if t}
    return frozenset(tags)


#: C11's atomic types, operations and orders: a C program naming one is checked under
#: ``rc11`` when no model is given (GenMC's default model; its memory-model detector
#: falls back to SC for a program with no atomics)
_C11_WORDS = re.compile(rb"\b(?:_Atomic|atomic_\w+|memory_order_\w+)\b")
#: how much of a program is read to find them
_C11_SCAN = 1 << 20


def default_program_model(path: str) -> str:
    """The model a C program is verified under when none is given: ``rc11`` when it uses
    C11 atomics (:data:`_C11_WORDS`), else ``sc`` (a file that cannot be read: ``sc``,
    the front-end reports it, as it refuses what is not a regular file: a FIFO is never
    opened here)."""
    if not os.path.isfile(path):
        return "sc"
    try:
        with open(path, "rb") as f:
            text = f.read(_C11_SCAN)
    except OSError:
        return "sc"
    return "rc11" if _C11_WORDS.search(text) else "sc"


def resolve_model_spec(spec: str, include_dirs: list[str]) -> str:
    """A model file found in the current directory or an ``-I`` directory, else the spec
    unchanged (a built-in model name, or a path load_model reports as missing)."""
    if os.path.exists(spec):
        return spec
    if not os.path.isabs(spec):
        for d in include_dirs:
            cand = os.path.join(d, spec)
            if os.path.exists(cand):
                return cand
    return spec


class ModelCache:
    """Models loaded once per (spec, variants): parsed and compiled once per run."""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self._models: dict[tuple[str, frozenset[str]], Model] = {}
        #: CPU seconds spent loading models so far (a test's time leaves them out)
        self.loading_cpu = 0.0

    def spec_for(self, arch: str, path: str) -> str:
        """The model a test of architecture ``arch`` runs under."""
        if self.cfg.model:
            return self.cfg.model
        rec = ARCHS.get(arch)
        if rec is None or rec.default_model is None:
            raise InputError(
                path, 0, 0, f"no default model for architecture {arch}; give one with -model"
            )
        return rec.default_model

    def spec_for_program(self, path: str) -> str:
        """The model the C program ``path`` is verified under (see
        :func:`default_program_model`)."""
        return self.cfg.model or default_program_model(path)

    def get(self, spec: str, extra_variants: frozenset[str] = frozenset()) -> Model:
        """The model ``spec`` with the run's variants and ``extra_variants``."""
        variants = frozenset(self.cfg.variants) | extra_variants
        key = (spec, variants)
        if key not in self._models:
            loading = time.process_time()
            self._models[key] = load_model(
                resolve_model_spec(spec, self.cfg.include_dirs),
                include_dirs=tuple(self.cfg.include_dirs),
                variants=variants,
                skipchecks=tuple(self.cfg.skipchecks),
                through=self.cfg.through,
                bell=self.cfg.bell,
            )
            self.loading_cpu += time.process_time() - loading
        return self._models[key]

    def macros(self) -> Macros | None:
        """The run's macro file (herd's ``-macros``), read once; None without one."""
        if self.cfg.macros is None:
            return None
        from herdsman.litmus.c.macros import read_macros

        return read_macros(resolve_model_spec(self.cfg.macros, self.cfg.include_dirs))

    def warm(self, model: Model, arch: str) -> None:
        """Compile ``model`` for ``arch`` and ask it what the engines ask once per model
        (so that the first test's time is its own)."""
        reads_own_later(model, arch)

    def for_test(self, test: LitmusTest) -> Model:
        """The model ``test`` runs under (an InputError when its architecture is not the
        model's, unless ``-archcheck false``)."""
        spec = self.spec_for(test.arch, test.path)
        model = self.get(spec, test_variants(test))
        arch = model.arch
        if self.cfg.archcheck and arch is not None and is_arch(arch) and arch != test.arch:
            raise InputError(  # the model chosen is the one at fault, not the test
                spec,
                0,
                0,
                f"model {spec} is for {arch}, test {test.path} is {test.arch} "
                "(architecture mismatch)",
            )
        return model
