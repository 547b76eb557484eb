"""The operational engine (store buffers as shadow threads) on the papers it implements.

Four sections, each beside the paper's figures:

1. Zhang, Kusano and Wang (PLDI 2015), Fig. 1 (store buffering, an X86 litmus test) and
   Fig. 2 (message passing with a conditional read, a C litmus test), both with just the
   paper's two threads: per model (sc, tso, pso) the runs of a naive exploration
   (``naive_runs``), the runs DPOR with sleep sets explores, the distinct executions, and
   whether the relaxed outcome / ERROR is reachable; then whether the C programs
   ``zkw15_fig1.c``/``zkw15_fig2.c`` (with a main thread) fail their assertion.
2. Buffer bounding (§5): the paper's Fig. 6 program (``P0: x=1 | P1: N stores to y, then
   r=x``) generated for N = 1..6 under tso, naive runs and DPOR runs per bound k = 0..4
   and unbounded, next to the naive runs of the paper's reading (k+1 of the N+1 places
   of the read among the flushes of its thread's stores, times the N+2 places of a1);
   then a family like Fig. 9: N stores then a read per thread (SB with N stores), DPOR
   runs and executions per bound.
3. Table 2: for each example C program (``litmus/examples/programs``) under tso and pso,
   whether an assertion failure is found with buffer bound k = 0..4 and unbounded
   (stopping at the first one), with CPU time, the smallest such k, and per k the share of
   the TSO/PSO-only bugs found.
4. Yang, Chen, Gopalakrishnan and Kirby (SPIN 2008), Fig. 1 (``sdpor_fig1.c`` with
   -D N=10..40 and the paper's 64): stateful DPOR (abstract states stored, runs, runs cut
   at visited states, transitions, time, peak RSS) against stateless DPOR under a CPU
   time limit (``--limit``, unroll ceil(N/5)+1), and whether both reach the same final
   states (and errors) where both finish.  Each configuration runs in a fresh
   subprocess (this script's hidden ``--one`` mode) so its peak RSS is its own; ``base``
   is the RSS of that process before exploring.  Then, on every example C program and
   model, whether stateful DPOR reaches every final state and assertion failure that
   stateless DPOR reaches (CPU limit ``--check-limit`` per run).

Times are CPU seconds.  Nothing is asserted on times.

Usage: python bench/bench_operational.py [--quick] [--limit S] [--table-limit S]
                                         [--check-limit S] [--sdpor-models sc,tso]
``--quick`` runs the smallest sizes (under 30 s).  Exit status 1 if a program's verdict
disagrees with its header, or stateful DPOR misses what stateless DPOR reaches.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

from herdsman.cat.api import load_model
from herdsman.engine.operational.run import OperationalRun, explore_operational
from herdsman.engine.run import RunOptions
from herdsman.litmus.base.ir import Program
from herdsman.litmus.c import load_c_program, lower_c_litmus, parse_c_litmus
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "litmus" / "examples" / "programs"
MODELS = ("sc", "tso", "pso")
BOUNDS = (0, 1, 2, 3, 4, None)

#: Fig. 1 of the paper is store buffering, herdsman's example SB
FIG1 = ROOT / "litmus" / "examples" / "x86" / "SB.litmus"

FIG2 = r"""C ZKW15-Fig2
"Zhang-Kusano-Wang PLDI'15 Fig. 2: x=1; y=1 | if (y == 1) if (x == 0) ERROR"
{ x = 0; y = 0; }

P0(int *x, int *y)
{
	WRITE_ONCE(*x, 1);
	WRITE_ONCE(*y, 1);
}

P1(int *x, int *y)
{
	int r0;
	int r1;

	r0 = READ_ONCE(*y);
	if (r0 == 1)
		r1 = READ_ONCE(*x);
}

exists (1:r0=1 /\ 1:r1=0)
"""

#: The paper's figures per model: (naive runs, DPOR runs, relaxed outcome reachable);
#: None where the paper gives none.
PAPER_FIG1 = {"sc": (6, 3, False), "tso": (24, 4, True), "pso": (None, None, None)}
PAPER_FIG2 = {"sc": (3, None, False), "tso": (3, None, False), "pso": (7, 3, True)}
#: Table 2 of the paper: the share of bugs DPOR_TSO finds per buffer bound (k=4: none).
PAPER_TABLE2 = {0: "0.0", 1: "0.3", 2: "0.92", 3: "0.97", 4: "", None: "1.0"}


@functools.cache
def model_of(name: str):
    return load_model(name)


def explore(program: Program, model: str, **opts) -> OperationalRun:
    """The operational engine on ``program`` under ``model`` (partial on a time limit)."""
    return explore_operational(
        program, model_of(model), RunOptions(engine="operational", **opts), partial=True
    )


def kname(k: int | None) -> str:
    return "inf" if k is None else str(k)


def c_program(name: str, model: str, defines: dict[str, str] | None = None) -> Program:
    return load_c_program(str(PROGRAMS / name), model_of(model).identity.target, defines)


def header(path: Path) -> tuple[dict[str, str], int | None]:
    """A program's ``herdsman: expect`` verdicts per model and its ``unroll``."""
    text = path.read_text(encoding="utf-8")
    head = text[: text.index("*/")]
    expect = dict(re.findall(r"\b(sc|tso|pso|power)=(safe|unsafe)", head))
    m = re.search(r"herdsman: unroll (\d+)", head)
    return expect, int(m.group(1)) if m else None


