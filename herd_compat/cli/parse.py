"""``herdsman parse FILE... [--json]``: parse litmus tests, print them normalised or as JSON.

Each file is parsed on its own; an error is one line ``FILE:LINE:COL: error: ...`` on
stderr and the command goes on with the next file, exiting with status 2 at the end.
``python -m litmus.cli FILE...`` runs it without the ``herdsman`` entry point.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from herdsman.litmus.base.errors import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``herdsman parse``."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="litmus test files")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the parsed IR as JSON (one object per line) instead of the test",
    )


def main(args: argparse.Namespace | Sequence[str] | None = None) -> int:
    """Run ``parse``; ``args`` is the parsed namespace (or an argv list). Exit status."""
    if not isinstance(args, argparse.Namespace):
        parser = argparse.ArgumentParser(prog="herdsman parse", description=__doc__)
        add_arguments(parser)
        args = parser.parse_args(list(args) if args is not None else None)
    from herdsman.litmus.jsonir import to_json
    from herdsman.litmus.parser import parse_file
    from herdsman.litmus.printer import print_test

    status = 0
    for path in args.files:
        try:
            test = parse_file(path)
            if args.json:  # one JSON object per line (JSON Lines)
                text = json.dumps(to_json(test)) + "\n"
            else:
                text = print_test(test)
        except InputError as err:
            print(err.render(), file=sys.stderr)
            status = 2
            continue
        except RecursionError:
            print(InputError(path, 0, 0, "input nested too deeply").render(), file=sys.stderr)
            status = 2
            continue
        except Exception as exc:  # a bug: still one line, never a traceback
            msg = f"internal error (please report): {type(exc).__name__}: {exc}"
            print(InputError(path, 0, 0, msg).render(), file=sys.stderr)
            status = 2
            continue
        sys.stdout.write(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
