"""DOT pictures of a test's executions (``-show``, ``-o DIR``, ``-o -``) as herd draws and
files them: ``DIR/<test><suffix>.dot`` with every shown execution (written even when none
is), ``DOTBEGIN``/``DOTEND`` lines on stdout with ``-o -``, and with TruSt's
``--print-executions`` one file per execution, ``DIR/<test>-<n>.dot``.  Each picture says
under herd's legend which execution it is (its number among those drawn and its final
state); a file holding several pictures starts with a comment saying to render it with
``dot -O`` (one image per graph), and the run says so once on stderr (the runner)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import IO

from herdsman.engine.outcome import ExecutionRecord
from herdsman.graphs.dot import PictureOptions, to_dot
from herdsman.herd_compat.formats.herd_block import state_lines
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Loc


def execution_dot(
    ex: ExecutionRecord,
    test_name: str,
    model_name: str,
    options: PictureOptions | None = None,
) -> str:
    """The DOT picture of one kept execution (ending with a newline)."""
    if ex.graph is None:
        raise ValueError(f"execution of {test_name} kept without its graph")
    text = to_dot(
        ex.graph, test_name=test_name, model_name=model_name, shows=ex.shows, options=options
    )
    return text if text.endswith("\n") else text + "\n"


def execution_pictures(
    drawn: Sequence[ExecutionRecord],
    test_name: str,
    model_name: str,
    observed: Sequence[Loc],
    arch: str,
    options: PictureOptions | None = None,
) -> list[str]:
    """The pictures of the executions ``drawn``, each captioned ``execution N of M:`` and
    its final state as herd prints states."""
    base = options or PictureOptions()
    out = []
    for n, ex in enumerate(drawn, 1):
        state = state_lines(observed, [ex.state], arch)[0] if observed else ""
        caption = f"execution {n} of {len(drawn)}" + (f": {state}" if state else "")
        opts = replace(base, caption=caption)
        out.append(execution_dot(ex, test_name, model_name, opts))
    return out


def dot_base(path: str) -> str:
    """herd's DOT file base: the test file's name without directory and extension."""
    base = os.path.basename(path)
    return base[: -len(".litmus")] if base.endswith(".litmus") else os.path.splitext(base)[0]


def check_outdir(outdir: str | None) -> None:
    """Refuse an output directory that does not exist (``-`` is stdout), before any test
    runs: herd7 does not create it either, and fails only when it first writes there."""
    if outdir and outdir != "-" and not os.path.isdir(outdir):
        what = "is not a directory" if os.path.exists(outdir) else "does not exist"
        raise InputError(
            outdir, 0, 0, f"output directory {what} (-o never creates one: mkdir it first)"
        )


def write_pictures(
    outdir: str, suffix: str, path: str, pictures: Sequence[str], out: IO[str]
) -> str | None:
    """The shown executions of the test in file ``path``, herd's way: one file for all of
    them, or with ``-o -`` printed between ``DOTBEGIN``/``DOTEND`` lines.  The file written
    when it holds several graphs (the caller says once per run how to render them)."""
    base = dot_base(path)
    text = "".join(pictures)
    if outdir == "-":
        out.write(f"\nDOTBEGIN {base}\nDOTCOM dot\n{text}\nDOTEND {base}\n")
        return None
    target = os.path.join(outdir, base + suffix + ".dot")
    several = len(pictures) > 1
    if several:
        text = f"/* {len(pictures)} graphs: render each with 'dot -Tpng -O {target}' */\n" + text
    write_file(target, text)
    return target if several else None


def several_graphs_note(target: str) -> str:
    """What a run says once when a file holds several graphs."""
    return (
        f"note: a .dot file holding several executions (e.g. {target}) gives one image "
        "per graph with 'dot -Tpng -O FILE'\n"
    )


def write_execution_pictures(outdir: str, path: str, pictures: Sequence[str]) -> None:
    """One DOT file per listed execution: ``DIR/<base>-<n>.dot``, n from 1."""
    for i, text in enumerate(pictures, 1):
        write_file(os.path.join(outdir, f"{dot_base(path)}-{i}.dot"), text)


def write_file(target: str, text: str) -> None:
    """Write an output file (failing to is an InputError about it)."""
    try:
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise InputError(target, 0, 0, f"cannot write: {e.strerror}") from None
