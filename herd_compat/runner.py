"""Running tests the way herd7 does: in command-line order, one output block each.

:class:`RunConfig` is what ``herdsman run`` and ``herdsman herd7`` both parse their options
into; :func:`run_tests` loads the tests and models (one model per architecture when none is
given, as herd: PPC -> ``power``, X86 -> ``tso``), runs the engine and prints herd's blocks
and DOT files.  herd's rules: a test whose name was already run with the same hash is
skipped silently, with a different hash it is an error; an error on one test is reported
(one line on stderr) and the others still run; the exit status is then 2.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from dataclasses import dataclass, field
from typing import IO, Any

from herdsman.herd_compat.genmc import summary
from herdsman.herd_compat.output import format_result, herd_result
from herdsman.litmus.arch import ARCHS, is_arch
from herdsman.litmus.errors import InputError
from herdsman.litmus.parser import parse_file, parse_text
from herdsman.litmus.printer import herd_condition_text

SHOW_MODES = ("prop", "neg", "all", "cond", "wit", "none")


@dataclass
class RunConfig:
    """Options of a run, with herd's meaning (see ``herdsman herd7 -help``)."""

    tests: list[str] = field(default_factory=list)
    model: str | None = None  # None: herd's default for each test's architecture
    include_dirs: list[str] = field(default_factory=list)
    variants: set[str] = field(default_factory=set)
    skipchecks: list[str] = field(default_factory=list)
    through: bool = False
    show: str | None = None  # prop | neg | all | cond | wit (None: no pictures)
    nshow: int | None = None
    outdir: str | None = None  # directory for DOT files; "-" for stdout
    suffix: str = ""
    engine: str = "auto"
    candidates: bool = False
    names: set[str] | None = None  # only these test names
    excl: set[str] = field(default_factory=set)
    conds: dict[str, tuple[str, int]] = field(default_factory=dict)
    conds_path: str = ""
    checkfilter: bool = True
    unroll: int | None = None
    archcheck: bool = True
    time_limit: float | None = None  # herd's -timeout: no block for a test over it
    # TruSt's own options (``herdsman run``): GenMC's summary is printed after each block
    preemption_bound: int | None = None  # only executions with at most K preemptions
    print_executions: bool = False  # list every execution (with -o DIR: a DOT file each)

    @property
    def trust_summary(self) -> bool:
        """Whether TruSt's own options are on (each block is then followed by GenMC's
        summary of the exploration)."""
        return self.preemption_bound is not None or self.print_executions

    @property
    def execution_dots(self) -> bool:
        """Whether each listed execution gets its own DOT file (``DIR/<test>-<n>.dot``,
        instead of herd's ``DIR/<test>.dot``)."""
        return self.print_executions and self.outdir not in (None, "-")


class Unavailable(Exception):
    """A package herdsman needs is not installed or not written yet."""


def _import(module: str, what: str) -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as e:
        raise Unavailable(f"{what} is not available ({module}: {e})") from None


def parse_test(path: str) -> Any:
    """Parse one litmus test file (a missing or unreadable file is an InputError)."""
    if os.path.isdir(path):
        raise InputError(path, 0, 0, "is a directory, expected a litmus test file")
    if not os.path.exists(path):
        raise InputError(path, 0, 0, "no such file")
    if not os.access(path, os.R_OK):
        raise InputError(path, 0, 0, "permission denied")
    return parse_file(path)


def test_hash(test: Any) -> str:
    return _import("herdsman.litmus.hash", "the litmus hash").herd_hash(test)


def apply_conds(test: Any, cfg: RunConfig) -> Any:
    """The test with its condition replaced per ``-conds`` (herd keeps the original hash,
    which the caller takes from the original test)."""
    entry = cfg.conds.get(test.name)
    if entry is None:
        return test
    cond, line = entry
    from herdsman.herd_compat.conds import replace_condition

    with open(test.path or "", encoding="utf-8") as f:
        text = f.read()
    try:
        return parse_text(replace_condition(text, cond), test.path)
    except InputError as e:
        raise InputError(
            cfg.conds_path, line, 1, f"bad condition for test {test.name}: {e.message}"
        ) from None


