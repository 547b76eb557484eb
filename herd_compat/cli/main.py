"""The ``herdsman`` command line: parse, cat check, run, herd7, validate.

Every error is one line on stderr and exit status 2, never a traceback: bad input is a
``FILE:LINE:COL: error: ...`` line (from :class:`litmus.errors.InputError`), a bad command
line is ``herdsman CMD: error: ...``, and a bug is one "internal error" line
(:func:`guarded`, the last resort).  Each command imports what it needs when it runs, so
that ``herdsman --help`` starts at once.  ``herdsman cat check`` is cat's own command
(``cat.cli``, with ``cat.api`` the public doors of cat).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.litmus.base.errors import InputError

if TYPE_CHECKING:
    from herdsman.herd_compat.campaigns.worker import WorkerFactory

VERSION = "0.1.0"

COMMANDS = {
    "parse": "parse litmus tests and print them normalised (or as JSON)",
    "cat": "cat models: 'herdsman cat check MODEL...' parses and type-checks them",
    "run": "run litmus tests under a model, printing herd's output blocks",
    "herd7": "run tests with herd7's own command-line options",
    "validate": "run a campaign and compare with herd's log or verdict table",
    "verify": "check C programs' assertions under a model, as GenMC does (exit 42: unsafe)",
    "fences": "insert the fewest fences that make a C program or litmus test safe (z3)",
    "explain": "why a model forbids (or allows) a final state: candidates, failing check, cycle",
    "diff": "run two models on many tests and explain where their answers differ",
}


_Parser = Parser


def _top_help() -> str:
    lines = [
        f"herdsman {VERSION} — a workbench for axiomatic memory models (herd7-compatible)",
        "",
        "usage: herdsman COMMAND [ARGS...]   (herdsman COMMAND --help for details)",
        "",
        "commands:",
    ]
    lines += [f"  {name:<10}{text}" for name, text in COMMANDS.items()]
    return "\n".join(lines) + "\n"


def _variant_tags(values: list[str]) -> set[str]:
    """The tags of ``--variant`` options, each one herd7 knows."""
    from herdsman.herd_compat.cli.herd7opts import variant_options

    return variant_options(values)


def _err(prog: str, message: str) -> int:
    sys.stderr.write(f"{prog}: error: {' '.join(message.split())}\n")
    return 2


# ----------------------------------------------------------------------------- parse, cat


def _cmd_parse(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import parse as lcli

    p = _Parser(prog="herdsman parse", description=COMMANDS["parse"])
    lcli.add_arguments(p)
    return int(lcli.main(p.parse_args(argv)) or 0)


def _cmd_cat(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import cat_check as ccli

    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(ccli.help_text())
        return 0 if argv else 2
    if argv[0] != "check":
        raise UsageError(f"unknown cat command '{argv[0]}' (expected: check)")
    p = _Parser(
        prog="herdsman cat check",
        description="parse and type-check cat models",
        epilog=ccli.LEGEND,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ccli.add_arguments(p)
    return int(ccli.main(p.parse_args(argv[1:])) or 0)


# ----------------------------------------------------------------------------- run


def _run_parser() -> _Parser:
    from herdsman.engine.options import ENGINES, SPEEDCHECKS
    from herdsman.engine.outcome import SHOW_MODES

    p = _Parser(prog="herdsman run", description=COMMANDS["run"])
    p.add_argument("tests", nargs="+", metavar="TEST", help="litmus files, @index files, dirs")
    p.add_argument("--model", "-m", help="built-in model name or .cat file (default per arch)")
    p.add_argument(
        "-I",
        dest="include",
        action="append",
        default=[],
        metavar="DIR",
        help="cat include directory (repeatable)",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="V",
        help="variant tags, comma separated (repeatable)",
    )
    p.add_argument("--engine", choices=ENGINES, default="auto")
    p.add_argument("--show", choices=SHOW_MODES, help="executions to draw (with -o)")
    p.add_argument("--nshow", type=int, metavar="N", help="draw at most N executions")
    p.add_argument("-o", "--outdir", metavar="DIR", help="write DIR/<test>.dot ('-': stdout)")
    p.add_argument("--skipchecks", action="append", default=[], metavar="N1,N2")
    p.add_argument("--through", action="store_true", help="let failing executions through")
    p.add_argument("--candidates", action="store_true", help="print the Candidates line")
    p.add_argument("--timeout", type=float, metavar="S", help="give up a test after S s")
    p.add_argument(
        "--max-memory",
        type=int,
        metavar="MB",
        help="give up a test that would take the process beyond MB of memory (exit 3)",
    )
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
    _operational_options(p)
    p.add_argument(
        "--speedcheck",
        choices=SPEEDCHECKS,
        default="false",
        help="herd's -speedcheck: only the executions settling the condition (true), and "
        "stop at the first (fast); herd's verdicts, shorter state lists",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="each test's executions, rate and estimated total on stderr (default: when "
        "stderr is a terminal)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print each test's outcome as one JSON object per line (JSON Lines), as each "
        "test finishes: file, test, arch, model, hash, condition, herd's kind and verdict, "
        "time and the engine's outcome; a test without a result gives "
        '{"status": "error"|"timeout"|"memory", "file", "test", "error"}',
    )
    return p


def _cmd_run(argv: list[str]) -> int:
    from herdsman.herd_compat.cli.run import run_tests
    from herdsman.herd_compat.pipeline.config import RunConfig
    from herdsman.herd_compat.pipeline.inputs import expand_test_args

    a = _run_parser().parse_args(argv)
    cfg = RunConfig(
        tests=expand_test_args(a.tests),
        model=a.model,
        include_dirs=a.include,
        variants=_variant_tags(a.variant),
        skipchecks=[t for s in a.skipchecks for t in s.split(",") if t],
        through=a.through,
        show=a.show,
        nshow=a.nshow,
        outdir=a.outdir,
        engine=a.engine,
        candidates=a.candidates,
        time_limit=a.timeout,
        memory_limit=a.max_memory,
        preemption_bound=a.preemption_bound,
        print_executions=a.print_executions,
        json=a.json,
        buffer_bound=a.buffer_bound,
        stateful=a.stateful,
        reduction=a.reduction,
        speedcheck=a.speedcheck,
        progress=a.progress,
    )
    _check_operational(a)
    if cfg.json and cfg.outdir == "-":
        raise UsageError("--json prints JSON on stdout: give -o a directory, not '-'")
    if cfg.nshow is not None and cfg.nshow < 0:
        raise UsageError("--nshow must be >= 0")
    if cfg.trust_summary and a.engine == "reference":
        raise UsageError("--preemption-bound and --print-executions need --engine trust")
    if a.preemption_bound is not None and a.preemption_bound < 0:
        raise UsageError("--preemption-bound must be >= 0")
    _check_memory(a.max_memory, "--max-memory")
    return run_tests(cfg)


def _check_memory(mb: int | None, option: str) -> None:
    from herdsman.herd_compat.pipeline.limits import MIN_MEMORY_MB

    if mb is not None and mb < MIN_MEMORY_MB:
        raise UsageError(f"{option} must be at least {MIN_MEMORY_MB} (MB)")


# ----------------------------------------------------------------------------- herd7


def _cmd_herd7(argv: list[str]) -> int:
    from herdsman.herd_compat.cli.herd7opts import help_text, parse_herd7_args
    from herdsman.herd_compat.cli.run import run_tests

    cfg, st = parse_herd7_args(argv)  # a bad option: OptionError, a UsageError
    if st.help:
        sys.stdout.write(help_text())
        return 0
    if st.viewer:
        sys.stderr.write(
            "note: herdsman opens no viewer (-gv, -evince): give -show and -o DIR (or -o -) "
            "and render the .dot files with Graphviz, e.g. 'dot -Tpng -O DIR/TEST.dot' "
            "('-graph columns': 'dot -Kneato -Tpng -O ...')\n"
        )
    if st.version:
        sys.stdout.write(f"herdsman {VERSION} (herd7-compatible command line)\n")
        return 0
    if not cfg.tests:
        raise UsageError("no test given (usage: herdsman herd7 [options] TEST...)")
    return run_tests(cfg)


# ----------------------------------------------------------------------------- verify


def _verify_parser() -> _Parser:
    from herdsman.engine.options import ENGINES

    p = _Parser(prog="herdsman verify", description=COMMANDS["verify"])
    p.add_argument("programs", nargs="+", metavar="FILE.c", help="C programs")
    p.add_argument("--model", "-m", default="sc", help="sc, tso, pso, power or a .cat file")
    p.add_argument(
        "--target",
        choices=("tso", "pso", "power", "c"),
        help="how C maps to the model's events (default: by model; c for a .cat file)",
    )
    p.add_argument("--engine", choices=ENGINES, default="auto")
    p.add_argument(
        "--unroll",
        type=int,
        default=None,
        metavar="N",
        help="GenMC's loop bound: a loop's head runs at most N times each time the loop is "
        "entered (once more stops the thread); default: no bound, as GenMC",
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
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    p.add_argument("--cat-include", action="append", default=[], metavar="DIR")
    p.add_argument("-o", "--outdir", metavar="DIR", help="write DIR/<program>.dot of an error")
    p.add_argument("--json", action="store_true", help="one JSON object per program")
    p.add_argument(
        "--keep-going", action="store_true", help="explore every execution, not to the first error"
    )
    p.add_argument("--timeout", type=float, metavar="S", help="give up after S s of CPU")
    p.add_argument(
        "--memory", "--max-memory", type=int, metavar="MB", help="give up beyond MB of memory"
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="executions so far, rate and estimated total on stderr (default: when stderr "
        "is a terminal)",
    )
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
    _operational_options(p)
    return p


def _operational_options(p: _Parser) -> None:
    from herdsman.engine.options import REDUCTIONS

    p.add_argument(
        "--buffer-bound",
        type=int,
        metavar="K",
        help="operational engine: store buffers of at most K writes (a full one waits)",
    )
    p.add_argument(
        "--stateful",
        action="store_true",
        help="operational engine: stateful DPOR (loops need no bound when states repeat; "
        "give --timeout when they may not)",
    )
    p.add_argument(
        "--reduction",
        choices=REDUCTIONS,
        default="dpor",
        help="operational engine: DPOR with sleep sets (default) or every run (none)",
    )


def _check_operational(a: argparse.Namespace) -> None:
    """The operational engine's options need it."""
    own = a.buffer_bound is not None or a.stateful or a.reduction != "dpor"
    if own and a.engine != "operational":
        raise UsageError("--buffer-bound, --stateful and --reduction need --engine operational")
    if a.buffer_bound is not None and a.buffer_bound < 0:
        raise UsageError("--buffer-bound must be >= 0")


