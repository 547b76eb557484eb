"""Full validation campaigns against herd's logs, with CPU time compared to herd's.

Runs the 8141 POWER tests (and the X86 sets, the 69 C11 tests) with ``herdsman validate``'s
machinery, then prints per set the summary, our total CPU time and its ratio to herd's (the
sum of the ``Time`` lines of herd's log for the same tests: 952.4 s for all POWER tests),
and the ten slowest tests with our time beside herd's.

    .venv/bin/python bench/campaign.py                      # everything, 2 jobs
    .venv/bin/python bench/campaign.py --sets power --model-ppc ../shared/herd-cat/ppc.cat
    .venv/bin/python bench/campaign.py --sets c11 --model-c11 ../shared/c11/cat/rc11.cat
    .venv/bin/python bench/campaign.py --sample 40 --jobs 1 # a quick look
    .venv/bin/python bench/campaign.py --sets riscv --herd-sample 400  # herd7 run here too
    .venv/bin/python bench/campaign.py --sets aarch64 --herd-sample 100

``--herd-sample N`` runs the herd7 built here (``bench/herd7_side.py``; ``$HERD7``) on N of
each set's tests after the campaign and prints both CPU times on them, side by side: as
many herd7 processes at once as the campaign's ``--jobs`` (like for like).

Results go to SQLite databases under ``--db-dir`` (default ``.herdsman/``); ``--resume``
continues an interrupted campaign.  Exit status: 0 when every test matches herd, 1 on
differences, 2 on errors.  Needs ../shared (or $HERDSMAN_SHARED).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from herd7_side import herd7_binary, run_herd7

from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.campaigns.validate import CampaignConfig, CampaignOutcome, run_campaign
from herdsman.herd_compat.campaigns.worker import WorkerFactory, engine_worker
from herdsman.herd_compat.pipeline.inputs import read_index
from herdsman.herd_compat.pipeline.limits import RUN_LIMITS
from herdsman.litmus.base.errors import InputError

ROOT = Path(__file__).resolve().parent.parent

SHARED = Path(os.environ.get("HERDSMAN_SHARED", ROOT.parent / "shared")).resolve()


@dataclass
class Set:
    name: str
    tests: Path  # directory of tests, or an index file
    log: Path
    model_key: str  # which --model-* option applies
    default_model: str
    herd_model: str | None = None  # what herd7 runs the set with (None: its default)


SETS = {
    "power": Set(
        "power",
        SHARED / "power" / "tests" / "@all",
        SHARED / "power" / "herd7-ppc.log",
        "ppc",
        "power",
    ),
    "x86-tso": Set(
        "x86-tso", SHARED / "x86" / "tests", SHARED / "x86" / "herd7-tests-x86tso.log", "tso", "tso"
    ),
    "x86-sc": Set(
        "x86-sc", SHARED / "x86" / "tests", SHARED / "x86" / "herd7-tests-sc.log", "sc", "sc"
    ),
    "x86gen-tso": Set(
        "x86gen-tso",
        SHARED / "x86" / "generated",
        SHARED / "x86" / "generated" / "herd7-x86tso.log",
        "tso",
        "tso",
    ),
    "x86gen-sc": Set(
        "x86gen-sc",
        SHARED / "x86" / "generated",
        SHARED / "x86" / "generated" / "herd7-sc.log",
        "sc",
        "sc",
    ),
    "arm": Set(
        "arm", SHARED / "arm" / "tests" / "@all", SHARED / "arm" / "herd7-arm.log", "arm", "arm"
    ),
    "riscv": Set(
        "riscv",
        SHARED / "riscv" / "tests" / "@all",
        SHARED / "riscv" / "herd7-riscv.log",
        "riscv",
        "riscv",
    ),
    "c11": Set(
        "c11", SHARED / "c11" / "tests" / "@all", SHARED / "c11" / "herd7-c11.log", "c11", "rc11"
    ),
}
SETS["aarch64"] = Set(
    "aarch64",
    SHARED / "aarch64" / "tests" / "@all",
    SHARED / "aarch64" / "herd7-aarch64.log",
    "aarch64",
    str(SHARED / "aarch64" / "cat" / "aarch64.cat"),
    str(SHARED / "aarch64" / "cat" / "aarch64.cat"),
)


def test_files(s: Set) -> list[str]:
    if s.tests.name.startswith("@"):  # herd's index file (its name starts with @)
        return read_index(str(s.tests))
    return sorted(str(p) for p in s.tests.glob("*.litmus"))


def sample(files: list[str], n: int | None) -> list[str]:
    """Every k-th file, so that a sample spreads over the whole (sorted) set."""
    if n is None or n >= len(files):
        return files
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


def slowest_lines(outcome: CampaignOutcome, k: int = 10) -> list[str]:
    done = [r for r in outcome.rows if r.status == "done" and r.cpu is not None]
    done.sort(key=lambda r: -(r.cpu or 0.0))
    lines = [f"  {'test':<40}{'ours (s)':>10}{'herd (s)':>10}{'ratio':>8}"]
    for r in done[:k]:
        herd = "-" if r.herd_time is None else f"{r.herd_time:.2f}"
        ratio = "-" if not r.herd_time else f"{(r.cpu or 0.0) / r.herd_time:.2f}"
        lines.append(f"  {r.name:<40}{r.cpu or 0.0:>10.2f}{herd:>10}{ratio:>8}")
    return lines


def herd_slow_lines(outcome: CampaignOutcome, over: float = 1.0) -> list[str]:
    """Our time on the tests herd took over ``over`` seconds: how many, on how many we are
    slower than herd, and our worst ratio (the issue's "not slower on any" target)."""
    slow = [r for r in outcome.rows if r.herd_time is not None and r.herd_time > over]
    if not slow:
        return []
    ratio = {r.name: r.cpu / r.herd_time for r in slow if r.status == "done" and r.cpu is not None}
    slower = [r for r in slow if ratio.get(r.name, 0.0) >= 1.0]
    line = (
        f"tests herd took over {over:g} s: {len(slow)}; ours done {len(ratio)}, "
        f"slower than herd on {len(slower)}"
    )
    if ratio:
        worst = max(ratio, key=ratio.__getitem__)
        line += f"; worst ratio {ratio[worst]:.3f} ({worst})"
    return [line] + [
        f"  slower: {r.name} ours {r.cpu:.2f} s, herd {r.herd_time:.2f} s" for r in slower
    ]


#: herd prints its Time with two decimals: its true time is below the printed one plus this.
HERD_ROUNDING = 0.005


def slower_lines(outcome: CampaignOutcome, k: int = 10) -> list[str]:
    """The tests where we are certainly slower than herd: our CPU time at or over herd's
    printed Time plus its rounding (``0.00`` is any time under 5 ms)."""
    done = [r for r in outcome.rows if r.status == "done" and r.cpu is not None]
    timed = [r for r in done if r.herd_time is not None]
    slower = [r for r in timed if (r.cpu or 0.0) >= (r.herd_time or 0.0) + HERD_ROUNDING]
    slower.sort(key=lambda r: -((r.cpu or 0.0) - (r.herd_time or 0.0)))
    lines = [
        f"every test: slower than herd's Time (beyond its rounding) on {len(slower)} "
        f"of {len(timed)}"
    ]
    return lines + [
        f"  slower: {r.name} ours {r.cpu:.4f} s, herd {r.herd_time:.2f} s" for r in slower[:k]
    ]


def side_by_side_lines(
    model: str, outcome: CampaignOutcome, n: int, jobs: int = 1, workers_peak: str = "?"
) -> list[str]:
    """herd7 run here on ``n`` of the campaign's tests: its CPU time beside ours on them,
    and beside its log's on them (how fast this machine runs herd7 against the log's)."""
    binary = herd7_binary()
    if binary is None:
        return ["side by side: no herd7 built here (set $HERD7)"]
    done = [r for r in outcome.rows if r.status == "done" and r.cpu is not None]
    rows = {r.path: r for r in done}
    files = sample(sorted(rows), n)
    if not files:
        return []
    herd = run_herd7(binary, files, model, timeout=60.0 * len(files), jobs=jobs)
    mine = sum(rows[f].cpu or 0.0 for f in files)
    logged = sum(rows[f].herd_time or 0.0 for f in files)
    scale = herd.time_lines / max(logged, 1e-9)
    lines = [
        f"side by side on {len(files)} tests: herd7 here {herd.cpu:.2f} s CPU (its Time "
        f"lines {herd.time_lines:.2f} s, its log's {logged:.2f} s: x{scale:.2f}), ours "
        f"{mine:.2f} s: ratio {mine / max(herd.cpu, 1e-9):.3f}",
        f"peak resident memory of the largest process: herd7 {herd.peak_mb:.0f} MB, "
        f"herdsman's workers {workers_peak}",
    ]
    t = outcome.totals
    if t is not None and t.herd_cpu:
        here = t.herd_cpu * scale
        lines.append(
            f"whole campaign against herd7 at this machine's speed now (its log's times "
            f"x{scale:.2f}: {here:.2f} s): ours {t.our_cpu:.2f} s, ratio {t.our_cpu / here:.3f}"
        )
    return lines


def run_set(s: Set, model: str, a: argparse.Namespace, worker: WorkerFactory) -> CampaignOutcome:
    """The campaign of one set under ``model``, with the options of the command line, on
    workers made by ``worker``."""
    files = sample(test_files(s), a.sample)
    print(f"== {s.name}: {len(files)} tests, model {model}, herd log {s.log}", flush=True)
    tag = f"{s.name}-{os.path.basename(model)}" + (f"-sample{a.sample}" if a.sample else "")
    cfg = CampaignConfig(
        inputs=files,
        expect=str(s.log),
        model=model,
        workers=Workers(jobs=a.jobs),
        limits=RUN_LIMITS if a.timeout is None else replace(RUN_LIMITS, time_limit=a.timeout),
        db=os.path.join(a.db_dir, f"bench-{tag}.sqlite"),
        resume=a.resume,
        engine=a.engine,
        show_mismatches=a.show_mismatches,
    )
    return run_campaign(cfg, worker=worker)


def children_peak_mb() -> float:
    """The largest peak resident memory of the finished child processes so far, in MB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def process_cpu() -> tuple[float, float]:
    """CPU time (user + system) so far of the finished child processes (the campaign's
    workers) and of this process."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    return kids.ru_utime + kids.ru_stime, me.ru_utime + me.ru_stime


def main(
    argv: list[str] | None = None, worker: Callable[[Set], WorkerFactory] | None = None
) -> int:
    """The benchmark; ``worker`` gives each set's worker factory (default: the engine's;
    tests give herd's own answers)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(SETS), help="comma list of: " + ", ".join(SETS))
    ap.add_argument("--model-ppc", default="power", help="model for the POWER set")
    ap.add_argument("--model-tso", default="tso", help="model for the X86 x86tso logs")
    ap.add_argument("--model-sc", default="sc", help="model for the X86 sc logs")
    ap.add_argument(
        "--model-arm",
        default=str(SHARED / "arm" / "cat" / "arm.cat"),
        help="model for the ARM set (default herd's arm.cat; 'arm': the built-in one)",
    )
    ap.add_argument(
        "--model-riscv",
        default=str(SHARED / "riscv" / "cat" / "riscv.cat"),
        help="model for the RISC-V set (default herd's riscv.cat; 'riscv': the built-in one)",
    )
    ap.add_argument("--model-c11", default="rc11", help="model for the C11 set (or rc11.cat)")
    ap.add_argument(
        "--model-aarch64", default=SETS["aarch64"].default_model, help="model for AArch64"
    )
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--sample", type=int, help="run only N tests of each set (spread out)")
    ap.add_argument(
        "--timeout", type=float, help="per-test time limit (seconds; default validate's, 3600)"
    )
    ap.add_argument("--db-dir", default=".herdsman", help="where the databases go")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--show-mismatches", type=int, default=20)
    ap.add_argument(
        "--herd-sample", type=int, default=0, help="run herd7 built here on N tests, beside us"
    )
    a = ap.parse_args(argv)
    names = [x for x in a.sets.split(",") if x]
    unknown = [x for x in names if x not in SETS]
    if unknown:
        ap.error(f"unknown set(s): {', '.join(unknown)}")
    if not SHARED.exists():
        print(f"needs {SHARED} (the shared ground-truth folder)", file=sys.stderr)
        return 2
    models = {
        "ppc": a.model_ppc,
        "tso": a.model_tso,
        "sc": a.model_sc,
        "arm": a.model_arm,
        "riscv": a.model_riscv,
        "c11": a.model_c11,
        "aarch64": a.model_aarch64,
    }
    status = 0
    grand_ours = grand_herd = 0.0
    os.makedirs(a.db_dir, exist_ok=True)
    for name in names:
        s = SETS[name]
        try:
            factory = engine_worker if worker is None else worker(s)
            before, peak_before = process_cpu(), children_peak_mb()
            outcome = run_set(s, models[s.model_key], a, factory)
            workers_cpu, parent_cpu = (x - y for x, y in zip(process_cpu(), before, strict=True))
            peak = children_peak_mb()
            # the largest finished child so far: this set's workers when it grew
            workers_peak = f"{peak:.0f} MB" if peak > peak_before else f"at most {peak:.0f} MB"
        except InputError as e:
            print(e.render(), file=sys.stderr)
            status = 2
            continue
        status = max(status, outcome.status)
        t = outcome.totals
        assert t is not None
        grand_ours += t.our_cpu
        grand_herd += t.herd_cpu or 0.0
        print(
            f"herdsman's processes in all: workers {workers_cpu:.2f} s CPU (with their "
            f"start-up), parent {parent_cpu:.2f} s (with reading herd's log and comparing); "
            f"the largest worker's peak resident memory {workers_peak}"
        )
        print(f"ten slowest tests of {name} (our CPU time beside herd's):")
        print("\n".join(slowest_lines(outcome)))
        for line in herd_slow_lines(outcome) + slower_lines(outcome):
            print(line)
        if a.herd_sample:
            model = models[s.model_key]
            for line in side_by_side_lines(model, outcome, a.herd_sample, a.jobs, workers_peak):
                print(line)
        print(flush=True)
    if len(names) > 1:
        ratio = f" (ratio {grand_ours / grand_herd:.3f})" if grand_herd else ""
        print(f"all sets: ours {grand_ours:.2f} s CPU, herd {grand_herd:.2f} s{ratio}")
    return status


if __name__ == "__main__":
    sys.exit(main())
