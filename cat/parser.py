"""Parse cat files into :mod:`cat.ast` (lark LALR grammar ``cat/cat.lark``).

Comments are blanked out first (:mod:`cat.cattext`), keeping every other character in place
so that positions stay exact; the tree becomes the AST in :mod:`cat.cattree`.  A post-lexer
tells the cartesian product ``S1 * S2`` from the closure ``r*`` by the next token, as herd's
parser does.  Every syntax error becomes an :class:`litmus.errors.InputError` with the source line
and a caret.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.tree import Tree

from herdsman.cat import ast as A
from herdsman.cat.cattext import end_position, line_text, not_utf8, strip_comments
from herdsman.cat.cattree import ToAst
from herdsman.cat.errors import TOO_DEEP, ModelInputError, quote
from herdsman.cat.parsecache import cached_model, keep_model
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import MAX_MODEL_BYTES, read_bytes

GRAMMAR = Path(__file__).with_name("cat.lark")

#: Token types that can start a ``base`` expression: after one of them a ``*`` is binary.
_BASE_START = {"VAR", "TAG", "ZERO", "UNDERSCORE", "TILDE", "LPAR", "LBRACE", "LSQB", "BEGIN"}


class _StarPostLex:
    """Retype ``*`` as STARBIN when the next token can start an operand."""

    always_accept = ()

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        prev: Token | None = None
        for tok in stream:
            if prev is not None:
                if prev.type == "STAR" and tok.type in _BASE_START:
                    prev = Token.new_borrow_pos("STARBIN", prev.value, prev)
                yield prev
            prev = tok
        if prev is not None:
            yield prev


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(
        GRAMMAR.read_text(),
        parser="lalr",
        lexer="basic",
        postlex=_StarPostLex(),
        propagate_positions=True,
        maybe_placeholders=False,
        cache=True,  # the LALR tables, in the temporary directory (keyed by grammar)
    )


# ----------------------------------------------------------------------------- tree -> AST

# ----------------------------------------------------------------------------- entry points


def _describe(tok: Token) -> str:
    if tok.type == "$END":
        return "end of file"
    return quote(str(tok))


def parse_text(text: str, path: str = "<string>") -> A.Model:
    """Parse cat source text; raises InputError on any lexical or syntax error."""
    lines = text.split("\n")
    clean = strip_comments(text, path)
    try:
        tree = _lark().parse(clean)
    except UnexpectedCharacters as e:
        line, col = e.line, e.column
        pos = e.pos_in_stream
        ch = clean[pos] if pos is not None and pos < len(clean) else "?"
        msg = f"lexical error: unexpected character {quote(ch)}"
        if ch.isdigit():
            msg = f"lexical error: {quote(ch)}: the only number in cat is 0"
        raise ModelInputError(path, line, col, msg, line_text(text, line)) from None
    except UnexpectedEOF:
        line, col = end_position(clean)
        raise ModelInputError(
            path, line, col, "syntax error: unexpected end of file", line_text(text, line)
        ) from None
    except UnexpectedToken as e:
        tok = e.token
        if tok.type == "$END":
            line, col = end_position(clean)
        else:
            line, col = tok.line, tok.column
        expected = sorted({_pretty_expected(x) for x in e.expected if not x.startswith("__")})
        hint = f" (expected {', '.join(expected[:8])}{', ...' if len(expected) > 8 else ''})"
        raise ModelInputError(
            path,
            line,
            col,
            f"syntax error: unexpected {_describe(tok)}{hint}",
            line_text(text, line),
        ) from None
    except UnexpectedInput as e:  # pragma: no cover - other lark errors
        raise ModelInputError(
            path, e.line, e.column, "syntax error", line_text(text, e.line)
        ) from None
    try:
        _, arch, name, catdep, instrs = ToAst(path, lines).transform(tree)
    except RecursionError:
        raise ModelInputError(path, 0, 0, TOO_DEEP) from None
    except VisitError as e:  # lark wraps what a rule's method raises
        if not isinstance(e.orig_exc, RecursionError):
            raise
        meta = e.obj.meta if isinstance(e.obj, Tree) else None
        if meta is None or meta.empty:
            raise ModelInputError(path, 0, 0, TOO_DEEP) from None
        line = meta.line
        raise ModelInputError(path, line, meta.column, TOO_DEEP, line_text(text, line)) from None
    return A.Model(path, arch, name, catdep, instrs, text)


_PRETTY = {
    "LPAR": "'('",
    "RPAR": "')'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LSQB": "'['",
    "RSQB": "']'",
    "EQUAL": "'='",
    "COMMA": "','",
    "SEMICOLON": "';'",
    "VBAR": "'|'",
    "AMPERSAND": "'&'",
    "PLUS": "'+'",
    "QMARK": "'?'",
    "STAR": "'*'",
    "STARBIN": "'*'",
    "TILDE": "'~'",
    "INV": "'^-1'",
    "ZERO": "'0'",
    "UNDERSCORE": "'_'",
    "ALT": "'||'",
    "VAR": "a name",
    "TAG": "a tag",
    "STRING": "a string",
    "$END": "end of file",
    "BACKSLASH": "'\\'",
    "__ANON_0": "'->'",
}


def _pretty_expected(name: str) -> str:
    if name in _PRETTY:
        return _PRETTY[name]
    for term in _lark().terminals:
        if term.name == name:
            return repr(term.pattern.value)
    return name.lower()


def parse_file(path: str | Path) -> A.Model:
    """Parse a cat file (UTF-8 text, any newlines), or read it back from the parse cache
    (:mod:`cat.parsecache`)."""
    try:  # a regular file of at most MAX_MODEL_BYTES (never a FIFO or a device)
        data = read_bytes(path, MAX_MODEL_BYTES, "cat files")
    except InputError as e:
        raise ModelInputError(str(path), 0, 0, f"cannot read model: {e.message}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(str(path), data, e.start) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _through_cache(str(path), data, text)


@lru_cache(maxsize=64)
def parse_builtin(text: str, where: str) -> A.Model:
    """A cat text of herdsman's own (a probe, a definition) named ``where``: parsed once
    per process, and kept in the parse cache as a file is, so that a run whose models are
    all cached never builds the parser (~0.03 s)."""
    return _through_cache(where, text.encode(), text)


def _through_cache(where: str, data: bytes, text: str) -> A.Model:
    model = cached_model(where, data, text)
    if model is None:
        model = parse_text(text, where)
        keep_model(where, data, model)
    return model
