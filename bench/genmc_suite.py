"""GenMC's own test programs (``tests/correct`` of GenMC v0.11) under SC (or RC11), against the
counts GenMC expects: one row per program, herdsman's complete (and blocked) executions
beside GenMC's, and the tally.

    python bench/genmc_suite.py [--model sc|rc11] [--src /tmp/genmc-src/genmc]
                                [--timeout 15] [--jobs 2] [--filter GLOB] [--json FILE]
                                [--genmc BIN] [--verify-args ARGS]

The tarball is ``../shared/anchors/src/genmc-v0.11.0.tar.gz``; it is extracted once to
``--src``'s parent (outside the repository).  Without it the script says so and exits 0.

A *program* is one test folder with one line of its ``args.sc.mo.in`` (GenMC's flags
``|`` the compiler's: ``-D``, ``-I``), run on every file of its ``variants/`` as GenMC's
driver (``scripts/runcorrect.sh``) does: each variant must give the expected count of
complete executions (``expected.sc.mo.in``, the same line); where the driver checks
blocked executions (``saver``, ``ipr``) the blocked count of the last variant must be
``blocked.sc.mo.in``'s.  C++ programs are skipped (herdsman reads C).  Each variant runs
``herdsman verify --model sc`` (``--model rc11``: the ``*.rc11.mo.in`` files and
``verify --model rc11``; GenMC's ``-disable-race-detection`` passed on, a count differing
under its ``-lapor`` marked as that reduction) in a subprocess with a CPU-time limit.
With ``--genmc`` (or ``GENMC``) GenMC itself runs too and its time is printed beside
herdsman's.

Exit status 0; the table ends with the number of programs with GenMC's counts and, with
``--genmc``, the ratio of times (herdsman/GenMC, each a subprocess per variant, in one run).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tarfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARBALL = HERE.parent.parent / "shared" / "anchors" / "src" / "genmc-v0.11.0.tar.gz"
DEFAULT_SRC = Path("/tmp/genmc-src/genmc")
CATEGORIES = ("infr", "litmus", "saver", "ipr", "sr", "liveness", "synthetic", "data-structures")
CHECK_BLOCKED = ("saver", "ipr")
#: GenMC's reductions herdsman does not have: a count differing under one is theirs
REDUCTIONS = {"-lapor": "LAPOR (lock-aware partial-order reduction)"}


@dataclass
class Case:
    """One program: a test folder, one line of its flags, its expected counts."""

    folder: str  # category/name
    line: int  # 1-based line of the args file (1 when there is none)
    genmc_args: list[str]
    clang_args: list[str]
    expected: int
    blocked: int | None  # checked only where GenMC's driver checks it
    variants: list[str]

    @property
    def name(self) -> str:
        n = re.search(r"-DN=(\d+)", " ".join(self.clang_args))
        return self.folder + (f"/{n.group(1)}" if n else (f"#{self.line}" if self.line > 1 else ""))


@dataclass
class Result:
    case: str
    status: str  # ok | diff | error | timeout
    complete: int | None = None
    blocked: int | None = None
    expected: int = 0
    expected_blocked: int | None = None
    time: float = 0.0
    genmc_time: float | None = None
    message: str = ""
    variants: list[str] = field(default_factory=list)


def extract(src: Path) -> bool:
    """GenMC's sources at ``src`` (extracted from the tarball when missing)."""
    if (src / "tests" / "correct").is_dir():
        return True
    if not TARBALL.is_file():
        return False
    src.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(TARBALL) as tar:
        tar.extractall(src.parent, filter="data")
    return (src / "tests" / "correct").is_dir()


def _lines(path: Path) -> list[str]:
    return [x.rstrip("\n") for x in path.read_text().splitlines()] if path.is_file() else []


