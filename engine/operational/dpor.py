"""Exploring the operational machine: DPOR with sleep sets, stateful DPOR, or every run.

**DPOR** is Flanagan and Godefroid's (POPL 2005) over the machine's processes (program
threads and the shadow threads of their buffers), with sleep sets (Godefroid).  With the
shadows as processes, the paper's *extended enabled sets* (Zhang, Kusano and Wang, PLDI
2015, §4: per thread, its next operation and the pending writes of its buffer) are the
enabled transitions of a thread and its shadows, and its relations D_SC, D_TSO and D_PSO
become :func:`dependent`: two transitions of one process, or of different threads on one
location with a write among them (memory-writes are the shadows' flushes, locked
read-modify-writes and the stores of SC); a thread's transition that needs empty buffers
(MFENCE, a locked instruction) and its own flushes; a spawn or join and the other
thread.  A buffer-write and the read of another location that follows it are independent
(they are a thread's and its shadow's), but a read and its own thread's flush of the same
location are dependent: the flush sends the read to memory, where other threads' writes
race with it.  Under a buffer bound a buffer-write and its
shadow's flushes are independent too: they commute, and a flush of a full buffer only
lets the write go on (that DPOR then finds every run's execution is checked against
exploring every run, on the X86 tests with bounds 0, 1 and 2).
Happens-before is kept with vector clocks, including the *causal edges* of the shadows:
a flush comes after the transition that buffered its write, and after the flush that
lifted the barrier (PSO's SFENCE) before it.

**Stateful DPOR** (``stateful=True``; Yang, Chen, Gopalakrishnan and Kirby, SPIN 2008)
stores abstract states — memory, buffers, and per thread its place and a local state
*id* linked to the previous one by the change between them (§3, :class:`LocalIds`) — in
a hash table.  On a visited state, the visible operations reachable in the *visible
operation dependency graph* from the state's enabled ones update the backtrack sets of
the stack (Fig. 5, 6), and the search backtracks.  Sleep sets are not used then.

**Every run** (``reduction="none"``): each enabled transition of every state, the runs a
naive exploration takes; :func:`count_runs` counts them without running them.

A progress reporter, when given, hears every few hundred transitions the executions so
far and their estimated total (:class:`engine.progress.TreeEstimate` over the stack: each
state's children are the transitions its backtrack set holds, as it grows).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from herdsman.engine.errors import check_deadline
from herdsman.engine.operational.machine import (
    BLOCKED,
    FAILED,
    RUNNING,
    Effects,
    Machine,
    MState,
    Tr,
    pc_of,
)
from herdsman.engine.outcome import Stats
from herdsman.engine.progress import ProgressReporter, TreeEstimate, report

Clock = dict[int, int]


def dependent(m: Machine, a: Tr, b: Tr) -> bool:
    """Whether transitions ``a`` and ``b`` are dependent (see the module docstring)."""
    if a.proc == b.proc:
        return True
    if _spawn_or_join(a, b):
        return True
    if a.thread == b.thread:
        T = m.T
        if a.proc < T:
            th = a
        elif b.proc < T:
            th = b
        else:  # two shadows of one thread (PSO): ordered by causal edges only
            return False
        if th.fenced:
            return True
        # a read and its own thread's flush of the location: the read then goes to memory
        return th.kind == "R" and a.loc == b.loc
    if a.loc < 0 or a.loc != b.loc:
        return False
    return a.writes or b.writes


def _spawn_or_join(a: Tr, b: Tr) -> bool:
    """Whether one transition spawns or joins the other's thread."""
    return (a.other >= 0 and b.thread == a.other) or (b.other >= 0 and a.thread == b.other)


def coenabled(m: Machine, a: Tr, b: Tr) -> bool:
    """Whether ``a`` and ``b`` may be enabled in one state: not a fenced transition and
    its own thread's flushes, nor a spawn or join and the other thread's transitions."""
    if _spawn_or_join(a, b):
        return False
    if a.thread == b.thread:
        T = m.T
        if (a.fenced and b.proc >= T) or (b.fenced and a.proc >= T):
            return False
    return True


@dataclass(slots=True)
class Frame:
    """A state on the search stack, with its DPOR sets, and the transition taken from it
    (with its effects and vector clock) while a child is on the stack."""

    state: MState
    enabled: dict[int, Tr]
    pclocks: dict[int, Clock]
    sleep: dict[int, Tr] = field(default_factory=dict)
    backtrack: set[int] = field(default_factory=set)
    done: set[int] = field(default_factory=set)
    nexts: dict[int, Tr] = field(default_factory=dict)
    taken: Tr | None = None
    fx: Effects | None = None
    clock: Clock | None = None
    lids: tuple[int, ...] = ()
    akey: tuple | None = None  # stateful: its abstract state, while on the stack


