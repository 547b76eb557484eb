"""Which workers run a campaign's tests (``validate``, ``diff``): ``--jobs`` local
processes (the default), or a dask cluster (``--scheduler ADDRESS``, ``--dask-local N``).
The pool they open, and the limits each worker runs under, are the same for every
campaign; the options are the command line's (``cli/options.py``)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from herdsman.herd_compat.campaigns.workers import Factory, TaskPool, WorkerPool
from herdsman.herd_compat.pipeline.limits import Limits, grace

#: Seconds to wait for a dask scheduler and a first worker.
DEFAULT_CONNECT_TIMEOUT = 20.0
#: The least memory of a dask worker in MB (dask itself takes about 80 MB).
MIN_DASK_WORKER_MB = 256


@dataclass(frozen=True)
class Workers:
    """Where a campaign's tests run: ``jobs`` local processes, or a dask cluster (a
    running ``scheduler``, or ``dask_local`` worker processes)."""

    jobs: int = 1
    scheduler: str | None = None
    dask_local: int | None = None
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT

    @property
    def on_dask(self) -> bool:
        return self.scheduler is not None or self.dask_local is not None

    def describe(self) -> str:
        """``2 jobs``, ``a dask cluster of 2 workers``, ``the dask scheduler ADDRESS``."""
        if self.scheduler is not None:
            return f"the dask scheduler {self.scheduler}"
        if self.dask_local is not None:
            n = self.dask_local
            return f"a dask cluster of {n} worker{'s' if n > 1 else ''}"
        return f"{self.jobs} job{'s' if self.jobs > 1 else ''}"

    def process_limits(self, limits: Limits) -> Limits:
        """The limits a worker process sets itself: ``limits``, but never a dask worker's
        address space (``RLIMIT_AS`` would fail the worker for the whole cluster: dask's
        own memory limit applies, :func:`open_pool`)."""
        return replace(limits, memory_limit=None) if self.on_dask else limits


def open_pool(
    workers: Workers, limits: Limits, factory: Factory[Any], arg: Any, kill_after: float | None
) -> TaskPool[Any]:
    """The pool of ``workers``, each running the task function ``factory(arg)``; a task
    over ``kill_after`` seconds is reported as a timeout (local workers are killed).  A
    ``--dask-local`` cluster's workers get ``limits.memory_limit`` MB of resident memory
    each.  A dask cluster is reached or started at once (``workers.ClusterError`` when it
    cannot be)."""
    if not workers.on_dask:
        return WorkerPool(factory, arg, jobs=workers.jobs, timeout=kill_after, retries=1)
    from herdsman.herd_compat.campaigns.dask_pool import DaskCluster, DaskPool

    cluster = DaskCluster(
        scheduler=workers.scheduler,
        local_workers=workers.dask_local,
        memory_limit=None if workers.scheduler is not None else limits.memory_limit,
        connect_timeout=workers.connect_timeout,
    )
    return DaskPool(factory, arg, cluster, timeout=kill_after, retries=1)


def kill_after(time_limit: float | None, stages: int = 1) -> float | None:
    """Wall seconds after which the parent gives up a task of ``stages`` stages of at
    most ``time_limit`` CPU seconds each (None: never): the engine stops cleanly at its
    limit, the pool kills a worker a little later."""
    if time_limit is None:
        return None
    return stages * time_limit + grace(time_limit)
