"""What a ``herdsman diff`` worker does with one test: both models' runs, the group of
their answers and, when they differ, a witness execution (``contrast``)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from herdsman.cat.api import Model
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.outcome import Outcome
from herdsman.herd_compat.analyses.explain.candidates import Contrast, contrast, full_state
from herdsman.herd_compat.analyses.explain.report import (
    execution_json,
    execution_lines,
    witness_dot,
    witness_json,
    witness_lines,
)
from herdsman.herd_compat.analyses.explain.witness import RelationLens
from herdsman.herd_compat.formats.herd_block import state_lines
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import (
    RUN_LIMITS,
    CpuTimeLimit,
    Limits,
    limit_memory,
)
from herdsman.herd_compat.pipeline.load import Loaded, load_program, warm_up_parser
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, Failed, Skipped, run_file
from herdsman.litmus.base.errors import InputError

#: The groups of tests, in report order, with their headings ({A} and {B}: the models).
GROUPS: dict[str, str] = {
    "identical": "same answers",
    "a-allows": "{A} allows, {B} forbids",
    "b-allows": "{B} allows, {A} forbids",
    "both-allow": "both allow, states differ",
    "both-forbid": "both forbid, states differ",
    "counts": "same states, counts differ",
    "other": "other differences (verdict, flags)",
    "error": "errors (bad input)",
    "noresult": "no result (timeout, memory, lost)",
}
#: The groups of tests whose answers differ.

DIFFERENT = ("a-allows", "b-allows", "both-allow", "both-forbid", "counts", "other")
#: How many of a difference's states are tried for a witness.
WITNESS_TRIES = 3


# ----------------------------------------------------------------------------- workers


@dataclass(frozen=True)
class DiffWorkerConfig:
    """What each worker needs (picklable): the two models and the run's options."""

    a: str
    b: str
    include_dirs: tuple[str, ...] = ()
    variants: frozenset[str] = frozenset()
    engine: str = "auto"
    limits: Limits = RUN_LIMITS  # each stage's time; the worker's memory

    def run_config(self, model: str) -> RunConfig:
        return RunConfig(
            model=model,
            include_dirs=list(self.include_dirs),
            variants=set(self.variants),
            engine=self.engine,
            limits=self.limits,
        )


@dataclass(frozen=True)
class TestDiff:
    """A test's two results compared: its status (``done``, ``error``, ``timeout``), its
    group, and the details (both results, the witness, the error line) as JSON data."""

    path: str
    name: str
    status: str
    group: str
    details: dict[str, Any]
    cpu: float | None = None


def _summary(rec: Done) -> dict[str, Any]:
    """One model's result on a test, as JSON data."""
    out = rec.outcome
    block = rec.herd_block()
    arch = rec.test.arch
    states = {}
    satisfying = []
    for st, c in out.states.items():
        line = state_lines(out.observed, [st], arch)[0]
        states[line] = c.executions
        if c.satisfies:
            satisfying.append(line)
    return {
        "verdict": block.verdict_line,
        "kind": block.kind,
        "condition": block.condition,
        "states": dict(sorted(states.items())),
        "satisfying": sorted(satisfying),
        "positive": out.positive,
        "negative": out.negative,
        "flags": sorted(out.flags),
        "cpu": rec.cpu,
    }


def classify(a: Outcome, b: Outcome, verdict_a: str, verdict_b: str) -> str:
    """The group of a test whose two outcomes are ``a`` and ``b`` (see the module
    docstring)."""
    sa = {st: c.executions for st, c in a.states.items()}
    sb = {st: c.executions for st, c in b.states.items()}
    if sa == sb and verdict_a == verdict_b and a.flags == b.flags:
        return "identical"
    pa, pb = a.positive > 0, b.positive > 0
    if pa != pb:
        return "a-allows" if pa else "b-allows"
    if set(sa) != set(sb):
        return "both-allow" if pa else "both-forbid"
    if sa != sb:
        return "counts"
    return "other"


def _disputed(group: str, a: Outcome, b: Outcome) -> list[tuple[tuple, str]]:
    """States on which the models disagree, most telling first, each with the model
    (``a`` or ``b``) that allows more executions giving it."""
    sa = {st: c for st, c in a.states.items()}
    sb = {st: c for st, c in b.states.items()}
    only_a = [st for st in sa if st not in sb]
    only_b = [st for st in sb if st not in sa]
    if group == "a-allows":
        return [(st, "a") for st in sorted(only_a, key=lambda s: not sa[s].satisfies)]
    if group == "b-allows":
        return [(st, "b") for st in sorted(only_b, key=lambda s: not sb[s].satisfies)]
    if group in ("both-allow", "both-forbid"):
        return [(st, "a") for st in only_a] + [(st, "b") for st in only_b]
    if group == "counts":
        return [
            (st, "a" if sa[st].executions > sb[st].executions else "b")
            for st in sa
            if st in sb and sa[st].executions != sb[st].executions
        ]
    return []


