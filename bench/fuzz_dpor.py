"""DPOR against every run on random X86 tests: the operational engine's DPOR with sleep
sets must reach the final states and execution counts of the exploration of every run
(``--reduction none``) under sc, tso and pso.

    python bench/fuzz_dpor.py --count 150 --seed 1

Prints each disagreeing test (the first few in full) and, at the end, the tests compared,
the disagreements and the runs DPOR explored beside those of every run.  Exit status 1
when any test disagrees.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_dpor_sleep_sets import random_test  # noqa: E402

from herdsman.cat.api import load_model  # noqa: E402
from herdsman.engine.operational.run import explore_operational  # noqa: E402
from herdsman.engine.run import RunOptions  # noqa: E402
from herdsman.litmus.lower import lower  # noqa: E402
from herdsman.litmus.parser import parse_text  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    models = {m: load_model(m) for m in ("sc", "tso", "pso")}
    bad = 0
    runs = {"dpor": 0, "none": 0}
    t0 = time.process_time()
    for n in range(a.count):
        text = random_test(rng, n)
        prog = lower(parse_text(text, f"R{n}.litmus"))
        for name, model in models.items():
            got = {}
            for red in ("dpor", "none"):
                opts = RunOptions(engine="operational", reduction=red)
                r = explore_operational(prog, model, opts)
                got[red] = r.result.states
                runs[red] += r.stats.complete + r.stats.blocked + r.stats.extra["sleep_blocked"]
            if got["dpor"] != got["none"]:
                bad += 1
                print(f"DISAGREE under {name}: R{n}")
                if bad <= 3:
                    print(text)
    cpu = time.process_time() - t0
    print(
        f"{a.count} tests x 3 models: {bad} disagreements; runs: DPOR {runs['dpor']}, "
        f"every run {runs['none']} ({runs['dpor'] / max(1, runs['none']):.3f}); {cpu:.1f} s CPU"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
