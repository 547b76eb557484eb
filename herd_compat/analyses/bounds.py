"""``herdsman verify --max-bound K``: a C program proved safe under TSO (PSO) for every
buffer size, or shown unsafe with a run, by :mod:`engine.operational.bounded`.

The report prints one line per buffer bound as it is searched (states, distinct
projections, time, peak memory), then GenMC's verdict line (``No errors were detected.``
or ``Error: Safety violation!`` with the assertion, the run that fails it — each
thread's steps and each buffer's writes to memory, in order — and its execution) and a
``Verdict:`` line saying what the answer rests on: Theorem 1 at a fixpoint, the bound
searched, or the bound where the assertion fails.  Exit status as ``verify``'s: 0 safe
(also when only bounded), 42 unsafe, 3 no verdict (time or state limit).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

from herdsman.cat.api import PreparedModel
from herdsman.engine.operational.bounded import (
    BOUNDED,
    SAFE,
    UNSAFE,
    BoundedResult,
    BoundStep,
    verify_bounded,
)
from herdsman.herd_compat.formats.dots import write_error_picture
from herdsman.herd_compat.formats.trace import trace
from herdsman.herd_compat.pipeline.limits import Limits
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Program

__all__ = ["BoundsConfig", "bounds_report", "verify_bounds"]

#: Exit statuses (those of ``verify``).
EXIT = {SAFE: 0, BOUNDED: 0, UNSAFE: 42}
NO_VERDICT = 3


@dataclass
class BoundsConfig:
    """What ``verify --max-bound`` needs of its command line."""

    model: str
    max_bound: int
    max_states: int | None = None
    limits: Limits = Limits()  # the whole search's CPU time
    json: bool = False


def verify_bounds(
    path: str,
    program: Program,
    cfg: BoundsConfig,
    model: PreparedModel,
    outdir: str | None,
    picture_format: str = "dot",
) -> int:
    """Verify ``program`` (read from ``path``) for every buffer size; print the report;
    the exit status."""
    mode = model.identity.machine
    if mode is None:
        raise InputError(
            path, 0, 0, f"--max-bound needs the model sc, tso or pso (not {cfg.model})"
        )

    def progress(step: BoundStep) -> None:
        if not cfg.json:
            sys.stdout.write(step_line(mode, step) + "\n")
            sys.stdout.flush()

    time_limit = cfg.limits.time_limit
    res = verify_bounded(program, mode, cfg.max_bound, time_limit, cfg.max_states, progress)
    if cfg.json:
        sys.stdout.write(json.dumps(to_json(path, cfg.model, res)) + "\n")
    else:
        sys.stdout.write(bounds_report(res))
    if res.error is not None and res.error.graph is not None and outdir:
        write_error_picture(outdir, path, res.error.graph, program.name, cfg.model, picture_format)
    return EXIT.get(res.verdict, NO_VERDICT)


def step_line(mode: str, step: BoundStep) -> str:
    """One bound's line: ``TSO_2: 1234 states, 456 projections (same as TSO_1) ...``."""
    name = f"{mode.upper()}_{step.k}"
    same = " (= previous)" if step.same_as_previous else ""
    return (
        f"{name}: {step.states} states, {step.projections} projections{same}, "
        f"{step.time:.2f}s, peak {step.peak_kb // 1024} MB"
    )


def bounds_report(res: BoundedResult) -> str:
    """GenMC's verdict lines and the verdict's ground (lines end with a newline)."""
    lines = []
    if res.verdict == UNSAFE and res.error is not None:
        err = res.error
        lines.append("Error: Safety violation!")
        where = f"line {err.origin.split(':', 1)[0]}" if ":" in err.origin else err.origin
        lines.append(f"Assertion violation: {err.message}  (thread {err.thread}, {where})")
        lines.append(f"The violating run ({res.mode.upper()}_{res.bound}):")
        lines.extend(f"  {x}" for x in res.run)
        if err.graph is not None:
            lines.append("Its execution:")
            lines.append(trace(err.graph).rstrip("\n"))
    elif res.verdict in (SAFE, BOUNDED):
        lines.append("No errors were detected.")
    else:
        lines.append("No verdict.")
    lines.append(f"Verdict: {res.verdict}: {res.reason}")
    return "\n".join(lines) + "\n"


def to_json(path: str, model: str, res: BoundedResult) -> dict:
    """The ``--json`` object of one program."""
    return {
        "file": path,
        "model": model,
        "verdict": res.verdict,
        "bound": res.bound,
        "reason": res.reason,
        "bounds": [
            {
                "k": s.k,
                "states": s.states,
                "projections": s.projections,
                "same_as_previous": s.same_as_previous,
                "time": round(s.time, 4),
                "peak_kb": s.peak_kb,
            }
            for s in res.steps
        ],
        "error": None
        if res.error is None
        else {
            "message": res.error.message,
            "thread": res.error.thread,
            "origin": res.error.origin,
            "run": res.run,
        },
    }
