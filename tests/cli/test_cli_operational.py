"""The operational engine on the command line: ``run``, ``herd7``, ``verify`` and
``validate`` with ``--engine operational``, its own options (``--buffer-bound``,
``--stateful``, ``--reduction``), its statistics, and the errors of bad option use."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import shared_path

from herdsman.herd_compat.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
X86 = ROOT / "litmus" / "examples" / "x86"
PROGRAMS = ROOT / "litmus" / "examples" / "programs"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    got = capsys.readouterr()
    return rc, got.out, got.err


def _block(out: str) -> str:
    """herd's block of one test: the lines up to its Hash (without Time)."""
    lines = out.split("\nHash=")[0].splitlines()
    return "\n".join(line for line in lines if not line.startswith("Time "))


def test_run_prints_herds_block_then_the_statistics(capsys) -> None:
    sb = str(X86 / "SB.litmus")
    rc, out, err = _run(capsys, "run", "--engine", "operational", "--model", "tso", sb)
    assert rc == 0, err
    rc2, trust, _ = _run(capsys, "run", "--engine", "trust", "--model", "tso", sb)
    assert rc2 == 0
    assert _block(out) == _block(trust)
    stats = out.split("\nHash=")[1].splitlines()[1:]
    assert "Runs explored: 4 (4 complete, 0 blocked; 0 more cut by sleep sets)" in stats
    assert "Runs of a naive exploration: 24" in stats
    assert "Distinct executions: 4 (0 runs repeated one)" in stats


def test_reduction_none_runs_every_interleaving(capsys) -> None:
    sb = str(X86 / "SB.litmus")
    argv = ["run", "--engine", "operational", "--model", "tso", "--reduction", "none", sb]
    rc, out, err = _run(capsys, *argv)
    assert rc == 0, err
    assert "Runs explored: 24 (24 complete, 0 blocked; 0 more cut by sleep sets)" in out
    assert "Distinct executions: 4 (20 runs repeated one)" in out


def test_buffer_bound_zero_is_sc(capsys) -> None:
    sb = str(X86 / "SB.litmus")
    rc, out, _ = _run(
        capsys, "run", "--engine", "operational", "--model", "tso", "--buffer-bound", "0", sb
    )
    assert rc == 0
    assert "\nNo\n" in out and "States 3" in out
    assert "Buffer bound: 0" in out
    rc, out, _ = _run(
        capsys, "run", "--engine", "operational", "--model", "tso", "--buffer-bound", "1", sb
    )
    assert "\nOk\n" in out and "States 4" in out


def test_herd7_prints_herds_blocks_only(capsys) -> None:
    rc, out, err = _run(
        capsys, "herd7", "-engine", "operational", "-model", "tso", str(X86 / "MP.litmus")
    )
    assert rc == 0, err
    assert out.rstrip().splitlines()[-1].startswith("Hash=")
    assert "Runs explored" not in out


def test_json_names_the_engine_and_its_statistics(capsys) -> None:
    rc, out, _ = _run(
        capsys, "run", "--json", "--engine", "operational", "--model", "pso", str(X86 / "MP.litmus")
    )
    assert rc == 0
    rec = json.loads(out.splitlines()[0])
    outcome = rec["outcome"]
    assert outcome["engine"] == "operational"
    assert outcome["stats"]["runs"] >= 1 and outcome["stats"]["processes"] == 2 + 2 * 2
    assert outcome["condition_holds"] is True  # PSO reorders the two stores


def test_verify_finds_the_pso_bug_and_not_the_tso_one(capsys) -> None:
    fig2 = str(PROGRAMS / "zkw15_fig2.c")
    rc, out, err = _run(capsys, "verify", "--engine", "operational", "--model", "pso", fig2)
    assert rc == 42, err
    assert out.startswith("Error: Safety violation!")
    assert "Assertion violation: x != 0" in out and "Coherence order:" in out
    rc, out, err = _run(capsys, "verify", "--engine", "operational", "--model", "tso", fig2)
    assert rc == 0, err
    assert out.startswith("No errors were detected.")
    assert any(line.startswith("Runs explored: ") for line in out.splitlines())


def test_verify_stateful_needs_no_loop_bound(capsys) -> None:
    prog = str(PROGRAMS / "sdpor_fig1.c")
    argv = ["verify", "--engine", "operational", "--stateful", "-D", "N=40", "--unroll", "0"]
    rc, out, err = _run(capsys, *argv, prog)
    assert rc == 0, err
    assert "Executions where the loop bound" not in out
    stateful = next(line for line in out.splitlines() if line.startswith("Stateful: "))
    assert int(stateful.split()[1]) > 0
    # the same program with the loop bound 0 and no stateful search: every run is cut
    rc, out, _ = _run(
        capsys, "verify", "--engine", "operational", "-D", "N=40", "--unroll", "0", prog
    )
    assert rc == 0
    assert "Executions where the loop bound (--unroll 0) stopped a thread:" in out


def test_bad_uses_are_one_line_with_status_2(capsys, tmp_path) -> None:
    sb = str(X86 / "SB.litmus")
    rc, _, err = _run(capsys, "run", "--buffer-bound", "1", sb)
    assert rc == 2 and "need --engine operational" in err
    rc, _, err = _run(capsys, "run", "--engine", "operational", "--buffer-bound", "-1", sb)
    assert rc == 2 and "--buffer-bound must be >= 0" in err
    rc, _, err = _run(capsys, "run", "--engine", "operational", "--reduction", "half", sb)
    assert rc == 2 and "invalid choice" in err
    other = tmp_path / "tso.cat"  # named tso, but a model of its own: no machine runs it
    other.write_text((ROOT / "cat" / "models" / "tso.cat").read_text() + "acyclic po as mine\n")
    rc, _, err = _run(capsys, "run", "--engine", "operational", "--model", str(other), sb)
    assert rc == 2
    assert err.count("\n") == 1 and "operational engine runs the machines of sc, tso" in err
    prog = str(PROGRAMS / "peterson.c")
    rc, _, err = _run(capsys, "verify", "--engine", "operational", "--model", "power", prog)
    assert rc == 2 and err.startswith("power:0:0: error: ")  # the model is the culprit
    assert err.rstrip().endswith(f"(for {prog})")


def test_validate_against_herds_log(capsys, tmp_path) -> None:
    tests = shared_path("x86", "tests")
    log = shared_path("x86", "herd7-tests-x86tso.log")
    model = shared_path("herd-cat", "x86tso.cat")
    argv = ["validate", str(tests), "--expect", str(log), "--model", str(model)]
    argv += ["--engine", "operational", "--db", str(tmp_path / "db.sqlite"), "--no-progress"]
    rc, out, err = _run(capsys, *argv)
    assert rc == 0, out + err
    assert "identical                   23" in out