def cases(src: Path, pattern: str, model: str = "sc") -> list[Case]:
    out: list[Case] = []
    root = src / "tests" / "correct"
    for cat in CATEGORIES:
        for d in sorted((root / cat).iterdir() if (root / cat).is_dir() else []):
            folder = f"{cat}/{d.name}"
            if not fnmatch.fnmatch(folder, pattern):
                continue
            expected = _lines(d / f"expected.{model}.mo.in")
            variants = sorted(str(p) for p in (d / "variants").glob("*.c"))
            if not expected or not variants:
                continue
            blocked = _lines(d / f"blocked.{model}.mo.in") if cat in CHECK_BLOCKED else []
            args = _lines(d / f"args.{model}.mo.in") or [""]
            numbers = [x for x in expected if x.strip()]
            for i, line in enumerate(args):
                if not numbers:
                    break
                # GenMC's driver pairs args line i with expected line i; a blank one
                # accepts any count: take the file's first count then
                want = expected[i] if i < len(expected) and expected[i].strip() else numbers[0]
                genmc, _, clang = line.partition("|")
                b = blocked[i] if i < len(blocked) else ("0" if cat in CHECK_BLOCKED else None)
                out.append(
                    Case(
                        folder,
                        i + 1,
                        genmc.split(),
                        clang.split(),
                        int(want.split()[0]),
                        int(b) if b not in (None, "") else None,
                        variants,
                    )
                )
    return out


def herdsman_command(
    case: Case, variant: str, timeout: float, model: str = "sc", extra: Sequence[str] = ()
) -> list[str]:
    cmd = [sys.executable, "-m", "herdsman.herd_compat.cli.main", "verify", "--model", model]
    cmd += extra  # --verify-args
    cmd += ["--timeout", str(timeout)]
    for a in case.genmc_args:
        if a.startswith("-unroll="):
            cmd += ["--unroll", a.split("=", 1)[1]]
        elif a.startswith("-no-unroll="):
            cmd += ["--no-unroll", a.split("=", 1)[1]]
        elif a == "-disable-sr":
            cmd += ["--disable-sr"]
        elif a == "-disable-race-detection":
            cmd += ["--disable-race-detection"]
    for a in case.clang_args:
        if a.startswith("-D"):
            cmd += ["-D", a[2:]]
        elif a.startswith("-I"):
            cmd += ["-I", a[2:]]
    return [*cmd, variant]


_COMPLETE = re.compile(r"Number of complete executions explored: (\d+)")
_BLOCKED = re.compile(r"Number of blocked executions seen: (\d+)")


def run_case(
    case: Case,
    src: Path,
    timeout: float,
    genmc: str | None,
    model: str = "sc",
    extra: Sequence[str] = (),
) -> Result:
    res = Result(case.name, "ok", expected=case.expected, expected_blocked=case.blocked)
    for v in case.variants:
        t0 = time.perf_counter()
        try:
            p = subprocess.run(
                herdsman_command(case, v, timeout, model, extra),
                cwd=src,
                capture_output=True,
                text=True,
                timeout=timeout * 3 + 30,
            )
        except subprocess.TimeoutExpired:
            res.status, res.message = "timeout", "no answer"
            break
        res.time += time.perf_counter() - t0
        if p.returncode == 3:
            res.status, res.message = "timeout", f"over {timeout:g} s"
            break
        m, b = _COMPLETE.search(p.stdout), _BLOCKED.search(p.stdout)
        if m is None:
            lines = (p.stderr or p.stdout).strip().splitlines()
            res.status = "error"
            res.message = lines[-1] if lines else f"exit status {p.returncode}"
            res.message = res.message.replace(str(src) + "/", "")
            break
        if p.returncode == 42:
            first = p.stdout.splitlines()[0] if p.stdout else ""
            res.message = f"{Path(v).name}: {first}"
        res.complete, res.blocked = int(m.group(1)), int(b.group(1)) if b else 0
        res.variants.append(f"{Path(v).name}:{res.complete}/{res.blocked}")
        if res.complete != case.expected:
            res.status = "diff"
    if res.status == "ok" and case.blocked is not None and res.blocked != case.blocked:
        res.status = "diff"
    if res.status == "diff":
        why = [REDUCTIONS[a] for a in case.genmc_args if a in REDUCTIONS]
        if why:
            res.message = (res.message + "; " if res.message else "") + "GenMC's " + why[0]
    if genmc:
        res.genmc_time = genmc_time(genmc, case, src, timeout, model)
    return res


