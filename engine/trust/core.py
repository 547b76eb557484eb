"""TruSt's exploration loop run compiled: the host side of ``engine/trust/_core.c``.

:class:`CompiledExplorer` explores as :class:`engine.trust.explore.Explorer` does, step
for step and with the same counts, but the graph, the revisits, the maximality condition
and the checks live in C.  Python answers what only it knows, once each: a thread's next
step at a node of its path tree (the program's semantics), the node after an event, a
node's completion, the static relations of a skeleton (from the checker's
:class:`cat.api.CheckPlan`), and it judges the complete graphs (the tally).  Values are
interned as small ids.

It applies when the extension is built (:data:`CORE`), the checker has a plan, the graph
has at most 64 events (128 with the wide build, ``_core128``) and no preemption bound is
asked; :func:`compiled_applies` says
so.  With a progress reporter the core keeps the search tree's estimate
(:class:`engine.progress.TreeEstimate`'s method) and the host reports every 256 steps.
Should a check need the model evaluated (an emptiness check of a form the plan does not
have, on a graph where its static part is not empty), the host raises
:class:`CoreFallback` and the run starts again with the Python explorer.  Setting
``HERDSMAN_PURE_PYTHON`` turns the core off, as it does the relation kernel.

A complete graph is built in Python (:meth:`CompiledExplorer._graph`) only when the
tally needs it: to show or print it, for the model's verdicts when its checks are not
all it has, or when an assertion failed.  Otherwise the tally hears the locations' final
values and the threads' final states (``on_final``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

from herdsman.cat.api import C11Step, CheckPlan, ConsistencyChecker, EmptyMeetStep, PlanTerm
from herdsman.engine.errors import (
    ConditionSettled,
    ErrorFound,
    NewLocation,
    TimeLimitExceeded,
)
from herdsman.engine.outcome import Stats
from herdsman.engine.progress import ProgressReporter, report
from herdsman.engine.semantics.paths import PathNode
from herdsman.engine.semantics.state import Blocked, Emit, Read, Stall, ThreadDone, ThreadFailed
from herdsman.engine.semantics.step import ASSUME, LOOP_BOUND, StepError
from herdsman.engine.trust.explore import signature, trust_stats
from herdsman.engine.trust.graph import COMPLETION_SLACK, NoRoom, TrustGraph
from herdsman.litmus.base.ir import Value

try:
    from herdsman.engine.trust import _core
except ImportError:  # no C compiler at install time: the Python explorer serves
    _core = None  # type: ignore[assignment]  # the optional extension is absent
try:
    from herdsman.engine.trust import _core128
except ImportError:  # no compiler, or none with 128-bit integers
    _core128 = None  # type: ignore[assignment]  # the optional extension is absent

__all__ = ["CORE", "CompiledExplorer", "CoreFallback", "compiled_applies"]

#: Whether the compiled core is there and wanted.
CORE = _core is not None and not os.environ.get("HERDSMAN_PURE_PYTHON")

#: The core's limit: events per graph (a set of events is one 64-bit word, or 128 bits
#: in the wide build).
MAX_EVENTS = 128 if _core128 is not None else 64

_KINDS = {"R": 0, "W": 1, "S": 2, "J": 3}
_LOOP_BOUND = Blocked(LOOP_BOUND)

#: A complete graph recorded: (graph, threads' final states, failures) -> allowed.
OnComplete = Callable[[TrustGraph, list[ThreadDone], list[tuple[int, ThreadFailed]]], bool | None]


T = TypeVar("T")

#: How the threads ended at a leaf: final states (None: blocked), failures, why blocked.
Ends = tuple[list[ThreadDone] | None, list[tuple[int, ThreadFailed]], str]

#: Leaves whose ends are remembered, and skeletons whose static relations the core keeps
#: (each emptied when full: memory stays flat).
MAX_ENDS = 4096
MAX_STATICS = 4096


#: A check as the core reads it: (meet slot, static union slot, terms), -1 for none, each
#: term (base, inters, diffs) (see ``parse_step`` in ``_core.c``).
CoreTerm = tuple[int, tuple[int, ...], tuple[int, ...]]
CoreStep = tuple[int, int, tuple[CoreTerm, ...]]


def core_steps(plan: CheckPlan) -> list[CoreStep]:
    """The plan's checks as the flat tuples the compiled core reads (the one place they
    are built)."""

    def term(t: PlanTerm) -> CoreTerm:
        return (int(t.base), t.inters, t.diffs)

    out: list[CoreStep] = []
    for step in plan.steps:
        if isinstance(step, C11Step):  # the core's own RC11 (-3) or RA (-2) checks,
            v = step.variants  # GenMC's variants as flags: 1 release sequences, 2 SC order
            out.append((-3 if step.sc else -2, int(v.rs) | 2 * int(v.sc), ()))
        elif isinstance(step, EmptyMeetStep):
            out.append((step.meet, -1, tuple(term(t) for t in step.seq or ())))
        else:
            su = -1 if step.static is None else step.static
            out.append((-1, su, tuple(term(t) for t in step.terms)))
    return out


class CoreFallback(Exception):
    """A check the compiled core cannot decide: explore with the Python explorer."""


def compiled_applies(checker: ConsistencyChecker, start: TrustGraph) -> CheckPlan | None:
    """The checker's plan when the compiled core can explore ``start`` with it."""
    if not CORE or start.lay.size > MAX_EVENTS:
        return None
    return checker.compiled_plan()


