"""The C front-end: C programs (GenMC-style, with pthreads, C11 atomics, assert/assume)
and herd's C litmus tests, lowered to the program IR for a *target* (``tso``, ``pso``,
``power`` or ``c``: which operations C's accesses become depends on the memory model).

Pipeline: :mod:`.preprocess` (pcpp with herdsman's own headers in ``headers/``),
:mod:`.parse` (pycparser), :mod:`.lower_program` (globals, threads) over
:mod:`.lower_stmt`, :mod:`.lower_call` and :mod:`.lower_expr` (one thread's code), with
:mod:`.target` (the per-target mapping table) and :mod:`.ctype` (C types).  C litmus
tests: :mod:`.litmus_c`.

Conventions (ARCHITECTURE.md and DEVELOPERS.md): thread 0 is ``main``; each
``pthread_create`` is a static :class:`~herdsman.litmus.base.ir.Spawn` of a new thread id
(loops around it must unroll at compile time); memory is allocations holding cells
(:mod:`.context`: globals, thread-locals, each thread's stack, the heap), a pointer an
allocation and an offset (``a``, ``a+1``... for arrays and structs); scalar locals are
registers unless their address must exist at run time; functions are inlined (calls
through pointers compare with each function whose address is taken); ``_Atomic``
objects (``atomic_int`` is ``typedef _Atomic int``) are accessed seq_cst by plain C
syntax; loops run as GenMC runs them (:mod:`.loops`, :mod:`.spin`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from herdsman.litmus.base.deep import run_deep
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Program
from herdsman.litmus.base.source import read_source
from herdsman.litmus.c import litmus_c
from herdsman.litmus.c.litmus_c import CLitmus, CThread
from herdsman.litmus.c.lower_program import lower_program
from herdsman.litmus.c.macros import Macros
from herdsman.litmus.c.parse import parse_c
from herdsman.litmus.c.preprocess import HEADERS, preprocess
from herdsman.litmus.c.target import TARGETS

__all__ = [
    "TARGETS",
    "CLitmus",
    "CThread",
    "c_program_from_text",
    "load_c_program",
    "lower_c_litmus",
    "parse_c_litmus",
]


def c_program_from_text(
    text: str,
    path: str = "<string>",
    target: str = "tso",
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[str] = (),
    unroll: int | None = None,
    no_unroll: Sequence[str] = (),
) -> Program:
    """The program of C source ``text`` (read from ``path``) for ``target`` (read and
    lowered with room for deep nesting: :func:`~litmus.base.deep.run_deep`); ``unroll``:
    GenMC's ``-unroll`` (a loop's head runs at most that often per entry; None: no bound)
    except in the functions ``no_unroll``."""
    if target not in TARGETS:
        raise InputError(path, 0, 0, f"unknown target '{target}' (expected one of {TARGETS})")

    def work() -> Program:
        try:
            ast = parse_c(preprocess(text, path, defines, include_dirs), path)
        except InputError as e:
            raise _in_user_file(e, text, path) from None
        name = Path(path).stem if path and not path.startswith("<") else "program"
        program = lower_program(ast, path, name, target, unroll, frozenset(no_unroll))
        return replace(program, loop_bound="none")  # the program bounds its own loops

    return run_deep(path, work)


def parse_c_litmus(text: str, path: str) -> CLitmus:
    """The C litmus test ``text`` (from ``path``), parsed with room for deep nesting."""
    return run_deep(path, lambda: litmus_c.parse_c_litmus(text, path))


def lower_c_litmus(
    test: CLitmus, target: str, macros: Macros | None = None, kernel_v2: bool = False
) -> Program:
    """The program of the C litmus test ``test`` for ``target`` (with herd's ``macros``,
    and its variant ``lkmmv2`` when ``kernel_v2``: :func:`litmus_c.lower_c_litmus`),
    lowered with room for deep nesting."""
    return run_deep(
        test.path, lambda: litmus_c.lower_c_litmus(test, target, macros, kernel_v2=kernel_v2)
    )


def _in_user_file(e: InputError, text: str, path: str) -> InputError:
    """A syntax error pycparser places in one of herdsman's headers (the user's code
    before an ``#include`` is unfinished) moved to that ``#include`` of the user's file."""
    if e.path == path or Path(e.path).resolve().parent != HEADERS.resolve():
        return e
    name = re.escape(Path(e.path).name)
    m = re.search(rf"^[ \t]*#[ \t]*include[ \t]*[<\"]{name}[>\"]", text, re.M)
    line = text.count("\n", 0, m.start()) + 1 if m else 1
    return InputError(
        path, line, 1, f"{e.message}, in <{Path(e.path).name}>: the code before it is unfinished"
    )


def load_c_program(
    path: str,
    target: str = "tso",
    defines: Mapping[str, str] | None = None,
    include_dirs: Sequence[str] = (),
    unroll: int | None = None,
    no_unroll: Sequence[str] = (),
) -> Program:
    """The program of the C file at ``path`` for ``target`` (see
    :func:`c_program_from_text`)."""
    text = read_source(path).text
    return c_program_from_text(text, path, target, defines, include_dirs, unroll, no_unroll)
