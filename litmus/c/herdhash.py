"""herd's hash of a C litmus test (the ``Hash=`` line herd7 prints for it).

herd digests a C test with the same scheme as an assembly one (``litmus/hash.py``): MD5 of
the concatenated MD5 digests of the memory-type info keys (usually nothing), the init
section, the code and the observed locations.  What differs is the code: herd does not
print a C program from its syntax tree for the hash.  It reads the program section a second
time with a *shallow* lexer that keeps each thread function's body as the raw characters
between its outer braces (comments, blank lines and indentation included) and only parses
the function headers.  Each function is then printed back as::

    P<i>(<type>* <name>, <type>* <name>) {\\n<raw body>\\n}\\n

where ``<type>`` is the parameter's declared type with its outermost ``*`` removed, as
herd's C type printer writes it (``const int *x`` becomes ``int const* x``, ``atomic_int
*x`` and ``_Atomic int *x`` become ``_Atomic int* x``, ``int **p`` becomes ``int** p``);
whatever sits between ``)`` and ``{`` (a ``// comment``) and a leading ``void`` are
dropped.  A brace block outside any function is printed ``{<raw text>}\\n\\n``.  Every
printed function is a one-cell column of herd's program table (``Misc.string_of_prog``), so
the code text is `` P0(...) {...} | P1(...) {...} ;\\n``.

The init digest covers the init section only (herd adds the parameter bindings to the
init state *after* hashing), and the observed locations are those of the condition plus
``locations [...]``, exactly as for the other architectures.

Consequence: two C tests differing only in the spacing or comments of a thread body hash
differently (unlike assembly tests, whose instructions are printed canonically).

This reproduces herd7's ``Hash=`` for every C test of herdtools7 that herdsman reads (91 of
its 93 C tests with expected outputs; ``tests/test_c_herdhash.py``).  Known differences:
bodies come from the test text with ``\\r\\n`` already turned into ``\\n`` (herd keeps the
``\\r``); init arrays (``int t[2]``, printed without value by herd) and ``locations``
items with an index are not represented; brace blocks outside functions are hashed by
:func:`scan_program` but :func:`c_litmus_hash` only sees the parsed test's threads.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from herdsman.litmus.base.ir import Loc, RegLoc, SymRegLoc
from herdsman.litmus.base.source import Source
from herdsman.litmus.hash import loc_key, string_of_prog
from herdsman.litmus.test import InitItem

if TYPE_CHECKING:
    from herdsman.litmus.c.litmus_c import CLitmus

# ----------------------------------------------------------------------------- the model


@dataclass(frozen=True, slots=True)
class CParam:
    """A thread function parameter: ``ctype`` is herd's text of the pointed-to type (the
    declared type minus its outermost ``*``), ``name`` the parameter name."""

    ctype: str
    name: str


@dataclass(frozen=True, slots=True)
class CFunction:
    """Thread function ``P<proc>``: its parameters and its body as written (the raw text
    between its outer braces)."""

    proc: int
    params: tuple[CParam, ...]
    body: str


@dataclass(frozen=True, slots=True)
class CGlobal:
    """A brace block of the program section outside any function (raw inner text)."""

    text: str


CCodeItem = CFunction | CGlobal


def function_text(item: CCodeItem) -> str:
    """herd's text of one item of the program section, for the hash."""
    if isinstance(item, CGlobal):
        return "{" + item.text + "}\n\n"
    params = ", ".join(f"{p.ctype}* {p.name}" for p in item.params)
    return f"P{item.proc}({params}) {{\n{item.body}\n}}\n"


def code_digest_text(code: Sequence[CCodeItem]) -> str:
    """The program as herd prints it for the hash (one row, one column per item)."""
    return string_of_prog([[function_text(it)] for it in code])


def init_digest_text(init: Iterable[InitItem]) -> str:
    """The init section as herd prints it for the hash: items sorted by location,
    repeated locations once, ``[TYPE ][*]loc=value`` with values as written."""
    seen: set[tuple[int, int, str, int]] = set()
    out: list[str] = []
    for it in sorted(init, key=lambda i: loc_key(i.loc)):
        k = loc_key(it.loc)
        if k in seen:
            continue
        seen.add(k)
        loc = f"{it.loc.tid}:{it.loc.reg}" if isinstance(it.loc, RegLoc) else _name(it.loc)
        v = it.text if it.value is not None else "0"
        star = "*" if it.pointer else ""
        typ = f"{it.ctype} " if it.ctype else ""
        out.append(f"{typ}{star}{loc}={v}")
    return "; ".join(out)


def _name(loc: Loc) -> str:
    return loc.name if not isinstance(loc, RegLoc) else str(loc)


