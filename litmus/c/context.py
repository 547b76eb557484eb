"""What the lowering of one C program shares across its threads: the path, the target,
the types, the globals and functions, the static thread handles, and the threads still to
lower (``pthread_create`` queues them, numbered in static creation order)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from herdsman.litmus.base.ir import Value
from herdsman.litmus.c.ctype import CType, TypeTable


@dataclass
class PendingThread:
    """A thread ``tid`` running ``func`` with argument ``arg`` (``None``: no argument)."""

    tid: int
    func: c_ast.FuncDef
    arg: Value | None


@dataclass
class Context:
    path: str
    target: str
    types: TypeTable
    lkmm: bool = False  # C litmus tests: the Linux kernel's names win over C11's
    kernel_v2: bool = False  # herd's variant lkmmv2: the events of litmus.c.kernel
    globals: dict[str, CType] = field(default_factory=dict)
    functions: dict[str, c_ast.FuncDef] = field(default_factory=dict)
    prototypes: set[str] = field(default_factory=set)
    handles: dict[tuple[str, int], int] = field(default_factory=dict)  # global pthread_t
    pending: list[PendingThread] = field(default_factory=list)
    nthreads: int = 1

    def new_thread(self, func: c_ast.FuncDef, arg: Value | None) -> int:
        tid = self.nthreads
        self.nthreads += 1
        self.pending.append(PendingThread(tid, func, arg))
        return tid
