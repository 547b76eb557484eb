"""TSO_k to a fixpoint and fence synthesis on the benchmarks of Narayan, Sharma and
Arun-Kumar (ATVA 2016), Fig. 8, written as C programs in ``litmus/examples/tso``.

Per program, each step in a fresh subprocess (so CPU time and peak RSS are its own):

1. ``verify PROGRAM --model tso --max-bound K``: the unfenced program's verdict, the bound
   where the assertion fails (or the fixpoint), states, time, peak memory;
2. ``fences PROGRAM --model tso``: the placements found (#F) against the paper's #F, rounds,
   time, peak memory; the fenced program is written to a temporary file;
3. ``verify FENCED --model tso --max-bound K``: the fenced program proved safe at the
   fixpoint (its k), states, time, peak memory;

printed beside the paper's ProofTraPar and Memorax figures (their machine: i7 3.1 GHz,
8 GB; ``-``: Memorax timed out at 10 minutes, ``ERR``: Memorax failed).  Times are CPU
seconds.  Nothing is asserted on times; the exit status is 1 when a program's verdict
disagrees with its header, ``fences`` needs more placements than the paper's #F, or the
fenced program is not proved safe.

Usage: python bench/bench_tso_fences.py [--max-bound K] [--timeout S] [PROGRAM...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "litmus" / "examples" / "tso"

#: Fig. 8: program -> (#P, ProofTraPar s, MB, Memorax s, MB, #F) as the paper prints them.
PAPER = {
    "peterson": (2, "1.19", "20", "0.9", "43", 2),
    "dekker": (2, "1.6", "21.3", "54.2", "676", 2),
    "lamport": (2, "17", "42", "97", "2312", 4),
    "szymanski": (2, "27", "121", "ERR", "ERR", 4),
    "abp": (2, "3.12", "39", "0.17", "11", 0),
    "dijkstra": (2, "16", "70", "-", "-", 2),
    "pgsql": (2, "1.2", "20", "210", "2800", 2),
    "rwlock": (3, "41", "164", "-", "-", 2),
    "simple_dekker": (3, "103", "155", "600", "3280", 3),
}


def run(argv: list[str], timeout: float) -> tuple[int, dict, float, float]:
    """Run ``herdsman ARGV --json`` in a subprocess: exit status, its JSON, CPU seconds,
    peak RSS in MB."""
    cmd = [sys.executable, "-m", "herdsman.herd_compat.cli.main", *argv, "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    out = proc.stdout.read() if proc.stdout else ""
    rc = os.waitstatus_to_exitcode(status)
    lines = [x for x in out.splitlines() if x.startswith("{")]
    data = json.loads(lines[-1]) if lines else {}
    return rc, data, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def claim(path: Path) -> str:
    m = re.search(r"tso=(safe|unsafe)", path.read_text().split("*/", 1)[0])
    return m.group(1) if m else "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", help="program names (default: all of Fig. 8)")
    ap.add_argument("--max-bound", type=int, default=12)
    ap.add_argument("--timeout", type=float, default=600.0, help="CPU/wall limit per step")
    a = ap.parse_args()
    names = a.programs or list(PAPER)
    bad = 0
    head = (
        f"{'program':<14}{'#P':>3} | {'unfenced (TSO)':<26}| {'#F':>3} {'paper':>5} "
        f"{'rounds':>6} {'s':>7} {'MB':>5} | {'fenced: fixpoint':<28}| "
        f"{'ProofTraPar s/MB':>17} {'Memorax s/MB':>13}"
    )
    print(head)
    print("-" * len(head))
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            path = PROGRAMS / f"{name}.c"
            if not path.exists():
                print(f"{name:<14} (missing: {path})")
                bad += 1
                continue
            npro, pt_s, pt_mb, mx_s, mx_mb, paper_f = PAPER[name]
            mb = str(a.max_bound)
            to = str(a.timeout)
            rc, v, cpu, rss = run(["verify", str(path), "-m", "tso", "--max-bound", mb], a.timeout)
            verdict = v.get("verdict", f"exit {rc}")
            unf = f"{verdict} k={v.get('bound', '?')} {cpu:.2f}s {rss:.0f}MB"
            if (verdict in ("safe", "bounded")) != (claim(path) == "safe"):
                bad += 1
                unf += " !"
            fenced = Path(tmp) / f"{name}_fenced.c"
            rc, f, fcpu, frss = run(
                ["fences", str(path), "-m", "tso", "--max-bound", mb, "-o", str(fenced)],
                a.timeout,
            )
            nf = len(f.get("placements", [])) if f.get("safe") else None
            rounds = len(f.get("rounds", []))
            nf_text = "-" if nf is None else str(nf)
            if nf is None or nf > paper_f:
                bad += 1
                nf_text += "!"
            if fenced.exists():
                rc, w, wcpu, wrss = run(
                    ["verify", str(fenced), "-m", "tso", "--max-bound", mb, "--timeout", to],
                    a.timeout,
                )
                fix = f"{w.get('verdict')} k={w.get('bound')} {wcpu:.2f}s {wrss:.0f}MB"
                states = w["bounds"][-1]["states"] if w.get("bounds") else 0
                fix += f" {states}st"
                if w.get("verdict") != "safe":
                    bad += 1
                    fix += " !"
            else:
                fix = "(no fenced program)"
            print(
                f"{name:<14}{npro:>3} | {unf:<26}| {nf_text:>3} {paper_f:>5} {rounds:>6} "
                f"{fcpu:>7.2f} {frss:>5.0f} | {fix:<28}| {pt_s + '/' + pt_mb:>17} "
                f"{mx_s + '/' + mx_mb:>13}"
            )
            sys.stdout.flush()
    print()
    print("unfenced: verify's verdict, the bound it rests on, CPU time, peak RSS;")
    print("#F: placements fences found (paper: the paper's #F), its rounds, CPU s, peak MB;")
    print("fenced: verify on the fenced program: verdict, fixpoint k, CPU s, MB, states (k+1).")
    print("'!' marks a disagreement with the header or the paper's #F.")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
