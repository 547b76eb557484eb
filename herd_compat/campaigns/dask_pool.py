"""Campaigns on dask.distributed: a :class:`~workers.TaskPool` whose workers are a dask
cluster's.

The cluster is an existing one (``Client(address)``: a ``dask scheduler`` and ``dask worker
ADDRESS --nthreads 1`` processes, on machines that have herdsman installed and see the tests
at the same paths) or a :class:`~distributed.LocalCluster` of N single-threaded worker
processes that the pool starts and stops.

**Task functions.** The campaign's worker factory and its argument (the run's configuration)
go to every worker once, in a worker plugin (:class:`_Campaign`, under a token naming the
campaign; workers that join later get it too).  The first tests a worker runs build the task
function (``factory(arg)``: the model is loaded once per worker) into a per-process cache
keyed by the token, which the plugin's teardown empties.  A factory that fails stops the
campaign (:class:`~workers.WorkerStartError`), as with the local pool.

**Batches.** A dask task costs about 2 ms of the scheduler's and the worker's time, as much
as a typical POWER test; so each dask task runs a small batch of tests, as many as take about
:data:`BATCH_SECONDS` (measured as the campaign goes; one at a time near the end, so that the
workers finish together).  Results come back to the client batch by batch as they arrive
(``as_completed``), and ``on_result`` records them there: the journal, and ``--resume``,
work as with the local pool (an interrupted campaign loses at most the batches in flight).
At most :data:`WINDOW_PER_WORKER` batches per worker are outstanding, so that a campaign of
thousands of tests is not submitted at once.  A worker process runs one test at a time, even
with several threads (a test's time, and its time limit, are the process's CPU time).

**Dead workers.** A test whose worker died (dask's :class:`KilledWorker`, or a comm error) is
run again, alone, up to ``retries`` times, then reported as ``TaskLost(cause="died")``; never
twice (a result is taken once, from the future of the test's current attempt).  Each test of
a batch whose worker died is charged one death (which of them killed it is not known) and
run again alone; the tests charged with a death run one at a time, so that one charged with
a neighbour's death is not charged again.  Our own count is the one that matters: the pool's
own cluster is started with ``distributed.scheduler.allowed-failures`` at 0 (every death
reaches the pool at once) and ``worker-saturation`` at 1.0 (a worker holds only the batch it
runs).  An existing scheduler keeps its settings: a test that died alone counts for all the
deaths its ``KilledWorker`` saw (``allowed-failures`` + 1).  Workers that die are restarted
by dask (their nanny), not by the pool.

**Timeouts.** A dask task cannot be killed.  The pipeline stops a test itself after
``RunConfig.time_limit`` seconds (the engines' own deadline checks: the CPU-time alarm needs
the main thread, and dask runs tasks in a worker thread).  A test that runs ``timeout``
seconds (the limit and a grace) is reported as ``TaskLost(cause="timeout")``: by the
worker when the test returns late, and at once by a watchdog thread of the worker, which
tells the client (a dask event); the client then cancels the test's batch and submits the
other tests of the batch again.  The test's worker thread stays busy until the test returns
(tests queued behind it wait): restarting a stuck worker is dask's job (its nanny, the
cluster's operator), not the campaign's.

**Memory.** No ``RLIMIT_AS`` on dask workers (it bounds the whole worker process, its event
loop and comms too: a worker failing an allocation there fails for the whole cluster).  The
pool's own cluster gives each worker dask's ``memory_limit`` (``--max-memory`` MB of
resident memory, watched by the nanny, which restarts a worker beyond 95 % of it: its tests
are then a dead worker's), with spilling and pausing off (a paused worker would hold its
tests for ever); an existing cluster's workers have their own ``--memory-limit``.

**Logs.** dask's own log records (connection attempts, workers restarted, tasks marked as
failed: all reported by the campaign in its own way) do not reach the terminal while the pool
is open, and no dashboard is started.
"""

from __future__ import annotations

import collections
import logging
import math
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import dask
from distributed import Client, Future, LocalCluster, Worker, as_completed
from distributed.comm import CommClosedError, resolve_address
from distributed.diagnostics.plugin import WorkerPlugin
from distributed.scheduler import KilledWorker
from distributed.utils import silence_logging_cmgr

from herdsman.herd_compat.campaigns.workers import (
    ClusterError,
    Factory,
    TaskLost,
    WorkerStartError,
    failure_line,
    run_task,
)

R = TypeVar("R")

