"""Thread runs remembered across programs: a campaign's tests repeat threads.

A thread's run (:func:`engine.semantics.enumerate.run_thread`) is a deterministic
function of its compiled code (:class:`~engine.semantics.step.ThreadCode`, one object for
identical threads of any program), its flags, and the value lists its reads are given,
location by location.  :func:`remembered_run` keeps, per code and flags, the runs made
with the value lists each asked for, in the order it first asked for them.  Before running
again it replays those questions in that order: as long as the answers agree, the thread
would ask the same next question, so asking stops at the first disagreement, having
asked only what the run itself would ask (asking may have effects: a location first met
there gets its initial value).  When every answer agrees the run is the remembered one.

Bounded: at most :data:`MAX_EXECS` thread executions are kept in all (least recently
used runs go first), none of a run with more than :data:`MAX_RUN_EXECS`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from herdsman.litmus.base.ir import Value

E = TypeVar("E")
Run = tuple[list[E], int]
Runner = Callable[..., Run[E]]

#: Thread executions kept in all.
MAX_EXECS = 20_000
#: A run with more executions than this is not kept (a campaign's threads have few).
MAX_RUN_EXECS = 256
#: Runs kept per code and flags (the value lists of one thread differ between tests).
MAX_RUNS_PER_CODE = 8


class _Kept(Generic[E]):
    """One remembered run: the questions it asked (location, answer) in order, and what
    it gave."""

    __slots__ = ("asked", "execs", "dropped")

    def __init__(self, asked: tuple[tuple[str, list[Value]], ...], execs: list[E], dropped: int):
        self.asked = asked
        self.execs = execs
        self.dropped = dropped


class RunCache(Generic[E]):
    """Runs of threads, per code and flags (see the module docstring)."""

    def __init__(self, max_execs: int = MAX_EXECS) -> None:
        self.max_execs = max_execs
        self._runs: OrderedDict[tuple, list[_Kept[E]]] = OrderedDict()
        self._execs = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def run(
        self,
        runner: Runner[E],
        code: object,
        values_of: Callable[[str], Sequence[Value]],
        deadline: float | None,
        *flags: bool,
    ) -> Run[E]:
        """``runner(code, values_of, deadline, *flags)``, or the remembered run it would
        give (the deadline is not the run's: it only stops it)."""
        key = (code, *flags)
        with self._lock:
            kept = self._runs.get(key)
            if kept is not None:
                self._runs.move_to_end(key)
                kept = list(kept)
        for k in kept or ():
            for loc, answer in k.asked:
                if values_of(loc) != answer:
                    break
            else:
                self.hits += 1
                return list(k.execs), k.dropped
        asked: dict[str, list[Value]] = {}

        def asking(loc: str) -> Sequence[Value]:
            got = values_of(loc)
            if loc not in asked:
                asked[loc] = list(got)
            return got

        execs, dropped = runner(code, asking, deadline, *flags)
        self.misses += 1
        if len(execs) <= MAX_RUN_EXECS:
            self._keep(key, _Kept(tuple(asked.items()), list(execs), dropped))
        return execs, dropped

    def _keep(self, key: tuple, new: _Kept[E]) -> None:
        with self._lock:
            kept = self._runs.setdefault(key, [])
            kept.insert(0, new)
            self._execs += len(new.execs)
            if len(kept) > MAX_RUNS_PER_CODE:
                self._execs -= len(kept.pop().execs)
            while self._execs > self.max_execs and self._runs:
                _, old = self._runs.popitem(last=False)
                self._execs -= sum(len(k.execs) for k in old)

    def clear(self) -> None:
        with self._lock:
            self._runs.clear()
            self._execs = 0


#: The runs of this process (every program's threads share it).
THREAD_RUNS: RunCache = RunCache()