#: The DPOR exploration's own counters (``Stats.extra``), besides its complete runs and
#: blocked runs (an assumption failed, the loop bound, a deadlock): runs cut by the
#: sleep set, runs cut at a visited state (stateful), transitions executed, abstract
#: states stored, the deepest stack.
DPOR_COUNTERS = ("sleep_blocked", "visited_cut", "transitions", "states", "depth")


#: What a leaf reports: ``complete``, ``blocked`` or ``deadlock``, and the stack (and,
#: stateful, ``failed``: a thread has just failed an assertion, the run goes on)
Leaf = Callable[[str, list[Frame], Effects], None]


class LocalIds:
    """Yang et al.'s local state ids (§3): per thread, (id, change) -> id.  A thread's
    local state is known here exactly (its live registers), so a change not in the table
    yet gets the id of the state it leads to, interned: equal local states get equal ids
    whatever the changes that led to them (a loop whose registers cycle repeats its ids)."""

    def __init__(self, T: int) -> None:
        self.tables: list[dict[tuple[int, object], int]] = [{} for _ in range(T)]
        self.interned: list[dict[tuple, int]] = [{} for _ in range(T)]
        self.fresh = 1

    def intern(self, t: int, state: tuple) -> int:
        """The id of thread ``t``'s local state ``state``."""
        known = self.interned[t]
        got = known.get(state)
        if got is None:
            got = known[state] = self.fresh
            self.fresh += 1
        return got

    def next(self, t: int, i: int, delta: object, state: tuple) -> int:
        table = self.tables[t]
        key = (i, delta)
        got = table.get(key)
        if got is None:
            got = table[key] = self.intern(t, state)
        return got


def _delta(a: tuple, b: tuple) -> object:
    """The change from local state ``a`` to ``b`` (None: none): the registers that
    changed, with their new values (the whole state when its shape changed)."""
    if a == b:
        return None
    if len(a) == len(b):
        return tuple([(i, v) for i, (u, v) in enumerate(zip(a, b, strict=True)) if u != v])
    return b


