"""Errors for model authors: ``FILE:LINE:COL: error: ...``, the source line and a caret,
exit status 2 from the command, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from herdsman.cat.api import load_model
from herdsman.herd_compat.cli.cat_check import _main as cli_main
from herdsman.litmus.base.errors import InputError

ROOT = Path(__file__).resolve().parents[2]

# (model text, line, col, part of the message); the model is checked by `cat check`
BAD = [
    # lexical and syntax errors
    ("let x = 1", 1, 9, "only number"),
    ("let x = po $ rf", 1, 12, "unexpected character"),
    ("let x = (* open", 1, 9, "unterminated comment"),
    ("let x = po |", 1, 13, "end of file"),
    ("let x = (po", 1, 12, "end of file"),
    ("let = po", 1, 5, "unexpected '='"),
    ("acyclic", 1, 8, "end of file"),
    ("acyclic po as", 1, 14, "end of file"),
    ("let x = A * B * C", 1, 15, "unexpected '*'"),
    ("let x = ~A+", 1, 11, "unexpected '+'"),
    ("show", 1, 5, "end of file"),
    ("let x = po\nlet y = rf rf rf )", 2, 18, "unexpected ')'"),
    ("procedure p(x) = acyclic x", 1, 27, "end of file"),
    ("match 'a with 'a -> po end", 1, 21, "unexpected 'po'"),
    ('let x = "s"', 1, 9, "unexpected"),
    ("enum T = a || b", 1, 10, "unexpected"),
    ("let x = {po, }", 1, 14, "unexpected '}'"),
    ("let x = fun -> po", 1, 13, "unexpected '->'"),
    ("let x = if po then rf else", 1, 15, "unexpected 'then'"),
    ("let x = if po = rf then rf else", 1, 32, "end of file"),
    ("let x = try po", 1, 15, "end of file"),
    ("forall x in {} do", 1, 18, "end of file"),
    ("with x from", 1, 12, "end of file"),
    ("let x = po ^ 1", 1, 12, "unexpected character"),
    ("include po", 1, 9, "unexpected"),
    # unbound names, with suggestions
    ("let x = rfx", 1, 9, "unknown relation 'rfx'; did you mean 'rf'?"),
    ("acyclic po | rfe | frr", 1, 20, "unknown"),
    ("let x = Ww", 1, 9, "unknown set 'Ww'; did you mean 'W'?"),
    ("let f(x) = x | zzzz", 1, 16, "unknown name 'zzzz'"),
    ("acyclic ppo as t", 1, 9, "unknown relation 'ppo'; did you mean 'po'?"),
    ("call nothere(po)", 1, 1, "unknown name 'nothere'"),
    ("let x = 'nosuchtag", 1, 9, "tag 'nosuchtag is undefined"),
    ("enum T = 'a || 'b\nlet x = 'c", 2, 9, "tag 'c is undefined"),
    # type errors
    ("acyclic W", 1, 9, "relation expected"),
    ("irreflexive R | W", 1, 13, "relation expected"),
    ("let x = po | W", 1, 14, "type rel expected, events found"),
    ("let x = W | po", 1, 13, "type events expected, rel found"),
    ("let x = po & W", 1, 9, "mixing"),
    ("let x = W \\ po", 1, 9, "mixing"),
    ("let x = po * W", 1, 9, "type events expected, rel found"),
    ("let x = [po]", 1, 10, "type events expected, rel found"),
    ("let x = W+", 1, 9, "type rel expected, events found"),
    ("let x = W^-1", 1, 9, "type rel expected, events found"),
    ("let x = domain(W)", 1, 9, "argument mismatch"),
    ("let x = po ; W", 1, 14, "type rel expected, events found"),
    ("let x = po (rf)", 1, 9, "closure or primitive expected"),
    ("enum T = 'a\nlet x = 'a | po", 2, 14, "expected"),
    ("let x = {po, W}", 1, 14, "type rel expected, events found"),
    ("let x = {_}", 1, 10, "universe in explicit set"),
    ("let x = _ ++ {}", 1, 9, "universe in set ++"),
    ("let x = po ++ W", 1, 9, "should be an event"),
    ("let x = match po with 'a -> po end", 1, 15, "matching on non-tag"),
    ("enum T = 'a || 'b\nlet x = match 'b with 'a -> po end", 2, 9, "pattern matching failed"),
    ("let x = match W with 'a -> po end", 1, 15, "matching on non-tag"),
    (
        "let x = match {} with {} -> po || e ++ r -> e end\nlet y = x ; W",
        2,
        13,
        "type rel expected",
    ),
    ("forall x in W do empty x end", 1, 13, "forall instruction applied to non-set value"),
    ("with x from po", 1, 13, "set expected"),
    ("let x = if po subset W then po else 0", 1, 22, "expected"),
    ("let x = if po in W then po else rf", 1, 18, "set expected"),
    # wrong number of arguments
    ("let f(a, b) = a | b\nlet x = f(po)", 2, 9, "wrong number of arguments: expected 2, got 1"),
    ("let f(a, b) = a | b\nlet x = f(po, rf, co0)", 2, 9, "wrong number of arguments"),
    (
        "let x = fencerel(SYNC, LWSYNC)",
        1,
        9,
        "type events expected, (events * events) found (in fencerel",
    ),
    ("let x = ctrlcfence(ISYNC)", 1, 9, "wrong number of arguments: expected 2, got 1"),
    ("procedure p(a, b) = empty a & b end\ncall p(po)", 2, 1, "wrong number of arguments"),
    # includes, fixpoints, procedures
    ('include "no-such-file.cat"', 1, 1, 'cannot find included file "no-such-file.cat"'),
    ("let rec x = ~x", 1, 1, "illegal recursion"),
    ("let rec x = if x = id then loc \\ id else id\nacyclic x", 1, 1, "does not converge"),
    (
        "let y = let rec x = if x = id then loc \\ id else id in x\nacyclic y",
        1,
        9,
        "does not converge",
    ),
    ("let x = po\ncall x(po)", 2, 1, "procedure expected"),
    ("let rec f x = f x\nlet y = f(po)", 1, 15, "recursion too deep"),
    ("let x = fail(po)", 1, 9, "fail on"),
]


def _check(tmp_path: Path, text: str):
    p = tmp_path / "bad.cat"
    p.write_text("M\n" + text + "\n")
    errors = []
    try:
        m = load_model(p)
        errors = m.lint()
        if not errors:  # evaluate once on a tiny skeleton: run-time errors
            from herdsman.graphs.build import W, build

            b = build([[W("x", 1)]])
            m.prepare(b.sk, "PPC").check(b.rel.rf, co=b.rel.co, fw=b.rel.FW)
    except InputError as e:
        errors = [e]
    return p, errors


@pytest.mark.parametrize("text, line, col, what", BAD)
def test_bad_models(tmp_path: Path, text: str, line: int, col: int, what: str) -> None:
    p, errors = _check(tmp_path, text)
    assert errors, f"no error for {text!r}"
    e = errors[0]
    assert what in e.message, e.render()
    assert (e.path, e.line, e.col) == (str(p), line + 1, col), e.render()
    rendered = e.render().splitlines()
    assert rendered[0].startswith(f"{p}:{line + 1}:{col}: error: ")
    assert len(rendered) == 3 and rendered[2] == " " * (col - 1) + "^"
    assert rendered[1] == ("M\n" + text).splitlines()[line]


def test_at_least_fifty() -> None:
    assert len(BAD) >= 50


def test_command_exit_status(tmp_path: Path, capsys) -> None:
    p = tmp_path / "bad.cat"
    p.write_text("M\nlet x = rfx\n")
    assert cli_main(["check", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{p}:2:9: error: unknown relation 'rfx'; did you mean 'rf'?")
    assert "Traceback" not in err
    assert cli_main(["check", "power", "sc"]) == 0
    out = capsys.readouterr().out
    assert "co native" in out and "sc-per-location" in out and "monotone (prunes)" in out
    assert cli_main(["check", "nosuchmodel"]) == 2
    assert "built-in models are" in capsys.readouterr().err


def test_command_reports_one_error_per_model(tmp_path: Path, capsys) -> None:
    """A bad binding that others use, in a model of no architecture (type-checked for
    several): its error once, the first of the model's errors only."""
    p = tmp_path / "frag.cat"
    p.write_text('"frag"\nlet coi = q & int\nlet cox = coi | coi\nlet z = rfx\n')
    assert cli_main(["check", str(p)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"{p}:2:11: error: unknown name 'q'", "let coi = q & int", " " * 10 + "^"]
    assert [e.line for e in load_model(p).lint()] == [2, 4]


def test_command_subprocess_no_traceback(tmp_path: Path) -> None:
    p = tmp_path / "bad.cat"
    p.write_text("M\nlet x = po |\n")
    r = subprocess.run(
        [sys.executable, "-m", "herdsman.herd_compat.cli.cat_check", "check", str(p)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith(f"{p}:2:13: error: syntax error: unexpected end of file")
