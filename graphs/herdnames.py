"""The event sets and relations herd predefines before a cat model runs.

``static_names(sk, arch)`` gives every name that depends only on the skeleton (events, po,
dependencies); ``dynamic_names(g)`` the ones that depend on the rf/co choice (``rf``,
``FW``, ``pco``; ``g`` is a graph's relations, :class:`graphs.execution.Relations`).
Values are tagged ``("set", bits)`` or ``("rel", bits)``.

Which names exist, and what they hold, follows herd's ``herd/machModelChecker.ml``,
``herd/machAction.ml`` (``arch_sets``), ``herd/event.ml`` and the ``*Arch_herd.ml`` files
(herd-formats.md section 1.5), for PPC, X86 and X86_64 in herd's default (non-mixed) mode:

* the universe is every event but register events (we have none): memory events, the
  initial writes, fences and branch (commit) events;
* ``id`` is the identity on that universe; ``loc`` relates memory events of one location
  (reflexive on them, never on fences); ``int`` relates events of one thread, reflexive,
  init events in no thread (not even with themselves); ``ext`` relates events of different
  threads, the init events forming one group; ``po`` excludes pairs of one instruction
  instance; ``same-instance`` relates the events of one instruction instance (init events:
  none); ``sm = si`` is the identity on memory events (non-mixed mode);
* ``co``/``fr`` are not predefined (``cos.cat`` makes them).

Names herd defines with a meaning we do not model (``same-low-order-bits``, ``aligned``,
``instr``, bell scopes, VMSA sets) are left undefined rather than guessed.
"""

from __future__ import annotations

from herdsman.graphs.execution import Relations
from herdsman.graphs.relalg import bits
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.arch import ARCHS

Tagged = tuple[str, int]

#: Generic event sets of every architecture (``machAction.arch_sets`` and
#: ``machModelChecker``) that hold only events we never build (tags, TLBIs, faults,
#: unrolling cut-offs, speculation, register accesses, ports...).  They are computed from
#: ``Event.annots`` all the same, so an engine that does produce such events can mark them.
GENERIC_SETS = (
    "NExp",
    "SPEC",
    "SPURIOUS",
    "Rreg",
    "Wreg",
    "ADDR",
    "DATA",
    "PRED",
    "T",
    "GCS",
    "TLBI",
    "CutOff",
    "FAULT",
    "FAULT-RD",
    "FAULT-WR",
    "EXC-ENTRY",
    "EXC-RET",
)

#: Relations herd always defines that are empty for PPC/X86 programs unless the skeleton's
#: ``deps`` gives them (``iico_data``, ``iico_ctrl`` and ``rf-reg`` are set apart: see
#: :func:`static_names`).
EMPTY_RELS = (
    "iico_order",
    "tst",
    "depend",
    "success",
    "control",
    "equiv-spec",
    "membar.cta",
    "membar.gl",
    "membar.sys",
)


def static_names(sk: Skeleton, arch: str) -> dict[str, Tagged]:
    """Names whose value is fixed by the skeleton."""
    U = sk.U
    M = sk.M
    env: dict[str, Tagged] = {
        "M": ("set", M),
        "R": ("set", sk.R),
        "W": ("set", sk.W),
        "IW": ("set", sk.IW),
        "F": ("set", sk.F),
        "B": ("set", sk.B),
        "BCC": ("set", sk.B),  # every commit we build is a conditional-branch commit
        "Exp": ("set", M),  # every access is explicit (no page-table walks)
        "EXEC": ("set", M),  # nothing is speculated
        "no-loc": ("set", sk.F | sk.B | sk.nops),  # events without a location
        "id": ("rel", U.ID),
        "loc": ("rel", sk.loc),
        "int": ("rel", sk.int_),
        "ext": ("rel", sk.ext),
        "po": ("rel", sk.po),
        "partial_po": ("rel", sk.po),
    }
    for name in GENERIC_SETS:
        env[name] = ("set", sk.annot_set(name))
    for name in EMPTY_RELS:
        env[name] = ("rel", 0)
    rec = ARCHS.get(arch)
    for name in rec.fences if rec else ():  # herd's barrier_sets, by upper-case mnemonic
        env[name] = ("set", sk.fence_set(name))
    for name in rec.annot_sets if rec else ():  # herd's annot_sets (litmus/arch.py)
        env[name] = ("set", sk.annot_set(name))
    # herd's iico_data between the events we keep: the read of a read-modify-write feeds
    # its write (X86 XCHG / LOCK'd instructions); PPC instructions have one such event.
    # With register events (catdep models) the events declare it, iico_ctrl and rf-reg.
    env["iico_data"] = ("rel", sk.iico_data)
    env["iico_ctrl"] = ("rel", sk.iico_ctrl)
    env["rf-reg"] = ("rel", sk.rf_reg)
    # the memory events whose addresses have the same low-order bits (their offsets)
    env["same-low-order-bits"] = ("rel", same_low_order_bits(sk))
    for name in rec.other_sets if rec else ():
        env[name] = ("set", sk.annot_set(name))
    if rec is not None and rec.atomic_pairs:
        rmw, amo = atomic_pairs(sk)
        env["rmw"] = ("rel", rmw)
        env["amo"] = ("rel", amo)
    for name in ("addr", "data", "ctrl"):
        env[name] = ("rel", 0)
    for name, rel in sk.deps.items():  # addr, data, ctrl and any other the engine computed
        env[name] = ("rel", rel)
    for name, s in sk.extra_sets.items():
        env[name] = ("set", s)
    same = sk.same_instance
    env["same-instance"] = ("rel", same)
    # same-instr / same-static relate instances of one static instruction: without loop
    # unrolling every instruction has one instance, and they equal same-instance.
    env["same-instr"] = ("rel", same)
    env["same-static"] = ("rel", same)
    env["sm"] = ("rel", U.ident(M))
    env["si"] = ("rel", U.ident(M))
    return env