def observed_digest_text(observed: Iterable[Loc]) -> str:
    """The observed locations as herd prints them for the hash (sorted, ``"; "``)."""
    out = []
    for loc in sorted(set(observed), key=loc_key):
        if isinstance(loc, RegLoc):
            out.append(f"{loc.tid}:{loc.reg}")
        elif isinstance(loc, SymRegLoc):
            out.append(f"%{loc.name}")
        else:
            out.append(loc.name)
    return "; ".join(out)


_INFO_KEYS = ("memorytype", "mt", "cachetype")


def _md5(s: str) -> bytes:
    return hashlib.md5(s.encode("utf-8")).digest()


def c_test_hash(
    init: Iterable[InitItem],
    code: Sequence[CCodeItem],
    observed: Iterable[Loc],
    info: Sequence[tuple[str, str]] = (),
) -> str:
    """herd's hash of a C litmus test (32 lower-case hex digits).

    ``init``: the items of the init section (not the parameter bindings); ``code``: the
    thread functions (and global blocks) in program order, as :func:`scan_program` reads
    them; ``observed``: the condition's locations plus the ``locations [...]`` items;
    ``info``: the test's ``key=value`` lines (a ``Hash`` key is returned as is)."""
    for k, v in info:
        if k == "Hash":
            return v
    pairs = sorted((k.lower(), v) for k, v in info if k.lower() in _INFO_KEYS)
    d_info = _md5("".join(f"{k}={v}" for k, v in pairs)) if pairs else b""
    digest = (
        d_info
        + _md5(init_digest_text(init))
        + _md5(code_digest_text(code))
        + _md5(observed_digest_text(observed))
    )
    return hashlib.md5(digest).hexdigest()


def c_litmus_hash(test: CLitmus) -> str:
    """herd's hash of a parsed C litmus test (its threads' source text read again as
    herd's shallow parser does)."""
    code: list[CCodeItem] = []
    for th in test.threads:
        # the thread's text at its line, so that errors point into the test file
        src = Source("\n" * (th.line - 1) + th.text, test.path)
        code.extend(scan_program(src, (th.line - 1, len(src.text))))
    return c_test_hash(test.init, code, test.observed_locations(), test.info)


# ----------------------------------------------------------------------------- shallow read

# herd's C lexer: blanks, C comments, names, P<n>, punctuation; '{' reads a raw body
_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+)|(?P<lc>//[^\n]*)|(?P<bc>/\*)"
    r"|(?P<name>[A-Za-z_]+[A-Za-z0-9_]*)|(?P<num>-?[0-9]+)|(?P<p>[(){}*,<>;:])|(?P<bad>.)"
)
_PROC = re.compile(r"P([0-9]{1,9})")
# names herd's lexer makes type tokens of (lib/CLexer.mll ``tr_name``)
_BASE_TYPES = frozenset(
    (
        "int8_t uint8_t int16_t uint16_t int32_t uint32_t int64_t uint64_t __int128_t "
        "__uint128_t __int128 __uint128 intptr_t uintptr_t mtx_t spinlock_t atomic_t "
        "char int long"
    ).split()
)
# the memory map that may close the program section (herd's ``scopes_and_memory_map``)
_SECTION_END = frozenset(("regions", "scopes"))

# A parsed type: ("base", name) | ("volatile" | "const" | "atomic" | "ptr", inner)
_Type = tuple


def dump_type(t: _Type) -> str:
    """herd's printing of a C type (``CType.dump``)."""
    kind, inner = t
    if kind == "base":
        return str(inner)
    if kind == "ptr":
        return dump_type(inner) + "*"
    if kind == "volatile" and inner[0] == "base":
        return f"volatile {inner[1]}"
    if kind == "atomic" and inner[0] == "base":
        return f"_Atomic {inner[1]}"
    if kind == "atomic":
        return f"_Atomic ({dump_type(inner)})"
    return f"{dump_type(inner)} {kind}"  # volatile / const after the type


class _Lexer:
    """Tokens of a program section (absolute offsets into ``src``)."""

    def __init__(self, src: Source, start: int, end: int) -> None:
        self.src = src
        self.pos = start
        self.end = end
        self.peeked: tuple[str, str, int] | None = None

    def next(self) -> tuple[str, str, int]:
        """The next token (kind, text, offset); kind ``eof`` at the end."""
        if self.peeked is not None:
            tok, self.peeked = self.peeked, None
            return tok
        text = self.src.text
        while self.pos < self.end:
            m = _TOKEN.match(text, self.pos, self.end)
            assert m is not None  # the 'bad' alternative matches any character
            kind = m.lastgroup or "bad"
            at = self.pos
            self.pos = m.end()
            if kind in ("ws", "lc"):
                continue
            if kind == "bc":
                close = text.find("*/", self.pos, self.end)
                if close < 0:
                    raise self.src.error(at, "unterminated comment '/*'")
                self.pos = close + 2
                continue
            return kind, m.group(), at
        return "eof", "", self.end

    def peek(self) -> tuple[str, str, int]:
        if self.peeked is None:
            self.peeked = self.next()
        return self.peeked

    def body(self, open_at: int) -> str:
        """The raw text after the ``{`` at ``open_at`` up to its matching ``}`` (braces
        counted as characters, like herd: braces in comments count too)."""
        text = self.src.text
        depth = 0
        i = open_at + 1
        while i < self.end:
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    self.pos = i + 1
                    self.peeked = None
                    return text[open_at + 1 : i]
                depth -= 1
            i += 1
        raise self.src.error(open_at, "unterminated '{': end of the program inside a body")