# ---------------------------------------------------------------- 1. Fig. 1 and Fig. 2
def section_figures() -> bool:
    print("== 1. Zhang-Kusano-Wang PLDI'15, Fig. 1 and Fig. 2 (two threads, no main)")
    print("   naive: runs of a naive exploration; dpor: runs DPOR explores; (paper's)")
    print(
        f"{'fig':<5} {'model':<5} {'naive':>6} {'paper':>6} {'dpor':>5} {'paper':>6} "
        f"{'execs':>6} {'reachable':>10} {'paper':>6}   C program (main + 2 threads)"
    )
    fig2 = parse_c_litmus(FIG2, "ZKW15-Fig2.litmus")
    progs = {
        "Fig1": (lambda m: lower(parse_file(FIG1)), PAPER_FIG1),
        "Fig2": (lambda m: lower_c_litmus(fig2, model_of(m).identity.target), PAPER_FIG2),
    }
    ok = True
    for fig, (build, paper) in progs.items():
        cfile = f"zkw15_{fig.lower()}.c"
        expect, _ = header(PROGRAMS / cfile)
        for m in MODELS:
            x = explore(build(m), m).result
            st = x.stats.extra
            pn, pd, pr = paper[m]
            c = explore(c_program(cfile, m), m).result
            failed = bool(c.errors)
            ok &= failed == (expect.get(m) == "unsafe")
            print(
                f"{fig:<5} {m:<5} {st.get('naive_runs', '?'):>6} {_opt(pn):>6} "
                f"{st['runs']:>5} {_opt(pd):>6} {st['executions']:>6} "
                f"{_yn(x.condition_holds):>10} {_yn(pr):>6}   {cfile}: "
                f"{'ERROR' if failed else 'no error'} in {c.stats.extra['runs']} runs "
                f"(expect {expect.get(m, '?')})"
            )
    print()
    return ok


def _opt(v: object) -> str:
    return "-" if v is None else str(v)


def _yn(v: bool | None) -> str:
    return "-" if v is None else "yes" if v else "no"


# ---------------------------------------------------------------- 2. buffer bounding
def fig6(n: int) -> str:
    """The paper's Fig. 6 program with ``n`` stores before the read: P0 writes x, P1
    writes y ``n`` times, then reads x."""
    rows = [("MOV [x],$1", "MOV [y],$1")]
    rows += [("", f"MOV [y],${i + 1}") for i in range(1, n)]
    rows += [("", "MOV EAX,[x]")]
    return _x86(f"ZKW15-Fig6-{n}", rows, "exists (1:EAX=0)")


def sb_n(n: int) -> str:
    """N stores then a read per thread: SB where each thread writes its location ``n``
    times."""
    rows = [(f"MOV [x],${i + 1}", f"MOV [y],${i + 1}") for i in range(n)]
    rows += [("MOV EAX,[y]", "MOV EAX,[x]")]
    return _x86(f"SB-{n}", rows, "exists (0:EAX=0 /\\ 1:EAX=0)")


def _x86(name: str, rows: list[tuple[str, str]], cond: str) -> str:
    body = "\n".join(f" {a:<12} | {b:<12} ;" for a, b in rows)
    return f"X86 {name}\n{{ }}\n {'P0':<12} | {'P1':<12} ;\n{body}\n{cond}\n"


