"""herd7 run here, beside herdsman, on the same tests: the CPU times of both, side by side.

herd7's logs carry the ``Time`` lines of the machine that made them; a ratio against them
mixes two machines (and two loads).  This runs the herd7 built here (``$HERD7``, else
``../anchors/herd7/herd7``, with its ``libdir`` beside it) once over a list of tests and
reports its CPU time and peak memory (each child process's, from ``wait4``; as many herd7
processes at once as the campaign had workers) and the sum of the ``Time``
lines it printed, so that ``bench/campaign.py --herd-sample N`` compares both tools on one
machine at one moment.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

#: herd7 as ``bash ../shared/anchors/build.sh PREFIX herd7`` installs it (``$HERD7`` wins).
DEFAULT_HERD7 = Path(os.environ.get("HERD7") or "../anchors/herd7/herd7")

#: herdsman's built-in model names that are herd7's default model for their architecture
#: (herd7 then runs without ``-model``, on its libdir file).
DEFAULT_MODELS = {"power", "arm", "riscv", "tso", "tso64", "aarch64"}

TIME_LINE = re.compile(r"^Time \S+ ([0-9.]+)$", re.M)


@dataclass(frozen=True)
class HerdRun:
    tests: int
    cpu: float  # the herd7 process's user + system time
    time_lines: float  # the sum of the Time lines it printed
    blocks: str  # its output
    peak_mb: float = 0.0  # the largest peak resident memory of its processes, in MB


def herd7_binary() -> Path | None:
    """The herd7 built here, or None."""
    path = Path(os.environ.get("HERD7", DEFAULT_HERD7))
    return path if path.is_file() and os.access(path, os.X_OK) else None


def run_herd7(binary: Path, files: list[str], model: str, timeout: float, jobs: int = 1) -> HerdRun:
    """herd7 over ``files`` under ``model`` (a cat file, or a built-in name standing for
    herd's default), its CPU time and peak memory measured: ``jobs`` herd7 processes at
    once, each on every ``jobs``-th file, as herdsman's campaign runs ``jobs`` workers (like
    for like: processes sharing the machine run a little slower than one alone).  Each
    writes to a file of its own (a pipe read one after the other would hold the others
    back) and is waited for with ``wait4``, which gives its own resources."""
    cmd = [str(binary), "-set-libdir", str(binary.parent / "libdir")]
    if model not in DEFAULT_MODELS:
        cmd += ["-model", model]
    parts = [p for p in (files[k :: max(1, jobs)] for k in range(max(1, jobs))) if p]
    with ExitStack() as stack:
        outs = [stack.enter_context(tempfile.TemporaryFile("w+")) for _ in parts]
        procs = [
            subprocess.Popen(cmd + part, stdout=out, stderr=subprocess.DEVNULL, text=True)
            for part, out in zip(parts, outs, strict=True)
        ]
        usage = [_wait(p, time.monotonic() + timeout) for p in procs]
        stdout = ""
        for out in outs:
            out.seek(0)
            stdout += out.read()
    cpu = sum(u.ru_utime + u.ru_stime for u in usage)
    times = sum(float(t) for t in TIME_LINE.findall(stdout))
    peak = max((u.ru_maxrss for u in usage), default=0) / 1024
    return HerdRun(len(files), cpu, times, stdout, peak)


def _wait(proc: subprocess.Popen[str], deadline: float) -> resource.struct_rusage:
    """The resources ``proc`` used, once it has ended (killed at ``deadline``)."""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage
        if time.monotonic() > deadline:
            proc.kill()
        time.sleep(0.01)