def _defines(args: list[str]) -> dict[str, str]:
    """``-D NAME[=VALUE]`` options as macros (a bare name is defined as 1)."""
    defines = {}
    for d in args:
        name, _, value = d.partition("=")
        if not name.isidentifier():
            raise UsageError(f"-D {d}: not a macro name")
        defines[name] = value if "=" in d else "1"
    return defines


def _cmd_verify(argv: list[str]) -> int:
    from herdsman.herd_compat.cli.verify import VerifyConfig, verify

    a = _verify_parser().parse_args(argv)
    defines = _defines(a.defines)
    cfg = VerifyConfig(
        programs=a.programs,
        model=a.model,
        target=a.target,
        engine=a.engine,
        unroll=a.unroll,
        no_unroll=a.no_unroll,
        symmetry=not a.disable_sr,
        defines=defines,
        include_dirs=a.include,
        cat_include_dirs=a.cat_include,
        outdir=a.outdir,
        json=a.json,
        keep_going=a.keep_going,
        time_limit=a.timeout,
        memory_limit=a.memory,
        progress=a.progress,
        buffer_bound=a.buffer_bound,
        stateful=a.stateful,
        reduction=a.reduction,
        max_bound=a.max_bound,
        max_states=a.max_states,
    )
    _check_operational(a)
    if a.max_bound is not None:
        if a.max_bound < 0:
            raise UsageError("--max-bound must be >= 0")
        if a.engine not in ("auto", "operational") or a.buffer_bound is not None:
            raise UsageError("--max-bound runs its own search: no --engine or --buffer-bound")
        if a.stateful or a.reduction != "dpor" or a.keep_going:
            raise UsageError(
                "--max-bound explores every state: no --stateful, --reduction or --keep-going"
            )
    if a.max_states is not None and (a.max_bound is None or a.max_states < 1):
        raise UsageError("--max-states needs --max-bound and must be >= 1")
    if a.memory is not None and a.memory < 64:
        raise UsageError("--memory must be at least 64 (MB)")
    if a.unroll is not None and a.unroll < 0:
        raise UsageError("--unroll must be >= 0")
    return verify(cfg)


