"""A process running many tests keeps its long-lived heap out of the collector's way
(``pipeline/heap.py``): campaign workers, and ``herdsman herd7`` on a list of tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # tests/

_PROBE = """
import gc, sys
from herdsman.herd_compat.cli.main import main
try:
    main(["herd7", *sys.argv[1:]])
except SystemExit:
    pass
print(gc.get_threshold()[0], gc.get_freeze_count() > 0)
"""


def _after_run(*tests: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "-model", "sc", *map(str, tests)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout.splitlines()[-1]


def test_herd7_on_several_tests_runs_with_a_frozen_heap() -> None:
    tests = sorted((HERE / "data" / "instructions").glob("*.litmus"))[:2]
    assert len(tests) == 2
    assert _after_run(*tests) == "20000 True"
    assert _after_run(tests[0]) == "700 False"  # one test: the collector as Python has it


_LEFT = """
import gc, sys
from herdsman.herd_compat.cli.main import main
main(["herd7", *sys.argv[1:]])
print(len(gc.get_objects()))
"""


def test_herd7_leaves_its_heap_frozen_for_the_exit() -> None:
    # what the tests left is frozen too: the interpreter's last full collection at exit
    # walks only what was made after them
    tests = sorted((HERE / "data" / "instructions").glob("*.litmus"))[:3]
    done = subprocess.run(
        [sys.executable, "-c", _LEFT, "-model", "sc", *map(str, tests)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert int(done.stdout.splitlines()[-1]) < 200


_IMPORTED = """
import sys
from herdsman.herd_compat.cli.main import main
main(["herd7", *sys.argv[1:]])
print(*sorted(m for m in ("pycparser", "pcpp", "pydot", "herdsman.litmus.c") if m in sys.modules))
"""


def test_assembly_tests_load_neither_the_c_front_end_nor_pydot() -> None:
    # start-up: a run of assembly tests imports only what it uses (0.1 s of imports less)
    tests = sorted((HERE / "data" / "instructions").glob("*.litmus"))[:2]
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTED, *map(str, tests)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.splitlines()[-1] == ""


_GARBAGE = """
import gc, sys
from herdsman.herd_compat.cli.main import main
from herdsman.herd_compat.pipeline import heap
gc.disable()
heap.YOUNG = 1 << 30  # no collection while the tests run
main(["herd7", *sys.argv[1:]])
gc.unfreeze()  # what the run froze, garbage included, is the collector's again
gc.set_debug(gc.DEBUG_SAVEALL)
gc.collect()
print(len(gc.garbage))
"""


def _garbage(tests: list[Path]) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _GARBAGE, "-model", "sc", *map(str, tests)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return int(done.stdout.splitlines()[-1])


def test_tests_leave_no_cyclic_garbage() -> None:
    # what a test builds is freed by its reference counts: no cycle for the collector to
    # find (recursive local functions are let go of; 100 objects a test made RISC-V's
    # young collections 30 % more frequent and its one middle-aged pass cost 0.1 s)
    tests = sorted((HERE / "data" / "instructions").glob("*.litmus"))
    assert len(tests) >= 12
    assert _garbage(tests[:2]) == _garbage(tests[:12])