def test_variants(test: Any) -> frozenset[str]:
    """Variant tags a test adds itself (info line ``Variant=t1,t2``)."""
    tags: set[str] = set()
    for key, value in getattr(test, "info", ()):
        if key == "Variant":
            tags |= {t for t in value.replace(",", " ").split() if t}
    return frozenset(tags)


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
        self._models: dict[tuple[str, frozenset[str]], Any] = {}

    def spec_for(self, arch: str, path: str) -> str:
        if self.cfg.model:
            return self.cfg.model
        rec = ARCHS.get(arch)
        if rec is None or rec.default_model is None:
            raise InputError(
                path, 0, 0, f"no default model for architecture {arch}; give one with -model"
            )
        return rec.default_model

    def get(self, spec: str, extra_variants: frozenset[str] = frozenset()) -> Any:
        variants = frozenset(self.cfg.variants) | extra_variants
        key = (spec, variants)
        if key not in self._models:
            api = _import("herdsman.cat.api", "the cat language (cat.api)")
            self._models[key] = api.load_model(
                resolve_model_spec(spec, self.cfg.include_dirs),
                include_dirs=tuple(self.cfg.include_dirs),
                variants=variants,
                skipchecks=tuple(self.cfg.skipchecks),
                through=self.cfg.through,
            )
        return self._models[key]

    def for_test(self, test: Any) -> Any:
        spec = self.spec_for(test.arch, test.path)
        model = self.get(spec, test_variants(test))
        arch = getattr(model, "arch", None)
        if self.cfg.archcheck and is_arch(arch) and arch != test.arch:
            raise InputError(
                test.path,
                1,
                1,
                f"architecture mismatch between test ({test.arch}) and model {spec} ({arch})",
            )
        return model


def run_options(cfg: RunConfig, time_limit: float | None = None) -> Any:
    """The engine's RunOptions for this configuration.  ``unroll`` is passed when the
    engine supports it; otherwise a non-default value is an error (not silently ignored)."""
    run = _import("herdsman.engine.run", "the engine (engine.run)")
    kwargs: dict[str, Any] = dict(
        engine=cfg.engine,
        show=cfg.show,
        nshow=cfg.nshow,
        checkfilter=cfg.checkfilter,
        time_limit=time_limit if time_limit is not None else cfg.time_limit,
        preemption_bound=cfg.preemption_bound,
        print_executions=cfg.print_executions,
        executions_dot=cfg.execution_dots,
    )
    names = {f.name for f in dataclasses.fields(run.RunOptions)}
    if cfg.unroll is not None:
        if "unroll" in names:
            kwargs["unroll"] = cfg.unroll
        elif cfg.unroll != 2:
            raise Unavailable("-unroll: this engine only supports herd's default bound 2")
    return run.RunOptions(**{k: v for k, v in kwargs.items() if k in names})


def run_engine(run: Any, test: Any, model: Any, opts: Any, cfg: RunConfig) -> tuple[Any, str, list]:
    """The engine's result for ``test`` (``run`` is ``engine.run``), then, with TruSt's own
    options, what they print after herd's block (GenMC's summary, listing the executions
    when asked) and the executions (with their pictures when ``cfg.execution_dots``)."""
    outcome = run.run_test(test, model, opts)
    if not cfg.trust_summary or outcome.engine != "trust":
        return outcome, "", []
    return outcome, summary(outcome, executions=cfg.print_executions), outcome.executions


def time_limit_exception() -> type[BaseException] | None:
    """The engine's exception for an exceeded time limit, if it defines one."""
    try:
        run = __import__("herdsman.engine.run", fromlist=["_"])
    except ImportError:
        return None
    for name in ("TimeLimitExceeded", "TimeLimit", "Timeout", "TimeoutError"):
        exc = getattr(run, name, None)
        if isinstance(exc, type) and issubclass(exc, BaseException):
            return exc
    return None


def dot_text(result: Any, test: Any, model: Any) -> str:
    """The DOT pictures of the executions the engine kept (``-show``), concatenated."""
    if not result.witnesses:
        return ""
    return "".join(shown_dot(sh, test, model) for sh in result.witnesses)


def shown_dot(shown: Any, test: Any, model: Any) -> str:
    """The DOT picture of one kept execution (``engine.result.ShownExecution``)."""
    dot = _import("herdsman.graphs.dot", "DOT export (graphs.dot)")
    name = getattr(model, "name", "") or ""
    text = dot.to_dot(shown.graph, test_name=test.name, model_name=name, shows=shown.shows)
    return text if text.endswith("\n") else text + "\n"


