"""``herdsman diff`` on the whole shared campaigns: where two models differ, against herd.

Two runs of the real command (``herdsman diff ... --json``), each with a fresh journal:

* ``power`` (built-in) against herd's own ``ppc.cat`` on the 8141 POWER tests: the models
  are meant to be the same, so no test may differ (and none may be without a result);
* ``tso`` against ``sc`` on the 475 X86 tests: the tests that differ must be exactly those
  whose verdict, states or counts differ between herd7's two logs (``herd7-*-x86tso.log``
  and ``herd7-*-sc.log``), and each must come with a witness execution and the check of
  ``sc`` that rejects it.

It prints per run the groups' counts, the CPU and wall time, and OK or FAIL.

    .venv/bin/python bench/bench_diff.py                 # both runs, 2 jobs
    .venv/bin/python bench/bench_diff.py --only x86 --jobs 1

Exit status: 0 when both hold, 1 otherwise, 2 without ../shared (or $HERDSMAN_SHARED).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from herdsman.herd_compat.formats.herdlog import read_expectations

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HERDSMAN_SHARED", ROOT.parent / "shared")).resolve()
POWER_TESTS = SHARED / "power" / "tests" / "@all"
PPC_CAT = SHARED / "herd-cat" / "ppc.cat"
X86 = SHARED / "x86"
X86_LOGS = {
    "x86tso": [X86 / "herd7-tests-x86tso.log", X86 / "generated" / "herd7-x86tso.log"],
    "sc": [X86 / "herd7-tests-sc.log", X86 / "generated" / "herd7-sc.log"],
}


def run_diff(args: list[str], jobs: int, timeout: float | None) -> tuple[dict, float, int]:
    """Run ``herdsman diff ARGS`` with a fresh journal: its JSON report, wall seconds, exit."""
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as tmp:
        out = os.path.join(tmp, "diff.json")
        cmd = [
            sys.executable,
            "-m",
            "herdsman.herd_compat.cli.main",
            "diff",
            *args,
            "--jobs",
            str(jobs),
            "--db",
            os.path.join(tmp, "journal.sqlite"),
            "--json",
            out,
            "--no-progress",
        ]
        if timeout is not None:
            cmd += ["--timeout", str(timeout)]
        print("$ herdsman " + " ".join(cmd[3:]), flush=True)
        t0 = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wall = time.monotonic() - t0
        if proc.stderr.strip():
            sys.stderr.write(proc.stderr)
        try:
            with open(out, encoding="utf-8") as f:
                doc = json.load(f)
        except OSError:
            sys.stderr.write(proc.stdout)
            raise SystemExit(f"herdsman diff wrote no report (exit {proc.returncode})") from None
        return doc, wall, proc.returncode


def print_summary(doc: dict, wall: float) -> None:
    for group, n in doc["summary"].items():
        print(f"  {group:<14}{n:>7}")
    print(f"  {'total':<14}{doc['tests_total']:>7}")
    print(f"  CPU {doc['cpu']:.1f} s (both models and witnesses), wall {wall:.1f} s")


def bench_power(jobs: int, timeout: float | None) -> bool:
    print("== power vs herd's ppc.cat on the POWER tests (expect no difference)")
    doc, wall, status = run_diff(["power", str(PPC_CAT), str(POWER_TESTS)], jobs, timeout)
    print_summary(doc, wall)
    differ = [t["name"] for t in doc["tests"] if t["group"] != "identical"]
    ok = status == 0 and not differ and doc["tests_total"] == 8141
    if differ:
        print(f"  not identical: {', '.join(differ[:20])}")
    print(f"  {'OK' if ok else 'FAIL'} (exit status {status})")
    return ok


def herd_differences() -> set[str]:
    """The X86 tests whose verdict, states or counts differ between herd7's two logs."""
    logs = {}
    for model, paths in X86_LOGS.items():
        logs[model] = {}
        for p in paths:
            logs[model].update(read_expectations(p, 0))
    out = set()
    for name, e in logs["sc"].items():
        a, b = logs["x86tso"][name].record, e.record
        assert a is not None and b is not None
        if (a.verdict, a.states, a.positive, a.negative) != (
            b.verdict,
            b.states,
            b.positive,
            b.negative,
        ):
            out.add(name)
    return out


def bench_x86(jobs: int, timeout: float | None) -> bool:
    print("== tso vs sc on the X86 tests (expect herd7's differences between its two logs)")
    doc, wall, status = run_diff(
        ["tso", "sc", str(X86 / "tests"), str(X86 / "generated")], jobs, timeout
    )
    print_summary(doc, wall)
    expected = herd_differences()
    got = {t["name"] for t in doc["tests"] if t["group"] != "identical"}
    with_witness = [
        t
        for t in doc["tests"]
        if t["group"] != "identical" and "witness" in t and "none" not in t["witness"]
    ]
    axioms: dict[str, int] = {}
    for t in with_witness:
        axioms[t["witness"]["axiom"]] = axioms.get(t["witness"]["axiom"], 0) + 1
    print(f"  herd7's logs differ on {len(expected)} tests; diff reports {len(got)}")
    print(f"  missing: {sorted(expected - got)[:10]}  extra: {sorted(got - expected)[:10]}")
    print(f"  witnesses: {len(with_witness)} of {len(got)}, rejected by sc's checks {axioms}")
    ok = (
        status == 1
        and got == expected
        and len(with_witness) == len(got)
        and doc["tests_total"] == 475
    )
    print(f"  {'OK' if ok else 'FAIL'} (exit status {status})")
    return ok


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, help="per model run and witness, CPU seconds")
    p.add_argument("--only", choices=("power", "x86"))
    a = p.parse_args()
    if not (POWER_TESTS.is_file() and X86.is_dir() and PPC_CAT.is_file()):
        print(f"no shared campaigns at {SHARED} (set HERDSMAN_SHARED)", file=sys.stderr)
        return 2
    ok = True
    if a.only in (None, "x86"):
        ok = bench_x86(a.jobs, a.timeout) and ok
    if a.only in (None, "power"):
        ok = bench_power(a.jobs, a.timeout) and ok
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
