"""One thread of the program IR compiled for the step function, and what is known of it
before it runs.

:class:`ThreadBase` holds a thread's register slots, labels, backward-branch targets and
each operation's operands as (register slot or -1, immediate value); it bounds the events
and writes of any execution of the thread (:meth:`ThreadBase.max_events`), for explorers
that reserve room.  :mod:`engine.semantics.events` adds the events of its operations and
:mod:`engine.semantics.step` the step function.
"""

from __future__ import annotations

from collections.abc import Callable

from herdsman.engine.semantics import regevents
from herdsman.engine.semantics.access import address as _address
from herdsman.engine.semantics.state import (
    ThreadDone,
    ThreadState,
)
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assert,
    Assume,
    Branch,
    Choose,
    Effect,
    Exit,
    Fence,
    Free,
    Instr,
    Join,
    Label,
    Load,
    Lock,
    Nop,
    Op,
    Operand,
    Reg,
    Select,
    Spawn,
    Store,
    StoreCond,
    Sym,
    Thread,
    Unlock,
    Value,
)
from herdsman.litmus.base.memo import by_identity

#: Named tuples are made with ``tuple.__new__`` on the hot paths (no Python-level call).
_new = tuple.__new__
_NONE: frozenset[str] = frozenset()
#: The last fields of an event that is no register event: ``reg``, ``iico``, ``iico_ctrl``.
_NO_REG = (None, 0, 0)


class StepError(Exception):
    """A thread does what no program may (an operation herd cannot perform, a branch to
    no label): the message names the thread and the operation; the explorer reports it
    as bad input of the program's file."""