def same_low_order_bits(sk: Skeleton) -> int:
    """herd's ``same-low-order-bits``: memory events whose addresses have the same offset
    in their symbols (initial writes included)."""
    U = sk.U
    groups: dict[int, int] = {}
    for i, e in enumerate(sk.events):
        if e.loc is not None and e.is_mem:
            _, _, off = e.loc.partition("+")
            k = int(off) if off.isdigit() else 0
            groups[k] = groups.get(k, 0) | (1 << i)
    r = 0
    for s in groups.values():
        r |= U.product(s, s)
    return r


def atomic_pairs(sk: Skeleton) -> tuple[int, int]:
    """herd's ``rmw`` and ``amo`` (``mem.ml`` ``make_atomic_load_store``): an atomic
    (``X``) read and an atomic write of its location after it in its thread, with no
    atomic access in between (an exclusive load and the next exclusive store); ``amo``:
    those of one instruction."""
    U = sk.U
    atomic = sk.annot_set("X") & sk.M & ~sk.IW
    order = sk.po_iico
    rmw = amo = 0
    for loc_events in sk.by_loc.values():
        rs = loc_events & atomic & sk.R
        ws = loc_events & atomic & sk.W
        for r in bits(rs):
            for w in bits(ws & U.row(order, r)):
                between = U.row(order, r) & U.col(order, w) & atomic
                if not between:
                    rmw |= U.pair(r, w)
                    if sk.events[r].poi == sk.events[w].poi:
                        amo |= U.pair(r, w)
    return rmw, amo


def co0(g: Relations, fw: int) -> int:
    """stdlib's ``co0``: init writes before the other writes of their location, and every
    write before the final write ``fw`` of its location."""
    sk, U = g.sk, g.U
    W, IW = sk.W, sk.IW
    return sk.loc & (U.product(IW, W & ~IW) | U.product(W & ~fw, fw))


def obsco(g: Relations) -> int:
    """The coherence pairs herd infers from the program and rf alone (``U.compute_pco``
    on ``po_iico`` restricted to one location; all our accesses are explicit)."""
    sk, U = g.sk, g.U
    W, R = sk.W, sk.R
    po_loc = sk.po_iico & sk.loc
    rf = g.rf
    invrf = U.inverse(rf)
    ww = U.restrict(po_loc, W, W)
    rw = U.seq(rf, U.restrict(po_loc, R, W))
    wr = U.seq(U.restrict(po_loc, W, R), invrf) & ~U.ID
    rr = U.seq(U.seq(rf, U.restrict(po_loc, R, R)), invrf) & ~U.ID
    return ww | rw | wr | rr


def pco(g: Relations, fw: int | None = None, optace: bool = True) -> int:
    """herd's ``pco`` (used by ``cos-ok-opt.cat``): ``obsco | co0``.

    herd adds ``obsco`` only under ``-optace true`` (which is also what sets the variant
    ``cos-opt`` that makes ``cos.cat`` include ``cos-ok-opt.cat``); otherwise its ``pco``
    is ``co0`` alone.  A cyclic ``pco`` makes herd discard the candidate before the model
    runs (engines should do the same).  Where herd's ``compute_pco`` gives up on a read
    from the initial state ordered after a write, this gives a cyclic ``pco`` instead:
    the candidate is discarded either way."""
    fw = g.FW if fw is None else fw
    out = co0(g, fw)
    if optace:
        out |= obsco(g)
    return out


def dynamic_names(g: Relations, fw: int | None = None, optace: bool = True) -> dict[str, Tagged]:
    """Names that depend on rf (and on the final writes ``FW``): ``rf``, ``FW``, ``pco``.

    ``fw`` overrides the final writes (engines that enumerate them, as herd does);
    by default they are the co-maximal writes of ``g``.  ``optace`` as for :func:`pco`.
    """
    fw = g.FW if fw is None else fw
    return {
        "rf": ("rel", g.rf),
        "FW": ("set", fw),
        "pco": ("rel", pco(g, fw, optace)),
    }
