"""Questions about C syntax trees the lowering asks before lowering them: which names a
statement assigns, whether an expression is free of effects, a statement's short text
for origins."""

from __future__ import annotations

from collections.abc import Iterator

from pycparser import c_ast, c_generator

_INC = frozenset({"++", "--", "p++", "p--"})
_LOOPS = (c_ast.While, c_ast.DoWhile, c_ast.For)


def walk(node: c_ast.Node | None) -> Iterator[c_ast.Node]:
    """``node`` and every node under it."""
    if node is None:
        return
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(child for _, child in reversed(n.children()))


def written_names(node: c_ast.Node | None) -> set[str]:
    """Names assigned (``x = ``, ``x += ``, ``x++``) or whose address is taken under
    ``node``."""
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            out.add(n.lvalue.name)
        elif isinstance(n, c_ast.UnaryOp) and isinstance(n.expr, c_ast.ID):
            if n.op in _INC or n.op == "&":
                out.add(n.expr.name)
    return out


def has_calls_or_writes(node: c_ast.Node | None) -> bool:
    """Whether evaluating ``node`` may call a function or assign anything."""
    for n in walk(node):
        if isinstance(n, (c_ast.FuncCall, c_ast.Assignment)):
            return True
        if isinstance(n, c_ast.UnaryOp) and n.op in _INC:
            return True
    return False


def has_loop_exits(node: c_ast.Node | None) -> bool:
    """Whether ``node`` has break, continue, return, goto or a nested loop."""
    return any(
        isinstance(n, (c_ast.Break, c_ast.Continue, c_ast.Return, c_ast.Goto, c_ast.Label))
        or isinstance(n, _LOOPS)
        for n in walk(node)
    )


_GEN = c_generator.CGenerator()


def text(node: c_ast.Node) -> str:
    """Short C text of a statement or expression (one line)."""
    if isinstance(node, c_ast.If):
        s = f"if ({_GEN.visit(node.cond)})"
    elif isinstance(node, c_ast.While):
        s = f"while ({_GEN.visit(node.cond)})"
    elif isinstance(node, c_ast.DoWhile):
        s = f"do ... while ({_GEN.visit(node.cond)})"
    elif isinstance(node, c_ast.For):
        parts = [_GEN.visit(x) if x is not None else "" for x in (node.init, node.cond, node.next)]
        s = f"for ({'; '.join(parts)})"
    elif (
        isinstance(node, c_ast.FuncCall)
        and isinstance(node.name, c_ast.ID)
        and node.name.name == "__herdsman_assert"
        and node.args is not None
    ):
        s = f"assert({_GEN.visit(node.args.exprs[0])})"
    elif isinstance(node, c_ast.Compound):
        s = "{ ... }"
    else:
        s = _GEN.visit(node)
    s = " ".join(s.split()).rstrip(";").strip()
    return s if len(s) <= 72 else s[:69] + "..."


def expr_text(node: c_ast.Node) -> str:
    """The C text of an expression, in full (assertion messages)."""
    return " ".join(_GEN.visit(node).split())


def line_of(node: c_ast.Node) -> int:
    return node.coord.line if node.coord is not None else 0
