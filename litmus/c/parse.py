"""Parse preprocessed C with pycparser: a syntax error is an :class:`InputError` at its
``file:line:col`` (pycparser honours the ``#line`` directives of the preprocessor)."""

from __future__ import annotations

import re

from pycparser import c_ast, c_parser

from herdsman.litmus.base.errors import InputError

_POSITION = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$", re.S)
_FILE_ONLY = re.compile(r"^(?P<file>.*?): (?P<msg>.*)$", re.S)


class GnuParser(c_parser.CParser):
    """pycparser's C23 parser (``typeof``, ``thread_local``, statement expressions) with
    GCC's range designators ``[lo ... hi] = v``: an ``ArrayDesignator`` whose expression
    is the ``ExprList`` ``[lo, hi]``."""

    def __init__(self) -> None:
        super().__init__(dialect="c23")

    def _parse_designator(self) -> c_ast.Node:  # pycparser's hook for one designator
        tok = self._accept("LBRACKET")
        if tok is None:
            return super()._parse_designator()
        lo = self._parse_constant_expression()
        expr: c_ast.Node = lo
        if self._accept("ELLIPSIS"):
            hi = self._parse_constant_expression()
            expr = c_ast.ExprList([lo, hi], lo.coord)
        self._expect("RBRACKET")
        return c_ast.ArrayDesignator(expr, self._tok_coord(tok))


def parse_c(text: str, path: str) -> c_ast.FileAST:
    """The AST of preprocessed C ``text`` (from ``path``)."""
    parser = GnuParser()
    try:
        return parser.parse(text, path)
    except c_parser.ParseError as exc:
        raise _syntax_error(parser, str(exc), path) from None


def _syntax_error(parser: c_parser.CParser, message: str, path: str) -> InputError:
    m = _POSITION.match(message)
    if m is not None:
        file = m.group("file") or path
        return InputError(file, int(m.group("line")), int(m.group("col")), _say(m.group("msg")))
    m = _FILE_ONLY.match(message)
    msg = m.group("msg") if m else message
    # pycparser leaves some errors without a position: the next token has it
    tok = parser._peek()  # noqa: SLF001 (the only way to the failing token)
    if tok is not None:
        return InputError(tok.filename or path, tok.lineno, tok.column, _say(msg, tok.value))
    return InputError(path, 0, 0, _say(msg))


def _say(msg: str, token: str | None = None) -> str:
    msg = msg.strip()
    if msg.startswith("before: "):
        return f"syntax error before '{msg[len('before: ') :]}'"
    if token is not None:
        return f"syntax error: {msg.lower()} (at '{token}')"
    return f"syntax error: {msg}"


def node_error(node: c_ast.Node | None, path: str, message: str) -> InputError:
    """An :class:`InputError` at ``node``'s position (``path`` when it has none)."""
    coord = node.coord if node is not None else None
    if coord is None:
        return InputError(path, 0, 0, message)
    return InputError(coord.file or path, coord.line or 0, coord.column or 0, message)
