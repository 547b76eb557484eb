"""TSO_k to a fixpoint (``engine/operational/bounded.py``, ``verify --max-bound``): the
verdicts of the example programs, Theorem 1's fixpoint checked one bound further, the
violating run, and the command line's errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from herdsman.engine.operational.bounded import (
    BOUNDED,
    SAFE,
    UNKNOWN,
    UNSAFE,
    fixpoint_holds,
    verify_bounded,
)
from herdsman.engine.operational.machine import Effects, Machine
from herdsman.engine.operational.reach import buffer_last, has_failed, reach, replay
from herdsman.engine.operational.run import UNBOUNDED
from herdsman.engine.semantics.step import Semantics
from herdsman.herd_compat.cli.main import main
from herdsman.litmus.c import c_program_from_text, load_c_program

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "litmus" / "examples" / "programs"
ALL = sorted(PROGRAMS.glob("*.c"))


def _claims(path: Path) -> dict[str, str]:
    head = path.read_text().split("*/", 1)[0]
    m = re.search(r"herdsman: expect ([^\n]*)", head)
    assert m is not None
    return dict(x.split("=") for x in m.group(1).split())


def _program(path: Path, mode: str):
    return load_c_program(str(path), "pso" if mode == "pso" else "tso")


@pytest.mark.parametrize("mode", ["tso", "pso"])
@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
def test_example_verdicts(path: Path, mode: str) -> None:
    """Every example's claim under TSO and PSO: unsafe ones fail at some bound with a
    run, safe ones are proved at the fixpoint (or, with PSO barriers, bounded)."""
    claim = _claims(path)[mode]
    program = _program(path, mode)
    res = verify_bounded(program, mode, 8, time_limit=60)
    if claim == "unsafe":
        assert res.verdict == UNSAFE, res.reason
        assert res.error is not None and res.error.graph is not None and res.run
    else:
        want = SAFE if fixpoint_holds(program, mode) else BOUNDED
        assert res.verdict == want, res.reason
        assert res.error is None


def _projections(program, mode: str, k: int) -> set:
    sem = Semantics(program, UNBOUNDED)
    m = Machine(sem, [x for x, _ in program.memory], mode, k)
    s0 = m.initial(dict(program.memory), Effects([], [], []))
    return reach(m, s0, buffer_last(m)).projections


@pytest.mark.parametrize(
    "name", ["peterson_fenced", "dekker_fenced", "burns_fenced", "abp", "tas_lock"]
)
def test_fixpoint_holds_one_bound_further(name: str) -> None:
    """Theorem 1 checked on the programs: past the fixpoint k0 (S_k0↓ = S_k0+1↓), the
    next bound reaches no new projection either."""
    program = _program(PROGRAMS / f"{name}.c", "tso")
    res = verify_bounded(program, "tso", 8)
    assert res.verdict == SAFE
    k0 = res.bound
    assert res.steps[-1].k == k0 + 1 and res.steps[-1].same_as_previous
    assert _projections(program, "tso", k0 + 2) == _projections(program, "tso", k0 + 1)


def test_reachable_sets_grow_with_the_bound() -> None:
    program = _program(PROGRAMS / "dijkstra_fenced.c", "tso")
    sets = [_projections(program, "tso", k) for k in range(4)]
    for a, b in zip(sets, sets[1:], strict=False):
        assert a <= b
    assert sets[0] < sets[1]


SB = """
#include <assert.h>
#include <pthread.h>
int x, y, a, b;
void *p0(void *arg) { x = 1; a = y; return 0; }
void *p1(void *arg) { y = 1; b = x; return 0; }
int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, p0, 0);
  pthread_create(&t1, 0, p1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(a == 1 || b == 1);
  return 0;
}
"""


def test_store_buffering_fails_with_one_buffered_write_and_the_run_shows_it() -> None:
    program = c_program_from_text(SB, "sb.c", "tso")
    res = verify_bounded(program, "tso", 4)
    assert res.verdict == UNSAFE and res.bound == 1
    assert [s.k for s in res.steps] == [0, 1]
    assert any("(buffered)" in line for line in res.run)
    assert any("buffer -> memory" in line for line in res.run)
    # the run replays to the failing state
    sem = Semantics(program, UNBOUNDED)
    m = Machine(sem, [x for x, _ in program.memory], "tso", 1)
    s0 = m.initial(dict(program.memory), Effects([], [], []))
    final, _ = replay(m, s0, res.path or [])
    assert has_failed(final)
    # both reads read 0 in the execution
    g = res.error.graph  # type: ignore[union-attr]
    reads = [g.event(e) for e in g.events() if g.event(e).kind == "R"]
    assert sorted((r.loc, r.value) for r in reads if r.loc in ("x", "y")) == [("x", 0), ("y", 0)]
    # SC (bound 0) alone finds nothing
    assert verify_bounded(program, "sc", 4).verdict == SAFE


def test_state_limit_gives_no_verdict() -> None:
    program = _program(PROGRAMS / "szymanski_fenced.c", "tso")
    res = verify_bounded(program, "tso", 8, max_states=50)
    assert res.verdict == UNKNOWN and "states" in res.reason


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    got = capsys.readouterr()
    return rc, got.out, got.err


def test_cli_proves_and_refutes(capsys) -> None:
    rc, out, err = _run(
        capsys, "verify", str(PROGRAMS / "peterson_fenced.c"), "--model", "tso", "--max-bound", "6"
    )
    assert rc == 0, err
    assert out.startswith("TSO_0: ")
    assert "(= previous)" in out and "Verdict: safe: " in out and "Theorem 1" in out
    rc, out, _ = _run(
        capsys, "verify", str(PROGRAMS / "peterson.c"), "--model", "tso", "--max-bound", "6"
    )
    assert rc == 42
    assert "Error: Safety violation!" in out and "The violating run (TSO_1):" in out
    rc, out, _ = _run(
        capsys, "verify", str(PROGRAMS / "peterson.c"), "-m", "tso", "--max-bound", "0"
    )
    assert rc == 0 and "Verdict: bounded: " in out
    rc, out, _ = _run(
        capsys, "verify", str(PROGRAMS / "dekker.c"), "-m", "pso", "--max-bound", "3", "--json"
    )
    data = json.loads(out)
    assert rc == 42 and data["verdict"] == "unsafe" and data["error"]["run"]
    assert [b["k"] for b in data["bounds"]] == [0, 1]


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--max-bound", "-1"], "--max-bound must be >= 0"),
        (["--max-bound", "2", "--engine", "trust"], "--max-bound runs its own search"),
        (["--max-bound", "2", "--stateful", "--engine", "operational"], "explores every state"),
        (["--max-states", "5"], "--max-states needs --max-bound"),
    ],
)
def test_cli_usage_errors(capsys, argv: list[str], needle: str) -> None:
    rc, _, err = _run(capsys, "verify", str(PROGRAMS / "peterson.c"), "-m", "tso", *argv)
    assert rc == 2 and needle in err and "Traceback" not in err


def test_cli_model_without_a_machine(capsys) -> None:
    rc, _, err = _run(
        capsys, "verify", str(PROGRAMS / "peterson.c"), "-m", "power", "--max-bound", "2"
    )
    assert rc == 2 and "--max-bound needs the model sc, tso or pso" in err
    assert err.count("\n") == 1


def test_cli_state_limit_is_no_verdict(capsys) -> None:
    rc, out, _ = _run(
        capsys,
        "verify",
        str(PROGRAMS / "szymanski_fenced.c"),
        "-m",
        "tso",
        "--max-bound",
        "8",
        "--max-states",
        "50",
    )
    assert rc == 3 and "Verdict: unknown: more than 50 states" in out


@pytest.mark.parametrize("mode", ["tso", "pso"])
@pytest.mark.parametrize("name", ["dijkstra_fenced", "szymanski_fenced", "seqlock"])
def test_going_on_from_the_previous_bound_finds_the_same_states(name: str, mode: str) -> None:
    """The search of bound k + 1 goes on from bound k's boundary states; it finds the
    states and projections a search from scratch finds."""
    program = _program(PROGRAMS / f"{name}.c", mode)
    res = verify_bounded(program, mode, 4)
    sem = Semantics(program, UNBOUNDED)
    for step in res.steps:
        m = Machine(sem, [x for x, _ in program.memory], mode, step.k)
        s0 = m.initial(dict(program.memory), Effects([], [], []))
        fresh = reach(m, s0, buffer_last(m))
        assert (fresh.states, len(fresh.projections)) == (step.states, step.projections)
