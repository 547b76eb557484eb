"""Fence synthesis (``engine/fences``, ``herdsman fences``): critical cycles, z3's minimum,
the counterexample-guided loop on litmus tests (X86 under tso, PPC under power) and C
programs (TSO_k to the fixpoint), minimality by brute force, the fenced text as a valid
input, and the command line's errors."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.cat.api import load_model
from herdsman.engine.options import RunOptions
from herdsman.engine.run import run_program
from herdsman.herd_compat.analyses.fences.brute import cheaper_sets, cheaper_works
from herdsman.herd_compat.analyses.fences.cycles import critical_cycles
from herdsman.herd_compat.analyses.fences.oracles import LitmusOracle, relaxed_by
from herdsman.herd_compat.analyses.fences.solve import COSTS, Candidate, Need, minimum
from herdsman.herd_compat.analyses.fences.synth import synthesise
from herdsman.herd_compat.cli.main import main
from herdsman.herd_compat.formats.herdlog import read_herd_log
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

ROOT = Path(__file__).resolve().parents[2]
X86 = ROOT / "litmus" / "examples" / "x86"
PPC = ROOT / "litmus" / "examples" / "ppc"
PROGRAMS = ROOT / "litmus" / "examples" / "programs"


def _witnesses(test, model: str):
    out = run_program(lower(test), load_model(model), RunOptions(show="wit"))
    return [w.graph for w in out.witnesses]


# ----------------------------------------------------------------------------- pieces


def test_minimum_is_the_cheapest_hitting_choice() -> None:
    a, b, c = (Candidate(("t", i), "MFENCE") for i in range(3))
    s = Candidate(("t", 9), "sync")
    lw = Candidate(("t", 9), "lwsync")
    # one cycle needing a and (b or c); another cycle needing c alone
    need = Need((((a,), (b, c)), ((c,),)))
    assert minimum([need]) == frozenset({c})
    assert minimum([need, Need((((a,),),))]) == frozenset({a, c}) or minimum(
        [need, Need((((a,),),))]
    ) == frozenset({a, c})
    assert minimum([Need((((s, lw),),))]) == frozenset({lw})  # cost 4 < 8
    assert minimum([Need(())]) is None  # no cycle to break: unsatisfiable


def test_store_buffering_has_one_critical_cycle_with_two_delays() -> None:
    (g,) = _witnesses(parse_file(X86 / "SB.litmus"), "tso")
    (c,) = critical_cycles(g, relaxed_by("tso"))
    assert len(c.events) == 4 and c.fr_edges == 2
    assert [(d.a.kind, d.b.kind) for d in c.delays] == [("W", "R"), ("W", "R")]
    # under TSO, MP's cycle has no write-read edge: no delay
    mp = _witnesses(parse_file(X86 / "MP.litmus"), "sc")
    assert all(not c.delays for g in mp for c in critical_cycles(g, relaxed_by("tso")))


# ----------------------------------------------------------------------------- litmus


def _fence(path: Path, model: str):
    test = parse_file(path)
    oracle = LitmusOracle(test, load_model(model), model, RunOptions())
    res = synthesise(oracle)
    return oracle, res


@pytest.mark.parametrize(
    "name, kinds",
    [
        ("SB", {"MFENCE": 2}),
        ("R", {"MFENCE": 1}),
        ("IRIW", {}),
        ("MP", {}),
        ("SB+mfences", {}),
    ],
)
def test_x86_placements(name: str, kinds: dict[str, int]) -> None:
    oracle, res = _fence(X86 / f"{name}.litmus", "tso")
    assert res.safe, res.why
    assert dict(collections.Counter(c.kind for c in res.chosen)) == kinds
    assert not _witnesses(parse_text(oracle.text), "tso")


@pytest.mark.parametrize(
    "name, kinds",
    [
        ("MP", {"lwsync": 1, "ctrlisync": 1}),
        ("SB", {"sync": 2}),
        ("IRIW+lwsyncs", {"sync": 2}),
        ("LB", {"ctrl": 2}),
        ("WRC", {"lwsync": 1, "ctrlisync": 1}),
        ("2+2W", {"lwsync": 2}),
        ("MP+lwsync+addr", {}),
    ],
)
def test_power_placements(name: str, kinds: dict[str, int]) -> None:
    oracle, res = _fence(PPC / f"{name}.litmus", "power")
    assert res.safe, res.why
    assert dict(collections.Counter(c.kind for c in res.chosen)) == kinds
    assert not _witnesses(parse_text(oracle.text), "power")


@pytest.mark.parametrize(
    "path, model",
    [(X86 / f"{n}.litmus", "tso") for n in ("SB", "R")]
    + [(PPC / f"{n}.litmus", "power") for n in ("MP", "SB", "WRC", "R", "S", "2+2W")],
    ids=lambda x: x.stem if isinstance(x, Path) else x,
)
def test_no_cheaper_set_works(path: Path, model: str) -> None:
    """z3's answer is minimal: no set of candidates that costs less makes it safe."""
    oracle, res = _fence(path, model)
    assert res.safe
    total = sum(COSTS[c.kind] for c in res.chosen)
    assert total > 0
    assert cheaper_works(oracle, total) is False


