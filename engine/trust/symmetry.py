"""GenMC's symmetry reduction, on TruSt's graphs.

Threads spawned by the same thread to run the same function with the same argument are
*symmetric* (:attr:`litmus.base.ir.Program.symmetric`: each thread's symmetric
predecessor, or -1).  Of the graphs that differ only by swapping such threads, TruSt
keeps those where, as long as two symmetric threads have done the same thing so far
(the same kinds of events, their reads reading from the same writes, or each from its
own thread at the same place, and no write yet), the earlier thread's event comes first
in extended coherence order (``eco``: ``co``, ``fr`` and a read of them) — an event
eco-before its counterpart in a symmetric earlier thread is rejected, as an
inconsistent one is.
"""

from __future__ import annotations

from herdsman.engine.trust.graph import TrustGraph


def symmetry_ok(g: TrustGraph, e: int, symmetric: tuple[int, ...]) -> bool:
    """Whether event ``e`` (just added, or just revisited) keeps ``g`` canonical."""
    t = g.tid[e]
    k = g.idx[e]
    s = symmetric[t] if t < len(symmetric) else -1
    while s >= 0:  # the earlier symmetric threads: e may not be eco-before theirs
        other = _counterpart(g, s, t, k)
        if other >= 0 and _eco_before(g, e, other):
            return False
        s = symmetric[s]
    for u in _successors(symmetric, t):  # the later ones: theirs may not be before e
        other = _counterpart(g, u, t, k)
        if other >= 0 and _eco_before(g, other, e):
            return False
    return True


def _successors(symmetric: tuple[int, ...], t: int) -> list[int]:
    out: list[int] = []
    cur = t
    while True:
        nxt = next((u for u, p in enumerate(symmetric) if p == cur), -1)
        if nxt < 0:
            return out
        out.append(nxt)
        cur = nxt


def _counterpart(g: TrustGraph, s: int, t: int, k: int) -> int:
    """The event of thread ``s`` at index ``k`` when ``s`` and ``t`` share their prefix
    before it and it is of the same kind as ``t``'s (else -1)."""
    if g.n[s] <= k or g.n[t] <= k:
        return -1
    bs, bt = g.base[s], g.base[t]
    for j in range(k):
        a, b = g.ev[bs + j], g.ev[bt + j]
        assert a is not None and b is not None
        if a.kind != b.kind or a.kind == "W":
            return -1
        if a.kind == "R":
            ra, rb = g.rf[bs + j], g.rf[bt + j]
            own = ra >= g.L and rb >= g.L and g.tid[ra] == s and g.tid[rb] == t
            if not (own and g.idx[ra] == g.idx[rb]) and ra != rb:
                return -1
    a, b = g.ev[bs + k], g.ev[bt + k]
    assert a is not None and b is not None
    return bs + k if a.kind == b.kind and a.kind in ("R", "W") else -1


def _eco_before(g: TrustGraph, a: int, b: int) -> bool:
    """Whether ``a`` is eco-before ``b``: a write co-after ``a`` (a write) or fr-after
    ``a`` (a read) is ``b``, or is read by ``b``."""
    ev = g.ev[a]
    assert ev is not None
    co = g.co[g.loc(a)]
    if ev.kind == "W":
        after = co[co.index(a) + 1 :]
    else:
        w = g.rf[a]
        after = co if w < g.L else co[co.index(w) + 1 :]
    if b in after:
        return True
    evb = g.ev[b]
    return evb is not None and evb.kind == "R" and g.rf[b] in after