# ----------------------------------------------------------------------------- fences


def _fences_parser() -> _Parser:
    from herdsman.engine.options import ENGINES

    p = _Parser(
        prog="herdsman fences",
        description=COMMANDS["fences"] + ". Exit 0: safe (with the placements printed), "
        "1: no placement helps, 2: bad input, 3: time or state limit.",
    )
    p.add_argument("program", metavar="FILE.c|TEST.litmus")
    p.add_argument("--model", "-m", required=True, help="tso, pso (C, X86) or power (PPC)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the fenced program to FILE")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument(
        "--max-bound",
        type=int,
        default=12,
        metavar="K",
        help="C programs: search store buffers up to K (to the fixpoint; default 12)",
    )
    p.add_argument("--max-states", type=int, metavar="N", help="C programs: states per bound")
    p.add_argument(
        "--unroll",
        type=int,
        default=2,
        metavar="N",
        help="C programs under power: loops run at most N times (default 2)",
    )
    p.add_argument("--engine", choices=ENGINES, default="auto", help="litmus tests' engine")
    p.add_argument("--timeout", type=float, metavar="S", help="give up after S s of CPU")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    return p


def _cmd_fences(argv: list[str]) -> int:
    from herdsman.herd_compat.cli.fences import MODELS, FencesConfig, fences, model_name

    a = _fences_parser().parse_args(argv)
    if model_name(a.model) is None:
        raise UsageError(
            f"--model {a.model}: fences are placed for {', '.join(MODELS)} "
            "(or herd's x86tso.cat, pso.cat, ppc.cat)"
        )
    if a.max_bound < 0:
        raise UsageError("--max-bound must be >= 0")
    if a.max_states is not None and a.max_states < 1:
        raise UsageError("--max-states must be >= 1")
    if a.unroll < 0:
        raise UsageError("--unroll must be >= 0")
    defines = _defines(a.defines)
    cfg = FencesConfig(
        program=a.program,
        model=a.model,
        output=a.output,
        json=a.json,
        max_bound=a.max_bound,
        max_states=a.max_states,
        time_limit=a.timeout,
        engine=a.engine,
        unroll=a.unroll,
        defines=defines,
        include_dirs=a.include,
    )
    return fences(cfg)