def section_bounding(ns: range) -> None:
    print("== 2. Buffer bounding (ZKW15 §5), tso")
    print("   Fig. 6: P0: x=1 | P1: N stores to y, then r=x.  naive: runs of a naive")
    print("   exploration of the engine's machine; paper: (min(k,N)+1)*(N+2), the runs of")
    print("   the paper's reading (k+1 of the N+1 places of the read); dpor: runs explored")
    cols = " ".join(f"{'k=' + kname(k):>9}" for k in BOUNDS)
    print(f"{'N':>3} {'':<6} {cols}")
    for n in ns:
        prog = lower(parse_text(fig6(n), f"Fig6-{n}.litmus"))
        runs = [explore(prog, "tso", buffer_bound=k).result.stats.extra for k in BOUNDS]
        paper = [(min(n + 1, (n if k is None else k) + 1)) * (n + 2) for k in BOUNDS]
        print(f"{n:>3} {'naive':<6} " + " ".join(f"{x.get('naive_runs', '?'):>9}" for x in runs))
        print(f"{'':>3} {'paper':<6} " + " ".join(f"{p:>9}" for p in paper))
        print(f"{'':>3} {'dpor':<6} " + " ".join(f"{x['runs']:>9}" for x in runs))
    print()
    print("   Like Fig. 9: N stores then a read per thread (SB-N); dpor runs / executions")
    print(f"{'N':>3} {'':<6} {cols}  {'s':>6}")
    for n in ns:
        prog = lower(parse_text(sb_n(n), f"SB-{n}.litmus"))
        t0 = time.process_time()
        cells = []
        for k in BOUNDS:
            st = explore(prog, "tso", buffer_bound=k, naive_budget=0).result.stats.extra
            cells.append(f"{st['runs']}/{st['executions']}")
        dt = time.process_time() - t0
        print(f"{n:>3} {'dpor':<6} " + " ".join(f"{c:>9}" for c in cells) + f"  {dt:>6.2f}")
    print()


# ---------------------------------------------------------------- 3. Table 2
def section_table2(limit: float, skip: set[str]) -> bool:
    print("== 3. Table 2: assertion failures found per buffer bound k (E: found, -: none,")
    print(f"   T: none within {limit:g} s), CPU s to the first failure or the end")
    cols = " ".join(f"{'k=' + kname(k):>9}" for k in BOUNDS)
    print(f"{'program':<22} {'model':<5} {'expect':<7} {cols}  first")
    ok = True
    found: dict[str, list[set[int | None]]] = {"tso": [], "pso": []}
    for path in sorted(PROGRAMS.glob("*.c")):
        expect, unroll = header(path)
        if path.stem in skip:
            continue
        for m in ("tso", "pso"):
            if m not in expect:
                continue
            prog = c_program(path.name, m)
            cells, hits = [], set()
            for k in BOUNDS:
                t0 = time.process_time()
                r = explore(
                    prog,
                    m,
                    buffer_bound=k,
                    unroll=unroll or RunOptions().unroll,
                    stop_on_error=True,
                    naive_budget=0,
                    time_limit=limit,
                )
                dt = time.process_time() - t0
                tag = "E" if r.result.errors else "T" if r.timed_out else "-"
                if r.result.errors:
                    hits.add(k)
                cells.append(f"{tag} {dt:.2f}")
            first = next((kname(k) for k in BOUNDS if k in hits), "-")
            bad = (None in hits) != (expect[m] == "unsafe")
            ok &= not bad
            if expect.get("sc") == "safe" and expect[m] == "unsafe":
                found[m].append(hits)
            print(
                f"{path.stem:<22} {m:<5} {expect[m]:<7} "
                + " ".join(f"{c:>9}" for c in cells)
                + f"  {first:>5}{'  MISMATCH' if bad else ''}",
                flush=True,
            )
    print("   share of the TSO/PSO-only bugs (sc=safe, model=unsafe) found per k:")
    for m, bugs in found.items():
        shares = [sum(k in h for h in bugs) / max(len(bugs), 1) for k in BOUNDS]
        line = " ".join(f"{s:>9.2f}" for s in shares)
        print(f"{'  ' + str(len(bugs)) + ' bugs':<22} {m:<5} {'':<7} {line}")
    paper = " ".join(f"{PAPER_TABLE2[k]:>9}" for k in BOUNDS)
    print(f"{'  paper (SV-COMP etc.)':<22} {'tso':<5} {'':<7} {paper}")
    print()
    return ok


# ---------------------------------------------------------------- 4. stateful DPOR
def sdpor_one(spec: str) -> dict:
    """One configuration of section 4 (run in a fresh process): ``MODEL:N:MODE:LIMIT``."""
    model, n, mode, limit = spec.split(":")
    prog = c_program("sdpor_fig1.c", model, {"N": n})
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.process_time()
    r = explore(
        prog,
        model,
        stateful=mode == "stateful",
        unroll=math.ceil(int(n) / 5) + 1,
        naive_budget=0,
        time_limit=float(limit),
    )
    st = r.result.stats.extra
    return {
        "time": time.process_time() - t0,
        "base_kb": base,
        "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "timed_out": r.timed_out,
        "states_final": sorted(repr(s) for s in r.result.states),
        "errors": bool(r.result.errors),
        **{k: st.get(k, 0) for k in ("runs", "states", "visited_cut", "transitions")},
    }