class CompiledExplorer:
    """One TruSt exploration run by the compiled core (see the module docstring);
    ``on_complete``, ``on_blocked_error`` and ``track_duplicates`` are the
    :class:`Explorer`'s; ``races``: data races are errors (under a C11 plan a racy
    leaf then sends the run to the Python explorer, which reports the race it finds
    first).  ``on_final(values, finals)``, when given, records a complete
    graph from its locations' final values and its threads' final states instead of
    ``on_complete`` (for graphs where no assertion failed)."""

    def __init__(
        self,
        start: TrustGraph,
        checker: ConsistencyChecker,
        plan: CheckPlan,
        on_complete: OnComplete,
        on_blocked_error: Callable[[TrustGraph, list[tuple[int, ThreadFailed]]], None]
        | None = None,
        deadline: float | None = None,
        on_final: Callable[[list[Value], list[ThreadDone]], bool | None] | None = None,
        track_duplicates: bool = False,
        progress: ProgressReporter | None = None,
        executions: Callable[[], int] | None = None,
        races: bool = False,
    ) -> None:
        assert _core is not None
        self.start = start
        self.checker = checker
        self.on_complete = on_complete
        self.on_blocked_error = on_blocked_error
        self.on_final = on_final
        self.deadline = deadline
        self.progress = progress
        self.executions = executions
        self.races = races
        self.stats = trust_stats()
        self._seen: set | None = set() if track_duplicates else None
        self._ends: dict[tuple[tuple[int, ...], int], Ends] = {}  # see _ends_of
        self.plan = plan
        lay = start.lay
        self.lay = lay
        self.nodes: list[PathNode] = list(start.roots)  # thread t's root: node id t
        self._ids: dict[PathNode, int] = {n: i for i, n in enumerate(self.nodes)}
        self.values: list[Value] = []
        self._vids: dict[Value, int] = {}
        initial = []
        for v in start.val[: lay.L]:
            assert v is not None  # every location has its initial value
            initial.append(self._vid(v))
        spawned = [int(t in start.spawned) for t in range(lay.T)]
        build = _core if lay.size <= 64 else _core128
        assert build is not None
        self.words = 1 if build is _core else 2  # 64-bit words per set of events
        self.core = build.Core(
            self,
            lay.T,
            lay.L,
            lay.size,
            list(lay.base),
            list(lay.room),
            spawned,
            initial,
            core_steps(plan),
            plan.nslots,
            progress is not None,  # estimate the search's size as it goes
            MAX_STATICS,
            start.writes_first,
        )

    def run(self) -> Stats:
        t0 = time.process_time()
        try:
            self.core.run()
        except ErrorFound:
            self.stats.extra["stopped_at_error"] = 1
        except ConditionSettled:
            self.stats.extra["settled"] = 1
        finally:
            self._absorb()
        self.stats.time = time.process_time() - t0
        return self.stats

    def _absorb(self) -> None:
        got = self.core.stats()
        st = self.stats
        st.extra["pruned"] += got["pruned"]
        st.extra["revisits"] += got["revisits"]
        st.extra["revisits_inconsistent"] += got["revisits_inconsistent"]
        st.extra["revisits_doomed"] += got["revisits_doomed"]
        st.extra["refused"] += got["refused"]
        moot = got["moot"] + got["dead_end"]  # GenMC drops both as moot
        if moot:
            st.extra["moot"] = st.extra.get("moot", 0) + moot
        self.checker.checks += got["checks"]

    # ------------------------------------------------------------------ ids
    def _vid(self, v: Value) -> int:
        return _intern(v, self._vids, self.values)

    def _id(self, node: PathNode) -> int:
        return _intern(node, self._ids, self.nodes)

    # ------------------------------------------------------------------ the core asks
    def info(self, nid: int) -> tuple[int, int, int, int, int, int]:
        """What node ``nid`` does next: (0 read, 1 other event, 2 done, 3 failed,
        4 blocked or stopped unfinished, 5 blocked on an assumption; event kind: 0 R, 1 W,
        2 spawn, 3 join, 4 other; location index, -1 when the layout lacks it; a write's
        value id; the event's poi; a spawned or joined thread, or for a write whether it
        is a read-modify-write's)."""
        s = self.nodes[nid].step
        ts = type(s)
        if isinstance(s, (Read, Emit)):
            ev = s.event
            kind = _KINDS.get(ev.kind, 4)
            li = vid = tgt = -1
            if kind <= 1:
                if ev.loc is None:  # an address not known: the Python explorer's business
                    raise CoreFallback()
                li = self.lay.loc_index.get(ev.loc, -1)
                if kind == 1 and li >= 0:
                    vid = self._vid(ev.known_value)
                if kind == 1:  # the write of a read-modify-write, after its read
                    tgt = int(self.nodes[nid].state.pending is not None)
            elif kind <= 3:
                tgt = ev.other
            return (0 if ts is Read else 1, kind, li, vid, ev.poi, tgt)
        if isinstance(s, ThreadDone):  # stopped by GenMC's loop bound: not finished for a join
            return (4 if s.cut else 2, 4, -1, -1, -1, -1)
        if ts is ThreadFailed:
            return (3, 4, -1, -1, -1, -1)
        if ts is Stall:
            raise AssertionError("concrete values never stall")
        assert isinstance(s, Blocked)
        return (5 if s.why == ASSUME else 4, 4, -1, -1, -1, -1)

    def new_location(self, nid: int) -> None:
        s = self.nodes[nid].step
        assert isinstance(s, (Read, Emit)) and s.event.loc is not None
        raise NewLocation(s.event.loc)

    def child(self, nid: int, vid: int) -> int:
        return self._id(self.nodes[nid].child(self.values[vid]))

    def after(self, nid: int) -> int:
        return self._id(self.nodes[nid].after())

    def completion(self, nid: int) -> int:
        node = self.nodes[nid]
        t = node.tree.tid
        sid = node.completion(COMPLETION_SLACK * self.lay.room[t])
        if sid < 0:  # a thread running on for ever: statics from prefixes, in Python
            raise CoreFallback()
        k = self.lay.shapes.length[sid]
        if k > self.lay.room[t]:  # a path longer than the thread's room: more room
            raise NoRoom(t, k)
        return sid

    def statics(self, key: tuple[int, ...]) -> bytes:
        return self.plan.statics(key, self.words)

    def tick(self) -> None:
        if self.deadline is not None and time.process_time() > self.deadline:
            raise TimeLimitExceeded()
        if self.progress is not None and self.progress.due():
            report(self.progress, self.stats.complete, self.executions, self)

    def total(self) -> float | None:
        """The search's estimated size (:class:`engine.progress.TreeEstimate`'s, kept by
        the core)."""
        return self.core.estimate()

    def fallback(self) -> None:
        raise CoreFallback()

    def no_room(self, t: int, k: int) -> None:
        raise NoRoom(t, k)

    def spawned_twice(self, t: int, c: int) -> None:
        raise StepError(f"P{t}: thread {c} is spawned twice")

    # ------------------------------------------------------------------ leaves
    def leaf(
        self, curs: tuple[int, ...], finals_vids: tuple[int, ...], started: int, racy: int
    ) -> bool:
        """A graph where no thread has a next event (as :meth:`Explorer._leaf`); whether
        it counted as a complete execution.  ``racy``: the core found a data race in it
        (a C11 plan): the checker finds it again in the graph built, for its verdict."""
        ends = self._ends.get((curs, started))
        if ends is None:
            if len(self._ends) >= MAX_ENDS:
                self._ends.clear()
            ends = self._ends[(curs, started)] = self._ends_of(curs, started)
        finals, fails, why = ends
        stats = self.stats
        if finals is None:
            stats.blocked += 1
            stats.extra[why] = stats.extra.get(why, 0) + 1
            if fails and self.on_blocked_error is not None:
                self.on_blocked_error(self._graph(), fails)
            return False
        if racy and self.races:  # an error: reported as the Python explorer finds it first
            self.fallback()
        g = None
        if self._seen is not None or racy:
            g = self._graph()
            if racy:
                self.checker.restart(g)
        if self._seen is not None:
            assert g is not None
            sig = signature(g)
            if sig in self._seen:
                stats.extra["duplicates"] += 1
            self._seen.add(sig)
        try:
            if self.on_final is not None and not fails and not racy:
                ok = self.on_final([self.values[v] for v in finals_vids], finals)
            else:
                ok = self.on_complete(g or self._graph(), finals, fails)
        except (ErrorFound, ConditionSettled):  # stopping here: an execution all the same
            stats.complete += 1
            raise
        if ok:
            stats.complete += 1
        elif ok is not None:
            stats.extra["rejected"] += 1
        return bool(ok)

    def _ends_of(self, curs: tuple[int, ...], started: int) -> Ends:
        """How the threads ended at the nodes ``curs`` (``started``: a mask of the threads
        started): their final states (None: one is blocked), those that failed an
        assertion (only when they are reported), and why a blocked graph is blocked."""
        nodes = self.nodes
        steps = [nodes[i].step for i in curs]
        finals: list[ThreadDone] | None = None
        done: list[ThreadDone] = []
        for t, s in enumerate(steps):
            if isinstance(s, ThreadDone):
                done.append(s)
            elif isinstance(s, ThreadFailed):
                done.append(s.done)
            elif not (started >> t) & 1:
                done.append(nodes[curs[t]].tree.code.initial())
            else:
                break
        else:
            finals = done
        fails: list[tuple[int, ThreadFailed]] = []
        if self.on_blocked_error is not None:
            fails = [
                (t, s)
                for t, s in enumerate(steps)
                if isinstance(s, ThreadFailed) and (started >> t) & 1
            ]
        why = ""
        if finals is None:
            bound = any(s == _LOOP_BOUND or type(s) is ThreadDone and s.cut for s in steps)
            why = "blocked_" + ("loop_bound" if bound else "thread")
        return finals, fails, why

    def _graph(self) -> TrustGraph:
        """The graph at the present leaf, built as the Python explorer holds it."""
        n, rf, val, stamp, co, rl, node, spawned_at, addedmax, revisitable, clock = (
            self.core.snapshot()
        )
        start = self.start
        lay = self.lay
        g = TrustGraph(lay, start.roots, start.spawned, start.writes_first)
        nodes, values = self.nodes, self.values
        g.val[: lay.L] = start.val[: lay.L]
        for t in range(lay.T):
            b = lay.base[t]
            g.n[t] = n[t]
            prev = start.roots[t]
            for e in range(b, b + n[t]):
                nd = nodes[node[e]]
                ps = prev.step
                assert isinstance(ps, (Read, Emit))
                g.ev[e] = ps.event
                g.shape[e] = prev.next_shape()
                g.stamp[e] = stamp[e]
                g.rf[e] = rf[e]
                g.val[e] = values[val[e]] if val[e] >= 0 else None
                g.node[e] = nd
                prev = nd
            g.cur[t] = prev
        for e in range(lay.size):
            g.addedmax[e] = bool((addedmax >> e) & 1)
            g.revisitable[e] = bool((revisitable >> e) & 1)
        g.co = [list(c) for c in co]
        g.rl = [list(r) for r in rl]
        g.spawned_at = list(spawned_at)
        g.clock = clock
        return g


def _intern(x: T, ids: dict[T, int], table: list[T]) -> int:
    """The id of ``x`` in ``table`` (its index; ``ids`` maps back), added if new."""
    got = ids.get(x)
    if got is None:
        got = ids[x] = len(table)
        table.append(x)
    return got