# ----------------------------------------------------------------------------- validate


def _validate_parser() -> _Parser:
    from herdsman.engine.options import ENGINES
    from herdsman.herd_compat.campaigns.pools import add_worker_options

    p = _Parser(
        prog="herdsman validate",
        description=COMMANDS["validate"] + ". Results go to an SQLite database as they "
        "come (default .herdsman/validate-<model>-<inputs hash>.sqlite); --resume continues "
        "a stopped campaign (one campaign per database at a time; rows are checksummed). "
        "Exit 0: all identical, 1: differences, 2: input errors (or a database in use or "
        "corrupt), 3: tests lost to dead workers (run again with --resume).",
    )
    p.add_argument("inputs", nargs="+", metavar="DIR|@INDEX|FILE")
    p.add_argument("--model", "-m", help="built-in model name or .cat file (default per arch)")
    p.add_argument(
        "--expect",
        required=True,
        metavar="FILE",
        help="herd7 log or verdict table (format detected)",
    )
    p.add_argument(
        "--expect-column",
        type=int,
        default=1,
        metavar="N",
        help="column of a verdict table to compare with (default 1)",
    )
    p.add_argument("--db", metavar="PATH", help="campaign database")
    p.add_argument("--resume", action="store_true", help="skip tests already in the database")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="per-test time limit")
    p.add_argument("--json", dest="json_out", metavar="OUT", help="write a JSON report")
    p.add_argument("--junit", dest="junit_out", metavar="OUT", help="write a JUnit XML report")
    p.add_argument("--engine", choices=ENGINES, default="auto")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    p.add_argument("--variant", action="append", default=[], metavar="V")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: when stderr is a terminal)",
    )
    p.add_argument(
        "--show-mismatches",
        type=int,
        default=50,
        metavar="N",
        help="describe at most N differing tests (-1: all)",
    )
    add_worker_options(p)
    return p


