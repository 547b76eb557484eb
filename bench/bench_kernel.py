"""The compiled kernel of the relation algebra (``graphs/_relalg.c``) on herd's POWER
campaign: the campaign's CPU time with the kernel and with the pure-Python operators
(``HERDSMAN_PURE_PYTHON=1``), each run by ``bench/campaign.py`` in its own process, and
their ratio, beside herd7's ``Time`` lines.

    .venv/bin/python bench/bench_kernel.py [--jobs 2] [--sample K]

Both runs must be identical to herd7's log (``bench/campaign.py``'s exit status 0).
Exit status 1 otherwise, or when the kernel is not built.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CPU = re.compile(r"CPU time: ours ([\d.]+) s, herd ([\d.]+) s")


def campaign(pure: bool, jobs: int, sample: int | None) -> tuple[float, float, int]:
    """One campaign: our CPU time, herd's, and the exit status."""
    env = dict(os.environ)
    env.pop("HERDSMAN_PURE_PYTHON", None)
    if pure:
        env["HERDSMAN_PURE_PYTHON"] = "1"
    with tempfile.TemporaryDirectory() as db:
        cmd = [sys.executable, str(ROOT / "bench" / "campaign.py"), "--sets", "power"]
        cmd += ["--jobs", str(jobs), "--db-dir", db]
        if sample:
            cmd += ["--sample", str(sample)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    m = CPU.search(out.stdout)
    if m is None:
        sys.stdout.write(out.stdout + out.stderr)
        raise SystemExit("campaign.py printed no CPU line")
    return float(m.group(1)), float(m.group(2)), out.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--sample", type=int, help="N tests spread over the campaign")
    a = ap.parse_args(argv)
    from herdsman.graphs import relalg

    if not relalg.KERNEL:
        print("the compiled kernel is not built (or HERDSMAN_PURE_PYTHON is set)")
        return 1
    kernel, herd, rc1 = campaign(False, a.jobs, a.sample)
    pure, _, rc2 = campaign(True, a.jobs, a.sample)
    print(
        f"POWER campaign CPU: kernel {kernel:.2f} s, pure Python {pure:.2f} s, "
        f"ratio {kernel / pure:.3f}; herd7 {herd:.2f} s: kernel {kernel / herd:.4f}x, "
        f"pure Python {pure / herd:.4f}x herd7"
    )
    print("identical to herd7's log:", "both" if rc1 == rc2 == 0 else f"exit {rc1}, {rc2}")
    return 0 if rc1 == rc2 == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
