"""The command line with TruSt: --engine, --preemption-bound, --print-executions.

herd's block is the same whichever engine runs (but for its Time line); TruSt's own
options print GenMC's summary after it; a model TruSt cannot explore is one error line
and exit status 2.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, shared_path

from herdsman.herd_compat.cli.main import main

EXAMPLES = ROOT / "litmus" / "examples"
TIME = re.compile(r"^Time .*$", re.M)


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    rc = main(argv)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.out + cap.err
    return rc, cap.out, cap.err


def test_herd_block_identical_whichever_engine(capsys):
    tests = [str(p) for p in sorted((EXAMPLES / "x86").glob("*.litmus"))]
    for spec in ("tso", "pso"):
        out = {}
        for engine in ("reference", "trust", "auto"):
            rc, text, err = run(capsys, ["run", "--model", spec, "--engine", engine, *tests])
            assert rc == 0, err
            out[engine] = TIME.sub("", text)
        assert out["reference"] == out["trust"] == out["auto"]


def test_herd7_and_validate_accept_the_engine(capsys, tmp_path):
    sb = str(EXAMPLES / "x86" / "SB.litmus")
    rc, a, _ = run(capsys, ["herd7", "-model", "sc", "-engine", "trust", sb])
    rc2, b, _ = run(capsys, ["herd7", "-model", "sc", "-engine", "reference", sb])
    assert rc == rc2 == 0 and TIME.sub("", a) == TIME.sub("", b)
    log = shared_path("x86", "herd7-tests-sc.log")
    db = tmp_path / "v.sqlite"
    rc, out, err = run(
        capsys,
        [
            "validate",
            str(shared_path("x86", "tests")),
            "--expect",
            str(log),
            "--model",
            "sc",
            "--engine",
            "trust",
            "--db",
            str(db),
            "--no-progress",
        ],
    )
    assert rc == 0, out + err


def test_print_executions_and_bound(capsys, tmp_path):
    sb = str(EXAMPLES / "x86" / "SB+mfences.litmus")
    rc, out, err = run(capsys, ["run", "--model", "sc", "--print-executions", sb])
    assert rc == 0, err
    assert out.count("\nExecution ") == 3
    assert "Number of complete executions explored: 3" in out
    rc, out, _ = run(
        capsys,
        [
            "run",
            "--model",
            "sc",
            "--preemption-bound",
            "0",
            "--print-executions",
            "-o",
            str(tmp_path),
            sb,
        ],
    )
    assert rc == 0
    assert "Preemption bound 0: 2 executions within it, 1 beyond it" in out
    assert "(preemptions 1, beyond the bound)" in out
    dots = sorted(p.name for p in tmp_path.glob("*.dot"))
    assert dots == ["SB+mfences-1.dot", "SB+mfences-2.dot", "SB+mfences-3.dot"]
    assert "digraph" in (tmp_path / dots[0]).read_text()


def test_refusals_are_one_error_line(capsys):
    lb = str(EXAMPLES / "ppc" / "LB.litmus")
    rc, out, err = run(capsys, ["run", "--model", "power", "--engine", "trust", lb])
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "error: TruSt cannot explore model power" in err
    assert "load buffering" in err
    rc, out, err = run(capsys, ["run", "--model", "power", "--print-executions", lb])
    assert rc == 2 and "load buffering" in err
    rc, _, err = run(capsys, ["run", "--engine", "reference", "--preemption-bound", "1", lb])
    assert rc == 2 and "need --engine trust" in err
    rc, _, err = run(capsys, ["run", "--preemption-bound", "-1", lb])
    assert rc == 2 and "must be >= 0" in err


def test_trust_options_take_the_runner_path(capsys, tmp_path):
    """--preemption-bound goes through herd_compat.runner like every run: -o DIR writes
    herd's DOT file (the -show pictures), and the summary follows herd's block."""
    sb = str(EXAMPLES / "x86" / "SB+mfences.litmus")
    rc, out, err = run(
        capsys,
        [
            "run",
            "--model",
            "sc",
            "--preemption-bound",
            "0",
            "--show",
            "all",
            "-o",
            str(tmp_path),
            sb,
        ],
    )
    assert rc == 0, err
    assert out.index("Hash=") < out.index("Preemption bound 0: 2 executions within it")
    assert sorted(p.name for p in tmp_path.glob("*.dot")) == ["SB+mfences.dot"]
    assert (tmp_path / "SB+mfences.dot").read_text().count("digraph") == 2


def test_run_test_with_a_preemption_bound_means_trust():
    from herdsman.cat.api import load_model
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.litmus.base.errors import InputError
    from herdsman.litmus.lower import lower
    from herdsman.litmus.parser import parse_file

    test = parse_file(EXAMPLES / "x86" / "SB+mfences.litmus")
    r = run_program(lower(test), load_model("sc"), RunOptions(preemption_bound=0))
    assert r.engine == "trust" and r.stats.extra["bound"] == 0
    assert r.positive + r.negative == 2  # the execution beyond the bound is not counted
    with pytest.raises(InputError, match="needs the TruSt engine"):
        run_program(
            lower(test), load_model("sc"), RunOptions(engine="reference", preemption_bound=0)
        )
