"""Where the tests of a command line come from: files, ``@index`` files, directories.

herd reads ``@file`` arguments as lists of test files, one per line, relative to the index
file's directory; herdsman also accepts a directory (its ``*.litmus`` files, recursively,
in name order).  Test-name lists (``-names``/``-excl``) and herd's ``-conds`` files are read
here too.  Every problem is an :class:`InputError` at the offending file and line.
"""

from __future__ import annotations

import os
from pathlib import Path

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import MAX_LIST_BYTES, read_text


def _read_lines(path: str) -> list[str]:
    return read_text(path, MAX_LIST_BYTES, "index, name and condition files").split("\n")


def index_path(name: str, base: str = "") -> str | None:
    """The index file that a command-line argument or an index line ``name`` names (lines
    are relative to ``base``, their index's directory), or None for a test file.

    herd's rule: a name whose base name starts with ``@`` is an index, read at that very
    path (``herd7 @all`` reads the file ``@all``, ``tests/@all`` the file there).
    herdsman also takes ``@PATH`` for an index file ``PATH`` whose name has no ``@``
    (when no file ``@PATH`` exists)."""
    herd_form = os.path.basename(name).startswith("@")
    if not herd_form and not name.startswith("@"):
        return None
    literal = os.path.join(base, name)
    if herd_form and os.path.exists(literal):
        return literal
    if name.startswith("@") and len(name) > 1:
        stripped = os.path.join(base, name[1:])
        if not herd_form or os.path.exists(stripped):
            return stripped
    return literal


#: The most index files one command line may include in all (an index naming the next
#: one twice, 26 deep, would include 2^26), and the most test files it may name.
MAX_INDEX_INCLUDES = 100_000
MAX_INDEXED_TESTS = 1_000_000


def read_index(path: str) -> list[str]:
    """Test files listed in index file ``path`` (herd's ``@file``), in order.

    Lines are file names relative to the index's directory; empty lines and ``#`` comments
    are skipped; a line naming an index (see :func:`index_path`) includes it.  Each file
    is read once however often it is included (no recursion: chains of any length), an
    index including itself is an error, and so are more than :data:`MAX_INDEX_INCLUDES`
    inclusions or :data:`MAX_INDEXED_TESTS` tests in all.
    """
    texts: dict[str, list[str]] = {}  # real path -> lines

    def lines_of(p: str, real: str) -> list[str]:
        got = texts.get(real)
        if got is None:
            got = texts[real] = _read_lines(p)
        return got

    out: list[str] = []
    includes = 0
    # the indexes being read, outermost first: (path, real path, lines, next line)
    real = os.path.realpath(path)
    stack: list[tuple[str, str, list[str], int]] = [(path, real, lines_of(path, real), 0)]
    while stack:
        here, real, lines, n = stack[-1]
        if n >= len(lines):
            stack.pop()
            continue
        stack[-1] = (here, real, lines, n + 1)
        name = lines[n].strip()
        if not name or name.startswith("#"):
            continue
        base = os.path.dirname(here)
        sub = index_path(name, base)
        if sub is None:
            if len(out) >= MAX_INDEXED_TESTS:
                raise InputError(here, n + 1, 1, f"more than {MAX_INDEXED_TESTS} tests in all")
            out.append(os.path.join(base, name))
            continue
        includes += 1
        if includes > MAX_INDEX_INCLUDES:
            raise InputError(here, n + 1, 1, f"more than {MAX_INDEX_INCLUDES} index files in all")
        sub_real = os.path.realpath(sub)
        if any(r == sub_real for _, r, _, _ in stack):
            raise InputError(sub, 0, 0, "index file includes itself")
        try:
            sub_lines = lines_of(sub, sub_real)
        except InputError as e:
            if e.line == 0:  # the sub-index itself is missing: point at this line
                raise InputError(here, n + 1, 1, f"{sub}: {e.message}") from None
            raise
        stack.append((sub, sub_real, sub_lines, 0))
    return out


def expand_test_args(args: list[str], allow_dirs: bool = True) -> list[str]:
    """Test files from command-line arguments: ``@index`` files are expanded, directories
    give their ``*.litmus`` files (recursively, sorted; none is an error), other arguments
    are kept as is (a missing file is reported when the test is read)."""
    out: list[str] = []
    for a in args:
        index = index_path(a)
        if index is not None:
            out += read_index(index)
        elif allow_dirs and os.path.isdir(a):
            try:
                found = sorted(str(p) for p in Path(a).rglob("*.litmus") if p.is_file())
            except OSError as e:
                raise InputError(a, 0, 0, f"cannot list directory: {e.strerror}") from None
            if not found and not os.access(a, os.R_OK | os.X_OK):
                raise InputError(a, 0, 0, "cannot read directory: permission denied")
            if not found:  # named on purpose, holding nothing: a mistake, not a success
                raise InputError(a, 0, 0, "no litmus tests (*.litmus) in this directory")
            out += found
        else:
            out.append(a)
    return out


def read_names(path: str) -> set[str]:
    """Test names of a ``-names``/``-excl`` file: the first word of each line (``#``
    comments and empty lines skipped)."""
    names = set()
    for line in _read_lines(path):
        s = line.strip()
        if s and not s.startswith("#"):
            names.add(s.split()[0])
    return names


def read_conds(path: str) -> dict[str, tuple[str, int]]:
    """herd's ``-conds`` file: ``NAME "condition"`` entries (the quoted condition may span
    lines; an unquoted one is the rest of the line).  Returns name -> (condition, line)."""
    text = "\n".join(_read_lines(path))
    out: dict[str, tuple[str, int]] = {}
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        if c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        start_line = line
        j = i
        while j < n and not text[j].isspace():
            j += 1
        name = text[i:j]
        while j < n and text[j] in " \t":
            j += 1
        if j < n and text[j] == '"':
            k = text.find('"', j + 1)
            if k < 0:
                raise InputError(path, start_line, j + 1 - _line_start(text, j), 'unterminated "')
            cond = text[j + 1 : k]
            line += text.count("\n", i, k + 1)
            i = k + 1
        else:
            k = text.find("\n", j)
            k = n if k < 0 else k
            cond = text[j:k].strip()
            i = k
        if not cond.strip():
            raise InputError(path, start_line, 1, f"no condition for test {name}")
        out[name] = (cond, start_line)
    return out


def _line_start(text: str, i: int) -> int:
    return text.rfind("\n", 0, i) + 1
