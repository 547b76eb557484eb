"""The one event type: what a thread does in one step of an execution.

An :class:`Event` is a named tuple (explorers create many): its kind, its thread and
position there, herd's instruction counter ``poi`` (the events of one instruction
instance share it: the read and the write of a read-modify-write), its location and value,
its fence kind or annotation sets, the front-end's text for the instruction that issued it,
and its dependencies on earlier events of its thread (herd's ``addr``/``data``/``ctrl``,
and ``valdep``: the reads its value is computed from), as bit masks over positions in the
thread.  Initial writes have thread ``-1``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from herdsman.graphs.symbolic import AnyValue
from herdsman.litmus.base.ir import Sym, Value

#: Event kinds: read, write, fence, branch commit (herd's ``B``), thread spawn and join;
#: ``U``, an update (a read and a write at once: herd's single amo event), which only
#: the skeletons a model judges have (:mod:`graphs.fuse`); ``K``: an event with a
#: location that is no memory access (herd's lock and SRCU events of the Linux kernel;
#: its ``fence`` field says which: LKR, LKW, UL, LF, RL, RU, SRCU); herd's register
#: events (a read or a write of a register: ``reg`` names it), made only for models that
#: compute dependencies themselves (herd's ``catdep``); and herd's event with no action
#: (``N``: an AArch64 jump or nop).
KINDS = ("R", "W", "F", "B", "S", "J", "U", "K", "Rreg", "Wreg", "N")

INIT = -1  # the thread of the initial writes


class Event(NamedTuple):
    """One event (see the module docstring).  For a spawn or join event (``S``/``J``),
    ``value`` is the other thread's id."""

    kind: str
    tid: int
    # position in its thread (-1 for an initial write); the field shadows tuple.index
    index: int  # type: ignore[assignment]  # a NamedTuple field named like a tuple method
    poi: int  # instruction instance in its thread (-1 for an initial write)
    loc: str | None = None
    value: AnyValue | None = None  # symbolic while an explorer has not chosen its reads
    fence: str | None = None
    annots: frozenset[str] = frozenset()
    instr: str = ""
    addr: int = 0  # positions of the reads its address depends on
    data: int = 0  # ... its stored value (or a branch's condition) depends on (data ports)
    ctrl: int = 0  # ... a po-earlier branch it follows depends on
    valdep: int = 0  # ... its stored value depends on, whatever the port
    reg: str | None = None  # the register of a register event
    iico: int = 0  # positions of its instruction's events it takes data from (iico_data)
    iico_ctrl: int = 0  # ... whose values decide whether it happens (iico_ctrl)

    @property
    def is_init(self) -> bool:
        return self.tid < 0

    @property
    def known_value(self) -> Value:
        """The value of an event whose value is known (a write's once its reads are
        chosen, a read's once it has read)."""
        v = self.value
        assert isinstance(v, (int, Sym)), f"{self} has no known value"
        return v

    @property
    def other(self) -> int:
        """The other thread of a spawn or join event."""
        v = self.value
        assert isinstance(v, int), f"{self.kind} event without a thread"
        return v

    @property
    def is_mem(self) -> bool:
        return self.kind == "R" or self.kind == "W" or self.kind == "U"

    def key(self) -> tuple:
        """Everything but the value (a spawn's or join's thread stays): events of one
        *shape* agree on it."""
        if self[0] == "S" or self[0] == "J":
            return tuple(self)
        return (*self[:5], *self[6:])


_new = tuple.__new__


def with_value(e: Event, value: AnyValue | None) -> Event:
    """``e`` with ``value`` (faster than ``_replace``, on hot paths)."""
    return _new(Event, (*e[:5], value, *e[6:]))


def init_write(loc: str, value: Value) -> Event:
    """The initial write of ``loc`` (one object per location and value: every skeleton
    of a campaign starts with them)."""
    return _init_write(loc, value, type(value) is bool)


@lru_cache(maxsize=4096)
def _init_write(loc: str, value: Value, _boolean: bool) -> Event:
    """:func:`init_write`, made once (``_boolean`` keeps ``1`` and ``True`` apart)."""
    return Event("W", INIT, -1, -1, loc=loc, value=value)
