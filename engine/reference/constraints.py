"""Value constraints of the reference search, where a write's value varies with its
thread's reads: :func:`narrowed`, the thread executions still possible once a read reads
from such a write; :func:`resolved`, the choices of one execution per thread that give
every pending read the value of the write it reads from."""

from __future__ import annotations

import itertools

from herdsman.engine.reference.tables import Tables
from herdsman.graphs.relalg import bits


def narrowed(
    tables: Tables, r: int, w: int, t: int, tw: int, masks: tuple[int, ...]
) -> tuple[int, ...] | None:
    """Masks after ``r`` reads from ``w``, whose value depends on its thread's reads."""
    wv = tables.wvals[w]
    rv = tables.rvals[r]
    if t == tw:
        m = 0
        for k in bits(masks[t]):
            if rv[k] == wv[k]:
                m |= 1 << k
        if not m:
            return None
        return masks[:t] + (m,) + masks[t + 1 :]
    wvals = {wv[k] for k in bits(masks[tw])}
    rvals = {rv[k] for k in bits(masks[t])}
    common = wvals & rvals
    if not common:
        return None
    mt = 0
    for k in bits(masks[t]):
        if rv[k] in common:
            mt |= 1 << k
    mw = 0
    for k in bits(masks[tw]):
        if wv[k] in common:
            mw |= 1 << k
    out = list(masks)
    out[t] = mt
    out[tw] = mw
    return tuple(out)


def resolved(
    tables: Tables, masks: tuple[int, ...], pending: tuple[tuple[int, int], ...]
) -> list[tuple[int, ...]]:
    """Thread executions (one bit per thread) satisfying every value constraint."""
    if not pending and all(m & (m - 1) == 0 for m in masks):
        return [masks]
    out = []
    tid_of, wconst, wvals, rvals = tables.tid_of, tables.wconst, tables.wvals, tables.rvals
    for choice in itertools.product(*(list(bits(m)) for m in masks)):
        ok = True
        for r, w in pending:
            wv = wconst[w]
            if wv is None:
                wv = wvals[w][choice[tid_of[w]]]
            if rvals[r][choice[tid_of[r]]] != wv:
                ok = False
                break
        if ok:
            out.append(tuple(1 << k for k in choice))
    return out
