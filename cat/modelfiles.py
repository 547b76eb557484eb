"""Model files: each parsed once per modification time; an ``include`` d file found where
herd looks for it (beside the including file, the include directories, the library)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache

from herdsman.cat import ast as A
from herdsman.cat.library import LIB_DIR
from herdsman.cat.parser import parse_file


@lru_cache(maxsize=256)
def _parse_cached(path: str, mtime: float) -> A.Model:
    return parse_file(path)


def load_file(path: str) -> A.Model:
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        mtime = 0.0
    return _parse_cached(path, mtime)


def file_keys(path: str) -> tuple[str, ...]:
    """The real path of a model's file, for include cycles (none for a model from text)."""
    if not path or path.startswith("<"):
        return ()
    return (os.path.realpath(path),)


def find_include(ins: A.Include, include_dirs: Sequence[str]) -> tuple[str | None, str]:
    """The path of the file ``include`` d by ``ins`` (None when there is none) and the
    directory of the including file (the first place searched)."""
    file = ins.pos.file
    here = os.path.dirname(file) or "." if file and not file.startswith("<") else "."
    for d in [here, *include_dirs, str(LIB_DIR)]:
        p = os.path.join(d, ins.fname)
        if os.path.isfile(p):
            return p, here
    return None, here
