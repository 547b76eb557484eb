"""The Linux kernel's expected results: a test's own ``Result:`` comment, judged as the
kernel's ``tools/memory-model/scripts/judgelitmus.sh`` judges herd's output.

A kernel litmus test says what the model must answer in a comment line
`` * Result: WORD [DATARACE]`` (or ``(* Result: ...``): ``Never``, ``Sometimes`` or
``Always`` (the word the ``Observation`` line must contain), ``Maybe`` (anything goes),
``DEADLOCK`` (no execution at all: ``Observation NAME Never 0 0``); ``DATARACE`` says the
model must flag a data race (``Flag data-race``).  judgelitmus's rules, in its order: a
data race predicted and not flagged, or flagged and not predicted, fails; ``DEADLOCK``
passes on ``Never 0 0`` only; ``Never 0 0`` for another word fails (an unexpected
deadlock); the word in the ``Observation`` line, or ``Maybe``, passes; otherwise the test
fails, unless a data race was flagged (then judgelitmus forgives the difference).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from herdsman.herd_compat.formats.herd_block import HerdBlock, format_result
from herdsman.herd_compat.formats.herdlog import Expectation
from herdsman.litmus.base.source import MAX_SOURCE_BYTES, read_text

#: ``--expect results``: expectations from the tests' own ``Result:`` lines.
RESULTS = "results"

_RESULT = re.compile(r"^[( ]\* Result: (.*)$", re.M)
_NAME = re.compile(r"\A\s*\S+\s+(\S+)")


def result_expectation(text: str, path: str) -> Expectation | None:
    """The expectation a test's text states (None when it has no ``Result:`` line)."""
    m = _RESULT.search(text)
    name = _NAME.match(text)
    if m is None or name is None:
        return None
    words = m.group(1).split()
    outcome = words[0] if words else ""
    datarace = " DATARACE" in m.group(0)
    line = text.count("\n", 0, m.start()) + 1
    return Expectation(name.group(1), outcome, None, path, line, result=outcome, datarace=datarace)


def result_expectations(paths: Iterable[str]) -> dict[str, Expectation]:
    """The expectations of the tests in ``paths``, by test name (tests without a
    ``Result:`` line have none)."""
    out: dict[str, Expectation] = {}
    for p in paths:
        exp = result_expectation(read_text(p, MAX_SOURCE_BYTES, "litmus tests"), p)
        if exp is not None:
            out[exp.name] = exp
    return out


@dataclass(frozen=True)
class Judgement:
    """judgelitmus's verdict: ``ok``, and why not."""

    ok: bool
    why: str = ""


def judge(block: HerdBlock, exp: Expectation) -> Judgement:
    """judgelitmus.sh's judgement of ``block`` against the ``Result:`` of ``exp``."""
    outcome = exp.result or ""
    modeled = "data-race" in block.flags
    if exp.datarace and not modeled:
        return Judgement(False, "predicted data race not modeled")
    if not exp.datarace and modeled:
        return Judgement(False, "unexpected data race modeled")
    obs = observation_line(block)
    deadlock = obs.endswith("Never 0 0")
    if outcome == "DEADLOCK":
        return Judgement(deadlock, "" if deadlock else f"unexpected non-{outcome} verification")
    if deadlock:
        return Judgement(False, f"unexpected non-{outcome} deadlock")
    if outcome in obs or outcome == "Maybe":
        return Judgement(True)
    if modeled:  # judgelitmus forgives it
        return Judgement(True, f"forgiven non-{outcome} verification")
    return Judgement(False, f"unexpected non-{outcome} verification")


def observation_line(block: HerdBlock) -> str:
    """The ``Observation`` line of herd's block."""
    for line in format_result(block).splitlines():
        if line.startswith("Observation"):
            return line
    return ""
