"""A pool of worker processes with per-task time limits enforced from outside.

Each worker builds its task function once (``factory(arg)``: e.g. loads the model once) and
then runs tasks sent over its pipe; whatever the task function returns (picklable) goes to
the parent.  Each worker is sent the task after its running one ahead of time, so that it
does not wait for the parent between tasks (a task's time limit counts from when the one
before it ended); when a worker is replaced, the task waiting in its pipe goes back to the
queue.  Each worker runs neighbouring tasks (:mod:`task_queue`: one run of them per worker),
so that what it remembers from a test serves the next.  The parent waits on all pipes and
process sentinels; a worker that runs past a task's deadline is killed and replaced, a
worker that dies is replaced, and a task function that raises is reported: the task is then
a :class:`TaskLost`.  A task whose
worker died is run again on a fresh worker up to ``retries`` times (a stray signal or the
OOM killer may have hit it); a task past its deadline is not (it would run out again).
Workers ignore SIGINT (the parent decides) and die with the parent (Linux
``PR_SET_PDEATHSIG``), so a killed campaign leaves no orphans behind.

:class:`TaskPool` is what a campaign needs of a pool: :class:`WorkerPool` is the local one,
``dask_pool.DaskPool`` runs the tasks on a dask cluster.
"""

from __future__ import annotations

import collections
import gc
import multiprocessing as mp
import os
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, Literal, Protocol, TypeVar

from herdsman.herd_compat.campaigns.task_queue import TaskQueue
from herdsman.herd_compat.pipeline.limits import threads_a_fork_would_cut
from herdsman.litmus.base.errors import InputError

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
Factory = Callable[[Any], Callable[[str], R]]


@dataclass(frozen=True)
class TaskLost:
    """A task without a result from its task function: it ran past its time limit (its
    worker was killed), its worker process died, or the task function raised (bad input,
    or a bug).  ``message`` is the line to report, ``TASK:LINE:COL: error: ...``."""

    task: str
    cause: Literal["timeout", "died", "input", "raised"]
    message: str
    elapsed: float | None = None


def failure_line(e: BaseException) -> str:
    """How a worker reports an exception: bad input as such, anything else by its type."""
    if isinstance(e, InputError):
        return e.render()
    return f"{type(e).__name__}: {' '.join(str(e).split())}"


def run_task(fn: Callable[[str], R], task: str) -> R | TaskLost:
    """Run one task in a worker: what the task function returns, or the exception it
    raised as a :class:`TaskLost` (bad input as such, anything else as a bug)."""
    try:
        return fn(task)
    except BaseException as e:  # reported to the parent as this task's failure
        if isinstance(e, InputError):
            return TaskLost(task, "input", e.render())
        line = f"{task}:0:0: error: internal error ({failure_line(e)})"
        return TaskLost(task, "raised", line)


class WorkerStartError(Exception):
    """A worker could not build its task function (e.g. the model does not load)."""


class ClusterError(Exception):
    """The workers' cluster cannot be reached or started, or was lost (a bad address, no
    scheduler answering, the connection dropped): one line saying so."""


class TaskPool(Protocol[R_co]):
    """Where a campaign's tasks run: ``run`` calls ``on_result(task, result)`` once per
    task, in the caller's thread, as results arrive (what the task function returned, or a
    :class:`TaskLost`); a task whose worker died is retried before it is reported lost.
    ``jobs`` is how many tasks run at once (for the report); ``close`` stops the workers
    (busy ones too with ``kill_busy``, after an interruption) and may be called again."""

    jobs: int

    def run(
        self, tasks: Iterable[str], on_result: Callable[[str, R_co | TaskLost], None]
    ) -> None: ...

    def close(self, kill_busy: bool = False) -> None: ...


def _die_with_parent() -> None:
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_main(conn: Connection, factory: Factory[Any], arg: Any, parent: int) -> None:
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if os.getppid() != parent:  # the parent died before prctl took effect
        return
    try:
        fn = factory(arg)
    except BaseException as e:  # reported to the parent, which stops the campaign
        conn.send(("fatal", failure_line(e)))
        return
    conn.send(("ready", None))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        res = run_task(fn, task)
        try:
            conn.send(("result", task, res))
        except (BrokenPipeError, OSError):
            return


