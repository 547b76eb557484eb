"""How far a long exploration is: what explorers tell a :class:`ProgressReporter`.

Explorers poll their reporter in the slow path they already take every few hundred steps
(the time-limit check), so a run without one pays nothing.  ``due()`` is the reporter's
cheap "would you show something now?" (a clock check); only then do explorers count the
executions so far and estimate the total.

The estimate comes from the depth-first search itself (:class:`TreeEstimate`, after
Kilby, Slaney, Thiébaux and Walsh's estimators of search-tree size, AAAI 2006): along the
path from the root to the node being explored, a node's size is the size of its finished
children, plus the estimate of the child being explored, plus an estimate of each child
not begun yet: the mean size of the finished children with that index of the nodes at
that depth with that many children (a search learns that its first options have the big
subtrees, or that its last ones are mostly inconsistent), else the mean of the node's
children so far.  Finished subtrees count exactly, so the estimate firms up as the search
goes (GenMC's estimation samples random paths instead; a DFS in progress already has one,
and the sizes of everything it finished).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["ProgressReporter", "SizeEstimate", "TreeEstimate"]


class ProgressReporter(Protocol):
    """Hears how far one run is (``herd_compat`` draws it on a terminal)."""

    def start(self, program: str) -> None:
        """A run of ``program`` begins."""

    def due(self) -> bool:
        """Whether an update would be shown now (cheap: called every few hundred steps)."""

    def update(self, executions: int, total: float | None) -> None:
        """``executions`` counted so far; ``total`` the estimated number at the end (None:
        no estimate yet)."""

    def finish(self) -> None:
        """The run is over (a terminal line is erased)."""


class TreeEstimate:
    """The size of a search tree, estimated while a depth-first search explores it.

    ``count()`` is the search's running count of what the tree's size measures (its
    complete executions, or candidates).  The search calls :meth:`enter` at a node with
    ``n`` children (an upper bound: a child never begun counts as an empty subtree),
    :meth:`child` as each child's subtree begins, and :meth:`leave` when the node is done."""

    def __init__(self, count: Callable[[], int]) -> None:
        self.count = count
        # per node of the current path: [index of the child being explored, children,
        # count in its finished children, count when that child began, count on entry]
        self.levels: list[list[int]] = []
        # (depth, children, index) -> [total size, how many] of the finished such children
        self.profile: dict[tuple[int, int, int], list[int]] = {}

    def enter(self, n: int) -> None:
        c = self.count()
        self.levels.append([-1, n, 0, c, c])

    def child(self, i: int = -1, n: int = -1) -> None:
        """The next child's subtree begins (``i``: its index, when children are skipped;
        ``n``: the node's children, when they are known only as the search goes)."""
        level = self.levels[-1]
        c = self.count()
        if n >= 0:
            level[1] = n
        nxt = level[0] + 1 if i < 0 else i
        self._finished(level, c - level[3], nxt)
        level[2] += c - level[3]
        level[3] = c
        level[0] = nxt

    def leave(self) -> None:
        level = self.levels[-1]
        self._finished(level, self.count() - level[3], max(level[1], level[0] + 1))
        self.levels.pop()

    def _finished(self, level: list[int], size: int, nxt: int) -> None:
        """The child being explored at ``level`` is done with ``size``; those before
        ``nxt`` (the next one to begin) after it were never begun: empty."""
        i, n = level[0], level[1]
        depth = len(self.levels)
        profile = self.profile
        for j in range(max(i, 0), nxt):
            entry = profile.get((depth, n, j))
            if entry is None:
                entry = profile[(depth, n, j)] = [0, 0]
            if j == i:
                entry[0] += size
            entry[1] += 1

    def total(self) -> float | None:
        """The estimated size of the whole tree (None: no node entered yet)."""
        levels = self.levels
        if not levels:
            return None
        profile = self.profile
        size = 0.0
        inner = self.count()  # deepest first: the count reached inside the current child
        for depth in range(len(levels), 0, -1):
            i, n, done, began, entered = levels[depth - 1]
            # the child being explored: what it counted before the node below was entered,
            # and that node's estimate
            size += inner - began + done
            mean = size / max(i + 1, 1)
            for j in range(i + 1, n):
                entry = profile.get((depth, n, j))
                size += entry[0] / entry[1] if entry is not None else mean
            inner = entered
        return levels[0][4] + size


class SizeEstimate(Protocol):
    """An estimate of a search's size (:class:`TreeEstimate`, or one a compiled search
    keeps)."""

    def total(self) -> float | None: ...


def report(
    progress: ProgressReporter,
    complete: int,
    executions: Callable[[], int] | None,
    tree: SizeEstimate | None,
) -> None:
    """Tell ``progress`` the executions so far and their estimated total: the tree's size
    counts complete runs (or graphs), of which the outcome may count fewer (distinct
    executions, speedcheck, a filter), so the estimate is scaled by that share."""
    done = executions() if executions is not None else complete
    total = tree.total() if tree is not None else None
    if total is not None and complete:
        total *= done / complete
    progress.update(done, total)
