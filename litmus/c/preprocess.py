"""Preprocess a C file with pcpp (pure Python), using herdsman's own system headers.

``#include <pthread.h>`` and the other system headers come from ``litmus/c/headers``
(declarations only); user headers from the file's folder and the ``-I`` folders.  The
output keeps ``#line`` directives, so pycparser's positions point into the user's file.
Every preprocessor error (missing header, ``#error``, malformed directive) is an
:class:`InputError` at its line.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from pcpp import Preprocessor

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import MAX_SOURCE_BYTES, read_text

#: herdsman's system headers.
HEADERS = Path(__file__).with_name("headers")

#: The preprocessor's bounds, so that it ends quickly on any input (each an error):
#: ``#include`` nesting (GCC's limit), ``#include``\ s in all, bytes of the files they
#: read in all, and tokens produced by macro expansions in all (macros that expand
#: exponentially reach it in a few seconds).
MAX_INCLUDE_DEPTH = 200
MAX_INCLUDES = 10_000
MAX_INCLUDED_BYTES = 16 << 20
MAX_EXPANDED_TOKENS = 1 << 20


class _Stop(Exception):
    """A preprocessor error, raised from pcpp's hooks (turned into InputError)."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.message = message


class _Pcpp(Preprocessor):
    """pcpp with errors raised at once instead of printed."""

    def __init__(self) -> None:
        super().__init__()
        self.line_directive = "#line"
        self._depth = 0  # #includes being read now, one inside the other
        self._includes = 0  # #includes read so far
        self._included = 0  # bytes they read
        self._expanded = 0  # tokens macro expansions produced

    def include(self, tokens, original_line):  # noqa: ANN001, ANN201 (pcpp's generator)
        """pcpp's ``#include``, within :data:`MAX_INCLUDE_DEPTH` and :data:`MAX_INCLUDES`."""
        self._depth += 1
        self._includes += 1
        d = self.lastdirective
        if self._depth > MAX_INCLUDE_DEPTH:
            raise _Stop(
                str(d.source), int(d.lineno), f"#include nested more than {MAX_INCLUDE_DEPTH} deep"
            )
        if self._includes > MAX_INCLUDES:
            raise _Stop(str(d.source), int(d.lineno), f"more than {MAX_INCLUDES} #includes")
        try:
            yield from super().include(tokens, original_line)
        finally:
            self._depth -= 1

    def expand_macros(self, tokens, expanding_from=[]):  # noqa: ANN001, ANN201, B006 (pcpp's)
        """pcpp's expansion, within :data:`MAX_EXPANDED_TOKENS` produced in all."""
        out = super().expand_macros(tokens, expanding_from)
        if expanding_from:  # a macro's replacement, expanded
            self._expanded += len(out)
            if self._expanded > MAX_EXPANDED_TOKENS:
                where = self.lastdirective if not tokens else tokens[0]
                raise _Stop(
                    str(where.source),
                    int(where.lineno or 0),
                    f"macro expansion of {expanding_from[0]} produces more than "
                    f"{MAX_EXPANDED_TOKENS} tokens",
                )
        return out

    def on_error(self, file, line, msg):  # noqa: ANN001, ANN201 (pcpp's hook)
        raise _Stop(str(file), int(line or 0), str(msg))

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):  # noqa: ANN001, ANN201
        d = self.lastdirective
        what = "malformed #include" if is_malformed else f"header not found: {includepath}"
        raise _Stop(str(d.source), int(d.lineno), what)

    def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):  # noqa: ANN001, ANN201
        text = "".join(t.value for t in toks).strip()
        if directive.value == "error":
            raise _Stop(str(directive.source), int(directive.lineno), f"#error {text}")
        if directive.value == "warning":
            return None  # dropped
        if directive.value == "pragma":
            return None
        raise _Stop(
            str(directive.source),
            int(directive.lineno),
            f"unknown preprocessor directive #{directive.value}",
        )

    def on_comment(self, tok):  # noqa: ANN001, ANN201
        return False  # comments are removed

    def on_file_open(self, is_system_include, includepath):  # noqa: ANN001, ANN201
        """A header read as every input is (:func:`litmus.source.read_text`: no FIFO or
        device, at most 1 MB); pcpp probes each include folder, so a path that is no file
        there is an OSError (try the next folder)."""
        if not os.path.exists(includepath) or os.path.isdir(includepath):
            raise FileNotFoundError(includepath)
        text = read_text(includepath, MAX_SOURCE_BYTES, "litmus tests and C programs")
        self._included += len(text)
        if self._included > MAX_INCLUDED_BYTES:
            d = self.lastdirective
            raise _Stop(
                str(d.source),
                int(d.lineno),
                f"#includes read more than {MAX_INCLUDED_BYTES >> 20} MB",
            )
        return io.StringIO(text.removeprefix("\ufeff"))


