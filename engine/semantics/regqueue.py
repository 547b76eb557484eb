"""Register events and the queue of an instruction's events (herd's ``catdep`` view:
:mod:`engine.semantics.regevents`): the event of a register read or write, and the state
that emits an instruction's events one step at a time."""

from __future__ import annotations

from herdsman.engine.semantics.code import CompiledThread
from herdsman.engine.semantics.state import Emit, Queued, ThreadState
from herdsman.graphs.events import Event

_new = tuple.__new__
_RREG = frozenset({"Rreg"})
_RREG_DATA = frozenset({"Rreg", "DATA"})
_WREG = frozenset({"Wreg"})


def reg_event(
    th: CompiledThread,
    st: ThreadState,
    n: int,
    kind: str,
    reg: str,
    value: object,
    data_port: bool = False,
    iico: int = 0,
    iico_ctrl: int = 0,
) -> Event:
    """A register read (``Rreg``) or write (``Wreg``) of ``reg`` at position ``n`` of
    the instruction at ``st.pc``."""
    if kind == "Rreg":
        annots = _RREG_DATA if data_port else _RREG
    else:
        annots = _WREG
    return _new(
        Event,
        (
            kind,
            th.tid,
            n,
            st.poi,
            None,
            0 if value is None else value,
            None,
            annots,
            th.origins[st.pc],
            0,
            0,
            st.ctrl,
            0,
            reg,
            iico,
            iico_ctrl,
        ),
    )


def with_pending(st: ThreadState, n: int, pending: object) -> ThreadState:
    """``st`` with event count ``n`` and ``pending`` (the hot path: no ``_replace``)."""
    return _new(ThreadState, (st[0], st[1], st[2], st[3], n, st[5], st[6], pending, st[8], st[9]))


def queued(n: int, events: tuple[Event, ...], after: ThreadState) -> ThreadState:
    """The state whose next steps emit ``events`` (the first at position ``n``), then go
    on as ``after``."""
    if not events:
        return after
    return with_pending(after, n, _new(Queued, (events, after)))


def dequeue(st: ThreadState, p: Queued) -> Emit:
    """Emit the next queued event of an instruction."""
    ev = p.events[0]
    rest = p.events[1:]
    nxt = p.after if not rest else with_pending(st, st[4] + 1, _new(Queued, (rest, p.after)))
    return _new(Emit, (ev, nxt, None))


__all__ = ["dequeue", "queued", "reg_event", "with_pending"]
