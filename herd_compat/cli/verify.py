"""``herdsman verify``: C programs checked as GenMC and Nidhugg check them.

Each program is read by the C front-end (``litmus/c``) for the model's target (the C11
mapping to x86-TSO, PSO or POWER, or herd's C annotations for a user's cat model), its
loops run as GenMC runs them (``--unroll N``: GenMC's bound; none by default), and
explored by the engine.  The report reads like GenMC's: ``No errors were
detected.`` or ``Error detected: Safety violation!`` with the failing assertion, its
source line and the violating execution (events per thread with their source lines, rf,
co; with ``-o DIR`` also ``DIR/<program>.dot``), then ``Number of complete executions
explored: N``, ``Number of blocked executions seen: M`` and the time.  Exit status: 0
when no assertion can fail, 42 when one can (GenMC's and Nidhugg's convention), 2 on bad
input, 3 when the time limit (``--timeout``) or the memory limit (``--memory``) ran
out.  ``--json`` prints one JSON object per program instead: the engine's
:class:`~engine.outcome.Outcome` with the verdict.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field

from herdsman.cat.api import load_model
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.outcome import Outcome
from herdsman.engine.run import RunOptions, run_program
from herdsman.graphs.dot import to_dot
from herdsman.herd_compat.analyses.bounds import BoundsConfig, verify_bounds
from herdsman.herd_compat.formats.dots import check_outdir, write_file
from herdsman.herd_compat.formats.opsummary import operational_lines
from herdsman.herd_compat.formats.rsmcsummary import rsmc_lines
from herdsman.herd_compat.formats.trace import trace
from herdsman.herd_compat.pipeline.limits import CpuTimeLimit, limit_memory
from herdsman.herd_compat.pipeline.progress import TerminalProgress
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.c import load_c_program, target_for_model

#: Exit statuses: no error, an assertion can fail (GenMC, Nidhugg), time limit exceeded.
SAFE, UNSAFE, TIMEOUT = 0, 42, 3

#: The bound on loop iterations of the engines that need one (the reference and
#: operational engines enumerate threads' executions eagerly) when ``--unroll`` is not
#: given; TruSt and RSMC need none (GenMC has none).
ENGINE_UNROLL = 4


@dataclass
class VerifyConfig:
    """A ``herdsman verify`` command line."""

    programs: list[str]
    model: str = "sc"
    target: str | None = None
    engine: str = "auto"
    unroll: int | None = None  # GenMC's -unroll
    no_unroll: list[str] = field(default_factory=list)
    symmetry: bool = True  # GenMC's symmetry reduction (--disable-sr)
    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    cat_include_dirs: list[str] = field(default_factory=list)
    outdir: str | None = None
    json: bool = False
    keep_going: bool = False
    time_limit: float | None = None
    memory_limit: int | None = None  # MB of address space for the whole process
    progress: bool | None = None  # None: when stderr is a terminal
    buffer_bound: int | None = None  # the operational engine's options
    stateful: bool = False
    reduction: str = "dpor"
    max_bound: int | None = None  # TSO_k to a fixpoint (herd_compat/bounds.py)
    max_states: int | None = None


def verify(cfg: VerifyConfig) -> int:
    """Verify every program of ``cfg``; the exit status (the worst one)."""
    if cfg.unroll is not None and cfg.unroll < 0:
        raise InputError("--unroll", 0, 0, "the loop bound must be >= 0")
    check_outdir(cfg.outdir)
    limit_memory(cfg.memory_limit)
    model = load_model(cfg.model, cfg.cat_include_dirs)
    target = cfg.target or target_for_model(cfg.model)
    status = SAFE
    for path in cfg.programs:
        try:
            status = max(status, _verify_one(path, cfg, model, target))
        except MemoryError:
            limit = cfg.memory_limit
            sys.stderr.write(
                f"{path}:0:0: warning: memory limit of {limit} MB exceeded, no verdict\n"
            )
            status = max(status, TIMEOUT)
    return status


def _verify_one(path: str, cfg: VerifyConfig, model: object, target: str) -> int:
    if not os.path.exists(path):  # directories, FIFOs and devices: refused when read
        raise InputError(path, 0, 0, "no such file")
    if path.endswith(".litmus"):
        raise InputError(path, 1, 1, "a litmus test, not a C program: 'herdsman run' runs it")
    program = load_c_program(
        path, target, cfg.defines, cfg.include_dirs, cfg.unroll, cfg.no_unroll
    )
    if cfg.max_bound is not None:
        return verify_bounds(
            path,
            program,
            BoundsConfig(cfg.model, cfg.max_bound, cfg.max_states, cfg.time_limit, cfg.json),
            model,
            cfg.outdir,
        )
    opts = RunOptions(
        engine=cfg.engine,
        unroll=ENGINE_UNROLL if cfg.unroll is None else cfg.unroll,
        stop_on_error=not cfg.keep_going,
        symmetry=cfg.symmetry,
        writes_first=True,  # GenMC's schedule: its moot and blocked graphs
        time_limit=cfg.time_limit,
        buffer_bound=cfg.buffer_bound,
        stateful=cfg.stateful,
        reduction=cfg.reduction,
        progress=TerminalProgress(sys.stderr) if _shows_progress(cfg) else None,
    )
    wall = time.perf_counter()
    try:
        with CpuTimeLimit(cfg.time_limit):  # building relations and checks too
            out = run_program(program, model, opts)  # type: ignore[arg-type]
    except TimeLimitExceeded:
        sys.stderr.write(
            f"{path}:0:0: warning: time limit of {cfg.time_limit:g} s exceeded, no verdict\n"
        )
        return TIMEOUT
    wall = time.perf_counter() - wall
    if cfg.json:
        data: dict = {"file": path, "model": cfg.model, "target": target, "unroll": cfg.unroll}
        data["verdict"] = "unsafe" if out.errors else "safe"
        data["outcome"] = out.to_json()
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        sys.stdout.write(report(out, opts.unroll, wall))
    if out.errors and cfg.outdir:
        graph = out.errors[0].graph
        if graph is not None:
            name = os.path.splitext(os.path.basename(path))[0]
            dot = to_dot(graph, test_name=program.name, model_name=cfg.model)
            write_file(os.path.join(cfg.outdir, f"{name}.dot"), dot)
    return UNSAFE if out.errors else SAFE


def _shows_progress(cfg: VerifyConfig) -> bool:
    return sys.stderr.isatty() if cfg.progress is None else cfg.progress


def report(out: Outcome, unroll: int, wall: float) -> str:
    """GenMC's report of an outcome (lines end with a newline)."""
    lines = []
    x = out.stats.extra
    if out.errors:
        err = out.errors[0]
        lines.append("Error detected: Safety violation!")
        where = f"line {err.origin.split(':', 1)[0]}" if ":" in err.origin else err.origin
        lines.append(f"Assertion violation: {err.message}  (thread {err.thread}, {where})")
        if not err.complete:
            lines.append("(another thread is blocked in this execution)")
        if err.graph is not None:
            lines.append("The violating execution:")
            lines.append(trace(err.graph).rstrip("\n"))
        if x.get("stopped_at_error"):
            lines.append("(exploration stopped at the first error; --keep-going explores on)")
        else:
            lines.append(f"Executions violating an assertion: {int(x.get('errors', 0))}")
    else:
        lines.append("No errors were detected.")
    lines.append(f"Number of complete executions explored: {out.stats.complete}")
    lines.append(f"Number of blocked executions seen: {out.stats.blocked}")
    cut = int(x.get("blocked_loop_bound", 0))
    if cut:
        lines.append(f"Executions cut by the loop bound (--unroll {unroll}): {cut}")
    if out.engine == "operational":
        lines.extend(operational_lines(out))
    elif out.engine == "rsmc":
        lines.extend(rsmc_lines(out))
    lines.append(f"Total wall-clock time: {wall:.2f}s")
    return "\n".join(lines) + "\n"