def start_method_now(explicit: str | None = None) -> str:
    """How to start a worker now: ``explicit``, else ``HERDSMAN_MP_START``, else ``fork``
    while this process has no other thread than the CPU-time watchdog (the worker then has
    the modules and code already loaded here, about 0.3 s of CPU time less per worker),
    else ``spawn`` (a fork would copy the locks other threads hold)."""
    chosen = explicit or os.environ.get("HERDSMAN_MP_START")
    if chosen:
        return chosen
    if threads_a_fork_would_cut() == 0 and "fork" in mp.get_all_start_methods():
        return "fork"
    return "spawn"


def _start(proc: Any, method: str) -> None:
    """Start ``proc``; a forked one with what this process holds now out of the garbage
    collector's way (``gc.freeze``): the worker's first collection does not visit (and so
    copy) the pages it shares with this process."""
    if method != "fork":
        proc.start()
        return
    gc.freeze()
    try:
        proc.start()
    finally:
        gc.unfreeze()


class _Worker:
    """A worker process and the tasks sent to it: the first is running (since
    ``started``), the others wait in its pipe, so that it never waits for the parent
    between tasks."""

    def __init__(self, method: str, factory: Factory[Any], arg: Any, slot: int) -> None:
        self.slot = slot  # which run of the tasks it takes (task_queue.py)
        ctx: Any = mp.get_context(method)  # typeshed's BaseContext lacks Process
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(
            target=_worker_main, args=(child, factory, arg, os.getpid()), daemon=True
        )
        _start(self.proc, method)
        child.close()
        self.ready = False
        self.sent: collections.deque[str] = collections.deque()
        self.started = 0.0
        self.spawned = time.monotonic()

    @property
    def task(self) -> str | None:
        """The task running now (None: idle)."""
        return self.sent[0] if self.sent else None

    def send(self, task: str | None) -> None:
        self.conn.send(task)
        if task is not None:
            if not self.sent:
                self.started = time.monotonic()
            self.sent.append(task)

    def finished(self) -> str:
        """The running task has given its result: the next one sent runs from now."""
        task = self.sent.popleft()
        self.started = time.monotonic()
        return task

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


