"""The herdsman command line: every error is one line on stderr and exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import one_error

from herdsman.herd_compat.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _one_error(capsys, argv: list[str]) -> str:
    return one_error(capsys, argv)


def test_top_level(capsys) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for cmd in ("parse", "cat", "run", "herd7", "validate"):
        assert f"  {cmd} " in out
    assert main([]) == 2
    assert "unknown command 'frobnicate'" in _one_error(capsys, ["frobnicate"])
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("herdsman ")


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["herd7", "-frob", "x.litmus"], "unknown option '-frob'"),
        (["herd7", "-show", "sometimes", "x.litmus"], "'sometimes' is not one of"),
        (["herd7", "-nshow"], "option -nshow needs an argument"),
        (["herd7", "-nshow", "many", "x.litmus"], "expected a number"),
        (["herd7", "-candidates", "maybe", "x.litmus"], "expected true or false"),
        (["herd7", "-speedcheck", "bogus", "x.litmus"], "'bogus' is not one of false, true"),
        (["herd7"], "no test given"),
        (["run"], "the following arguments are required"),
        (["run", "--bogus", "x.litmus"], "unrecognized arguments: --bogus"),
        (["run", "--engine", "warp", "x.litmus"], "invalid choice: 'warp'"),
        (["validate", "x"], "the following arguments are required: --expect"),
        (["validate", "x", "--expect", "e", "--jobs", "0"], "--jobs must be at least 1"),
        (["validate", "x", "--expect", "e", "--timeout", "-1"], "--timeout must be positive"),
        (["cat", "frob"], "unknown cat command 'frob'"),
    ],
)
def test_usage_errors(capsys, argv, fragment) -> None:
    assert fragment in _one_error(capsys, argv)


def test_file_errors(capsys, tmp_path: Path) -> None:
    missing = tmp_path / "nope.litmus"
    assert _one_error(capsys, ["herd7", str(missing)]) == f"{missing}:0:0: error: no such file"
    assert _one_error(capsys, ["run", str(missing)]) == f"{missing}:0:0: error: no such file"
    idx = tmp_path / "idx"
    assert _one_error(capsys, ["herd7", f"@{idx}"]) == f"{idx}:0:0: error: no such file"
    idx.write_text("# tests\n\n@sub\n")
    assert _one_error(capsys, ["herd7", f"@{idx}"]) == (
        f"{idx}:3:1: error: {tmp_path / '@sub'}: no such file"
    )
    conf = tmp_path / "x.cfg"
    conf.write_text("# options\nmodel power\n  frobnicate true\n")
    assert _one_error(capsys, ["herd7", "-conf", str(conf), "t.litmus"]) == (
        f"{conf}:3:3: error: unknown option '-frobnicate' (see herdsman herd7 -help)"
    )
    assert _one_error(capsys, ["herd7", str(tmp_path)]) == (
        f"{tmp_path}:0:0: error: is a directory, expected a litmus test file"
    )
    assert _one_error(capsys, ["herd7", "-names", str(missing), "t.litmus"]).endswith(
        "error: no such file"
    )
    assert (
        _one_error(capsys, ["validate", str(tmp_path), "--expect", str(tmp_path / "herd.log")])
        == f"{tmp_path}:0:0: error: no litmus tests (*.litmus) in this directory"
    )
    assert (
        _one_error(capsys, ["run", str(tmp_path)])
        == f"{tmp_path}:0:0: error: no litmus tests (*.litmus) in this directory"
    )
    (tmp_path / "a.litmus").write_text("PPC A\n")
    assert (
        _one_error(capsys, ["validate", str(tmp_path), "--expect", str(tmp_path / "herd.log")])
        == f"{tmp_path / 'herd.log'}:0:0: error: no such file"
    )
    assert _one_error(capsys, ["herd7", "-o", str(missing), "t.litmus"]) == (
        f"{missing}:0:0: error: output directory does not exist (-o never creates one: "
        "mkdir it first)"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable(capsys, tmp_path: Path) -> None:
    f = tmp_path / "secret.litmus"
    f.write_text("PPC S\n")
    f.chmod(0)
    assert _one_error(capsys, ["herd7", str(f)]) == f"{f}:0:0: error: permission denied"


def test_bad_model_name(capsys, tmp_path: Path, shared: Path) -> None:
    err = _one_error(
        capsys, ["herd7", "-model", "no-such-model", str(shared / "power" / "tests" / "MP.litmus")]
    )
    assert "unknown model 'no-such-model'; built-in models are " in err


def test_subprocess_no_traceback(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for argv in (["herd7", "-frob"], ["run", str(tmp_path / "x.litmus")], ["validate"]):
        r = subprocess.run(
            [sys.executable, "-m", "herdsman.herd_compat.cli.main", *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_parse_delegates(capsys, shared: Path, tmp_path: Path) -> None:
    assert main(["parse", str(shared / "power" / "tests" / "MP.litmus")]) == 0
    assert capsys.readouterr().out.startswith("PPC MP\n")
    bad = tmp_path / "bad.litmus"
    bad.write_text("PPC B\n{\n}\n P0 ;\n lwzz r1,0(r2) ;\nexists (0:r1=0)\n")
    err = _one_error(capsys, ["parse", str(bad)])
    assert err.startswith(f"{bad}:5:")


def test_cat_check_delegates(capsys, tmp_path: Path) -> None:
    assert main(["cat", "check", "sc"]) == 0
    assert "acyclic" in capsys.readouterr().out
    bad = tmp_path / "bad.cat"
    bad.write_text('"bad"\nacyclic po | rfx as x\n')
    assert main(["cat", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:2:") and "Traceback" not in err
    assert "the following arguments are required" in _one_error(capsys, ["cat", "check"])


def test_bare_model_file_names_come_from_the_library(capsys, tmp_path, monkeypatch) -> None:
    """As herd's ``-model ppc.cat``: a bare .cat name that is no file here nor in an -I
    directory is taken from herdsman's library (herd's model names map to the built-ins)."""
    monkeypatch.chdir(tmp_path)
    mp = str(ROOT / "litmus" / "examples" / "ppc" / "MP+lwsync+addr.litmus")

    def block(model: str) -> list[str]:
        assert main(["herd7", "-model", model, mp]) == 0
        return [x for x in capsys.readouterr().out.splitlines() if not x.startswith("Time")]

    assert block("ppc.cat") == block("power")
    assert "Observation MP+lwsync+addr Never 0 3" in block("ppc.cat")
    assert block("sc.cat") == block("sc")
    err = _one_error(capsys, ["herd7", "-model", "nope.cat", mp])
    assert err.startswith("nope.cat:0:0: error: cannot read model: no such file")
    (tmp_path / "ppc.cat").write_text('"mine"\nacyclic po | rf as mine\n')
    assert block("ppc.cat") != block("power")  # a file of that name here comes first