class Explorer:
    """One exploration of ``machine`` from ``s0`` (see the module docstring)."""

    def __init__(
        self,
        machine: Machine,
        s0: MState,
        fx0: Effects,
        on_leaf: Leaf,
        reduction: str = "dpor",
        stateful: bool = False,
        deadline: float | None = None,
        progress: ProgressReporter | None = None,
        executions: Callable[[], int] | None = None,
    ) -> None:
        self.m = machine
        self.progress = progress
        self.executions = executions
        # with a reporter: the size of the search tree (in complete runs) as it goes
        self._tree = TreeEstimate(self._complete) if progress is not None else None
        self.s0 = s0
        self.fx0 = fx0
        self.on_leaf = on_leaf
        self.por = reduction == "dpor"
        self.stateful = stateful
        self.deadline = deadline
        self.stats = Stats.counting(DPOR_COUNTERS, 0)
        self.visited: set[tuple] = set()
        self.graph: dict[Tr, set[Tr]] = {}  # the visible operation dependency graph
        self.reach: dict[Tr, frozenset[Tr]] = {}  # its reachability, until it grows
        self.lids = LocalIds(machine.T)
        self.stack: list[Frame] = []
        self.on_stack: dict[tuple, int] = {}  # stateful: abstract states on the stack
        # stack positions of the transitions taken, by what they touch: their thread
        # ("t"), location ("l") and the thread they spawn or join ("o")
        self.index: dict[tuple[str, int], list[int]] = {}

    # ------------------------------------------------------------------ search
    def run(self) -> Stats:
        t0 = time.process_time()
        m = self.m
        root = self._frame(self.s0, {}, {})
        if self.stateful:
            root.lids = tuple(
                self.lids.intern(t, m.local(t, x)) for t, x in enumerate(root.state.slots)
            )
        stack = self.stack
        stack.append(root)
        self._arrive(root)
        tree = self._tree
        if tree is not None:
            tree.enter(1)
        tick = 0
        while stack:
            f = stack[-1]
            p = self._pick(f)
            if tree is not None:
                if p is None:
                    tree.leave()
                else:
                    tree.child(len(f.done), len(f.done | f.backtrack))
            if p is None:
                done = stack.pop()
                if done.akey is not None:
                    self._leave(done.akey)
                if stack:
                    self._untake(stack[-1])
                continue
            tick += 1
            if not tick & 255:
                check_deadline(self.deadline)
                if self.progress is not None and self.progress.due():
                    self._report(self.progress)
            tr = f.enabled[p]
            pos = len(stack) - 1
            fx = Effects([], [], [])
            s = m.execute(f.state, tr, pos, fx)
            self.stats.extra["transitions"] += 1
            clock = self._clock(f, tr, pos) if self.por else {}
            f.taken, f.fx, f.clock = tr, fx, clock
            for key in _keys(tr):
                self.index.setdefault(key, []).append(pos)
            sleep: dict[int, Tr] = {}
            if self.por and not self.stateful:
                for q, tq in f.sleep.items():
                    if not dependent(m, tq, tr):
                        sleep[q] = tq
                for q in f.done:
                    if q != p:
                        tq = f.enabled[q]
                        if not dependent(m, tq, tr):
                            sleep[q] = tq
            f.done.add(p)
            pcl = f.pclocks
            if self.por:
                pcl = dict(pcl)
                pcl[p] = clock
                if tr.kind == "S":
                    pcl[tr.other] = clock
            child = self._frame(s, pcl, sleep)
            if self.stateful:
                child.lids = self._lids(f, child)
                if pos > 0:
                    prev = stack[pos - 1].taken
                    if prev is not None:
                        succ = self.graph.setdefault(prev, set())
                        if tr not in succ:
                            succ.add(tr)
                            self.reach.clear()
            stack.append(child)
            if len(stack) > self.stats.extra["depth"]:
                self.stats.extra["depth"] = len(stack)
            self._arrive(child)
            if tree is not None:
                tree.enter(1)
        self.stats.time = time.process_time() - t0
        return self.stats

    def _complete(self) -> int:
        return self.stats.complete

    def _report(self, progress: ProgressReporter) -> None:
        report(progress, self.stats.complete, self.executions, self._tree)

    def _untake(self, f: Frame) -> None:
        """``f``'s transition is off the current run."""
        tr = f.taken
        if tr is not None:
            for key in _keys(tr):
                self.index[key].pop()
        f.taken = None

    def _candidates(self, tr: Tr) -> list[list[int]]:
        """The positions of the taken transitions that may be dependent with ``tr``, as
        lists in increasing order."""
        idx = self.index
        keys = [("t", tr.thread), ("o", tr.thread)]
        if tr.loc >= 0:
            keys.append(("l", tr.loc))
        if tr.other >= 0:
            keys.append(("t", tr.other))
        return [got for k in keys if (got := idx.get(k))]

    def _frame(self, s: MState, pclocks: dict[int, Clock], sleep: dict[int, Tr]) -> Frame:
        nexts, on = self.m.transitions(s)
        return Frame(s, {p: nexts[p] for p in on}, pclocks, sleep, nexts=nexts)

    def _arrive(self, f: Frame) -> None:
        """A new state on the stack: a leaf, a visited state, or one to explore."""
        if self.stateful:
            key = self._abstract(f)
            if key in self.visited:
                self.stats.extra["visited_cut"] += 1
                self._summary_backtrack(f)
                if key in self.on_stack and len(self.stack) > 1:
                    # a cycle: explore every transition of the state that closes it, or
                    # a thread independent of the cycle would never run (the ignoring
                    # problem; the cycle proviso of partial-order reduction)
                    parent = self.stack[-2]
                    parent.backtrack.update(parent.enabled)
                f.backtrack.clear()
                f.done.update(f.enabled)
                return
            self.visited.add(key)
            self.stats.extra["states"] += 1
            f.akey = key
            self.on_stack[key] = self.on_stack.get(key, 0) + 1
            if len(self.stack) > 1 and _fails(f.state) and not _fails(self.stack[-2].state):
                # an assertion failed on this transition: say so now, for the run may be
                # cut at a visited state before it ends
                self.on_leaf("failed", self.stack, self.fx0)
        if self.por:
            self._update_backtrack(f)
        if not f.enabled:
            self._leaf(f)
            return
        if not self.por:
            f.backtrack = set(f.enabled)
            return
        free = [p for p in f.enabled if p not in f.sleep]
        if not free:
            self.stats.extra["sleep_blocked"] += 1
            return
        f.backtrack.add(self._first(free))

    def _leave(self, key: tuple) -> None:
        n = self.on_stack[key] - 1
        if n:
            self.on_stack[key] = n
        else:
            del self.on_stack[key]

    def _first(self, procs: list[int]) -> int:
        """The process to explore first: program threads before shadows (buffers are
        emptied as late as possible), lowest first."""
        return min(procs)

    def _pick(self, f: Frame) -> int | None:
        todo = [p for p in f.backtrack if p not in f.done and p not in f.sleep and p in f.enabled]
        return min(todo) if todo else None

    def _leaf(self, f: Frame) -> None:
        if any(x.status == RUNNING or x.status == BLOCKED for x in f.state.slots):
            kind = "blocked"
            self.stats.blocked += 1
        else:
            kind = "complete"
            self.stats.complete += 1
        self.on_leaf(kind, self.stack, self.fx0)

    # ------------------------------------------------------------------ happens-before
    def _clock(self, f: Frame, tr: Tr, pos: int) -> Clock:
        """The vector clock of ``tr``, the ``pos``-th transition, taken from ``f``: its
        process's, joined with those of the earlier dependent transitions (one already
        known through another adds nothing) and of its causes."""
        m = self.m
        c: Clock = dict(f.pclocks.get(tr.proc, ()))
        stack = self.stack
        for positions in self._candidates(tr):
            for k in range(len(positions) - 1, -1, -1):
                i = positions[k]
                if i >= pos:
                    continue
                g = stack[i]
                t = g.taken
                assert t is not None and g.clock is not None
                if c.get(t.proc, -1) >= i:
                    continue
                if dependent(m, t, tr):
                    _join(c, g.clock)
        for i in m.causes(f.state, tr):
            if i >= 0:
                ci = stack[i].clock
                assert ci is not None
                _join(c, ci)
        c[tr.proc] = pos
        return c

    def _knows(self, f: Frame, tr: Tr) -> Clock:
        """What process ``tr.proc`` knows before ``tr``: its clock and ``tr``'s causes."""
        c = f.pclocks.get(tr.proc)
        causes = [i for i in self.m.causes(f.state, tr) if i >= 0]
        if not causes:
            return c or {}
        c = dict(c or ())
        for i in causes:
            ci = self.stack[i].clock
            assert ci is not None
            _join(c, ci)
        return c

    def _update_backtrack(self, f: Frame) -> None:
        """Flanagan–Godefroid: for every process's next transition, the last dependent
        co-enabled transition not happening before it gets a backtrack point.  A process
        whose next transition is the one it had before the last transition, which is
        independent of it, would get the backtrack point it got then: it is skipped."""
        m = self.m
        stack = self.stack
        n = len(stack) - 1  # f is stack[n]
        if n == 0:
            return
        parent = stack[n - 1]
        last = parent.taken
        assert last is not None
        before = parent.nexts
        for p, tr in f.nexts.items():
            if (
                before.get(p) == tr
                and p != last.proc
                and last.other != p
                and not dependent(m, last, tr)
            ):
                continue
            knows = self._knows(f, tr)
            best = self._last_race(tr, knows)
            if best >= 0:
                self._add_backtrack(best, p, knows)

    def _last_race(self, tr: Tr, knows: Clock) -> int:
        """The last position on the stack whose transition is dependent with ``tr``, may
        be co-enabled with it and does not happen before it (``knows``: what ``tr``'s
        process knows); -1 when there is none."""
        m = self.m
        stack = self.stack
        best = -1
        for positions in self._candidates(tr):
            for k in range(len(positions) - 1, -1, -1):
                i = positions[k]
                if i <= best:
                    break
                t = stack[i].taken
                assert t is not None
                if t.proc == tr.proc or knows.get(t.proc, -1) >= i:
                    continue
                if dependent(m, t, tr) and coenabled(m, t, tr):
                    best = i
                    break
        return best

    def _add_backtrack(self, i: int, p: int, knows: Clock | None) -> None:
        """Add a backtrack point at ``stack[i]`` for process ``p``'s next transition:
        ``p`` itself, or a process whose later transition happens before it (the set E
        of Flanagan and Godefroid), preferring one not in the sleep set; all enabled
        processes when there is none, or when every one is asleep.

        Asleep, a candidate would not be explored here: its runs from this state are
        covered by an earlier branch, but the transitions that race with it later in
        those runs were attributed to that branch's state, not this one, so a run
        reversing this race together with such a race could be missed by both (the X86
        test S4 lost 13 of its 196 executions under sc).  Exploring every awake process
        here is the safe choice (about 2 % more runs on random tests)."""
        g = self.stack[i]
        cands = [p] if p in g.enabled else []
        if knows is not None:
            for j in range(i + 1, len(self.stack) - 1):
                t = self.stack[j].taken
                assert t is not None
                q = t.proc
                if q in g.enabled and knows.get(q, -1) >= j and q not in cands:
                    cands.append(q)
        if not cands:
            g.backtrack.update(g.enabled)
            return
        if any(q in g.backtrack for q in cands):
            return
        awake = [q for q in cands if q not in g.sleep]
        if awake:
            g.backtrack.add(awake[0])
        else:
            g.backtrack.update(g.enabled)

    # ------------------------------------------------------------------ stateful
    def _lids(self, parent: Frame, child: Frame) -> tuple[int, ...]:
        out = list(parent.lids)
        m = self.m
        for t, (a, b) in enumerate(zip(parent.state.slots, child.state.slots, strict=True)):
            if a is b:
                continue
            la, lb = m.local(t, a), m.local(t, b)
            d = _delta(la, lb)
            if d is not None:
                out[t] = self.lids.next(t, out[t], d, lb)
        return tuple(out)

    def _abstract(self, f: Frame) -> tuple:
        s = f.state
        mem = tuple(v for v, _ in s.mem)
        bufs = tuple(tuple((e.loc, e.value) for e in b) for b in s.bufs)
        return (mem, bufs, f.lids, tuple(pc_of(x) for x in s.slots))

    def _reachable(self, t: Tr) -> frozenset[Tr]:
        """The operations reachable from ``t`` in the visible operation dependency graph."""
        got = self.reach.get(t)
        if got is None:
            seen: set[Tr] = set()
            todo = [t]
            while todo:
                u = todo.pop()
                if u not in seen:
                    seen.add(u)
                    todo.extend(self.graph.get(u, ()))
            got = self.reach[t] = frozenset(seen)
        return got

    def _summary_backtrack(self, f: Frame) -> None:
        """A visited state: the operations reachable from its enabled ones in the visible
        operation dependency graph update the stack's backtrack sets (Yang et al., Fig. 5)."""
        seen: set[Tr] = set()
        for t in f.nexts.values():
            seen |= self._reachable(t)
        for t in seen:
            # what t's process knows now, it knows when it runs t: those are no races
            knows = f.pclocks.get(t.proc, {})
            best = self._last_race(t, knows)
            if best >= 0:
                self._add_backtrack(best, t.proc, knows)


