"""TruSt on the example C programs: executions per second, beside its rate on litmus tests.

Workloads, from ``litmus/examples/programs``:

- ``counter.c``: N threads each add 1 to a counter with an atomic fetch-and-add (N!
  executions), N = 2..``--max-n``, under sc and tso;
- ``counter_racy.c``: the same with a load then a store, GenMC's "Counter" family of
  ``../shared/anchors/README.md`` ((N!)^2 executions under sc), under sc;
- ``bakery.c`` and ``bakery_fenced.c`` with N = 2 and 3 threads, under sc and tso;
- then, for comparison, bench/bench_trust.py's X86 litmus tests (every ``--x86-step``-th
  test of ../shared/x86, tests/ and generated/) under sc and tso, with the same engine.

Per run it prints the complete and blocked executions, the CPU time of the C front-end
and of the exploration, and executions per second; for the counters, the expected count
and, where the anchors measured it on this kind of machine, GenMC's and Nidhugg's time.
``--reference`` also runs the reference engine and compares final states and counts.

Usage: python bench/bench_c_trust.py [--quick] [--max-n N] [--x86-step N] [--reference]
Exit status 1 if a count differs from the expected one or the engines disagree.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from herdsman.cat.api import load_model
from herdsman.engine.run import RunOptions, run_program
from herdsman.litmus.c import load_c_program
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
PROGRAMS = ROOT / "litmus" / "examples" / "programs"

#: The anchors' "Counter" family under SC (../shared/anchors/README.md): N -> (GenMC s,
#: Nidhugg s), checker wall time on the project's 2-core machines.
ANCHOR_COUNTER = {5: (0.16, 0.72), 6: (5.62, 31.7)}


@dataclass
class Row:
    """One run of one program: what the table prints."""

    label: str
    model: str
    complete: int
    blocked: int
    compile_s: float
    explore_s: float
    expected: int | None = None
    note: str = ""

    @property
    def rate(self) -> float:
        return self.complete / max(self.explore_s, 1e-9)

    def line(self) -> str:
        exp = "" if self.expected is None else str(self.expected)
        bad = self.expected is not None and self.expected != self.complete
        return (
            f"{self.label:<22} {self.model:<5} {self.complete:>9} {self.blocked:>7} "
            f"{self.compile_s:>8.3f} {self.explore_s:>9.2f} {self.rate:>10,.0f} "
            f"{exp:>9}{'  WRONG' if bad else ''}  {self.note}"
        ).rstrip()


HEADER = (
    f"{'program':<22} {'model':<5} {'complete':>9} {'blocked':>7} {'front s':>8} "
    f"{'explore s':>9} {'exec/s':>10} {'expected':>9}"
)


def run_c(name: str, model_name: str, defines: dict[str, str], reference: bool) -> tuple[Row, bool]:
    """TruSt (and with ``reference`` the reference engine) on one program; the row and
    whether the engines agree."""
    path = PROGRAMS / f"{name}.c"
    model = load_model(model_name)
    t0 = time.process_time()
    prog = load_c_program(str(path), target=model.identity.target, defines=defines)
    t1 = time.process_time()
    out = run_program(prog, model, RunOptions(engine="trust"))
    t2 = time.process_time()
    label = name + "".join(f" {k}={v}" for k, v in defines.items())
    row = Row(label, model_name, out.stats.complete, out.stats.blocked, t1 - t0, t2 - t1)
    agree = True
    if reference:
        t3 = time.process_time()
        ref = run_program(prog, model, RunOptions(engine="reference"))
        dt = time.process_time() - t3
        agree = (ref.states, ref.stats.complete) == (out.states, out.stats.complete)
        row.note = f"reference {dt:.2f} s" + ("" if agree else "  DISAGREE")
    return row, agree


def x86_files(step: int) -> list[Path]:
    """bench_trust.py's X86 set, every ``step``-th test."""
    files = sorted((SHARED / "x86" / "tests").glob("*.litmus"))
    files += sorted((SHARED / "x86" / "generated").glob("*.litmus"))
    return files[::step]


def run_litmus(files: list[Path], model_name: str) -> Row:
    """TruSt on litmus tests: their executions and CPU time, summed."""
    model = load_model(model_name)
    row = Row(f"x86 litmus ({len(files)})", model_name, 0, 0, 0.0, 0.0)
    for f in files:
        t0 = time.process_time()
        test = parse_file(f)
        t1 = time.process_time()
        out = run_program(lower(test), model, RunOptions(engine="trust"))
        t2 = time.process_time()
        row.complete += out.stats.complete
        row.blocked += out.stats.blocked
        row.compile_s += t1 - t0
        row.explore_s += t2 - t1
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smallest sizes only (smoke run)")
    ap.add_argument("--max-n", type=int, default=5, help="largest counter thread count")
    ap.add_argument("--x86-step", type=int, default=1, help="every N-th X86 litmus test")
    ap.add_argument("--reference", action="store_true", help="also run the reference engine")
    args = ap.parse_args(argv)
    max_n = min(args.max_n, 3) if args.quick else args.max_n
    bakery_ns = (2,) if args.quick else (2, 3)
    step = max(args.x86_step, 25) if args.quick else args.x86_step

    ok = True
    print(HEADER)
    for n in range(2, max_n + 1):
        for name, model_name, expected in (
            ("counter", "sc", math.factorial(n)),
            ("counter", "tso", math.factorial(n)),
            ("counter_racy", "sc", math.factorial(n) ** 2),
        ):
            row, agree = run_c(name, model_name, {"N": str(n)}, args.reference)
            row.expected = expected
            if name == "counter_racy" and n in ANCHOR_COUNTER:
                genmc, nidhugg = ANCHOR_COUNTER[n]
                row.note = f"GenMC {genmc} s, Nidhugg {nidhugg} s  {row.note}".rstrip()
            ok &= agree and row.complete == expected
            print(row.line(), flush=True)
    for n in bakery_ns:
        for name in ("bakery", "bakery_fenced"):
            for model_name in ("sc", "tso"):
                row, agree = run_c(name, model_name, {"N": str(n)}, args.reference)
                ok &= agree
                print(row.line(), flush=True)
    if SHARED.exists():
        files = x86_files(step)
        for model_name in ("sc", "tso"):
            print(run_litmus(files, model_name).line(), flush=True)
    else:
        print(f"(no litmus comparison: needs {SHARED})")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
