"""Which workers run a campaign's tests (``validate``, ``diff``): ``--jobs`` local
processes (the default), or a dask cluster (``--scheduler ADDRESS``, ``--dask-local N``).
The options, their checks and the pool they open are the same for every campaign."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from herdsman.herd_compat.campaigns.workers import Factory, TaskPool, WorkerPool
from herdsman.herd_compat.pipeline.limits import DEFAULT_WORKER_MB, MIN_MEMORY_MB
from herdsman.litmus.base.errors import UsageError

#: Seconds to wait for a dask scheduler and a first worker.
DEFAULT_CONNECT_TIMEOUT = 20.0
#: The least memory of a dask worker in MB (dask itself takes about 80 MB).
MIN_DASK_WORKER_MB = 256


@dataclass(frozen=True)
class Workers:
    """Where a campaign's tests run: ``jobs`` local processes of ``max_memory`` MB of
    address space each, or a dask cluster (a running ``scheduler``, or ``dask_local``
    worker processes of ``max_memory`` MB of resident memory each)."""

    jobs: int = 1
    max_memory: int | None = DEFAULT_WORKER_MB
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

    @property
    def process_memory(self) -> int | None:
        """Each local worker's address-space bound; never a dask worker's (``RLIMIT_AS``
        would fail the worker for the whole cluster: dask's own limit applies)."""
        return None if self.on_dask else self.max_memory


def add_worker_options(p: argparse.ArgumentParser) -> None:
    """``--jobs``, ``--max-memory`` and the dask options of a campaign command."""
    p.add_argument("--jobs", "-j", type=int, metavar="N", help="local worker processes (default 1)")
    p.add_argument(
        "--max-memory",
        type=int,
        metavar="MB",
        help="each worker's memory in MB: a local worker's address space (a test beyond it "
        f"is reported like a timeout), a --dask-local worker's (default {DEFAULT_WORKER_MB})",
    )
    dask = p.add_argument_group("on a dask cluster (instead of --jobs local processes)")
    where = dask.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="the scheduler of a running dask cluster, e.g. tcp://host:8786 (its workers "
        "run with --nthreads 1, have herdsman installed and see the tests' paths)",
    )
    where.add_argument(
        "--dask-local",
        type=int,
        metavar="N",
        help="a dask cluster of N worker processes on this machine, each with --max-memory "
        "MB of resident memory (dask's limit: beyond it the worker is restarted, its test lost)",
    )
    dask.add_argument(
        "--connect-timeout",
        type=float,
        metavar="SECONDS",
        help="how long to wait for the scheduler and a first worker (default "
        f"{DEFAULT_CONNECT_TIMEOUT:g})",
    )


def workers_of(a: argparse.Namespace) -> Workers:
    """The :class:`Workers` the options of :func:`add_worker_options` ask for (a
    :class:`UsageError` for a contradictory or out-of-range choice)."""
    if a.scheduler is None and a.dask_local is None:
        if a.connect_timeout is not None:
            raise UsageError("--connect-timeout needs --scheduler or --dask-local")
        if a.jobs is not None and a.jobs < 1:
            raise UsageError("--jobs must be at least 1")
    elif a.jobs is not None:
        raise UsageError("--jobs runs local worker processes: not with --scheduler or --dask-local")
    if a.dask_local is not None and a.dask_local < 1:
        raise UsageError("--dask-local must be at least 1")
    if a.scheduler is not None and a.max_memory is not None:
        raise UsageError(
            "--max-memory is the local workers' memory: with --scheduler, the dask workers' "
            "own --memory-limit applies"
        )
    least = MIN_DASK_WORKER_MB if a.dask_local is not None else MIN_MEMORY_MB
    if a.max_memory is not None and a.max_memory < least:
        extra = " with --dask-local" if a.dask_local is not None else ""
        raise UsageError(f"--max-memory must be at least {least} (MB){extra}")
    if a.connect_timeout is not None and a.connect_timeout <= 0:
        raise UsageError("--connect-timeout must be positive")
    return Workers(
        jobs=a.jobs or 1,
        max_memory=None if a.scheduler else a.max_memory or DEFAULT_WORKER_MB,
        scheduler=a.scheduler,
        dask_local=a.dask_local,
        connect_timeout=a.connect_timeout or DEFAULT_CONNECT_TIMEOUT,
    )


def open_pool(
    workers: Workers, factory: Factory[Any], arg: Any, kill_after: float | None
) -> TaskPool[Any]:
    """The pool of ``workers``, each running the task function ``factory(arg)``; a task
    over ``kill_after`` seconds is reported as a timeout (local workers are killed).  A
    dask cluster is reached or started at once (``workers.ClusterError`` when it cannot
    be)."""
    if not workers.on_dask:
        return WorkerPool(factory, arg, jobs=workers.jobs, timeout=kill_after, retries=1)
    from herdsman.herd_compat.campaigns.dask_pool import DaskCluster, DaskPool

    cluster = DaskCluster(
        scheduler=workers.scheduler,
        local_workers=workers.dask_local,
        memory_mb=workers.max_memory,
        connect_timeout=workers.connect_timeout,
    )
    return DaskPool(factory, arg, cluster, timeout=kill_after, retries=1)