class ThreadBase:
    """One thread compiled (see the module docstring).  It depends only on the thread's
    code, initial registers and architecture facts."""

    def __init__(
        self,
        tid: int,
        thread: Thread,
        registers: tuple[tuple[str, Value], ...],
        branch_commit: bool,
        store_data_port: bool,
        unroll: int,
        bound_blocks: bool = False,
        regs: bool = False,
        nop_events: bool = False,
        cells: frozenset[str] | None = None,
    ) -> None:
        self.tid = tid
        # C programs: every cell of the globals and stacks, and their allocations (an
        # access to a cell outside its allocation is an error); None: no such check
        self.cells = cells
        self.allocations = frozenset(c.partition("+")[0] for c in cells) if cells else _NONE
        #: the accesses whose constant address is outside its allocation
        self.outside: set[int] = set()
        self.bound_blocks = bound_blocks
        self.regs = regs  # herd's register events too (engine.semantics.regevents)
        self.nop_events = nop_events  # jumps and nops issue an empty event (Arch)
        self._max_events: int | None = None  # computed once (compiled threads are shared)
        self._max_writes: int | None = None
        self._live: list[tuple[int, ...] | None] | None = None
        #: per memory access, what its register events issue (engine.semantics.regevents)
        self.access_plans: dict[int, tuple] = {}
        self.code: tuple[Instr, ...] = thread.code
        self.origins = thread.origins
        self.joined = thread.joined  # their events take the poi of the operation before
        self.branch_commit = branch_commit
        self.store_data_port = store_data_port
        self.unroll = unroll
        init = dict(registers)
        slots: dict[str, int] = {name: i for i, name in enumerate(init)}
        self.labels: dict[str, int] = {}
        infos = []
        for i, ins in enumerate(self.code):
            if type(ins) is Label:
                self.labels[ins.name] = i
                infos.append(_NO_INFO)
                continue
            info = _info(ins)
            infos.append(info)
            for r in info[0]:
                if r not in slots:
                    slots[r] = len(slots)
        self.slots = slots
        self.names = tuple(slots)
        # (by name: the names are distinct)
        by_name = sorted(zip(self.names, range(len(slots)), strict=True))
        self.order = tuple([(i, name) for name, i in by_name])
        self.cr0 = slots.get("cr0", -1)
        self.init_regs = tuple([init.get(r) for r in self.names])
        # per operation: its operands as (register slot or -1, immediate value); per
        # memory access, its address operands, and its location when they are all
        # immediates (X86's [x]: known before the thread runs)
        self.args: list[tuple[tuple[int, Value], ...]] = []
        self.addr_ops: list[tuple[tuple[int, Value], ...]] = []
        self.const_loc: list[str | None] = []
        for _regs, operands, naddr in infos:
            # a register's immediate: its shift in an address (ir.Reg.shift)
            cargs: tuple[tuple[int, Value], ...] = ()
            if operands:
                cargs = tuple(
                    [(slots[x], k) if isinstance(x, str) else (-1, x) for _, x, k in operands]
                )
            self.args.append(cargs)
            ops = cargs[:naddr] if naddr else ()
            self.addr_ops.append(ops)
            loc = None
            if ops and max([slot for slot, _ in ops]) < 0:
                a, _ = _address((), (), ops)
                loc = str(a) if isinstance(a, Sym) else None
                if isinstance(a, Sym) and self.outside_allocation(a.name, str(a)):
                    self.outside.add(len(self.const_loc))
            self.const_loc.append(loc)
        back: dict[int, int] = {}
        #: no branch nor choice: every execution runs the code once, straight through
        self.straight = True
        for i, ins in enumerate(self.code):
            if type(ins) is Choose or type(ins) is Branch:
                self.straight = False
            if type(ins) is Choose:
                for t in ins.targets:
                    tgt = self.labels.get(t)
                    if tgt is None or tgt <= i:
                        raise StepError(f"P{tid}: a choice of no forward label '{t}'")
            if type(ins) is Branch:
                tgt = self.labels.get(ins.target)
                if tgt is None:
                    raise StepError(f"P{tid}: branch to undefined label '{ins.target}'")
                if tgt <= i:
                    back.setdefault(tgt, len(back))
        self.back = back  # backward-branch target -> its slot in ThreadState.loops
        # per fence operation: its event's fence kind and annotation sets
        self.fences = {
            i: fence_parts(ins.kind) for i, ins in enumerate(self.code) if type(ins) is Fence
        }

    def outside_allocation(self, name: str, loc: str) -> bool:
        """Whether the cell ``loc`` of allocation ``name`` lies outside it (C programs)."""
        return self.cells is not None and loc not in self.cells and name in self.allocations

    def static_loc(self, pc: int) -> str | None:
        """The location the access at ``pc`` names with the thread's initial registers
        (None: none), for estimates before the thread runs."""
        loc = self.const_loc[pc]
        if loc is None:
            a, _ = _address(self.init_regs, (0,) * len(self.init_regs), self.addr_ops[pc])
            loc = str(a) if isinstance(a, Sym) else None
        return loc

    # ------------------------------------------------------------------ states
    def start(self) -> ThreadState:
        th = self
        zeros = (0,) * len(th.names)
        return ThreadState(0, th.init_regs, zeros, 0, 0, 0, (0,) * len(th.back))

    def initial(self) -> ThreadDone:
        """How a thread that never ran ends: with its initial registers."""
        return _new(ThreadDone, (self.init_regs, False, self.slots, self.order, ()))

    def max_events(self, unroll: int | None = None) -> int:
        """An upper bound of the events of any execution of the thread: the longest
        path through its code, both ways at every conditional branch, backward branches
        taken at most the thread's bound.  With ``unroll``, an estimate for a thread
        whose loops are not bounded (explorers reserve that much room, and grow it when
        the thread needs more): backward branches taken at most ``unroll`` times, or
        fewer where that path has too many states (:data:`ESTIMATE_STATES`)."""
        if unroll is not None:  # an estimate: fewer turns where the loops are many
            for bound in range(unroll, -1, -1):
                got = self._longest(self.events_at, bound, ESTIMATE_STATES if bound else None)
                if got is not None:
                    return got
        if self._max_events is None:
            self._bounds()
        assert self._max_events is not None
        return self._max_events

    def max_writes(self) -> int:
        """An upper bound of the writes of any execution of the thread (as
        :meth:`max_events`)."""
        if self._max_writes is None:
            self._bounds()
        assert self._max_writes is not None
        return self._max_writes

    def _bounds(self) -> None:
        """:meth:`max_events` and :meth:`max_writes` (without ``unroll``), found by one
        walk over the paths (every test asks for both)."""
        code = self.code
        per: list[tuple[int, ...]]
        if self.regs:
            per = [(self.events_at(pc), _writes_of(ins)) for pc, ins in enumerate(code)]
        else:  # (the operations' weights remembered: threads share their objects)
            commit, nops = self.branch_commit, self.nop_events
            per = [_weights(ins, commit, nops) for ins in code]
        got = self._heaviest_of(per, 2)
        assert got is not None
        self._max_events, self._max_writes = got

    def _longest(
        self, weight: Callable[[int], int], unroll: int | None = None, budget: int | None = None
    ) -> int | None:
        """The heaviest path through the thread's code (see :meth:`max_events`); None
        when it needs more than ``budget`` states (loop counts at an operation)."""
        got = self._heaviest((weight,), unroll, budget)
        return None if got is None else got[0]

    def _heaviest(
        self,
        weights: tuple[Callable[[int], int], ...],
        unroll: int | None = None,
        budget: int | None = None,
    ) -> tuple[int, ...] | None:
        """:meth:`_longest` for each of ``weights`` (the heaviest path of each, which
        may differ), in one walk."""
        per = [tuple([weight(pc) for weight in weights]) for pc in range(len(self.code))]
        return self._heaviest_of(per, len(weights), unroll, budget)

    def _heaviest_of(
        self,
        per: list[tuple[int, ...]],
        k: int,
        unroll: int | None = None,
        budget: int | None = None,
    ) -> tuple[int, ...] | None:
        """:meth:`_heaviest` of the ``k`` weights of each operation ``per[pc]``."""
        th = self
        bound = self.unroll if unroll is None else min(unroll, self.unroll)
        code = th.code
        end = len(code)
        zeros = (0,) * k
        if not end:  # a thread with no instructions
            return zeros
        if th.straight:  # one path: every operation once (as many states as operations)
            if budget is not None and end > budget:
                return None
            return tuple(map(sum, zip(*per, strict=True)))
        memo: dict[tuple[int, tuple[int, ...]], tuple[int, ...]] = {}
        start = (0, (0,) * len(th.back))
        stack = [start]
        live = self._live_loops()
        while stack:
            key = stack[-1]
            if key in memo:
                stack.pop()
                continue
            succ = [
                (p, c) if p >= end or (keep := live[p]) is None else (p, _kept(c, keep))
                for p, c in self._successors(th, *key, bound)
            ]
            todo = [k for k in succ if k[0] < end and k not in memo]
            if todo:
                stack.extend(todo)
                if budget is not None and len(stack) + len(memo) > budget:
                    return None
                continue
            stack.pop()
            after = [memo.get(k, zeros) for k in succ if k[0] < end]
            memo[key] = tuple(
                [w + max((x[i] for x in after), default=0) for i, w in enumerate(per[key[0]])]
            )
        return memo[start] if end else zeros

    def _live_loops(self) -> list[tuple[int, ...] | None]:
        """Per operation, which loop counters (:attr:`back`'s slots) a backward branch
        reachable from it may still consult, as 0/1 per slot (None: all of them): the
        others cannot change the rest of the path, so :meth:`_longest` forgets them
        (sequential loops would otherwise multiply its states)."""
        if self._live is not None:
            return self._live
        code, labels, n = self.code, self.labels, len(self.code)
        succ: list[list[int]] = []
        own = [0] * n
        for pc, ins in enumerate(code):
            nxt = [pc + 1] if pc + 1 < n else []
            if type(ins) is Choose:
                nxt = [labels[t] for t in ins.targets]
            elif type(ins) is Exit:
                nxt = []
            elif type(ins) is Branch:
                tgt = labels[ins.target]
                if ins.cond is None:
                    nxt = []
                nxt.append(tgt)
                if tgt <= pc:
                    own[pc] = 1 << self.back[tgt]
            succ.append(nxt)
        mask = own[:]
        changed = True
        while changed:  # a fixpoint: one pass per nesting level of the loops
            changed = False
            for pc in range(n - 1, -1, -1):
                m = mask[pc]
                for q in succ[pc]:
                    m |= mask[q]
                if m != mask[pc]:
                    mask[pc] = m
                    changed = True
        full = (1 << len(self.back)) - 1
        self._live = [
            None if m == full else tuple([(m >> k) & 1 for k in range(len(self.back))])
            for m in mask
        ]
        return self._live

    def events_at(self, pc: int) -> int:
        """The events the operation at ``pc`` issues at most."""
        if self.regs:
            return regevents.events_of(self.code[pc], self.args[pc], self.nop_events)
        ins = self.code[pc]
        if self.nop_events and (type(ins) is Nop or (type(ins) is Branch and ins.cond is None)):
            return 1
        return _events_of(ins, self.branch_commit)

    def _successors(
        self, th: ThreadBase, pc: int, loops: tuple[int, ...], bound: int
    ) -> list[tuple[int, tuple[int, ...]]]:
        """The (pc, loop counts) after the operation at ``pc``, every way it may go."""
        ins = th.code[pc]
        nxt = [(pc + 1, loops)]
        if type(ins) is Exit:  # on to the end of the thread
            return [(len(th.code), loops)]
        if type(ins) is Choose:
            return [(th.labels[t], loops) for t in ins.targets]
        if type(ins) is Branch:
            tgt = th.labels[ins.target]
            if ins.cond is None:
                nxt = []
            if tgt <= pc:
                k = th.back[tgt]
                cnt = loops[k] + 1
                nxt.append(
                    (
                        tgt if cnt <= bound else len(th.code),
                        loops[:k] + (cnt,) + loops[k + 1 :],
                    )
                )
            else:
                nxt.append((tgt, loops))
        return nxt

    def _done(self, st: ThreadState) -> ThreadDone:
        return _new(ThreadDone, (st.regs, False, self.slots, self.order, st.freed))

    def error_at(self, pc: int, why: str) -> StepError:
        return self._error(self, pc, why)

    def _error(self, th: ThreadBase, pc: int, why: str) -> StepError:
        idx = sum(1 for i in th.code[:pc] if not isinstance(i, Label))
        return StepError(f"P{th.tid}, instruction {idx} '{th.origins[pc]}': {why}")


