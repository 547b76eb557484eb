"""``herdsman run --json``: one JSON object per test, one per line, printed as each test
finishes (JSON Lines, so a long run streams).

A test that ran gives ``{"status": "done", "file", "test", "arch", "model", "hash",
"condition", "kind", "verdict", "time", "outcome"}``: the test's file and name, herd's
header facts and verdict words (``kind``: ``Allowed``/``Forbidden``/``Required``;
``verdict``: ``Ok``/``No``/``Undef``, prefixed with ``Loop`` as herd), the CPU seconds, and
the engine's :meth:`~herdsman.engine.outcome.Outcome.to_json`.  A test without a result
gives ``{"status": "error" | "timeout" | "memory", "file", "test", "error"}`` with the line
that would have been reported on stderr.  Skipped tests (herd's rules) give nothing.
"""

from __future__ import annotations

import json
from typing import Any

from herdsman.herd_compat.pipeline.run_file import Done, Failed


def record_json(rec: Done | Failed) -> dict[str, Any]:
    """The JSON object of one test's record."""
    if isinstance(rec, Failed):
        status = rec.kind if rec.kind in ("timeout", "memory") else "error"
        return {"status": status, "file": rec.path, "test": rec.name, "error": rec.message}
    block = rec.herd_block()
    return {
        "status": "done",
        "file": rec.path,
        "test": rec.name,
        "arch": rec.test.arch,
        "model": rec.model,
        "hash": rec.test.hash,
        "condition": rec.test.condition,
        "kind": block.kind,
        "verdict": block.verdict_line,
        "time": round(rec.cpu, 6),
        "outcome": rec.outcome.to_json(),
    }


def json_line(rec: Done | Failed) -> str:
    """One line of JSON Lines for a test's record (with its newline)."""
    return json.dumps(record_json(rec)) + "\n"
