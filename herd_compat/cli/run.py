"""Running tests the way herd7 does: in command-line order, one output block each.

:func:`run_tests` is ``herdsman run`` and ``herdsman herd7``: each test goes through the
pipeline (:mod:`herd_compat.pipeline`) under herd's selection rules, then its record is
printed: herd's block (followed, with TruSt's own options, by GenMC's summary) or with
``--json`` one JSON line, and its DOT pictures are filed.  An error on one test is reported
(one line on stderr) and the others still run; the exit status is then 2.  With
``--max-memory`` the whole run is limited to that much memory: a test that needs more
is reported as such (one line, no block) and the exit status is then 3 (unless an error
made it 2).
"""

from __future__ import annotations

import sys
from typing import IO

from herdsman.engine.errors import TimeLimitExceeded
from herdsman.herd_compat.cli.jsonl import json_line
from herdsman.herd_compat.formats.dots import (
    check_outdir,
    several_graphs_note,
    write_execution_pictures,
    write_pictures,
)
from herdsman.herd_compat.formats.genmc import summary
from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.formats.opsummary import operational_summary
from herdsman.herd_compat.formats.rsmcsummary import rsmc_summary
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import CpuTimeLimit, MemoryLimit
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, Failed, Skipped, run_file
from herdsman.herd_compat.pipeline.selection import Selection
from herdsman.litmus.base.errors import InputError


def run_tests(cfg: RunConfig, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run every test of ``cfg`` in order, printing their results; the exit status."""
    with MemoryLimit(cfg.memory_limit):
        return _run_tests(cfg, out or sys.stdout, err or sys.stderr)


def _run_tests(cfg: RunConfig, out: IO[str], err: IO[str]) -> int:
    models = ModelCache(cfg)
    try:
        check_outdir(cfg.outdir, cfg.picture.format)
        if cfg.model:  # a bad model is reported once, before any test
            with CpuTimeLimit(cfg.time_limit):  # no test runs if the model cannot load
                models.get(cfg.model)
    except InputError as e:
        err.write(e.render() + "\n")
        return 2
    except TimeLimitExceeded:
        over = f"took more than the time limit of {cfg.time_limit:g} s"
    except MemoryError:
        mb = cfg.memory_limit
        over = "ran out of memory" if mb is None else f"exceeded the memory limit of {mb} MB"
    else:
        return _run_each(cfg, models, out, err)
    err.write(f"{cfg.model}:0:0: warning: loading the model {over}, no test ran\n")
    return 3


def _run_each(cfg: RunConfig, models: ModelCache, out: IO[str], err: IO[str]) -> int:
    status = 0
    selection = Selection(cfg)
    noted = False  # said how to render a file of several graphs
    for path in cfg.tests:
        rec = run_file(path, cfg, models, selection)
        if isinstance(rec, Skipped):
            continue
        if isinstance(rec, Failed):
            if cfg.json:
                out.write(json_line(rec))
            err.write(rec.message + "\n")
            if rec.kind == "memory":
                status = status or 3
            elif rec.kind != "timeout":  # herd gives no block for a test over its time limit
                status = 2
        else:
            try:
                several = print_done(cfg, rec, out, err)
                if several is not None and not noted:
                    err.write(several_graphs_note(several))
                    noted = True
            except InputError as e:  # a DOT file that cannot be written
                err.write(e.render() + "\n")
                status = 2
        out.flush()
        err.flush()
    return status


def print_done(cfg: RunConfig, rec: Done, out: IO[str], err: IO[str]) -> str | None:
    """File the pictures of a test that ran, print its block (or its JSON line) and
    herd's warning when an execution hit the unrolling bound; the picture file holding
    several graphs, if one was written."""
    several = None
    if cfg.execution_dots:
        assert cfg.outdir is not None
        write_execution_pictures(cfg.outdir, rec.path, rec.pictures, cfg.picture)
    elif cfg.outdir is not None:
        several = write_pictures(cfg.outdir, cfg.suffix, rec.path, rec.pictures, out, cfg.picture)
    if cfg.json:
        out.write(json_line(rec))
    else:
        out.write(format_result(rec.herd_block(candidates=cfg.candidates)))
        if cfg.trust_summary and rec.outcome.engine == "trust":
            out.write(summary(rec.outcome, executions=cfg.print_executions))
        elif rec.outcome.engine == "operational" and not cfg.herd_only:
            out.write(operational_summary(rec.outcome))
        elif rec.outcome.engine == "rsmc" and not cfg.herd_only:
            out.write(rsmc_summary(rec.outcome))
    if rec.outcome.unroll_cut:  # herd warns too
        err.write(
            f"{rec.path}:0:0: warning: unrolling limit exceeded, legal outcomes may be missing\n"
        )
    return several