#: An operation's registers, value operands (is a register, its name or the immediate
#: value) and how many of them make the address (see :func:`_info`).
_Info = tuple[tuple[str, ...], tuple[tuple[bool, str | Value, int], ...], int]
_NO_INFO: _Info = ((), (), 0)

#: The most states (an operation and loop counts) an estimate of a thread's longest run
#: explores before trying fewer turns of its loops (:meth:`ThreadBase.max_events`).
ESTIMATE_STATES = 10_000


@by_identity(maxsize=1 << 14)
def _info(ins: Instr) -> _Info:
    """Every register an operation names, its value operands as (is a register,
    register name or immediate value, a register's shift) in a fixed order (an Op's
    arguments; the address of an access, then a store's or RMW's source, a CAS's
    expected and desired values), and how many of them make the address (remembered:
    threads share their operations' objects)."""
    ops: tuple[Operand, ...] = ()
    out: list[str] = []
    naddr = 0
    if isinstance(ins, Select):
        ops, out = (*ins.args, *ins.other), [ins.dst, ins.creg]
    elif isinstance(ins, Op):
        ops = ins.args
        out = [ins.dst, "cr0"] if ins.sets_cr else [ins.dst]
        if ins.flags is not None:
            out.append(ins.flags[0])
    elif isinstance(ins, Load):
        ops, out, naddr = ins.addr, [ins.dst], len(ins.addr)
        if ins.reserve is not None:
            out.append(ins.reserve)
    elif isinstance(ins, StoreCond):
        ops, naddr = (*ins.addr, ins.src), len(ins.addr)
        out = [ins.status, ins.reserve]
    elif isinstance(ins, (Store, RMW)):
        ops, naddr = (*ins.addr, ins.src), len(ins.addr)
        if isinstance(ins, RMW) and ins.dst:
            out = [ins.dst]
        if isinstance(ins, RMW) and ins.sets_cr:
            out.append("cr0")
    elif isinstance(ins, CAS):
        ops = (*ins.addr, ins.expected, ins.desired)
        naddr = len(ins.addr)
        out = [ins.dst] if ins.dst else []
    elif isinstance(ins, (Lock, Unlock, Effect, Free)):
        ops, naddr = ins.addr, len(ins.addr)
    elif isinstance(ins, Join) and ins.reg is not None:
        out = [ins.reg]
    elif isinstance(ins, Branch):
        out = [] if ins.cond is None else [ins.creg]
        if ins.rhs is not None:
            out.append(ins.rhs)
    elif isinstance(ins, (Assume, Assert)):
        out = [ins.creg]
    regs = tuple(out + [o.name for o in ops if isinstance(o, Reg)])
    operands = tuple(
        [(True, o.name, o.shift) if isinstance(o, Reg) else (False, o.value, 0) for o in ops]
    )
    return regs, operands, naddr