def genmc_time(
    genmc: str, case: Case, src: Path, timeout: float, model: str = "sc"
) -> float | None:
    total = 0.0
    for v in case.variants:
        cmd = [genmc, f"-{model}", "-disable-estimation", "-disable-mm-detector", *case.genmc_args]
        cmd += ["--", *case.clang_args, v]
        t0 = time.perf_counter()
        try:
            subprocess.run(cmd, cwd=src, capture_output=True, timeout=timeout * 3)
        except subprocess.TimeoutExpired:
            return None
        total += time.perf_counter() - t0
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC)
    ap.add_argument("--timeout", type=float, default=15.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default="*")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--genmc", default=os.environ.get("GENMC"))
    ap.add_argument("--only-failures", action="store_true")
    ap.add_argument("--model", choices=("sc", "rc11"), default="sc")
    ap.add_argument("--verify-args", default="", help="more arguments for herdsman verify")
    a = ap.parse_args(argv)
    if not extract(a.src):
        print(f"skipped: GenMC's sources are not at {a.src} and {TARBALL} is missing")
        return 0
    todo = cases(a.src, a.filter, a.model)
    genmc = a.genmc if a.genmc and Path(a.genmc).is_file() else None
    with ThreadPoolExecutor(max(1, a.jobs)) as pool:
        extra = shlex.split(a.verify_args)
        results = list(
            pool.map(lambda c: run_case(c, a.src, a.timeout, genmc, a.model, extra), todo)
        )
    width = max((len(r.case) for r in results), default=10)
    print(f"model {a.model}")
    print(f"{'program':<{width}}  {'status':<7} {'herdsman':>12} {'GenMC':>12} {'time':>7}")
    for r in results:
        if a.only_failures and r.status == "ok":
            continue
        mine = "-" if r.complete is None else f"{r.complete}/{r.blocked}"
        theirs = f"{r.expected}/{'' if r.expected_blocked is None else r.expected_blocked}"
        gt = "" if r.genmc_time is None else f" (GenMC {r.genmc_time:.2f}s)"
        line = f"{r.case:<{width}}  {r.status:<7} {mine:>12} {theirs:>12} {r.time:6.2f}s{gt}"
        print(line + (f"  {r.message}" if r.message else ""))
    ok = sum(r.status == "ok" for r in results)
    by = {s: sum(r.status == s for r in results) for s in ("diff", "error", "timeout")}
    pct = 100.0 * ok / len(results) if results else 0.0
    accepted = len(results) - by["error"]
    pct_accepted = 100.0 * ok / accepted if accepted else 0.0
    print(
        f"\n{ok} of {len(results)} programs with GenMC's counts ({pct:.1f}%); "
        f"{by['diff']} different, {by['error']} refused, {by['timeout']} over the time limit"
    )
    print(f"{ok} of the {accepted} programs herdsman accepts ({pct_accepted:.1f}%)")
    timed = [r for r in results if r.status == "ok" and r.genmc_time and r.time > 0]
    if timed:
        logs = [math.log(r.time / r.genmc_time) for r in timed if r.genmc_time]
        ratios = sorted(r.time / r.genmc_time for r in timed if r.genmc_time)
        print(
            f"time herdsman/GenMC over the {len(timed)} programs with GenMC's counts: "
            f"geometric mean {math.exp(sum(logs) / len(logs)):.1f}x, "
            f"median {ratios[len(ratios) // 2]:.1f}x, worst {ratios[-1]:.1f}x; "
            f"total {sum(r.time for r in timed):.0f} s against "
            f"{sum(r.genmc_time or 0.0 for r in timed):.0f} s"
        )
    if a.json:
        a.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
