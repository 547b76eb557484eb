"""``engine.mixed``: the sizes a location is accessed with in one execution, on the
thread executions (herd's mixed-size check judges executions, not the code's paths)."""

from __future__ import annotations

from pathlib import Path

from herdsman.engine.mixed import sizes_together
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

DATA = Path(__file__).resolve().parents[1] / "data" / "aarch64" / "mixed"


def _together(name: str, loc: str) -> tuple[int, int] | None:
    return sizes_together(lower(parse_file(DATA / f"{name}.litmus")), 2)(loc)


def test_a_path_no_execution_takes_is_not_judged() -> None:
    assert _together("S5", "x") is None


def test_sizes_in_one_thread_execution() -> None:
    assert _together("M7", "x") == (8, 4)


def test_sizes_in_executions_of_two_threads() -> None:
    assert _together("M8", "x") == (8, 4)
    assert _together("M8", "y") is None
