"""Lowering a whole C program: its globals become memory cells (with their initial
values), ``main`` becomes thread 0, and every ``pthread_create`` a thread of its own,
numbered in static creation order (main's creations first, then those of thread 1...).
"""

from __future__ import annotations

from pycparser import c_ast

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Condition, MemLoc, Program, PTrue, Sym, Thread, Value
from herdsman.litmus.c.context import Context
from herdsman.litmus.c.ctype import CType, TypeTable
from herdsman.litmus.c.lower_expr import ExprLowerer
from herdsman.litmus.c.lower_stmt import CodeLowerer
from herdsman.litmus.c.target import TARGET_ARCH, TARGETS


def collect(ast: c_ast.FileAST, ctx: Context) -> dict[str, Value]:
    """Read the file's declarations into ``ctx``; the initial memory (cell -> value)."""
    ev = ExprLowerer(ctx, 0)
    memory: dict[str, Value] = {}
    for item in ast.ext:
        if isinstance(item, c_ast.Typedef):
            ctx.types.note_specifiers(item.type, ev.const_value)
            ctx.types.typedefs[item.name] = item
        elif isinstance(item, c_ast.FuncDef):
            name = item.decl.name
            if name in ctx.functions:
                raise ev.error(item, f"function '{name}' is defined twice")
            ctx.functions[name] = item
        elif isinstance(item, c_ast.Decl):
            ctx.types.note_specifiers(item.type, ev.const_value)
            if item.name is None:
                continue
            if isinstance(item.type, c_ast.FuncDecl):
                ctx.prototypes.add(item.name)
                continue
            declare_global(item, ctx, ev, memory)
        elif isinstance(item, c_ast.Pragma):
            continue
        else:
            raise ev.error(item, f"unsupported declaration ({type(item).__name__})")
    return memory


#: The most memory cells a program's globals may have.
MAX_CELLS = 512


def declare_global(d: c_ast.Decl, ctx: Context, ev: ExprLowerer, memory: dict[str, Value]) -> None:
    t = ctx.types.resolve(d, ev.const_value)
    if t.kind in ("void", "func"):
        raise ev.error(d, f"unsupported: global '{d.name}' of type {t.show()}")
    if d.name in ctx.globals:
        if d.init is None:
            return  # a tentative definition or extern declaration again
        if any(
            str(Sym(d.name, i)) in memory and memory[str(Sym(d.name, i))] != 0
            for i in range(t.size)
        ):
            raise ev.error(d, f"global '{d.name}' is initialised twice")
    if t.size > MAX_CELLS or len(memory) + t.size > MAX_CELLS:
        raise ev.error(
            d,
            f"unsupported: global '{d.name}' makes {len(memory) + t.size} memory cells; "
            f"programs may have at most {MAX_CELLS} (every cell is a location of every "
            "execution)",
        )
    ctx.globals[d.name] = t
    values: dict[int, Value] = {}
    init_cells(t, d.init, 0, values, ev)
    for off in scalar_offsets(t, 0):
        memory[str(Sym(d.name, off))] = values.get(off, 0)


def scalar_offsets(t: CType, base: int) -> list[int]:
    """Offsets of the memory cells of an object of type ``t`` at ``base``."""
    if t.kind == "array":
        assert t.target is not None
        return [
            o for i in range(t.length) for o in scalar_offsets(t.target, base + i * t.target.size)
        ]
    if t.kind == "struct":
        out, off = [], base
        for _, ft in t.fields:
            out += scalar_offsets(ft, off)
            off += ft.size
        return out
    return [base] if t.scalar else []


def init_cells(
    t: CType, init: c_ast.Node | None, base: int, out: dict[int, Value], ev: ExprLowerer
) -> None:
    if init is None:
        return
    if isinstance(init, c_ast.NamedInitializer):
        raise ev.error(init, "unsupported: designated initialiser")
    if t.kind in ("array", "struct"):
        if not isinstance(init, c_ast.InitList):
            raise ev.error(init, f"unsupported initialiser for a {t.show()}")
        if t.kind == "array":
            assert t.target is not None
            if len(init.exprs) > t.length:
                raise ev.error(init, "too many initialisers")
            for i, e in enumerate(init.exprs):
                init_cells(t.target, e, base + i * t.target.size, out, ev)
        else:
            if len(init.exprs) > len(t.fields):
                raise ev.error(init, "too many initialisers")
            off = base
            for (_, ft), e in zip(t.fields, init.exprs, strict=False):
                init_cells(ft, e, off, out, ev)
                off += ft.size
        return
    if t.kind == "handle":
        raise ev.error(init, "unsupported: initialised pthread_t")
    if isinstance(init, c_ast.InitList):
        if len(init.exprs) != 1:
            raise ev.error(init, "a scalar takes one initialiser")
        init = init.exprs[0]
    v = ev.const_value(init)
    if v is None:
        raise ev.error(init, "a global's initialiser must be a constant or an address")
    out[base] = v


def lower_program(ast: c_ast.FileAST, path: str, name: str, target: str) -> Program:
    """The :class:`Program` of a parsed C file."""
    if target not in TARGETS:
        raise InputError(path, 0, 0, f"unknown target '{target}' (expected one of {TARGETS})")
    ctx = Context(path, target, TypeTable(path))
    memory = collect(ast, ctx)
    main = ctx.functions.get("main")
    if main is None:
        raise InputError(path, 0, 0, "no main function")
    first = CodeLowerer(ctx, 0)
    first.thread(main, [])
    lowered: dict[int, CodeLowerer] = {0: first}
    i = 0
    while i < len(ctx.pending):
        p = ctx.pending[i]
        lw = CodeLowerer(ctx, p.tid)
        lw.thread(p.func, [p.arg])
        lowered[p.tid] = lw
        i += 1
    return assemble(ctx, name, memory, lowered, path)


def assemble(
    ctx: Context,
    name: str,
    memory: dict[str, Value],
    lowered: dict[int, CodeLowerer],
    path: str,
    condition: Condition | None = None,
    observed: tuple | None = None,
    registers: dict[int, dict[str, Value]] | None = None,
    filter_=None,  # noqa: ANN001
) -> Program:
    threads = tuple(
        Thread(tuple(lowered[k].code), tuple(lowered[k].origins)) for k in sorted(lowered)
    )
    regs = []
    for k in sorted(lowered):
        r = dict(lowered[k].registers)
        r.update((registers or {}).get(k, {}))
        regs.append(tuple(r.items()))
    cells = tuple(sorted(memory.items()))
    return Program(
        name=name,
        arch=TARGET_ARCH[ctx.target],
        threads=threads,
        memory=cells,
        registers=tuple(regs),
        condition=condition or Condition("forall", PTrue(), ""),
        observed=observed if observed is not None else tuple(MemLoc(c) for c, _ in cells),
        filter=filter_,
        path=path,
    )
