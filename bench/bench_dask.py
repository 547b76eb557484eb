"""The POWER campaign on the local pool (``--jobs N``) and on a local dask cluster
(``--dask-local N``), on the same cores: the wall times, their ratio (the target: dask
within 25 % of the local pool) and whether the results are identical row by row.

    .venv/bin/python bench/bench_dask.py                 # the 8141 tests, 2 workers each
    .venv/bin/python bench/bench_dask.py --limit 500     # the first 500 tests only
    .venv/bin/python bench/bench_dask.py --rounds 3      # alternate, keep each one's best

Each campaign is one ``herdsman validate`` process, timed from its start to its end (the
interpreter, the workers or the cluster starting and stopping included); its own summary
gives the time of the campaign proper.  Rows are compared without the ``Time`` lines of
the herd blocks.  Exit status: 0 when the rows are identical, 1 when not, 2 on errors.
Needs ../shared (or $HERDSMAN_SHARED).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from campaign import SETS, SHARED, test_files

#: The row's columns compared (result_text without its Time line).
COLUMNS = "key, name, status, category, result_text, details"


@dataclass
class Run:
    label: str
    status: int
    wall: float  # the whole command, seconds
    campaign: float | None  # the summary's "wall" (the campaign proper)
    rows: dict[str, tuple]


def validate(label: str, index: Path, db: Path, pool: list[str], a: argparse.Namespace) -> Run:
    """One ``herdsman validate`` over the tests of ``index`` on ``pool``, timed."""
    s = SETS["power"]
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "herdsman.herd_compat.cli.main", "validate", f"@{index}"]
    cmd += ["--model", a.model, "--expect", str(s.log), "--db", str(db), "--no-progress"]
    cmd += ["--timeout", str(a.timeout)] if a.timeout else []
    t0 = time.monotonic()
    proc = subprocess.run(cmd + pool, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr)
    m = re.search(r"; wall ([0-9.]+) s with", proc.stdout)
    return Run(label, proc.returncode, wall, float(m.group(1)) if m else None, rows(db))


def rows(db: Path) -> dict[str, tuple]:
    if not db.exists():
        return {}
    conn = sqlite3.connect(db)
    try:
        got = conn.execute(f"SELECT {COLUMNS} FROM results").fetchall()
    finally:
        conn.close()
    return {r[0]: (*r[1:4], untimed(r[4]), json.loads(r[5])) for r in got}


def untimed(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.startswith("Time "))


def differences(a: dict[str, tuple], b: dict[str, tuple]) -> list[str]:
    """The tests whose rows differ (or that one side lacks), by name."""
    out = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            out.append(str((a.get(key) or b.get(key) or (key,))[0]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, metavar="N", help="the first N tests only")
    ap.add_argument("--workers", type=int, default=2, help="--jobs and --dask-local (2)")
    ap.add_argument("--rounds", type=int, default=1, help="run each R times, alternating")
    ap.add_argument("--model", default="power", help="model (default: power)")
    ap.add_argument("--timeout", type=float, help="per-test time limit (seconds)")
    a = ap.parse_args(argv)
    if not SHARED.exists():
        print(f"needs {SHARED} (the shared ground-truth folder)", file=sys.stderr)
        return 2
    files = test_files(SETS["power"])[: a.limit]
    n = str(a.workers)
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
        index = Path(tmp) / "@tests"
        index.write_text("".join(os.path.abspath(f) + "\n" for f in files), encoding="utf-8")
        print(
            f"POWER campaign: {len(files)} tests, model {a.model}, {n} workers, "
            f"{os.cpu_count()} cores",
            flush=True,
        )
        best: dict[str, Run] = {}
        for r in range(a.rounds):
            pools = [("local pool", ["--jobs", n]), ("dask", ["--dask-local", n])]
            for label, pool in pools if r % 2 == 0 else pools[::-1]:
                run = validate(label, index, Path(tmp) / f"{label[:5]}.sqlite", pool, a)
                campaign = f"{run.campaign:.1f} s" if run.campaign is not None else "-"
                print(
                    f"  round {r + 1} {label:<10} exit {run.status}  wall {run.wall:6.1f} s"
                    f"  (campaign {campaign})",
                    flush=True,
                )
                if run.status not in (0, 1):
                    return 2
                if label not in best or run.wall < best[label].wall:
                    best[label] = run
    local, dask = best["local pool"], best["dask"]
    ratio = dask.wall / local.wall
    diff = differences(local.rows, dask.rows)
    print(f"local pool (--jobs {n})      {local.wall:6.1f} s")
    print(f"dask (--dask-local {n})      {dask.wall:6.1f} s")
    within = "within" if ratio <= 1.25 else "NOT within"
    print(f"ratio dask / local pool  {ratio:6.2f}  ({within} the 25 % target)")
    if local.campaign and dask.campaign:
        print(
            f"campaign proper          {dask.campaign / local.campaign:6.2f}  "
            f"({local.campaign:.1f} s and {dask.campaign:.1f} s: without starting and "
            "stopping the workers)"
        )
    same = not diff and len(local.rows) == len(files) and local.status == dask.status
    print(
        f"results: {len(local.rows)} and {len(dask.rows)} rows, exit {local.status} and "
        f"{dask.status}: {'identical row by row' if same else 'DIFFERENT'}"
    )
    for name in diff[:20]:
        print(f"  differs: {name}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