class _Worker:
    """One worker's state: both models (loaded once), their lenses."""

    def __init__(self, cfg: DiffWorkerConfig) -> None:
        self.cfg = cfg
        self.run_a = cfg.run_config(cfg.a)
        self.run_b = cfg.run_config(cfg.b)
        self.models_a = ModelCache(self.run_a)
        self.models_b = ModelCache(self.run_b)
        self.lenses: dict[Model, RelationLens] = {}
        # loaded once, outside any test's time limit (the pool bounds a worker's start)
        self.models_a.get(cfg.a)
        self.models_b.get(cfg.b)

    def lens(self, model: Model) -> RelationLens:
        got = self.lenses.get(model)
        if got is None:
            got = self.lenses[model] = RelationLens(model)
        return got

    def __call__(self, path: str) -> TestDiff:
        start = time.process_time()
        ra = run_file(path, self.run_a, self.models_a)
        rb = run_file(path, self.run_b, self.models_b)
        assert not isinstance(ra, Skipped) and not isinstance(rb, Skipped)
        name = ra.name if isinstance(ra, Done) else rb.name
        details: dict[str, Any] = {}
        if isinstance(ra, Failed) or isinstance(rb, Failed):
            failed = [r for r in (ra, rb) if isinstance(r, Failed)]
            no_result = any(r.kind in ("timeout", "memory") for r in failed)
            details["errors"] = {
                k: r.message for k, r in (("a", ra), ("b", rb)) if isinstance(r, Failed)
            }
            for k, r in (("a", ra), ("b", rb)):
                if isinstance(r, Done):
                    details[k] = _summary(r)
            status = "timeout" if no_result else "error"
            group = "noresult" if no_result else "error"
            return TestDiff(path, name, status, group, details, time.process_time() - start)
        details["a"] = _summary(ra)
        details["b"] = _summary(rb)
        group = classify(ra.outcome, rb.outcome, details["a"]["verdict"], details["b"]["verdict"])
        if group in DIFFERENT:
            details["witness"] = self.witness(path, ra, rb, group)
        return TestDiff(path, name, "done", group, details, time.process_time() - start)

    def witness(self, path: str, ra: Done, rb: Done, group: str) -> dict[str, Any]:
        """An execution on which the two models disagree (see :func:`contrast`), as JSON
        data with its text and picture; or why there is none."""
        cfg = self.cfg
        try:
            with CpuTimeLimit(cfg.limits.time_limit):
                la, lb = load_program(path, self.models_a), load_program(path, self.models_b)
                assert isinstance(la, Loaded) and isinstance(lb, Loaded)  # every test admitted
                if la.target != lb.target:
                    return {"none": f"the models lower C differently ({la.target}, {lb.target})"}
                program_a, model_a, model_b = la.program, la.model, lb.model
                out = ra.outcome
                for st, who in _disputed(group, ra.outcome, rb.outcome)[:WITNESS_TRIES]:
                    allow, forbid = (model_a, model_b) if who == "a" else (model_b, model_a)
                    state = full_state(out.observed, st)
                    found = contrast(program_a, allow, forbid, state, self.lens(forbid))
                    if found is not None:
                        return _witness_doc(found, st, who, ra, cfg)
        except TimeLimitExceeded:
            return {"none": "the witness search ran out of time (--timeout)"}
        except InputError as e:
            return {"none": f"no witness: {e.render()}"}
        return {"none": "no single execution is allowed by one model and rejected by the other"}


def _witness_doc(
    found: Contrast, st: tuple, who: str, rec: Done, cfg: DiffWorkerConfig
) -> dict[str, Any]:
    rels, j = found.rels, found.judgement
    arch = rec.test.arch
    state = state_lines(rec.outcome.observed, [st], arch)[0]
    allowing, rejecting = (cfg.a, cfg.b) if who == "a" else (cfg.b, cfg.a)
    w = j.witness
    text = execution_lines(rels, "      ")
    if w is not None:
        text += witness_lines(w, rels, "      ")
    axiom = j.axiom or "a co or with choice of the model"
    caption = f"{state} allowed by {allowing}, rejected by {rejecting} (check {axiom})"
    return {
        "state": state,
        "allowed_by": who,
        "allowing": allowing,
        "rejecting": rejecting,
        "axiom": axiom,
        "text": text,
        "execution": execution_json(rels),
        **({} if w is None else {"witness": witness_json(w, rels)}),
        "dot": witness_dot(rels, rec.test.name, os.path.basename(rejecting), caption, w),
    }


def diff_worker(cfg: DiffWorkerConfig) -> Callable[[str], TestDiff]:
    """A worker's task function (built once per worker process): both models loaded,
    memory bounded (a test beyond it fails alone)."""
    work = _Worker(cfg)
    warm_up_parser()
    limit_memory(cfg.limits.memory_limit)
    return work


# ----------------------------------------------------------------------------- the run


def labels(a: str, b: str) -> tuple[str, str]:
    """How the report names the models: as given, or A and B when that is ambiguous."""
    la, lb = os.path.basename(a), os.path.basename(b)
    if la == lb:
        return f"A ({a})", f"B ({b})"
    return la, lb
