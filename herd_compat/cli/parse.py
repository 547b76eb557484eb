"""``herdsman parse FILE... [--json]``: parse litmus tests, print them normalised or as JSON.

Each file is parsed on its own, within the limits (``--timeout``, default 60 s of CPU per
file, and ``--max-memory``); an error is one line ``FILE:LINE:COL: error: ...`` on stderr
and the command goes on with the next file, exiting with status 2 at the end (3 when a
file ran out of time or memory: :mod:`herd_compat.pipeline.status`).
``python -m herdsman.herd_compat.cli.parse FILE...`` runs it without the ``herdsman``
entry point.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from functools import partial

from herdsman.herd_compat.cli import COMMANDS
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.options import (
    add_limit_options,
    add_output_options,
    limits_of,
)
from herdsman.herd_compat.pipeline.limits import READ_LIMITS, MemoryLimit
from herdsman.herd_compat.pipeline.run_file import Failed, Naming, within_limits
from herdsman.herd_compat.pipeline.status import failure_status, worst
from herdsman.litmus.base.errors import InputError

DESCRIPTION = COMMANDS["parse"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``herdsman parse``."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="litmus test files")
    add_output_options(
        parser, json="print the parsed IR as JSON (one object per line) instead of the test"
    )
    add_limit_options(parser, "a file", READ_LIMITS)


def parser() -> Parser:
    p = Parser(prog="herdsman parse", description=DESCRIPTION)
    add_arguments(p)
    return p


def main(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """Run ``parse``; ``args`` is the parsed namespace (or an argv list). Exit status."""
    if not isinstance(args, argparse.Namespace):
        args = parser().parse_args(list(args) if args is not None else sys.argv[1:])
    limits = limits_of(args, READ_LIMITS)
    statuses = []
    with MemoryLimit(limits.memory_limit):
        for path in args.files:
            text = within_limits(path, limits, partial(_parsed, path, args.json))
            if isinstance(text, Failed):
                print(text.message, file=sys.stderr)
                statuses.append(failure_status(text.kind))
                continue
            sys.stdout.write(text)
    return worst(statuses)


def _parsed(path: str, as_json: bool, naming: Naming) -> str:
    """The test in ``path``, normalised or as one line of JSON (JSON Lines)."""
    from herdsman.litmus.jsonir import to_json
    from herdsman.litmus.parser import parse_file
    from herdsman.litmus.printer import print_test

    try:
        test = parse_file(path)
    except RecursionError:
        raise InputError(path, 0, 0, "input nested too deeply") from None
    if as_json:
        return json.dumps(to_json(test)) + "\n"
    return print_test(test)


def _main() -> int:
    """``python -m herdsman.herd_compat.cli.parse ARGS``: :func:`main`, a usage error as
    one line."""
    try:
        return main()
    except UsageError as e:
        print(f"herdsman parse: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(_main())
