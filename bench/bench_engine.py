"""Benchmark of the reference engine on herd's POWER campaign, against herd's own times.

Runs a fixed sample of ``../shared/power/tests`` (herd's 15 slowest tests plus a
deterministic spread of the others; ``--all`` for the 8141 tests) in one process, checks
every result against ``herd7-ppc.log`` (states, positive/negative counts) and prints, per
test, our CPU time beside herd's and the ratio, then totals.  ``--profile`` adds where the
time goes: parsing, thread execution, ``model.prepare``, ``partial_violation`` and
``check`` calls (timed through a proxy session), and the explorer itself (the rest), then
the functions where the run spent most time (``--breakdown`` gives the first part only).

Usage: python bench/bench_engine.py [--model SPEC] [--all | --tiny | --names A,B]
                                    [--spread N] [--prune step|location|never]
                                    [--profile | --breakdown] [--quiet]

``SPEC`` is what ``cat.api.load_model`` accepts (a built-in name such as ``power`` or a
.cat path, default ``../shared/herd-cat/ppc.cat``), or ``oracle-power``: the Python
oracle of the Power model used by the engine tests (no cat evaluator needed).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

TINY = ["MP", "SB+syncs", "LB+datas", "PPOCA"]


class TimedSession:
    """Forwards to a model session, adding up the time of each kind of call."""

    def __init__(self, inner, clock: dict[str, float]) -> None:
        self.inner = inner
        self.clock = clock

    def _timed(self, name: str, *a, **kw):
        t0 = time.process_time()
        try:
            return getattr(self.inner, name)(*a, **kw)
        finally:
            self.clock[name] += time.process_time() - t0

    def check(self, *a, **kw):
        return self._timed("check", *a, **kw)

    def partial_violation(self, *a, **kw):
        return self._timed("partial_violation", *a, **kw)


class TimedModel:
    """Forwards to a model (``cat.api.PreparedModel``), timing its ``prepare`` calls."""

    def __init__(self, inner, clock: dict[str, float]) -> None:
        self.inner = inner
        self.clock = clock
        self.spec = inner.spec
        self.identity = inner.identity
        self.axioms = inner.axioms
        self.co_mode = inner.co_mode

    def consistency_checker(self, arch, lay, kind="auto"):
        return self.inner.consistency_checker(arch, lay, kind)

    def prepare(self, sk, arch):
        t0 = time.process_time()
        s = self.inner.prepare(sk, arch)
        self.clock["prepare"] += time.process_time() - t0
        return TimedSession(s, self.clock)


def load(spec: str):
    if spec == "oracle-power":
        sys.path.insert(0, str(ROOT / "tests"))
        from support.engine import PowerOracleModel

        return PowerOracleModel()
    from herdsman.cat.api import load_model  # the cat package's checker API

    return load_model(spec)


def header_name(path: Path) -> str:
    """The test name of a litmus file (second word of its first line, as herd cleans it)."""
    with open(path) as fh:
        words = fh.readline().split()
    name = words[1] if len(words) > 1 else path.stem
    return name[: -len(".litmus")] if name.endswith(".litmus") else name


def herd_times(log: Path) -> dict[str, object]:
    from herdsman.herd_compat.formats.herdlog import read_herd_log

    return {r.name: r for r in read_herd_log(log)}


def pick(files: list[str], recs: dict, names_of: dict[str, str], args) -> list[str]:
    if args.names:
        wanted = set(args.names.split(","))
        return [f for f in files if names_of[f] in wanted]
    if args.tiny:
        return [f for f in files if names_of[f] in TINY]
    if args.all:
        return files
    by_time = sorted(files, key=lambda f: -(recs[names_of[f]].time or 0))
    chosen = by_time[:15]
    chosen += [f for f in files[:: args.spread] if f not in chosen]
    return chosen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=str(SHARED / "herd-cat" / "ppc.cat"))
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--names", default="")
    ap.add_argument("--spread", type=int, default=40, help="also every N-th test")
    ap.add_argument("--prune", default="step")
    ap.add_argument("--profile", action="store_true", help="cProfile, and --breakdown")
    ap.add_argument(
        "--breakdown", action="store_true", help="time prepare/partial_violation/check calls"
    )
    ap.add_argument("--quiet", action="store_true", help="totals only")
    args = ap.parse_args(argv)

    from herdsman.engine.run import RunOptions, run_program
    from herdsman.herd_compat.formats.herdlog import parse_state_line
    from herdsman.litmus.lower import lower
    from herdsman.litmus.parser import parse_file

    tests_dir = SHARED / "power" / "tests"
    if not tests_dir.exists():
        print(f"needs {tests_dir}", file=sys.stderr)
        return 2
    recs = herd_times(SHARED / "power" / "herd7-ppc.log")
    files = [x.strip() for x in (tests_dir / "@all").read_text().split() if x.strip()]
    clock = {"parse": 0.0, "run": 0.0, "prepare": 0.0, "partial_violation": 0.0, "check": 0.0}
    names_of = {f: header_name(tests_dir / f) for f in files}
    chosen = pick(files, recs, names_of, args)
    parsed = {}
    t0 = time.process_time()
    for f in chosen:
        parsed[f] = parse_file(tests_dir / f)
    clock["parse"] = time.process_time() - t0

    timed = args.profile or args.breakdown
    model = TimedModel(load(args.model), clock) if timed else load(args.model)
    opts = RunOptions(prune=args.prune)
    prof = cProfile.Profile() if args.profile else None
    ours_total = herd_total = 0.0
    bad = slower = over1 = 0
    width = max((len(names_of[f]) for f in chosen), default=10)
    if not args.quiet:
        print(f"{'test':<{width}} {'ours':>8} {'herd':>8} {'ratio':>7}  result")
    for f in chosen:
        test = parsed[f]
        rec = recs[test.name]
        if prof:
            prof.enable()
        t = time.process_time()
        r = run_program(lower(test), model, opts)
        ours = time.process_time() - t
        if prof:
            prof.disable()
        clock["run"] += ours
        herd = rec.time or 0.0
        ours_total += ours
        herd_total += herd
        want = {frozenset(parse_state_line(x)) for x in rec.states}
        got = {frozenset(zip(r.observed, s, strict=True)) for s in r.states}
        ok = got == want and (r.positive, r.negative) == (rec.obs_positive, rec.obs_negative)
        bad += not ok
        if herd > 1.0:
            over1 += 1
            slower += ours > herd
        if not args.quiet or not ok:
            ratio = f"{ours / herd:7.3f}" if herd >= 0.01 else "    n/a"
            verdict = "ok" if ok else "MISMATCH"
            print(f"{test.name:<{width}} {ours:8.3f} {herd:8.2f} {ratio}  {verdict}")
    print(
        f"TOTAL {len(chosen)} tests: ours {ours_total:.2f} s, herd {herd_total:.2f} s, "
        f"ratio {ours_total / max(herd_total, 1e-9):.3f}; mismatches {bad}; "
        f"slower than herd on {slower}/{over1} tests over 1 s"
    )
    print(f"parsing the {len(parsed)} tests: {clock['parse']:.2f} s (not in the totals)")
    if timed:
        model_t = clock["prepare"] + clock["partial_violation"] + clock["check"]
        engine_t = clock["run"] - model_t
        print(
            f"time: prepare {clock['prepare']:.2f} s, partial_violation "
            f"{clock['partial_violation']:.2f} s, check {clock['check']:.2f} s, "
            f"engine (threads, skeletons, search) {engine_t:.2f} s"
        )
    if prof is not None:
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