def _keys(tr: Tr) -> list[tuple[str, int]]:
    """Where a taken transition is indexed (see ``Explorer.index``)."""
    keys = [("t", tr.thread)]
    if tr.loc >= 0:
        keys.append(("l", tr.loc))
    if tr.other >= 0:
        keys.append(("o", tr.other))
    return keys


def _fails(s: MState) -> bool:
    return any(x.status == FAILED for x in s.slots)


def _join(c: Clock, d: Clock) -> None:
    for k, v in d.items():
        if c.get(k, -1) < v:
            c[k] = v


def count_runs(m: Machine, s0: MState, budget: int, deadline: float | None = None) -> int | None:
    """The runs a naive exploration takes from ``s0`` (each enabled transition of every
    state), counted over the states without running every run; None when more than
    ``budget`` states would be needed."""
    memo: dict[tuple, int] = {}
    fx = Effects([], [], [])
    stack: list[tuple[MState, tuple, list[MState] | None]] = [(s0, m.key(s0), None)]
    while stack:
        s, k, succ = stack[-1]
        if k in memo:
            stack.pop()
            continue
        if succ is None:
            succ = []
            for _, tr in m.enabled(s):
                fx.events.clear()
                fx.rf.clear()
                fx.writes.clear()
                succ.append(m.execute(s, tr, 0, fx))
            stack[-1] = (s, k, succ)
            keys = [m.key(x) for x in succ]
            pending = [(x, kx) for x, kx in zip(succ, keys, strict=True) if kx not in memo]
            if pending:
                if len(memo) + len(stack) > budget:
                    return None
                check_deadline(deadline)
                stack.extend((x, kx, None) for x, kx in pending)
                continue
        memo[k] = sum(memo[m.key(x)] for x in succ) if succ else 1
        stack.pop()
    return memo[m.key(s0)]