def _cmd_validate(argv: list[str], worker: WorkerFactory | None = None) -> int:
    """``herdsman validate`` on local worker processes (``--jobs``) or, with ``--scheduler
    ADDRESS`` or ``--dask-local N``, on a dask cluster (workers made by ``worker``, the
    engine's by default; tests give other ones)."""
    from herdsman.herd_compat.campaigns.pools import workers_of
    from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
    from herdsman.herd_compat.campaigns.worker import engine_worker
    from herdsman.herd_compat.campaigns.workers import ClusterError

    a = _validate_parser().parse_args(argv)
    workers = workers_of(a)
    if a.timeout is not None and a.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if a.expect_column < 1:
        raise UsageError("--expect-column must be at least 1")
    cfg = CampaignConfig(
        inputs=a.inputs,
        expect=a.expect,
        model=a.model,
        expect_column=a.expect_column - 1,
        db=a.db,
        resume=a.resume,
        jobs=workers.jobs,
        timeout=a.timeout,
        json_out=a.json_out,
        junit_out=a.junit_out,
        engine=a.engine,
        include_dirs=a.include,
        variants=_variant_tags(a.variant),
        progress=a.progress,
        show_mismatches=a.show_mismatches,
        max_memory=workers.max_memory,
        scheduler=workers.scheduler,
        dask_local=workers.dask_local,
        connect_timeout=workers.connect_timeout,
    )
    try:
        return run_campaign(cfg, worker=worker or engine_worker).status
    except ClusterError as e:  # not reached, not started, or lost: one line, exit 2
        raise UsageError(str(e)) from None
    except KeyboardInterrupt:
        sys.stderr.write(
            "interrupted: finished tests are in the database; continue with --resume\n"
        )
        return 130


def validate(argv: list[str], worker: WorkerFactory) -> int:
    """``herdsman validate`` with workers made by ``worker`` (tests give other ones)."""
    return _cmd_validate(argv, worker)


def _cmd_explain(argv: list[str]) -> int:
    from herdsman.herd_compat.cli.explain import main as explain_main

    return explain_main(argv)


def _cmd_diff(argv: list[str]) -> int:
    from herdsman.herd_compat.cli.diff import main as diff_main

    return diff_main(argv)


# ----------------------------------------------------------------------------- main

HANDLERS: dict[str, Callable[[list[str]], int]] = {
    "parse": _cmd_parse,
    "cat": _cmd_cat,
    "run": _cmd_run,
    "herd7": _cmd_herd7,
    "validate": _cmd_validate,
    "verify": _cmd_verify,
    "fences": _cmd_fences,
    "explain": _cmd_explain,
    "diff": _cmd_diff,
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``herdsman`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(_top_help())
        return 0 if argv else 2
    if argv[0] in ("--version", "-version"):
        sys.stdout.write(f"herdsman {VERSION}\n")
        return 0
    cmd, rest = argv[0], argv[1:]
    handler = HANDLERS.get(cmd)
    if handler is None:
        return _err("herdsman", f"unknown command '{cmd}' (choose from {', '.join(COMMANDS)})")
    return guarded(f"herdsman {cmd}", lambda: handler(rest))


def guarded(prog: str, command: Callable[[], int]) -> int:
    """Run a command and return its exit status, turning whatever escapes it into one
    line on stderr: a bad command line, bad input, an interruption, a closed pipe, running
    out of memory (exit 3), and as the last resort a bug ("internal error";
    ``HERDSMAN_DEBUG=1`` shows the traceback)."""
    try:
        return command()
    except UsageError as e:
        return _err(prog, str(e))
    except InputError as e:
        sys.stderr.write(e.render() + "\n")
        return 2
    except SystemExit as e:  # argparse --help
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - no flush error at exit
        except OSError:
            pass
        return 141
    except MemoryError:  # outside a test (each test reports its own): one line, exit 3
        _err(prog, "out of memory")
        return 3
    except Exception as e:  # the last resort: a bug is one line, never a traceback
        if os.environ.get("HERDSMAN_DEBUG"):
            raise
        return _err(
            prog, f"internal error ({type(e).__name__}: {e}); set HERDSMAN_DEBUG=1 for a traceback"
        )
    finally:
        try:
            sys.stdout.flush()
        except (BrokenPipeError, OSError):
            pass


if __name__ == "__main__":
    sys.exit(main())
