"""How fast is one evaluation of a cat model on a typical POWER candidate?

Builds a 20-event POWER skeleton (4 threads, fences, address/data/control dependencies,
4 locations), enumerates its candidate executions (every rf from a same-location write,
every coherence order), and times on them, for the built-in ``power`` and for herd's own
``ppc.cat`` (from ../shared/herd-cat, when present):

* ``prepare``: compiling the skeleton-only part (once per skeleton), µs;
* ``check``: one ``session.check(rf, co)`` per candidate, each candidate once, in
  enumeration order (memo tables filled as in a real run), µs per candidate;
* ``check (warm)``: the same candidate again (all memo tables hit), µs;
* ``partial``: ``session.partial_violation(rf, co)`` per candidate, µs.

    python bench/bench_cat.py            # full run
    python bench/bench_cat.py --quick    # a few candidates (tests)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from herdsman.cat.api import load_model
from herdsman.cat.shapes import candidates
from herdsman.graphs.build import B, F, R, W, build

ROOT = Path(__file__).resolve().parent.parent

SHARED = ROOT.parent / "shared"


def skeleton():
    """A 20-event POWER candidate: 4 init writes and 16 thread events."""
    b = build(
        [
            [W("x", 1), F("LWSYNC"), W("y", 1), R("w", 0, name="a")],
            [R("y", 1, name="c"), R("z", 0, name="d"), F("SYNC"), W("w", 1, name="e")],
            [W("z", 1), F("LWSYNC"), W("x", 2, name="x2")],
            [R("x", 2, name="g"), B(name="br"), F("ISYNC"), R("y", 0, name="h"), W("z", 2)],
        ],
        deps={"addr": [("c", "d")], "data": [], "ctrl": [("g", "br"), ("g", "h"), ("g", "3:4")]},
    )
    return b


def bench_model(spec: str, b, cands, quick: bool) -> dict[str, float]:
    model = load_model(spec)
    sk = b.sk
    t0 = time.perf_counter()
    reps = 3 if quick else 30
    for _ in range(reps):
        model.prepare(sk, "PPC")
    t_prep = (time.perf_counter() - t0) / reps
    session = model.prepare(sk, "PPC")
    t0 = time.perf_counter()
    allowed = 0
    for rf, co in cands:
        vs = session.check(rf, co=co)
        allowed += sum(v.allowed for v in vs)
    t_check = (time.perf_counter() - t0) / len(cands)
    rf, co = b.rel.rf, b.rel.co
    reps = 20 if quick else 2000
    session.check(rf, co=co)
    t0 = time.perf_counter()
    for _ in range(reps):
        session.check(rf, co=co)
    t_warm = (time.perf_counter() - t0) / reps
    session2 = model.prepare(sk, "PPC")
    t0 = time.perf_counter()
    for rf, co in cands:
        session2.partial_violation(rf, co)
    t_partial = (time.perf_counter() - t0) / len(cands)
    return {
        "prepare": t_prep * 1e6,
        "check": t_check * 1e6,
        "check (warm)": t_warm * 1e6,
        "partial": t_partial * 1e6,
        "allowed": allowed,
        "candidates": len(cands),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few candidates only")
    args = ap.parse_args(argv)
    b = skeleton()
    cands = candidates(b)
    if args.quick:
        cands = cands[:: max(1, len(cands) // 24)]
    print(f"skeleton: {b.sk.n} events; {len(cands)} candidates")
    specs = [("power", "power")]
    herd = SHARED / "herd-cat" / "ppc.cat"
    if herd.is_file():
        specs.append(("herd ppc.cat", str(herd)))
    results = {}
    for label, spec in specs:
        results[label] = r = bench_model(spec, b, cands, args.quick)
        print(
            f"{label:14s} prepare {r['prepare']:8.1f} µs   check {r['check']:7.1f} µs/cand"
            f"   check(warm) {r['check (warm)']:6.1f} µs   partial {r['partial']:7.1f} µs"
            f"   ({r['allowed']}/{r['candidates']} allowed)"
        )
    if len(results) == 2:
        a, h = results["power"], results["herd ppc.cat"]
        if a["allowed"] != h["allowed"]:
            print("DIFFERENT ANSWERS between power and herd's ppc.cat")
            return 1
        print(f"ratio power/ppc.cat check: {a['check'] / h['check']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
