"""``herdsman verify``: C programs checked as GenMC and Nidhugg check them.

Each program is read by the C front-end (``litmus/c``) for the model's target (the C11
mapping to x86-TSO, PSO or POWER, or herd's C annotations for a user's cat model), loops
bounded by ``--unroll`` (an execution needing more iterations is blocked, and counted
apart), and explored by the engine.  The report reads like GenMC's: ``No errors were
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
from dataclasses import dataclass, field, replace

from herdsman.cat.api import PreparedModel, load_model
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.options import VERIFY_UNROLL
from herdsman.engine.run import RunOptions, run_program
from herdsman.herd_compat.analyses.bounds import BoundsConfig, verify_bounds
from herdsman.herd_compat.formats.dots import check_outdir, write_error_picture
from herdsman.herd_compat.formats.genmc import verify_report
from herdsman.herd_compat.pipeline.limits import CpuTimeLimit, limit_memory
from herdsman.herd_compat.pipeline.progress import TerminalProgress
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.c import load_c_program

#: Exit statuses: no error, an assertion can fail (GenMC, Nidhugg), time limit exceeded.
SAFE, UNSAFE, TIMEOUT = 0, 42, 3


@dataclass
class VerifyConfig:
    """A ``herdsman verify`` command line."""

    programs: list[str]
    model: str = "sc"
    target: str | None = None
    engine: str = "auto"
    unroll: int = VERIFY_UNROLL
    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    cat_include_dirs: list[str] = field(default_factory=list)
    outdir: str | None = None
    picture_format: str = "dot"  # the error's picture: DOT text, svg or png
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
    if cfg.unroll < 0:
        raise InputError("--unroll", 0, 0, "the loop bound must be >= 0")
    check_outdir(cfg.outdir, cfg.picture_format)
    limit_memory(cfg.memory_limit)
    model = load_model(cfg.model, cfg.cat_include_dirs)
    target = cfg.target or model.identity.target
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


def _verify_one(path: str, cfg: VerifyConfig, model: PreparedModel, target: str) -> int:
    if not os.path.exists(path):  # directories, FIFOs and devices: refused when read
        raise InputError(path, 0, 0, "no such file")
    if path.endswith(".litmus"):
        raise InputError(path, 1, 1, "a litmus test, not a C program: 'herdsman run' runs it")
    program = load_c_program(path, target, cfg.defines, cfg.include_dirs)
    if cfg.max_bound is not None:
        return verify_bounds(
            path,
            program,
            BoundsConfig(cfg.model, cfg.max_bound, cfg.max_states, cfg.time_limit, cfg.json),
            model,
            cfg.outdir,
            cfg.picture_format,
        )
    program = replace(program, loop_bound="block")
    opts = RunOptions(
        engine=cfg.engine,
        unroll=cfg.unroll,
        stop_on_error=not cfg.keep_going,
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
        data = {"file": path, "model": cfg.model, "target": target, "unroll": cfg.unroll}
        data["verdict"] = "unsafe" if out.errors else "safe"
        data["outcome"] = out.to_json()
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        sys.stdout.write(verify_report(out, cfg.unroll, wall))
    if out.errors and cfg.outdir and out.errors[0].graph is not None:
        write_error_picture(
            cfg.outdir, path, out.errors[0].graph, program.name, cfg.model, cfg.picture_format
        )
    return UNSAFE if out.errors else SAFE


def _shows_progress(cfg: VerifyConfig) -> bool:
    return sys.stderr.isatty() if cfg.progress is None else cfg.progress
