"""The built-in library's files (``cat/lib``): where they are and which names each defines
at its top level, for the hint on an unknown name (``co`` comes from ``cos.cat``)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from herdsman.cat import ast as A
from herdsman.cat.parser import parse_file

LIB_DIR = Path(__file__).with_name("lib")

#: Included by every model (herd's stdlib): its names are always bound.
STDLIB = "stdlib.cat"
#: Variants of another file, not named in hints (``cos.cat`` is the one to include).
VARIANTS = frozenset({"cos-opt.cat"})


def _top_level_names(instrs: tuple[A.Ins, ...]) -> set[str]:
    names: set[str] = set()
    for ins in instrs:
        if isinstance(ins, (A.Let, A.Rec)):
            for b in ins.bindings:
                names.update(A.pat_names(b.pat))
        elif isinstance(ins, A.WithFrom):
            names.add(ins.var)
        elif isinstance(ins, A.IfVariant):
            names |= _top_level_names(ins.then) | _top_level_names(ins.else_)
    return names


@cache
def definitions() -> dict[str, tuple[str, ...]]:
    """Each name defined at the top level of a library file (other than the stdlib, which
    every model includes) -> the files defining it, in name order."""
    found: dict[str, list[str]] = {}
    for path in sorted(LIB_DIR.glob("*.cat")):
        if path.name == STDLIB or path.name in VARIANTS:
            continue
        for name in _top_level_names(parse_file(str(path)).instrs):
            found.setdefault(name, []).append(path.name)
    return {name: tuple(files) for name, files in found.items()}


def defining_files(name: str) -> tuple[str, ...]:
    """The library files that define ``name`` (empty when none does)."""
    return definitions().get(name, ())
