"""Insert a fence into a C program's text before the statements that start on given lines.

The statements are found with pycparser (the project's preprocessing and parser), by the
line of their node's coord, the line the IR origins (``"LINE: text"``) name.  The fence
goes on that same line, immediately before the statement's first token, so every other
line keeps its number; a statement that is the body of an ``if``, loop or ``switch`` gets
braces around the fence and itself.  ``#include <stdatomic.h>`` is added (on a line of
its own, after the last ``#include``) when missing.

The statement of a line is chosen in the parse of the text as written (whose lines the IR
origins use); where it starts and ends is found among the tokens of the text with its
comments blanked, preprocessed (pcpp turns a comment into one space and joins the lines of
a comment over several), whose parse has the same statements in the same order.  A place
is mapped back to the text when its row and the written line agree before or after it;
otherwise (a macro expansion in between) it is a ValueError.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pycparser import c_ast

from herdsman.litmus.base.deep import run_deep
from herdsman.litmus.c.parse import parse_c
from herdsman.litmus.c.preprocess import preprocess

__all__ = ["FENCE", "fenced_c_text"]

FENCE = "atomic_thread_fence(memory_order_seq_cst);"

_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b.*$", re.M)
_STDATOMIC = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]stdatomic\.h[>\"]", re.M)
_LINE = re.compile(r'#line (\d+) "(.*)"$')
_COMMENT_OR_LITERAL = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S
)
_TOKEN = re.compile(
    r"(?P<dir>^[ \t]*\#(?:\\\n|[^\n])*)"  # a preprocessor line, continuations included
    r"|(?P<lit>\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')"
    r"|(?P<word>[A-Za-z_0-9]+)"
    r"|(?P<ws>\n|[^\S\n]+)"
    r"|(?P<p>.)",
    re.M,
)
_HEADERS = frozenset({"if", "while", "for", "switch"})
_OPEN, _CLOSE = "([{", ")]}"


def fenced_c_text(
    text: str, lines: Iterable[int], fence: str = FENCE, *, path: str = "<string>"
) -> str:
    """``text`` (a C program, read from ``path``) with ``fence`` inserted immediately
    before the statement that starts on each given line (1-based, as in the IR origins
    ``"LINE: text"``), and ``#include <stdatomic.h>`` added when missing.  No lines: the
    text unchanged.  A line where no statement starts is a ValueError."""
    wanted = sorted(set(lines))
    if not wanted:
        return text
    return run_deep(path, lambda: _fenced(text, wanted, fence, path))


def _fenced(text: str, wanted: list[int], fence: str, path: str) -> str:
    blank = _blank_comments(text)
    src = _Source(blank, path)
    stmts = list(_statements(text, src, path))
    edits: list[tuple[int, int, str]] = []  # (offset, order at one offset, text)
    for line in wanted:
        stmt = next((s for s in stmts if s.node.coord.line == line), None)
        if stmt is None:
            raise ValueError(f"{path}:{line}: no statement starts on this line")
        start = src.start(stmt.plain, line)
        if stmt.body:
            edits.append((start, 1, f"{{ {fence} "))
            edits.append((src.end(stmt.plain, line), 0, " }"))
        else:
            edits.append((start, 1, f"{fence} "))
    if not _STDATOMIC.search(blank):
        nl = "\r\n" if "\r\n" in text else "\n"
        at = _include_offset(blank)
        head = nl if at == len(text) and not text.endswith("\n") else ""
        edits.append((at, -1, f"{head}#include <stdatomic.h>{nl}"))
    out: list[str] = []
    pos = 0
    for at, _, piece in sorted(edits):
        out.append(text[pos:at])
        out.append(piece)
        pos = at
    out.append(text[pos:])
    return "".join(out)


@dataclass(frozen=True)
class _Statement:
    """A statement: its node in the parse of the text as written, the same node in the
    parse of the text with comments blanked, whether it is the body of an if, a loop or a
    switch."""

    node: c_ast.Node
    plain: c_ast.Node
    body: bool


def _statements(text: str, src: _Source, path: str) -> Iterator[_Statement]:
    """The statements of the functions of ``path``, in source order (a statement before
    those inside it); labels and ``case``s are not statements here, their statements are."""
    ast = parse_c(preprocess(text, path), path)
    for a, b in zip(ast.ext, src.ast.ext, strict=True):
        if isinstance(a, c_ast.FuncDef):
            yield from _inside(a.body, b.body, path)


def _inside(a: c_ast.Node, b: c_ast.Node, path: str) -> Iterator[_Statement]:
    """The statements in the block or case ``a`` (``b`` in the blanked parse)."""
    items = a.stmts if isinstance(a, (c_ast.Case, c_ast.Default)) else a.block_items
    plain = b.stmts if isinstance(b, (c_ast.Case, c_ast.Default)) else b.block_items
    for x, y in zip(items or [], plain or [], strict=True):
        yield from _statement(x, y, False, path)


def _statement(a: c_ast.Node, b: c_ast.Node, body: bool, path: str) -> Iterator[_Statement]:
    """Statement ``a`` (``b`` in the blanked parse) and those inside it."""
    if isinstance(a, c_ast.Label):
        yield from _statement(a.stmt, b.stmt, body, path)
        return
    if isinstance(a, (c_ast.Case, c_ast.Default)):
        yield from _inside(a, b, path)
        return
    if not isinstance(a, c_ast.Pragma) and a.coord is not None and a.coord.file == path:
        yield _Statement(a, b, body)
    if isinstance(a, c_ast.Compound):
        yield from _inside(a, b, path)
    elif isinstance(a, c_ast.If):
        yield from _statement(a.iftrue, b.iftrue, True, path)
        if a.iffalse is not None:
            yield from _statement(a.iffalse, b.iffalse, True, path)
    elif isinstance(a, (c_ast.While, c_ast.DoWhile, c_ast.For, c_ast.Switch)):
        yield from _statement(a.stmt, b.stmt, True, path)


class _Source:
    """The program with comments blanked, preprocessed: its parse and tokens, where a
    statement starts and ends there, and those places in the program as written."""

    def __init__(self, blank: str, path: str) -> None:
        self.path = path
        self.lines = blank.split("\n")
        self.line_starts = _starts(self.lines)
        expanded = preprocess(blank, path)
        self.ast = parse_c(expanded, path)
        self.rows = expanded.split("\n")
        self.row_starts = _starts(self.rows)
        self.row_line: list[int | None] = []  # the line of `path` each row comes from
        self.line_row: dict[int, int] = {}
        file, line = "", 0
        for r, row in enumerate(self.rows):
            m = _LINE.match(row)
            if m is not None:
                file, line = m.group(2), int(m.group(1))
                self.row_line.append(None)
                continue
            self.row_line.append(line if file == path else None)
            if file == path:
                self.line_row.setdefault(line, r)
            line += 1
        self.tokens = [
            (m.start(), m.lastgroup or "", m.group())
            for m in _TOKEN.finditer(expanded)
            if m.lastgroup != "ws"
        ]
        self.starts = [t[0] for t in self.tokens]

    def start(self, node: c_ast.Node, line: int) -> int:
        """Offset in the program of the first token of statement ``node`` (asked for on
        ``line``)."""
        return self._written(self.tokens[self._first(node, line)][0], line)

    def end(self, node: c_ast.Node, line: int) -> int:
        """Offset in the program just after statement ``node`` (asked for on ``line``)."""
        return self._written(self._end(node, line), line)

    def _first(self, node: c_ast.Node, line: int) -> int:
        """Index of the first token of statement ``node``: back from its coord over what
        may begin it (types, prefix operators, casts) to what ends the code before it."""
        i = self._anchor(node, line)
        while i > 0:
            _, kind, tok = self.tokens[i - 1]
            if kind == "dir" or tok in (";", "{", "}", ":", "else", "do"):
                break
            if tok == ")":
                j = self._match_back(i - 1)
                if j is None or (j > 0 and self.tokens[j - 1][2] in _HEADERS):
                    break
                i = j
                continue
            i -= 1
        return i

    def _end(self, node: c_ast.Node, line: int) -> int:
        """Expanded offset just after statement ``node``."""
        if isinstance(node, c_ast.If):
            return self._end(node.iffalse or node.iftrue, line)
        if isinstance(node, (c_ast.While, c_ast.For, c_ast.Switch, c_ast.Label)):
            return self._end(node.stmt, line)
        if isinstance(node, c_ast.Compound):
            i = self._anchor(node, line)
        elif isinstance(node, c_ast.DoWhile):
            i = bisect_left(self.starts, self._end(node.stmt, line))
        else:
            i = self._first(node, line)
        depth = 0
        for at, kind, tok in self.tokens[i:]:
            if kind in ("dir", "lit"):
                continue
            if tok in _OPEN:
                depth += 1
            elif tok in _CLOSE:
                depth -= 1
                if depth == 0 and tok == "}" and isinstance(node, c_ast.Compound):
                    return at + 1
            elif tok == ";" and depth == 0:
                return at + 1
            if depth < 0:
                break
        raise ValueError(f"{self.path}:{line}: cannot find the end of the statement")

    def _anchor(self, node: c_ast.Node, line: int) -> int:
        """Index of the token at ``node``'s coord."""
        row = self.line_row.get(node.coord.line)
        at = -1 if row is None else self.row_starts[row] + node.coord.column - 1
        i = bisect_left(self.starts, at)
        if i == len(self.tokens) or self.starts[i] != at:
            raise ValueError(f"{self.path}:{line}: the statement's coord is not on a token")
        return i

    def _written(self, at: int, line: int) -> int:
        """The offset in the program of expanded offset ``at``: the expanded row and the
        written line must agree before it or after it (no macro expansion in between)."""
        r = bisect_right(self.row_starts, at) - 1
        n = self.row_line[r]
        if n is not None and 0 < n <= len(self.lines):
            col = at - self.row_starts[r]
            row, written = self.rows[r], self.lines[n - 1]
            if row[:col] == written[:col]:
                return self.line_starts[n - 1] + col
            tail, text = row[col:].rstrip(), written.rstrip()
            if text.endswith(tail) and (tail or (col > 0 and text.endswith(row[col - 1]))):
                return self.line_starts[n - 1] + len(text) - len(tail)
        raise ValueError(
            f"{self.path}:{line}: cannot place a fence here: a macro expansion on the "
            "statement's line hides where it is in the text"
        )

    def _match_back(self, i: int) -> int | None:
        """Index of the ``(`` matching the ``)`` at token ``i``."""
        depth = 0
        for k in range(i, -1, -1):
            tok = self.tokens[k][2]
            if tok == ")":
                depth += 1
            elif tok == "(":
                depth -= 1
                if depth == 0:
                    return k
        return None


def _starts(lines: list[str]) -> list[int]:
    """The offset of each of ``lines`` in their text (joined by newlines)."""
    out = [0]
    for line in lines[:-1]:
        out.append(out[-1] + len(line) + 1)
    return out


def _blank_comments(text: str) -> str:
    """``text`` with each comment replaced by spaces (its newlines kept)."""

    def blank(m: re.Match[str]) -> str:
        s = m.group()
        if s[0] in "\"'":
            return s
        return re.sub(r"[^\n]", " ", s)

    return _COMMENT_OR_LITERAL.sub(blank, text)


def _include_offset(blank: str) -> int:
    """Where ``#include <stdatomic.h>`` goes: after the last ``#include`` line, else before
    the first line of code."""
    includes = list(_INCLUDE.finditer(blank))
    if includes:
        last = includes[-1]
        end = blank.find("\n", last.end())
        return len(blank) if end < 0 else end + 1
    m = re.search(r"\S", blank)
    return 0 if m is None else blank.rfind("\n", 0, m.start()) + 1