#: Outstanding batches per worker: enough to keep every worker busy while results travel
#: back, few enough that the client keeps the queue (and a dead worker takes little).
WINDOW_PER_WORKER = 3
#: How long a batch of tests should take, in seconds of a worker's time.
BATCH_SECONDS = 0.15
#: The most tests in a batch.
MAX_BATCH = 64
#: What a test is assumed to take before any has been measured, in seconds.
FIRST_GUESS = 0.02
#: How often the pool asks an existing cluster how many workers it has (seconds).
RESIZE_EVERY = 2.0
#: How often the client looks for results and the watchdogs' news (seconds).
POLL = 0.005
#: How long the client waits for them before it looks at the workers (seconds).
WAKE_EVERY = 0.5
#: How often a worker's watchdog looks at the test it runs (seconds).
WATCH_EVERY = 0.05
#: dask's log records shown while a pool is open: none (the campaign reports what matters).
DASK_LOG_LEVEL = logging.CRITICAL
#: The pool's own cluster: every worker death reaches the pool (no retry by the scheduler),
#: a worker holds only the batch it runs, and memory is watched but never spilled or paused.
LOCAL_CLUSTER_CONFIG: dict[str, object] = {
    "distributed.scheduler.allowed-failures": 0,
    "distributed.scheduler.worker-saturation": 1.0,
    "distributed.worker.memory.target": False,
    "distributed.worker.memory.spill": False,
    "distributed.worker.memory.pause": False,
    "distributed.worker.memory.terminate": 0.95,
}


@dataclass(frozen=True)
class DaskCluster:
    """Which cluster: ``scheduler`` (an address, ``tcp://host:8786``) or ``local_workers``
    worker processes started here (``memory_limit`` MB each); ``connect_timeout`` seconds to
    reach the scheduler and a worker, or for the local cluster to start."""

    scheduler: str | None = None
    local_workers: int | None = None
    memory_limit: int | None = None
    connect_timeout: float = 20.0

    def describe(self) -> str:
        if self.scheduler is not None:
            return f"the dask scheduler {self.scheduler}"
        return f"a local dask cluster of {self.local_workers} workers"


# ----------------------------------------------------------------------------- on workers


@dataclass
class _Running:
    """The test a worker thread runs now (for the watchdog)."""

    batch: str
    task: str
    started: float
    told: bool = False


#: The campaigns installed in this worker process, by token (see :class:`_Campaign`).
_CAMPAIGNS: dict[str, _Campaign] = {}
#: Their task functions, built by the first batch each worker process runs.
_TASK_FUNCTIONS: dict[str, Callable[[str], Any]] = {}
#: The test each worker thread runs now, by token and thread.
_RUNNING: dict[tuple[str, int], _Running] = {}
#: Taken by the batch a worker process runs: one test at a time, whatever its threads.
_ONE_AT_A_TIME = threading.Lock()


