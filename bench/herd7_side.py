"""herd7 run here, beside herdsman, on the same tests: the CPU times of both, side by side.

herd7's logs carry the ``Time`` lines of the machine that made them; a ratio against them
mixes two machines (and two loads).  This runs the herd7 built here (``$HERD7``, else
``../anchors/herd7/herd7``, with its ``libdir`` beside it) once over a list of tests and
reports its CPU time (the child processes', from ``getrusage``; as many herd7 processes at
once as the campaign had workers) and the sum of the ``Time``
lines it printed, so that ``bench/campaign.py --herd-sample N`` compares both tools on one
machine at one moment.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
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


def herd7_binary() -> Path | None:
    """The herd7 built here, or None."""
    path = Path(os.environ.get("HERD7", DEFAULT_HERD7))
    return path if path.is_file() and os.access(path, os.X_OK) else None


def run_herd7(binary: Path, files: list[str], model: str, timeout: float, jobs: int = 1) -> HerdRun:
    """herd7 over ``files`` under ``model`` (a cat file, or a built-in name standing for
    herd's default), its CPU time measured: ``jobs`` herd7 processes at once, each on
    every ``jobs``-th file, as herdsman's campaign runs ``jobs`` workers (like for like:
    processes sharing the machine run a little slower than one alone)."""
    cmd = [str(binary), "-set-libdir", str(binary.parent / "libdir")]
    if model not in DEFAULT_MODELS:
        cmd += ["-model", model]
    parts = [files[k :: max(1, jobs)] for k in range(max(1, jobs))]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    procs = [
        subprocess.Popen(cmd + part, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for part in parts
        if part
    ]
    outs = []
    for p in procs:
        try:
            outs.append(p.communicate(timeout=timeout)[0])
        except subprocess.TimeoutExpired:
            p.kill()
            outs.append(p.communicate()[0])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    stdout = "".join(outs)
    times = sum(float(t) for t in TIME_LINE.findall(stdout))
    return HerdRun(len(files), cpu, times, stdout)
