"""herd7 and ``herdsman herd7`` on the same tests at the same time: CPU time like for like.

This machine's speed drifts (by up to 40 % within minutes, with a hypervisor stealing
time), so two runs one after the other can differ by more than the margin being measured.
Here both tools run *at once*, one process each on its own core, over one suite's tests:
herd7 once, from start to end, and ``herdsman herd7`` again and again beside it until herd7
has finished (at least ``--min-runs`` times).  Every herdsman run is a whole command, as a
user types it: interpreter start-up, imports, loading the model, every test, printing.
Both see the same machine over the same minutes; the ratio is herdsman's mean CPU time
per run over herd7's CPU time.  Each process's CPU time (user + system) is its own, from
``wait4``.

The blocks are compared too: herdsman's standard output, without its ``Time`` lines,
must equal herd7's, or the difference is printed (the stale tests of a suite, where herd's
log is not what herd7 7.57 prints, do not occur here: both are run now).

    HERD7=/path/to/herd7 .venv/bin/python bench/side_by_side.py --sets riscv,arm,aarch64
    .venv/bin/python bench/side_by_side.py --sets riscv --sample 1000   # a quicker look

Needs herd7 built here (``$HERD7``; ``bash ../shared/anchors/build.sh PREFIX herd7``) and
../shared (or ``$HERDSMAN_SHARED``).  Run it on an otherwise idle machine with 2 cores or
more.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from herd7_side import DEFAULT_MODELS, herd7_binary

from herdsman.herd_compat.pipeline.inputs import read_index

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HERDSMAN_SHARED", ROOT.parent / "shared")).resolve()

#: Each suite's tests and the cat file herd7's log on them was made with.
SUITES = {
    "riscv": ("riscv/tests/@all", "riscv/cat/riscv.cat"),
    "arm": ("arm/tests/@all", "arm/cat/arm.cat"),
    "aarch64": ("aarch64/tests/@all", "aarch64/cat/aarch64.cat"),
    "power": ("power/tests/@all", "herd-cat/ppc.cat"),
}

TIME_LINE = re.compile(r"^Time [^\n]*\n", re.M)


@dataclass(frozen=True)
class Run:
    cpu: float  # user + system seconds of the process
    wall: float
    out: str  # its standard output
    peak_mb: float


def suite_files(name: str, sample: int | None) -> list[str]:
    """The tests of suite ``name`` (``sample``: that many, spread evenly)."""
    files = read_index(str(SHARED / SUITES[name][0]))
    if sample and sample < len(files):
        step = len(files) / sample
        files = [files[int(i * step)] for i in range(sample)]
    return files


#: herdsman's processes run as an installed package does: with its bytecode cached (this
#: project's shells set PYTHONDONTWRITEBYTECODE, which would make every run compile it).
OURS_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def start(cmd: list[str], out: IO[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, text=True, env=env)


def finish(proc: subprocess.Popen[str], out: IO[str], t0: float) -> Run:
    """Wait for ``proc`` and read what it printed."""
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    out.seek(0)
    text = out.read()
    cpu = usage.ru_utime + usage.ru_stime
    return Run(cpu, wall, text, usage.ru_maxrss / 1024)


def running(proc: subprocess.Popen[str]) -> bool:
    """Whether ``proc`` is still running (not reaped: :func:`finish` takes its usage)."""
    return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None


def first_difference(a: str, b: str) -> str:
    """Where two outputs (without Time lines) first differ, as two quoted lines."""
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False)):
        if x != y:
            return f"line {i + 1}: herd7 {x!r}, herdsman {y!r}"
    return f"lengths differ: herd7 {len(a)} chars, herdsman {len(b)}"


def side_by_side(name: str, herd7: Path, sample: int | None, min_runs: int) -> float:
    """Both tools on suite ``name``; prints the figures and returns the ratio."""
    files = suite_files(name, sample)
    model = str(SHARED / SUITES[name][1])
    h_cmd = [str(herd7), "-set-libdir", str(herd7.parent / "libdir")]
    if model not in DEFAULT_MODELS:
        h_cmd += ["-model", model]
    ours_cmd = [str(Path(sys.executable).parent / "herdsman"), "herd7", "-model", model]
    print(f"== {name}: {len(files)} tests, model {model}", flush=True)
    with tempfile.TemporaryFile("w+") as o:  # a first run, not counted: bytecode, page cache
        finish(start(ours_cmd + files, o, OURS_ENV), o, time.monotonic())
    with tempfile.TemporaryDirectory() as tmp:
        h_out = open(os.path.join(tmp, "herd7.out"), "w+")  # noqa: SIM115 - closed below
        t0 = time.monotonic()
        h_proc = start(h_cmd + files, h_out)
        runs: list[Run] = []
        while len(runs) < min_runs or running(h_proc):
            with tempfile.TemporaryFile("w+") as o:
                t1 = time.monotonic()
                runs.append(finish(start(ours_cmd + files, o, OURS_ENV), o, t1))
            print(f"  herdsman run {len(runs)}: {runs[-1].cpu:.2f} s CPU", flush=True)
        herd = finish(h_proc, h_out, t0)
        h_out.close()
    mean = statistics.mean(r.cpu for r in runs)
    ratio = mean / max(herd.cpu, 1e-9)
    h_text, o_text = TIME_LINE.sub("", herd.out), TIME_LINE.sub("", runs[-1].out)
    same = "identical" if h_text == o_text else "DIFFERENT: " + first_difference(h_text, o_text)
    spread = f"{min(r.cpu for r in runs):.2f}-{max(r.cpu for r in runs):.2f}"
    print(f"herd7: {herd.cpu:.2f} s CPU ({herd.wall:.1f} s wall), peak {herd.peak_mb:.0f} MB")
    print(
        f"herdsman herd7: {len(runs)} runs beside it, mean {mean:.2f} s CPU (runs {spread} s), "
        f"peak {max(r.peak_mb for r in runs):.0f} MB"
    )
    print(f"blocks without Time lines: {same}")
    print(f"ratio {name}: {ratio:.4f}", flush=True)
    return ratio


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="riscv,arm,aarch64", help=", ".join(SUITES))
    ap.add_argument("--sample", type=int, help="N tests of each suite, spread out")
    ap.add_argument("--min-runs", type=int, default=3, help="herdsman runs at least (3)")
    a = ap.parse_args(argv)
    names = [n for n in a.sets.split(",") if n]
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        ap.error(f"unknown suite(s): {', '.join(unknown)}")
    herd7 = herd7_binary()
    if herd7 is None:
        print("needs herd7 built here: set $HERD7", file=sys.stderr)
        return 2
    if not SHARED.exists():
        print(f"needs {SHARED} (the shared ground-truth folder)", file=sys.stderr)
        return 2
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    ratios = {n: side_by_side(n, herd7, a.sample, a.min_runs) for n in names}
    print("ratios: " + ", ".join(f"{n} {r:.4f}" for n, r in ratios.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
