"""Hostile kernel inputs: a malformed bell or macro file, an unknown macro, a kernel
primitive herdsman does not model — each one clean error (exit status 2), never a
traceback nor a silent wrong answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ONE_LINE, one_error, shared_path

from herdsman.herd_compat.cli.main import main

SB = """C SB
{}
P0(int *x, int *y)
{
	int r0;
	WRITE_ONCE(*x, 1);
	r0 = READ_ONCE(*y);
}
P1(int *x, int *y)
{
	int r0;
	WRITE_ONCE(*y, 1);
	r0 = READ_ONCE(*x);
}
exists (0:r0=0 /\\ 1:r0=0)
"""


def _files(tmp_path: Path, bell: str | None = None, defs: str | None = None) -> list[str]:
    """herd7 options running the LKMM, with this bell or macro file instead of herd's."""
    cats = shared_path("linux", "cats")
    b = cats / "linux-kernel.bell"
    d = cats / "linux-kernel.def"
    if bell is not None:
        b = tmp_path / "bad.bell"
        b.write_text(bell)
    if defs is not None:
        d = tmp_path / "bad.def"
        d.write_text(defs)
    return ["-bell", str(b), "-macros", str(d), "-model", str(cats / "linux-kernel.cat")]


def _test(tmp_path: Path, text: str = SB) -> str:
    p = tmp_path / "t.litmus"
    p.write_text(text)
    return str(p)


def _cat_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[str]:
    """A cat file's error: exit 2, its line (then the source line and a caret)."""
    rc = main(argv)
    cap = capsys.readouterr()
    assert rc == 2 and "Traceback" not in cap.err and "internal error" not in cap.err
    lines = cap.err.splitlines()
    assert 1 <= len(lines) <= 3 and ONE_LINE.match(lines[0]), cap.err
    return lines


@pytest.mark.parametrize(
    ("bell", "message"),
    [
        ('"b"\ninstructions Q[\'a]\n', "event type Q is not part of legal"),
        ('"b"\nlet x = (\n', "error"),
        ("\"b\"\nenum E = 'a\nenum E = 'b\n", "second definition of bell enum E"),
    ],
)
def test_a_malformed_bell(tmp_path: Path, capsys, bell: str, message: str) -> None:
    lines = _cat_error(capsys, ["herd7", *_files(tmp_path, bell=bell), _test(tmp_path)])
    assert "bad.bell" in lines[0] and message in lines[0]


def test_a_missing_bell(tmp_path: Path, capsys) -> None:
    argv = ["herd7", *_files(tmp_path), "-bell", str(tmp_path / "no.bell"), _test(tmp_path)]
    err = one_error(capsys, argv)
    assert "no.bell" in err


@pytest.mark.parametrize(
    ("defs", "message"),
    [
        ("READ_ONCE(X) __load{ONCE(X)\n", "in an annotation"),
        ("READ_ONCE(X\n", "expected"),
        ("WRITE_ONCE(X,V) { __store{ONCE}(X,V);\n", "unbalanced"),
        ("READ_ONCE(X) __load{ONCE}(X) $\n", "unexpected character"),
    ],
)
def test_a_malformed_macro_file(tmp_path: Path, capsys, defs: str, message: str) -> None:
    err = one_error(capsys, ["herd7", *_files(tmp_path, defs=defs), _test(tmp_path)])
    assert "bad.def:1:" in err and message in err


def test_an_unknown_macro(tmp_path: Path, capsys) -> None:
    defs = "READ_ONCE(X) __load{ONCE}(X)\n"  # no WRITE_ONCE
    err = one_error(capsys, ["herd7", *_files(tmp_path, defs=defs), _test(tmp_path)])
    assert "t.litmus:6:" in err and "unknown macro WRITE_ONCE (not defined in bad.def)" in err


def test_a_primitive_herdsman_does_not_model(tmp_path: Path, capsys) -> None:
    """An older macro file's srcu_read_lock (``__srcu{srcu-lock}``, whose value herd makes
    up from the instruction's position) is refused, not approximated."""
    defs = "srcu_read_lock(X) __srcu{srcu-lock}(X)\n"
    test = "C S\n{}\nP0(int *s)\n{\n\tint r0;\n\tr0 = srcu_read_lock(s);\n}\nexists (0:r0=0)\n"
    err = one_error(capsys, ["herd7", *_files(tmp_path, defs=defs), _test(tmp_path, test)])
    assert "t.litmus:6:" in err and "unsupported: __srcu with a value" in err


def test_a_recursive_macro(tmp_path: Path, capsys) -> None:
    defs = "READ_ONCE(X) READ_ONCE(X)\nWRITE_ONCE(X,V) { __store{ONCE}(X,V); }\n"
    err = one_error(capsys, ["herd7", *_files(tmp_path, defs=defs), _test(tmp_path)])
    assert "nested more than" in err


def test_a_bad_conf_key(tmp_path: Path, capsys) -> None:
    conf = tmp_path / "k.cfg"
    conf.write_text("macros linux-kernel.def\nmovelabell true\n")
    err = one_error(capsys, ["herd7", "-conf", str(conf), _test(tmp_path)])
    assert err.startswith(f"{conf}:2:1: error: unknown option '-movelabell'")


def test_a_bad_edgeattr(tmp_path: Path, capsys) -> None:
    err = one_error(capsys, ["herd7", "-edgeattr", "co,color", _test(tmp_path)])
    assert "-edgeattr expects label,attribute,value" in err
