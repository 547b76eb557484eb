"""The events a compiled thread's operations issue: memory accesses, fences, spawns,
joins, store-conditionals, ``free``, and the state once a read's value is chosen.

:class:`EventSteps` adds them to :class:`engine.semantics.compile.ThreadBase`; the step
function (:mod:`engine.semantics.step`) calls them when a thread reaches an operation with
an event.
"""

from __future__ import annotations

from typing import cast

from herdsman.engine.semantics.access import address as _address
from herdsman.engine.semantics.access import loaded as _loaded
from herdsman.engine.semantics.access import loc_name as _loc_name
from herdsman.engine.semantics.access import set_reg as _set
from herdsman.engine.semantics.access import sized as _sized
from herdsman.engine.semantics.access import state_at as _state
from herdsman.engine.semantics.arith import (
    AnyValue,
    EvalError,
    apply_op,
    is_known,
    outside_heap,
    reads_of,
)
from herdsman.engine.semantics.compile import _NO_REG, _NONE, ThreadBase, _new
from herdsman.engine.semantics.state import (
    Blocked,
    Emit,
    Fork,
    Pending,
    Read,
    Stall,
    Step,
    ThreadFailed,
    ThreadState,
)
from herdsman.graphs.events import Event
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Effect,
    Fence,
    Free,
    Imm,
    Instr,
    Join,
    Load,
    Lock,
    Operand,
    Spawn,
    Store,
    StoreCond,
    Sym,
    Unlock,
    Value,
)

#: GenMC's words for an access outside every allocation.
NON_ALLOCATED = "Attempt to access non-allocated memory"
#: ... for an access to memory freed (by its thread here; by another, engine.freed)
FREED = "Attempt to access freed memory"
#: ... for a second free of an allocation, and for a free of what no malloc gave
DOUBLE_FREE = "Double-free error"
FREE_NON_MALLOC = "Attempt to free non-allocated memory"
#: GenMC's memory errors: each its own heading (``Error: ...!``), not a safety violation
MEMORY_ERRORS = frozenset({NON_ALLOCATED, FREED, DOUBLE_FREE, FREE_NON_MALLOC})


def _freed(st: ThreadState, name: str) -> bool:
    """Whether the thread has freed allocation ``name``."""
    return any(a == name for a, _ in st.freed)


