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

import errno
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from herdsman.herd_compat.cli import COMMANDS, VERSION
from herdsman.herd_compat.cli.args import UsageError
from herdsman.herd_compat.pipeline.limits import bound_hit, forget_bound_hit
from herdsman.litmus.base.errors import InputError, one_line

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
    sys.stderr.write(f"{prog}: error: {one_line(message)}\n")
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
    line on stderr: a bad command line, bad input, an interruption, a closed pipe, output
    that cannot be written (a closed standard output, a full disk: exit 2), running out
    of memory (exit 3), and as the last resort a bug ("internal error";
    ``HERDSMAN_DEBUG=1`` shows the traceback)."""
    if sys.stderr is None:  # started with standard error closed: say nothing, fail alike
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the process's life
    if sys.stdout is None:  # started with standard output closed
        return _err(prog, "cannot write the output: standard output is closed")
    forget_bound_hit()  # a bound an earlier command of this process hit is not this one's
    try:
        status = command()
        sys.stdout.flush()  # a write that fails now is this command's failure
        return status
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
        _stdout_to_devnull()
        return 141
    except MemoryError:  # outside a test (each test reports its own): one line, exit 3
        return _out_of_memory(prog)
    except OSError as e:  # files are written and read through InputErrors: stdout failed
        if e.errno not in _WRITE_FAILURES:
            return _internal_error(prog, e)
        _stdout_to_devnull()
        return _err(prog, f"cannot write the output: {e.strerror}")
    except Exception as e:  # the last resort: a bug is one line, never a traceback
        if bound_hit() is not None:  # an error the bound made (see bound_hit)
            return _out_of_memory(prog)
        return _internal_error(prog, e)
    finally:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):  # what its buffer holds goes nowhere, not to an error
            _stdout_to_devnull()


def _out_of_memory(prog: str) -> int:
    mb = bound_hit()
    _err(prog, "out of memory" if mb is None else f"memory limit of {mb} MB exceeded")
    return 3


def _internal_error(prog: str, e: Exception) -> int:
    if os.environ.get("HERDSMAN_DEBUG"):
        raise e
    return _err(
        prog, f"internal error ({type(e).__name__}: {e}); set HERDSMAN_DEBUG=1 for a traceback"
    )


#: How a write fails: a full disk or device, a quota, a file too large, an I/O error, a
#: closed descriptor.
_WRITE_FAILURES = frozenset(
    (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF, errno.EROFS)
)


def _stdout_to_devnull() -> None:
    """Point standard output's descriptor at ``/dev/null``, so that the interpreter's last
    flush of what its buffer still holds succeeds (no message, no exit status 120)."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the process's life


if __name__ == "__main__":
    sys.exit(main())
