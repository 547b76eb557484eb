"""RSMC's state: every thread's fetched events, the committed ones, rf and co.

The state is the paper's ``(λ, F, E, po, co, rf)``: each thread fetches its events in
program order from the step function (:mod:`engine.semantics`), leaving the values of
reads not committed yet symbolic; an event is committed once its commit-before
predecessors (:mod:`engine.rsmc.cb`) are.  A thread stops fetching at a branch or an
address that waits for an uncommitted read (its step is a ``Stall``, or an event whose
address is not known yet); committing that read lets it go on.  Reads and writes are
committed by the explorer with a parameter (the write a read reads from; a write's
position in co); other events are committed as soon as their predecessors are.

The fetched events live in one :class:`graphs.execution.ExecutionGraph` (uncommitted ones
without rf or co), so the model judges the state through the checker interface: its
monotone axioms on the fetched events with the rf and co chosen so far.  As every
relation only grows when events are committed, a state they reject has no allowed
completion.

The read and the write of a read-modify-write are committed together (as Nidhugg's
events with a load and a store access): the read waits for the write's predecessors too,
and the explorer commits the write right after it, so no other write comes between.

Threads a spawn starts begin fetching once the spawn event is fetched; their events are
cb-after it.  A join is fetched once the joined thread has ended, and is cb-after every
event of that thread.  (Program order runs along spawns and joins, as in the model's
skeleton; the C front-end's POWER target puts a ``sync`` before a spawn and after a join,
so these are ``cb^power``'s own edges there.)

Every change is undone exactly (:meth:`RsmcState.commit` returns what :meth:`undo`
needs: the state of every thread the commit touched), so one state serves the whole
depth-first exploration.
"""

from __future__ import annotations

from typing import NamedTuple

from herdsman.cat.api import ConsistencyChecker
from herdsman.engine.errors import NewLocation
from herdsman.engine.rsmc.cb import PredsFn
from herdsman.engine.semantics.arith import ReadValue, evaluate, is_known
from herdsman.engine.semantics.state import (
    Blocked,
    Emit,
    Pending,
    Read,
    Stall,
    ThreadDone,
    ThreadFailed,
    ThreadState,
    finished,
)
from herdsman.engine.semantics.step import Semantics
from herdsman.graphs.events import Event, with_value
from herdsman.graphs.execution import ExecutionGraph, Layout
from herdsman.litmus.base.ir import Value

#: How a thread ended (None: it has not).
End = ThreadDone | ThreadFailed | Blocked | None


class Saved(NamedTuple):
    """A thread as it was before a commit touched it."""

    t: int
    fetched: int  # events fetched
    committed: int  # mask of committed positions
    state: ThreadState
    end: End
    started: bool


class Undo(NamedTuple):
    """What :meth:`RsmcState.undo` restores after committing ``e``."""

    e: int  # the committed read or write
    saved: tuple[Saved, ...]


