"""TruSt against the reference engine on herd's X86 and POWER tests; checkers compared.

For every test of a set it runs the reference engine and TruSt (which counts any graph it
builds twice), and compares herd's result fields (states, positive and negative counts,
flags).  It prints per set: tests, mismatches, duplicates, complete executions, blocked
explorations (GenMC's sense) and inconsistent revisits (built and rejected; foreseen and
skipped) as a share of the executions, and CPU time and executions per second of the
reference engine and of TruSt with each consistency checker (``--checkers``: also the
from-scratch cat checker, besides the incremental one TruSt uses by default).

Sets: ``x86`` (every test of ../shared/x86, tests/ and generated/, under sc, tso, pso) and
``ppc`` (../shared/power/tests under sc; ``--ppc-step N``: every N-th test, 1 for all
8141, which is campaign-sized).

Usage: python bench/bench_trust.py [--sets x86,ppc] [--ppc-step N] [--x86-step N]
                                   [--checkers] [--quiet]
Exit status 1 on a mismatch, a duplicate, or blocked explorations over 5 % of executions.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@dataclass
class Totals:
    """Sums over one (set, model)."""

    tests: int = 0
    mismatches: list[str] = field(default_factory=list)
    duplicates: int = 0
    complete: int = 0
    blocked: int = 0
    inconsistent: int = 0
    doomed: int = 0
    ref_time: float = 0.0
    times: dict[str, float] = field(default_factory=dict)
    refused: int = 0


def x86_files(step: int = 1) -> list[Path]:
    files = sorted((SHARED / "x86" / "tests").glob("*.litmus"))
    files += sorted((SHARED / "x86" / "generated").glob("*.litmus"))
    return files[::step]


def ppc_files(step: int = 1) -> list[Path]:
    d = SHARED / "power" / "tests"
    names = [x for x in (d / "@all").read_text().split() if x]
    return [d / n for n in names[::step]]


def same(a, b) -> bool:
    return (a.states, a.positive, a.negative, sorted(a.flags)) == (
        b.states,
        b.positive,
        b.negative,
        sorted(b.flags),
    )


def compare(files: list[Path], model_spec: str, checkers: tuple[str, ...]) -> Totals:
    """Run both engines on ``files`` under ``model_spec``; the totals."""
    from herdsman.cat.api import load_model
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.engine.trust.run import explore_program, trust_applies
    from herdsman.litmus.lower import lower
    from herdsman.litmus.parser import parse_file

    model = load_model(model_spec)
    tot = Totals(times={c: 0.0 for c in checkers})
    ref_opts = RunOptions(engine="reference")
    for f in files:
        test = parse_file(f)
        tot.tests += 1
        if not trust_applies(model, lower(test)):
            tot.refused += 1
            continue
        t0 = time.process_time()
        ref = run_program(lower(test), model, ref_opts)
        tot.ref_time += time.process_time() - t0
        for i, ck in enumerate(checkers):
            t0 = time.process_time()
            run = explore_program(
                lower(test), model, RunOptions(checker=ck, track_duplicates=i == 0)
            )
            tot.times[ck] += time.process_time() - t0
            if not same(ref, run.result):
                tot.mismatches.append(f"{test.name} ({ck})")
            if i == 0:
                st = run.stats
                tot.duplicates += int(st.extra["duplicates"])
                tot.complete += st.complete
                tot.blocked += st.blocked
                tot.inconsistent += int(st.extra["revisits_inconsistent"])
                tot.doomed += int(st.extra["revisits_doomed"])
    return tot


def report(label: str, tot: Totals) -> bool:
    """Print one line of totals; whether everything holds."""
    n = max(tot.complete, 1)
    rates = "  ".join(
        f"trust[{c}] {t:.2f} s ({tot.complete / max(t, 1e-9):,.0f} exec/s)"
        for c, t in tot.times.items()
    )
    print(
        f"{label}: {tot.tests} tests ({tot.refused} refused), mismatches "
        f"{len(tot.mismatches)}, duplicates {tot.duplicates}, executions {tot.complete}, "
        f"blocked {tot.blocked} ({100 * tot.blocked / n:.2f} %), inconsistent revisits "
        f"{tot.inconsistent} built ({100 * tot.inconsistent / n:.2f} %) + {tot.doomed} "
        f"foreseen ({100 * tot.doomed / n:.2f} %)"
    )
    print(
        f"    reference {tot.ref_time:.2f} s ({tot.complete / max(tot.ref_time, 1e-9):,.0f}"
        f" exec/s)  {rates}"
    )
    for m in tot.mismatches[:20]:
        print(f"    MISMATCH {m}")
    return not tot.mismatches and not tot.duplicates and tot.blocked <= 0.05 * tot.complete


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="x86,ppc")
    ap.add_argument("--ppc-step", type=int, default=25, help="every N-th POWER test (1: all)")
    ap.add_argument("--x86-step", type=int, default=1, help="every N-th X86 test")
    ap.add_argument("--checkers", action="store_true", help="also time the cat checker")
    args = ap.parse_args(argv)
    if not SHARED.exists():
        print(f"needs {SHARED}", file=sys.stderr)
        return 2
    checkers = ("auto", "cat") if args.checkers else ("auto",)
    ok = True
    grand = Totals(times={c: 0.0 for c in checkers})
    sets = args.sets.split(",")
    runs = []
    if "x86" in sets:
        runs += [(f"x86 {m}", x86_files(args.x86_step), m) for m in ("sc", "tso", "pso")]
    if "ppc" in sets:
        runs.append((f"ppc sc (every {args.ppc_step})", ppc_files(args.ppc_step), "sc"))
    for label, files, spec in runs:
        tot = compare(files, spec, checkers)
        ok &= report(label, tot)
        grand.tests += tot.tests
        grand.refused += tot.refused
        grand.mismatches += tot.mismatches
        for k in ("duplicates", "complete", "blocked", "inconsistent", "doomed", "ref_time"):
            setattr(grand, k, getattr(grand, k) + getattr(tot, k))
        for c in checkers:
            grand.times[c] += tot.times[c]
    if len(runs) > 1:
        ok &= report("ALL", grand)
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
