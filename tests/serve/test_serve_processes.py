"""Workbench jobs in worker processes: a job past its wall-clock deadline is killed (the
process gone), and a job whose process dies says so — never a stream that hangs."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from herdsman.herd_compat.serve import processes
from herdsman.herd_compat.serve.processes import Jobs, start_method
from herdsman.herd_compat.serve.request import parse_request

LONG = (
    "X86 LONG\n{ }\n P0 | P1 | P2 | P3 ;\n"
    + "".join(
        " " + " | ".join(f"MOV [x],${t * 10 + i + 1}" for t in range(4)) + " ;\n" for i in range(4)
    )
    + " MOV EAX,[x] | MOV EAX,[x] | MOV EAX,[x] | MOV EAX,[x] ;\nexists (0:EAX=1 /\\ 1:EAX=11)\n"
)


def _events(req: dict, on_start=None) -> list[dict]:
    async def go() -> list[dict]:
        jobs = Jobs(start_method())
        job = jobs.new(parse_request(req))
        assert job is not None
        out = []
        async for event in jobs.run(job):
            out.append(event)
            if event["type"] == "started" and on_start is not None:
                on_start(event)
        return out

    return asyncio.run(go())


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(")")[-1].split()[0] == "Z"


def test_past_its_deadline_a_job_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "WALL_FACTOR", 0.05)  # 20 s of CPU: 1.5 s of wall
    events = _events({"text": LONG, "model": "tso", "engine": "reference", "timeout": 20})
    started = next(e for e in events if e["type"] == "started")
    assert events[-1]["type"] == "error" and "(wall) and was stopped" in events[-1]["message"]
    assert _gone(started["pid"])


def test_a_job_whose_process_dies_says_so() -> None:
    def kill(event: dict) -> None:
        os.kill(event["pid"], signal.SIGKILL)

    events = _events({"text": LONG, "model": "tso", "engine": "reference"}, kill)
    assert events[-1]["type"] == "error" and "stopped" in events[-1]["message"]
