"""Workbench jobs in worker processes the server can kill: at most :data:`MAX_JOBS` at a
time (others wait their turn), each within a CPU-time limit the kernel enforces
(``RLIMIT_CPU``), the request's memory (``RLIMIT_AS``) and a wall-clock deadline after
which the server kills it, as it does when the person cancels or leaves.

Processes come from a fork server started with herdsman's modules loaded
(:func:`start_method`), so a job starts in milliseconds and never inherits the web
server's threads.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import secrets
import signal
from collections.abc import AsyncIterator
from multiprocessing.context import BaseContext
from typing import Any

from herdsman.herd_compat.serve.request import JobRequest
from herdsman.herd_compat.serve.work import run_job

#: Jobs running at once (the others wait), and jobs known at once (running or waiting:
#: beyond, the server is busy).
MAX_JOBS = 2
MAX_WAITING = 16
#: Stages of a job that each get the request's CPU-time limit (a diff: per test), the
#: slack beyond them (s): the job's CPU budget, which the kernel enforces; and how many
#: times that budget of wall time a job may take (a busy machine gives it a share of a
#: core) before the server kills it.
STAGES = 3
SLACK = 15.0
WALL_FACTOR = 10
#: How often the server looks at a job's process while it says nothing (s).
POLL = 0.25


def start_method() -> BaseContext:
    """The multiprocessing context of the workers: a fork server with the job's modules
    loaded (spawn where there is no fork)."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["herdsman.herd_compat.serve.work"])
        return ctx
    return multiprocessing.get_context("spawn")


def cpu_budget(req: JobRequest) -> float:
    """The CPU seconds a job's process may use (``RLIMIT_CPU``)."""
    return STAGES * req.time_limit * max(1, len(req.tests)) + SLACK


class Job:
    """One job's worker process and the events it sends."""

    def __init__(self, ctx: BaseContext, req: JobRequest) -> None:
        self.id = secrets.token_hex(8)
        self.req = req
        self.cpu = int(cpu_budget(req)) + 1
        self.limit = WALL_FACTOR * self.cpu  # wall seconds
        self.conn, child = ctx.Pipe(duplex=False)
        cpu = self.cpu
        self.proc = ctx.Process(  # type: ignore[attr-defined]
            target=run_job, args=(req, child, cpu), daemon=True, name=f"herdsman-job-{self.id}"
        )
        self._child = child
        self.cancelled = False

    def start(self) -> None:
        self.proc.start()
        self._child.close()  # the child holds its end: EOF here when it is gone

    def kill(self) -> None:
        """Stop the job now: its process group (the worker and its renderer)."""
        pid = self.proc.pid
        if pid is None or self.proc.exitcode is not None:
            return
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                self.proc.kill()
        except ProcessLookupError:
            pass
        self.proc.join(5)

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """The job's events until ``done``; an ``error`` event when it is killed (over
        its deadline, cancelled) or dies."""
        loop = asyncio.get_running_loop()
        end = loop.time() + self.limit
        while True:
            ready = await asyncio.to_thread(self.conn.poll, POLL)
            ended = False
            if ready:
                try:
                    event = self.conn.recv()
                except (EOFError, OSError):  # the process is gone (its end of the pipe)
                    ended = True
                else:
                    yield event
                    if event.get("type") == "done":
                        return
                    continue
            if self.cancelled:
                yield {"type": "error", "message": "cancelled"}
                return
            if ended or not self.proc.is_alive() and not self.conn.poll():
                yield {"type": "error", "message": self._death()}
                return
            if loop.time() > end:
                self.kill()
                yield {
                    "type": "error",
                    "message": f"the job took more than {self.limit:g} s (wall) and was stopped",
                }
                return

    def _death(self) -> str:
        self.proc.join(1)
        code = self.proc.exitcode
        if code == -signal.SIGXCPU:
            return f"the job ran out of CPU time ({self.cpu} s) and was stopped"
        if code == -signal.SIGKILL:
            return "the job's process was killed and stopped without a result"
        return f"the job's process stopped without a result (exit status {code})"


class Jobs:
    """The jobs of a server: started in turn (:data:`MAX_JOBS` at once), found by id to
    cancel them."""

    def __init__(self, ctx: BaseContext) -> None:
        self.ctx = ctx
        self.turns = asyncio.Semaphore(MAX_JOBS)
        self.running: dict[str, Job] = {}

    def new(self, req: JobRequest) -> Job | None:
        """A job for ``req``, or None when too many wait already."""
        if len(self.running) >= MAX_WAITING:
            return None
        job = Job(self.ctx, req)
        self.running[job.id] = job
        return job

    async def run(self, job: Job) -> AsyncIterator[dict[str, Any]]:
        """Wait for a turn, run ``job`` and pass its events on; the process is killed
        however this ends (done, cancelled, the browser gone)."""
        try:
            yield {"type": "job", "id": job.id, "queued": self.turns.locked()}
            async with self.turns:
                if job.cancelled:
                    yield {"type": "error", "message": "cancelled"}
                    return
                job.start()
                yield {"type": "started", "cpu": job.cpu, "pid": job.proc.pid}
                async for event in job.events():
                    yield event
        finally:
            job.kill()
            self.running.pop(job.id, None)

    def cancel(self, job_id: str) -> bool:
        job = self.running.get(job_id)
        if job is None:
            return False
        job.cancelled = True
        job.kill()
        return True

    def stop_all(self) -> None:
        for job in list(self.running.values()):
            job.kill()