def test_cheaper_sets_are_the_maximal_ones_under_the_budget() -> None:
    a, b = Candidate(("t", 1), "sync"), Candidate(("t", 1), "lwsync")
    c = Candidate(("t", 2), "ctrl")
    assert set(cheaper_sets((a, b, c), 6)) == {frozenset({b, c})}
    assert set(cheaper_sets((a, b, c), 9)) == {frozenset({a}), frozenset({b, c})}
    assert cheaper_sets((a, b, c), 0) == []


def _shared_x86_sample() -> list[Path]:
    base = shared_path("x86", "generated")
    tso = {b.name: b for b in read_herd_log(base / "herd7-x86tso.log")}
    sc = {b.name: b for b in read_herd_log(base / "herd7-sc.log")}
    names = sorted(n for n, b in tso.items() if b.verdict == "Ok" and sc[n].verdict == "No")
    return [base / f"{n}.litmus" for n in names[::10]]


def test_shared_x86_tests_reachable_only_under_tso_are_fixed_minimally() -> None:
    for path in _shared_x86_sample():
        oracle, res = _fence(path, "tso")
        assert res.safe, (path.name, res.why)
        assert res.chosen
        assert not _witnesses(parse_text(oracle.text), "tso"), path.name
        assert cheaper_works(oracle, len(res.chosen)) is False, path.name


# ----------------------------------------------------------------------------- C


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    got = capsys.readouterr()
    return rc, got.out, got.err


def test_c_program_fenced_then_proved(capsys, tmp_path: Path) -> None:
    out_c = tmp_path / "peterson_fenced.c"
    rc, out, err = _run(
        capsys, "fences", str(PROGRAMS / "peterson.c"), "-m", "tso", "-o", str(out_c)
    )
    assert rc == 0, err
    assert out.startswith("round 1: no placements: unsafe (TSO_1)")
    assert "Placements (1, cost 1):" in out and "line 23:" in out
    assert "Verdict: safe: " in out and "Theorem 1" in out
    # the written program is an input like any other, and it is safe
    rc, out, err = _run(capsys, "verify", str(out_c), "-m", "tso", "--max-bound", "8")
    assert rc == 0, err
    assert "Verdict: safe: " in out


def test_c_program_json(capsys) -> None:
    rc, out, _ = _run(capsys, "fences", str(PROGRAMS / "dekker.c"), "-m", "pso", "--json")
    data = json.loads(out)
    assert rc == 0 and data["safe"] and data["placements"]
    assert data["rounds"][0]["violations"] == 1 and data["rounds"][-1]["violations"] == 0


