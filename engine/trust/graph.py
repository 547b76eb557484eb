"""The graph TruSt grows and restricts: an execution graph with each thread's place in
its program and TruSt's own bookkeeping.

A :class:`TrustGraph` is a :class:`graphs.execution.ExecutionGraph` plus each thread's
place in the program's tree of thread prefixes (:mod:`engine.semantics.paths`): per event,
``node[e]`` is the prefix ending with it (``roots[t]``: the empty prefix of thread ``t``),
whose ``step`` says what the thread does next; and, per event, whether it was added
*maximally* (a read from the co-latest write,
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
from herdsman.engine.semantics.state import (
    Blocked,
    Emit,
    Read,
    Stall,
    ThreadDone,
    ThreadFailed,
    finished,
)
from herdsman.engine.semantics.step import ASSUME, StepError
from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph, Layout
from herdsman.litmus.base.ir import BARRIER_WAIT, Value

#: How much longer than its room a thread's completion may run before it is taken to
#: run for ever (the checker then uses the graph's prefixes instead).
COMPLETION_SLACK = 4


#: The reads a thread waits at rather than blocking (a barrier's).
WAITS = frozenset({BARRIER_WAIT})


def blocks(node: PathNode, value: Value) -> bool:
    """Whether the thread at ``node`` (before a read) blocks once it reads ``value``."""
    return type(node.child(value).step) is Blocked


class NoRoom(Exception):
    """Thread ``t`` needs more events than its room (a thread whose loops the program
    bounds itself): the exploration starts again with more room."""

    def __init__(self, t: int, k: int) -> None:
        super().__init__(t, k)
        self.t = t
        self.k = k


class TrustGraph(ExecutionGraph):
    """A TruSt execution graph (see the module docstring)."""

    __slots__ = (
        "roots",
        "node",
        "cur",
        "addedmax",
        "revisitable",
        "spawned",
        "spawned_at",
        "writes_first",
        "barriers",
        "views",
    )

    def __init__(
        self,
        lay: Layout,
        roots: Sequence[PathNode],
        spawned: frozenset[int] = frozenset(),
        writes_first: bool = False,
    ) -> None:
        super().__init__(lay)
        #: GenMC's schedule: a thread whose next event is not a read goes first (the
        #: write of a read-modify-write right after its read), else the leftmost
        self.writes_first = writes_first
        self.barriers = False  # some thread waits at a barrier or a lock (set by run.py)
        self.roots = tuple(roots)
        self.node: list[PathNode | None] = [None] * lay.size
        self.cur = list(roots)  # per thread: its present prefix
        self.addedmax = [True] * lay.size
        self.revisitable = [True] * lay.size
        # threads started by a spawn event (the others start at once), and per thread the
        # id of the spawn event that started it (-1: not started, or not spawned)
        self.spawned = spawned
        self.spawned_at = [-1] * lay.T
        #: per event, its porf-prefix once asked (:meth:`view`; None: not known)
        self.views: list[tuple[int, ...] | None] = [None] * lay.size

    def _copy_into(self, g: ExecutionGraph) -> None:
        super()._copy_into(g)
        assert isinstance(g, TrustGraph)
        g.roots = self.roots
        g.node = self.node[:]
        g.cur = self.cur[:]
        g.addedmax = self.addedmax[:]
        g.revisitable = self.revisitable[:]
        g.spawned = self.spawned
        g.spawned_at = self.spawned_at[:]
        g.writes_first = self.writes_first
        g.barriers = self.barriers
        g.views = self.views[:]

    def at(self, t: int) -> PathNode:
        """Thread ``t``'s present prefix."""
        return self.cur[t]

    # ------------------------------------------------------------------ threads
    def next_node(self, t: int) -> PathNode | None:
        """The prefix of thread ``t`` whose next step is an event, or None when the
        thread is finished or blocked."""
        node = self.at(t)
        s = node.step
        return node if type(s) is Read or type(s) is Emit else None

    def blocked(self, t: int) -> bool:
        """Whether thread ``t`` can never go on (it stopped before its end)."""
        s = self.at(t).step
        if type(s) is Stall:
            raise AssertionError("concrete values never stall")
        return type(s) is Blocked or type(s) is ThreadFailed

    def next_thread(self) -> int:
        """The leftmost thread with a next event (TruSt's deterministic choice), or -1."""
        return self.next_thread_node()[0]

    def next_thread_node(self) -> tuple[int, PathNode | None]:
        """The leftmost thread with a next event and its prefix, or (-1, None).  In a
        program that spawns threads, a thread waits to be spawned, and a join waits for
        its thread to end."""
        if self.spawned or self.writes_first or self.barriers:
            return self._next_gated()
        for t, node in enumerate(self.cur):
            s = node._step
            if s is None:
                s = node.step
            if type(s) is Read or type(s) is Emit:
                return t, node
        return -1, None

    def _next_gated(self) -> tuple[int, PathNode | None]:
        spawned, at = self.spawned, self.spawned_at
        wf = self.writes_first
        first: tuple[int, PathNode | None] = (-1, None)
        for t, node in enumerate(self.cur):
            if at[t] < 0 and t in spawned:
                continue
            s = node._step
            if s is None:
                s = node.step
            if type(s) is Emit:
                ev = s.event
                if ev.kind == "J" and not self.ended(ev.other):
                    continue
                if not wf or node.state.pending is not None:
                    return t, node
                if first[0] < 0 or first[1] is not None and type(first[1].step) is Read:
                    first = (t, node)
            elif type(s) is Read:
                if s.event.annots & WAITS and not self.barrier_open(node):
                    continue
                if not wf:
                    return t, node
                if first[0] < 0:
                    first = (t, node)
        return first

    def barrier_open(self, node: PathNode) -> bool:
        """Whether a barrier (or a lock) lets the thread at ``node`` (about to read it)
        through: it would not block reading the latest state (GenMC's barrier-aware
        model checking and its in-place revisits of locks: a thread waits there, it
        does not block)."""
        li = self.lay.loc_index.get(node.event().loc)  # type: ignore[arg-type]
        if li is None:
            return True
        co = self.co[li]
        return not blocks(node, self.val[co[-1] if co else li])  # type: ignore[arg-type]

    def started(self, t: int) -> bool:
        return t not in self.spawned or self.spawned_at[t] >= 0

    def ended(self, t: int) -> bool:
        """Whether thread ``t`` has started and finished (or failed an assertion)."""
        if not self.started(t):
            return False
        return finished(self.cur[t].step)

    def moot_block(self, t: int) -> bool:
        """Whether thread ``t`` just blocked on an assumption after a read that was not
        added maximally or may not be revisited: every extension of the graph stays
        blocked, and GenMC drops it as *moot* (it counts no blocked execution)."""
        s = self.cur[t].step
        if type(s) is not Blocked or s.why != ASSUME:
            return False
        b = self.base[t]
        for e in range(b + self.n[t] - 1, b - 1, -1):
            kind = self.ev[e].kind  # type: ignore[union-attr]
            if kind == "R":
                return not (self.addedmax[e] and self.revisitable[e])
            if kind == "W":
                return False
        return False

    def final(self, t: int) -> ThreadDone | None:
        """How thread ``t`` finished (None: it is blocked)."""
        s = self.at(t).step
        return s if type(s) is ThreadDone else None

    def finals(self) -> list[ThreadDone] | None:
        """How every thread finished, in a graph where none has a next event (None when
        one is blocked); a thread that failed an assertion ended there, one never spawned
        with its initial registers."""
        out = []
        for t, node in enumerate(self.cur):
            s = node._step
            if s is None:
                s = node.step
            if type(s) is ThreadDone:
                out.append(s)
            elif type(s) is ThreadFailed:
                out.append(s.done)
            elif not self.started(t):
                out.append(node.tree.code.initial())
            else:
                if type(s) is Stall:
                    raise AssertionError("concrete values never stall")
                return None
        return out

    def failures(self) -> list[tuple[int, ThreadFailed]]:
        """The threads that failed an assertion, with how."""
        out = []
        for t, node in enumerate(self.cur):
            s = node.step
            if type(s) is ThreadFailed and self.started(t):
                out.append((t, s))
        return out

    def completion_key(self) -> tuple[int, ...] | None:
        """Per thread, the shape of one complete path through its present prefix (a
        path longer than the thread's room needs more room: :class:`NoRoom`; None when
        one runs on for ever)."""
        room = self.lay.room
        key = []
        for t, n in enumerate(self.cur):
            sid = n._completion if n._completion >= 0 else n.completion(COMPLETION_SLACK * room[t])
            if sid < 0:
                return None
            key.append(sid)
        length = self.lay.shapes.length
        for t, sid in enumerate(key):
            if length[sid] > room[t]:
                raise NoRoom(t, length[sid])
        return tuple(key)

    # ------------------------------------------------------------------ adding
    def _add(self, t: int, node: PathNode) -> tuple[Event, int]:
        """Give the event ``node`` issues next the next id of thread ``t``, stamped now
        (:meth:`ExecutionGraph._append` for TruSt's hot path); the event and its id."""
        s = node._step  # next_thread_node set it
        assert isinstance(s, (Emit, Read))
        ev = s.event
        k = self.n[t]
        e = self.base[t] + k
        if k >= self.lay.room[t]:
            raise NoRoom(t, k)
        self.n[t] = k + 1
        self.ev[e] = ev
        sh = node._next_shape
        self.shape[e] = sh if sh >= 0 else node.next_shape()
        self.stamp[e] = self.clock
        self.clock += 1
        self._rel = None
        self.revisitable[e] = True
        self.views[e] = None
        return ev, e

    def add_read_from(self, t: int, node: PathNode, w: int, maximal: bool) -> int:
        """Add the read ``node`` issues next to thread ``t``, reading from ``w``."""
        ev, e = self._add(t, node)
        self.rf[e] = w
        v = self.val[w]
        assert v is not None, "a read from no write"
        self.val[e] = v
        self.rl[self.lay.loc_of(ev)].append(e)
        self.addedmax[e] = maximal
        kids = node._children
        child = kids.get(v) if kids is not None else None
        self.node[e] = self.cur[t] = child if child is not None else node.child(v)
        return e

    def add_write_at(self, t: int, node: PathNode, pos: int) -> int:
        """Add the write ``node`` issues next to thread ``t`` at co position ``pos``."""
        ev, e = self._add(t, node)
        co = self.co[self.lay.loc_of(ev)]
        self.val[e] = ev.known_value
        self.addedmax[e] = pos == len(co)
        co.insert(pos, e)
        nxt = node._next
        self.node[e] = self.cur[t] = nxt if nxt is not None else node.after()
        return e

    def add_next(self, t: int, node: PathNode) -> int:
        """Add the event (neither read nor write) ``node`` issues next to thread ``t``."""
        s = node.step
        assert isinstance(s, Emit)
        ev = s.event
        if ev.kind == "S":
            c = ev.other
            if self.spawned_at[c] >= 0 or self.n[c]:
                raise StepError(f"P{t}: thread {c} is spawned twice")
            self.spawned_at[c] = self.base[t] + self.n[t]
        e = self.add_other(t, ev, node.next_shape())
        self.views[e] = None
        self.addedmax[e] = True
        self.revisitable[e] = True
        self.node[e] = self.cur[t] = node.after()
        return e

    def pop(self, t: int) -> None:
        """Undo the last addition, which was to thread ``t`` (the hot path of TruSt: the
        whole of :meth:`ExecutionGraph.pop` here, with the thread's path)."""
        e = self.base[t] + self.n[t] - 1
        ev = self.ev[e]
        assert ev is not None
        kind = ev.kind
        if kind == "R":
            self.rf[e] = -1
            self.rl[self.lay.loc_of(ev)].pop()
        elif kind == "W":
            self.co[self.lay.loc_of(ev)].remove(e)
        elif kind == "S":
            self.spawned_at[ev.other] = -1
        self.ev[e] = None
        self.val[e] = None
        self.n[t] -= 1
        self.clock -= 1
        self._rel = None
        self.cur[t] = self._before(t, e)

    def _before(self, t: int, e: int) -> PathNode:
        """The path node of thread ``t`` before its event ``e`` (its root when ``e`` is
        its first)."""
        node = self.node[e - 1] if e > self.base[t] else self.roots[t]
        assert node is not None
        return node

    # ------------------------------------------------------------------ prefixes
    def view(self, e: int) -> tuple[int, ...]:
        """The porf-prefix of ``e`` as :meth:`porf_view` gives it (along spawns and joins
        when threads are spawned), remembered per event: an event's prefix is there
        before it and stays while it does, so each is computed once from its po
        predecessor's, its write's, its spawn's and its joined thread's (a long thread's
        writes then cost no walk over the thread)."""
        views = self.views
        got = views[e]
        if got is not None:
            return got
        spawning = bool(self.spawned)
        tid, idx, rf, L, T = self.tid, self.idx, self.rf, self.L, self.T
        todo = [e]
        while todo:
            x = todo[-1]
            if views[x] is not None:
                todo.pop()
                continue
            t = tid[x]
            deps = [x - 1] if idx[x] else []
            if rf[x] >= L:
                deps.append(rf[x])
            if spawning:
                if not idx[x] and self.spawned_at[t] >= 0:
                    deps.append(self.spawned_at[t])
                ev = self.ev[x]
                if ev is not None and ev.kind == "J" and self.n[ev.other]:
                    c = ev.other
                    deps.append(self.base[c] + self.n[c] - 1)
            missing = [d for d in deps if views[d] is None]
            if missing:
                todo.extend(missing)
                continue
            v = [0] * T
            for d in deps:
                vd = views[d]
                assert vd is not None
                v = [a if a >= b else b for a, b in zip(v, vd, strict=True)]
            v[t] = max(v[t], idx[x] + 1)
            views[x] = tuple(v)
            todo.pop()
        out = views[e]
        assert out is not None
        return out

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
        if g.spawned:
            at = g.spawned_at
            for c, s in enumerate(at):
                if s >= 0 and g.idx[s] >= kept[g.tid[s]]:
                    at[c] = -1
        for t in range(g.T):
            m = kept[t]
            g.cur[t] = g._before(t, g.base[t] + m)
        g.set_rf(r, w)
        g.views[r] = None
        v: Value | None = g.val[w]
        assert v is not None
        # r now reads from a write of its past (in the graph's "added before" sense: all
        # that is left was added before r or is in w's prefix): maximal iff co-latest
        g.addedmax[r] = g.co[g.loc(w)][-1] == w
        t = g.tid[r]
        before = g._before(t, r)  # r is the last event kept in t
        g.node[r] = g.cur[t] = before.child(v)
        for t2 in range(g.T):
            b = g.base[t2]
            for j in range(b, b + wview[t2]):
                g.revisitable[j] = False
        return g
