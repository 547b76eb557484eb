"""What the step function works on and answers: thread states and the kinds of steps.

A thread's state (:class:`ThreadState`) is an immutable named tuple, cheap to copy, hash
and compare.  A step (:data:`Step`) is what the thread does next: an event other than a
read with the state after it (:class:`Emit`), a read whose value is to be chosen
(:class:`Read`), or the end: finished (:class:`ThreadDone`), blocked for good
(:class:`Blocked`), an assertion failed (:class:`ThreadFailed`), or waiting for read
values not chosen yet (:class:`Stall`); or a choice of the thread's own (:class:`Fork`).
See :mod:`engine.semantics.step`.
"""

from __future__ import annotations

from typing import NamedTuple

from herdsman.engine.semantics.arith import AnyValue
from herdsman.graphs.events import Event
from herdsman.litmus.base.ir import Value


class Pending(NamedTuple):
    """The rest of a read-modify-write once its read is done: the write (``event``), made
    only if ``guard`` (a value) is non-zero, else the thread blocks (``fail == "block"``:
    a lock held) or goes on without writing (``"skip"``: a failed compare-and-swap); then
    register ``dst`` (a slot, -1 for none) gets ``dst_value`` with taint ``dst_taint``.
    With register events a compare-and-swap goes two ways from its start
    (:mod:`engine.semantics.rmwevents`): the succeeding one blocks on a zero ``guard``
    (``"block"``), the failing one (``"fails"``) on a non-zero one."""

    event: Event
    guard: AnyValue
    fail: str
    dst: int
    dst_value: AnyValue
    dst_taint: int


class Queued(NamedTuple):
    """The rest of an instruction's events when it issues several (register events:
    herd's ``catdep`` view): ``events`` still to emit (positions fixed), then the thread
    goes on from ``after``."""

    events: tuple[Event, ...]
    after: ThreadState


class Access(NamedTuple):
    """An instruction's register reads are done and its memory access comes next:
    ``iico``/``iico_ctrl`` are the positions of the reads feeding it (its data, and what
    decides whether it happens), ``reads`` those of the reads by register name;
    ``fails``: the way of a compare-and-swap that fails (its read is no atomic one)."""

    iico: int
    iico_ctrl: int
    reads: tuple[tuple[str, int], ...]
    fails: bool = False


class ThreadState(NamedTuple):
    """A thread's state between two events (see the module docstring)."""

    pc: int  # index of the next operation
    regs: tuple[AnyValue | None, ...]  # per register slot (None: never set, reads as 0)
    taint: tuple[int, ...]  # per register slot: the reads its value comes from
    ctrl: int  # the reads that reached a branch commit so far
    n: int  # events so far (the next event's position)
    poi: int  # instructions executed so far (the next one's herd poi)
    loops: tuple[int, ...]  # per backward-branch target: the times it was jumped to
    #: the write of a read-modify-write after its read; with register events, the rest
    #: of the instruction (:class:`Queued`) or its access (:class:`Access`)
    pending: Pending | Queued | Access | None = None
    cut: bool = False  # stopped by the unrolling bound
    #: the heap allocations the thread released, each with the position its next event
    #: had then (the free's place in po, for the check of other threads' accesses)
    freed: tuple[tuple[str, int], ...] = ()


class Emit(NamedTuple):
    """The next event is ``event`` (not a read); ``after`` is the state after it.
    ``address``: the symbolic address when it is not known yet (``event.loc`` None)."""

    event: Event
    after: ThreadState
    address: AnyValue | None = None


class Read(NamedTuple):
    """The next event is the read ``event`` (its value is to be chosen); ``at`` is the
    thread's state at the read (:meth:`Semantics.after_read` goes on from it)."""

    event: Event
    at: ThreadState
    address: AnyValue | None = None


class ThreadDone(NamedTuple):
    """The thread has ended with these register ``values`` (per slot; ``None``: never
    set); ``slots`` names the slots.  ``cut``: stopped by a loop bound, so not finished
    for a join (:func:`finished`): herd's unrolling bound (the execution only marks the
    verdict ``Loop``) or GenMC's ``-unroll`` (a C program's ``Kill``: the thread ends
    there, and the execution is complete unless a join waits for it)."""

    values: tuple[AnyValue | None, ...]
    cut: bool
    slots: dict[str, int]
    order: tuple[tuple[int, str], ...]  # (slot, name) in name order
    frees: tuple[tuple[str, int], ...] = ()  # ThreadState.freed: what it released, where

    @property
    def regs(self) -> tuple[tuple[str, AnyValue], ...]:
        """The registers the thread has set (or was given), by name."""
        v = self.values
        return tuple([(name, x) for i, name in self.order if (x := v[i]) is not None])

    def reg(self, name: str, default: Value = 0) -> AnyValue:
        """The final value of register ``name``."""
        i = self.slots.get(name)
        v = None if i is None else self.values[i]
        return default if v is None else v


class Blocked(NamedTuple):
    """The thread can never go on (``why``)."""

    why: str


def finished(end: object) -> bool:
    """Whether a thread that ended so (a step) has finished for a join: it ran to its
    end or failed an assertion, and no loop bound stopped it (GenMC: a join of a thread
    its loop bound killed blocks)."""
    return type(end) is ThreadDone and not end.cut or type(end) is ThreadFailed


class ThreadFailed(NamedTuple):
    """An assertion failed: the execution is an error (``message``, at ``site``: the
    operation's index in its thread).  The thread stops there; ``done`` is how it ended
    (its registers then), so that the execution still has a final state."""

    message: str
    site: int
    done: ThreadDone


class Stall(NamedTuple):
    """The next step needs the values of the reads in ``waits`` (a mask of positions)."""

    waits: int


class Fork(NamedTuple):
    """The thread goes on from any one of ``states``, a choice no event records (a
    store-conditional may fail, or succeed)."""

    states: tuple[ThreadState, ...]


class Choice(NamedTuple):
    """The thread goes on in one of ``len(targets)`` ways (herd's alternatives, the IR's
    ``Choose``): :meth:`ThreadCode.after_choice` gives the state after choice ``k``."""

    targets: tuple[int, ...]  # the pc of each way
    at: ThreadState


Step = Emit | Read | ThreadDone | Blocked | ThreadFailed | Stall | Fork | Choice