class _Campaign(WorkerPlugin):
    """A campaign's worker factory and its argument, installed on every worker (those that
    join later too) under ``token``; with a ``deadline`` (seconds), a watchdog thread tells
    the client of a test that runs past it."""

    def __init__(self, token: str, factory: Factory[Any], arg: Any, deadline: float | None) -> None:
        self.token = token
        self.name = f"herdsman-campaign-{token}"
        self.factory = factory
        self.arg = arg
        self.deadline = deadline
        self._stop = threading.Event()

    def __getstate__(self) -> dict[str, Any]:  # the watchdog's event stays on this side
        return {k: v for k, v in self.__dict__.items() if k != "_stop"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._stop = threading.Event()

    def setup(self, worker: Worker) -> None:
        _CAMPAIGNS[self.token] = self
        if self.deadline is not None:
            threading.Thread(
                target=self._watch, args=(worker,), name=self.name, daemon=True
            ).start()

    def teardown(self, worker: Worker) -> None:
        self._stop.set()
        _CAMPAIGNS.pop(self.token, None)
        _TASK_FUNCTIONS.pop(self.token, None)

    def _watch(self, worker: Worker) -> None:
        """Tell the client, once, of each test of the campaign running past the deadline."""
        assert self.deadline is not None
        while not self._stop.wait(WATCH_EVERY):
            now = time.monotonic()
            for (token, _), run in list(_RUNNING.items()):
                if token == self.token and not run.told and now - run.started >= self.deadline:
                    run.told = True
                    news = {"batch": run.batch, "task": run.task, "elapsed": now - run.started}
                    worker.log_event(_overrun_topic(self.token), news)


def _overrun_topic(token: str) -> str:
    return f"herdsman-overrun-{token}"


def _task_function(token: str) -> Callable[[str], Any]:
    """The campaign's task function in this worker process, built once."""
    fn = _TASK_FUNCTIONS.get(token)
    if fn is not None:
        return fn
    campaign = _CAMPAIGNS.get(token)
    if campaign is None:
        raise WorkerStartError("the campaign is not installed on this dask worker")
    try:
        fn = campaign.factory(campaign.arg)
    except Exception as e:  # the campaign stops: reported by the client as the local pool's
        raise WorkerStartError(failure_line(e)) from None
    _TASK_FUNCTIONS[token] = fn
    return fn


def _run_batch(token: str, batch: str, tasks: list[str]) -> tuple[list[Any], float]:
    """What a dask worker runs: each test of the batch in turn (its result, or a
    :class:`TaskLost`: it raised, or ran past the deadline), and the seconds they took."""
    slot = (token, threading.get_ident())
    results: list[Any] = []
    spent = 0.0
    with _ONE_AT_A_TIME:
        fn = _task_function(token)
        deadline = _CAMPAIGNS[token].deadline
        try:
            for task in tasks:
                start = time.monotonic()
                _RUNNING[slot] = _Running(batch, task, start)
                res = run_task(fn, task)
                elapsed = time.monotonic() - start
                spent += elapsed
                if deadline is not None and elapsed >= deadline:  # as the local pool kills it
                    line = f"{task}:0:0: error: time limit of {deadline:g} s exceeded"
                    res = TaskLost(task, "timeout", line, elapsed)
                results.append(res)
        finally:
            _RUNNING.pop(slot, None)
    return results, spent


# ----------------------------------------------------------------------------- the client


@dataclass
class _Batch:
    tasks: list[str]
    future: Future
    suspect: bool  # a test that died before, run alone: one such batch at a time


class DaskPool(Generic[R]):
    """Run tasks on a dask cluster (see the module's description): each task at most
    ``timeout`` seconds from its start (reported, not stopped), a task whose worker died
    run again up to ``retries`` times.  Connects (or starts the local cluster) at once;
    :class:`~workers.ClusterError` when it cannot."""

    def __init__(
        self,
        factory: Factory[R],
        arg: Any,
        cluster: DaskCluster,
        timeout: float | None = None,
        retries: int = 0,
    ) -> None:
        self.cluster = cluster
        self.timeout = timeout
        self.retries = retries
        self.token = uuid.uuid4().hex
        self.deaths: collections.Counter[str] = collections.Counter()
        self.suspects: collections.deque[str] = collections.deque()
        self.pending: collections.deque[str] = collections.deque()
        self._batches: dict[str, _Batch] = {}
        self._overruns: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self._per_test = FIRST_GUESS
        self._measured = False
        self._submitted = 0
        self._resized = time.monotonic()
        self._workerless: float | None = None  # since when an existing cluster has none
        self._closing = ExitStack()
        self._closing.enter_context(silence_logging_cmgr(DASK_LOG_LEVEL))
        try:
            self.client = self._connect()
            self.jobs = self._workers() if cluster.scheduler else cluster.local_workers or 1
            self._plugin = _Campaign(self.token, factory, arg, timeout)
            self._install()
        except BaseException:
            self._closing.close()
            raise

    # ---- connecting
    def _connect(self) -> Client:
        c = self.cluster
        where = c.describe()
        if c.scheduler is None:
            try:
                with dask.config.set(LOCAL_CLUSTER_CONFIG):
                    local = LocalCluster(
                        n_workers=c.local_workers,
                        threads_per_worker=1,
                        processes=True,
                        memory_limit=0 if c.memory_limit is None else c.memory_limit * 2**20,
                        dashboard_address=None,
                        # the scheduler's HTTP server (health, metrics) on a free port:
                        # its default port may be taken, with a warning on stderr
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                        silence_logs=DASK_LOG_LEVEL,
                        timeout=c.connect_timeout,
                    )
            except (OSError, TimeoutError, RuntimeError) as e:
                raise ClusterError(f"cannot start {where}: {_reason(e)}") from None
            self._closing.callback(local.close)
            client = Client(local, set_as_default=False)
            self._closing.callback(client.close)
            return client
        try:
            # checked first: a Client that fails on a bad address complains again when
            # collected, on stderr
            resolve_address(c.scheduler)
            client = Client(c.scheduler, timeout=c.connect_timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise ClusterError(f"cannot connect to {where}: {_reason(e)}") from None
        self._closing.callback(client.close)
        try:
            client.wait_for_workers(1, timeout=c.connect_timeout)
        except TimeoutError:
            raise ClusterError(
                f"no dask worker joined {where} within {c.connect_timeout:g} s"
            ) from None
        return client

    def _install(self) -> None:
        """The campaign on every worker, and the watchdogs' news to this client."""
        try:
            self.client.register_plugin(self._plugin)
        except Exception as e:  # raised by a worker: e.g. herdsman not installed there
            raise ClusterError(
                f"the workers of {self.cluster.describe()} cannot take the campaign: "
                f"{failure_line(e)}"
            ) from None
        self._closing.callback(self._uninstall)
        if self.timeout is not None:
            self.client.subscribe_topic(_overrun_topic(self.token), self._on_overrun)

    def _uninstall(self) -> None:
        """The campaign off an existing cluster's workers (the pool's own cluster goes)."""
        if self.client.status != "running":
            return
        if self.timeout is not None:
            self.client.unsubscribe_topic(_overrun_topic(self.token))
        if self.cluster.scheduler is not None:
            try:
                self.client.unregister_worker_plugin(self._plugin.name)
            except OSError:  # a worker going away meanwhile: it takes the plugin with it
                pass

    def _on_overrun(self, event: tuple[float, Any]) -> None:
        """A watchdog's news (in the client's event loop thread: queued for the run)."""
        self._overruns.put(event[1])

    def _workers(self) -> int:
        return max(1, len(self.client.nthreads()))

    # ---- running
    def run(self, tasks: Iterable[str], on_result: Callable[[str, R | TaskLost], None]) -> None:
        """Run every task; ``on_result(task, result)`` is called in this thread as results
        arrive (what the task function returned, or a :class:`TaskLost`)."""
        self.pending = collections.deque(tasks)
        if not self.pending:
            return
        done = as_completed(loop=self.client.loop)
        try:
            self._fill(done)
            while self._batches:
                self._settle(done, self._next_batch(done), on_result)
                self._take_overruns(on_result)
                self._resize()
                self._fill(done)
        except BaseException:  # Ctrl-C, a worker that cannot start: drop what is queued
            self._cancel_all()
            raise

    def _resize(self) -> None:
        """How many workers an existing cluster has now (its own restarts its workers);
        :class:`~workers.ClusterError` when it has had none for ``connect_timeout``."""
        now = time.monotonic()
        if self.cluster.scheduler is None or now - self._resized < RESIZE_EVERY:
            return
        self._resized = now
        workers = len(self.client.nthreads())
        if workers:
            self.jobs, self._workerless = workers, None
            return
        self._workerless = self._workerless or now
        if now - self._workerless >= self.cluster.connect_timeout:
            raise ClusterError(
                f"no dask worker left on {self.cluster.describe()} for "
                f"{self.cluster.connect_timeout:g} s; the finished tests are in the database: "
                "continue with --resume"
            )

    def _fill(self, done: as_completed) -> None:
        window = WINDOW_PER_WORKER * self.jobs
        while len(self._batches) < window:
            if self.suspects and not any(b.suspect for b in self._batches.values()):
                self._submit(done, [self.suspects.popleft()], suspect=True)
            elif self.pending:
                size = self._batch_size(window)
                self._submit(done, [self.pending.popleft() for _ in range(size)], suspect=False)
            else:
                return

    def _batch_size(self, window: int) -> int:
        """As many tests as take about BATCH_SECONDS, fewer near the end: the pending tests
        spread over the whole window."""
        size = max(1, int(BATCH_SECONDS / max(self._per_test, 1e-6)))
        spread = math.ceil(len(self.pending) / window)
        return max(1, min(size, spread, MAX_BATCH, len(self.pending)))

    def _submit(self, done: as_completed, tasks: list[str], suspect: bool) -> None:
        self._submitted += 1
        key = f"herdsman-tests-{self.token}-{self._submitted}"
        future = self.client.submit(_run_batch, self.token, key, tasks, key=key, retries=0)
        self._batches[key] = _Batch(tasks, future, suspect)
        done.add(future)

    def _next_batch(self, done: as_completed) -> list[Future]:
        """The futures finished so far, once there are some or the watchdogs have news;
        an empty list after :data:`WAKE_EVERY` seconds without (time to look at an existing
        cluster's workers).  Without either, as_completed's own wait."""
        if self.timeout is None and self.cluster.scheduler is None:
            return done.next_batch(block=True)
        until = time.monotonic() + WAKE_EVERY
        while not done.has_ready() and self._overruns.empty() and time.monotonic() < until:
            time.sleep(POLL)
        return done.next_batch(block=False)

    def _settle(
        self,
        done: as_completed,
        futures: list[Future],
        on_result: Callable[[str, R | TaskLost], None],
    ) -> None:
        mine = [f for f in futures if f.key in self._batches]  # not one cancelled since
        finished = {f.key: f for f in mine if f.status == "finished"}
        values = self.client.gather(finished, errors="skip") if finished else {}
        for f in mine:
            value = values.get(f.key)
            if value is None and f.status not in ("error", "cancelled"):
                done.add(f)  # its result was lost with a worker: it comes back computed again
                continue
            batch = self._batches.pop(str(f.key))  # our keys are strings
            if value is None:
                self._failed(f, batch, on_result)
                continue
            results, spent = value
            self._measure(spent, len(batch.tasks))
            for task, res in zip(batch.tasks, results, strict=True):
                on_result(task, res)

    def _measure(self, spent: float, tests: int) -> None:
        per_test = spent / tests
        self._per_test = 0.7 * self._per_test + 0.3 * per_test if self._measured else per_test
        self._measured = True

    def _failed(
        self, f: Future, batch: _Batch, on_result: Callable[[str, R | TaskLost], None]
    ) -> None:
        if f.status != "error":  # cancelled behind our back: the scheduler is gone
            raise ClusterError(
                f"lost {self.cluster.describe()}; the finished tests are in the database: "
                "continue with --resume"
            )
        exc = f.exception()
        if isinstance(exc, KilledWorker):
            alone = len(batch.tasks) == 1
            deaths = exc.allowed_failures + 1 if alone else 1
            for task in batch.tasks:
                self._died(task, deaths, exc.last_worker.address, on_result)
        elif isinstance(exc, CommClosedError):
            for task in batch.tasks:
                self._died(task, 1, None, on_result)
        elif isinstance(exc, WorkerStartError):
            raise WorkerStartError(str(exc))
        else:  # the batch itself failed (its results could not come back): each test's
            for task in batch.tasks:
                line = f"{task}:0:0: error: internal error ({failure_line(exc)})"
                on_result(task, TaskLost(task, "raised", line))

    def _died(
        self,
        task: str,
        deaths: int,
        worker: str | None,
        on_result: Callable[[str, R | TaskLost], None],
    ) -> None:
        self.deaths[task] += deaths
        n = self.deaths[task]
        if n <= self.retries:
            self.suspects.append(task)  # once more, alone
            return
        where = f"dask worker {worker}" if worker else "its dask worker"
        times = f", {n} times" if n > 1 else ""
        line = f"{task}:0:0: error: worker process died ({where}{times})"
        on_result(task, TaskLost(task, "died", line))

    def _take_overruns(self, on_result: Callable[[str, R | TaskLost], None]) -> None:
        """A test ran past its deadline: report it, drop its batch (the worker finishes it
        anyway) and run the batch's other tests again."""
        while not self._overruns.empty():
            news = self._overruns.get()
            batch = self._batches.get(str(news["batch"]))
            task = str(news["task"])
            if batch is None or task not in batch.tasks:
                continue  # its batch came back already
            del self._batches[str(batch.future.key)]
            self.client.cancel([batch.future])
            others = [t for t in batch.tasks if t != task]
            if batch.suspect:
                self.suspects.extendleft(reversed(others))
            else:
                self.pending.extendleft(reversed(others))
            line = f"{task}:0:0: error: time limit of {self.timeout:g} s exceeded"
            on_result(task, TaskLost(task, "timeout", line, float(news["elapsed"])))

    def _cancel_all(self) -> None:
        futures = [b.future for b in self._batches.values()]
        self._batches.clear()
        if futures and self.client.status == "running":
            self.client.cancel(futures)

    def close(self, kill_busy: bool = False) -> None:
        """Cancel what is still queued and leave the cluster, stopping it when it is the
        pool's own (its workers go, busy or not: ``kill_busy`` changes nothing, as a dask
        task cannot be stopped on a cluster that stays)."""
        self._cancel_all()
        self._closing.close()


def _reason(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__
