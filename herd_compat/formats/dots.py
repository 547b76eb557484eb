"""Pictures of a test's executions (``-show``, ``-o DIR``, ``-o -``) as herd draws and
files them: ``DIR/<test><suffix>.dot`` with every shown execution (written even when none
is), ``DOTBEGIN``/``DOTEND`` lines on stdout with ``-o -``, and with TruSt's
``--print-executions`` one file per execution, ``DIR/<test>-<n>.dot``.  Each picture says
under herd's legend which execution it is (its number among those drawn and its final
state); a file holding several pictures starts with a comment saying to render it with
``dot -O`` (one image per graph), and the run says so once on stderr (the runner).

With ``--format svg`` or ``png`` (:class:`~graphs.dot.PictureOptions` ``format``) herdsman
draws the images itself (:mod:`graphs.render`): one image per execution,
``DIR/<test><suffix>.svg`` when there is one, else ``DIR/<test><suffix>-<n>.svg``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import IO

from herdsman.engine.outcome import ExecutionRecord
from herdsman.graphs.dot import PictureOptions, to_dot
from herdsman.graphs.execution import ExecutionGraph
from herdsman.graphs.render import IMAGE_FORMATS, RenderError, find_renderer, render_all
from herdsman.herd_compat.formats.herd_block import state_lines
from herdsman.litmus.base.errors import InputError, UsageError
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


def check_outdir(outdir: str | None, fmt: str = "dot") -> None:
    """Refuse an output directory that does not exist (``-`` is stdout), before any test
    runs: herd7 does not create it either, and fails only when it first writes there.
    Images (``fmt`` svg or png) need a directory and a renderer."""
    if outdir and outdir != "-" and not os.path.isdir(outdir):
        what = "is not a directory" if os.path.exists(outdir) else "does not exist"
        raise InputError(
            outdir, 0, 0, f"output directory {what} (-o never creates one: mkdir it first)"
        )
    if fmt in IMAGE_FORMATS and outdir:
        if outdir == "-":
            raise UsageError(f"-o - prints DOT text: give -o a directory for --format {fmt}")
        try:
            find_renderer()
        except RenderError as e:
            raise UsageError(str(e)) from None


def write_pictures(
    outdir: str,
    suffix: str,
    path: str,
    pictures: Sequence[str],
    out: IO[str],
    options: PictureOptions | None = None,
) -> str | None:
    """The shown executions of the test in file ``path``, herd's way: one file for all of
    them, or with ``-o -`` printed between ``DOTBEGIN``/``DOTEND`` lines (or, in an image
    format, one image each).  The file written when it holds several graphs (the caller
    says once per run how to render them)."""
    opts = options or PictureOptions()
    base = dot_base(path)
    if opts.format in IMAGE_FORMATS:
        several = len(pictures) > 1
        names = [
            f"{base}{suffix}-{n}" if several else base + suffix for n in range(1, 1 + len(pictures))
        ]
        write_images(outdir, names, pictures, opts)
        return None
    text = "".join(pictures)
    if outdir == "-":
        out.write(f"\nDOTBEGIN {base}\nDOTCOM {opts.layout}\n{text}\nDOTEND {base}\n")
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


def write_execution_pictures(
    outdir: str, path: str, pictures: Sequence[str], options: PictureOptions | None = None
) -> None:
    """One picture file per listed execution: ``DIR/<base>-<n>.dot`` (or ``.svg``,
    ``.png``), n from 1."""
    names = [f"{dot_base(path)}-{i}" for i in range(1, len(pictures) + 1)]
    write_images(outdir, names, pictures, options or PictureOptions())


def write_images(
    outdir: str, names: Sequence[str], pictures: Sequence[str], options: PictureOptions
) -> list[str]:
    """Each picture (DOT text) in ``DIR/<name>.<format>``, drawn by the renderer in an
    image format; the files written.  A renderer that fails is an InputError about the
    first file."""
    fmt = options.format
    targets = [os.path.join(outdir, f"{name}.{fmt}") for name in names]
    if fmt not in IMAGE_FORMATS:
        for target, text in zip(targets, pictures, strict=True):
            write_file(target, text)
        return targets
    try:
        images = render_all(pictures, fmt, options.layout)
    except RenderError as e:
        raise InputError(targets[0], 0, 0, f"cannot draw: {e}") from None
    for target, image in zip(targets, images, strict=True):
        write_file(target, image)
    return targets


def write_error_picture(
    outdir: str, path: str, graph: ExecutionGraph, name: str, model: str, fmt: str = "dot"
) -> str:
    """The picture of a program's violating execution: ``DIR/<program>.dot`` (or
    ``.svg``, ``.png``); the file written."""
    text = to_dot(graph, test_name=name, model_name=model)
    opts = PictureOptions(format=fmt)
    return write_images(outdir, [os.path.splitext(os.path.basename(path))[0]], [text], opts)[0]


def write_file(target: str, text: str | bytes) -> None:
    """Write an output file (failing to is an InputError about it)."""
    try:
        if isinstance(text, bytes):
            with open(target, "wb") as fb:
                fb.write(text)
        else:
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
    except OSError as e:
        raise InputError(target, 0, 0, f"cannot write: {e.strerror}") from None