@pytest.mark.parametrize(
    "name, kinds",
    [("zkw15_fig1", {"seq_cst": 2}), ("zkw15_fig2", {"acq_rel": 2}), ("peterson", None)],
)
def test_c_program_under_power(capsys, tmp_path: Path, name: str, kinds) -> None:
    """Under POWER a C program gets sync (a seq_cst fence) or lwsync (an acq_rel fence);
    the fenced program verifies safe under power."""
    out_c = tmp_path / f"{name}.c"
    argv = ["fences", str(PROGRAMS / f"{name}.c"), "-m", "power", "-o", str(out_c), "--json"]
    rc, out, err = _run(capsys, *argv)
    assert rc == 0, err
    data = json.loads(out)
    assert data["safe"] and data["placements"]
    if kinds is not None:
        got = collections.Counter(p["what"].split("_order_")[1][:-1] for p in data["placements"])
        assert dict(got) == kinds
    rc, out, err = _run(capsys, "verify", str(out_c), "-m", "power", "--unroll", "2")
    assert rc == 0 and "No errors were detected." in out, out


def test_a_program_failing_under_sc_cannot_be_fenced(capsys) -> None:
    rc, out, _ = _run(capsys, "fences", str(PROGRAMS / "counter_racy.c"), "-m", "tso")
    assert rc == 1
    assert "fails under SC" in out


def test_already_safe_needs_nothing(capsys) -> None:
    rc, out, _ = _run(capsys, "fences", str(PROGRAMS / "peterson_fenced.c"), "-m", "tso")
    assert rc == 0 and "none: the program is already safe" in out


@pytest.mark.parametrize(
    "argv, needle",
    [
        ([str(PROGRAMS / "peterson.c"), "-m", "arm"], "--model arm: fences are placed for"),
        ([str(X86 / "SB.litmus"), "-m", "power"], "fences for a X86 test: --model tso or pso"),
        ([str(PPC / "SB.litmus"), "-m", "tso"], "fences for a PPC test: --model power"),
        (["/nonexistent.c", "-m", "tso"], "no such file"),
        ([str(PROGRAMS / "peterson.c"), "-m", "tso", "--max-bound", "-2"], "must be >= 0"),
    ],
)
def test_bad_input_is_one_line(capsys, argv: list[str], needle: str) -> None:
    rc, _, err = _run(capsys, "fences", *argv)
    assert rc == 2 and needle in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_malformed_inputs(capsys, tmp_path: Path) -> None:
    bad_c = tmp_path / "bad.c"
    bad_c.write_text("int x;\nvoid *p(void *a) { x = ; }\n")
    rc, _, err = _run(capsys, "fences", str(bad_c), "-m", "tso")
    assert rc == 2 and err.startswith(f"{bad_c}:2:") and "error" in err
    bad_l = tmp_path / "bad.litmus"
    bad_l.write_text("X86 bad\n{ x=0; }\n P0 ;\n MOV [x],$1 | ;\nexists (x=1)\n")
    rc, _, err = _run(capsys, "fences", str(bad_l), "-m", "tso")
    assert rc == 2 and err.startswith(str(bad_l)) and err.count("\n") == 1


# ----------------------------------------------------------------------------- the paper

PAPER = ROOT / "litmus" / "examples" / "tso"


def _paper_fences(path: Path) -> int:
    head = path.read_text().split("*/", 1)[0]
    (line,) = [x for x in head.splitlines() if "herdsman: paper-fences" in x]
    return int(line.split()[-1])


@pytest.mark.parametrize(
    "name",
    ["peterson", "dekker", "lamport", "szymanski", "dijkstra", "pgsql", "rwlock", "simple_dekker"],
)
def test_paper_benchmarks_need_at_most_the_papers_fences(capsys, tmp_path, name: str) -> None:
    """Narayan, Sharma and Arun-Kumar's Fig. 8: each unsafe benchmark gets at most the
    paper's #F fences, and the fenced program is proved safe at the fixpoint."""
    path = PAPER / f"{name}.c"
    out_c = tmp_path / f"{name}.c"
    rc, out, err = _run(capsys, "fences", str(path), "-m", "tso", "-o", str(out_c), "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["safe"] and 0 < len(data["placements"]) <= _paper_fences(path)
    rc, out, err = _run(capsys, "verify", str(out_c), "-m", "tso", "--max-bound", "12", "--json")
    assert rc == 0, err
    assert json.loads(out)["verdict"] == "safe"
