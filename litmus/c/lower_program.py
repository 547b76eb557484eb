"""Lowering a whole C program: its globals become memory cells (with their initial
values; thread-locals get a copy per thread), ``main`` becomes thread 0, and every
``pthread_create`` a thread of its own, numbered in static creation order (main's
creations first, then those of thread 1...).  A thread whose lowering finds that a
register variable's address must exist at run time is lowered again with that variable
on its stack (:class:`~litmus.c.values.Demote`).
"""

from __future__ import annotations

from dataclasses import replace

from pycparser import c_ast

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Condition,
    Load,
    Lock,
    MemLoc,
    Program,
    PTrue,
    Spawn,
    Store,
    Sym,
    Thread,
    Unlock,
    Value,
)
from herdsman.litmus.c.context import Context, scalar_offsets
from herdsman.litmus.c.ctype import TypeTable
from herdsman.litmus.c.lower_stmt import CodeLowerer
from herdsman.litmus.c.scan import walk, written_names
from herdsman.litmus.c.target import TARGET_ARCH, TARGETS
from herdsman.litmus.c.values import Demote

#: The most memory cells a program's globals may have.
MAX_CELLS = 1 << 16
#: How often one thread may be lowered again (each time one more variable in memory).
MAX_RETRIES = 64


def collect(ast: c_ast.FileAST, ctx: Context) -> dict[str, Value]:
    """Read the file's declarations into ``ctx``; the initial memory (cell -> value)."""
    ev = CodeLowerer(ctx, 0)
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
                ctx.prototypes[item.name] = ev.resolve(item.type)
                continue
            declare_global(item, ctx, ev)
        elif isinstance(item, (c_ast.Pragma, c_ast.StaticAssert)):
            continue
        else:
            raise ev.error(item, f"unsupported declaration ({type(item).__name__})")
    scan_program(ast, ctx)
    return ctx.memory


def scan_program(ast: c_ast.FileAST, ctx: Context) -> None:
    """What lowering threads needs to know of the whole program first: the functions
    whose address is taken (what calls through pointers may reach), whether some join
    reads a thread's result, and the scalar globals nothing writes (nor takes the
    address of): their initial value is a compile-time constant."""
    ctx.constant = {n for n, t in ctx.globals.items() if t.scalar} - global_writes(ast)
    called: set[int] = set()
    for n in walk(ast):
        if isinstance(n, c_ast.FuncCall):
            if isinstance(n.name, c_ast.ID):
                called.add(id(n.name))
                name = n.name.name
                args = n.args.exprs if n.args is not None else []
                if (
                    name == "__VERIFIER_join"
                    or name in ("pthread_join", "thrd_join")
                    and (len(args) == 2 and not _null(args[1]))
                ):
                    ctx.results = True
        elif isinstance(n, c_ast.ID) and id(n) not in called and n.name in ctx.functions:
            ctx.pointed.add(n.name)


def global_writes(ast: c_ast.FileAST) -> set[str]:
    """Names assigned, incremented or whose address is taken, outside the functions
    that declare a local of that name."""
    out: set[str] = set()
    for item in ast.ext:
        if isinstance(item, c_ast.FuncDef):
            local = {n.name for n in walk(item) if isinstance(n, c_ast.Decl) and n.name}
            out |= written_names(item.body) - local
        else:
            out |= written_names(item)
    return out


def _null(node: c_ast.Node) -> bool:
    while isinstance(node, c_ast.Cast):
        node = node.expr
    return isinstance(node, c_ast.Constant) and node.value in ("0", "0L", "0UL")


def declare_global(d: c_ast.Decl, ctx: Context, ev: CodeLowerer) -> None:
    storage = d.storage or []
    t = ev.resolve(d)
    if t.kind in ("void", "func"):
        raise ev.error(d, f"unsupported: global '{d.name}' of type {t.show()}")
    thread_local = "_Thread_local" in storage or "thread_local" in storage
    table = ctx.tls if thread_local else ctx.globals
    if d.name in table and d.init is None:
        return  # a tentative definition or extern declaration again
    values: dict[int, Value] = {}
    if d.init is not None:
        t, cells = ev.init.cells(t, d.init)
        values = ev.constant_cells(cells)
    elif t.kind == "array" and t.length < 0:
        t = t.__class__("array", target=t.target, length=0)
    if d.name in table and any(ctx.memory.get(str(Sym(d.name, off)), 0) != 0 for off in values):
        raise ev.error(d, f"global '{d.name}' is initialised twice")
    table[d.name] = t
    if thread_local:
        ctx.tls_init[d.name] = values
        return
    if len(ctx.memory) + t.size > MAX_CELLS:
        raise ev.error(
            d,
            f"unsupported: global '{d.name}' makes {len(ctx.memory) + t.size} memory cells; "
            f"programs may have at most {MAX_CELLS}",
        )
    for off, v in values.items():
        ctx.memory[str(Sym(d.name, off))] = v
    ctx.cells(Sym(d.name), t, values)


