"""``herdsman verify``: C programs checked as GenMC and Nidhugg check them.

Each program goes through the pipeline every command shares
(:func:`~herd_compat.pipeline.run_file.run_file`): read by the C front-end (``litmus/c``)
for the model's target (the C11 mapping to x86-TSO, PSO or POWER, or herd's C
annotations for a user's cat model), its loops run as GenMC runs them (``--unroll N``:
GenMC's bound, none by default; an execution needing more iterations is blocked), and
explored by the engine.  The report
reads like GenMC's: ``No errors were detected.`` or ``Error: Safety violation!``
with the failing assertion, its source line and the violating execution (events per
thread with their source lines, rf, co; with ``-o DIR`` also ``DIR/<program>.dot``), then
``Number of complete executions explored: N``, ``Number of blocked executions seen: M``
and the time.  Exit status (:mod:`herd_compat.pipeline.status`): 0 when no assertion can
fail, 42 when one can (GenMC's and Nidhugg's convention), 2 on bad input, 3 when the time
limit (``--timeout``) or the memory limit (``--max-memory``, alias ``--memory``) ran out.
``--json`` prints one JSON object per program instead: the engine's
:class:`~engine.outcome.Outcome` with the verdict.  ``--max-bound K`` proves safety for
every store-buffer size instead (:mod:`herd_compat.analyses.bounds`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from typing import Any

from herdsman.cat.api import GENMC_VARIANTS
from herdsman.engine.options import VERIFY_UNROLL
from herdsman.herd_compat.analyses.bounds import BoundsConfig, verify_bounds
from herdsman.herd_compat.cli import COMMANDS
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.options import (
    add_engine_options,
    add_limit_options,
    add_model_options,
    add_output_options,
    engine_into,
    limits_of,
    models_of,
)
from herdsman.herd_compat.formats.dots import write_error_picture
from herdsman.herd_compat.formats.genmc import verify_report
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import RUN_LIMITS, Limits, MemoryLimit
from herdsman.herd_compat.pipeline.load import Loaded, load_program
from herdsman.herd_compat.pipeline.models import ModelCache, default_program_model
from herdsman.herd_compat.pipeline.run_file import (
    Done,
    Failed,
    Naming,
    load_first,
    run_file,
    within_limits,
)
from herdsman.herd_compat.pipeline.status import (
    OK,
    UNSAFE,
    failure_status,
    worst,
)

DESCRIPTION = COMMANDS["verify"]


@dataclass(frozen=True)
class Bounds:
    """``--max-bound K`` and ``--max-states N``: TSO_k (PSO_k) to a fixpoint instead of
    one search (:mod:`herd_compat.analyses.bounds`)."""

    max_bound: int
    max_states: int | None = None


def parser() -> Parser:
    """``herdsman verify``'s command line."""
    p = Parser(prog="herdsman verify", description=DESCRIPTION)
    p.add_argument("programs", nargs="+", metavar="FILE.c", help="C programs")
    add_model_options(
        p,
        model="sc, tso, pso, power, rc11, ra or a .cat file (default: rc11 for a program "
        "using C11 atomics, as GenMC; else sc)",
        include="--cat-include",
    )
    p.add_argument(
        "--no-genmc-variants",
        action="store_true",
        help="rc11 and ra as herd's rc11.cat and the paper: without it verify turns on the "
        "models' variants genmc-rs and genmc-sc (GenMC v0.11's release sequences and SC "
        "order, its counts)",
    )
    p.add_argument(
        "--target",
        choices=("tso", "pso", "power", "c"),
        help="how C maps to the model's events (default: by model; c for a .cat file)",
    )
    add_engine_options(p, operational=True)
    p.add_argument(
        "--unroll",
        type=int,
        metavar="N",
        help="GenMC's loop bound: a loop's head runs at most N times each time the loop is "
        f"entered (once more stops the thread); default: none, as GenMC (engines that "
        f"enumerate threads' runs eagerly, reference and operational: {VERIFY_UNROLL})",
    )
    p.add_argument(
        "--no-unroll",
        action="append",
        default=[],
        metavar="FUNCTION",
        help="no --unroll bound on the loops of FUNCTION",
    )
    p.add_argument(
        "--disable-sr",
        action="store_true",
        help="no symmetry reduction (GenMC's default: threads running the same function "
        "with the same argument explored once per order of their events)",
    )
    p.add_argument(
        "--disable-race-detection",
        action="store_true",
        help="a data race is not an error: its executions are counted (GenMC's flag)",
    )
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    add_output_options(
        p,
        outdir="write DIR/<program>.dot of an error",
        pictures="DIR/<program>.dot of an error, or its image",
        json="one JSON object per program",
        progress="executions so far, rate and estimated total on stderr",
    )
    p.add_argument(
        "--keep-going", action="store_true", help="explore every execution, not to the first error"
    )
    add_limit_options(p, "a program", RUN_LIMITS, memory_alias="--memory")
    p.add_argument(
        "--max-bound",
        type=int,
        metavar="K",
        help="prove safety for every store-buffer size: search TSO_k (PSO_k) for k = 0..K "
        "exhaustively and stop at the fixpoint of the reachable states (models sc, tso, pso)",
    )
    p.add_argument(
        "--max-states",
        type=int,
        metavar="N",
        help="with --max-bound: give up when a bound's search stores more than N states",
    )
    return p


