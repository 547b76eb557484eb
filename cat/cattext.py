"""A cat file's text around parsing: comments blanked out, line and column of an offset.

Comments (nested ``(* *)``, ``//`` and ``#`` to end of line) become spaces, every other
character keeping its place so that positions stay exact; :func:`not_utf8` is the error for
a file whose bytes are not UTF-8 text.
"""

from __future__ import annotations

from herdsman.cat.errors import ModelInputError


def strip_comments(text: str, path: str) -> str:
    """Blank out comments, keeping newlines and the columns of everything else."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':  # strings cannot contain comments
            j = text.find('"', i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "(" and text.startswith("(*", i):
            start = i
            depth = 0
            while i < n:
                if text.startswith("(*", i):
                    depth += 1
                    out[i] = out[i + 1] = " "
                    i += 2
                elif text.startswith("*)", i):
                    depth -= 1
                    out[i] = out[i + 1] = " "
                    i += 2
                    if depth == 0:
                        break
                else:
                    if text[i] != "\n":
                        out[i] = " "
                    i += 1
            if depth:
                line, col = line_col(text, start)
                raise ModelInputError(
                    path, line, col, "unterminated comment", line_text(text, line)
                )
            continue
        if c == "#" or (c == "/" and text.startswith("//", i)):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        i += 1
    return "".join(out)


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def end_position(clean: str) -> tuple[int, int]:
    """Just after the last token (where an unexpected end of file is reported)."""
    end = len(clean.rstrip())
    if end == 0:
        return 1, 1
    line, col = line_col(clean, end - 1)
    return line, col + 1


def line_text(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def not_utf8(path: str, data: bytes, bad: int) -> ModelInputError:
    """The error for a file that is not UTF-8 text, at its first bad byte (``data[bad]``)."""
    start = max(data.rfind(b"\n", 0, bad), data.rfind(b"\r", 0, bad)) + 1
    # line breaks as parse_file counts them: \n, \r\n and a lone \r
    breaks = data.count(b"\n", 0, bad) + data.count(b"\r", 0, bad) - data.count(b"\r\n", 0, bad)
    line = breaks + 1
    col = len(data[start:bad].decode("utf-8")) + 1
    return ModelInputError(
        path, line, col, f"cannot read model: not UTF-8 text (byte 0x{data[bad]:02x})"
    )
