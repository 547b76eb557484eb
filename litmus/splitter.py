"""Cut a litmus test into header, info lines, init, program and condition (herd's splitter).

This follows herd's ``lib/splitter.mll`` token by token, including its quirks (it is a
longest-match lexer): the first line is ``ARCH NAME [(TEXNAME)] ["doc"] [;]`` with the doc
string possibly starting on the next line; between it and ``{`` every ``key=value`` line is
an info line and anything else is skipped; the init runs to its ``}`` (braces inside it
nest); the program runs to the first whole-word condition keyword (comments and strings
skipped); the condition runs to ``<<`` or the end of the file.  Only offsets are
returned: the parts are parsed by :mod:`litmus.state` and :mod:`litmus.table`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from herdsman.litmus.base.arch import ARCHS, parsed_archs
from herdsman.litmus.base.source import Source

HEADER = re.compile(
    r"[ \t]*(?P<arch>[A-Za-z0-9_]+)[ \t]+(?P<name>[A-Za-z0-9_/.\-+\[\]]+)[ \t]*"
    r"(?:\((?P<tex>[A-Za-z][A-Za-z0-9_/.\-]*)\)[ \t]*)?"
    r"(?:\n?[ \t]*\"(?P<doc>[^\"]*)\"[ \t]*)?;?"
)
_KEY_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_/.\-]*)[ \t]*=[ \t]*([^\n]*)\n")
# candidates for the end of the program: a comment, a string, or a condition keyword not
# followed by a name character (whether it starts a token is checked by _in_name); each
# alternative starts with its own literal, so that the search skips the other characters
# at once (by the set of those first characters)
_KEY_LINES = re.compile(rf"(?:\n|{_KEY_LINE.pattern})*")
_KEYWORDS = ("final", "forall", "exists", "cases", "observed", "Observed", "locations", "filter")
_PROG_STOP = re.compile(
    r"\(\*|\"|~[ \t]*exists|" + "|".join(k + r"(?![A-Za-z0-9_/.\-])" for k in _KEYWORDS)
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.-")
_COND_END = re.compile(r"\(\*|<<")
_COMMENT_MARK = re.compile(r"\(\*|\*\)")
_BRACE = re.compile(r"[{}]")


@dataclass(frozen=True, slots=True)
class Split:
    """Where the parts of a test are (character offsets into the source text)."""

    arch: str
    name: str
    name_at: int
    texname: str | None
    doc: str | None
    info: tuple[tuple[str, str], ...]
    init: tuple[int, int]  # between the braces
    prog: tuple[int, int]
    cond: tuple[int, int]  # (end, end) when the test has no condition


def skip_comment(src: Source, start: int) -> int:
    """Offset just after the (possibly nested) ``(* ... *)`` comment opening at ``start``."""
    text = src.text
    depth = 0
    pos = start
    while True:
        m = _COMMENT_MARK.search(text, pos)
        if m is None:
            raise src.error(start, "unterminated comment '(*'")
        depth += 1 if m.group() == "(*" else -1
        pos = m.end()
        if depth == 0:
            return pos


def split(src: Source) -> Split:
    """Find the parts of ``src`` (raises InputError when the layout is broken)."""
    text = src.text
    if not text.strip():
        raise src.error(0, "empty file (expected a litmus test)")
    m = HEADER.match(text)
    if m is None:
        raise src.error(0, "first line must be 'ARCH NAME' (e.g. 'PPC MP')")
    arch = m.group("arch")
    if arch not in ARCHS or not ARCHS[arch].parsed:
        at = m.start("arch")
        if arch == "C":  # litmus/c reads them, for the commands that run tests
            raise src.error(
                at,
                "C litmus tests are read by 'herdsman run', 'herd7', 'validate' and 'verify'; "
                "this command reads PPC and X86 tests",
            )
        if arch in ARCHS:
            only = " and ".join(parsed_archs())
            raise src.error(
                at, f"architecture '{arch}' is not supported (herdsman reads {only} and C tests)"
            )
        raise src.error(at, f"'{arch}' is not an implemented architecture")
    name = m.group("name")
    if name == "--":
        name = os.path.splitext(os.path.basename(src.path))[0]
    elif name.endswith(".litmus"):
        name = name[: -len(".litmus")]
    info, init, prog_start = find_init(src, m.end())
    prog_end, has_cond = _find_condition(src, prog_start)
    cond_end = find_condition_end(src, prog_end) if has_cond else prog_end
    return Split(
        arch=arch,
        name=name,
        name_at=m.start("name"),
        texname=m.group("tex"),
        doc=m.group("doc"),
        info=info,
        init=init,
        prog=(prog_start, prog_end),
        cond=(prog_end, cond_end),
    )


def find_init(src: Source, pos: int) -> tuple[tuple[tuple[str, str], ...], tuple[int, int], int]:
    """Info lines up to ``{``, the init span and where the program starts."""
    text = src.text
    n = len(text)
    info: list[tuple[str, str]] = []
    while True:
        block = _KEY_LINES.match(text, pos)  # newlines and info lines, read at once
        end = block.end() if block else pos
        if end > pos:
            info.extend(_KEY_LINE.findall(text, pos, end))
            pos = end
        if pos >= n:
            raise src.error(n, "missing init section: expected '{' before the program")
        c = text[pos]
        if c == "\n":
            pos += 1
            continue
        if c == "{":
            close = _init_close(text, pos + 1)
            if close < 0:
                raise src.error(pos, "unterminated init section: missing '}'")
            return tuple(info), (pos + 1, close), close + 1
        key = _KEY_LINE.match(text, pos)
        if key is not None:
            info.append((key.group(1), key.group(2)))
            pos = key.end()
            continue
        run_end = _run_end(text, pos)
        if text.startswith("(*", pos) and run_end - pos <= 2:
            pos = skip_comment(src, pos)
        else:
            pos = run_end


def _init_close(text: str, pos: int) -> int:
    """The ``}`` closing the init section whose text starts at ``pos`` (braces inside it
    nest: an array's values ``{1,2}``), -1 when there is none."""
    close = text.find("}", pos)
    opened = text.find("{", pos, close)
    if opened < 0:  # the usual init section: no inner brace
        return close
    depth = 0
    for m in _BRACE.finditer(text, pos):
        if m.group() == "{":
            depth += 1
        elif depth == 0:
            return m.start()
        else:
            depth -= 1
    return -1


def _run_end(text: str, pos: int) -> int:
    """End of the run of characters other than newline and ``{`` starting at ``pos``."""
    nl = text.find("\n", pos)
    br = text.find("{", pos)
    ends = [e for e in (nl, br) if e >= 0]
    return min(ends) if ends else len(text)


def _find_condition(src: Source, pos: int) -> tuple[int, bool]:
    """Offset of the first condition keyword after the program (or the end of file)."""
    text = src.text
    while True:
        m = _PROG_STOP.search(text, pos)
        if m is None:
            return len(text), False
        tok = m.group()
        if tok == "(*":
            pos = skip_comment(src, m.start())
        elif tok == '"':
            close = text.find('"', m.end())
            if close < 0:
                raise src.error(m.start(), "unterminated string '\"'")
            pos = close + 1
        elif tok[0] == "~" or not _in_name(text, m.start()):
            return m.start(), True
        else:
            pos = m.end()


def _in_name(text: str, pos: int) -> bool:
    """Whether ``pos`` is inside a name token of herd's splitter (names start with a
    letter and continue with letters, digits, ``_ / . -``)."""
    i = pos - 1
    while i >= 0 and text[i] in _NAME_CHARS:
        if text[i].isalpha():
            return True
        i -= 1
    return False


def find_condition_end(src: Source, pos: int) -> int:
    """Where the condition stops: ``<<`` (outside comments) or the end of the file."""
    text = src.text
    while True:
        m = _COND_END.search(text, pos)
        if m is None:
            return len(text)
        if m.group() == "<<":
            return m.start()
        pos = skip_comment(src, m.start())
