"""How C's memory accesses, fences, locks and threads become IR operations, per target.

A *target* is the family of memory models a program is lowered for: ``tso`` (models sc and
tso; X86 operations), ``pso`` (X86 operations for pso.cat), ``power`` (PPC operations: the
standard C11-to-POWER mapping) and ``c`` (herd's C annotations on the events, for user cat
models). Which target a model gets is its identity's (``cat.identity``, decided from the
model's text). Orders are C11's (``na`` for a non-atomic access, ``rlx``, ``acq``,
``rel``, ``acq_rel``, ``sc``) or the Linux kernel's flavours (``once``, ``acquire``,
``release``, ``mb``). Every method returns the operations in order; ``label`` makes a
fresh label name (POWER's acquire loads need one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from herdsman.litmus.base.ir import (
    BARRIER_ARRIVE,
    BARRIER_WAIT,
    CAS,
    RMW,
    Assume,
    Branch,
    Fence,
    Imm,
    Instr,
    Join,
    Label,
    Load,
    Lock,
    Op,
    Operand,
    Reg,
    Spawn,
    Store,
    Unlock,
)

TARGETS = ("tso", "pso", "power", "c")
#: the IR architecture of each target
TARGET_ARCH = {"tso": "X86", "pso": "X86", "power": "PPC", "c": "C"}

#: C11 orders; consume is acquire
ORDERS = ("rlx", "acq", "acq", "rel", "acq_rel", "sc")  # memory_order_relaxed... seq_cst
_C_ANNOT = {
    "na": frozenset({"NA"}),
    "rlx": frozenset({"A", "RLX"}),
    "acq": frozenset({"A", "ACQ"}),
    "rel": frozenset({"A", "REL"}),
    "acq_rel": frozenset({"A", "ACQ_REL"}),
    "sc": frozenset({"A", "SC"}),
    "once": frozenset({"ONCE"}),
    "acquire": frozenset({"Acquire"}),
    "release": frozenset({"Release"}),
    "mb": frozenset({"Mb"}),
}
#: the C11 order a kernel flavour behaves as on hardware targets
_HW_ORDER = {"once": "rlx", "acquire": "acq", "release": "rel", "mb": "mb", "na": "rlx"}
_X = frozenset({"X"})
#: the read and the write of a C read-modify-write: both in herd's set ``RMW`` (``rmw``
#: pairs them), with the instruction's order on both
_RMW = frozenset({"X", "RMW"})
_LK = frozenset({"LK"})  # a lock's acquisition (herd's set; explorers let it wait)


class Mapping:
    """The operations of each C primitive on one target.

    ``herd``: the code is a C litmus test, read as herd reads it: a plain access (``*x``,
    ``x = 1``) is non-atomic whatever the type of its location (herd's ``LoadMem``/
    ``StoreMem`` with no annotation), where a C program (as clang compiles it for GenMC)
    accesses an ``_Atomic`` object seq_cst."""

    def __init__(self, target: str, label: Callable[[], str], herd: bool = False) -> None:
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r} (expected one of {TARGETS})")
        self.target = target
        self.label = label
        self.herd = herd

    def plain(self, atomic: bool) -> str:
        """The order of a plain C access to an object, ``_Atomic`` or not."""
        return "sc" if atomic and not self.herd else "na"

    def _hw(self, order: str) -> str:
        return _HW_ORDER.get(order, order)

    def load(self, dst: str, addr: tuple[Operand, ...], order: str) -> list[Instr]:
        t = self.target
        if t == "c":
            return [Load(dst, addr, annots=_C_ANNOT[order])]
        o = self._hw(order)
        if t != "power" or o == "rlx":
            return [Load(dst, addr)]
        out: list[Instr] = [Fence("SYNC")] if o == "sc" else []
        lab = self.label()
        out += [
            Load(dst, addr),
            Op("cr0", "cmp", (Reg(dst), Reg(dst)), sets_cr=True),
            Branch(lab, "eq", "cr0"),
            Label(lab),
            Fence("ISYNC"),
        ]
        return out

    def store(self, src: Operand, addr: tuple[Operand, ...], order: str) -> list[Instr]:
        t = self.target
        st = Store(src, addr)
        if t == "c":
            return [Store(src, addr, annots=_C_ANNOT[order])]
        o = self._hw(order)
        if t == "tso":
            return [st, Fence("MFENCE")] if o == "sc" else [st]
        if t == "pso":
            if o == "sc":
                return [Fence("SFENCE"), st, Fence("MFENCE")]
            return [Fence("SFENCE"), st] if o in ("rel", "acq_rel") else [st]
        if o == "sc":
            return [Fence("SYNC"), st]
        return [Fence("LWSYNC"), st] if o in ("rel", "acq_rel") else [st]

    def _rmw_wrap(self, op: RMW | CAS, order: str) -> list[Instr]:
        if self.target != "power":
            return [op]
        o = self._hw(order)
        before = {"rel": "LWSYNC", "acq_rel": "LWSYNC", "sc": "SYNC", "mb": "SYNC"}.get(o)
        out: list[Instr] = [Fence(before)] if before else []
        if o == "mb":
            return [*out, op, Fence("SYNC")]
        if o not in ("acq", "acq_rel", "sc"):
            return [*out, op]
        lab = self.label()
        if op.dst is None:  # the old value feeds the branch of the acquire sequence
            op = replace(op, dst=f"{lab}.old")
        assert op.dst is not None
        return [*out, op, *self._ctrl_isync(op.dst, lab)]

    def _ctrl_isync(self, reg: str, lab: str) -> list[Instr]:
        """POWER's acquire sequence after a read into ``reg``: cmp; bc; isync (the branch
        makes the control dependency isync needs)."""
        return [
            Op("cr0", "cmp", (Reg(reg), Reg(reg)), sets_cr=True),
            Branch(lab, "eq", "cr0"),
            Label(lab),
            Fence("ISYNC"),
        ]

    def _rmw_annots(self, order: str) -> frozenset[str]:
        if self.target != "c":
            return _X
        return _RMW | _C_ANNOT[order]

    def rmw(
        self, dst: str | None, addr: tuple[Operand, ...], fn: str, src: Operand, order: str
    ) -> list[Instr]:
        return self._rmw_wrap(RMW(dst, addr, fn, src, annots=self._rmw_annots(order)), order)

    def cas(
        self,
        dst: str,
        addr: tuple[Operand, ...],
        expected: Operand,
        desired: Operand,
        order: str,
    ) -> list[Instr]:
        op = CAS(dst, addr, expected, desired, annots=self._rmw_annots(order))
        return self._rmw_wrap(op, order)

    def barrier_arrive(self, dst: str, addr: tuple[Operand, ...]) -> list[Instr]:
        """A thread's arrival at a barrier (``pthread_barrier_wait``): its state after
        one more arrival (acq_rel), the old state in ``dst``."""
        annots = self._rmw_annots("acq_rel") | {BARRIER_ARRIVE}
        return self._rmw_wrap(RMW(dst, addr, "barrier", Imm(0), annots=annots), "acq_rel")

    def barrier_wait(self, dst: str, addr: tuple[Operand, ...]) -> list[Instr]:
        """The read (acquire) of a barrier's state that lets the thread through."""
        return [
            replace(op, annots=op.annots | {BARRIER_WAIT}) if isinstance(op, Load) else op
            for op in self.load(dst, addr, "acq")
        ]

    def fence(self, order: str) -> list[Instr]:
        """``atomic_thread_fence(order)``."""
        t = self.target
        if order == "rlx":
            return []
        if t == "c":
            kind = {"acq": "F.ACQ", "rel": "F.REL", "acq_rel": "F.ACQ_REL"}.get(order, "F.SC")
            return [Fence(kind)]
        if order == "sc":
            return [Fence("SYNC" if t == "power" else "MFENCE")]
        if t == "power":
            return [Fence("LWSYNC")]
        if t == "pso" and order in ("rel", "acq_rel"):
            return [Fence("SFENCE")]
        return []

    def kernel_fence(self, kind: str) -> list[Instr]:
        """``smp_mb`` (mb), ``smp_rmb`` (rmb), ``smp_wmb`` (wmb)."""
        t = self.target
        if t == "c":
            return [Fence({"mb": "F.Mb", "rmb": "F.Rmb", "wmb": "F.Wmb"}[kind])]
        if t == "power":
            return [Fence("SYNC" if kind == "mb" else "LWSYNC")]
        if kind == "mb":
            return [Fence("MFENCE")]
        return [Fence("SFENCE")] if t == "pso" and kind == "wmb" else []

    def lock(self, addr: tuple[Operand, ...]) -> list[Instr]:
        if self.target == "c":  # a C program's mutex: an acquire (C11's, GenMC's)
            return [Lock(addr, frozenset({"LK"}) | (frozenset() if self.herd else _C_ANNOT["acq"]))]
        if self.target == "power":
            # lwarx; cmpwi; bne (held: blocked); stwcx.; isync -- as a compare-and-swap
            # of 0 by 1 whose old value must be 0, then the acquire sequence on it
            lab = self.label()
            old, ok = f"{lab}.old", f"{lab}.free"
            return [
                CAS(old, addr, Imm(0), Imm(1), annots=_X),
                Op(ok, "eq", (Reg(old), Imm(0))),
                Assume(ok),
                *self._ctrl_isync(old, lab),
            ]
        return [Lock(addr, _X | _LK)]

    def unlock(self, addr: tuple[Operand, ...]) -> list[Instr]:
        if self.target == "c":  # a C program's mutex: a release
            return [
                Unlock(addr, frozenset({"UL"}) | (frozenset() if self.herd else _C_ANNOT["rel"]))
            ]
        if self.target == "power":
            return [Fence("LWSYNC"), Unlock(addr)]
        if self.target == "pso":
            return [Fence("SFENCE"), Unlock(addr)]
        return [Unlock(addr)]

    def spawn(self, tid: int) -> list[Instr]:
        if self.target == "c":
            return [Spawn(tid)]
        return [Fence("SYNC" if self.target == "power" else "MFENCE"), Spawn(tid)]

    def join(self, tid: int) -> list[Instr]:
        return self._joined(Join(tid))

    def join_dynamic(self, reg: str) -> list[Instr]:
        """Join the thread whose number register ``reg`` holds."""
        return self._joined(Join(0, reg))

    def _joined(self, join: Join) -> list[Instr]:
        if self.target == "c":
            return [join]
        return [join, Fence("SYNC" if self.target == "power" else "MFENCE")]
