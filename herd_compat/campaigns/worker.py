"""What campaign workers run: the per-test pipeline, in each worker process.

A campaign is given a *worker factory*: called once in each worker process with the run's
configuration, it returns the task function mapping a test path to the pipeline's record
(:class:`~herd_compat.pipeline.Done` or :class:`~herd_compat.pipeline.Failed`; picklable:
it goes back to the parent).
:data:`engine_worker` is herdsman's (the model is loaded once per worker, or once before
the workers are forked); tests pass
other factories (herd's own answers, crashing or hanging workers) from Python.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from herdsman.engine.errors import TimeLimitExceeded
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.heap import long_lived
from herdsman.herd_compat.pipeline.limits import CpuTimeLimit, keep_alarm_handler, limit_memory
from herdsman.herd_compat.pipeline.load import warm_up_parser
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, Failed, Skipped, run_file
from herdsman.litmus.base.errors import InputError

TaskFn = Callable[[str], Done | Failed]


class WorkerFactory(Protocol):
    """Builds a worker's task function (once per worker process; picklable)."""

    def __call__(self, cfg: RunConfig, /) -> TaskFn: ...


@dataclass(frozen=True)
class EngineWorker:
    """herdsman's worker factory: loads the model (once; a bad model stops the campaign),
    bounds the worker's memory, returns the task function.

    :meth:`loaded_here` gives the factory with the model (and the parsers) already loaded in
    this process: workers forked from it inherit them instead of each loading its own (0.2 s
    of CPU time a worker on the RISC-V campaign).  Pickled (to a spawned worker, to dask),
    the factory leaves them behind, and the worker loads its own."""

    models: ModelCache | None = field(default=None, compare=False)

    def loaded_here(self, cfg: RunConfig) -> EngineWorker:
        """This factory with ``cfg``'s model loaded in this process (a bad model raises
        its InputError here)."""
        models = self.models or ModelCache(cfg)
        _load(models, cfg)
        return EngineWorker(models)

    def __reduce__(self) -> tuple[type[EngineWorker], tuple[()]]:
        return (EngineWorker, ())

    def __call__(self, cfg: RunConfig, /) -> TaskFn:
        models = self.models
        if models is None or models.cfg != cfg:
            models = ModelCache(cfg)
            _load(models, cfg)
        limit_memory(cfg.limits.memory_limit)  # a test beyond it fails alone (MemoryError)
        long_lived()
        keep_alarm_handler()  # the worker runs tests and nothing else

        def work(path: str) -> Done | Failed:
            rec = run_file(path, cfg, models)
            assert not isinstance(rec, Skipped)  # campaigns run every test they are given
            return rec

        return work


def _load(models: ModelCache, cfg: RunConfig) -> None:
    with CpuTimeLimit(cfg.limits.time_limit):
        if cfg.model:
            models.get(cfg.model)
    warm_up_parser()


#: herdsman's worker factory (each worker loads the model).
engine_worker = EngineWorker()


def forked_from_here(factory: WorkerFactory, cfg: RunConfig, start_method: str) -> WorkerFactory:
    """The factory to start local workers with: herdsman's with the model loaded in this
    process when they are forked from it (``start_method``), else ``factory`` itself."""
    if isinstance(factory, EngineWorker) and start_method == "fork":
        try:
            return factory.loaded_here(cfg)
        except (InputError, TimeLimitExceeded):
            pass  # each worker then fails to load it, and the campaign says so as ever
    return factory
