"""What uniproc rules out, as the model itself tells.

:func:`reads_own_later`: whether a model lets a read read from a po-later write of its
own thread.  Every model with herd's uniproc (``acyclic po-loc | com``: coherence)
forbids it, and then the reference explorer's thread executions need no value that only
such a write gives (:func:`engine.semantics.enumerate.thread_executions`,
``own_later``).  Asked of the model itself, on the smallest such graph (a thread reading
``x`` from its own later write of ``x``), so that a model without the check — or run
with it skipped — keeps every candidate.  Answered once per model and architecture.

:func:`uniproc_cuts`: per skeleton, the rf choices uniproc's patterns rule out, alone or
with one co edge, each confirmed by the skeleton's own monotone checks (sound for any
model: one without uniproc keeps them all).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from herdsman.cat.api import PreparedModel
from herdsman.engine.reference.tables import Tables
from herdsman.graphs.build import R, W, build

_CACHE: weakref.WeakKeyDictionary[PreparedModel, dict[str, bool]] = weakref.WeakKeyDictionary()
#: The last answer: (the model, weakly; the architecture; the answer), asked per test.
_LAST: list[tuple[weakref.ref[PreparedModel], str, bool]] = []


def reads_own_later(model: PreparedModel, arch: str) -> bool:
    """Whether ``model`` may accept a read from a po-later write of its own thread (True
    for a model with no cat checks to ask)."""
    if _LAST:
        last = _LAST[0]
        if last[0]() is model and last[1] == arch:
            return last[2]
    if not model.axioms:
        return True
    per = _CACHE.setdefault(model, {})
    if arch not in per:
        g = build([[R("x", 1), W("x", 1)]]).rel
        verdicts = model.prepare(g.sk, arch).check(g.rf, co=g.co)
        per[arch] = any(v.allowed for v in verdicts)
    _LAST[:] = [(weakref.ref(model), arch, per[arch])]
    return per[arch]


def uniproc_cuts(
    tables: Tables, violates: Callable[[int, int], bool], native: bool = True
) -> tuple[dict[int, list[tuple[int, int, int | None, int]]], dict[int, int]]:
    """Where uniproc cuts the rf choices, as the model's own monotone checks tell on
    the rf alone (so that a model without uniproc loses nothing): the rf candidates
    without those every completion of which the model rejects (a read from a po-later
    write of its own thread, from the initial write past a po-earlier write of its
    own, from a write of its own with another po-between: both co orders of the two
    asked), and per rf bit the co edges it cannot go with (a write co-before the last
    write of the reader's thread before the read, or co-after its first one after).
    Without ``native`` co (the model makes co) only the rf alone is asked about."""
    tid_of = tables.tid_of
    cap = tables.U.cap
    out = tables.cands
    forbid: dict[int, int] = {}
    # (a thread's events are numbered in program order: of two events of one thread,
    # the po-earlier has the lower number)
    for li, reads in enumerate(tables.loc_reads):
        ws = tables.loc_writes[li]
        if not ws:
            continue
        init = tables.loc_init[li]
        for r in reads:
            t = tid_of[r]
            mine = [w for w in ws if tid_of[w] == t]
            if not mine:
                continue
            before = [w for w in mine if w < r]
            after = [w for w in mine if w > r]
            cands = out[r]
            kept = []
            for cand in cands:
                w, bit = cand[0], cand[1]
                if w == init:
                    if native and before and violates(bit, 1 << (init * cap + before[-1])):
                        continue
                elif tid_of[w] == t:
                    if w > r:
                        if violates(bit, 0):
                            continue
                    elif native:
                        later = [v for v in before if v > w]
                        if later:
                            v = later[0]
                            if violates(bit, 1 << (w * cap + v)) and violates(
                                bit, 1 << (v * cap + w)
                            ):
                                continue
                if native and w != init:
                    mask = 0
                    if before and before[-1] != w:
                        edge = 1 << (w * cap + before[-1])
                        if violates(bit, edge):
                            mask |= edge
                    if after and after[0] != w:
                        edge = 1 << (after[0] * cap + w)
                        if violates(bit, edge):
                            mask |= edge
                    if mask:
                        forbid[bit] = mask
                kept.append(cand)
            if len(kept) < len(cands):
                if out is tables.cands:
                    out = dict(out)
                out[r] = kept
    return out, forbid
