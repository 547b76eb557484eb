"""The ``herdsman`` command line: the dispatch to each command and the last resort.

Every error is one line on stderr and exit status 2, never a traceback: bad input is a
``FILE:LINE:COL: error: ...`` line (from :class:`litmus.errors.InputError`), a bad command
line is ``herdsman CMD: error: ...``, and a bug is one "internal error" line
(:func:`guarded`, the last resort).  Each command is a module of this package with its
command line (its options from the shared groups of :mod:`cli.options`) and its run; it
is imported when it runs, so that ``herdsman --help`` starts at once.  Exit statuses
follow one rule (:mod:`herd_compat.pipeline.status`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from herdsman.herd_compat.cli import COMMANDS, VERSION
from herdsman.herd_compat.cli.args import UsageError
from herdsman.litmus.base.errors import InputError

if TYPE_CHECKING:
    from herdsman.herd_compat.campaigns.worker import WorkerFactory


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


def _err(prog: str, message: str) -> int:
    sys.stderr.write(f"{prog}: error: {' '.join(message.split())}\n")
    return 2


# ----------------------------------------------------------------------------- commands


def _cmd_parse(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import parse

    return parse.main(parse.parser().parse_args(argv))


def _cmd_cat(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import cat_check

    return cat_check.command(argv)


def _cmd_run(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import run

    return run.main(argv)


def _cmd_herd7(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import run

    return run.herd7_main(argv)


def _cmd_verify(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import verify

    return verify.main(argv)


def _cmd_fences(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import fences

    return fences.main(argv)


def _cmd_validate(argv: list[str], worker: WorkerFactory | None = None) -> int:
    """``herdsman validate`` with workers made by ``worker`` (None: the engine's)."""
    from herdsman.herd_compat.cli import validate as command

    return command.main(argv, worker)


def validate(argv: list[str], worker: WorkerFactory) -> int:
    """``herdsman validate`` with workers made by ``worker`` (tests give other ones)."""
    return _cmd_validate(argv, worker)


def _cmd_explain(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import explain

    return explain.main(argv)


def _cmd_diff(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import diff

    return diff.main(argv)


def _cmd_serve(argv: list[str]) -> int:
    from herdsman.herd_compat.cli import serve

    return serve.main(argv)


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
    "serve": _cmd_serve,
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