def lower_thread(
    ctx: Context, tid: int, func: c_ast.FuncDef, arg: Value | None, in_memory: bool
) -> CodeLowerer:
    """Thread ``tid`` lowered (again, while a register variable must go to memory)."""
    cp = ctx.checkpoint()
    for _ in range(MAX_RETRIES):
        lw = CodeLowerer(ctx, tid)
        try:
            lw.thread_params(func, [arg], in_memory)
            return lw
        except Demote as d:
            if d.key in ctx.demoted.setdefault(tid, set()):
                raise InputError(
                    ctx.path, 0, 0, "internal: a variable moved to memory twice"
                ) from None
            ctx.demoted[tid].add(d.key)
            ctx.rollback(cp)
    raise InputError(ctx.path, 0, 0, f"unsupported: thread {tid} has too many variables in memory")


def lower_program(
    ast: c_ast.FileAST,
    path: str,
    name: str,
    target: str,
    unroll: int | None = None,
    no_unroll: frozenset[str] = frozenset(),
) -> Program:
    """The :class:`Program` of a parsed C file (``unroll``: GenMC's bound on loops)."""
    if target not in TARGETS:
        raise InputError(path, 0, 0, f"unknown target '{target}' (expected one of {TARGETS})")
    ctx = Context(path, target, TypeTable(path), unroll=unroll, no_unroll=no_unroll)
    collect(ast, ctx)
    main = ctx.functions.get("main")
    if main is None:
        raise InputError(path, 0, 0, "no main function")
    lowered: dict[int, CodeLowerer] = {0: lower_thread(ctx, 0, main, None, False)}
    i = 0
    while i < len(ctx.pending):
        p = ctx.pending[i]
        lowered[p.tid] = lower_thread(ctx, p.tid, p.func, p.arg, p.arg_in_memory)
        i += 1
    program = assemble(ctx, name, dict(ctx.memory), lowered, path)
    return replace(program, symmetric=symmetric_threads(ctx, lowered))


def symmetric_threads(ctx: Context, lowered: dict[int, CodeLowerer]) -> tuple[int, ...]:
    """Per thread, the thread it is symmetric to, or -1 (GenMC's symmetry reduction: the
    nearest earlier thread spawned by the same thread, running the same function with
    the same argument, with no memory access in the spawner between the two spawns — or
    with some, when the program declares the symmetry: ``__VERIFIER_spawn_symmetric``,
    whose thread argument herdsman takes to be that nearest thread)."""
    out = [-1] * (len(ctx.pending) + 1)
    for k, c in enumerate(ctx.pending):
        for p in reversed(ctx.pending[:k]):
            if p.parent != c.parent or p.func is not c.func or p.arg_in_memory or c.arg_in_memory:
                continue
            if p.arg != c.arg:
                continue
            code = lowered[c.parent].code
            between = code[_spawn_at(code, p.tid) + 1 : _spawn_at(code, c.tid)]
            if c.declared or not any(isinstance(op, ACCESSES) for op in between):
                out[c.tid] = p.tid
            break
    return tuple(out)


#: the operations that access memory
ACCESSES = (Load, Store, RMW, CAS, Lock, Unlock)


def _spawn_at(code: list, tid: int) -> int:
    return next(i for i, op in enumerate(code) if isinstance(op, Spawn) and op.thread == tid)


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
        observed=observed if observed is not None else _observed(ctx),
        filter=filter_,
        path=path,
    )


def _observed(ctx: Context) -> tuple[MemLoc, ...]:
    """A program's final state: its globals' cells (not the heap, stacks, thread-locals
    or string literals)."""
    cells = [str(Sym(n, off)) for n, t in ctx.globals.items() for off in scalar_offsets(t, 0)]
    return tuple(MemLoc(c) for c in sorted(cells))
