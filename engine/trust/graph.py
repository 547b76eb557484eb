"""The graph TruSt grows and restricts: an execution graph with each thread's place in
its program and TruSt's own bookkeeping.

A :class:`TrustGraph` is a :class:`graphs.execution.ExecutionGraph` plus, per thread, the
path of its prefix in the program's tree of thread prefixes (:mod:`engine.semantics.paths`:
``path[t][k]`` is the prefix of ``k`` events, whose ``step`` says what thread ``t`` does
next) and, per event, whether it was added *maximally* (a read from the co-latest write,
a write placed co-last: TruSt's maximality condition) and whether it may still be deleted
by a revisit (the porf-prefix of a write that revisited a read may not: it becomes
*stable*).

Forward steps mutate the graph and undo themselves (``add_read``/``add_write``/
``add_other``, then ``pop``); a backward revisit builds a restricted copy (``revisit``),
in which the revisited read counts as added maximally when it reads from the co-latest
write.  Memory stays polynomial: a graph is a handful of flat lists of the program's size.
"""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.engine.semantics.paths import PathNode
from herdsman.engine.semantics.step import Blocked, Done, Emit, Failed, Read, Stall
from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph, Layout
from herdsman.litmus.ir import Value


class TrustGraph(ExecutionGraph):
    """A TruSt execution graph (see the module docstring)."""

    __slots__ = ("path", "addedmax", "revisitable")

    def __init__(self, lay: Layout, roots: Sequence[PathNode]) -> None:
        super().__init__(lay)
        self.path: list[list[PathNode]] = [[root] for root in roots]
        self.addedmax = [True] * lay.size
        self.revisitable = [True] * lay.size

    def _copy_into(self, g: ExecutionGraph) -> None:
        super()._copy_into(g)
        assert isinstance(g, TrustGraph)
        g.path = [p[:] for p in self.path]
        g.addedmax = self.addedmax[:]
        g.revisitable = self.revisitable[:]

    # ------------------------------------------------------------------ threads
    def next_node(self, t: int) -> PathNode | None:
        """The prefix of thread ``t`` whose next step is an event, or None when the
        thread is finished or blocked."""
        node = self.path[t][-1]
        s = node.step
        return node if type(s) is Read or type(s) is Emit else None

    def blocked(self, t: int) -> bool:
        """Whether thread ``t`` can never go on (it stopped before its end)."""
        s = self.path[t][-1].step
        if type(s) is Stall:
            raise AssertionError("concrete values never stall")
        return type(s) is Blocked or type(s) is Failed

    def next_thread(self) -> int:
        """The leftmost thread with a next event (TruSt's deterministic choice), or -1."""
        for t in range(self.T):
            s = self.path[t][-1].step
            if type(s) is Read or type(s) is Emit:
                return t
        return -1

    def final(self, t: int) -> Done | None:
        """How thread ``t`` finished (None: it is blocked)."""
        s = self.path[t][-1].step
        return s if type(s) is Done else None  # type: ignore[return-value]

    def completion_key(self) -> tuple[int, ...]:
        """Per thread, the shape of one complete path through its present prefix."""
        return tuple(p[-1].completion() for p in self.path)

    # ------------------------------------------------------------------ adding
    def add_read_from(self, t: int, node: PathNode, w: int, maximal: bool) -> int:
        """Add the read ``node`` issues next to thread ``t``, reading from ``w``."""
        ev: Event = node.step.event  # type: ignore[union-attr]
        e = self.add_read(t, ev, node.next_shape(), w)
        self.addedmax[e] = maximal
        self.revisitable[e] = True
        v = self.val[w]
        assert v is not None
        self.path[t].append(node.child(v))
        return e

    def add_write_at(self, t: int, node: PathNode, pos: int) -> int:
        """Add the write ``node`` issues next to thread ``t`` at co position ``pos``."""
        ev: Event = node.step.event  # type: ignore[union-attr]
        li = self.lay.loc_index[ev.loc]  # type: ignore[index]
        maximal = pos == len(self.co[li])
        e = self.add_write(t, ev, node.next_shape(), pos)
        self.addedmax[e] = maximal
        self.revisitable[e] = True
        self.path[t].append(node.after())
        return e

    def add_next(self, t: int, node: PathNode) -> int:
        """Add the event (neither read nor write) ``node`` issues next to thread ``t``."""
        e = self.add_other(t, node.step.event, node.next_shape())  # type: ignore[union-attr]
        self.addedmax[e] = True
        self.revisitable[e] = True
        self.path[t].append(node.after())
        return e

    def pop(self, t: int) -> None:
        super().pop(t)
        self.path[t].pop()

    # ------------------------------------------------------------------ revisits
    def kept_view(self, r: int, wview: Sequence[int]) -> list[int]:
        """Events a backward revisit of read ``r`` keeps: those added no later than ``r``
        and the porf-prefix ``wview`` of the revisiting write (per thread, a count)."""
        s = self.stamp[r]
        out = []
        for t in range(self.T):
            b = self.base[t]
            k = self.n[t]
            while k and self.stamp[b + k - 1] > s:
                k -= 1
            out.append(max(k, wview[t]))
        return out

    def revisit(self, r: int, w: int, kept: Sequence[int], wview: Sequence[int]) -> TrustGraph:
        """The graph where read ``r`` reads from write ``w``, restricted to ``kept``; the
        porf-prefix ``wview`` of ``w`` becomes stable (no later revisit deletes it)."""
        g = self.copy()
        assert isinstance(g, TrustGraph)
        g.restrict(kept)
        for t in range(g.T):
            del g.path[t][kept[t] + 1 :]
        g.set_rf(r, w)
        v: Value | None = g.val[w]
        assert v is not None
        # r now reads from a write of its past (in the graph's "added before" sense: all
        # that is left was added before r or is in w's prefix): maximal iff co-latest
        g.addedmax[r] = g.co[g.loc(w)][-1] == w
        t = g.tid[r]
        path = g.path[t]
        path[-1] = path[-2].child(v)  # r is the last event kept in its thread
        for t2 in range(g.T):
            b = g.base[t2]
            for j in range(b, b + wview[t2]):
                g.revisitable[j] = False
        return g
