"""Preemption-bounded TruSt (Buster) against brute force, on POWER tests with 3+ threads.

For each test (under sc) the reference engine lists every execution (``show="all"``);
the preemptions of each are computed here by brute force, independently of
``engine/preemption.py``: a forward search over the order in which the threads' events
can run (each event after its ``po``, ``rf``, ``co`` and ``fr`` predecessors), where
switching away from a thread that still has events costs one preemption, minimised.
Then TruSt runs with bound k = 0, 1, 2 and must visit every execution with at most k
preemptions, none twice, and count each visited one as the brute force does.

Prints, per bound, the executions within it, those TruSt visited, those it visited beyond
the bound (the slack), the explorations it cut, and the failures.  ``--slack`` picks the
slack rule (``engine/preemption.py``): the default ``spawner``, or GenMC's formula taken
literally (``genmc``) or the two readings of the issue's wording (``issue_all``,
``issue_nonempty``), which miss executions.

Usage: python bench/bench_trust_preemption.py [--step N] [--limit N] [--slack RULE]
Exit status 1 on a failure.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

BOUNDS = (0, 1, 2)


def brute_preemptions(graph) -> int:
    """Fewest preemptions over the interleavings of execution graph ``graph`` (an
    ``ExecutionGraph``: thread events in program order, rf, co), by exhaustive search."""
    g = graph.relations(values=True)
    sk, U = g.sk, g.U
    threads: dict[int, list[int]] = {}
    for i, e in enumerate(sk.events):
        if e.tid >= 0:
            threads.setdefault(e.tid, []).append(i)
    T = max(threads) + 1 if threads else 0
    th = [threads.get(t, []) for t in range(T)]
    hb = g.rf | g.co | g.fr
    preds = {e: U.col(hb, e) & ~sk.IW for t in range(T) for e in th[t]}
    inf = 1 << 30

    @functools.cache
    def best(v: tuple[int, ...], last: int) -> int:
        if all(v[t] == len(th[t]) for t in range(T)):
            return 0
        done = 0
        for t in range(T):
            for e in th[t][: v[t]]:
                done |= 1 << e
        out = inf
        for t in range(T):
            if v[t] == len(th[t]) or preds[th[t][v[t]]] & ~done:
                continue
            cost = 1 if last >= 0 and last != t and v[last] < len(th[last]) else 0
            nv = list(v)
            nv[t] += 1
            out = min(out, cost + best(tuple(nv), t))
        return out

    return best(tuple([0] * T), -1)


def signature(graph) -> tuple:
    """An execution, comparable across engines (same numbering: initial writes, then
    thread by thread)."""
    g = graph.relations(values=True)
    return (tuple((e.kind, e.tid, e.loc, e.value) for e in g.sk.events), g.rf, g.co)


def thread_count(path: Path) -> int:
    """Threads of a litmus file, from its ``P0 | P1 ...`` header line (no full parse)."""
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().rstrip(";").split("|")]
        if cells and cells[0] == "P0":
            return len(cells)
    return 0


def pick_tests(step: int = 1, limit: int = 0) -> list[Path]:
    """POWER tests with 3 or more threads: every ``step``-th, at most ``limit``."""
    d = SHARED / "power" / "tests"
    names = [x for x in (d / "@all").read_text().split() if x]
    out = [d / n for n in names if thread_count(d / n) >= 3][::step]
    return out[:limit] if limit else out


def check_test(test, model, bounds=BOUNDS, slack: str | None = None) -> list[dict]:
    """Per bound: the counts, and ``ok``."""
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.engine.trust.run import explore_program
    from herdsman.litmus.lower import lower

    ref = run_program(lower(test), model, RunOptions(engine="reference", show="all"))
    truth = {signature(s.graph): brute_preemptions(s.graph) for s in ref.witnesses}
    out = []
    for k in bounds:
        run = explore_program(
            lower(test),
            model,
            RunOptions(
                preemption_bound=k,
                preemption_slack=slack or "spawner",
                print_executions=True,
                executions_dot=True,
                track_duplicates=True,
            ),
        )
        got = {signature(x.graph): x.preemptions for x in run.result.executions}
        want = {s for s, c in truth.items() if c <= k}
        within = {s for s, c in got.items() if c <= k}
        counts_ok = all(truth.get(s) == c for s, c in got.items())
        out.append(
            {
                "k": k,
                "want": len(want),
                "visited": len(got),
                "within": len(within),
                "beyond": int(run.stats.extra["beyond_bound"]),
                "cut": int(run.stats.extra["bound_blocked"]),
                "missed": len(want - within),
                "duplicates": int(run.stats.extra["duplicates"]),
                "ok": within == want
                and not run.stats.extra["duplicates"]
                and counts_ok
                and run.stats.extra["beyond_bound"] == len(got) - len(within),
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--step", type=int, default=1, help="every N-th test with 3+ threads")
    ap.add_argument("--limit", type=int, default=0, help="at most N tests (0: all)")
    ap.add_argument("--slack", default=None, help="slack rule (default: the engine's)")
    ap.add_argument("--model", default="sc")
    args = ap.parse_args(argv)
    tests_dir = SHARED / "power" / "tests"
    if not tests_dir.exists():
        print(f"needs {tests_dir}", file=sys.stderr)
        return 2
    from herdsman.cat.api import load_model
    from herdsman.litmus.parser import parse_file

    model = load_model(args.model)
    tests = [parse_file(p) for p in pick_tests(args.step, args.limit)]
    assert all(t.nthreads >= 3 for t in tests)
    sums = {
        k: dict.fromkeys(
            ("want", "visited", "within", "beyond", "cut", "missed", "duplicates", "failed"), 0
        )
        for k in BOUNDS
    }
    for test in tests:
        for row in check_test(test, model, BOUNDS, args.slack):
            s = sums[row["k"]]
            for key in ("want", "visited", "within", "beyond", "cut", "missed", "duplicates"):
                s[key] += row[key]
            if not row["ok"]:
                s["failed"] += 1
                print(f"FAIL {test.name} k={row['k']}: {row}")
    print(f"{len(tests)} tests with 3+ threads, slack rule {args.slack or 'default'}")
    failed = 0
    for k in BOUNDS:
        s = sums[k]
        failed += s["failed"]
        print(
            f"  k={k}: executions within the bound {s['want']}, visited {s['visited']} "
            f"(within {s['within']}, beyond {s['beyond']}), explorations cut "
            f"{s['cut']}, missed {s['missed']}, duplicates {s['duplicates']}, "
            f"failed tests {s['failed']}"
        )
    print("OK" if not failed else "FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
