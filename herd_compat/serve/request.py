"""What the browser asks the workbench to do, checked: a :class:`JobRequest` made from the
JSON of a request (or from a permalink's parameters, which carry the same names).

A job runs a test or program (``run``), explains a state (``explain``) or diffs two models
on bundled tests (``diff``).  Its source is a bundled example or pasted text (a litmus
test of any architecture, or a C program); its model a built-in name, or cat text the
person edited; its engine one of herdsman's; its limits at most the server's.  Anything
else is a :class:`RequestError`, one line for the person.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from herdsman.cat.api import builtin_names
from herdsman.engine.options import ENGINES
from herdsman.herd_compat.serve.examples import NotAnExample, list_examples, resolve_example
from herdsman.litmus.base.source import MAX_MODEL_BYTES, MAX_SOURCE_BYTES

TASKS = ("run", "explain", "diff")
KINDS = ("auto", "litmus", "program")
#: The limits of one job: the default and the most a request may ask for (CPU seconds of
#: each stage; megabytes of address space of the worker process).
TIME_LIMIT, MAX_TIME_LIMIT = 20.0, 120.0
MEMORY_LIMIT, MAX_MEMORY_LIMIT = 2048, 4096
MIN_MEMORY_LIMIT = 256
#: Executions drawn at most (the others are counted, not drawn).
MAX_PICTURES = 200
#: Tests of one diff at most.
MAX_DIFF_TESTS = 200
#: The model name that means "the cat text given".
CUSTOM = "custom"


class RequestError(Exception):
    """A request the workbench refuses (one line)."""


@dataclass(frozen=True)
class ModelChoice:
    """A built-in model by name (``""``: herd's default for the test's architecture), or
    cat text the person wrote (``cat``)."""

    name: str = ""
    cat: str | None = None

    @property
    def custom(self) -> bool:
        return self.cat is not None

    def label(self) -> str:
        return "custom cat model" if self.custom else self.name or "herd's default"


@dataclass(frozen=True)
class Limits:
    """A job's bounds: CPU seconds of each stage (reading, model, engine; a diff's test:
    each model and the witness), megabytes of address space, executions drawn."""

    time: float = TIME_LIMIT
    memory: int = MEMORY_LIMIT
    pictures: int = MAX_PICTURES


@dataclass(frozen=True)
class JobRequest:
    """One job, checked (see the module docstring)."""

    task: str
    kind: str = "litmus"  # litmus | program (decided: never auto)
    example: str | None = None
    text: str | None = None
    model: ModelChoice = ModelChoice()
    model_b: ModelChoice = ModelChoice()
    engine: str = "auto"
    state: str | None = None
    unroll: int = 4
    tests: tuple[str, ...] = ()
    limits: Limits = Limits()

    @property
    def time_limit(self) -> float:
        return self.limits.time

    @property
    def memory_limit(self) -> int:
        return self.limits.memory

    @property
    def pictures(self) -> int:
        return self.limits.pictures


def detect_kind(text: str) -> str:
    """``program`` for C program text (a preprocessor line, or a ``main`` function),
    ``litmus`` otherwise (a litmus test starts with its architecture and name)."""
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    if re.search(r"^\s*#\s*(include|define)\b", body, re.M):
        return "program"
    if re.search(r"\bint\s+main\s*\(", body) and not re.match(r"\s*C\s+\S", body):
        return "program"
    return "litmus"


def _str(doc: dict[str, Any], key: str, default: str = "") -> str:
    v = doc.get(key, default)
    if v is None:
        return default
    if not isinstance(v, str):
        raise RequestError(f"{key}: expected text")
    return v


def _number(doc: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    v = doc.get(key)
    if v is None or v == "":
        return default
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise RequestError(f"{key}: expected a number, found {str(v)[:40]!r}") from None
    if not low <= x <= high:
        raise RequestError(f"{key}: {x:g} is not between {low:g} and {high:g}")
    return x


def _model(doc: dict[str, Any], key: str, cat_key: str) -> ModelChoice:
    name = _str(doc, key)
    if name == CUSTOM:
        cat = _str(doc, cat_key)
        if not cat.strip():
            raise RequestError(f"{key}: a custom model needs its cat text")
        if len(cat.encode()) > MAX_MODEL_BYTES:
            raise RequestError(f"{cat_key}: a cat file of at most {MAX_MODEL_BYTES} bytes")
        return ModelChoice(cat=cat)
    if name and name not in builtin_names():
        raise RequestError(
            f"{key}: '{name[:40]}' is not a built-in model ({', '.join(builtin_names())}, "
            f"or {CUSTOM} with cat text)"
        )
    return ModelChoice(name)


def _tests(doc: dict[str, Any]) -> tuple[str, ...]:
    """A diff's tests: bundled litmus tests, by path or by folder (``x86``)."""
    raw = doc.get("tests")
    if isinstance(raw, str):
        raw = [t for t in re.split(r"[,\s]+", raw) if t]
    if not isinstance(raw, list) or not raw or not all(isinstance(t, str) for t in raw):
        raise RequestError("tests: give bundled litmus tests or folders (e.g. x86)")
    folders = {e.folder for e in list_examples() if e.kind == "litmus"}
    out: list[str] = []
    for t in raw:
        if t.strip("/") in folders:
            folder = t.strip("/")
            out += [e.path for e in list_examples() if e.folder == folder and e.kind == "litmus"]
            continue
        try:
            ex, _ = resolve_example(t)
        except NotAnExample as e:
            raise RequestError(str(e)) from None
        if ex.kind != "litmus":
            raise RequestError(f"{t}: diff compares models on litmus tests")
        out.append(ex.path)
    out = list(dict.fromkeys(out))
    if len(out) > MAX_DIFF_TESTS:
        raise RequestError(f"tests: at most {MAX_DIFF_TESTS} tests in one diff")
    return tuple(out)


