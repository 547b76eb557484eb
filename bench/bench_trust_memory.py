"""TruSt's memory stays flat while the executions explode: peak RSS per run.

The family: N threads each incrementing a shared counter non-atomically
(``MOV EAX,[x]; INC EAX; MOV [x],EAX``), under sc; its executions number (N!)^2.  Each N
runs in a fresh Python process (``--child N``), which reports the executions TruSt
explored and its peak resident set size (``ru_maxrss``).  The parent prints them, the
growth of executions and the spread of peak RSS between the smallest and the largest run.

Usage: python bench/bench_trust_memory.py [--sizes 3,4,5] [--model sc]
Exit status 1 if the executions grow less than 100x or peak RSS by more than 20 %
(checked only when the sizes allow that growth; ``--no-check`` to just print).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def increments(n: int) -> str:
    """Litmus text of ``n`` threads each incrementing ``x`` once, non-atomically."""
    code = ["MOV EAX,[x]", "INC EAX", "MOV [x],EAX"]
    head = " | ".join(f"P{t:<11}" for t in range(n)) + " ;"
    rows = [" | ".join(f"{line:<12}" for _ in range(n)) + " ;" for line in code]
    return f"X86 INC{n}\n{{ x=0; }}\n{head}\n" + "\n".join(rows) + f"\nexists (x={n})\n"


def child(n: int, spec: str) -> int:
    """Run one size and print ``n executions peak_kb seconds``."""
    from herdsman.cat.api import load_model
    from herdsman.engine.options import RunOptions
    from herdsman.engine.trust.run import explore_program
    from herdsman.litmus.lower import lower
    from herdsman.litmus.parser import parse_text

    model = load_model(spec)
    test = parse_text(increments(n), f"INC{n}.litmus")
    t0 = time.process_time()
    run = explore_program(lower(test), model, RunOptions(engine="trust"))
    dt = time.process_time() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{n} {run.stats.complete} {peak} {dt:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="3,4,5")
    ap.add_argument("--model", default="sc")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--no-check", action="store_true")
    args = ap.parse_args(argv)
    if args.child is not None:
        return child(args.child, args.model)
    rows = []
    print(f"{'threads':>7} {'executions':>12} {'peak RSS (MB)':>14} {'CPU s':>8}")
    for n in (int(x) for x in args.sizes.split(",")):
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(n), "--model", args.model],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        _, execs, peak, secs = int(out[0]), int(out[1]), int(out[2]), float(out[3])
        rows.append((execs, peak))
        print(f"{n:>7} {execs:>12} {peak / 1024:>14.1f} {secs:>8.2f}", flush=True)
    growth = rows[-1][0] / max(rows[0][0], 1)
    peaks = [p for _, p in rows]
    spread = max(peaks) / max(min(peaks), 1)
    print(
        f"executions grew {growth:,.0f}x; peak RSS max/min {spread:.3f} "
        f"(+{100 * (spread - 1):.1f} %)"
    )
    if args.no_check or growth < 100:
        return 0
    ok = spread <= 1.2
    print("OK" if ok else "FAILED: peak RSS grew more than 20 %")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
