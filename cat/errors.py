"""Errors of cat models: :class:`CatError` carries an AST position and becomes an
:class:`litmus.errors.InputError` (``FILE:LINE:COL: error: ...`` plus a caret line).

An error never echoes much of its input: a model may ``include`` any file
(``/proc/self/environ``...), so what a message quotes (:func:`quote`, :func:`excerpt`)
and the source line shown under it (:class:`ModelInputError`) are at most
:data:`QUOTE_MAX` characters of it, with non-printable characters escaped.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from herdsman.cat.ast import Pos
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.errors import printable as escape

#: At most this many characters of a model's text are quoted in an error.
QUOTE_MAX = 60
#: At most this many characters of a message (the longest quote a few times over).
MESSAGE_MAX = 400
#: The error for a model nested deeper than Python's recursion allows (expressions
#: inside expressions, ``let ... in`` inside ``let ... in``...).
TOO_DEEP = "model too deeply nested (expressions inside expressions, lets inside lets)"


def excerpt(text: str, limit: int = QUOTE_MAX) -> str:
    """At most ``limit`` characters of ``text``, escaped, ``...`` marking a cut."""
    if len(text) <= limit:
        return escape(text)
    return escape(text[:limit]) + "..."


def quote(text: str, mark: str | None = None) -> str:
    """``text`` quoted for a message: a short excerpt (:func:`excerpt`) between ``mark``
    s, or, by default, as Python's ``repr`` would quote it."""
    if mark is not None:
        return mark + excerpt(text) + mark
    if len(text) <= QUOTE_MAX:
        return repr(text)
    r = repr(text[:QUOTE_MAX])
    return r[:-1] + "..." + r[-1]


def source_excerpt(line: str, col: int, limit: int = QUOTE_MAX) -> tuple[str, int]:
    """The part of source ``line`` to show under an error at column ``col`` (1-based), and
    the column of the caret in it: the line itself when short and printable, else at most
    ``limit`` characters around the column, escaped, ``...`` marking the cuts."""
    line = line.rstrip("\r\n").expandtabs(1)
    if len(line) <= limit and line.isprintable():
        return line, col
    i = max(col - 1, 0)
    start = max(0, min(i - limit // 2, len(line) - limit))
    end = min(len(line), start + limit)
    before = ("..." if start > 0 else "") + escape(line[start:i])
    after = escape(line[i:end]) + ("..." if end < len(line) else "")
    return before + after, len(before) + 1


class ModelInputError(InputError):
    """An :class:`InputError` in a model's text: the source line under the message is
    shown as :func:`source_excerpt` (a short line whole, a long one or one with control
    characters as a short escaped excerpt around the caret); the path and the message
    are escaped, and the message cut at :data:`MESSAGE_MAX` characters."""

    def __init__(
        self, path: str, line: int, col: int, message: str, source_line: str | None = None
    ) -> None:
        super().__init__(escape(path), line, col, excerpt(message, MESSAGE_MAX), source_line)

    def render(self) -> str:
        out = self.header()
        if self.source_line is not None and self.col > 0:
            text, caret = source_excerpt(self.source_line, self.col)
            out += "\n" + text + "\n" + " " * (caret - 1) + "^"
        return out


class CatError(Exception):
    """A model error at ``pos`` (caught by ``try ... with``)."""

    def __init__(self, pos: Pos | None, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message
        #: reported at the user's call of the library function it arose in
        self.at_call = False

    def to_input_error(self) -> InputError:
        p = self.pos
        if p is None:
            return ModelInputError("<model>", 0, 0, self.message)
        return ModelInputError(p.file, p.line, p.col, self.message, p.text or None)

    def __str__(self) -> str:
        return f"{self.pos}: {self.message}" if self.pos else self.message


class UnboundName(CatError):
    """An unknown name at ``pos``; the message (its "did you mean" hint takes a search of
    the names in scope) is worked out when first read: a ``try ... with`` discards most."""

    def __init__(self, pos: Pos | None, describe: Callable[[], str]) -> None:
        Exception.__init__(self)
        self.pos = pos
        self.at_call = False
        self._describe = describe
        self._message: str | None = None

    @property  # type: ignore[override]
    def message(self) -> str:
        if self._message is None:
            self._message = self._describe()
        return self._message

    @message.setter
    def message(self, text: str) -> None:
        self._message = text


class NonConvergence(CatError):
    """A ``let rec`` that did not reach a fixpoint within its iteration bound."""


class AssertionFailed(CatError):
    """An ``assert`` check failed (herd stops: "NAME assertion failed, check input test.")."""


def suggest(name: str, candidates) -> str | None:
    """The closest name in scope, for "did you mean" hints."""
    best = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return best[0] if best else None