class WorkerPool(Generic[R]):
    """Run tasks on ``jobs`` worker processes, each task limited to ``timeout`` seconds
    (wall clock, measured by the parent from the moment the task is sent); a task whose
    worker died is run again up to ``retries`` times before it is reported lost."""

    def __init__(
        self,
        factory: Factory[R],
        arg: Any,
        jobs: int = 1,
        timeout: float | None = None,
        start_method: str | None = None,
        start_timeout: float = 300.0,
        retries: int = 0,
    ) -> None:
        self.factory = factory
        self.arg = arg
        self.jobs = max(1, jobs)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.start_method = start_method
        self.workers: list[_Worker] = []
        self.restarts = 0
        self.start_failures = 0
        self.retries = retries
        self.depth = 2  # tasks sent to a worker at once: the running one and the next
        self.deaths: collections.Counter[str] = collections.Counter()  # per task
        self.pending = TaskQueue((), 1)

    def _spawn(self, slot: int) -> _Worker:
        w = _Worker(start_method_now(self.start_method), self.factory, self.arg, slot)
        self.workers.append(w)
        return w

    def _replace(self, w: _Worker) -> None:
        w.kill()
        self.workers.remove(w)
        self.restarts += 1
        self._spawn(w.slot)

    def run(self, tasks: Iterable[str], on_result: Callable[[str, R | TaskLost], None]) -> None:
        """Run every task; ``on_result(task, result)`` is called in the parent as results
        arrive (what the task function returned, or a :class:`TaskLost`)."""
        todo = list(tasks)
        slots = min(self.jobs, len(todo))
        self.pending = pending = TaskQueue(todo, slots)
        if not pending:
            return
        for slot in range(slots):
            self._spawn(slot)
        try:
            while pending or any(w.task is not None for w in self.workers):
                for w in self.workers:
                    while w.ready and len(w.sent) < self.depth and pending:
                        task = pending.take(w.slot)
                        assert task is not None  # the queue is not empty
                        try:
                            w.send(task)
                        except (BrokenPipeError, OSError):  # it died: its sentinel tells
                            pending.give_back([task])
                            break
                now = time.monotonic()
                deadlines = [
                    w.started + self.timeout - now
                    for w in self.workers
                    if w.task is not None and self.timeout is not None
                ]
                deadlines += [
                    w.spawned + self.start_timeout - now for w in self.workers if not w.ready
                ]
                wait_for = max(0.0, min(deadlines)) if deadlines else None
                handles: list[Any] = [w.conn for w in self.workers]
                handles += [w.proc.sentinel for w in self.workers]
                ready = wait(handles, wait_for)
                for w in list(self.workers):
                    if w.conn in ready:
                        self._receive(w, on_result)
                    elif w.proc.sentinel in ready and w in self.workers:
                        self._died(w, on_result)
                self._enforce_deadlines(on_result)
                if not pending and all(w.task is None for w in self.workers):
                    break
        except BaseException:  # Ctrl-C, a fatal worker: stop the busy workers at once
            self.close(kill_busy=True)
            raise
        self.close()

    def _receive(self, w: _Worker, on_result: Callable[[str, R | TaskLost], None]) -> None:
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):
            self._died(w, on_result)
            return
        kind = msg[0]
        if kind == "ready":
            w.ready = True
        elif kind == "fatal":
            raise WorkerStartError(msg[1])
        elif kind == "result":
            task, res = msg[1], msg[2]
            w.finished()
            on_result(task, res)

    def _died(self, w: _Worker, on_result: Callable[[str, R | TaskLost], None]) -> None:
        w.proc.join(1)
        code = w.proc.exitcode
        task = w.task
        self._requeue(w)
        if not w.ready:
            self.start_failures += 1
            if self.start_failures >= 3:
                raise WorkerStartError(f"worker processes die at start (exit code {code})")
        self._replace(w)
        if task is not None:
            self.deaths[task] += 1
            deaths = self.deaths[task]
            if deaths <= self.retries:
                self.pending.give_back([task])  # once more, on the fresh worker
                return
            times = f", {deaths} times" if deaths > 1 else ""
            line = f"{task}:0:0: error: worker process died (exit code {code}{times})"
            on_result(task, TaskLost(task, "died", line))

    def _requeue(self, w: _Worker) -> None:
        """The tasks waiting in ``w``'s pipe (not its running one) go back to the front
        of the queue: ``w`` is being replaced."""
        waiting = list(w.sent)[1:]
        w.sent.clear()
        self.pending.give_back(waiting)

    def _enforce_deadlines(self, on_result: Callable[[str, R | TaskLost], None]) -> None:
        now = time.monotonic()
        for w in self.workers:
            if not w.ready and now - w.spawned >= self.start_timeout:
                raise WorkerStartError(f"a worker did not start within {self.start_timeout:g} s")
        if self.timeout is None:
            return
        for w in list(self.workers):
            if w.task is not None and now - w.started >= self.timeout:
                task, elapsed = w.task, now - w.started
                self._requeue(w)
                self._replace(w)  # kill it: the task may never return
                line = f"{task}:0:0: error: time limit of {self.timeout:g} s exceeded"
                on_result(task, TaskLost(task, "timeout", line, elapsed))

    def close(self, kill_busy: bool = False) -> None:
        """Stop the workers: idle ones are told to exit, busy ones (only after an
        interruption) are killed."""
        for w in self.workers:
            try:
                if w.task is not None and kill_busy:
                    w.proc.kill()
                elif w.proc.is_alive():
                    w.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        deadline = time.monotonic() + 2
        for w in self.workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join(2)
            w.conn.close()
        self.workers = []
