"""Commit-before orders: which earlier events of its thread an event is committed after.

RSMC (Abdulla, Atig, Jonsson, Leonardsson, CAV 2016) commits a thread's fetched events out
of program order, each after its *commit-before* (cb) predecessors.  Across threads cb
is rf (a read is committed after the write it reads from); within a thread it is one of:

* ``power``: the paper's ``cb^power``, valid and deadlock free for POWER: ``addr``,
  ``data`` and ``ctrl`` (``cb^0``), ``addr;po`` (an event waits for the address
  dependencies of every po-earlier event), ``sync`` and ``lwsync`` (an event waits for
  everything before a po-earlier ``sync`` or ``lwsync``), and ``po-loc``.  As in
  Nidhugg's ``compute_cb`` (``src/POWERARMTraceBuilder.tcc``).  herdsman adds ``valdep``
  (a stored value computed from a read through a non-data port): herd rejects an rf
  closing a cycle with it, so it orders no allowed execution more than herd does.
* ``arm``: the paper's ``cb^arm`` (Nidhugg's ``--arm``), for ARMv7: ``cb^power`` with
  ARM's full barriers (``DMB``, ``DSB``, ``DMB ISH``) for ``sync`` and without ``po-loc``
  (ARM lets two reads of one location be satisfied out of order).
* ``aarch64``: for AArch64 (no paper has one; Nidhugg has POWER's and ARM's), derived
  from Arm's model (``aarch64.cat``'s ``ob``): ``cb^arm``'s dependencies and
  ``addr;po``, the full barriers (``DMB``/``DSB`` ``SY``, ``ISH``, ``OSH``),
  the ``LD`` barriers after the reads before them, the ``ST`` barriers' writes after the
  writes before them, an acquire read before everything after it
  (:func:`aarch64_preds`; checked per model by :mod:`engine.rsmc.aarch64probes`).
* ``po``: program order, for models that allow no po ∪ rf cycle (SC, TSO, PSO and the
  like): valid, since every allowed execution has a po ∪ rf order, and deadlock free,
  since a po-maximal read may read the co-last write and a po-maximal write may go last
  in co.

A function here gives, for event ``i`` of a thread's fetched events, the positions of its
*direct* cb predecessors in the thread (a bit mask); cb is their transitive closure with
rf.  Events other than reads and writes (fences, branch commits) are committed as soon as
their predecessors are, so a ``sync`` orders its successors after its predecessors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from herdsman.graphs.events import Event

#: The fences whose predecessors are cb-before their successors (``cb^power``).
POWER_CB_FENCES = frozenset({"SYNC", "LWSYNC"})

PredsFn = Callable[[Sequence[Event], int], int]


#: ARM's barriers whose predecessors are cb-before their successors (``cb^arm``).
ARM_CB_FENCES = frozenset({"DMB", "DSB", "DMB.ISH"})


def power_preds(events: Sequence[Event], i: int) -> int:
    """``cb^power``: the direct cb predecessors of ``events[i]`` in its thread."""
    return _fenced_preds(events, i, POWER_CB_FENCES, True)


def arm_preds(events: Sequence[Event], i: int) -> int:
    """``cb^arm``: the direct cb predecessors of ``events[i]`` in its thread."""
    return _fenced_preds(events, i, ARM_CB_FENCES, False)


def _fenced_preds(events: Sequence[Event], i: int, fences: frozenset[str], poloc: bool) -> int:
    """``addr``, ``data``, ``ctrl``, ``valdep``, ``addr;po``, the ``fences`` and, with
    ``poloc``, ``po-loc``: the direct predecessors of ``events[i]``."""
    e = events[i]
    m = e.addr | e.data | e.ctrl | e.valdep
    mem = poloc and (e.kind == "R" or e.kind == "W")
    fence = e.kind == "F" and e.fence in fences
    for j in range(i):
        ej = events[j]
        m |= ej.addr  # addr;po
        if fence:
            m |= 1 << j
        elif ej.kind == "F" and ej.fence in fences:
            m |= 1 << j  # sync, lwsync: through the fence event
        elif mem and ej.loc == e.loc and (ej.kind == "R" or ej.kind == "W"):
            m |= 1 << j  # po-loc
    return m & ((1 << i) - 1)


def po_preds(events: Sequence[Event], i: int) -> int:
    """Program order: every earlier event of the thread."""
    return (1 << i) - 1


#: AArch64's barriers ordering everything before them with everything after (``dmb.full``,
#: ``dsb.full``: the ``SY``, ``ISH`` and ``OSH`` domains without ``LD``/``ST``; ``NSH``
#: orders nothing between threads).
AARCH64_FULL = frozenset(f"{b}.{d}" for b in ("DMB", "DSB") for d in ("SY", "ISH", "OSH"))
#: ... the reads before them with everything after (``dmb.ld``), the writes before them
#: with the writes after (``dmb.st``).
AARCH64_LD = frozenset(f"{b}.{d}LD" for b in ("DMB", "DSB") for d in ("", "ISH", "OSH")) - {
    "DSB.OSHLD"  # herd's aarch64.cat (7.57) lets load buffering through it
}
AARCH64_ST = frozenset(f"{b}.{d}ST" for b in ("DMB", "DSB") for d in ("", "ISH", "OSH"))


def aarch64_preds(events: Sequence[Event], i: int) -> int:
    """``cb^aarch64``: the dependencies (``addr``, ``data``, ``ctrl``, ``valdep``) and
    ``addr;po`` as ``cb^arm``; the full barriers as ``cb^arm``'s; ``DMB LD`` after the
    reads before it, ``DMB ST`` (for writes) after the writes before it; an acquire
    read (``A``, ``Q``) before everything after it.  Not a release write after
    everything before it: a po-later read may read it early (AArch64 forwards a
    ``STLR``'s value), and what depends on that read is not ordered after the events
    before the ``STLR`` (:mod:`engine.rsmc.aarch64probes`)."""
    e = events[i]
    m = e.addr | e.data | e.ctrl | e.valdep
    kind = e.kind
    write = kind == "W"
    access = kind == "R" or write
    fence = e.fence if kind == "F" else None
    for j in range(i):
        ej = events[j]
        m |= ej.addr  # addr;po
        k = ej.kind
        if k == "F":
            f = ej.fence
            if f in AARCH64_FULL or (f in AARCH64_ST and write) or (f in AARCH64_LD and access):
                m |= 1 << j
        elif k == "R" or k == "W":
            if fence in AARCH64_FULL or (k == "R" and fence in AARCH64_LD):
                m |= 1 << j
            elif k == "W" and fence in AARCH64_ST:
                m |= 1 << j
            elif k == "R" and ("A" in ej.annots or "Q" in ej.annots):
                m |= 1 << j
    return m & ((1 << i) - 1)


CB_ORDERS: dict[str, PredsFn] = {
    "power": power_preds,
    "po": po_preds,
    "arm": arm_preds,
    "aarch64": aarch64_preds,
}
