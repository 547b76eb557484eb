"""``herdsman fences`` on litmus tests: every shared X86 test whose condition herd7 finds
reachable under x86-TSO but not under SC, and a sample of POWER campaign tests herd7
marks ``Ok`` under ppc.cat whose condition herdsman's ``sc`` makes unreachable.

Per test: the placements z3 chose (count and cost), the rounds, CPU time; the fenced
test's text is read back and run again (``recheck``: the condition must now be
unreachable); and, where the brute force is small enough (``--budget`` model runs), that
no cheaper set of candidate placements works (monotonicity: only the maximal cheaper sets
need a run).  Summary per family: tests, fixed, rechecked, minimal (checked / skipped),
placements by kind, time.  Exit status 1 if a test is not fixed, a recheck fails or a
cheaper set works.

Usage: python bench/bench_fences_litmus.py [--ppc N] [--jobs J] [--budget B] [--seed S]
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from herdsman.cat.api import load_model
from herdsman.engine.options import RunOptions
from herdsman.engine.run import run_program
from herdsman.herd_compat.analyses.fences.brute import cheaper_sets, cheaper_works
from herdsman.herd_compat.analyses.fences.oracles import LitmusOracle
from herdsman.herd_compat.analyses.fences.solve import COSTS, Candidate
from herdsman.herd_compat.analyses.fences.synth import synthesise
from herdsman.herd_compat.formats.herdlog import read_herd_log
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


def x86_tests() -> list[Path]:
    out = []
    for d, tso, sc in [
        ("tests", "herd7-tests-x86tso.log", "herd7-tests-sc.log"),
        ("generated", "generated/herd7-x86tso.log", "generated/herd7-sc.log"),
    ]:
        a = {b.name: b for b in read_herd_log(SHARED / "x86" / tso)}
        b = {x.name: x for x in read_herd_log(SHARED / "x86" / sc)}
        for name, blk in a.items():
            if blk.verdict == "Ok" and name in b and b[name].verdict == "No":
                out.append(SHARED / "x86" / d / f"{name}.litmus")
    return out


def ppc_candidates() -> list[Path]:
    """POWER tests herd7 marks Ok under ppc.cat with an ``exists`` condition."""
    blocks = read_herd_log(SHARED / "power" / "herd7-ppc.log")
    return [
        SHARED / "power" / "tests" / f"{b.name}.litmus"
        for b in blocks
        if b.verdict == "Ok" and b.condition.startswith("exists")
    ]


def unreachable_under_sc(path: Path) -> bool:
    """Whether herdsman's sc makes the condition unreachable (False for a test
    herdsman refuses)."""
    try:
        out = run_program(lower(parse_file(path)), load_model("sc"), RunOptions(show="wit"))
    except InputError:
        return False
    return not out.witnesses


def cost(s: frozenset[Candidate]) -> int:
    return sum(COSTS[c.kind] for c in s)


def fence_one(args: tuple[str, str, int]) -> dict:
    path, model_name, budget = args
    t0 = time.process_time()
    test = parse_file(path)
    model = load_model(model_name)
    oracle = LitmusOracle(test, model, model_name, RunOptions())
    res = synthesise(oracle)
    row: dict = {"name": test.name, "safe": res.safe, "why": res.why, "rounds": len(res.rounds)}
    row["kinds"] = collections.Counter(c.kind for c in res.chosen)
    row["n"], row["cost"] = len(res.chosen), cost(res.chosen)
    if res.safe:
        fenced = parse_text(oracle.text, path)
        out = run_program(lower(fenced), model, RunOptions(show="wit"))
        row["recheck"] = not out.witnesses
        row["checked_sets"] = len(cheaper_sets(oracle.candidates(), row["cost"]))
        cheaper = cheaper_works(oracle, row["cost"], budget)
        row["minimal"] = None if cheaper is None else not cheaper
    row["time"] = time.process_time() - t0
    return row


def _pairs(paths: list[Path], model: str, budget: int) -> list[tuple[str, str, int]]:
    return [(str(p), model, budget) for p in paths]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ppc", type=int, default=300, help="POWER tests in the sample")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--budget", type=int, default=3000, help="most brute-force runs per test")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if not SHARED.is_dir():
        print(f"skipped: {SHARED} is absent")
        return 0
    x86 = x86_tests()
    pool = ppc_candidates()
    random.Random(a.seed).shuffle(pool)
    bad = 0
    with ProcessPoolExecutor(a.jobs) as ex:
        ppc: list[Path] = []
        it = iter(pool)
        while len(ppc) < a.ppc:
            chunk = [p for _, p in zip(range(64), it, strict=False)]
            if not chunk:
                break
            ok = ex.map(unreachable_under_sc, chunk)
            ppc += [p for p, keep in zip(chunk, ok, strict=True) if keep]
        ppc = ppc[: a.ppc]
        for family, paths, model in [("X86 (tso)", x86, "tso"), ("PPC (power)", ppc, "power")]:
            t0 = time.perf_counter()
            rows = list(ex.map(fence_one, _pairs(paths, model, a.budget), chunksize=4))
            wall = time.perf_counter() - t0
            fixed = [r for r in rows if r["safe"]]
            rechecked = [r for r in fixed if r["recheck"]]
            minimal = [r for r in fixed if r.get("minimal")]
            unchecked = [r for r in fixed if r.get("minimal") is None]
            cheaper = [r for r in fixed if r.get("minimal") is False]
            kinds: collections.Counter = collections.Counter()
            for r in fixed:
                kinds.update(r["kinds"])
            cpu = sum(r["time"] for r in rows)
            print(f"== {family}: {len(rows)} tests")
            print(f"fixed {len(fixed)}, rechecked {len(rechecked)}")
            print(
                f"minimal by brute force {len(minimal)}, too many sets to try "
                f"{len(unchecked)}, a cheaper set works {len(cheaper)}"
            )
            print(f"placements by kind: {dict(sorted(kinds.items()))}")
            sizes = collections.Counter(r["n"] for r in fixed)
            print(f"placements per test: {dict(sorted(sizes.items()))}")
            print(f"rounds: max {max((r['rounds'] for r in rows), default=0)}")
            print(f"CPU {cpu:.1f}s (wall {wall:.1f}s with {a.jobs} jobs)")
            for r in rows:
                if not r["safe"] or not r.get("recheck") or r.get("minimal") is False:
                    bad += 1
                    print(f"  !! {r['name']}: {r}")
            print()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
