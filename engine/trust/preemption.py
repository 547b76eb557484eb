"""Preemption bounding for TruSt under SC (Buster: Marmanis, Kokologiannakis, Vafeiadis,
TACAS 2023, named in the issue "Optimal Dynamic Partial Order Reduction with Preemption
Bounding"; facts from GenMC's ContextBoundDecider).

A *preemption* is a switch from a thread that could still run to another thread.  The
preemptions of an execution graph are the fewest over the interleavings that produce it:
the orders of its events that extend ``po ∪ rf ∪ co ∪ fr`` (its SC linearisations).
They are counted backwards: the last event of a linearisation must be the last event of
its thread with no ``rf``, ``co`` or ``fr`` successor left; removing it, the previous one
belongs to some thread ``t'``, and handing over from ``t'`` to the thread that ran next
costs one preemption when ``t'`` still had events to run.  Continuing with the same
thread is free, so a thread is unwound greedily while it can be.

For an incomplete graph the count is *optimistic*: a thread whose last event in the graph
is reached is taken as finished (leaving it costs nothing).  This is a lower bound of the
count of every extension of the graph, but a backward revisit may delete events and
lower it; hence TruSt cuts a graph only when its count exceeds ``k + slack``, the slack
being ``min(U, N - 1)`` (``N``: threads with events, ``U``: threads with an event a later
revisit could still delete — revisitable, and for an access added maximally; see
:data:`SLACK_RULES` for how this is GenMC's rule).  Complete graphs over ``k`` that the
slack lets through are counted apart.  Bounding needs an SC model: a graph the model
accepts that no interleaving produces raises :class:`NotSequential` (cutting it could
lose graphs a revisit would have made from it).
"""

from __future__ import annotations

from herdsman.engine.trust.graph import TrustGraph

#: Slack rules: (U, N, T) -> slack, with U threads having a deletable event, N threads
#: with events, T threads in all.  ``spawner`` (the default) is GenMC's
#: ``min(U - 1, N - 2)`` for programs whose threads a main thread spawns: that thread
#: counts in both (it has events, deletable until a revisit makes them stable); litmus
#: threads have no such thread, so it is added back.  GenMC's formula taken literally,
#: and the issue's wording ``min(N - 2, threads with no deletable event)`` (N: all threads
#: or those with events), miss executions (``bench/bench_trust_preemption.py --slack``).
SLACK_RULES = {
    "spawner": lambda u, n, t: min(u, max(0, n - 1)),
    "genmc": lambda u, n, t: min(max(0, u - 1), max(0, n - 2)),
    "issue_all": lambda u, n, t: min(max(0, t - 2), t - u),
    "issue_nonempty": lambda u, n, t: min(max(0, n - 2), n - u),
}


class PreemptionBound:
    """Buster's bound ``k`` for a TruSt exploration (see the module docstring)."""

    def __init__(self, k: int, slack_rule: str = "spawner") -> None:
        if slack_rule not in SLACK_RULES:
            raise ValueError(f"unknown slack rule {slack_rule!r}")
        self.k = k
        self.rule = SLACK_RULES[slack_rule]

    def slack(self, g: TrustGraph) -> int:
        """Slack of ``g`` (see :data:`SLACK_RULES`)."""
        nonempty = unstable = 0
        for t in range(g.T):
            if not g.n[t]:
                continue
            nonempty += 1
            b = g.base[t]
            for j in range(b, b + g.n[t]):
                if g.revisitable[j] and (g.event_at(j).kind not in ("R", "W") or g.addedmax[j]):
                    unstable += 1
                    break
        return self.rule(unstable, nonempty, g.T)

    def cut(self, g: TrustGraph) -> bool:
        """Whether the exploration below ``g`` may stop (its optimistic count is over
        the bound plus the slack)."""
        return _counted(g) > self.k + self.slack(g)

    def count(self, g: TrustGraph) -> int:
        """The preemptions of a complete graph."""
        return _counted(g)


class NotSequential(Exception):
    """The model accepted a graph no interleaving produces: preemptions are undefined
    (bounding needs an SC model, else graphs would be cut that revisits could repair)."""


def _counted(g: TrustGraph) -> int:
    c = preemptions(g)
    if c >= INFINITE:
        raise NotSequential()
    return c


#: What :func:`preemptions` returns for a graph with no SC interleaving.
INFINITE = 1 << 30


def preemptions(g: TrustGraph) -> int:
    """The (optimistic, for an incomplete graph) preemptions of ``g``; :data:`INFINITE`
    when no interleaving produces it (it is not SC)."""
    T = g.T
    total = list(g.n)
    base, rf, co, L = g.base, g.rf, g.co, g.L
    # per write: its readers and its immediate co-successor (ids), per location index
    readers: dict[int, list[int]] = {}
    for t in range(T):
        b = base[t]
        for j in range(b, b + total[t]):
            if g.event_at(j).kind == "R":
                readers.setdefault(rf[j], []).append(j)
    succ: dict[int, int] = {}
    for li in range(L):
        order = co[li]
        prev = li
        for w in order:
            succ[prev] = w
            prev = w
    tid, idx = g.tid, g.idx

    def inside(e: int, v: tuple[int, ...]) -> bool:
        return e < L or idx[e] < v[tid[e]]

    def removable(v: tuple[int, ...], t: int) -> bool:
        """Whether the last event of thread t in v may be the last of a linearisation."""
        e = base[t] + v[t] - 1
        kind = g.event_at(e).kind
        if kind == "W":
            for r in readers.get(e, ()):
                if inside(r, v):
                    return False
            s = succ.get(e)
            return s is None or not inside(s, v)
        if kind == "R":
            s = succ.get(rf[e])
            return s is None or not inside(s, v)
        return True

    memo: dict[tuple[tuple[int, ...], int], int] = {}
    inf = INFINITE

    def calc(v: tuple[int, ...], t: int) -> int:
        lv = list(v)
        while lv[t] and removable(tuple(lv), t):  # the same thread runs on: free
            lv[t] -= 1
        v = tuple(lv)
        key = (v, t)
        got = memo.get(key)
        if got is not None:
            return got
        if not any(v):
            memo[key] = 0
            return 0
        best = inf
        for tp in range(T):
            if not v[tp] or not removable(v, tp):
                continue
            lv = list(v)
            lv[tp] -= 1
            cost = 1 if tp != t and v[tp] < total[tp] else 0
            c = calc(tuple(lv), tp) + cost
            if c < best:
                best = c
        memo[key] = best
        return best

    v0 = tuple(total)
    if not any(v0):
        return 0
    best = inf
    for t in range(T):
        if v0[t] and removable(v0, t):
            lv = list(v0)
            lv[t] -= 1
            best = min(best, calc(tuple(lv), t))
    return best
