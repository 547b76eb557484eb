"""The task function of campaign workers: run one test file, return herd's block.

:func:`make_engine_worker` runs in each worker process: it loads the model once, then
returns a function mapping a test path to a small picklable dict (``status``, ``name``,
``block``, ``cpu``...).  Campaigns may be given another factory with the same contract
(``--worker MODULE:FUNCTION``), e.g. to test the campaign machinery or to plug in another
engine.
"""

from __future__ import annotations

import importlib
import os
import time
from dataclasses import dataclass, field
from typing import Any

from herdsman.herd_compat.output import format_result, herd_result
from herdsman.herd_compat.runner import (
    ModelCache,
    RunConfig,
    internal_error_line,
    parse_test,
    run_options,
    test_hash,
    time_limit_exception,
)
from herdsman.litmus.errors import InputError
from herdsman.litmus.parser import parse_text
from herdsman.litmus.printer import herd_condition_text


@dataclass
class WorkerConfig:
    """What a worker needs to run tests (picklable)."""

    model: str | None = None
    include_dirs: list[str] = field(default_factory=list)
    variants: set[str] = field(default_factory=set)
    engine: str = "auto"
    time_limit: float | None = None  # passed to the engine, which may stop cleanly
    extra: dict[str, Any] = field(default_factory=dict)  # for other factories


def make_engine_worker(wc: WorkerConfig):
    """Load the model (once), return the task function."""
    cfg = RunConfig(
        model=wc.model,
        include_dirs=list(wc.include_dirs),
        variants=set(wc.variants),
        engine=wc.engine,
    )
    models = ModelCache(cfg)
    if cfg.model:
        models.get(cfg.model)
    opts = run_options(cfg, time_limit=wc.time_limit)
    run = importlib.import_module("herdsman.engine.run")
    timeout_exc = time_limit_exception()
    warm_up_parser()

    def work(path: str) -> dict[str, Any]:
        t0 = time.process_time()
        name = os.path.basename(path).removesuffix(".litmus")
        try:
            test = parse_test(path)
            name = test.name
            t_model = time.process_time()
            model = models.for_test(test)  # loading a model is not the test's time
            t0 += time.process_time() - t_model
            result = run.run_test(test, model, opts)
            res = herd_result(
                result, test.name, test_hash(test), herd_condition_text(test.condition)
            )
            res.time = time.process_time() - t0  # herd's Time includes parsing
            block = format_result(res, arch=test.arch)
            return {"status": "done", "name": name, "block": block, "cpu": res.time}
        except InputError as e:
            return {"status": "error", "name": name, "error": e.render(), "input_error": True}
        except Exception as e:
            if timeout_exc is not None and isinstance(e, timeout_exc):
                return {
                    "status": "timeout",
                    "name": name,
                    "error": f"{path}:0:0: error: time limit of {wc.time_limit:g} s "
                    "exceeded (engine)",
                    "cpu": time.process_time() - t0,
                }
            return {
                "status": "error",
                "name": name,
                "error": internal_error_line(path, e),
                "input_error": False,
            }

    return work


#: Tiny tests parsed once per worker, so that building the parsers (~0.2 s) is not
#: charged to the first test's time.
_WARM_UP = (
    "PPC W\n{\n0:r2=x;\n}\n P0 ;\n lwz r1,0(r2) ;\nexists (0:r1=0)\n",
    "X86 W\n{\n}\n P0 ;\n MOV EAX,[x] ;\nexists (0:EAX=0)\n",
)


def warm_up_parser() -> None:
    try:
        for text in _WARM_UP:
            parse_text(text, "<warm-up>")
    except (ImportError, InputError):
        pass  # only an optimisation


class WorkerSpecError(ValueError):
    """A bad ``--worker MODULE:FUNCTION``."""


def load_factory(spec: str):
    """A worker factory named ``module:function``."""
    mod, _, fn = spec.partition(":")
    if not mod or not fn:
        raise WorkerSpecError(f"--worker expects MODULE:FUNCTION, got '{spec}'")
    try:
        return getattr(importlib.import_module(mod), fn)
    except (ImportError, AttributeError) as e:
        raise WorkerSpecError(f"--worker {spec}: {e}") from None