def defines_of(args: list[str]) -> dict[str, str]:
    """``-D NAME[=VALUE]`` options as macros (a bare name is defined as 1)."""
    defines = {}
    for d in args:
        name, _, value = d.partition("=")
        if not name.isidentifier():
            raise UsageError(f"-D {d}: not a macro name")
        defines[name] = value if "=" in d else "1"
    return defines


def main(argv: list[str]) -> int:
    """``herdsman verify``'s entry point (errors are the caller's: ``cli.main.guarded``)."""
    a = parser().parse_args(argv)
    cfg = RunConfig(
        tests=a.programs,
        outdir=a.outdir,
        json=a.json,
        progress=a.progress,
        limits=limits_of(a, RUN_LIMITS),
        inputs="programs",
        target=a.target,
        defines=defines_of(a.defines),
        c_include_dirs=a.include,
        stop_on_error=not a.keep_going,
        no_unroll=a.no_unroll,
        symmetry=not a.disable_sr,
        race_detection=not a.disable_race_detection,
        writes_first=True,  # GenMC's schedule: its moot and blocked graphs
    )
    cfg.picture = replace(cfg.picture, format=a.format)
    models = models_of(a, a.model)
    if not a.no_genmc_variants:  # GenMC's rc11 and ra (a model that reads them)
        models = replace(models, variants=models.variants | set(GENMC_VARIANTS))
    models.into(cfg)
    engine_into(a, cfg, operational=True)
    bounds = None
    if a.max_bound is not None:
        if a.max_bound < 0:
            raise UsageError("--max-bound must be >= 0")
        if a.engine not in ("auto", "operational") or a.buffer_bound is not None:
            raise UsageError("--max-bound runs its own search: no --engine or --buffer-bound")
        if a.stateful or a.reduction != "dpor" or a.keep_going:
            raise UsageError(
                "--max-bound explores every state: no --stateful, --reduction or --keep-going"
            )
        bounds = Bounds(a.max_bound, a.max_states)
    if a.max_states is not None and (a.max_bound is None or a.max_states < 1):
        raise UsageError("--max-states needs --max-bound and must be >= 1")
    return verify(cfg, bounds)


def verify(cfg: RunConfig, bounds: Bounds | None = None) -> int:
    """Verify every program of ``cfg`` (``cfg.inputs == "programs"``), or prove it safe
    for every buffer size with ``bounds``; the exit status."""
    with MemoryLimit(cfg.limits.memory_limit):
        models = ModelCache(cfg)
        failed = load_first(cfg, models)
        if failed is not None:
            sys.stderr.write(failed.message + "\n")
            return failure_status(failed.kind)
        statuses = []
        for path in cfg.tests:
            if bounds is not None:
                status = _verify_bounds(path, cfg, models, bounds)
            else:
                status = _verify_one(path, cfg, models)
            statuses.append(status)
            sys.stdout.flush()
        return worst(statuses)


def _verify_one(path: str, cfg: RunConfig, models: ModelCache) -> int:
    """Verify one program: its report printed; its status."""
    rec = run_file(path, cfg, models)
    if isinstance(rec, Failed):
        sys.stderr.write(rec.message + "\n")
        return failure_status(rec.kind)
    assert isinstance(rec, Done)  # every program is admitted
    out = rec.outcome
    if cfg.json:
        spec = cfg.model or default_program_model(path)
        data: dict[str, Any] = {"file": path, "model": spec, "target": rec.target}
        data["unroll"] = cfg.unroll
        data["verdict"] = "unsafe" if out.errors else "safe"
        data["outcome"] = out.to_json()
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        sys.stdout.write(
            verify_report(out, VERIFY_UNROLL if cfg.unroll is None else cfg.unroll, rec.wall)
        )
    if out.errors and cfg.outdir and out.errors[0].graph is not None:
        fmt = cfg.picture.format
        spec = cfg.model or default_program_model(path)
        write_error_picture(cfg.outdir, path, out.errors[0].graph, rec.name, spec, fmt)
    return UNSAFE if out.errors else OK


def _verify_bounds(path: str, cfg: RunConfig, models: ModelCache, bounds: Bounds) -> int:
    """``--max-bound``: the program read within the limits, then searched for every
    buffer size (within the time limit the search checks itself: its report then says
    how far it got); its status."""

    def load(naming: Naming) -> Loaded:
        loaded = load_program(path, models)
        assert isinstance(loaded, Loaded)  # every program is admitted
        return loaded

    loaded = within_limits(path, cfg.limits, load, "no verdict")
    if isinstance(loaded, Failed):
        sys.stderr.write(loaded.message + "\n")
        return failure_status(loaded.kind)
    model = cfg.model or default_program_model(path)
    bcfg = BoundsConfig(model, bounds.max_bound, bounds.max_states, cfg.limits, cfg.json)
    searched = within_limits(
        path,
        Limits(None, cfg.limits.memory_limit),
        lambda naming: verify_bounds(
            path, loaded.program, bcfg, loaded.model, cfg.outdir, cfg.picture.format
        ),
        "no verdict",
    )
    if isinstance(searched, Failed):
        sys.stderr.write(searched.message + "\n")
        return failure_status(searched.kind)
    return searched