class EventSteps(ThreadBase):
    """A compiled thread's events (see the module docstring)."""

    def _value(self, th: ThreadBase, regs: tuple, name: str) -> AnyValue:
        v = regs[th.slots[name]]
        return 0 if v is None else v

    def _operand(self, th: ThreadBase, regs: tuple, taint: tuple, op: Operand) -> tuple:
        if isinstance(op, Imm):
            return op.value, 0
        i = th.slots[op.name]
        v = regs[i]
        return (0 if v is None else v), taint[i]

    def _event(self, th: ThreadBase, ins: Instr, st: ThreadState) -> Step:
        """The event of a memory access, fence, spawn or join at ``st.pc``."""
        pc, n, poi = st.pc, st.n, st.poi
        origin = th.origins[pc]
        cls = type(ins)
        if cls is Fence:
            kind, annots = th.fences[pc]
            ev = _new(
                Event,
                ("F", th.tid, n, poi, None, None, kind, annots, origin, 0, 0, st.ctrl, 0) + _NO_REG,
            )
            return _new(Emit, (ev, _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1), None))
        if isinstance(ins, StoreCond):
            return self._store_cond(th, ins, st)
        if cls is Spawn or cls is Join:
            assert isinstance(ins, (Spawn, Join))
            kind = "S" if cls is Spawn else "J"
            tgt: Value = ins.thread
            if isinstance(ins, Join) and ins.reg is not None:
                rv = self._value(th, st.regs, ins.reg)
                if not is_known(rv):
                    return Stall(reads_of(rv))
                if type(rv) is not int:
                    return ThreadFailed(f"join of an invalid thread ({rv})", pc, self._done(st))
                tgt = rv
            ev = Event(kind, th.tid, n, poi, value=tgt, instr=origin, ctrl=st.ctrl)
            return Emit(ev, _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1))
        loc = th.const_loc[pc]
        sym: AnyValue | None = None
        at = 0
        if loc is None:
            ops = th.addr_ops[pc]
            if len(ops) == 1 and (slot := ops[0][0]) >= 0 and type(st.regs[slot]) is Sym:
                a, at = st.regs[slot], st.taint[slot]  # one register holding an address
                if ops[0][1]:  # scaled (ir.Reg.shift): no address
                    a = None
            else:
                a, at = _address(st.regs, st.taint, ops)
            if a is None:
                return Blocked("an address is not a memory location")
            if type(a) is Sym:
                loc = _loc_name(a) if a.offset else a.name
                if st.freed and _freed(st, a.name):
                    return ThreadFailed(FREED, pc, self._done(st))
                if self.cells is not None and self.outside_allocation(a.name, loc):
                    return ThreadFailed(NON_ALLOCATED, pc, self._done(st))
                if a.name.startswith("heap@") and outside_heap(a):
                    return ThreadFailed(NON_ALLOCATED, pc, self._done(st))
            else:
                sym = a
        elif self.outside and pc in self.outside:
            return ThreadFailed(NON_ALLOCATED, pc, self._done(st))
        assert isinstance(ins, (Load, Store, RMW, CAS, Lock, Unlock, Effect))
        annots = ins.annots
        if isinstance(ins, Effect):  # herd's lock and SRCU events: a location, no value
            fields = ("K", th.tid, n, poi, loc, None, ins.kind, annots, origin, at, 0, st.ctrl, 0)
            after = _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1)
            return _new(Emit, (_new(Event, fields + _NO_REG), after, sym))
        if cls is Store or cls is Unlock:
            v: AnyValue = 0
            vt = 0
            if cls is Store:
                slot, v = th.args[pc][-1]
                if slot >= 0:
                    got, vt = st.regs[slot], st.taint[slot]
                    v = 0 if got is None else got
                size = cast(Store, ins).size
                if size < 4:  # a byte or half-word store writes the low bits
                    v = _sized(size, v)
            data, addr = (vt, at) if self.store_data_port else (0, at | vt)
            w = ("W", th.tid, n, poi, loc, v, None, annots, origin, addr, data, st.ctrl, vt)
            after = _state(st, pc + 1, st.regs, st.taint, n + 1, poi + 1)
            return _new(Emit, (_new(Event, w + _NO_REG), after, sym))
        r = ("R", th.tid, n, poi, loc, None, None, annots, origin, at, 0, st.ctrl, 0)
        return _new(Read, (_new(Event, r + _NO_REG), st, sym))

    def _store_cond(self, th: ThreadBase, ins: StoreCond, st: ThreadState) -> Step:
        """A store-conditional at ``st.pc``: it may fail (status 1, no event); it may
        succeed (its write, then status 0) when the reservation holds its address.  The
        reservation is cleared either way."""
        pc, n, regs, taint = st.pc, st.n, st.regs, st.taint
        a, at = _address(regs, taint, th.addr_ops[pc])
        rslot, sslot = th.slots[ins.reserve], th.slots[ins.status]
        held = regs[rslot]
        held = 0 if held is None else held
        for x in (a, held):
            if x is not None and not is_known(x):
                return Stall(reads_of(x))
        regs, taint = _set(regs, taint, rslot, 0, 0)
        fregs, ftaint = _set(regs, taint, sslot, 1, 0)
        fail = _state(st, pc + 1, fregs, ftaint, n, st.poi + 1)
        if type(a) is not Sym or held != a:
            return _new(Fork, ((fail,),))
        slot, imm = th.args[pc][-1]
        v: AnyValue = imm
        vt = 0
        if slot >= 0:
            got = st.regs[slot]
            v, vt = (0 if got is None else got), st.taint[slot]
        loc = _loc_name(a)
        fields = (
            "W",
            th.tid,
            n,
            st.poi,
            loc,
            v,
            None,
            ins.annots,
            th.origins[pc],
            at,
            vt,
            st.ctrl,
            vt,
        ) + _NO_REG
        status_taint = (at | (1 << n)) if ins.status_deps else 0
        pend = Pending(_new(Event, fields), 1, "skip", sslot, 0, status_taint)
        ok = _new(
            ThreadState, (pc, regs, taint, st.ctrl, n, st.poi, st.loops, pend, st.cut, st.freed)
        )
        return _new(Fork, ((fail, ok),))

    def _free(self, th: ThreadBase, ins: Free, st: ThreadState) -> tuple[ThreadState, Step | None]:
        """Release the heap allocation ``ins`` names: (the state after, or the error)."""
        a, _ = _address(st.regs, st.taint, th.addr_ops[st.pc])
        if a is None or not is_known(a):
            return st, None if a is None else Stall(reads_of(a))
        if type(a) is not Sym or not a.name.startswith("heap@") or a.offset:
            return st, ThreadFailed(FREE_NON_MALLOC, st.pc, self._done(st))
        if _freed(st, a.name):
            return st, ThreadFailed(DOUBLE_FREE, st.pc, self._done(st))
        return st._replace(freed=(*st.freed, (a.name, st.n))), None

    def plain_after_read(self, read: Read, value: AnyValue) -> ThreadState:
        """:meth:`after_read` without register events."""
        th = self
        tid = self.tid
        st, ev = read.at, read.event
        ins = th.code[st.pc]
        r = st.n
        regs, taint = st.regs, st.taint
        try:
            if isinstance(ins, Load):
                if ins.widen or ins.size < 4 or ins.sign:  # part of the register's width
                    value = _loaded(ins, value)
                regs, taint = _set(regs, taint, th.slots[ins.dst], value, 1 << r)
                if ins.reserve is not None:
                    ops = cast(tuple[tuple[int, Value], ...], th.addr_ops[st.pc])
                    a, at = _address(st.regs, st.taint, ops)
                    regs, taint = _set(regs, taint, th.slots[ins.reserve], a, at)
                return _state(st, st.pc + 1, regs, taint, r + 1, st.poi + 1)
            dst = -1
            if isinstance(ins, (RMW, CAS)):
                dst = th.slots[ins.dst] if ins.dst else -1
            if isinstance(ins, RMW):
                src, stain = self._operand(th, regs, taint, ins.src)
                new = apply_op(ins.fn, [value, src])
                if ins.sets_cr:
                    flags = apply_op("cmp", [new, 0])
                    regs, taint = _set(regs, taint, th.cr0, flags, stain | (1 << r))
                guard: AnyValue = 1
                fail = "skip"
            elif isinstance(ins, CAS):
                dst = th.slots[ins.dst] if ins.dst else -1
                exp, _ = self._operand(th, regs, taint, ins.expected)
                new, stain = self._operand(th, regs, taint, ins.desired)
                guard = apply_op("eq", [value, exp])
                fail = "skip"
            else:  # Lock
                new, stain, dst = 1, 0, -1
                guard = apply_op("eq", [value, 0])
                fail = "block"
        except EvalError as e:
            raise self._error(th, st.pc, str(e)) from None
        # the new value of a read-modify-write is computed from the old one (but an
        # exchange's is its operand's alone)
        valdep = stain | (1 << r) if isinstance(ins, RMW) and ins.fn != "second" else stain
        wannots = ins.write_annots if isinstance(ins, (RMW, CAS)) else None
        annots = ev.annots if wannots is None else wannots
        w = _new(
            Event,
            ("W", tid, r + 1, st.poi, ev.loc, new, None, annots, ev.instr, ev.addr, stain)
            + (st.ctrl, valdep)
            + _NO_REG,
        )
        pend = _new(Pending, (w, guard, fail, dst, value, 1 << r))
        # (st with the registers, the next position and the write pending, no _replace)
        return _new(
            ThreadState,
            (st.pc, regs, taint, st.ctrl, r + 1, st.poi, st.loops, pend, st.cut, st.freed),
        )


def nop_event(th: ThreadBase, st: ThreadState, pc: int, poi: int) -> Event:
    """herd's event with no action, of a jump or a nop (on architectures that issue one)."""
    return _new(
        Event,
        ("N", th.tid, st.n, poi, None, None, None, _NONE, th.origins[pc], 0, 0, st.ctrl, 0)
        + _NO_REG,
    )


__all__ = ["EventSteps", "nop_event"]