def run_one(spec: str) -> dict:
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--one", spec],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def section_sdpor(models: list[str], ns: list[int], limit: float) -> bool:
    print("== 4. Yang et al. SPIN'08, Fig. 1 (sdpor_fig1.c -D N): stateful against stateless")
    print(f"   DPOR (stateless: unroll ceil(N/5)+1, CPU limit {limit:g} s); RSS in MB, peak")
    print("   (base: before exploring), each in a fresh process")
    print(
        f"{'model':<5} {'N':>3} | {'states':>6} {'runs':>5} {'cut':>5} {'trans':>6} "
        f"{'s':>6} {'RSS':>11} | {'runs':>8} {'trans':>8} {'s':>6} {'RSS':>11} {'done':>4}"
        f" | same"
    )
    ok = True
    for m in models:
        for n in ns:
            a = run_one(f"{m}:{n}:stateful:{limit}")
            b = run_one(f"{m}:{n}:stateless:{limit}")
            finals = (a["states_final"], a["errors"]), (b["states_final"], b["errors"])
            if a["timed_out"] or b["timed_out"]:
                # what the unfinished one reached so far is within what the other reached
                small, big = (b, a) if b["timed_out"] else (a, b)
                sub = set(small["states_final"]) <= set(big["states_final"])
                same = "partial" if a["timed_out"] and b["timed_out"] else f"subset {_yn(sub)}"
            else:
                same = _yn(finals[0] == finals[1])
                ok &= finals[0] == finals[1]
            print(
                f"{m:<5} {n:>3} | {a['states']:>6} {a['runs']:>5} {a['visited_cut']:>5} "
                f"{a['transitions']:>6} {a['time']:>6.2f} {_rss(a):>11} | {b['runs']:>8} "
                f"{b['transitions']:>8} {b['time']:>6.2f} {_rss(b):>11} "
                f"{'no' if b['timed_out'] else 'yes':>4} | {same}",
                flush=True,
            )
    print("   paper (Table 1, example1, N=64): SDPOR 35 runs, 2,084 transitions, 12 revisited,")
    print("   1.41 s; DPOR did not finish in 24 h")
    return ok


def section_stateful_check(limit: float, skip: set[str]) -> bool:
    """Stateful against stateless DPOR on every example program and model: whatever
    stateless DPOR reaches (final states, an assertion failure), stateful DPOR must too."""
    print(f"   stateful against stateless DPOR on the example C programs (CPU limit {limit:g} s):")
    agree = total = 0
    for path in sorted(PROGRAMS.glob("*.c")):
        expect, unroll = header(path)
        if path.stem in skip:
            continue
        for m in MODELS:
            prog = c_program(path.name, m)
            a, b = (
                explore(
                    prog,
                    m,
                    stateful=sf,
                    unroll=unroll or RunOptions().unroll,
                    naive_budget=0,
                    time_limit=limit,
                )
                for sf in (True, False)
            )
            if a.timed_out or b.timed_out:
                which = "stateful" if a.timed_out else "stateless"
                print(f"   {path.stem:<20} {m:<4} {which} DPOR ran out of time")
                continue
            total += 1
            missing = set(b.result.states) - set(a.result.states)
            if missing or (bool(b.result.errors) and not a.result.errors):
                print(
                    f"   {path.stem:<20} {m:<4} DIFFER: stateful misses final states "
                    f"{sorted(missing)}, errors {bool(a.result.errors)} (stateless "
                    f"{bool(b.result.errors)})"
                )
            else:
                agree += 1
    print(f"   {agree} of {total} (program, model) pairs agree")
    print()
    return agree == total


def _rss(r: dict) -> str:
    return f"{r['peak_kb'] / 1024:.1f} ({r['base_kb'] / 1024:.1f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smallest sizes only (< 30 s)")
    ap.add_argument("--limit", type=float, default=60.0, help="stateless CPU s (section 4)")
    ap.add_argument("--table-limit", type=float, default=60.0, help="CPU s per run (section 3)")
    ap.add_argument("--check-limit", type=float, default=10.0, help="CPU s per run (4, check)")
    ap.add_argument("--sdpor-models", default="sc,tso", help="models of section 4")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(sdpor_one(args.one)))
        return 0
    t0 = time.perf_counter()
    ns = range(1, 4) if args.quick else range(1, 7)
    # --quick leaves out the programs whose bounded runs take seconds
    skip = {"dijkstra", "szymanski", "bakery", "dijkstra_fenced"} if args.quick else set()
    sdpor_ns = [10, 20] if args.quick else [10, 20, 30, 40, 64]
    limit = min(args.limit, 2.0) if args.quick else args.limit
    models = ["sc"] if args.quick else args.sdpor_models.split(",")
    ok = section_figures()
    section_bounding(ns)
    ok &= section_table2(args.table_limit, skip)
    ok &= section_sdpor(models, sdpor_ns, limit)
    ok &= section_stateful_check(args.check_limit, skip)
    print(f"wall time {time.perf_counter() - t0:.1f} s")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
