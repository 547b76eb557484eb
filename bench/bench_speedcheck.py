"""herd's ``-speedcheck`` on the POWER campaign: herd's verdicts, in how much time.

Runs the 8141 POWER tests (or ``--sample N`` of them) once per mode (``--modes``,
default ``false,true,fast``) and compares each test's block with herd's log
(``../shared/power/herd7-ppc.log``, a full run):

* ``false``: the whole block (states, counts, verdict, hash), as ``bench/campaign.py``;
* every mode: the verdict (``Ok``/``No``) equals herd's;
* ``true``: the states are exactly herd's states that settle the condition (those
  satisfying the proposition for ``exists``/``~exists``, contradicting it for ``forall``:
  herd's ``worth_going``, evaluated on herd's state lines with the test's condition), with
  herd's count of such executions, and none of the others;
* ``fast``: one execution, whose state is one of those, when there is one; none else.

It prints per mode the mismatches, the CPU time (herd's ``Time``: per test, summed) and
the wall time, and the ratios to the full run.

    .venv/bin/python bench/bench_speedcheck.py                # all 8141, 2 jobs
    .venv/bin/python bench/bench_speedcheck.py --sample 200 --jobs 1

Exit status: 0 when every comparison holds, 1 otherwise, 2 without ../shared (or
$HERDSMAN_SHARED).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from herdsman.herd_compat.formats.herd_block import HerdBlock
from herdsman.herd_compat.formats.herdlog import Expectation, parse_state_line, read_expectations
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.inputs import read_index
from herdsman.herd_compat.pipeline.limits import Limits
from herdsman.herd_compat.pipeline.load import read_input
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, Failed, run_file
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import eval_prop
from herdsman.litmus.test import LitmusTest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HERDSMAN_SHARED", ROOT.parent / "shared")).resolve()
TESTS = SHARED / "power" / "tests" / "@all"
LOG = SHARED / "power" / "herd7-ppc.log"
MODES = ("false", "true", "fast")


@dataclass
class Result:
    """One test in one mode: its CPU time and what differs from herd (empty: nothing)."""

    name: str
    cpu: float
    problems: list[str] = field(default_factory=list)


def relevant_states(test: LitmusTest, herd: HerdBlock) -> set[str]:
    """herd's state lines that settle ``test``'s condition (herd's ``worth_going``)."""
    prop = test.condition.prop
    settling = test.condition.quant != "forall"  # the proposition's value that settles
    return {
        line for line in herd.states if eval_prop(prop, dict(parse_state_line(line))) == settling
    }


def compare(mode: str, test: LitmusTest, ours: HerdBlock, herd: HerdBlock) -> list[str]:
    """What differs between our block in ``mode`` and herd's full-run block."""
    problems = []
    if ours.verdict != herd.verdict:
        problems.append(f"verdict: ours {ours.verdict}, herd {herd.verdict}")
    if mode == "false":
        if ours.states != herd.states:
            problems.append("states differ")
        if (ours.positive, ours.negative) != (herd.positive, herd.negative):
            problems.append(f"counts: ours {ours.positive}/{ours.negative}, herd's differ")
        if ours.hash != herd.hash:
            problems.append("hash differs")
        return problems
    relevant = relevant_states(test, herd)
    forall = test.condition.quant == "forall"
    # herd's counts of the executions that settle the condition, and of the others
    settling = herd.obs_negative if forall else herd.obs_positive
    ours_settling = ours.obs_negative if forall else ours.obs_positive
    ours_other = ours.obs_positive if forall else ours.obs_negative
    if ours_other:
        problems.append(f"{ours_other} executions that settle nothing were counted")
    if not set(ours.states) <= relevant:
        problems.append(f"states not settling the condition: {set(ours.states) - relevant}")
    if mode == "true":
        if set(ours.states) != relevant:
            problems.append(f"missing settling states: {relevant - set(ours.states)}")
        if ours_settling != settling:
            problems.append(f"settling executions: ours {ours_settling}, herd {settling}")
    elif ours_settling != (1 if relevant else 0):
        problems.append(f"fast: {ours_settling} executions counted")
    return problems


_cfg: RunConfig | None = None
_models: ModelCache | None = None
_herd: dict[str, Expectation] = {}


def _init(model: str, mode: str, log: str, timeout: float | None) -> None:
    global _cfg, _models, _herd
    _cfg = RunConfig(model=model, speedcheck=mode, limits=Limits(time_limit=timeout))
    _models = ModelCache(_cfg)
    _models.get(model)
    _herd = read_expectations(log)


def _work(path: str) -> Result:
    assert _cfg is not None and _models is not None
    rec = run_file(path, _cfg, _models)
    if isinstance(rec, Failed):
        return Result(rec.name, 0.0, [rec.message])
    if not isinstance(rec, Done):
        return Result(rec.name, 0.0, ["skipped"])
    exp = _herd.get(rec.name)
    if exp is None or exp.record is None:
        return Result(rec.name, rec.cpu, ["not in herd's log"])
    test = read_input(path)
    assert isinstance(test, LitmusTest)
    return Result(rec.name, rec.cpu, compare(_cfg.speedcheck, test, rec.herd_block(), exp.record))


def sample(files: list[str], n: int | None) -> list[str]:
    """Every k-th file, so that a sample spreads over the whole set."""
    if n is None or n >= len(files):
        return files
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


def run_mode(mode: str, files: list[str], a: argparse.Namespace) -> tuple[list[Result], float]:
    t0 = time.perf_counter()
    with ProcessPoolExecutor(
        a.jobs, initializer=_init, initargs=(a.model, mode, str(a.log), a.timeout)
    ) as pool:
        results = list(pool.map(_work, files, chunksize=8))
    return results, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modes", default=",".join(MODES), help="comma list of false, true, fast")
    ap.add_argument("--model", default="power", help="the model (default: power)")
    ap.add_argument("--tests", type=Path, default=TESTS, help="index of tests (herd's @file)")
    ap.add_argument("--log", type=Path, default=LOG, help="herd's log of a full run")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--sample", type=int, help="run only N tests (spread out)")
    ap.add_argument("--timeout", type=float, help="per-test CPU limit (seconds)")
    ap.add_argument("--show", type=int, default=10, help="mismatches shown per mode")
    a = ap.parse_args(argv)
    modes = [m for m in a.modes.split(",") if m]
    if any(m not in MODES for m in modes):
        ap.error(f"--modes: choose among {', '.join(MODES)}")
    if not a.tests.exists() or not a.log.exists():
        print(f"needs {a.tests} and {a.log} (../shared or $HERDSMAN_SHARED)", file=sys.stderr)
        return 2
    try:
        files = sample(read_index(str(a.tests)), a.sample)
    except InputError as e:
        print(e.render(), file=sys.stderr)
        return 2
    print(f"{len(files)} POWER tests, model {a.model}, {a.jobs} jobs, herd log {a.log}")
    status = 0
    base: tuple[float, float] | None = None
    for mode in modes:
        results, wall = run_mode(mode, files, a)
        bad = [r for r in results if r.problems]
        cpu = sum(r.cpu for r in results)
        what = "blocks identical to herd's" if mode == "false" else "verdicts = herd's, states"
        line = (
            f"-speedcheck {mode:<5}: {len(results) - len(bad)}/{len(results)} {what}; "
            f"CPU {cpu:.1f} s, wall {wall:.1f} s"
        )
        if base is None:
            base = (cpu, wall)
        elif base[0] > 0 and base[1] > 0:
            line += (
                f" (x{cpu / base[0]:.3f} CPU, x{wall / base[1]:.3f} wall of -speedcheck {modes[0]})"
            )
        print(line, flush=True)
        for r in bad[: a.show]:
            print(f"  {r.name}: {'; '.join(r.problems)}")
        if bad:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
