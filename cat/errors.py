"""Errors of cat models: :class:`CatError` carries an AST position and becomes an
:class:`litmus.errors.InputError` (``FILE:LINE:COL: error: ...`` plus a caret line)."""

from __future__ import annotations

import difflib

from herdsman.cat.ast import Pos
from herdsman.litmus.errors import InputError


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
            return InputError("<model>", 0, 0, self.message)
        return InputError(p.file, p.line, p.col, self.message, p.text or None)

    def __str__(self) -> str:
        return f"{self.pos}: {self.message}" if self.pos else self.message


class NonConvergence(CatError):
    """A ``let rec`` that did not reach a fixpoint within its iteration bound."""


class AssertionFailed(CatError):
    """An ``assert`` check failed (herd stops: "NAME assertion failed, check input test.")."""


def suggest(name: str, candidates) -> str | None:
    """The closest name in scope, for "did you mean" hints."""
    best = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return best[0] if best else None