def scan_program(src: Source, span: tuple[int, int]) -> tuple[CCodeItem, ...]:
    """The thread functions and global blocks of the program section ``span`` of ``src``,
    read as herd's shallow C parser does (headers parsed, bodies kept as written)."""
    lex = _Lexer(src, span[0], span[1])
    out: list[CCodeItem] = []
    while True:
        kind, text, at = lex.next()
        if kind == "eof" or (kind == "name" and text in _SECTION_END):
            return tuple(out)
        if text == "{":
            out.append(CGlobal(lex.body(at)))
            continue
        if text == "void":
            if lex.peek()[1] == "*":
                lex.next()
            kind, text, at = lex.next()
        m = _PROC.fullmatch(text) if kind == "name" else None
        if m is None:
            raise src.error(at, f"expected a thread function 'P<n>(...)', found {_show(text)}")
        proc = int(m.group(1))
        _expect(lex, "(")
        params: list[CParam] = []
        if lex.peek()[1] != ")":
            while True:
                params.append(_param(lex, proc))
                if lex.peek()[1] != ",":
                    break
                lex.next()
        _expect(lex, ")")
        kind, text, at = lex.next()
        if text != "{":
            raise src.error(at, f"expected '{{' to open the body of P{proc}, found {_show(text)}")
        out.append(CFunction(proc, tuple(params), lex.body(at)))


def _show(text: str) -> str:
    return f"'{text}'" if text else "end of the program"


def _expect(lex: _Lexer, what: str) -> None:
    kind, text, at = lex.next()
    if text != what:
        raise lex.src.error(at, f"expected '{what}', found {_show(text)}")


def _param(lex: _Lexer, proc: int) -> CParam:
    """``TYPE *name``: the declared type must end with ``*`` (it is stripped)."""
    t = _type(lex)
    kind, text, at = lex.next()
    if kind != "name":
        raise lex.src.error(at, f"expected a parameter name, found {_show(text)}")
    if t[0] != "ptr":
        raise lex.src.error(at, f"parameter {text} of function P{proc} is not a pointer")
    return CParam(dump_type(t[1]), text)


def _type(lex: _Lexer) -> _Type:
    """A type: a prefix form then any ``*``, ``volatile``, ``const`` after it."""
    kind, text, at = lex.next()
    if text in ("_Atomic", "volatile", "const"):
        inner = _base(lex)
        t: _Type = ({"_Atomic": "atomic"}.get(text, text), inner)
    elif text == "(":
        t = _type(lex)
        _expect(lex, ")")
    else:
        t = _base0(lex, kind, text, at)
    while lex.peek()[1] in ("*", "volatile", "const"):
        word = lex.next()[1]
        t = ("ptr", t) if word == "*" else (word, t)
    return t


def _base(lex: _Lexer) -> _Type:
    kind, text, at = lex.next()
    if text == "(":
        t = _type(lex)
        _expect(lex, ")")
        return t
    return _base0(lex, kind, text, at)


def _base0(lex: _Lexer, kind: str, text: str, at: int) -> _Type:
    if text == "atomic_int":
        return ("atomic", ("base", "int"))
    if text == "atomic" and lex.peek()[1] == "<":
        lex.next()
        _, name, nat = lex.next()
        if name not in _BASE_TYPES:
            raise lex.src.error(nat, f"expected a type inside 'atomic<...>', found {_show(name)}")
        _expect(lex, ">")
        return ("atomic", ("base", name))
    if text == "struct":
        _, name, nat = lex.next()
        if name != "srcu_struct":
            raise lex.src.error(nat, f"unknown struct type {_show(name)}")
        return ("base", "struct srcu_struct")
    if text in _BASE_TYPES or text == "void":
        return ("base", text)
    raise lex.src.error(at, f"expected a parameter type, found {_show(text)}")


__all__ = [
    "CParam",
    "CFunction",
    "CGlobal",
    "CCodeItem",
    "c_litmus_hash",
    "c_test_hash",
    "code_digest_text",
    "dump_type",
    "function_text",
    "init_digest_text",
    "observed_digest_text",
    "scan_program",
]
