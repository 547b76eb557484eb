"""herd's C litmus tests: parse (model-agnostic) and lower for a target.

Layout (herd's ``lib/splitter.mll`` for arch ``C``): ``C NAME``, an optional doc string
and info lines, the init ``{ int x = 0; int *y = &a; }`` (herd's init grammar,
``litmus/state.lark``), then one function per thread ``P0(int *x, int *y) { ... }`` (no
return type), then the final condition (``exists``, ``~exists``, ``forall``,
``locations [...]``, ``filter``).  The code is preprocessed with herdsman's
``headers/linux.h`` (LKMM and C11 types) and parsed by pycparser with positions in the
test's file; ``READ_ONCE``, ``smp_mb``... are intrinsics of the lowering.

Lowering: parameter ``int *x`` names global ``x`` (a compile-time address: no register);
locals are registers named as written (``1:r0`` is register ``r0`` of ``P1``); every
global of the init, the parameters and the condition is a memory location.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    Condition,
    Loc,
    MemLoc,
    Program,
    Prop,
    RegLoc,
    Sym,
    SymRegLoc,
    Value,
    prop_locations,
)
from herdsman.litmus.base.source import Source
from herdsman.litmus.c.context import Context
from herdsman.litmus.c.ctype import UNBOUNDED as INT
from herdsman.litmus.c.ctype import CType, TypeTable, pointer_to
from herdsman.litmus.c.lower_program import assemble, collect
from herdsman.litmus.c.lower_stmt import CodeLowerer
from herdsman.litmus.c.macros import Macros, expand
from herdsman.litmus.c.parse import node_error, parse_c
from herdsman.litmus.c.preprocess import preprocess
from herdsman.litmus.c.target import TARGETS
from herdsman.litmus.c.values import Const, Demote
from herdsman.litmus.splitter import HEADER, find_condition_end, find_init, skip_comment
from herdsman.litmus.state import parse_condition, parse_init
from herdsman.litmus.test import InitItem


@dataclass(frozen=True)
class CThread:
    """Thread ``tid``: function ``P<tid>`` with its parameters (name, C type as written)
    and its source text as written."""

    tid: int
    params: tuple[tuple[str, str], ...]
    text: str
    line: int


@dataclass(frozen=True)
class CLitmus:
    """A parsed C litmus test (model-agnostic); :func:`lower_c_litmus` makes its
    program for a target."""

    name: str
    doc: str | None
    info: tuple[tuple[str, str], ...]
    init: tuple[InitItem, ...]
    threads: tuple[CThread, ...]
    condition: Condition
    locations: tuple[Loc, ...] = ()
    filter: Prop | None = None
    kinds: tuple[tuple[str, str], ...] = ()
    path: str = field(default="", compare=False)
    ast: c_ast.FileAST | None = field(default=None, compare=False, repr=False)

    def observed_locations(self) -> list[Loc]:
        """Condition locations then ``locations [...]`` items, without repeats."""
        out = prop_locations(self.condition.prop)
        for loc in self.locations:
            if loc not in out:
                out.append(loc)
        return out


# ----------------------------------------------------------------------------- parsing

_KEYWORD = re.compile(
    r"~[ \t]*exists|(?<![A-Za-z0-9_])"
    r"(?:final|forall|exists|cases|observed|Observed|locations|filter)(?![A-Za-z0-9_])"
)
_THREAD = re.compile(r"P(\d{1,9})[ \t]*\(")


def parse_c_litmus(text: str, path: str) -> CLitmus:
    """Parse the C litmus test ``text`` (from ``path``)."""
    src = Source(text, path)
    text = src.text
    if not text.strip():
        raise src.error(0, "empty file (expected a litmus test)")
    m = HEADER.match(text)
    if m is None:
        raise src.error(0, "first line must be 'C NAME'")
    if m.group("arch") != "C":
        raise src.error(m.start("arch"), f"not a C litmus test (architecture {m.group('arch')})")
    name = m.group("name")
    info, init_span, prog_start = find_init(src, m.end())
    code, spans, prog_end = _scan_program(src, prog_start)
    cond_end = find_condition_end(src, prog_end) if prog_end < len(text) else prog_end
    tids = sorted(spans)
    if not tids:
        raise src.error(prog_start, "no thread: expected P0(...) { ... }")
    if tids != list(range(len(tids))):
        missing = next(i for i in range(len(tids) + 1) if i not in spans)
        raise src.error(prog_start, f"threads must be P0, P1, ... (P{missing} is missing)")
    nthreads = len(tids)
    init = parse_init(src, "C", init_span, nthreads)
    part = parse_condition(src, "C", (prog_end, cond_end), nthreads)
    ast = parse_c(preprocess(code, path), path)
    threads = []
    funcs = _thread_functions(ast, path)
    for tid in tids:
        func = funcs.get(tid)
        if func is None:
            raise src.error(spans[tid][0], f"P{tid} is not a function definition")
        params = []
        t = func.decl.type
        for p in t.args.params if isinstance(t, c_ast.FuncDecl) and t.args else []:
            if isinstance(p, c_ast.Decl):
                params.append((p.name, _type_text(p)))
        a, b = spans[tid]
        threads.append(CThread(tid, tuple(params), text[a:b], src.position(a)[0]))
    return CLitmus(
        name=name,
        doc=m.group("doc"),
        info=info,
        init=init,
        threads=tuple(threads),
        condition=part.condition,
        locations=part.locations,
        filter=part.filter,
        kinds=part.kinds,
        path=path,
        ast=ast,
    )


def _type_text(p: c_ast.Decl) -> str:
    s = c_generator.CGenerator().visit(p)
    return " ".join(s.split())


def _thread_functions(ast: c_ast.FileAST, path: str) -> dict[int, c_ast.FuncDef]:
    out = {}
    for item in ast.ext:
        if isinstance(item, c_ast.FuncDef):
            m = re.fullmatch(r"P(\d{1,9})", item.decl.name)
            if m:
                out[int(m.group(1))] = item
    return out


def _scan_program(src: Source, start: int) -> tuple[str, dict[int, tuple[int, int]], int]:
    """The C text to parse (positions kept: the header and init are blanked, line 1
    includes herdsman's litmus prelude), each thread's span, and where the condition
    starts."""
    text = src.text
    n = len(text)
    out = list(text)
    spans: dict[int, tuple[int, int]] = {}
    depth, i, current = 0, start, -1
    cond = n
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise src.error(i, "unterminated comment '/*'")
            i = j + 2
            continue
        if depth == 0:
            if text.startswith("(*", i):
                j = skip_comment(src, i)
                for k in range(i, j):
                    if out[k] != "\n":
                        out[k] = " "
                i = j
                continue
            km = _KEYWORD.match(text, i)
            if km is not None:
                cond = i
                break
            tm = _THREAD.match(text, i)
            if tm is not None and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                tid = int(tm.group(1))
                if tid in spans:
                    raise src.error(i, f"P{tid} is defined twice")
                current = tid
                spans[tid] = (i, i)
                nl = text.rfind("\n", 0, i)
                if nl >= start and not text[nl + 1 : i].strip():
                    out[nl] = " void\n"  # on the line before: columns stay right
                else:
                    out[i] = "void P"
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                raise src.error(i, "unbalanced '}'")
            if depth == 0 and current >= 0:
                spans[current] = (spans[current][0], i + 1)
                current = -1
        i += 1
    if depth != 0:
        raise src.error(cond, "unbalanced '{': a thread's code is not closed")
    body = "".join(out[start:cond])
    line, col = src.position(start)
    prelude = "#include <linux.h>" + "\n" * (line - 1) if line > 1 else ""
    if not prelude:
        body = "#include <linux.h>\n#line 1\n" + body  # never happens: line 1 is the header
    return prelude + " " * (col - 1) + body, spans, cond


# ----------------------------------------------------------------------------- lowering


def _init_type(it: InitItem) -> CType:
    atomic = bool(it.ctype and it.ctype.startswith("_Atomic"))
    base = CType("int", atomic)
    return pointer_to(INT) if it.pointer or isinstance(it.value, Sym) else base


def lower_c_litmus(
    test: CLitmus, target: str, macros: Macros | None = None, kernel_v2: bool = False
) -> Program:
    """The program of C litmus test ``test`` for ``target``; with ``macros`` (herd's
    ``-macros`` file) its calls are expanded first (:mod:`litmus.c.macros`), onto herd's
    primitives (:mod:`litmus.c.kernel`, whose events follow herd's variant ``lkmmv2``
    when ``kernel_v2``)."""
    path = test.path
    if target not in TARGETS:
        raise InputError(path, 0, 0, f"unknown target '{target}' (expected one of {TARGETS})")
    assert test.ast is not None
    ast = test.ast
    if macros is not None:
        if target != "c":
            raise InputError(
                macros.path, 0, 0, f"herd's macros need a cat model of C, not the {target} target"
            )
        ast = expand(ast, macros, path, {f"P{t.tid}" for t in test.threads})
    ctx = Context(path, target, TypeTable(path, widths=False), lkmm=True, kernel_v2=kernel_v2)
    memory = collect(ast, ctx)
    funcs = _thread_functions(ast, path)
    registers: dict[int, dict[str, Value]] = {t.tid: {} for t in test.threads}
    values: dict[str, Value] = {}
    for it in test.init:
        if isinstance(it.loc, MemLoc):
            ctx.globals.setdefault(it.loc.name, _init_type(it))
            values[it.loc.name] = 0 if it.value is None else it.value
        elif isinstance(it.loc, RegLoc):
            registers.setdefault(it.loc.tid, {})[it.loc.reg] = 0 if it.value is None else it.value
        elif isinstance(it.loc, SymRegLoc):
            raise InputError(path, 0, 0, "symbolic registers are not supported in C tests")
        if isinstance(it.value, Sym):
            ctx.globals.setdefault(it.value.name, INT)
    probe = CodeLowerer(ctx, 0)
    params: dict[int, list[Const]] = {}
    for th in test.threads:
        func = funcs[th.tid]
        binds = []
        for d in probe.params_of(func):
            t = probe.resolve(d)
            if t.kind != "ptr" or t.target is None:
                raise node_error(d, path, f"parameter '{d.name}' must be a pointer to a global")
            if t.target.kind == "struct" and t.target.name == "srcu_struct":
                t = pointer_to(INT)  # herd's srcu_struct: one cell
            assert t.target is not None
            binds.append(Const(Sym(d.name), t))
            old = ctx.globals.get(d.name)
            if old is None or (t.target.atomic and not old.atomic):
                ctx.globals[d.name] = t.target if t.target.kind != "void" else INT
        params[th.tid] = binds
    for loc in test.observed_locations():
        if isinstance(loc, MemLoc):
            ctx.globals.setdefault(loc.name, INT)
    for name in ctx.globals:
        if ctx.globals[name].scalar:
            memory.setdefault(name, values.get(name, 0))
    lowered = {}
    for th in test.threads:
        lw = CodeLowerer(ctx, th.tid)
        try:
            lw.thread(funcs[th.tid], list(params[th.tid]))
        except Demote:  # herd's C tests keep their locals in registers
            raise InputError(
                path, 0, 0, f"unsupported: P{th.tid} uses the address of a local variable"
            ) from None
        lowered[th.tid] = lw
    return assemble(
        ctx,
        test.name,
        memory,
        lowered,
        path,
        condition=test.condition,
        observed=tuple(test.observed_locations()),
        registers=registers,
        filter_=test.filter,
    )