def parse_request(doc: object) -> JobRequest:
    """The job a request's JSON (or a permalink's parameters) asks for."""
    if not isinstance(doc, dict):
        raise RequestError("expected a JSON object")
    task = _str(doc, "task", "run")
    if task not in TASKS:
        raise RequestError(f"task: '{task[:40]}' is not one of {', '.join(TASKS)}")
    engine = _str(doc, "engine", "auto")
    if engine not in ENGINES:
        raise RequestError(f"engine: '{engine[:40]}' is not one of {', '.join(ENGINES)}")
    limits = Limits(
        _number(doc, "timeout", TIME_LIMIT, 0.1, MAX_TIME_LIMIT),
        int(_number(doc, "memory", MEMORY_LIMIT, MIN_MEMORY_LIMIT, MAX_MEMORY_LIMIT)),
        int(_number(doc, "pictures", MAX_PICTURES, 0, MAX_PICTURES)),
    )
    model = _model(doc, "model", "cat")
    if task == "diff":
        model_b = _model(doc, "model_b", "cat_b")
        if not model.name and not model.custom or not model_b.name and not model_b.custom:
            raise RequestError("diff: choose both models")
        return JobRequest(
            "diff", model=model, model_b=model_b, engine=engine, tests=_tests(doc), limits=limits
        )
    example = _str(doc, "example") or None
    text = _str(doc, "text") or None
    if (example is None) == (text is None):
        raise RequestError("give a bundled example or the text of a test or program")
    kind = _str(doc, "kind", "auto")
    if kind not in KINDS:
        raise RequestError(f"kind: '{kind[:40]}' is not one of {', '.join(KINDS)}")
    if example is not None:
        try:
            ex, _ = resolve_example(example)
        except NotAnExample as e:
            raise RequestError(str(e)) from None
        kind = ex.kind
        example = ex.path
    else:
        assert text is not None
        if len(text.encode()) > MAX_SOURCE_BYTES:
            raise RequestError(f"text: at most {MAX_SOURCE_BYTES} bytes")
        if kind == "auto":
            kind = detect_kind(text)
    if task == "explain" and kind != "litmus":
        raise RequestError("explain takes a litmus test (for a C program: run it)")
    unroll = int(_number(doc, "unroll", 4, 0, 64))
    state = _str(doc, "state").strip() or None
    return JobRequest(
        task,
        kind,
        example,
        text,
        model,
        engine=engine,
        state=state,
        unroll=unroll,
        limits=limits,
    )
