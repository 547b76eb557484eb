"""The order in which a local pool hands out a campaign's tasks: one run of neighbouring
tasks per worker.

A campaign lists its tests folder by folder, and neighbours are alike (the same threads,
the same shapes): a worker remembers what it has compiled (threads, skeletons, conditions)
and gains most when it runs neighbours.  The tasks are cut into as many contiguous runs as
there are workers; each worker (its *slot*: a replacement takes over its slot) runs its own
run in order, and a worker whose run is done takes the back half of the longest run left,
so that no worker idles while tasks remain.  Tasks given back (those waiting in a replaced
worker's pipe, a task to retry) go first, to whichever worker asks next.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence


class TaskQueue:
    """The tasks not yet sent to a worker, in one contiguous run per slot."""

    def __init__(self, tasks: Iterable[str], slots: int) -> None:
        items = list(tasks)
        n, k = len(items), max(1, slots)
        cuts = [i * n // k for i in range(k + 1)]
        self.runs = [collections.deque(items[cuts[i] : cuts[i + 1]]) for i in range(k)]
        self.given_back: collections.deque[str] = collections.deque()

    def __len__(self) -> int:
        return len(self.given_back) + sum(len(r) for r in self.runs)

    def __bool__(self) -> bool:
        return bool(self.given_back) or any(self.runs)

    def take(self, slot: int) -> str | None:
        """The next task for the worker in ``slot`` (None: no task is left)."""
        if self.given_back:
            return self.given_back.popleft()
        run = self.runs[slot]
        if not run:
            longest = max(self.runs, key=len)
            if not longest:
                return None
            half = len(longest) // 2  # the back half; all of a run of one
            stolen = [longest.pop() for _ in range(max(1, half))]
            run.extend(reversed(stolen))
        return run.popleft()

    def give_back(self, tasks: Sequence[str]) -> None:
        """``tasks`` (in this order) go before every other, to any slot."""
        self.given_back.extendleft(reversed(tasks))
