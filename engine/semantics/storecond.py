"""A store-conditional's step: the two ways it may go (:class:`litmus.base.ir.StoreCond`).

When the reservation register holds the store's address, the store may succeed (a memory
write, status 0) or fail (no write, status 1): a :class:`state.Fork` of the two; when it
does not, only the failure.  Either way the reservation is cleared.  With register
events (herd's ``AArch64Sem.ml`` ``aarch64_store_conditional``) the success is: the
memory write, fed by the value and address reads (``iico_data``) and decided by the
reservation and address reads (``iico_ctrl``), the reservation's write (decided by the
reservation read), the status write; the failure: the reservation's and the status
writes.
"""

from __future__ import annotations

from herdsman.engine.semantics.access import address, loc_name, state_at
from herdsman.engine.semantics.arith import is_known, reads_of
from herdsman.engine.semantics.code import CompiledThread
from herdsman.engine.semantics.regevents import queued, reg_event, set_status, value_operand
from herdsman.engine.semantics.state import Access, Blocked, Fork, Stall, Step, ThreadState
from herdsman.graphs.events import Event
from herdsman.litmus.base.ir import StoreCond, Sym

_new = tuple.__new__


def store_conditional(
    th: CompiledThread, ins: StoreCond, st: ThreadState, acc: Access | None
) -> Step:
    """The ways the store-conditional at ``st.pc`` goes on (``acc``: its register reads,
    with register events; None without)."""
    pc, n, poi = st.pc, st.n, st.poi
    a, at = address(st.regs, st.taint, th.addr_ops[pc])
    res = st.regs[th.slots[ins.reserve]]
    res = 0 if res is None else res
    if a is None:
        return Blocked("an address is not a memory location")
    if not is_known(a) or not is_known(res):
        return Stall(reads_of(a) | reads_of(res))
    if type(a) is not Sym:
        return Blocked("an address is not a memory location")
    regs_f, taint_f = set_status(th, st, ins.status, ins.reserve, False)
    regs_s, taint_s = set_status(th, st, ins.status, ins.reserve, True)
    rread = 0
    if acc is not None:
        rread = next((1 << p for name, p in acc.reads if name == ins.reserve), 0)
    fail_w = _reg_writes(th, st, n, ins, 1, rread, acc)
    after_f = state_at(st, pc + 1, regs_f, taint_f, n + len(fail_w), poi + 1)
    fail = queued(n, fail_w, after_f)
    if res != a:
        return Fork((fail,))
    v, vt = value_operand(th, st)
    data, addr = (vt, at) if th.store_data_port else (0, at | vt)
    w = _new(
        Event,
        (
            "W",
            th.tid,
            n,
            poi,
            loc_name(a),
            v,
            None,
            ins.annots,
            th.origins[pc],
            addr,
            data,
            st.ctrl,
            vt,
            None,
            0 if acc is None else acc.iico,
            0 if acc is None else acc.iico_ctrl,
        ),
    )
    ok_w = (w, *_reg_writes(th, st, n + 1, ins, 0, rread, acc))
    after_s = state_at(st, pc + 1, regs_s, taint_s, n + len(ok_w), poi + 1)
    return Fork((queued(n, ok_w, after_s), fail))


def _reg_writes(
    th: CompiledThread, st: ThreadState, n: int, ins: StoreCond, status: int, rread: int, acc
) -> tuple[Event, ...]:
    """The reservation's and the status register's writes from position ``n`` (none
    without register events)."""
    if acc is None:
        return ()
    return (
        reg_event(th, st, n, "Wreg", ins.reserve, 0, iico_ctrl=rread),
        reg_event(th, st, n + 1, "Wreg", ins.status, status),
    )


__all__ = ["store_conditional"]
