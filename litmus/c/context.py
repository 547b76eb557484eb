"""What the lowering of one C program shares across its threads: the path, the target,
the types, the globals (and thread-locals) and functions, the memory cells made so far,
the threads still to lower (``pthread_create`` queues them, numbered in static creation
order), and GenMC's loop bound.

Memory is allocations holding cells, named (the IR's :class:`~litmus.base.ir.Sym` is an
allocation and an offset in cells): a global ``x``; thread ``t``'s copy ``x@t2`` of a
thread-local ``x``; ``f.v@t1``, local ``v`` of function ``f`` on thread 1's stack;
``str.1``, a string literal; the heap allocations a thread makes at run time are named
``heap@t1#0``, ``heap@t1#1``... (its first, second...; see :mod:`litmus.c.lower_memory`);
``__arg`` and ``__ret`` hold, per thread number, a thread's argument and result when
they are not known at compile time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from herdsman.litmus.base.ir import Sym, Value
from herdsman.litmus.c.ctype import CType, TypeTable

#: The allocations of threads' arguments and results (one cell per thread number).
ARGS, RESULTS = "__arg", "__ret"


@dataclass
class PendingThread:
    """A thread ``tid`` running ``func`` with argument ``arg`` (``None``: no argument;
    ``arg_in_memory``: its creator writes it to the thread's ``__arg`` cell), spawned by
    thread ``parent`` at operation ``at`` of its code; ``declared``: by
    ``__VERIFIER_spawn_symmetric``, the program's word that it is symmetric to an earlier
    thread."""

    tid: int
    func: c_ast.FuncDef
    arg: Value | None
    arg_in_memory: bool = False
    parent: int = 0
    at: int = 0
    declared: bool = False


@dataclass
class Context:
    path: str
    target: str
    types: TypeTable
    lkmm: bool = False  # C litmus tests: the Linux kernel's names win over C11's
    kernel_v2: bool = False  # herd's variant lkmmv2: the events of litmus.c.kernel
    unroll: int | None = None  # GenMC's -unroll: a loop's head runs at most this often
    no_unroll: frozenset[str] = frozenset()  # functions whose loops are not bounded
    globals: dict[str, CType] = field(default_factory=dict)
    tls: dict[str, CType] = field(default_factory=dict)  # thread-local globals
    tls_init: dict[str, dict[int, Value]] = field(default_factory=dict)
    functions: dict[str, c_ast.FuncDef] = field(default_factory=dict)
    prototypes: dict[str, CType] = field(default_factory=dict)
    pointed: set[str] = field(default_factory=set)  # functions whose address is taken
    memory: dict[str, Value] = field(default_factory=dict)  # every cell, initial value
    strings: dict[str, Sym] = field(default_factory=dict)
    pending: list[PendingThread] = field(default_factory=list)
    nthreads: int = 1
    results: bool = False  # some join reads a thread's result
    constant: set[str] = field(default_factory=set)  # scalar globals nothing writes
    demoted: dict[int, set[int]] = field(default_factory=dict)  # per thread

    def new_thread(
        self,
        func: c_ast.FuncDef,
        arg: Value | None,
        in_memory: bool,
        parent: int,
        at: int,
        declared: bool = False,
    ) -> int:
        tid = self.nthreads
        self.nthreads += 1
        self.pending.append(PendingThread(tid, func, arg, in_memory, parent, at, declared))
        return tid

    def cells(self, base: Sym, t: CType, init: dict[int, Value] | None = None) -> None:
        """Make the memory cells of an object of type ``t`` at ``base`` (initial values
        by offset, 0 elsewhere)."""
        for off in scalar_offsets(t, base.offset):
            self.memory.setdefault(str(Sym(base.name, off)), (init or {}).get(off, 0))

    def checkpoint(self) -> tuple[int, int, int, int]:
        return (self.nthreads, len(self.pending), len(self.memory), len(self.strings))

    def rollback(self, cp: tuple[int, int, int, int]) -> None:
        """Forget the threads, cells and strings made since ``cp`` (a thread lowered
        again)."""
        self.nthreads, npending, nmem, nstr = cp
        del self.pending[npending:]
        for k in list(self.memory)[nmem:]:
            del self.memory[k]
        for k in list(self.strings)[nstr:]:
            del self.strings[k]


def scalar_offsets(t: CType, base: int) -> list[int]:
    """Offsets of the memory cells (the scalars) of an object of type ``t`` at ``base``,
    in order (a union's members share theirs)."""
    if t.kind == "array":
        assert t.target is not None
        step = t.target.size
        inner = scalar_offsets(t.target, 0)
        return [base + i * step + o for i in range(max(t.length, 0)) for o in inner]
    if t.kind in ("struct", "union"):
        out: list[int] = []
        for _, off, ft in t.layout():
            out += scalar_offsets(ft, base + off)
        return sorted(set(out)) if t.kind == "union" else out
    return [base] if t.scalar else []
