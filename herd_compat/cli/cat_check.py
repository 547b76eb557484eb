"""``herdsman cat check MODEL... [-I DIR] [--variant V]``: parse and type-check models.

For each model: its identity, how co is enumerated (``native``: the engine enumerates
coherence orders; ``generic``: the model's own ``with``; ``none``: the model binds no co),
and every check with its kind, name, mode and monotonicity (``monotone`` checks are the
ones ``partial_violation`` evaluates to prune partial candidates).  Exit status 2 with
``FILE:LINE:COL: error: ...`` on the first bad model; 3 when a model takes more than
``--timeout`` CPU seconds (default 60: a ``let rec`` that grows without end) or more
memory than ``--max-memory`` to load (one warning line; the next models are checked).

    python -m herdsman.herd_compat.cli.cat_check check power ../shared/herd-cat/ppc.cat
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial

from herdsman.cat.api import STABLE, Model, load_model
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.options import (
    ModelOptions,
    add_limit_options,
    add_model_options,
    limits_of,
    models_of,
)
from herdsman.herd_compat.pipeline.limits import READ_LIMITS, MemoryLimit
from herdsman.herd_compat.pipeline.run_file import Failed, Naming, within_limits
from herdsman.herd_compat.pipeline.status import failure_status, worst


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "models",
        nargs="+",
        metavar="MODEL",
        help="built-in model name (sc, tso, pso, power...) or .cat file",
    )
    add_model_options(p, model=None, checks=False)
    p.add_argument(
        "--arch", metavar="ARCH", help="type-check for this architecture's predefined names"
    )
    add_limit_options(p, "a model", READ_LIMITS)


#: The subcommands of ``herdsman cat`` and what they do.
COMMANDS = {
    "check": "parse and type-check models, describing their co and checks",
}


#: What ``cat check`` prints, word by word (its ``--help`` ends with it).
LEGEND = """\
what it prints: a line per model, FILE: ARCH 'NAME', co MODE, where MODE is
  native     the model builds co the standard way (include "cos.cat"): the engines
             enumerate coherence orders themselves
  generic    the model chooses co itself (its own 'with co from ...')
  none       the model never binds co
then a line per check: MODE TEST NAME CLASS FILE:LINE:COL, where MODE is check, flag,
undefined_unless or assert, TEST is acyclic, irreflexive, empty or ~empty (negated), NAME
is the name after 'as' (- if none), and CLASS says how the checked relation depends on the
execution's rf and co:
  decided    computed once, when the model is compiled (no dependency on the test)
  stable     on the program only (po, dependencies, fences...): the same for every rf, co
  monotone   only grows as rf and co edges are added
  unknown    may shrink as edges are added (a difference or complement by rf/co, FW...)
  (prunes)   a rejecting check on a stable or monotone relation: once a partial
             execution fails it, every completion does, so engines cut it early
             (TruSt needs every check of the model to prune)
  skipped    named by -skipchecks: not applied
"""


def check_parser(prog: str = "herdsman cat check") -> Parser:
    """The command line of ``cat check``."""
    p = Parser(
        prog=prog,
        description="parse and type-check cat models",
        epilog=LEGEND,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
    return p


def help_text(prog: str = "herdsman cat") -> str:
    """The help of ``herdsman cat``: its subcommands, then each one's options."""
    lines = [
        f"usage: {prog} COMMAND [ARGS...]   ({prog} COMMAND --help for one command)",
        "",
        "cat models: parse, type-check and describe them",
        "",
        "commands:",
    ]
    lines += [f"  {name:<8}{text}" for name, text in COMMANDS.items()]
    for name in COMMANDS:
        lines += ["", f"{prog} {name}:", check_parser(f"{prog} {name}").format_help().rstrip()]
    return "\n".join(lines) + "\n"


def describe(model: Model, arch: str | None = None) -> list[str]:
    """The report lines for one loaded model."""
    unit = model._unit(arch) if arch else model._main
    lines = [f"{model.path}: {model.arch} {model.name!r}, co {unit.compiled.co_mode}"]
    analysis = unit.analysis
    width = max((len(a.name or "-") for a in model.axioms), default=1)
    for ax, info in zip(unit.compiled.axioms, model.axioms, strict=True):
        kind = info.test
        if ax.skipped:
            mono = "skipped"
        elif not ax.steps:
            mono = "decided"
        else:
            classes = {analysis.check_class(s) for s in ax.steps}
            mono = (
                "unknown"
                if "unknown" in classes
                else ("stable" if classes == {STABLE} else "monotone")
            )
            if info.monotone:
                mono += " (prunes)"
        where = f"{os.path.basename(ax.pos.file)}:{ax.pos.line}:{ax.pos.col}"
        lines.append(f"  {ax.mode:16s} {kind:13s} {ax.name or '-':{width}s}  {mono:19s} {where}")
    if not model.axioms:
        lines.append("  (no checks)")
    return lines


#: The last line of a ``cat check`` report.
FOOTER = "(herdsman cat check --help explains the columns)"


def main(args: argparse.Namespace) -> int:
    """``cat check`` on the models of ``args``: each loaded and described within the
    limits; the exit status."""
    limits = limits_of(args, READ_LIMITS)
    options = models_of(args, None, checks=False)
    statuses = []
    described = False
    with MemoryLimit(limits.memory_limit):
        for spec in args.models:
            done = within_limits(spec, limits, partial(_check, spec, args, options))
            if isinstance(done, Failed):
                print(done.message, file=sys.stderr)
                statuses.append(failure_status(done.kind))
                continue
            lines, error = done
            for line in lines:
                print(line)
            described = True
            if error is not None:  # the first one, as for every input error
                print(error, file=sys.stderr)
                statuses.append(2)
    if described:
        print(FOOTER)
    return worst(statuses)


def _check(
    spec: str, args: argparse.Namespace, options: ModelOptions, naming: Naming
) -> tuple[list[str], str | None]:
    """One model loaded and described: its report lines and its first lint error."""
    variants = frozenset(options.variants)
    model = load_model(spec, include_dirs=options.include_dirs, variants=variants)
    arch = args.arch  # every parser of this command has --arch (add_arguments)
    if arch:
        model._unit(arch)
    lines = describe(model, arch)
    errors = model.lint()
    return lines, errors[0].render() if errors else None


def command(argv: list[str]) -> int:
    """``herdsman cat ARGS``: its help, or ``check`` (errors are the caller's:
    ``cli.main.guarded``)."""
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(help_text())
        return 0 if argv else 2
    if argv[0] != "check":
        raise UsageError(f"unknown cat command '{argv[0]}' (expected: check)")
    return main(check_parser().parse_args(argv[1:]))


def _main(argv: list[str] | None = None) -> int:
    """``python -m herdsman.herd_compat.cli.cat_check ARGS``: :func:`command` with its
    usage errors as one line."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        sys.stderr.write(help_text())
        return 2
    try:
        return command(argv)
    except UsageError as e:
        print(f"herdsman cat: error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0


if __name__ == "__main__":
    sys.exit(_main())
