"""A test's text with its path: offsets to ``line:col`` and :class:`InputError`\\ s.

Every stage of the litmus front-end works on absolute character offsets into the whole
file, so that an error deep inside a cell or a condition points at the exact token.
"""

from __future__ import annotations

from bisect import bisect_right
from pathlib import Path

from herdsman.litmus.errors import InputError


class Source:
    """The text of one litmus test (newlines normalised to ``\\n``) and where it came from."""

    __slots__ = ("path", "text", "_starts")

    def __init__(self, text: str, path: str) -> None:
        self.path = path
        self.text = text.replace("\r\n", "\n")
        self._starts: list[int] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of character ``offset`` (clamped to the text)."""
        if self._starts is None:
            starts = [0]
            find = self.text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._starts = starts
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def error(self, offset: int, message: str) -> InputError:
        """An :class:`InputError` at ``offset`` (to be raised by the caller)."""
        line, col = self.position(offset)
        return InputError(self.path, line, col, message)


def read_source(path: str | Path) -> Source:
    """Read a test file as strict UTF-8; unreadable files and bad bytes are InputErrors."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(name, 0, 0, f"cannot read file: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8", errors="replace")
        line = good.count("\n") + 1
        col = len(good) - (good.rfind("\n") + 1) + 1
        byte = data[exc.start]
        raise InputError(
            name, line, col, f"invalid UTF-8 byte 0x{byte:02x} (herdsman reads UTF-8 text)"
        ) from None
    return Source(text, name)