def _kept(counts: tuple[int, ...], keep: tuple[int, ...]) -> tuple[int, ...]:
    """Loop ``counts`` with those not kept (``keep``: 0/1 per count) forgotten."""
    return tuple([c * k for c, k in zip(counts, keep, strict=True)])


def fence_parts(kind: str) -> tuple[str | None, frozenset[str]]:
    """A fence event's kind and annotation sets: ``SYNC`` is a fence of kind SYNC; a C
    fence ``F.SC`` (see :class:`litmus.ir.Fence`) has no kind but the annotation SC."""
    if kind.startswith("F."):
        return None, frozenset(kind[2:].split("."))
    return kind, _NONE


def _events_of(ins: Instr, branch_commit: bool) -> int:
    """The events an operation issues at most."""
    cls = type(ins)
    if cls is RMW or cls is CAS or cls is Lock:
        return 2
    if cls in (Load, Store, StoreCond, Unlock, Fence, Spawn, Join, Effect):
        return 1
    if isinstance(ins, Branch):
        return int(branch_commit and ins.cond is not None)
    if cls is Assume or cls is Assert:
        return int(branch_commit)
    if isinstance(ins, Select):
        return int(branch_commit and ins.commit)
    return 0


@by_identity(maxsize=1 << 14)
def _weights(ins: Instr, branch_commit: bool, nop_events: bool) -> tuple[int, int]:
    """The events and writes an operation issues at most, without register events
    (:meth:`ThreadBase.events_at`, :func:`_writes_of`)."""
    if nop_events and (type(ins) is Nop or (type(ins) is Branch and ins.cond is None)):
        return 1, _writes_of(ins)
    return _events_of(ins, branch_commit), _writes_of(ins)


def _writes_of(ins: Instr) -> int:
    """The writes an operation issues at most."""
    cls = type(ins)
    return int(cls in (Store, RMW, CAS, StoreCond, Lock, Unlock))


__all__ = ["StepError", "ThreadBase", "fence_parts"]
