"""herd's ``-conds``: replace the final condition of a test by another one.

herd parses the replacement with its condition grammar and substitutes it for the test's
final condition only (``locations`` and ``filter`` stay); the test's hash is still computed
from the original test (``lib/genParser.ml``).  We splice the new condition into the test's
text where herd's splitter (``lib/splitter.mll``) would find the condition, and parse the
result with the ordinary litmus parser.
"""

from __future__ import annotations

import re

#: Keywords that start the condition part (herd's splitter), longest first.
_COND_START = re.compile(
    r"(?<![\w~])(final|forall|~\s*exists|not\s+exists|exists|cases|observed|Observed"
    r"|locations|filter)(?![\w])"
)
_CONSTR_START = re.compile(
    r"(?<![\w~])(final|forall|~\s*exists|not\s+exists|exists|cases|observed|Observed)(?![\w])"
)


def _skip(text: str, i: int, strings: bool = True) -> int:
    """Index after a ``(* *)`` comment or ``"string"`` starting at ``i`` (else ``i``)."""
    if text.startswith("(*", i):
        depth, j = 0, i
        while j < len(text):
            if text.startswith("(*", j):
                depth += 1
                j += 2
            elif text.startswith("*)", j):
                depth -= 1
                j += 2
                if depth == 0:
                    return j
            else:
                j += 1
        return len(text)
    if strings and text[i] == '"':
        k = text.find('"', i + 1)
        return len(text) if k < 0 else k + 1
    return i


_OPENERS = re.compile(r'\(\*|"')


def _find_outside(text: str, start: int, pattern: re.Pattern[str]) -> re.Match[str] | None:
    """First match of ``pattern`` at or after ``start`` outside comments and strings."""
    i = start
    while i < len(text):
        m = pattern.search(text, i)
        o = _OPENERS.search(text, i)
        if m is None:
            return None
        if o is None or m.start() < o.start():
            return m
        i = _skip(text, o.start())
    return None


def _init_end(text: str) -> int:
    """Index just after the init section ``{ ... }`` (balanced braces).  Quotes are not
    strings here: herd skips unterminated doc strings before the init."""
    i = text.find("\n") + 1  # the header line never holds the init
    while i < len(text):
        j = _skip(text, i, strings=False)
        if j != i:
            i = j
            continue
        if text[i] == "{":
            depth = 0
            while i < len(text):
                if text[i] == "{":
                    depth += 1
                elif text[i] == "}":
                    depth -= 1
                    if depth == 0:
                        return i + 1
                i += 1
            return len(text)
        i += 1
    return len(text)


def condition_span(text: str) -> tuple[int, int]:
    """Where the final condition (quantifier and proposition) lies in a test's text,
    after any ``locations [...]`` and ``filter`` parts, up to ``<<`` or the end."""
    end = text.find("<<")
    end = len(text) if end < 0 else end
    start_prog = _init_end(text)
    m = _find_outside(text, start_prog, _COND_START)
    if m is None:
        return end, end
    i = m.start()
    if m.group(1) == "locations":
        close = text.find("]", m.end())
        i = len(text) if close < 0 else close + 1
        m2 = re.compile(r"\s*(filter)\b").match(text, i)
        if m2 is None:  # the constraint follows (a bare "(p)" one starts after blanks)
            m3 = _find_outside(text, i, _CONSTR_START)
            i = m3.start() if m3 is not None else len(text) - len(text[i:].lstrip())
            return min(i, end), end
        m = m2
    if m.group(1) == "filter":
        m3 = _find_outside(text, m.end(), _CONSTR_START)
        if m3 is None:
            return end, end
        i = m3.start()
    return min(i, end), end


def replace_condition(text: str, condition: str) -> str:
    """``text`` with its final condition replaced by ``condition``."""
    start, end = condition_span(text)
    return text[:start] + condition.strip() + "\n" + text[end:]
