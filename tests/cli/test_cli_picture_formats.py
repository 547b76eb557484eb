"""``--format dot|svg|png`` with ``-o DIR``: herdsman draws one image per execution with
the renderer pip brings (no system Graphviz), herd's ``-dotcom`` picks the layout, and
what cannot be done is one error line."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdsman.graphs import render as rmod
from herdsman.herd_compat.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
MP = str(ROOT / "litmus" / "examples" / "ppc" / "MP+lwsync+addr.litmus")
SB = str(ROOT / "litmus" / "examples" / "x86" / "SB.litmus")
PETERSON = str(ROOT / "litmus" / "examples" / "programs" / "peterson.c")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    got = capsys.readouterr()
    return rc, got.out, got.err


def test_herd7_show_all_writes_one_svg_per_execution(capsys, tmp_path: Path) -> None:
    rc, out, err = _run(capsys, "herd7", "-show", "all", "-o", str(tmp_path), "--format", "svg", MP)
    assert rc == 0, err
    assert "Observation MP+lwsync+addr Never 0 3" in out
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [f"MP+lwsync+addr-{n}.svg" for n in (1, 2, 3)]
    for n in (1, 2, 3):
        svg = (tmp_path / f"MP+lwsync+addr-{n}.svg").read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        assert f"execution {n} of 3" in svg
    assert "note: a .dot file" not in err  # images need no rendering note


def test_one_execution_keeps_herds_file_name(capsys, tmp_path: Path) -> None:
    rc, _, err = _run(capsys, "herd7", "-show", "prop", "-o", str(tmp_path), "-format", "png", SB)
    assert rc == 0, err
    (png,) = tmp_path.iterdir()
    assert png.name == "SB.png" and png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_run_and_trust_listing_in_images(capsys, tmp_path: Path) -> None:
    argv = ["run", "--engine", "trust", "--print-executions", "--model", "tso"]
    rc, _, err = _run(capsys, *argv, "-o", str(tmp_path), "--format", "svg", SB)
    assert rc == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"SB-{n}.svg" for n in (1, 2, 3, 4)]


def test_verify_draws_the_violating_execution(capsys, tmp_path: Path) -> None:
    argv = ["verify", "--model", "tso", "-o", str(tmp_path), "--format", "svg", PETERSON]
    rc, out, _ = _run(capsys, *argv)
    assert rc == 42 and "Safety violation" in out
    svg = (tmp_path / "peterson.svg").read_text()
    assert "Test peterson, Generic(tso)" in svg and "Thread 2" in svg


def test_dotcom_picks_the_layout(capsys) -> None:
    rc, out, _ = _run(capsys, "herd7", "-show", "all", "-dotcom", "neato", "-o", "-", SB)
    assert rc == 0 and "\nDOTCOM neato\n" in out
    rc, out, _ = _run(capsys, "herd7", "-show", "all", "-o", "-", SB)
    assert rc == 0 and "\nDOTCOM dot\n" in out


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["herd7", "-show", "all", "-o", "-", "--format", "svg"], "-o - prints DOT text"),
        (["herd7", "-dotmode", "fig"], "-dotmode fig: herdsman writes plain labels"),
        (["herd7", "-format", "pdf"], "'pdf' is not one of dot, svg, png"),
        (["run", "--format", "pdf"], "invalid choice: 'pdf'"),
    ],
)
def test_what_cannot_be_drawn_is_one_line(capsys, argv: list[str], needle: str) -> None:
    rc, _, err = _run(capsys, *argv, SB)
    assert rc == 2 and needle in err and err.count("\n") == 1, err


def test_no_renderer_is_one_line_before_any_test(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(rmod.shutil, "which", lambda _name: None)
    monkeypatch.setattr(rmod, "_scripts_dirs", lambda: [])
    rc, out, err = _run(capsys, "herd7", "-show", "all", "-o", str(tmp_path), "--format", "svg", SB)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "no Graphviz renderer" in err and "pip install graphviz-pure" in err
    rc, _, err = _run(capsys, "herd7", "-show", "all", "-o", str(tmp_path), SB)
    assert rc == 0 and (tmp_path / "SB.dot").exists()  # DOT text needs no renderer