def dot_base(path: str) -> str:
    """herd's DOT file base: the test file's name without directory and extension."""
    base = os.path.basename(path)
    return base[: -len(".litmus")] if base.endswith(".litmus") else os.path.splitext(base)[0]


def write_dot(cfg: RunConfig, path: str, text: str, out: IO[str]) -> None:
    """Write ``DIR/<base><suffix>.dot`` (herd creates it even when nothing is shown), or
    with ``-o -`` print it between ``DOTBEGIN``/``DOTEND`` lines."""
    base = dot_base(path)
    if cfg.outdir == "-":
        out.write(f"\nDOTBEGIN {base}\nDOTCOM dot\n{text}\nDOTEND {base}\n")
        return
    assert cfg.outdir is not None
    write_file(os.path.join(cfg.outdir, base + cfg.suffix + ".dot"), text)


def write_execution_dots(
    cfg: RunConfig, path: str, executions: list, test: Any, model: Any
) -> None:
    """One DOT file per listed execution: ``DIR/<base>-<n>.dot``, n from 1."""
    assert cfg.outdir is not None
    for i, ex in enumerate(executions, 1):
        target = os.path.join(cfg.outdir, f"{dot_base(path)}-{i}.dot")
        write_file(target, shown_dot(ex, test, model))


def write_file(target: str, text: str) -> None:
    """Write an output file (failing to is an InputError about it)."""
    try:
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise InputError(target, 0, 0, f"cannot write: {e.strerror}") from None


def run_tests(cfg: RunConfig, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run every test of ``cfg`` in order, printing herd's blocks; the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    status = 0
    seen: dict[str, tuple[str, str]] = {}  # name -> (hash, path)
    models = ModelCache(cfg)
    timeout_exc = time_limit_exception()
    if cfg.outdir and cfg.outdir != "-" and not os.path.isdir(cfg.outdir):
        err.write(f"{cfg.outdir}:0:0: error: output directory does not exist\n")
        return 2
    try:
        if cfg.model:  # a bad model is reported once, before any test
            models.get(cfg.model)
        opts = run_options(cfg)
        run = _import("herdsman.engine.run", "the engine (engine.run)")
    except InputError as e:
        err.write(e.render() + "\n")
        return 2
    for path in cfg.tests:
        try:
            t0 = time.process_time()  # herd's Time: from reading the test to its output
            test = parse_test(path)
            if cfg.names is not None and test.name not in cfg.names:
                continue
            if test.name in cfg.excl:
                continue
            h = test_hash(test)
            if test.name in seen:
                first_hash, first_path = seen[test.name]
                if first_hash == h:
                    continue
                raise InputError(
                    path, 0, 0, f"different hashes for test {test.name} (also in {first_path})"
                )
            seen[test.name] = (h, path)
            test = apply_conds(test, cfg)
            t_model = time.process_time()
            model = models.for_test(test)  # loading a model is not the test's time
            t0 += time.process_time() - t_model
            try:
                result, summary, executions = run_engine(run, test, model, opts, cfg)
            except Exception as e:
                if timeout_exc is not None and isinstance(e, timeout_exc):
                    err.write(f"{path}:0:0: warning: time limit exceeded, no result\n")
                    continue
                raise
            if cfg.execution_dots:
                write_execution_dots(cfg, path, executions, test, model)
            elif cfg.outdir:
                write_dot(cfg, path, dot_text(result, test, model), out)
            block = herd_result(result, test.name, h, herd_condition_text(test.condition))
            block.time = time.process_time() - t0
            out.write(format_result(block, arch=test.arch, candidates=cfg.candidates))
            out.write(summary)
            out.flush()
            if result.unroll_cut:  # herd warns too
                err.write(
                    f"{path}:0:0: warning: unrolling limit exceeded, legal outcomes "
                    "may be missing\n"
                )
        except InputError as e:
            err.write(e.render() + "\n")
            status = 2
        except (Unavailable, BrokenPipeError):
            raise
        except Exception as e:  # a bug, not bad input: still one line, never a traceback
            if os.environ.get("HERDSMAN_DEBUG"):
                raise
            err.write(internal_error_line(path, e) + "\n")
            status = 2
        err.flush()
    return status


def internal_error_line(path: str, e: BaseException) -> str:
    msg = " ".join(str(e).split()) or type(e).__name__
    return (
        f"{path}:0:0: error: internal error ({type(e).__name__}: {msg}); "
        "set HERDSMAN_DEBUG=1 for a traceback"
    )
