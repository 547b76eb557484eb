"""The errors of bad input: :class:`InputError`, printed as ``FILE:LINE:COL: error:
message``, and :class:`UsageError`, a bad command line.

Every parser and checker in herdsman raises :class:`InputError` for a malformed litmus test,
cat file, unknown model or unsupported instruction; the command line prints
:meth:`InputError.render` and exits with status 2, never a traceback.  A bad option value
is a :class:`UsageError`, printed as ``herdsman COMMAND: error: ...`` (exit status 2).
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with every unprintable character (control characters, NUL, bytes that were
    not UTF-8) escaped as Python would (``\\x00``), so that an error never writes them to
    the user's terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


#: The longest file name an error shows whole (longer: its two ends around "...").
PATH_SHOWN = 160
#: The longest word (a token of the input quoted in a message: a label, an identifier, a
#: register, a number, an option's value, ``#error`` text...) a message shows whole.
WORD_SHOWN = 160
#: The longest message shown whole (after its words are shortened).
MESSAGE_SHOWN = 400


def _shortened(text: str, limit: int) -> str:
    """``text`` when at most ``limit`` characters, else its two ends around "..."."""
    if len(text) <= limit:
        return text
    tail = limit // 4
    return text[: limit - tail - 3] + "..." + text[-tail:]


def one_line(message: str) -> str:
    """``message`` as every error shows it (the one rule for every message): on one line,
    unprintable characters escaped, each word of the input it quotes cut to
    :data:`WORD_SHOWN` characters and the whole to :data:`MESSAGE_SHOWN` — at most a
    screen line of the culprit, however large the input."""
    words = [_shortened(printable(w), WORD_SHOWN) for w in message.split()]
    text = " ".join(words)
    if len(text) > MESSAGE_SHOWN:
        text = text[: MESSAGE_SHOWN - 3] + "..."
    return text


def shown_path(path: str) -> str:
    """A file name as errors show it: escaped, its two ends when long, an empty one as
    ``''`` (so that the line keeps its ``FILE:LINE:COL:`` form)."""
    return _shortened(printable(path), PATH_SHOWN) if path else "''"


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
        self.path = shown_path(path)
        self.line = line
        self.col = col
        self.message = one_line(message)
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


class UsageError(Exception):
    """A bad command line: an unknown option, a bad value, an option given twice."""
