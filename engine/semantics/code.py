"""What an instruction with several events needs of a compiled thread.

:class:`CompiledThread` is the part of :class:`engine.semantics.step.ThreadCode` that
:mod:`engine.semantics.regevents` and :mod:`engine.semantics.storecond` use: the thread's
code and register slots, and the step function's own steps for an operation, a branch,
an access, the end at the unrolling bound.  A protocol, so that the step function
imports them and not the other way round.
"""

from __future__ import annotations

from typing import Protocol

from herdsman.engine.semantics.arith import AnyValue
from herdsman.engine.semantics.state import Access, Read, Step, ThreadState
from herdsman.litmus.base.ir import Branch, Instr, Op, Value


class CompiledThread(Protocol):
    """A thread compiled for the step function (see the module docstring)."""

    tid: int
    code: tuple[Instr, ...]
    origins: tuple[str, ...]
    joined: frozenset[int]  # operations continuing their predecessor's instruction
    slots: dict[str, int]
    names: tuple[str, ...]
    order: tuple[tuple[int, str], ...]
    cr0: int
    #: per operation: its operands as (register slot or -1, immediate value)
    args: list[tuple[tuple[int, Value], ...]]
    #: per memory access: the operands of its address
    addr_ops: list[tuple[tuple[int, Value], ...]]
    store_data_port: bool
    nop_events: bool
    #: per memory access, what its register events issue (:mod:`engine.semantics.regevents`)
    access_plans: dict[int, tuple]

    def cut_end(self, st: ThreadState) -> Step: ...

    def apply_op(self, ins: Op, cargs: tuple, regs: tuple, taint: tuple) -> tuple[tuple, tuple]: ...

    def branch_step(
        self, ins: Branch, st: ThreadState, pc: int, regs: tuple, taint: tuple, poi: int
    ) -> tuple[Step | None, ThreadState, int]: ...

    def event_step(self, ins: Instr, st: ThreadState, acc: Access | None = None) -> Step: ...

    def plain_after_read(self, read: Read, value: AnyValue) -> ThreadState: ...

    def nop_step(self, st: ThreadState) -> Step: ...

    def error_at(self, pc: int, why: str) -> Exception: ...


__all__ = ["CompiledThread"]
