"""``herdsman run`` and ``herdsman herd7``: running tests the way herd7 does, in
command-line order, one output block each.

:func:`run_tests` runs both: each test goes through the pipeline
(:mod:`herd_compat.pipeline`) under herd's selection rules, then its record is printed:
herd's block (followed, with TruSt's own options, by GenMC's summary) or with ``--json``
one JSON line, and its DOT pictures are filed.  An error on one test is reported (one
line on stderr) and the others still run; the exit status is then 2.  A test over its
time limit (``--timeout``, herd's ``-timeout``) or the run's memory bound
(``--max-memory``) is reported as such (one warning line, no block, as herd) and the
exit status is then 3 (unless an error made it 2: :mod:`herd_compat.pipeline.status`).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import IO

from herdsman.herd_compat.cli import COMMANDS
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.jsonl import json_line
from herdsman.herd_compat.cli.model_files import add_model_group, model_group_of
from herdsman.herd_compat.cli.options import (
    add_engine_options,
    add_limit_options,
    add_output_options,
    engine_into,
    limits_of,
)
from herdsman.herd_compat.formats.dots import (
    several_graphs_note,
    write_execution_pictures,
    write_pictures,
)
from herdsman.herd_compat.formats.genmc import summary
from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.formats.opsummary import operational_summary
from herdsman.herd_compat.formats.rsmcsummary import rsmc_summary
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.heap import leaving, long_lived
from herdsman.herd_compat.pipeline.inputs import expand_test_args
from herdsman.herd_compat.pipeline.limits import RUN_LIMITS, MemoryLimit, alarm_handler_kept
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, Failed, Skipped, load_first, run_file
from herdsman.herd_compat.pipeline.selection import Selection
from herdsman.herd_compat.pipeline.status import BAD_INPUT, failure_status, worst
from herdsman.litmus.base.errors import InputError

DESCRIPTION = COMMANDS["run"]


def parser() -> Parser:
    """``herdsman run``'s command line."""
    from herdsman.engine.options import SPEEDCHECKS
    from herdsman.engine.outcome import SHOW_MODES

    p = Parser(prog="herdsman run", description=DESCRIPTION)
    p.add_argument("tests", nargs="+", metavar="TEST", help="litmus files, @index files, dirs")
    add_model_group(p)
    add_engine_options(p, "herd's -unroll: backward jumps taken at most N times", operational=True)
    p.add_argument("--show", choices=SHOW_MODES, help="executions to draw (with -o)")
    p.add_argument("--nshow", type=int, metavar="N", help="draw at most N executions")
    p.add_argument("--candidates", action="store_true", help="print the Candidates line")
    add_limit_options(p, "a test", RUN_LIMITS)
    p.add_argument(
        "--preemption-bound",
        type=int,
        metavar="K",
        help="TruSt: only executions with at most K preemptions (SC)",
    )
    p.add_argument(
        "--print-executions",
        action="store_true",
        help="TruSt: list every execution (with -o: one DOT file each)",
    )
    p.add_argument(
        "--speedcheck",
        choices=SPEEDCHECKS,
        default="false",
        help="herd's -speedcheck: only the executions settling the condition (true), and "
        "stop at the first (fast); herd's verdicts, shorter state lists",
    )
    add_output_options(
        p,
        outdir="write DIR/<test>.dot ('-': stdout)",
        pictures="DIR/<test>.dot, or an image per execution",
        json="print each test's outcome as one JSON object per line (JSON Lines), as each "
        "test finishes: file, test, arch, model, hash, condition, herd's kind and verdict, "
        "time and the engine's outcome; a test without a result gives "
        '{"status": "error"|"timeout"|"memory", "file", "test", "error"}',
        progress="each test's executions, rate and estimated total on stderr",
    )
    return p


def main(argv: list[str]) -> int:
    """``herdsman run``'s entry point (errors are the caller's: ``cli.main.guarded``)."""
    a = parser().parse_args(argv)
    cfg = RunConfig(
        tests=expand_test_args(a.tests),
        show=a.show,
        nshow=a.nshow,
        outdir=a.outdir,
        candidates=a.candidates,
        limits=limits_of(a, RUN_LIMITS),
        preemption_bound=a.preemption_bound,
        print_executions=a.print_executions,
        json=a.json,
        speedcheck=a.speedcheck,
        progress=a.progress,
    )
    cfg.picture = replace(cfg.picture, format=a.format)
    model_group_of(a, a.model).into(cfg)
    engine_into(a, cfg, operational=True)
    if cfg.json and cfg.outdir == "-":
        raise UsageError("--json prints JSON on stdout: give -o a directory, not '-'")
    if cfg.nshow is not None and cfg.nshow < 0:
        raise UsageError("--nshow must be >= 0")
    if cfg.trust_summary and a.engine == "reference":
        raise UsageError("--preemption-bound and --print-executions need --engine trust")
    if a.preemption_bound is not None and a.preemption_bound < 0:
        raise UsageError("--preemption-bound must be >= 0")
    return run_tests(cfg)


def herd7_main(argv: list[str]) -> int:
    """``herdsman herd7``'s entry point: herd7's own options (:mod:`herd7opts`)."""
    from herdsman.herd_compat.cli import VERSION
    from herdsman.herd_compat.cli.herd7opts import help_text, parse_herd7_args

    cfg, st = parse_herd7_args(argv)  # a bad option: OptionError, a UsageError
    if st.help:
        sys.stdout.write(help_text())
        return 0
    if st.viewer:
        sys.stderr.write(
            "note: herdsman opens no viewer (-gv, -evince): give -show and -o DIR "
            "--format svg (or png) for images, or -o DIR (or -o -) for DOT text\n"
        )
    if st.version:
        sys.stdout.write(f"herdsman {VERSION} (herd7-compatible command line)\n")
        return 0
    if not cfg.tests:
        raise UsageError("no test given (usage: herdsman herd7 [options] TEST...)")
    return run_tests(cfg)


def run_tests(cfg: RunConfig, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run every test of ``cfg`` in order, printing their results; the exit status."""
    with MemoryLimit(cfg.limits.memory_limit):
        return _run_tests(cfg, out or sys.stdout, err or sys.stderr)


def _run_tests(cfg: RunConfig, out: IO[str], err: IO[str]) -> int:
    models = ModelCache(cfg)
    failed = load_first(cfg, models)
    if failed is None:
        if len(cfg.tests) <= 1:
            return _run_each(cfg, models, out, err)
        long_lived()  # a campaign in one process: the heap and the alarm as a worker's
        try:
            with alarm_handler_kept():
                return _run_each(cfg, models, out, err)
        finally:
            leaving()
    err.write(failed.message + "\n")
    return failure_status(failed.kind)


def _run_each(cfg: RunConfig, models: ModelCache, out: IO[str], err: IO[str]) -> int:
    statuses = set()
    selection = Selection(cfg)
    noted = False  # said how to render a file of several graphs
    for path in cfg.tests:
        rec = run_file(path, cfg, models, selection)
        if isinstance(rec, Skipped):
            continue
        if isinstance(rec, Failed):  # herd gives no block for a test over its time limit
            if cfg.json:
                out.write(json_line(rec))
            err.write(rec.message + "\n")
            statuses.add(failure_status(rec.kind))
        else:
            try:
                several = print_done(cfg, rec, out, err)
                if several is not None and not noted:
                    err.write(several_graphs_note(several))
                    noted = True
            except InputError as e:  # a DOT file that cannot be written
                err.write(e.render() + "\n")
                statuses.add(BAD_INPUT)
        out.flush()
        err.flush()
    return worst(statuses)


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
