"""RSMC's exploration (Abdulla, Atig, Jonsson, Leonardsson, CAV 2016, Fig. 7).

``Explore`` takes the first enabled read or write (its commit-before predecessors
committed, :meth:`engine.rsmc.state.RsmcState.enabled`) and commits it with every
parameter the model allows: a write at each allowed co position, a read from each
allowed write among those committed.  Reads that should read from a write committed
*later* are found as races (``DetectRace``): when a write ``w`` is committed, every
committed read ``r`` of its location that is not cb-before ``w`` could read from it if
``w`` came first.  The race gives a *run template*: the events committed since ``r`` was
explored that are cb-before ``w``, with their parameters, in a normal order (cb, then
event id, so that equivalent templates are equal), then ``w`` with every allowed
position (``*``), then ``r`` reading from ``w``.  The template is queued at the run
position where ``r`` was explored (where ``Explore`` chose it), or, when ``r`` was the
last event of a template, where that template started; reads committed inside a
template with a fixed parameter start no race.  Once the position's parameters are
explored, its queued templates are explored (``Traverse``: each event with its fixed
parameter, ``Explore`` again after the read), each template once (the position's
*explored* set).  So every complete trace the model allows is explored exactly once
(the paper's Theorems 4 and 5, with a valid, deadlock-free cb).

A template whose fixed parameter the model rejects, and an enabled event with no allowed
parameter, stop their run: *blocked* runs, counted (the paper reports at most 10 %).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from herdsman.engine.errors import ConditionSettled, ErrorFound, check_deadline
from herdsman.engine.outcome import Stats
from herdsman.engine.progress import ProgressReporter
from herdsman.engine.rsmc.state import RsmcState, Undo
from herdsman.engine.semantics.state import Blocked, ThreadDone, ThreadFailed
from herdsman.engine.semantics.step import LOOP_BOUND
from herdsman.graphs.execution import ExecutionGraph

#: The pseudo-parameter of a template's write: every allowed co position.
STAR = -1

#: A run template: (event, parameter) pairs, the last two a write with ``STAR`` and the
#: read that reads from it.
Template = tuple[tuple[int, int], ...]

OnComplete = Callable[
    [ExecutionGraph, list[ThreadDone], list[tuple[int, ThreadFailed]]], bool | None
]
OnBlockedError = Callable[[RsmcState, list[tuple[int, ThreadFailed]]], None]


#: RSMC's own counters (``Stats.extra``), besides the complete traces explored (each
#: allowed one exactly once) and the runs stopped before completion (a template or an
#: event refused: blocked): complete traces a non-monotone check rejects at the end,
#: complete runs where a thread is blocked (assume, lock) or stopped at the loop bound,
#: run templates queued by races and explored, complete traces seen twice (counted only
#: when asked), and the runs, all of them (Nidhugg's count).
RSMC_COUNTERS = (
    "rejected",
    "blocked_assume",
    "blocked_loop_bound",
    "templates",
    "traversals",
    "duplicates",
    "runs",
)


class _Frame:
    """A run position where ``Explore`` chose a read: its queued and explored
    templates."""

    __slots__ = ("queue", "explored")

    def __init__(self) -> None:
        self.queue: dict[Template, None] = {}
        self.explored: set[Template] = set()


class Explorer:
    """One RSMC exploration of ``state`` (see the module docstring); ``on_complete`` is
    told every complete trace and says whether the model allows it (None: not asked);
    ``on_blocked_error``, when given, every execution where a thread is blocked and
    another failed an assertion."""

    def __init__(
        self,
        state: RsmcState,
        on_complete: OnComplete,
        deadline: float | None = None,
        track_duplicates: bool = False,
        progress: ProgressReporter | None = None,
        on_blocked_error: OnBlockedError | None = None,
    ) -> None:
        self.state = state
        self.on_complete = on_complete
        self.on_blocked_error = on_blocked_error
        self.deadline = deadline
        self.progress = progress
        self.stats = Stats.counting(RSMC_COUNTERS)
        self.run_: list[tuple[int, int]] = []  # the run: (event, parameter)
        self.owner: list[int] = []  # per position: where a race with its read is queued
        self.undos: list[Undo] = []
        self.frames: dict[int, _Frame] = {}
        self._seen: set[tuple] | None = set() if track_duplicates else None
        self._ticks = 0

    def explore_all(self) -> Stats:
        t0 = time.process_time()
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20000))
        try:
            self._explore()
        except ErrorFound:
            self.stats.extra["stopped_at_error"] = 1
        except ConditionSettled:
            self.stats.extra["settled"] = 1
        finally:
            sys.setrecursionlimit(limit)
        st = self.stats
        st.time = time.process_time() - t0
        x = st.extra
        x["runs"] = st.complete + x["rejected"] + st.blocked
        x["runs"] += x["blocked_assume"] + x["blocked_loop_bound"]
        x["checks"] = self.state.checks
        return st

    # ------------------------------------------------------------------ the run
    def _push(self, e: int, param: int, owner: int) -> None:
        self.undos.append(self.state.commit(e, param))
        self.run_.append((e, param))
        self.owner.append(owner)

    def _pop(self) -> None:
        self.state.undo(self.undos.pop())
        self.run_.pop()
        self.owner.pop()

    def _blocked(self, why: str) -> None:
        """A run stops before completing (``why``: counted per reason too)."""
        self.stats.blocked += 1
        key = "blocked_" + why
        self.stats.extra[key] = self.stats.extra.get(key, 0) + 1

    def _tick(self) -> None:
        self._ticks += 1
        if self._ticks & 255 == 0:
            check_deadline(self.deadline)
            if self.progress is not None and self.progress.due():
                self.progress.update(self.stats.complete, None)

    # ------------------------------------------------------------------ Explore
    def _explore(self) -> None:
        self._tick()
        st = self.state
        e = st.enabled()
        if e < 0:
            self._finish()
            return
        if st.event(e).kind == "W":
            self._detect_races(e)
            options = st.write_options(e)
            if not options:
                self._blocked("no_position")
            for pos in options:
                self._push(e, pos, -1)
                self._explore()
                self._pop()
            return
        k = len(self.run_)
        frame = self.frames[k] = _Frame()
        options = st.read_options(e)
        if not options:
            self._blocked("no_source")
        for w in options:
            self._commit_read(e, w, k, self._explore)
        while True:
            todo = [t for t in frame.queue if t not in frame.explored]
            if not todo:
                break
            t = min(todo, key=lambda t: (len(t), t))
            frame.explored.add(t)
            self.stats.extra["traversals"] += 1
            self._traverse(t, 0, k)
        del self.frames[k]

    def _finish(self) -> None:
        """No event is enabled: a complete trace, an execution where a thread is blocked
        (an ``assume``, a lock, the loop bound: counted apart, and reported when another
        thread failed an assertion), or a blocked run."""
        st = self.state
        blocked = [end for end in st.end if isinstance(end, Blocked)]
        if blocked:
            if any(end.why == LOOP_BOUND for end in blocked):
                self.stats.extra["blocked_loop_bound"] += 1
            else:
                self.stats.extra["blocked_assume"] += 1
            if self.on_blocked_error is not None:
                fails = [(t, end) for t, end in enumerate(st.end) if isinstance(end, ThreadFailed)]
                if fails:
                    self.on_blocked_error(st, fails)
            return
        if not st.complete():
            self._blocked("stuck")
            return
        if self._seen is not None:
            g = st.g
            key = (g.shape_key(), tuple(g.rf), tuple(tuple(c) for c in g.co))
            if key in self._seen:
                self.stats.extra["duplicates"] += 1
            self._seen.add(key)
        finals, fails = st.finals()
        try:
            ok = self.on_complete(st.g, finals, fails)
        except (ErrorFound, ConditionSettled):  # stopping here: a trace all the same
            self.stats.complete += 1
            raise
        if ok is False:
            self.stats.extra["rejected"] += 1
        else:
            self.stats.complete += 1

    # ------------------------------------------------------------------ Traverse
    def _traverse(self, t: Template, i: int, k: int) -> None:
        """Commit template ``t`` from its ``i``-th event (started at run position ``k``),
        then explore on."""
        st = self.state
        e, p = t[i]
        if not st.is_fetched(e) or not st.committable(e):
            self._blocked("template_unfetched")
            return
        if st.event(e).kind == "W":
            self._detect_races(e)
            if p == STAR:
                options = st.write_options(e)
                if st.coherent:  # the template's read must be able to read from it
                    r = t[-1][0]
                    low = st.co_floor(r, st.g.loc(r))
                    options = [pos for pos in options if pos >= low]
            else:
                options = [p] if st.write_allowed(e, p) else []
            if not options:
                self._blocked("template_write")
            for pos in options:
                self._push(e, pos, -1)
                self._traverse(t, i + 1, k)
                self._pop()
            return
        last = i == len(t) - 1
        if not st.is_committed(p) or not st.read_allowed(e, p):
            self._blocked("template_read" if last else "template_fixed_read")
            return
        if last:
            self._commit_read(e, p, k, self._explore)
        else:  # a read-modify-write's write follows in the template
            self._push(e, p, -1)
            self._traverse(t, i + 1, k)
            self._pop()

    def _commit_read(self, r: int, w: int, owner: int, then: Callable[[], None]) -> None:
        """Commit read ``r`` reading from ``w`` (races with it queued at ``owner``), and,
        for a read-modify-write, its write at each allowed position with it; then go on
        (``then``)."""
        st = self.state
        self._push(r, w, owner)
        rw = st.rmw_write(r)
        if rw < 0:
            then()
        else:
            self._detect_races(rw)
            options = st.write_options(rw)
            if not options:
                self._blocked("no_position")
            for pos in options:
                self._push(rw, pos, -1)
                then()
                self._pop()
        self._pop()

    # ------------------------------------------------------------------ DetectRace
    def _detect_races(self, w: int) -> None:
        """Queue a template for every committed read racing with the write ``w`` (about
        to be committed)."""
        st = self.state
        g = st.g
        li = g.loc(w)
        tw, iw = g.tid[w], g.idx[w]
        before: set[int] | None = None
        for q, (r, _) in enumerate(self.run_):
            k = self.owner[q]
            if k < 0 or g.loc(r) != li:
                continue
            if g.tid[r] == tw and g.idx[r] < iw:
                continue  # a read never reads from a po-later write
            if before is None:
                before = st.cb_before(w)
            if r in before:
                continue
            t = self._template(k, before, w, r)
            frame = self.frames[k]
            if t not in frame.explored and t not in frame.queue:
                frame.queue[t] = None
                self.stats.extra["templates"] += 1

    def _template(self, k: int, before: set[int], w: int, r: int) -> Template:
        """The template of the race of read ``r`` (explored at position ``k``) with
        write ``w``: the events from position ``k`` on that are cb-before ``w`` (whose
        cb predecessors are ``before``), in normal order, then ``w`` and ``r``."""
        st = self.state
        g = st.g
        run = self.run_
        kept = []
        glue: dict[int, int] = {}  # a read-modify-write's read -> its write, kept together
        for q in range(k, len(run)):
            e, p = run[q]
            if e in before:
                kept.append((e, p))
                if q + 1 < len(run) and st.event(e).kind == "R" and run[q + 1][0] == e + 1:
                    if st.rmw_write(e) == e + 1:
                        glue[e] = e + 1
                        kept.append(run[q + 1])
        ids = {e for e, _ in kept}
        param = dict(kept)
        glued = set(glue.values())
        need = {e: st.cb_before(e) & ids for e in ids}
        order: list[int] = []
        placed: set[int] = set()
        while len(order) < len(ids):
            nxt = min(e for e in ids if e not in placed and e not in glued and need[e] <= placed)
            order.append(nxt)
            placed.add(nxt)
            if nxt in glue:
                order.append(glue[nxt])
                placed.add(glue[nxt])
        earlier = {e for e, _ in self.run_[:k]}
        out: list[tuple[int, int]] = []
        done: set[int] = set()
        for e in order:
            if st.event(e).kind == "W":
                pos = 0
                for x in g.co[g.loc(e)]:
                    if x == e:
                        break
                    if x in earlier or x in done:
                        pos += 1
                out.append((e, pos))
            else:
                out.append((e, param[e]))
            done.add(e)
        out.append((w, STAR))
        out.append((r, w))
        return tuple(out)
