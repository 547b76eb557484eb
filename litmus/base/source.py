"""A test's text with its path: offsets to ``line:col`` and :class:`InputError`\\ s.

Every stage of the litmus front-end works on absolute character offsets into the whole
file, so that an error deep inside a cell or a condition points at the exact token.
Every file herdsman reads as input (tests, C programs, cat files, logs, index files) is
read by :func:`read_text`: regular files only, of bounded size, strict UTF-8.
"""

from __future__ import annotations

import os
import stat
from bisect import bisect_right
from pathlib import Path

from herdsman.litmus.base.errors import InputError

#: The largest inputs herdsman reads, in bytes.  A larger file is refused at once, having
#: read one byte past the limit at most, so that a wrong argument (a huge file, a log
#: given as a test) costs neither memory nor time.  herd's tests are about 1 KB, the C
#: programs of its users tens of KB, its cat files a few KB, its logs a few MB.
MAX_SOURCE_BYTES = 1 << 20  # a litmus test or a C program
MAX_MODEL_BYTES = 1 << 20  # a cat file
MAX_LIST_BYTES = 64 << 20  # an index file (@file), a -names, -excl, -conds or -conf file
MAX_LOG_BYTES = 256 << 20  # a herd7 log or a verdict table

#: What a file that is not a regular one is, for the message refusing it.
_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


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


def read_bytes(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path``: a missing or unreadable file, a directory,
    a FIFO, a device or a socket, and a file of more than ``limit`` bytes (``what`` names
    such files in the message) are InputErrors.  A FIFO is refused without waiting for a
    writer (it is opened non-blocking), and at most ``limit + 1`` bytes are ever read."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, ValueError):  # ValueError: a NUL byte in the name
        raise InputError(name, 0, 0, "no such file") from None
    except PermissionError:
        raise InputError(name, 0, 0, "permission denied") from None
    except IsADirectoryError:
        raise InputError(name, 0, 0, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(name, 0, 0, f"cannot read file: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    mode = st.st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise InputError(name, 0, 0, "is a directory, expected a file")
        kind = next((text for test, text in _SPECIAL if test(mode)), "a special file")
        raise InputError(name, 0, 0, f"not a regular file ({kind})")
    try:  # the file's size, or one byte past the limit (it may grow): not a
        # limit-sized buffer for every small file
        data = _read_upto(fd, min(st.st_size, limit) + 1)
        if len(data) == st.st_size + 1 and len(data) <= limit:
            data += _read_upto(fd, limit + 1 - len(data))  # it grew while read
    except OSError as exc:
        raise InputError(name, 0, 0, f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        size = f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit} bytes"
        raise InputError(name, 0, 0, f"file too large: herdsman reads {what} of at most {size}")
    return data


def _read_upto(fd: int, n: int) -> bytes:
    """``n`` bytes read from ``fd``, fewer at its end (plain reads: no file object)."""
    chunks: list[bytes] = []
    got = 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def decode_utf8(data: bytes, path: str) -> str:
    """``data`` as strict UTF-8, ``\\r\\n`` as ``\\n``; a bad byte is an InputError at its
    line and column."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8", errors="replace")
        line = good.count("\n") + 1
        col = len(good) - (good.rfind("\n") + 1) + 1
        byte = data[exc.start]
        raise InputError(
            path, line, col, f"invalid UTF-8 byte 0x{byte:02x} (herdsman reads UTF-8 text)"
        ) from None
    return text.replace("\r\n", "\n")


def read_text(path: str | Path, limit: int, what: str) -> str:
    """The text of the regular file ``path`` (see :func:`read_bytes` and
    :func:`decode_utf8`): every text file herdsman reads is read here."""
    return decode_utf8(read_bytes(path, limit, what), str(path))


def read_source(path: str | Path, limit: int = MAX_SOURCE_BYTES) -> Source:
    """Read a test file or a C program (at most ``limit`` bytes) as strict UTF-8;
    unreadable files, special files, large files and bad bytes are InputErrors."""
    return Source(read_text(path, limit, "litmus tests and C programs"), str(path))