#: GCC's spellings of C keywords, the extensions that change nothing herdsman models
#: (``__attribute__``, ``__extension__``, ``__builtin_expect``, ``__builtin_prefetch``)
#: and GCC's predefined memory orders: predefined macros, so the parser reads the C it
#: knows (``typeof``, ``_Thread_local``) at the same positions.
GNU_MACROS = (
    "__attribute__(x)",
    "__attribute(x)",
    "__extension__",
    "__inline__ inline",
    "__inline inline",
    "__restrict__ restrict",
    "__restrict restrict",
    "__volatile__ volatile",
    "__const__ const",
    "__signed__ signed",
    "__typeof__ typeof",
    "__typeof typeof",
    "__alignof__ _Alignof",
    "__thread _Thread_local",
    "__auto_type auto",
    "__builtin_expect(e, c) (e)",
    "__builtin_prefetch(...) ((void)0)",
    "__ATOMIC_RELAXED 0",
    "__ATOMIC_CONSUME 1",
    "__ATOMIC_ACQUIRE 2",
    "__ATOMIC_RELEASE 3",
    "__ATOMIC_ACQ_REL 4",
    "__ATOMIC_SEQ_CST 5",
    "__STDC__ 1",
    "__STDC_VERSION__ 201710L",
)


def preprocess(
    text: str,
    path: str,
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[str] = (),
) -> str:
    """The preprocessed text of ``text`` (the contents of ``path``): plain C with
    ``#line`` directives.  ``defines`` maps names to values (``-D NAME=VALUE``; an empty
    value defines NAME as 1, like cc)."""
    pp = _Pcpp()
    folder = os.path.dirname(path)
    if folder:
        pp.add_path(folder)
    for d in include_dirs:
        pp.add_path(str(d))
    pp.add_path(str(HEADERS))
    for macro in GNU_MACROS:
        pp.define(macro)
    for name, value in (defines or {}).items():
        if not name.replace("_", "a").isalnum() or name[0].isdigit():
            raise InputError(path, 0, 0, f"bad macro name in -D: {name!r}")
        pp.define(f"{name} {value if value != '' else '1'}")
    _check_directives(text, path)
    out = io.StringIO()
    try:
        pp.parse(text, path)
        pp.write(out)
    except _Stop as exc:
        raise InputError(_same(exc.path, path), exc.line, 0, exc.message) from None
    except (IndexError, ValueError, TypeError) as exc:  # pcpp on a directive it cannot read
        raise InputError(path, 0, 0, f"malformed preprocessor input ({exc})") from None
    return _LINE.sub(lambda m: f'#line {m.group(1)} "{_same(m.group(2), path)}"', out.getvalue())


_LINE = re.compile(r'^#line (\d+) "(.*)"$', re.M)
_NAMED = re.compile(r"^[ \t]*#[ \t]*(ifdef|ifndef|undef|define)\b(.*)$", re.M)


def _check_directives(text: str, path: str) -> None:
    """Directives that need a macro name and lack one (pcpp would fail on them)."""
    for m in _NAMED.finditer(text):
        rest = m.group(2).lstrip()
        if not rest or not (rest[0].isalpha() or rest[0] == "_"):
            line = text.count("\n", 0, m.start()) + 1
            col = m.start(1) - m.start() + 1
            raise InputError(path, line, col, f"#{m.group(1)} needs a macro name")


def _same(name: str, path: str) -> str:
    """``path`` as given when pcpp's ``name`` (made relative) is that file."""
    if name in ("", "None") or name == path:
        return path
    if os.path.abspath(name) == os.path.abspath(path):
        return path
    return name
