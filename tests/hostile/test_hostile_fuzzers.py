"""The fuzzers of model files (bench/fuzz_cat.py) and command lines (bench/fuzz_cli.py)
on small samples, and the judge they share (bench/fuzz_harness.py): it catches what it
must.  The fresh runs of 2,000 cases each are in the README ("Limits")."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


HARNESS = _load("fuzz_harness")
CAT = _load("fuzz_cat")
CLI = _load("fuzz_cli")


def test_model_file_sample_breaks_no_rule(tmp_path, capsys):
    assert CAT.main(["--count", "16", "--seed", "3", "--keep", str(tmp_path)]) == 0, (
        capsys.readouterr().out
    )
    assert "0 broke the rules" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())  # nothing kept when nothing failed


def test_command_line_sample_breaks_no_rule(tmp_path):
    """In a process of its own, as a user's command is: its cases run in the process, and
    some draw a memory bound (``--max-memory 1024``) that a test worker grown by thousands
    of tests in process would already exceed."""
    argv = [sys.executable, str(BENCH / "fuzz_cli.py"), "--count", "40", "--seed", "3"]
    done = subprocess.run(
        [*argv, "--keep", str(tmp_path)], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broke the rules" in done.stdout


def test_every_command_and_model_file_kind_is_drawn():
    words = {" ".join(argv[:2]) if argv[0] == "cat" else argv[0] for argv in CLI.cases(400, 7)}
    assert words == {" ".join(c.words) for c in CLI.COMMANDS}
    assert CLI.cases(30, 7) == CLI.cases(30, 7)
    kinds = {Path(c.name).suffix for c in CAT.cases(200, 7)}
    assert kinds == {".cat", ".bell", ".def"} or not (CAT.SHARED / "linux").is_dir()


def _result(rc, out="", err="", crossed=False):
    return HARNESS.Result(rc, out, err, 0.1, 100.0, crossed)


def test_the_judge_catches_what_it_must():
    judge = HARNESS.judge
    assert judge("run", _result(0)) is None
    assert judge("run", _result(2, err="t.litmus:3:4: error: expected a register\n")) is None
    cat_error = "m.cat:2:1: error: syntax error\nSC\n^\n"
    assert judge("cat", _result(2, err=cat_error)) is None
    assert judge("run", _result(None)) == "hang"
    assert judge("run", _result(0, crossed=True)).startswith("over 2048 MB")
    assert judge("run", _result(2, err="herdsman run: error: internal error (X)\n")) == (
        "internal error"
    )
    assert judge("run", _result(0, out="Traceback (most recent call last):\n")) is not None
    assert judge("run", _result(42)) == "exit status 42"
    assert judge("verify", _result(42)) is None
    assert judge("run", _result(2)) == "exit status 2 without a message"
    assert judge("run", _result(2, err="something went wrong\n")) is not None
    assert judge("run", _result(2, err=f"t:1:1: error: {'x' * 700}\n")) is not None
    assert judge("run", _result(2, err="t:1:1: error: \x1b[31m\n")) is not None
    report = "  T (t.litmus)\n    sc: t.litmus:0:0: error: bad\n"
    assert judge("diff", _result(2, out=report)) is None
    assert judge("diff", _result(2, out="nothing said\n")) is not None
    assert judge("diff", _result(2, out=report, err="resuming j.sqlite: 0 tests done\n")) is None
    bar = "validate 1 not identical ━━━━━━━━━━━━━━━━ 1/1 0:00:08 ETA 0:00:00\n"
    assert judge("validate", _result(1, err=bar)) is None


def test_progress_asked_for_is_not_an_error_line():
    judge = HARNESS.judge
    error = "p.litmus:1:1: error: a litmus test, not a C program: 'herdsman run' runs it\n"
    progress = (
        "tas_lock: 162 executions, 32,460/s, ~618k in all (~0:19 left) [0:00]\n"
        "tas_lock: 1.2M executions, 30/s [1:00:03]\ntas_lock: done in 0:00\n"
    )
    assert judge("verify", _result(2, err=progress + error)) is None
    assert judge("verify", _result(2, err=error + progress)) is None
    assert judge("verify", _result(2, err=progress)) == "exit status 2 without a message"
    assert judge("verify", _result(2, err="t.c: done in 0:00 or not\n")) is not None
    assert judge("verify", _result(2, err="t.c:1:1: done in 0:00\n")) is not None
