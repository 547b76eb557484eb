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
with events as bits of Python ints, row by row from each SC event: every row for the
whole graph, or (``new``: an SC event just added to a graph whose psc was acyclic,
through which any new cycle goes) the rows reachable from it, each computed when
first needed.
"""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.cat.c11_statics import C11Statics, members
from herdsman.graphs.execution import ExecutionGraph

__all__ = ["psc_acyclic"]


def psc_acyclic(
    g: ExecutionGraph,
    S: C11Statics,
    hb: Sequence[int],
    present: int,
    genmc: bool = False,
    new: int = -1,
) -> bool:
    """Whether ``psc`` (``genmc``: GenMC's) has no cycle in ``g`` (its events
    ``present``; ``hb`` per event: the events happens-before it; ``new`` >= 0: only
    a cycle through the SC event ``new`` is looked for)."""
    sc = S.SC & present
    if not sc & (sc - 1):  # fewer than two SC events (psc is irreflexive)
        return True
    P = _Psc(g, S, hb, present, genmc, eager=new < 0)
    if new >= 0:  # is new psc-after itself?
        seen = 1 << new
        stack = [new]
        while stack:
            s = P.row(stack.pop())
            if s & (1 << new):
                return False
            for b in members(s & ~seen):
                seen |= 1 << b
                stack.append(b)
        return True
    succ = {a: P.row(a) for a in members(sc)}
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


class _Psc:
    """The psc rows of one graph (see the module docstring): its hb and sb successors
    computed for every event at once (``eager``) or per event when first asked."""

    def __init__(
        self,
        g: ExecutionGraph,
        S: C11Statics,
        hb: Sequence[int],
        present: int,
        genmc: bool,
        eager: bool,
    ) -> None:
        self.g, self.S, self.hb, self.present, self.genmc = g, S, hb, present, genmc
        self.sc = S.SC & present
        self.fsc = self.sc & S.F
        n = len(hb)
        self.events = members(present & ~((1 << g.L) - 1))
        self._hbsucc: dict[int, int] = {}
        self._sbsucc: dict[int, int] = {}
        if eager:
            hbsucc = [0] * n
            sbsucc = [0] * n
            for y in self.events:
                b = 1 << y
                for x in members(hb[y]):
                    hbsucc[x] |= b
                for x in members(S.popred[y] & present):
                    sbsucc[x] |= b
            self._hbsucc = dict(enumerate(hbsucc))
            self._sbsucc = dict(enumerate(sbsucc))
        self.locset = [0] * n
        for li in range(g.L):
            for x in members(S.at[li] & present):
                self.locset[x] = S.at[li] & present
        # mo-after and readers of each write
        self.moafter = [0] * n
        self.readers = [0] * n
        for li in range(g.L):
            later = 0
            for w in reversed(g.co[li]):
                self.moafter[w] = later
                later |= 1 << w
            self.moafter[li] = later
        for y in self.events:
            if g.event_at(y).kind == "R":
                self.readers[g.rf[y]] |= 1 << y

    def hbsucc(self, x: int) -> int:
        got = self._hbsucc.get(x)
        if got is None:
            got = 0
            for y in self.events:
                if (self.hb[y] >> x) & 1:
                    got |= 1 << y
            self._hbsucc[x] = got
        return got

    def sbsucc(self, x: int) -> int:
        got = self._sbsucc.get(x)
        if got is None:
            got = 0
            popred = self.S.popred
            for y in self.events:
                if (popred[y] >> x) & 1:
                    got |= 1 << y
            self._sbsucc[x] = got
        return got

    def after(self, x: int) -> int:
        """Writes mo-after x (a write), or rb-after it (a read)."""
        kind = self.g.event_at(x).kind
        if kind == "W":
            return self.moafter[x]
        return self.moafter[self.g.rf[x]] if kind == "R" else 0

    def eco(self, x: int) -> int:
        m = self.after(x)
        out = m | (self.readers[x] if self.g.event_at(x).kind == "W" else 0)
        for w in members(m):
            out |= self.readers[w]
        return out

    def scb(self, x: int) -> int:
        s = self.sbsucc(x)
        locset = self.locset
        out = s | self.after(x) | (self.hbsucc(x) & locset[x])
        z = 0
        for y in members(s & ~locset[x]):
            z |= self.hbsucc(y)
        for y in members(z):
            out |= self.sbsucc(y) & ~locset[y]
        return out

    def step(self, x: int) -> int:
        """sb | rf | mo | rb successors of x."""
        w = self.g.event_at(x).kind == "W"
        return self.sbsucc(x) | self.after(x) | (self.readers[x] if w else 0)

    def to_fences(self, u: int) -> int:
        """The SC fences hb-after an event of u."""
        s = 0
        for b in members(self.fsc):
            if self.hb[b] & u:
                s |= 1 << b
        return s

    def row(self, a: int) -> int:
        """The psc successors of the SC event a."""
        return self.genmc_row(a) if self.genmc else self.rc11_row(a)

    def rc11_row(self, a: int) -> int:
        fence = (self.fsc >> a) & 1
        u = 0
        for x in members((1 << a) | (self.hbsucc(a) if fence else 0)):
            u |= self.scb(x)
        s = (u & self.sc) | self.to_fences(u)
        if fence:
            e = 0
            for x in members(self.hbsucc(a)):
                e |= self.eco(x)
            s |= (self.hbsucc(a) & self.fsc) | self.to_fences(e)
        return s

    def genmc_row(self, a: int) -> int:
        st = self.step(a)
        z = s = 0
        for y in members(self.sbsucc(a)):
            z |= self.hbsucc(y)
        for q in members(z):
            s |= self.sbsucc(q)
        s = ((s | st) & self.sc) | self.to_fences(st)
        if (self.fsc >> a) & 1:
            u = e = 0
            for x in members(self.hbsucc(a)):
                u |= self.step(x)
                e |= self.eco(x)
            s |= (u & self.sc) | (self.hbsucc(a) & self.fsc) | self.to_fences(e)
        return s
