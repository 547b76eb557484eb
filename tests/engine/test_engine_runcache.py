"""Thread runs remembered across programs (engine/semantics/runcache.py): a remembered run
is given only when every question the run asked gets the same answer, the replay asks
nothing the run itself would not, and whole suites enumerate the same with and without."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from conftest import shared_path

from herdsman.engine.semantics import enumerate as enum
from herdsman.engine.semantics.runcache import RunCache
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Value
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

CODE = object()


def _runner(calls: list[int]) -> Callable[..., tuple[list[str], int]]:
    """A thread that reads x, then y when x is [0] and z otherwise."""

    def run(code: object, values_of: Callable[[str], Sequence[Value]], deadline, flag: bool):
        calls.append(1)
        x = list(values_of("x"))
        other = "y" if x == [0] else "z"
        return [f"x={x}", f"{other}={list(values_of(other))}"], len(x)

    return run


def _asking(values: dict[str, list[Value]], asked: list[str]) -> Callable[[str], list[Value]]:
    def values_of(loc: str) -> list[Value]:
        asked.append(loc)
        return values[loc]

    return values_of


def test_a_run_is_remembered_only_for_the_same_answers() -> None:
    cache: RunCache[str] = RunCache()
    calls: list[int] = []
    run = _runner(calls)
    first = cache.run(run, CODE, _asking({"x": [0], "y": [1]}, []), None, True)
    assert first == (["x=[0]", "y=[1]"], 1) and len(calls) == 1
    again = cache.run(run, CODE, _asking({"x": [0], "y": [1]}, []), None, True)
    assert again == first and len(calls) == 1 and cache.hits == 1
    # another answer for y: run again
    assert cache.run(run, CODE, _asking({"x": [0], "y": [2]}, []), None, True)[0][1] == "y=[2]"
    assert len(calls) == 2
    # other flags: another run
    cache.run(run, CODE, _asking({"x": [0], "y": [1]}, []), None, False)
    assert len(calls) == 3


def test_the_replay_asks_only_what_the_run_asks() -> None:
    """The remembered run asked x then y; with another x the thread asks z, never y (a
    question may have effects: a location first met gets its initial value)."""
    cache: RunCache[str] = RunCache()
    calls: list[int] = []
    run = _runner(calls)
    cache.run(run, CODE, _asking({"x": [0], "y": [1]}, []), None, True)
    asked: list[str] = []
    got = cache.run(run, CODE, _asking({"x": [0, 1], "z": [5]}, asked), None, True)
    assert got == (["x=[0, 1]", "z=[5]"], 2)
    assert "y" not in asked


def test_the_cache_is_bounded() -> None:
    cache: RunCache[str] = RunCache(max_execs=4)
    calls: list[int] = []
    run = _runner(calls)
    for k in range(10):
        cache.run(run, CODE, _asking({"x": [0], "y": [k]}, []), None, True)
        cache.run(run, object(), _asking({"x": [0], "y": [k]}, []), None, True)
    assert sum(len(k.execs) for kept in cache._runs.values() for k in kept) <= 4


@pytest.mark.parametrize("own_later", [True, False])
@pytest.mark.parametrize("suite", ["riscv", "power"])
def test_suites_enumerate_the_same_with_remembered_runs(
    suite: str, own_later: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    tests = shared_path(suite, "tests")
    programs = []
    for f in (tests / "@all").read_text().split()[::40]:
        try:
            programs.append(lower(parse_file(str(tests / f))))
        except InputError:
            continue
    monkeypatch.setattr(enum, "THREAD_RUNS", RunCache(max_execs=0))  # nothing kept
    fresh = [enum.thread_executions(p, own_later=own_later) for p in programs]
    cache: RunCache = RunCache()
    monkeypatch.setattr(enum, "THREAD_RUNS", cache)
    for _ in range(2):
        for p, want in zip(programs, fresh, strict=True):
            got = enum.thread_executions(p, own_later=own_later)
            assert (got.execs, got.values, got.rounds) == (want.execs, want.values, want.rounds)
    assert cache.hits >= cache.misses
