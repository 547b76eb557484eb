"""The one error type for bad input, printed as ``FILE:LINE:COL: error: message``.

Every parser and checker in herdsman raises :class:`InputError` for a malformed litmus test,
cat file, unknown model or unsupported instruction; the command line prints
:meth:`InputError.render` and exits with status 2, never a traceback.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input at ``path:line:col`` (1-based; 0 when unknown).

    ``source_line`` (the text of the offending line), when given, is shown under the
    message with a caret under column ``col`` (cat files use it).
    """

    def __init__(
        self,
        path: str,
        line: int,
        col: int,
        message: str,
        source_line: str | None = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.col = col
        self.message = " ".join(message.split())  # always one line
        self.source_line = source_line

    def header(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"

    def render(self) -> str:
        """The error line, plus the source line and a caret when known."""
        out = self.header()
        if self.source_line is not None and self.col > 0:
            src = self.source_line.rstrip("\n").expandtabs(1)
            out += "\n" + src + "\n" + " " * (self.col - 1) + "^"
        return out

    def __str__(self) -> str:
        return self.header()
