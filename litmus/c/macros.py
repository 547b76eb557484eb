"""herd's macro files (``.def``): C names mapped onto herd's primitives, expanded in C
litmus tests as herd expands them (``lib/CBase.ml`` ``expand``; ``herd7 -macros FILE``).

A macro file is a list of definitions, ``NAME(X, Y) EXPRESSION`` (a macro for a value:
``READ_ONCE(X) __load{ONCE}(X)``) or ``NAME(X, Y) { STATEMENTS }`` (a macro for a
statement: ``smp_mb() { __fence{MB}; }``), ``//`` and ``/* */`` comments.  Bodies are C
with herd's primitives: ``__load{A}(*E)``, ``__store{A}(*E, V)``, ``__fence{A}``,
``__xchg{A}(P, V)``, ``__cmpxchg{A}(P, V, W)``, ``__atomic_op{A}(P, OP, V)``,
``__atomic_op_return{A}(P, OP, V)``, ``__atomic_fetch_op{A}(P, OP, V)``,
``__atomic_add_unless{A}(P, V, U)``, ``__lock(P)``, ``__unlock(P)``, ``__trylock(P)``,
``__islocked(P)``, ``__srcu{A}(P[, V])``, where ``A`` is a list of annotations
(``ONCE``, ``rcu-lock``...) and ``OP`` one of ``+ - & | ^ &~``.

:func:`read_macros` reads a file into :class:`Macros`: each body is rewritten as plain C
(the annotations become a string first argument, ``__load("ONCE", X)``; an operator
argument a string, ``"+"``) and parsed by pycparser. :func:`expand` rewrites the code of
a parsed C litmus test: each call of a macro is replaced by its body, the parameters by
the arguments (herd's substitution: by name, arguments expanded first, the result
expanded again); a call of anything else that is no C primitive is an error, as in herd
("unknown macro"), but for herd's legacy ``atomic_add_unless(x, a, u)`` of no macro.
Undeclared names a thread assigns or reads are herd's registers: they are declared
(``int``, or ``int *`` when dereferenced). What the primitives do is
:mod:`litmus.c.kernel`.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from pycparser import c_ast, c_parser

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import MAX_SOURCE_BYTES, read_text

#: herd's primitives with a list of annotations (``__load{ONCE}``).
ANNOTATED = frozenset(
    {
        "__load",
        "__store",
        "__fence",
        "__xchg",
        "__cmpxchg",
        "__atomic_op",
        "__atomic_op_return",
        "__atomic_fetch_op",
        "__atomic_add_unless",
        "__srcu",
    }
)
#: herd's lock primitives (no annotation).
LOCKS = frozenset({"__lock", "__unlock", "__trylock", "__islocked"})
PRIMITIVES = ANNOTATED | LOCKS
#: The primitives whose second argument is an operator.
_OP_ARG = frozenset({"__atomic_op", "__atomic_op_return", "__atomic_fetch_op"})
_OPERATORS = frozenset({"+", "-", "&", "|", "^", "&~"})
#: C11 primitives herd's C knows besides macros (its lexer's keywords).
C11_CALLS = frozenset(
    {
        "atomic_load_explicit",
        "atomic_store_explicit",
        "atomic_exchange_explicit",
        "atomic_fetch_add_explicit",
        "atomic_fetch_sub_explicit",
        "atomic_fetch_or_explicit",
        "atomic_fetch_xor_explicit",
        "atomic_fetch_and_explicit",
        "atomic_thread_fence",
        "atomic_compare_exchange_weak",
        "atomic_compare_exchange_strong",
        "atomic_compare_exchange_weak_explicit",
        "atomic_compare_exchange_strong_explicit",
        "lock",
        "unlock",
        "mtx_lock",
        "mtx_unlock",
    }
)
#: How deep macros may call macros (a macro calling itself is refused there).
MAX_DEPTH = 64


@dataclass(frozen=True)
class Macro:
    """``name(params) body``: ``body`` is an expression (``statement`` False) or a
    compound statement; ``line`` is where it is defined."""

    name: str
    params: tuple[str, ...]
    body: c_ast.Node
    statement: bool
    line: int


@dataclass(frozen=True)
class Macros:
    """The macros of one file (by name; a later definition replaces an earlier one)."""

    path: str
    table: dict[str, Macro]


# ----------------------------------------------------------------------------- reading

_TOKEN = re.compile(
    r"(?P<space>[ \t\r\n]+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>[0-9]+)|(?P<op>&~|==|!=|<=|>=|&&|\|\||<<|>>|->|[-+*/%&|^~!<>=?:,;.(){}\[\]])",
    re.S,
)


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    line: int
    col: int


def _tokens(text: str, path: str) -> list[_Tok]:
    out = []
    i, line, start = 0, 1, 0
    while i < len(text):
        if text.startswith("/*", i) and text.find("*/", i + 2) < 0:
            raise InputError(path, line, i - start + 1, "unterminated comment '/*'")
        m = _TOKEN.match(text, i)
        if m is None:
            ch = text[i]
            raise InputError(path, line, i - start + 1, f"unexpected character {ch!r}")
        kind = m.lastgroup or ""
        if kind not in ("space", "comment"):
            out.append(_Tok(kind, m.group(), line, i - start + 1))
        nl = m.group().count("\n")
        if nl:
            line += nl
            start = i + m.group().rfind("\n") + 1
        i = m.end()
    return out


def read_macros(path: str) -> Macros:
    """The macros of the file ``path`` (an InputError at its position when malformed)."""
    try:
        mtime = os.path.getmtime(path)
    except OSError:
        mtime = 0.0
    return _read_cached(path, mtime)


@lru_cache(maxsize=16)
def _read_cached(path: str, mtime: float) -> Macros:
    text = read_text(path, MAX_SOURCE_BYTES, "macro files")
    return parse_macros(text, path)


def parse_macros(text: str, path: str) -> Macros:
    """The macros of ``text`` (a ``.def`` file read from ``path``)."""
    toks = _tokens(text, path)
    table: dict[str, Macro] = {}
    i = 0
    while i < len(toks):
        m, i = _definition(toks, i, path)
        table[m.name] = m
    return Macros(path, table)


def _expect(toks: list[_Tok], i: int, text: str, path: str, what: str) -> int:
    if i >= len(toks):
        last = toks[-1]
        raise InputError(path, last.line, last.col, f"unexpected end of file: expected {what}")
    if toks[i].text != text:
        t = toks[i]
        raise InputError(path, t.line, t.col, f"unexpected '{t.text}': expected {what}")
    return i + 1


def _definition(toks: list[_Tok], i: int, path: str) -> tuple[Macro, int]:
    """The definition starting at token ``i``, and the index after it."""
    head = toks[i]
    if head.kind != "name":
        raise InputError(path, head.line, head.col, f"unexpected '{head.text}': expected a macro")
    if head.text in PRIMITIVES:
        raise InputError(path, head.line, head.col, f"cannot redefine herd's primitive {head.text}")
    i = _expect(toks, i + 1, "(", path, "'(' after the macro's name")
    params: list[str] = []
    while i < len(toks) and toks[i].text != ")":
        t = toks[i]
        if t.kind != "name":
            raise InputError(path, t.line, t.col, f"unexpected '{t.text}': expected a parameter")
        if t.text in params:
            raise InputError(path, t.line, t.col, f"parameter {t.text} given twice")
        params.append(t.text)
        i += 1
        if i < len(toks) and toks[i].text == ",":
            i += 1
        elif i < len(toks) and toks[i].text != ")":
            x = toks[i]
            raise InputError(
                path, x.line, x.col, f"unexpected '{x.text}': expected ')' after the parameters"
            )
    i = _expect(toks, i, ")", path, "')' after the parameters")
    if i >= len(toks):
        raise InputError(path, head.line, head.col, f"macro {head.text} has no body")
    start = i
    if toks[i].text == "{":
        depth = 0
        while i < len(toks):
            depth += {"{": 1, "}": -1}.get(toks[i].text, 0)
            i += 1
            if depth == 0:
                break
        if depth:
            t = toks[start]
            raise InputError(path, t.line, t.col, f"unbalanced '{{' in macro {head.text}")
    else:
        i = _expression_end(toks, i)
    body_toks = toks[start:i]
    statement = body_toks[0].text == "{"
    c_text = _as_c(body_toks, path)
    body = _parse_body(c_text, statement, head, path)
    return Macro(head.text, tuple(params), body, statement, head.line), i


def _expression_end(toks: list[_Tok], i: int) -> int:
    """Where an expression body starting at token ``i`` ends: at the end of the file, or
    where a complete operand is followed by ``NAME(`` (the next definition)."""
    depth = 0
    prev: _Tok | None = None
    while i < len(toks):
        t = toks[i]
        if depth == 0 and prev is not None and t.kind == "name" and t.text not in PRIMITIVES:
            operand = prev.kind in ("name", "number") or prev.text in (")", "}")
            if operand and i + 1 < len(toks) and toks[i + 1].text == "(":
                return i
        if t.text in "({[":
            depth += 1
        elif t.text in ")}]":
            depth -= 1
        prev = t
        i += 1
    return i


def _as_c(toks: list[_Tok], path: str) -> str:
    """A body's tokens as C pycparser reads: ``__p{A,B}(...)`` becomes ``__p("A,B", ...)``,
    ``__fence{A};`` becomes ``__fence("A");``, an operator argument a string."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "name" and t.text in PRIMITIVES:
            i, text = _primitive(toks, i, path)
            out.append(text)
            continue
        out.append(t.text)
        i += 1
    return " ".join(out)


def _primitive(toks: list[_Tok], i: int, path: str) -> tuple[int, str]:
    """One primitive call starting at token ``i`` (up to its '('), as C."""
    t = toks[i]
    name = t.text
    i += 1
    annots: list[str] = []
    if i < len(toks) and toks[i].text == "{":
        if name in LOCKS:
            raise InputError(path, toks[i].line, toks[i].col, f"{name} takes no annotation")
        i += 1
        cur = ""
        while i < len(toks) and toks[i].text != "}":
            x = toks[i]
            if x.text == ",":
                annots.append(cur)
                cur = ""
            elif x.kind in ("name", "number") or x.text == "-":
                cur += x.text
            else:
                raise InputError(path, x.line, x.col, f"unexpected '{x.text}' in an annotation")
            i += 1
        if i >= len(toks):
            raise InputError(path, t.line, t.col, f"unterminated annotation of {name}")
        annots.append(cur)
        if any(not a or a.startswith("-") or a.endswith("-") for a in annots):
            raise InputError(path, t.line, t.col, f"bad annotation of {name}")
        i += 1
    elif name in ANNOTATED and name not in ("__atomic_op", "__srcu", "__atomic_add_unless"):
        raise InputError(path, t.line, t.col, f"{name} needs annotations: {name}{{...}}")
    if name == "__fence":
        return i, f'{name} ( "{",".join(annots)}" )'
    if i >= len(toks) or toks[i].text != "(":
        raise InputError(path, t.line, t.col, f"expected '(' after {name}")
    prefix = f'{name} ( "{",".join(annots)}" ,' if name in ANNOTATED else f"{name} ("
    i += 1
    if name not in _OP_ARG:
        return i, prefix
    # the operator: the tokens between the first and the second comma
    j = i
    depth = 0
    while j < len(toks) and not (depth == 0 and toks[j].text == ","):
        depth += {"(": 1, ")": -1}.get(toks[j].text, 0)
        j += 1
    k = j + 1
    while k < len(toks) and toks[k].text != ",":
        k += 1
    op = "".join(x.text for x in toks[j + 1 : k])
    if op not in _OPERATORS:
        x = toks[min(j + 1, len(toks) - 1)]
        raise InputError(path, x.line, x.col, f"{name}: '{op}' is not one of + - & | ^ &~")
    first = _as_c(toks[i:j], path)
    return k, f'{prefix} {first} , "{op}"'


def _parse_body(c_text: str, statement: bool, head: _Tok, path: str) -> c_ast.Node:
    """A body's C parsed: the compound statement, or the expression."""
    src = f"void __macro(void) {c_text}" if statement else f"void __macro(void) {{ ({c_text}); }}"
    try:
        ast = c_parser.CParser().parse(src, path)
    except c_parser.ParseError as e:
        msg = str(e).split(": ", 2)[-1]
        raise InputError(
            path, head.line, head.col, f"macro {head.text}: bad body ({msg})"
        ) from None
    func = ast.ext[0]
    assert isinstance(func, c_ast.FuncDef)
    body = func.body
    if statement:
        return body
    items = body.block_items or []
    assert len(items) == 1
    return items[0]


# ----------------------------------------------------------------------------- expanding


def _map(node: c_ast.Node, fe: _Fn, fs: _Fn) -> c_ast.Node:
    """``node`` with ``fe`` applied to its expressions and ``fs`` to its statements (in
    place): the node classes of C litmus code, one by one."""
    n = node
    if isinstance(n, c_ast.Compound):
        n.block_items = [fs(x) for x in n.block_items or []]
    elif isinstance(n, c_ast.If):
        n.cond = fe(n.cond)
        n.iftrue = fs(n.iftrue) if n.iftrue is not None else None
        n.iffalse = fs(n.iffalse) if n.iffalse is not None else None
    elif isinstance(n, (c_ast.While, c_ast.DoWhile)):
        n.cond = fe(n.cond)
        n.stmt = fs(n.stmt) if n.stmt is not None else None
    elif isinstance(n, c_ast.For):
        n.init = fs(n.init) if n.init is not None else None
        n.cond = fe(n.cond) if n.cond is not None else None
        n.next = fe(n.next) if n.next is not None else None
        n.stmt = fs(n.stmt) if n.stmt is not None else None
    elif isinstance(n, c_ast.Label):
        n.stmt = fs(n.stmt) if n.stmt is not None else None
    elif isinstance(n, c_ast.Switch):
        n.cond = fe(n.cond)
        n.stmt = fs(n.stmt)
    elif isinstance(n, c_ast.Case):
        n.expr = fe(n.expr)
        n.stmts = [fs(x) for x in n.stmts or []]
    elif isinstance(n, c_ast.Default):
        n.stmts = [fs(x) for x in n.stmts or []]
    elif isinstance(n, c_ast.Return):
        n.expr = fe(n.expr) if n.expr is not None else None
    elif isinstance(n, c_ast.Decl):
        n.init = fe(n.init) if n.init is not None else None
    elif isinstance(n, c_ast.DeclList):
        n.decls = [fs(x) for x in n.decls or []]
    elif isinstance(n, c_ast.Assignment):
        n.lvalue = fe(n.lvalue)
        n.rvalue = fe(n.rvalue)
    elif isinstance(n, c_ast.BinaryOp):
        n.left = fe(n.left)
        n.right = fe(n.right)
    elif isinstance(n, (c_ast.UnaryOp, c_ast.Cast)):
        n.expr = fe(n.expr)
    elif isinstance(n, c_ast.TernaryOp):
        n.cond = fe(n.cond)
        n.iftrue = fe(n.iftrue)
        n.iffalse = fe(n.iffalse)
    elif isinstance(n, c_ast.FuncCall):
        n.name = fe(n.name)
        n.args = fe(n.args) if n.args is not None else None
    elif isinstance(n, (c_ast.ExprList, c_ast.InitList)):
        n.exprs = [fe(x) for x in n.exprs]
    elif isinstance(n, c_ast.ArrayRef):
        n.name = fe(n.name)
        n.subscript = fe(n.subscript)
    elif isinstance(n, c_ast.StructRef):
        n.name = fe(n.name)
    return n


_Fn = Callable[[c_ast.Node], c_ast.Node]


class _Expander:
    """Expands one thread's code (see :func:`expand`)."""

    def __init__(self, macros: Macros, path: str, known: frozenset[str]) -> None:
        self.macros = macros
        self.path = path
        self.known = known  # functions the test itself defines
        self.depth = 0

    def error(self, node: c_ast.Node, message: str) -> InputError:
        c = node.coord
        if c is None:
            return InputError(self.path, 0, 0, message)
        return InputError(c.file or self.path, c.line or 0, c.column or 0, message)

    def statement(self, node: c_ast.Node) -> c_ast.Node:
        """A statement with its macros expanded."""
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            m = self.macros.table.get(node.name.name)
            if m is not None and m.statement:
                if node.args is not None:
                    node.args.exprs = [self.expression(a) for a in node.args.exprs]
                return self.nested(lambda: self.statement(self.instance(m, node)), node)
        if isinstance(node, _STATEMENTS):
            return _map(node, self.expression, self.statement)
        return self.expression(node)

    def nested(self, go: Callable[[], c_ast.Node], node: c_ast.Node) -> c_ast.Node:
        """``go()`` one macro deeper (refused past :data:`MAX_DEPTH`)."""
        if self.depth >= MAX_DEPTH:
            raise self.error(node, f"macros nested more than {MAX_DEPTH} deep (a recursive macro?)")
        self.depth += 1
        try:
            return go()
        finally:
            self.depth -= 1

    def expression(self, node: c_ast.Node) -> c_ast.Node:
        """An expression with its macros expanded."""
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            name = node.name.name
            if node.args is not None:
                node.args.exprs = [self.expression(a) for a in node.args.exprs]
            m = self.macros.table.get(name)
            if m is not None:
                if m.statement:
                    raise self.error(
                        node, f"macro {name} is a statement ({{...}}), used here as a value"
                    )
                return self.nested(lambda: self.expression(self.instance(m, node)), node)
            if name in PRIMITIVES or name in C11_CALLS or name in self.known:
                return node
            args = node.args.exprs if node.args is not None else []
            if name == "atomic_add_unless" and len(args) == 3:  # herd's legacy fallback
                ann = c_ast.Constant("string", '""', node.coord)
                node.name = c_ast.ID("__atomic_add_unless", node.coord)
                node.args = c_ast.ExprList([ann, *args], node.coord)
                return node
            raise self.error(
                node, f"unknown macro {name} (not defined in {os.path.basename(self.macros.path)})"
            )
        return _map(node, self.expression, self.statement)

    def instance(self, m: Macro, call: c_ast.FuncCall) -> c_ast.Node:
        """The body of ``m`` for ``call``: its parameters replaced by the arguments, every
        node at the call's position."""
        args = list(call.args.exprs) if call.args is not None else []
        if len(args) != len(m.params):
            raise self.error(
                call,
                f"macro {m.name} takes {len(m.params)} argument"
                f"{'' if len(m.params) == 1 else 's'}, not {len(args)}",
            )
        frame = dict(zip(m.params, args, strict=True))
        return _substitute(copy.deepcopy(m.body), frame, call.coord)


_STATEMENTS = (
    c_ast.Compound,
    c_ast.If,
    c_ast.While,
    c_ast.DoWhile,
    c_ast.For,
    c_ast.Label,
    c_ast.Switch,
    c_ast.Case,
    c_ast.Default,
    c_ast.Return,
    c_ast.DeclList,
)


def _substitute(node: c_ast.Node, frame: dict[str, c_ast.Node], coord: object) -> c_ast.Node:
    """``node`` with each parameter name replaced by a copy of its argument."""
    if isinstance(node, c_ast.ID) and node.name in frame:
        return copy.deepcopy(frame[node.name])
    node.coord = coord

    def sub(x: c_ast.Node) -> c_ast.Node:
        return _substitute(x, frame, coord)

    return _map(node, sub, sub)


def expand(ast: c_ast.FileAST, macros: Macros, path: str, threads: set[str]) -> c_ast.FileAST:
    """A copy of the test's ``ast`` with the macros of ``macros`` expanded in the
    functions named ``threads`` (``P0``, ``P1``...), and their undeclared names declared
    (herd's registers)."""
    out = copy.deepcopy(ast)
    known = frozenset(item.decl.name for item in out.ext if isinstance(item, c_ast.FuncDef))
    ex = _Expander(macros, path, known)
    globals_ = {d.name for d in out.ext if isinstance(d, c_ast.Decl) and d.name}
    for item in out.ext:
        if isinstance(item, c_ast.FuncDef) and item.decl.name in threads:
            ex.statement(item.body)
            _declare_registers(item, globals_ | known)
    return out


def _params(func: c_ast.FuncDef) -> set[str]:
    t = func.decl.type
    args = t.args.params if isinstance(t, c_ast.FuncDecl) and t.args else []
    return {p.name for p in args if isinstance(p, c_ast.Decl) and p.name}


def _walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for _, c in reversed(n.children()))


def _declare_registers(func: c_ast.FuncDef, globals_: set[str]) -> None:
    """Declare at the top of ``func`` the names its code uses without declaring them:
    herd's registers (``int *`` when dereferenced, else ``int``)."""
    declared = _params(func) | globals_
    used: list[str] = []
    pointers: set[str] = set()
    for n in _walk(func.body):
        if isinstance(n, c_ast.Decl) and n.name:
            declared.add(n.name)
        elif isinstance(n, c_ast.FuncCall):
            continue
        if isinstance(n, c_ast.ID) and n.name not in used:
            used.append(n.name)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID):
            pointers.add(n.expr.name)
    callees = {
        n.name.name
        for n in _walk(func.body)
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
    }
    fields = {n.field.name for n in _walk(func.body) if isinstance(n, c_ast.StructRef)}
    new = [x for x in used if x not in declared and x not in callees and x not in fields]
    if not new:
        return
    text = " ".join(f"int {'*' if x in pointers else ''}{x};" for x in sorted(new))
    decls = c_parser.CParser().parse(f"void f(void) {{ {text} }}").ext[0].body.block_items
    for d in decls:
        d.coord = func.body.coord
    func.body.block_items = list(decls) + list(func.body.block_items or [])