class RsmcState:
    """One program's fetched and committed events (see the module docstring)."""

    def __init__(
        self,
        sem: Semantics,
        lay: Layout,
        preds_fn: PredsFn,
        checker: ConsistencyChecker,
        coherent: bool = False,
    ) -> None:
        self.sem = sem
        self.coherent = coherent
        self.lay = lay
        self.preds_fn = preds_fn
        self.checker = checker
        self.g = ExecutionGraph(lay)
        T = lay.T
        self.T = T
        self.base = lay.base
        self.state: list[ThreadState] = [sem.start(t) for t in range(T)]
        self.end: list[End] = [None] * T
        self.events: list[list[Event]] = [[] for _ in range(T)]
        self.preds: list[list[int]] = [[] for _ in range(T)]
        # per thread and event: its cb predecessors in other threads (spawn, join)
        self.xpreds: list[list[tuple[int, ...]]] = [[] for _ in range(T)]
        self.committed = [0] * T  # per thread: mask of committed positions
        self.values: list[dict[int, Value]] = [{} for _ in range(T)]
        self.started = [t not in sem.spawned for t in range(T)]
        self.spawn_of = [-1] * T  # per spawned thread: the id of the spawn that started it
        self.joins = bool(sem.spawned)  # threads may wait for each other
        self.checks = 0
        self._saved: dict[int, Saved] | None = None
        for t in range(T):
            if self.started[t]:
                self._fetch(t)

    # ------------------------------------------------------------------ reading
    def event(self, e: int) -> Event:
        """The fetched event of id ``e``."""
        g = self.g
        return self.events[g.tid[e]][g.idx[e]]

    def is_fetched(self, e: int) -> bool:
        g = self.g
        return g.idx[e] < len(self.events[g.tid[e]])

    def is_committed(self, e: int) -> bool:
        g = self.g
        return e < g.L or bool(self.committed[g.tid[e]] >> g.idx[e] & 1)

    def committable(self, e: int) -> bool:
        """Whether the fetched, uncommitted event ``e`` has its predecessors committed."""
        g = self.g
        t, i = g.tid[e], g.idx[e]
        p = self.preds[t][i]
        if self.committed[t] & p != p or self.committed[t] >> i & 1:
            return False
        return all(self.is_committed(x) for x in self.xpreds[t][i])

    def enabled(self) -> int:
        """The first committable read or write, thread by thread (-1: none)."""
        for t in range(self.T):
            c = self.committed[t]
            preds = self.preds[t]
            evs = self.events[t]
            for i in range(len(evs)):
                if c >> i & 1:
                    continue
                k = evs[i].kind
                if (k == "R" or k == "W") and c & preds[i] == preds[i]:
                    xp = self.xpreds[t][i]
                    if not xp or all(self.is_committed(x) for x in xp):
                        return self.base[t] + i
        return -1

    def complete(self) -> bool:
        """Every thread started ended (the others were never spawned) and every fetched
        event committed."""
        for t in range(self.T):
            if not self.started[t]:
                continue
            if self.end[t] is None or self.committed[t] != (1 << len(self.events[t])) - 1:
                return False
        return True

    def cb_before(self, e: int) -> set[int]:
        """The committed events cb-before ``e`` (transitively, rf included)."""
        g = self.g
        out: set[int] = set()
        todo = [e]
        while todo:
            x = todo.pop()
            t, i = g.tid[x], g.idx[x]
            m = self.preds[t][i]
            b = self.base[t]
            while m:
                low = m & -m
                y = b + low.bit_length() - 1
                m ^= low
                if y not in out:
                    out.add(y)
                    todo.append(y)
            for y in self.xpreds[t][i]:
                if y not in out:
                    out.add(y)
                    todo.append(y)
            if self.events[t][i].kind == "R":
                w = g.rf[x]
                if w >= g.L and w not in out:
                    out.add(w)
                    todo.append(w)
        return out

    # ------------------------------------------------------------------ the model
    def consistent(self) -> bool:
        """Whether the model's monotone axioms accept the state."""
        self.checks += 1
        return self.checker.restart(self.g)

    def read_allowed(self, r: int, w: int) -> bool:
        """Whether read ``r`` may read from write ``w`` (an initial write: its location)."""
        g = self.g
        g.set_rf(r, w)
        ok = self.consistent()
        g.uncommit_read(r)
        return ok

    def read_options(self, r: int) -> list[int]:
        """The writes read ``r`` may read from: its location's initial write, then its
        committed writes in co order (for a coherent model, from the co-last write its
        thread wrote or read before it: the earlier ones would break coherence)."""
        li = self.g.loc(r)
        cands = [li, *self.g.co[li]]
        if self.coherent:
            cands = cands[self.co_floor(r, li) :]
        return [w for w in cands if self.read_allowed(r, w)]

    def co_floor(self, e: int, li: int) -> int:
        """For a coherent model: the co index (0: the initial write) of the co-last write
        that the committed po-earlier events of ``e``'s thread at location ``li`` wrote
        or read; ``e`` must read from it or a co-later one, or go after it."""
        g = self.g
        t, i = g.tid[e], g.idx[e]
        co = g.co[li]
        floor = 0
        c = self.committed[t]
        b = self.base[t]
        loc = self.events[t][i].loc
        for j, ev in enumerate(self.events[t][:i]):
            if ev.loc != loc or not c >> j & 1:
                continue
            w = b + j if ev.kind == "W" else g.rf[b + j] if ev.kind == "R" else -1
            if w >= g.L:
                floor = max(floor, co.index(w) + 1)
        return floor

    def rmw_write(self, r: int) -> int:
        """The write of the read-modify-write whose read ``r`` was just committed (fetched
        right after it, same instruction), or -1 (a plain read; a failed
        compare-and-swap)."""
        g = self.g
        t, i = g.tid[r], g.idx[r]
        evs = self.events[t]
        if i + 1 < len(evs) and evs[i + 1].kind == "W" and evs[i + 1].poi == evs[i].poi:
            return r + 1
        return -1

    def write_value(self, e: int) -> Event:
        """The fetched write ``e`` with its value computed (its predecessors are in)."""
        g = self.g
        t = g.tid[e]
        ev = self.events[t][g.idx[e]]
        v = ev.value
        if v is not None and not is_known(v):
            v = evaluate(v, self.values[t])
            assert is_known(v), f"write {ev} committed before the reads its value needs"
            ev = with_value(ev, v)
        return ev

    def write_allowed(self, e: int, pos: int) -> bool:
        """Whether write ``e`` may go at co position ``pos``."""
        g = self.g
        g.commit_write(e, self.write_value(e), pos)
        ok = self.consistent()
        g.uncommit_write(e)
        return ok

    def write_options(self, e: int) -> list[int]:
        """The co positions write ``e`` may take (0: right after the initial write; for a
        coherent model, after the co-last write its thread wrote or read before it)."""
        li = self.g.loc(e)
        n = len(self.g.co[li])
        low = self.co_floor(e, li) if self.coherent else 0
        return [p for p in range(low, n + 1) if self.write_allowed(e, p)]

    # ------------------------------------------------------------------ changing
    def commit(self, e: int, param: int) -> Undo:
        """Commit read ``e`` reading from ``param``, or write ``e`` at co position
        ``param``; then let the threads fetch and commit what they can."""
        g = self.g
        t, i = g.tid[e], g.idx[e]
        self._saved = {}
        self._save(t)
        ev = self.events[t][i]
        self.committed[t] |= 1 << i
        if ev.kind == "R":
            g.set_rf(e, param)
            v = g.val[param]
            assert v is not None
            self.values[t][i] = v
            self.state[t] = self.sem.resolve(t, self.state[t], self.values[t])
            self._fetch(t)
        else:
            g.commit_write(e, self.write_value(e), param)
            self._commit_local(t)
        if self.joins:
            for u in range(self.T):
                if u != t and self.started[u]:
                    self._commit_local(u)
        undo = Undo(e, tuple(self._saved.values()))
        self._saved = None
        return undo

    def undo(self, u: Undo) -> None:
        """Take back the commit ``u`` describes."""
        g = self.g
        e = u.e
        t, i = g.tid[e], g.idx[e]
        if self.events[t][i].kind == "R":
            g.uncommit_read(e)
            del self.values[t][i]
        else:
            g.uncommit_write(e)
            g.ev[e] = self.events[t][i]
        for sv in u.saved:
            t = sv.t
            if len(self.events[t]) > sv.fetched:
                del self.events[t][sv.fetched :]
                del self.preds[t][sv.fetched :]
                del self.xpreds[t][sv.fetched :]
                g.truncate(t, sv.fetched)
            self.committed[t] = sv.committed
            self.state[t] = sv.state
            self.end[t] = sv.end
            if self.started[t] and not sv.started:
                self.spawn_of[t] = -1
            self.started[t] = sv.started

    def _save(self, t: int) -> None:
        """Remember thread ``t`` as it is, once per commit, before changing it."""
        saved = self._saved
        if saved is not None and t not in saved:
            saved[t] = Saved(
                t,
                len(self.events[t]),
                self.committed[t],
                self.state[t],
                self.end[t],
                self.started[t],
            )

    def _fetch(self, t: int) -> None:
        """Fetch thread ``t``'s events as far as its known values go (a thread that ended
        ends again, with the values known now), then commit its events other than reads
        and writes whose predecessors are in.  A spawn starts its thread; a join waits
        for its thread to end."""
        self._save(t)
        sem, g = self.sem, self.g
        st = self.state[t]
        evs = self.events[t]
        preds = self.preds[t]
        xpreds = self.xpreds[t]
        shapes = self.lay.shapes
        spawned: list[int] = []
        ended = self.end[t] is not None
        while True:
            s = sem.step(t, st)
            if isinstance(s, (Emit, Read)):
                if s.address is not None:
                    break  # its address waits for a read
                ev: Event = s.event
                if ev.loc is not None and ev.loc not in self.lay.loc_index:
                    raise NewLocation(ev.loc)
                xp: tuple[int, ...] = ()
                if ev.kind == "J":
                    c = ev.other
                    if not finished(self.end[c]):
                        break  # waits for thread c to end
                    xp = tuple(range(self.base[c], self.base[c] + len(self.events[c])))
                elif not evs and self.spawn_of[t] >= 0:
                    xp = (self.spawn_of[t],)
                n = len(evs)
                prev = g.shape[self.base[t] + n - 1] if n else 0
                evs.append(ev)
                preds.append(self.preds_fn(evs, n))
                xpreds.append(xp)
                gid = g.fetch(t, ev, shapes.intern(prev, ev))
                if ev.kind == "S":
                    c = ev.other
                    spawned.append(c)
                    self._save(c)
                    self.started[c] = True
                    self.spawn_of[c] = gid
                if isinstance(s, Emit):
                    st = s.after
                else:
                    st = sem.after_read(t, s, ReadValue(n))  # type: ignore[arg-type]
                    if isinstance(st.pending, Pending):
                        # the read of a read-modify-write: its write is committed with it
                        # (atomically), so the read also waits for the write's other
                        # predecessors
                        pw = st.pending.event
                        preds[n] |= (pw.addr | pw.data | pw.ctrl | pw.valdep) & ~(1 << n)
            elif isinstance(s, Stall):
                break
            else:
                assert isinstance(s, (ThreadDone, ThreadFailed, Blocked)), "RSMC refuses forks"
                self.end[t] = s
                break
        self.state[t] = st
        self._commit_local(t)
        for c in spawned:
            self._fetch(c)
        if self.joins and not ended and finished(self.end[t]):
            for u in range(self.T):  # threads waiting to join t
                if u != t and self.started[u] and self.end[u] is None:
                    self._fetch(u)

    def _commit_local(self, t: int) -> None:
        """Commit thread ``t``'s fetched events other than reads and writes whose
        predecessors are committed."""
        c = self.committed[t]
        preds = self.preds[t]
        xpreds = self.xpreds[t]
        for i, ev in enumerate(self.events[t]):
            k = ev.kind
            if k != "R" and k != "W" and not c >> i & 1 and c & preds[i] == preds[i]:
                if xpreds[i] and not all(self.is_committed(x) for x in xpreds[i]):
                    continue
                self._save(t)
                c |= 1 << i
        self.committed[t] = c

    def finals(self) -> tuple[list[ThreadDone], list[tuple[int, ThreadFailed]]]:
        """How the threads of a complete state ended: their final registers, and the
        threads that failed an assertion."""
        finals: list[ThreadDone] = []
        fails: list[tuple[int, ThreadFailed]] = []
        for t, end in enumerate(self.end):
            if not self.started[t]:
                finals.append(self.sem.threads[t].initial())
            elif isinstance(end, ThreadFailed):
                fails.append((t, end))
                finals.append(end.done)
            else:
                assert isinstance(end, ThreadDone)
                finals.append(end)
        return finals, fails
