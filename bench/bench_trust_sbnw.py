"""The X86 family SB+NW+mfences under sc and tso: TruSt against the reference engine.

SB+mfences where each thread, between its store and its fence, also writes N times to a
third location ``z`` (distinct values), then loads: the executions grow with the
interleavings of the two threads' writes to ``z``.  For N = 0..10 (``--max``), under
``sc`` and ``tso``, prints each engine's executions (allowed, positive + negative) and CPU
time, and whether they agree.  The tests are generated as litmus text (:func:`sbnw`).

Usage: python bench/bench_trust_sbnw.py [--min N] [--max N] [--models sc,tso]
                                        [--engines trust,reference]
Exit status 1 if the engines disagree.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sbnw(n: int) -> str:
    """Litmus text of SB+NW+mfences with ``n`` writes to z per thread."""
    rows = [("MOV [x],$1", "MOV [y],$1")]
    rows += [(f"MOV [z],${i + 1}", f"MOV [z],${n + i + 1}") for i in range(n)]
    rows += [("MFENCE", "MFENCE"), ("MOV EAX,[y]", "MOV EAX,[x]")]
    body = "\n".join(f" {a:<12} | {b:<12} ;" for a, b in rows)
    return (
        f"X86 SB+{n}W+mfences\n{{ }}\n {'P0':<12} | {'P1':<12} ;\n{body}\n"
        "exists (0:EAX=0 /\\ 1:EAX=0)\n"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--min", type=int, default=0)
    ap.add_argument("--max", type=int, default=10)
    ap.add_argument("--models", default="sc,tso")
    ap.add_argument("--engines", default="trust,reference")
    args = ap.parse_args(argv)

    from herdsman.cat.api import load_model
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.litmus.lower import lower
    from herdsman.litmus.parser import parse_text

    engines = args.engines.split(",")
    ok = True
    print(
        f"{'model':<5} {'N':>3} "
        + " ".join(f"{e + ' execs':>16} {e + ' s':>12}" for e in engines)
        + "  ratio"
    )
    for spec in args.models.split(","):
        model = load_model(spec)
        for n in range(args.min, args.max + 1):
            test = parse_text(sbnw(n), f"SB+{n}W+mfences.litmus")
            cells, counts, times = [], [], []
            for eng in engines:
                t0 = time.process_time()
                r = run_program(lower(test), model, RunOptions(engine=eng))
                dt = time.process_time() - t0
                counts.append((r.positive, r.negative, frozenset(r.states)))
                times.append(dt)
                cells.append(f"{r.positive + r.negative:>16} {dt:>12.2f}")
            agree = len(set(counts)) == 1
            ok &= agree
            ratio = f"{times[1] / max(times[0], 1e-9):6.2f}" if len(times) > 1 else ""
            print(
                f"{spec:<5} {n:>3} "
                + " ".join(cells)
                + f"  {ratio}"
                + ("" if agree else "  DISAGREE"),
                flush=True,
            )
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
