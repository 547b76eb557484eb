"""Parse a litmus test (PPC or X86) into a :class:`~litmus.test.LitmusTest`.

The stages, each in its module: :mod:`litmus.splitter` (header, info, section offsets),
:mod:`litmus.table` (program to IR threads via :mod:`litmus.ppc` / :mod:`litmus.x86`),
:mod:`litmus.state` (init and condition).  Every problem is an :class:`InputError` at the
offending token; nothing else escapes.
"""

from __future__ import annotations

from pathlib import Path

from herdsman.litmus.base.casts import SCALAR_BITS, typed_condition
from herdsman.litmus.base.ir import Condition, Loc, MemLoc, prop_locations
from herdsman.litmus.base.memo import by_identity
from herdsman.litmus.base.source import Source, read_source
from herdsman.litmus.splitter import split
from herdsman.litmus.state import parse_condition, parse_init
from herdsman.litmus.table import parse_program
from herdsman.litmus.test import InitItem, LitmusTest


def parse_source(src: Source) -> LitmusTest:
    """The test in ``src``."""
    sp = split(src)
    threads = parse_program(src, sp.arch, sp.prog)
    n = len(threads)
    init = parse_init(src, sp.arch, sp.init, n)
    cond = parse_condition(src, sp.arch, sp.cond, n)
    condition = typed_condition(cond.condition, SCALAR_BITS.get(sp.arch))  # herd's scalars
    _check_cells(src, sp.cond[0], init, condition, cond.locations)
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


def _check_cells(
    src: Source, at: int, init: tuple[InitItem, ...], cond: Condition, locs: tuple[Loc, ...]
) -> None:
    """Every ``v[i]`` the condition names is a cell of an array of the init section (an
    array observed whole, ``v``, prints as herd's ``v={1,2}``)."""
    problem = _cells_problem(init, cond, locs)
    if problem is not None:
        raise src.error(at, problem)


@by_identity(maxsize=1 << 14)
def _cells_problem(
    init: tuple[InitItem, ...], cond: Condition, locs: tuple[Loc, ...]
) -> str | None:
    """:func:`_check_cells`'s complaint, if any (remembered: tests share the parts)."""
    arrays = {
        it.loc.name: len(it.cells)
        for it in init
        if it.cells is not None and isinstance(it.loc, MemLoc)
    }
    for loc in (*prop_locations(cond.prop), *locs):
        if not isinstance(loc, MemLoc):
            continue
        name, bracket, index = loc.name.partition("[")
        if bracket and int(index[:-1]) >= arrays.get(name, 0):
            return f"'{loc.name}' is no cell of an array of the init section"
    return None


def parse_text(text: str, path: str = "<string>") -> LitmusTest:
    """Parse the litmus test ``text`` (``path`` names it in errors)."""
    return parse_source(Source(text, path))


def parse_file(path: str | Path) -> LitmusTest:
    """Parse the litmus test file at ``path`` (strict UTF-8)."""
    return parse_source(read_source(path))
