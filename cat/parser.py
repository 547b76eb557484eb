"""Parse cat files into :mod:`cat.ast` (lark LALR grammar ``cat/cat.lark``).

Comments are blanked out first (nested ``(* *)``, ``//`` and ``#`` to end of line), keeping
every other character in place so that positions stay exact.  A post-lexer tells the
cartesian product ``S1 * S2`` from the closure ``r*`` by the next token, as herd's parser
does.  Every syntax error becomes an :class:`litmus.errors.InputError` with the source line
and a caret.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.tree import Meta, Tree

from herdsman.cat import ast as A
from herdsman.cat.errors import TOO_DEEP, ModelInputError, quote
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import MAX_MODEL_BYTES, read_bytes

GRAMMAR = Path(__file__).with_name("cat.lark")

#: Token types that can start a ``base`` expression: after one of them a ``*`` is binary.
_BASE_START = {"VAR", "TAG", "ZERO", "UNDERSCORE", "TILDE", "LPAR", "LBRACE", "LSQB", "BEGIN"}


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
                line, col = _line_col(text, start)
                raise ModelInputError(
                    path, line, col, "unterminated comment", _line_text(text, line)
                )
            continue
        if c == "#" or (c == "/" and text.startswith("//", i)):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        i += 1
    return "".join(out)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def _end_position(clean: str) -> tuple[int, int]:
    """Just after the last token (where an unexpected end of file is reported)."""
    end = len(clean.rstrip())
    if end == 0:
        return 1, 1
    line, col = _line_col(clean, end - 1)
    return line, col + 1


def _line_text(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


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


def _is_token(it, kind: str) -> bool:
    """Whether a child of a tree node is a token of type ``kind`` (a keyword kept by lark)."""
    return isinstance(it, Token) and it.type == kind


def _without(items: list, kind: str) -> list:
    """The children of a tree node but its tokens of type ``kind``."""
    return [it for it in items if not _is_token(it, kind)]


class _ToAst(Transformer):
    """lark tree -> cat.ast; positions come from ``meta`` or tokens."""

    def __init__(self, path: str, lines: list[str]) -> None:
        super().__init__()
        self.path = path
        self.lines = lines

    def _pos(self, line: int, col: int) -> A.Pos:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return A.Pos(self.path, line, col, text)

    def _mpos(self, meta: Meta) -> A.Pos:
        if meta.empty:
            return A.Pos(self.path, 0, 0)
        return self._pos(meta.line, meta.column)

    def _tpos(self, tok: Token) -> A.Pos:
        return self._pos(tok.line or 0, tok.column or 0)  # 0: a token made, not read

    # ---- model
    @v_args(meta=True)
    def start(self, meta, items):
        arch, name, catdep, instrs = "None", "Unknown", False, []
        for it in items:
            if isinstance(it, tuple) and it and it[0] == "identity":
                arch, name = it[1], it[2]
            elif it == "catdep":
                catdep = True
            else:
                instrs.append(it)
        return ("model", arch, name, catdep, tuple(instrs))

    def ident_var_var(self, items):
        return ("identity", str(items[0]), str(items[1]))

    def ident_var_str(self, items):
        return ("identity", str(items[0]), str(items[1])[1:-1])

    def ident_var(self, items):
        return ("identity", str(items[0]), str(items[0]))

    def ident_str(self, items):
        s = str(items[0])[1:-1]
        return ("identity", s, s)

    def catdep(self, items):
        return "catdep"

    # ---- instructions
    @v_args(meta=True)
    def enum(self, meta, items):
        name = str(items[0])
        tags = tuple(str(t)[1:] for t in items[1:] if t.type == "TAG")
        return A.Enum(self._mpos(meta), name, tags)

    @v_args(meta=True)
    def let_ins(self, meta, items):
        return A.Let(self._mpos(meta), items[0])

    @v_args(meta=True)
    def letrec_ins(self, meta, items):
        items = [it for it in items if not isinstance(it, Token)]
        test = items[1] if len(items) > 1 else None
        return A.Rec(self._mpos(meta), items[0], test)

    def when_test(self, items):
        return items[0]

    @v_args(meta=True)
    def match_ins(self, meta, items):
        items = _without(items, "ALT")
        exp, (clauses, default) = items
        return A.InsMatch(self._mpos(meta), exp, clauses, default)

    def ins_clauses(self, items):
        clauses = []
        default = None
        for it in items:
            if isinstance(it, Token):
                continue
            if it[0] == "default":
                default = it[1]
            else:
                clauses.append(it)
        return tuple(clauses), default

    def ins_clause(self, items):
        return (str(items[0])[1:], items[1])

    def ins_default(self, items):
        return ("default", items[1])

    def ins_list(self, items):
        return tuple(items)

    @v_args(meta=True)
    def test_ins(self, meta, items):
        return A.Test(self._mpos(meta), items[1], items[0])

    @v_args(meta=True)
    def check_ins(self, meta, items):
        return A.Test(self._mpos(meta), items[0], "check")

    def test_type(self, items):
        word = str(items[0])
        return {"flag": "flag", "undefined_unless": "undefined_unless", "assert": "assert"}[word]

    @v_args(meta=True)
    def app_test(self, meta, items):
        negated = False
        if _is_token(items[0], "TILDE"):
            negated = True
            items = items[1:]
        kind, exp = items[0], items[1]
        name = items[2] if len(items) > 2 else None
        return A.AppTest(self._mpos(meta), negated, kind, exp, name)

    def test_kind(self, items):
        return str(items[0])

    def as_name(self, items):
        return str(items[0])

    def var_list(self, items):
        return tuple(str(t) for t in items)

    @v_args(meta=True)
    def showas_ins(self, meta, items):
        return A.ShowAs(self._mpos(meta), items[0], str(items[1]))

    @v_args(meta=True)
    def show_ins(self, meta, items):
        return A.Show(self._mpos(meta), items[0])

    @v_args(meta=True)
    def unshow_ins(self, meta, items):
        return A.UnShow(self._mpos(meta), items[0])

    @v_args(meta=True)
    def include_ins(self, meta, items):
        return A.Include(self._mpos(meta), str(items[0])[1:-1])

    @v_args(meta=True)
    def proc_tuple(self, meta, items):
        rec = _is_token(items[0], "REC")
        if rec:
            items = items[1:]
        name, formals, body = str(items[0]), items[1], items[2]
        pat = A.PVar(formals[0]) if len(formals) == 1 else A.PTuple(formals)
        return A.Procedure(self._mpos(meta), name, pat, body, rec)

    @v_args(meta=True)
    def proc_var(self, meta, items):
        rec = _is_token(items[0], "REC")
        if rec:
            items = items[1:]
        name, p, body = str(items[0]), items[1], items[2]
        return A.Procedure(self._mpos(meta), name, A.PVar(p), body, rec)

    @v_args(meta=True)
    def call_ins(self, meta, items):
        name = str(items[0])
        as_name = items[2] if len(items) > 2 else None
        return A.Call(self._mpos(meta), name, items[1], as_name)

    @v_args(meta=True)
    def debug_ins(self, meta, items):
        return A.Debug(self._mpos(meta), items[0])

    @v_args(meta=True)
    def forall_ins(self, meta, items):
        items = _without(items, "IN")
        return A.Forall(self._mpos(meta), str(items[0]), items[1], items[2])

    @v_args(meta=True)
    def with_ins(self, meta, items):
        return A.WithFrom(self._mpos(meta), str(items[0]), items[1])

    @v_args(meta=True)
    def ifvariant_ins(self, meta, items):
        cond, then = items[0], items[1]
        else_ = items[2] if len(items) > 2 else ()
        return A.IfVariant(self._mpos(meta), cond, then, else_)

    @v_args(meta=True)
    def events_ins(self, meta, items):
        return A.Events(self._mpos(meta), str(items[0]), items[1], False)

    @v_args(meta=True)
    def default_ins(self, meta, items):
        return A.Events(self._mpos(meta), str(items[0]), items[1], True)

    # ---- bindings
    def pat_bind_list(self, items):
        return tuple(items)

    @v_args(meta=True)
    def bind_tuple(self, meta, items):
        formals, exp = items
        return A.Binding(self._mpos(meta), A.PTuple(formals), exp)

    @v_args(meta=True)
    def bind_pats(self, meta, items):
        *pats, exp = items
        pat = A.PVar(pats[0]) if len(pats) == 1 else A.PTuple(tuple(pats))
        return A.Binding(self._mpos(meta), pat, exp)

    @v_args(meta=True)
    def bind_fun1(self, meta, items):
        name, p, body = str(items[0]), items[1], items[2]
        pos = self._mpos(meta)
        return A.Binding(pos, A.PVar(name), A.Fun(pos, A.PVar(p), body, name))

    @v_args(meta=True)
    def bind_funn(self, meta, items):
        name, formals, body = str(items[0]), items[1], items[2]
        pos = self._mpos(meta)
        pat = A.PVar(formals[0]) if len(formals) == 1 else A.PTuple(formals)
        return A.Binding(pos, A.PVar(name), A.Fun(pos, pat, body, name))

    def pat0(self, items):
        t = items[0]
        return None if t.type == "UNDERSCORE" else str(t)

    def formals(self, items):
        return tuple(items)

    # ---- expressions
    @v_args(meta=True)
    def let_exp(self, meta, items):
        items = [it for it in items if not isinstance(it, Token)]
        return A.LetIn(self._mpos(meta), items[0], items[1], False)

    @v_args(meta=True)
    def letrec_exp(self, meta, items):
        items = [it for it in items if not isinstance(it, Token)]
        return A.LetIn(self._mpos(meta), items[0], items[1], True)

    @v_args(meta=True)
    def fun1(self, meta, items):
        return A.Fun(self._mpos(meta), A.PVar(items[0]), items[1])

    @v_args(meta=True)
    def funn(self, meta, items):
        formals, body = items
        pat = A.PVar(formals[0]) if len(formals) == 1 else A.PTuple(formals)
        return A.Fun(self._mpos(meta), pat, body)

    @v_args(meta=True)
    def try_exp(self, meta, items):
        return A.Try(self._mpos(meta), items[0], items[1])

    @v_args(meta=True)
    def if_exp(self, meta, items):
        return A.If(self._mpos(meta), items[0], items[1], items[2])

    @v_args(meta=True)
    def match_exp(self, meta, items):
        items = _without(items, "ALT")
        exp, (clauses, default) = items
        return A.Match(self._mpos(meta), exp, clauses, default)

    def tag_clauses(self, items):
        return self.ins_clauses(items)

    def tag_clause(self, items):
        return (str(items[0])[1:], items[1])

    def tag_default(self, items):
        return ("default", items[1])

    @v_args(meta=True)
    def matchset_exp(self, meta, items):
        items = _without(items, "ALT")
        exp, (if_empty, clause) = items
        return A.MatchSet(self._mpos(meta), exp, if_empty, clause)

    def set_clauses_ef(self, items):
        return (items[0], items[2])

    def set_clauses_fe(self, items):
        return (items[2], items[0])

    def empty_clause(self, items):
        return items[0]

    def elt_rem(self, items):
        return A.EltRem(items[0], items[1], items[2])

    def pre_elt_post(self, items):
        return A.PreEltPost(items[0], items[1], items[2], items[3])

    # ---- conditions
    def cond_eq(self, items):
        return A.CondEq(items[0], items[1])

    def cond_subset(self, items):
        return A.CondSubset(items[0], items[1])

    def cond_in(self, items):
        return A.CondIn(items[0], items[2])

    def cond_variant(self, items):
        return A.CondVariant(items[0])

    def v_or(self, items):
        return A.VOr(items[0], items[1])

    def v_and(self, items):
        return A.VAnd(items[0], items[1])

    def v_not(self, items):
        return A.VNot(items[0])

    def v_name(self, items):
        tok = items[-1]
        return A.VName(self._tpos(tok), str(tok)[1:-1])

    # ---- operators
    @v_args(meta=True)
    def tuple(self, meta, items):
        return A.TupleE(self._mpos(meta), tuple(items))

    def _nary(self, meta: Meta, op: str, items: list[A.Expr]) -> A.OpN:
        flat: list[A.Expr] = []
        for it in items:
            if isinstance(it, A.OpN) and it.op == op and op in ("union", "seq"):
                flat.extend(it.args)
            else:
                flat.append(it)
        return A.OpN(self._mpos(meta), op, tuple(flat))

    @v_args(meta=True)
    def union(self, meta, items):
        return self._nary(meta, "union", items)

    @v_args(meta=True)
    def seq(self, meta, items):
        return self._nary(meta, "seq", items)

    @v_args(meta=True)
    def add(self, meta, items):
        return A.OpN(self._mpos(meta), "add", tuple(items))

    @v_args(meta=True)
    def diff(self, meta, items):
        return A.OpN(self._mpos(meta), "diff", tuple(items))

    @v_args(meta=True)
    def inter(self, meta, items):
        return A.OpN(self._mpos(meta), "inter", tuple(items))

    @v_args(meta=True)
    def cartesian(self, meta, items):
        return A.OpN(self._mpos(meta), "cartesian", (items[0], items[2]))

    @v_args(meta=True)
    def comp(self, meta, items):
        return A.Op1(self._mpos(meta), "comp", items[1])

    @v_args(meta=True)
    def star(self, meta, items):
        return A.Op1(self._mpos(meta), "star", items[0])

    @v_args(meta=True)
    def plus(self, meta, items):
        return A.Op1(self._mpos(meta), "plus", items[0])

    @v_args(meta=True)
    def opt(self, meta, items):
        return A.Op1(self._mpos(meta), "opt", items[0])

    @v_args(meta=True)
    def inv(self, meta, items):
        return A.Op1(self._mpos(meta), "inv", items[0])

    @v_args(meta=True)
    def toid(self, meta, items):
        return A.Op1(self._mpos(meta), "toid", items[0])

    @v_args(meta=True)
    def app(self, meta, items):
        return A.App(self._mpos(meta), items[0], items[1])

    def var(self, items):
        t = items[0]
        return A.Var(self._tpos(t), str(t))

    def zero(self, items):
        return A.Konst(self._tpos(items[0]), "zero")

    def universe(self, items):
        return A.Konst(self._tpos(items[0]), "universe")

    def tag(self, items):
        t = items[0]
        return A.TagLit(self._tpos(t), str(t)[1:])

    @v_args(meta=True)
    def explicit_set(self, meta, items):
        elems = items[0]
        if not elems:
            return A.Konst(self._mpos(meta), "empty")
        return A.ExplicitSet(self._mpos(meta), elems)

    @v_args(meta=True)
    def unit(self, meta, items):
        return A.TupleE(self._mpos(meta), ())

    def args(self, items):
        return tuple(items)


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
        raise ModelInputError(path, line, col, msg, _line_text(text, line)) from None
    except UnexpectedEOF:
        line, col = _end_position(clean)
        raise ModelInputError(
            path, line, col, "syntax error: unexpected end of file", _line_text(text, line)
        ) from None
    except UnexpectedToken as e:
        tok = e.token
        if tok.type == "$END":
            line, col = _end_position(clean)
        else:
            line, col = tok.line, tok.column
        expected = sorted({_pretty_expected(x) for x in e.expected if not x.startswith("__")})
        hint = f" (expected {', '.join(expected[:8])}{', ...' if len(expected) > 8 else ''})"
        raise ModelInputError(
            path,
            line,
            col,
            f"syntax error: unexpected {_describe(tok)}{hint}",
            _line_text(text, line),
        ) from None
    except UnexpectedInput as e:  # pragma: no cover - other lark errors
        raise ModelInputError(
            path, e.line, e.column, "syntax error", _line_text(text, e.line)
        ) from None
    try:
        _, arch, name, catdep, instrs = _ToAst(path, lines).transform(tree)
    except RecursionError:
        raise ModelInputError(path, 0, 0, TOO_DEEP) from None
    except VisitError as e:  # lark wraps what a rule's method raises
        if not isinstance(e.orig_exc, RecursionError):
            raise
        meta = e.obj.meta if isinstance(e.obj, Tree) else None
        if meta is None or meta.empty:
            raise ModelInputError(path, 0, 0, TOO_DEEP) from None
        line = meta.line
        raise ModelInputError(path, line, meta.column, TOO_DEEP, _line_text(text, line)) from None
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
    """Parse a cat file (UTF-8 text, any newlines)."""
    try:  # a regular file of at most MAX_MODEL_BYTES (never a FIFO or a device)
        data = read_bytes(path, MAX_MODEL_BYTES, "cat files")
    except InputError as e:
        raise ModelInputError(str(path), 0, 0, f"cannot read model: {e.message}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _not_utf8(str(path), data, e.start) from None
    return parse_text(text.replace("\r\n", "\n").replace("\r", "\n"), str(path))


def _not_utf8(path: str, data: bytes, bad: int) -> ModelInputError:
    """The error for a file that is not UTF-8 text, at its first bad byte (``data[bad]``)."""
    start = max(data.rfind(b"\n", 0, bad), data.rfind(b"\r", 0, bad)) + 1
    # line breaks as parse_file counts them: \n, \r\n and a lone \r
    breaks = data.count(b"\n", 0, bad) + data.count(b"\r", 0, bad) - data.count(b"\r\n", 0, bad)
    line = breaks + 1
    col = len(data[start:bad].decode("utf-8")) + 1
    return ModelInputError(
        path, line, col, f"cannot read model: not UTF-8 text (byte 0x{data[bad]:02x})"
    )
