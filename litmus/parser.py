"""Parse a litmus test (PPC or X86) into a :class:`~litmus.test.LitmusTest`.

The stages, each in its module: :mod:`litmus.splitter` (header, info, section offsets),
:mod:`litmus.table` (program to IR threads via :mod:`litmus.ppc` / :mod:`litmus.x86`),
:mod:`litmus.state` (init and condition).  Every problem is an :class:`InputError` at the
offending token; nothing else escapes.
"""

from __future__ import annotations

from pathlib import Path

from herdsman.litmus.base.casts import c_cast, typed_condition
from herdsman.litmus.base.source import Source, read_source
from herdsman.litmus.splitter import split
from herdsman.litmus.state import parse_condition, parse_init
from herdsman.litmus.table import parse_program
from herdsman.litmus.test import LitmusTest


def parse_source(src: Source) -> LitmusTest:
    """The test in ``src``."""
    sp = split(src)
    threads = parse_program(src, sp.arch, sp.prog)
    n = len(threads)
    init = parse_init(src, sp.arch, sp.init, n)
    cond = parse_condition(src, sp.arch, sp.cond, n)
    types = {it.loc: None if it.pointer else c_cast(it.ctype) for it in init}
    condition = typed_condition(cond.condition, types)  # herd's typed constants
    return LitmusTest(
        arch=sp.arch,
        name=sp.name,
        texname=sp.texname,
        doc=sp.doc,
        info=sp.info,
        init=init,
        threads=threads,
        condition=condition,
        locations=cond.locations,
        filter=cond.filter,
        kinds=cond.kinds,
        path=src.path,
        spelled=cond.spelled,
    )


def parse_text(text: str, path: str = "<string>") -> LitmusTest:
    """Parse the litmus test ``text`` (``path`` names it in errors)."""
    return parse_source(Source(text, path))


def parse_file(path: str | Path) -> LitmusTest:
    """Parse the litmus test file at ``path`` (strict UTF-8)."""
    return parse_source(read_source(path))
