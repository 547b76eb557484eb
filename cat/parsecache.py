"""Parsed cat files kept on disk between runs, as Python keeps its bytecode: a file's AST
is pickled in the user's cache directory and read back by the next run instead of parsing
the file again (parsing herd's ``aarch64.cat`` and its includes takes ~0.2 s; reading them
back ~0.02 s).

An entry is keyed by everything the AST depends on: the file's path as given (positions
name it), its bytes, and the parser's own source (the grammar, the parser, the tree
builder, the AST's classes) with the Python version that pickled it.  An entry is used only
when it unpickles to a model of that path and that text; anything else (a missing,
truncated, corrupt or foreign entry, an unreadable or unwritable directory) is a miss, and
the file is parsed as without a cache.  Only files that parse are kept.

The directory is ``$HERDSMAN_CACHE`` (``off``: no cache), else ``$XDG_CACHE_HOME/herdsman``,
else ``~/.cache/herdsman``; it holds at most :data:`MAX_ENTRIES` entries (the oldest go).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from herdsman.cat import ast as A

#: The files whose text decides what a cat file parses to.
_PARSER_FILES = ("cat.lark", "parser.py", "cattree.py", "cattext.py", "ast.py", "parsecache.py")

#: The most entries kept: when a new one would pass it, the older half goes.
MAX_ENTRIES = 512

#: What unpickling a damaged or foreign entry raises (it is then a miss).
_BAD_ENTRY = (
    EOFError,
    pickle.UnpicklingError,
    AttributeError,
    ImportError,
    IndexError,
    KeyError,
    TypeError,
    ValueError,
    RecursionError,
)


def cache_dir() -> Path | None:
    """Where entries go, None when caching is off."""
    chosen = os.environ.get("HERDSMAN_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen) / "cat"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "herdsman" / "cat"


@lru_cache(maxsize=1)
def _parser_fingerprint() -> bytes:
    """A digest of the parser's source and of the Python version (one per process)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((sys.version_info[:2], pickle.HIGHEST_PROTOCOL)).encode())
    here = Path(__file__).parent
    for name in _PARSER_FILES:
        h.update((here / name).read_bytes())
    return h.digest()


def _entry(directory: Path, path: str, data: bytes) -> Path:
    h = hashlib.blake2b(digest_size=20)
    h.update(_parser_fingerprint())
    encoded = path.encode("utf-8", "surrogateescape")
    h.update(len(encoded).to_bytes(8, "big") + encoded)
    h.update(data)
    return directory / f"{h.hexdigest()}.pickle"


def cached_model(path: str, data: bytes, text: str) -> A.Model | None:
    """The AST kept for file ``path`` with bytes ``data`` (decoded: ``text``), or None."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        blob = _entry(directory, path, data).read_bytes()
    except OSError:
        return None
    try:
        model = pickle.loads(blob)
    except _BAD_ENTRY:
        return None
    if not isinstance(model, A.Model) or model.path != path or model.source != text:
        return None
    return model


def keep_model(path: str, data: bytes, model: A.Model) -> None:
    """Keep ``model``, parsed from file ``path`` with bytes ``data``, for later runs (when
    the directory can be written)."""
    directory = cache_dir()
    if directory is None:
        return
    try:
        blob = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:  # a very deep model: parsed again next time
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _make_room(directory)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".new-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, _entry(directory, path, data))  # whole, or not at all
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        return


def _make_room(directory: Path) -> None:
    """Remove the older half of the entries when there are :data:`MAX_ENTRIES`."""
    entries = list(directory.glob("*.pickle"))
    if len(entries) < MAX_ENTRIES:
        return
    dated = []
    for e in entries:
        try:
            dated.append((e.stat().st_mtime, e))
        except OSError:  # removed by another run meanwhile
            continue
    dated.sort()
    for _, e in dated[: len(dated) // 2]:
        try:
            e.unlink()
        except OSError:
            continue
