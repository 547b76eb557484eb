"""TruSt: optimal, truly stateless exploration of execution graphs (POPL 2022).

Events are added one at a time, always to the leftmost thread that has a next event.

* A read is tried with every same-location write of the graph (forward revisits).
* A write is tried at every coherence position and, for each position, it then
  *revisits backward* each read of its location outside its porf-prefix: the read now
  reads from it, and the events added after the read that are not in the write's
  porf-prefix are deleted.  This is done only when the deletion is *maximal*, so that
  every graph is built along one path only: each deleted event (and the read) was added
  maximally (a read from the co-latest write of its time, a write placed co-last), is not
  co-before a write that stays (other than the revisiting one), and is not stable (in the
  porf-prefix of a write that revisited before); the write's immediate co-successor, if
  any, stays (positions differing only among deleted writes give one graph).

No set of pending choices is stored: the recursion holds one graph per level, so memory
is polynomial in the program.  A candidate graph the model rejects at once is dropped
before anything is explored from it: a forward option (*pruned*) or a revisited graph
(*inconsistent revisit*).  The checker may tell in advance that some options or revisits
close a cycle with the skeleton (:meth:`rf_floor`, :meth:`co_floor`,
:meth:`revisit_doomed` of :mod:`engine.trust_incremental`): they are dropped unbuilt, and
counted the same way (a write position dropped so still gets its backward revisits).
An exploration is *blocked* when a graph the model accepted cannot be completed: no
option of its next event is consistent, or a thread cannot go on (no execution of it for
the value it read).  For the models TruSt accepts, adding an event maximally keeps a
graph consistent, so blocked explorations are rare.  An RMW's write may have no
consistent position after another RMW took its read's write: GenMC calls such a graph
*moot* and so does this explorer (``stats.extra["moot"]``), not blocked.

A progress reporter, when given, hears every few hundred steps the executions so far and
their estimated total (:class:`engine.progress.TreeEstimate` over the recursion: a read's
options, a write's coherence positions, each with the backward revisits it makes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence

from herdsman.cat.api import ConsistencyChecker
from herdsman.engine.errors import (
    ConditionSettled,
    ErrorFound,
    NewLocation,
    TimeLimitExceeded,
)
from herdsman.engine.outcome import Stats
from herdsman.engine.progress import ProgressReporter, TreeEstimate, report
from herdsman.engine.semantics.paths import PathNode
from herdsman.engine.semantics.state import Blocked, Emit, Read, ThreadDone, ThreadFailed
from herdsman.engine.semantics.step import LOOP_BOUND
from herdsman.engine.trust.graph import WAITS, NoRoom, TrustGraph, blocks
from herdsman.engine.trust.symmetry import symmetry_ok
from herdsman.litmus.base.ir import BARRIER_ARRIVE

__all__ = ["TRUST_COUNTERS", "Explorer", "TimeLimitExceeded", "signature", "trust_stats"]

_LOOP_BOUND = Blocked(LOOP_BOUND)


#: TruSt's own counters (``Stats.extra``), besides the complete graphs the model allows
#: (each exactly once) and the explorations that stopped before completion (blocked):
#: complete graphs failing a non-monotone check at the end (rejected), forward options
#: the model rejected at once (pruned), backward revisits performed (the revisited graph
#: is consistent), whose graph the model rejects, known inconsistent before the graph is
#: built (doomed), skipped by the maximality condition (refused), complete graphs seen
#: twice (only counted when asked), graphs cut by a preemption bound, complete graphs
#: visited over the bound (thanks to the slack).
TRUST_COUNTERS = (
    "rejected",
    "pruned",
    "revisits",
    "revisits_inconsistent",
    "revisits_doomed",
    "refused",
    "duplicates",
    "bound_blocked",
    "beyond_bound",
)


def trust_stats() -> Stats:
    """The statistics of a TruSt exploration, its counters at 0."""
    return Stats.counting(TRUST_COUNTERS)


class Explorer:
    """One TruSt exploration of ``prog`` with ``checker`` (see the module docstring).

    ``on_complete(g, finals, failures)`` is called on every complete graph whose threads
    all finished (``finals``: how) and that every partial check let through;
    ``failures`` lists the threads that failed an assertion, and ``on_blocked_error(g,
    failures)`` is called on a blocked graph where one did (both only when
    ``on_blocked_error`` is given: for programs that assert); ``bound`` (see
    :mod:`engine.preemption`) cuts graphs over a preemption bound; ``progress`` hears
    ``executions()`` and where the search is, now and then; ``symmetric`` (each
    thread's symmetric predecessor, :mod:`engine.trust.symmetry`) turns on GenMC's
    symmetry reduction.  ``on_complete`` returns whether the model allows the graph, or
    None when it was not asked (speedcheck)."""

    def __init__(
        self,
        start: TrustGraph,
        checker: ConsistencyChecker,
        on_complete: Callable[
            [TrustGraph, list[ThreadDone], list[tuple[int, ThreadFailed]]], bool | None
        ],
        on_blocked_error: Callable[[TrustGraph, list[tuple[int, ThreadFailed]]], None]
        | None = None,
        bound=None,
        deadline: float | None = None,
        track_duplicates: bool = False,
        progress: ProgressReporter | None = None,
        executions: Callable[[], int] | None = None,
        symmetric: tuple[int, ...] = (),
    ) -> None:
        self.start = start
        self.symmetric = symmetric if any(s >= 0 for s in symmetric) else ()
        self.checker = checker
        self.on_complete = on_complete
        self.on_blocked_error = on_blocked_error
        self.bound = bound
        self.deadline = deadline
        self.stats = trust_stats()
        self._seen: set | None = set() if track_duplicates else None
        self._budget = 256
        self.progress = progress
        self.executions = executions
        # with a reporter: the size of the search tree, estimated as it goes
        self._tree = TreeEstimate(self._complete) if progress is not None else None

    def run(self) -> Stats:
        t0 = time.process_time()
        g = self.start
        try:
            if self.checker.restart(g):
                _drive(self._visit(g))
        except ErrorFound:
            self.stats.extra["stopped_at_error"] = 1
        except ConditionSettled:
            self.stats.extra["settled"] = 1
        self.stats.time = time.process_time() - t0
        return self.stats

    # ------------------------------------------------------------------ the algorithm
    def _tick(self) -> None:
        self._budget -= 1
        if not self._budget:
            self._budget = 256
            if self.deadline is not None and time.process_time() > self.deadline:
                raise TimeLimitExceeded()
            if self.progress is not None and self.progress.due():
                self._report(self.progress)

    def _complete(self) -> int:
        return self.stats.complete

    def _report(self, progress: ProgressReporter) -> None:
        report(progress, self.stats.complete, self.executions, self._tree)

    def _visit(self, g: TrustGraph) -> Step:
        self._tick()
        t, node = g.next_thread_node()
        if node is None:
            self._leaf(g)
            return
        s = node._step  # next_thread_node set it
        assert isinstance(s, (Emit, Read))
        ev = s.event
        checker = self.checker
        stats = self.stats
        k = g.n[t]
        if k >= g.lay.room[t]:  # the thread runs longer than its room: more room
            raise NoRoom(t, k)
        e = g.base[t] + k
        li = -1
        if ev.loc is not None:
            li = g.lay.loc_index.get(ev.loc, -1)
            if li < 0:
                raise NewLocation(ev.loc)
        if ev.kind == "R":
            writes = [li, *g.co[li]]
            last = writes[-1]
            floor = checker.rf_floor(g, e, li)  # options before it: certainly inconsistent
            stats.extra["pruned"] += floor
            alive = False
            options = writes[floor:]
            if ev.annots & WAITS:  # a barrier's: the arrival that ended its generation
                options = [_generation_end(g, node, e, li)]
            for w in options if self._tree is None else self._tracked(options):
                g.add_read_from(t, node, w, w == last)
                step = self._accept(g, e)
                if step is not None:
                    alive = True
                    yield step
                checker.removed(g, e)
                g.pop(t)
            if not alive:
                self._moot()
        elif ev.kind == "W":
            floor = checker.co_floor(g, e, li)  # positions below it: certainly inconsistent
            # else no revisit: doomed positions need no visit; a barrier's arrivals
            # revisit nothing (GenMC's barrier-aware model checking: one order of them)
            readers = bool(g.rl[li]) and BARRIER_ARRIVE not in ev.annots
            alive = False
            positions = range(len(g.co[li]), -1, -1)
            for pos in positions if self._tree is None else self._tracked(positions):
                doomed = pos < floor
                if doomed and not readers:
                    stats.extra["pruned"] += 1
                    continue
                g.add_write_at(t, node, pos)
                if doomed:
                    stats.extra["pruned"] += 1
                else:
                    step = self._accept(g, e)
                    if step is not None:
                        alive = True
                        yield step
                    checker.removed(g, e)
                if readers:
                    yield self._backward(g, e, li)  # a revisit may repair a bad position
                g.pop(t)
            if not alive:
                # the write of a read-modify-write whose read took a write another one
                # had taken, or no consistent position: GenMC drops such a graph as moot
                # (its revisits went on above), it is no blocked execution
                self._moot()
        else:
            g.add_next(t, node)
            step = self._accept(g, e)
            if step is None:
                self._moot()
            else:
                yield step
            checker.removed(g, e)
            g.pop(t)

    def _tracked(self, options: Sequence[int]) -> Iterator[int]:
        """``options`` of a node of the search, told to the tree estimate as they go."""
        tree = self._tree
        assert tree is not None
        tree.enter(len(options))
        for option in options:
            tree.child()
            yield option
        tree.leave()

    def _accept(self, g: TrustGraph, e: int) -> Step | None:
        """The step going on from ``g`` if the checker accepts its new event ``e`` (None:
        it does not, counted pruned; an empty step when the graph is moot).  The caller
        lets the checker forget ``e`` (``removed``) once that step is done."""
        if self.checker.added(g, e):
            if self.symmetric and not symmetry_ok(g, e, self.symmetric):
                self.stats.extra["pruned"] += 1
                return None
            if g.moot_block(g.tid[e]):
                self._moot()
                return iter(())
            return self._go(g)
        self.stats.extra["pruned"] += 1
        return None

    def _moot(self) -> None:
        """A graph GenMC drops (no consistent option, or a thread blocked for good
        after a read that could not change): no execution is counted."""
        extra = self.stats.extra
        extra["moot"] = extra.get("moot", 0) + 1

    def _go(self, g: TrustGraph) -> Step:
        """The step continuing with ``g``, unless the preemption bound cuts it."""
        if self.bound is not None and self.bound.cut(g):
            self.stats.extra["bound_blocked"] += 1
            return iter(())
        return self._visit(g)

    def _backward(self, g: TrustGraph, a: int, li: int) -> Step:
        """Backward revisits by the write ``a`` (just added) of location ``li``."""
        revisitable, addedmax, idx, tid = g.revisitable, g.addedmax, g.idx, g.tid
        stats = self.stats
        wview: tuple[int, ...] | None = None
        succ = -2
        for r in g.reads_of(li):
            if not revisitable[r]:
                continue
            if wview is None:  # the write's porf-prefix, once some read may be revisited
                wview = g.view(a)
            if idx[r] < wview[tid[r]]:  # (g.in_view, inlined: reads are no initial writes)
                continue
            if not addedmax[r]:  # the maximality condition fails at r itself
                stats.extra["refused"] += 1
                continue
            evr = g.ev[r]
            if evr is not None and evr.annots & WAITS:
                node = g.node[r - 1] if g.idx[r] else g.roots[g.tid[r]]
                if node is not None and blocks(node, g.val[a]):  # type: ignore[arg-type]
                    stats.extra["refused"] += 1  # it would wait there: GenMC revisits in place
                    continue
            if succ == -2:
                co = g.co[li]
                p = co.index(a)
                succ = co[p + 1] if p + 1 < len(co) else -1
            kept = g.kept_view(r, wview)
            if (succ >= 0 and not g.in_view(succ, kept)) or not self._maximal(g, r, a, kept):
                stats.extra["refused"] += 1
                continue
            if self.checker.revisit_doomed(g, r, a, kept):
                stats.extra["revisits_doomed"] += 1
                continue
            g2 = g.revisit(r, a, kept, wview)
            if not self.checker.restart(g2) or (
                self.symmetric and not symmetry_ok(g2, r, self.symmetric)
            ):
                stats.extra["revisits_inconsistent"] += 1
                continue
            stats.extra["revisits"] += 1
            if g2.moot_block(g2.tid[r]):
                self._moot()
                continue
            yield self._go(g2)

    def _maximal(self, g: TrustGraph, r: int, a: int, kept: list[int]) -> bool:
        """TruSt's maximality condition for deleting, on behalf of write ``a``, the
        events of ``g`` outside ``kept`` and re-reading ``r`` (see the module docstring)."""
        victims = [r]
        for t in range(g.T):
            b = g.base[t]
            victims.extend(range(b + kept[t], b + g.n[t]))
        L = g.L
        co = g.co
        for j in victims:
            if not g.revisitable[j]:
                return False
            kind = g.event_at(j).kind
            if kind == "R":
                src = g.rf[j]
            elif kind == "W":
                src = j
            else:
                continue
            if not g.addedmax[j]:
                return False
            order = co[g.loc(j)]
            after = order if src < L else order[order.index(src) + 1 :]
            for s in after:
                if s != a and g.in_view(s, kept):
                    return False
        return True

    def _blocked(self, why: str) -> None:
        stats = self.stats
        stats.blocked += 1
        key = "blocked_" + why
        stats.extra[key] = stats.extra.get(key, 0) + 1

    # ------------------------------------------------------------------ leaves
    def _leaf(self, g: TrustGraph) -> None:
        finals = g.finals()
        fails = g.failures() if self.on_blocked_error is not None else []
        if finals is None:
            blocked = [g.at(t).step for t in range(g.T)]
            bound = any(s == _LOOP_BOUND or type(s) is ThreadDone and s.cut for s in blocked)
            why = "loop_bound" if bound else "thread"
            self._blocked(why)
            if fails and self.on_blocked_error is not None:
                self.on_blocked_error(g, fails)
            return
        if self._seen is not None:
            sig = signature(g)
            if sig in self._seen:
                self.stats.extra["duplicates"] += 1
            self._seen.add(sig)
        try:
            ok = self.on_complete(g, finals, fails)
        except (ErrorFound, ConditionSettled):  # stopping here: an execution all the same
            self.stats.complete += 1
            raise
        if ok:
            self.stats.complete += 1
        elif ok is not None:
            self.stats.extra["rejected"] += 1


#: A step of the exploration: it yields the steps to run, each to its end, before it goes
#: on (:func:`_drive`).
Step = Iterator["Step"]


def _drive(root: Step) -> None:
    """Run ``root`` and, depth first, the steps each step yields before it goes on.  The
    exploration is a recursion one level per event added (revisits nest); written as
    steps on a list it keeps Python's own stack flat: CPython 3.11 frees a chunk of its
    frame stack each time a call returns below the chunk's start, and a deep recursion
    whose hot loop straddles such a boundary spent up to a third of its time in mmap and
    munmap (Fig. 11 N=9: 260,000 page faults, 1 s of system time)."""
    stack = [root]
    push, pop = stack.append, stack.pop
    while stack:
        step = next(stack[-1], None)
        if step is None:
            pop()
        else:
            push(step)


def signature(g: TrustGraph) -> tuple:
    """What identifies a complete graph: each thread's events with their rf, and co."""

    def name(e: int) -> tuple[int, int]:
        return (g.tid[e], g.idx[e])

    rfs = tuple(name(g.rf[e]) if g.rf[e] >= 0 else None for e in g.events())
    cos = tuple(tuple(name(w) for w in c) for c in g.co)
    return (tuple(g.n), rfs, cos)


def _generation_end(g: TrustGraph, node: PathNode, e: int, li: int) -> int:
    """The write the barrier wait ``e`` (its thread at ``node``) reads: the first state
    of the barrier ``li``, from its thread's own arrival on in co, that lets it pass — the
    arrival that ended its generation, as GenMC's barrier waits read — else the latest
    (it waits).  Not the latest state: another thread may have passed and arrived at the
    barrier's next generation already."""
    co = g.co[li]
    t = g.tid[e]
    start = 0
    for j in range(e - 1, g.base[t] - 1, -1):  # its own arrival: its latest write there
        ej = g.ev[j]
        if ej is not None and ej.kind == "W" and g.loc(j) == li:
            start = co.index(j)
            break
    for w in co[start:]:
        v = g.val[w]
        if v is not None and not blocks(node, v):
            return w
    return co[-1] if co else li
