"""What campaign workers run: the per-test pipeline, in each worker process.

A campaign is given a *worker factory*: called once in each worker process with the run's
configuration, it returns the task function mapping a test path to the pipeline's record
(:class:`~herd_compat.pipeline.Done` or :class:`~herd_compat.pipeline.Failed`; picklable:
it goes back to the parent).
:func:`engine_worker` is herdsman's (the model is loaded once per worker); tests pass
other factories (herd's own answers, crashing or hanging workers) from Python.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Protocol

from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import CpuTimeLimit, limit_memory
from herdsman.herd_compat.pipeline.load import warm_up_parser
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, Failed, Skipped, run_file

TaskFn = Callable[[str], Done | Failed]

#: Allocations of containers between two collections of the young generation in a
#: campaign worker (see :func:`long_lived`).
YOUNG = 20_000


class WorkerFactory(Protocol):
    """Builds a worker's task function (once per worker process; picklable)."""

    def __call__(self, cfg: RunConfig, /) -> TaskFn: ...


def engine_worker(cfg: RunConfig) -> TaskFn:
    """Load the model (once; a bad model stops the campaign), bound the worker's memory,
    return the task function."""
    models = ModelCache(cfg)
    with CpuTimeLimit(cfg.limits.time_limit):
        if cfg.model:
            models.get(cfg.model)
    warm_up_parser()
    limit_memory(cfg.limits.memory_limit)  # a test beyond it fails alone (MemoryError)
    long_lived()

    def work(path: str) -> Done | Failed:
        rec = run_file(path, cfg, models)
        assert not isinstance(rec, Skipped)  # campaigns run every test they are given
        return rec

    return work


def long_lived() -> None:
    """Keep what lives as long as the worker (the model, its code, the parsers, then the
    caches the tests fill) out of the garbage collector's full passes: frozen now, and
    after each full pass, what survived it.  A full pass then visits only what the tests
    built since the last one (a few ms), not the worker's whole heap (up to 45 ms on the
    POWER campaign, charged to whichever test was running).  The young generation is
    collected less often than Python's default."""
    gc.collect()
    gc.freeze()
    # a test builds thousands of short-lived containers, nearly all freed by their
    # reference counts: a young collection every YOUNG of them (not Python's 700) looks
    # at fewer of them alive (RISC-V worker loop: about 5 % less CPU)
    gc.set_threshold(YOUNG, 20, 20)
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.append(_freeze_survivors)


def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()
