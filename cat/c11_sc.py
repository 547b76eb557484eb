"""RC11's SC axiom on a graph: is the partial SC order ``psc`` acyclic?

``psc`` relates SC events (accesses and fences, ``rc11.cat``)::

    scb      = sb | sb\\loc; hb; sb\\loc | hb & loc | mo | rb
    psc-base = ([SC] | [F & SC]; hb?); scb; ([SC] | hb?; [F & SC])
    psc-f    = [F & SC]; (hb | hb; eco; hb); [F & SC]

or, with ``genmc`` (``rc11.cat``'s variant ``genmc-sc``, GenMC v0.11's)::

    step = sb | rf | mo | rb
    psc  = [SC]; (step | sb; hb; sb); [SC] | [SC]; step; hb; [F & SC]
         | [F & SC]; hb; step; [SC] | [F & SC]; (hb | hb; eco; hb); [F & SC]

computed here from the checker's happens-before sets (``hb[e]``: the events before e)
with events as bits of Python ints, row by row from each SC event.
"""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.cat.c11_statics import C11Statics, members
from herdsman.graphs.execution import ExecutionGraph

__all__ = ["psc_acyclic"]


def psc_acyclic(
    g: ExecutionGraph, S: C11Statics, hb: Sequence[int], present: int, genmc: bool = False
) -> bool:
    """Whether ``psc`` (``genmc``: GenMC's) has no cycle in ``g`` (its events
    ``present``; ``hb`` per event: the events happens-before it)."""
    sc = S.SC & present
    if not sc & (sc - 1):  # fewer than two SC events (psc is irreflexive)
        return True
    fsc = sc & S.F
    n = len(hb)
    init = (1 << g.L) - 1
    events = members(present & ~init)
    hbsucc = [0] * n
    sbsucc = [0] * n
    for y in events:
        b = 1 << y
        for x in members(hb[y]):
            hbsucc[x] |= b
        for x in members(S.popred[y] & present):
            sbsucc[x] |= b
    locset = [0] * n
    for li in range(g.L):
        for x in members(S.at[li] & present):
            locset[x] = S.at[li] & present
    # mo-after and readers of each write
    moafter = [0] * n
    readers = [0] * n
    for li in range(g.L):
        later = 0
        for w in reversed(g.co[li]):
            moafter[w] = later
            later |= 1 << w
        moafter[li] = later
    for y in events:
        if g.event_at(y).kind == "R":
            readers[g.rf[y]] |= 1 << y

    def after(x: int) -> int:
        """Writes mo-after x (a write), or rb-after it (a read)."""
        kind = g.event_at(x).kind
        if kind == "W":
            return moafter[x]
        return moafter[g.rf[x]] if kind == "R" else 0

    def read_by(ws: int) -> int:
        out = 0
        for w in members(ws):
            out |= readers[w]
        return out

    def eco(x: int) -> int:
        m = after(x)
        return m | read_by(m) | (readers[x] if g.event_at(x).kind == "W" else 0)

    def scb(x: int) -> int:
        s = sbsucc[x]
        out = s | after(x) | (hbsucc[x] & locset[x])
        z = 0
        for y in members(s & ~locset[x]):
            z |= hbsucc[y]
        for y in members(z):
            out |= sbsucc[y] & ~locset[y]
        return out

    def step(x: int) -> int:
        """sb | rf | mo | rb successors of x."""
        return sbsucc[x] | after(x) | (readers[x] if g.event_at(x).kind == "W" else 0)

    def to_fences(u: int) -> int:
        """The SC fences hb-after an event of u."""
        s = 0
        for b in members(fsc):
            if hb[b] & u:
                s |= 1 << b
        return s

    def rc11_row(a: int) -> int:
        """The psc successors of the SC event a."""
        fence = (fsc >> a) & 1
        u = 0
        for x in members((1 << a) | (hbsucc[a] if fence else 0)):
            u |= scb(x)
        s = (u & sc) | to_fences(u)
        if fence:
            e = 0
            for x in members(hbsucc[a]):
                e |= eco(x)
            s |= (hbsucc[a] & fsc) | to_fences(e)
        return s

    def genmc_row(a: int) -> int:
        """GenMC's psc successors of the SC event a."""
        st = step(a)
        z = s = 0
        for y in members(sbsucc[a]):
            z |= hbsucc[y]
        for q in members(z):
            s |= sbsucc[q]
        s = ((s | st) & sc) | to_fences(st)
        if (fsc >> a) & 1:
            u = e = 0
            for x in members(hbsucc[a]):
                u |= step(x)
                e |= eco(x)
            s |= (u & sc) | (hbsucc[a] & fsc) | to_fences(e)
        return s

    row = genmc_row if genmc else rc11_row
    succ = {a: row(a) for a in members(sc)}
    left = sc
    while left:  # peel the events with no successor left
        sinks = 0
        for a in members(left):
            if not succ[a] & left:
                sinks |= 1 << a
        if not sinks:
            return False
        left &= ~sinks
    return True
