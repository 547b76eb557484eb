"""Running tests the way herd7 does: in command-line order, one output block each.

:func:`run_tests` is ``herdsman run`` and ``herdsman herd7``: each test goes through the
pipeline (:mod:`herd_compat.pipeline`) under herd's selection rules, then its record is
printed: herd's block (followed, with TruSt's own options, by GenMC's summary) or with
``--json`` one JSON line, and its DOT pictures are filed.  An error on one test is reported
(one line on stderr) and the others still run; the exit status is then 2.
"""

from __future__ import annotations

import sys
from typing import IO

from herdsman.herd_compat.config import RunConfig
from herdsman.herd_compat.dots import check_outdir, write_execution_pictures, write_pictures
from herdsman.herd_compat.genmc import summary
from herdsman.herd_compat.jsonl import json_line
from herdsman.herd_compat.models import ModelCache
from herdsman.herd_compat.opsummary import operational_summary
from herdsman.herd_compat.output import format_result
from herdsman.herd_compat.pipeline import Done, Failed, Skipped, run_file
from herdsman.herd_compat.selection import Selection
from herdsman.litmus.errors import InputError


def run_tests(cfg: RunConfig, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run every test of ``cfg`` in order, printing their results; the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    models = ModelCache(cfg)
    try:
        check_outdir(cfg.outdir)
        if cfg.model:  # a bad model is reported once, before any test
            models.get(cfg.model)
    except InputError as e:
        err.write(e.render() + "\n")
        return 2
    status = 0
    selection = Selection(cfg)
    for path in cfg.tests:
        rec = run_file(path, cfg, models, selection)
        if isinstance(rec, Skipped):
            continue
        if isinstance(rec, Failed):
            if cfg.json:
                out.write(json_line(rec))
            err.write(rec.message + "\n")
            if rec.kind != "timeout":  # herd gives no block for a test over its time limit
                status = 2
        else:
            try:
                print_done(cfg, rec, out, err)
            except InputError as e:  # a DOT file that cannot be written
                err.write(e.render() + "\n")
                status = 2
        out.flush()
        err.flush()
    return status


def print_done(cfg: RunConfig, rec: Done, out: IO[str], err: IO[str]) -> None:
    """File the pictures of a test that ran, print its block (or its JSON line) and
    herd's warning when an execution hit the unrolling bound."""
    if cfg.execution_dots:
        assert cfg.outdir is not None
        write_execution_pictures(cfg.outdir, rec.path, rec.pictures)
    elif cfg.outdir is not None:
        write_pictures(cfg.outdir, cfg.suffix, rec.path, rec.pictures, out)
    if cfg.json:
        out.write(json_line(rec))
    else:
        out.write(format_result(rec.herd_block(candidates=cfg.candidates)))
        if cfg.trust_summary and rec.outcome.engine == "trust":
            out.write(summary(rec.outcome, executions=cfg.print_executions))
        elif rec.outcome.engine == "operational" and not cfg.herd_only:
            out.write(operational_summary(rec.outcome))
    if rec.outcome.unroll_cut:  # herd warns too
        err.write(
            f"{rec.path}:0:0: warning: unrolling limit exceeded, legal outcomes may be missing\n"
        )
