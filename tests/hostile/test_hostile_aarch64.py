"""Hostile AArch64 inputs: malformed tests, instructions herdsman does not model, and
models with constructs it does not know each give one clean error (exit status 2), never
a traceback nor a silent wrong answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import one_error

from herdsman.herd_compat.cli.main import main

GOOD = """AArch64 T
{ 0:X1=x; 1:X1=x; }
 P0          | P1          ;
 MOV W0,#1   | LDR W0,[X1] ;
 STR W0,[X1] |             ;
exists (1:X0=1)
"""

#: (a change of GOOD, a piece of the error line it must give)
BAD_TESTS = [
    ("MOV W0,#1   |", "MOV W0,#1   | MOV W0,#1 |", "this row has 3 cells"),
    ("STR W0,[X1] |", "CASPAL W0,W1,W2,W3,[X1] |", "unsupported AArch64 instruction 'CASPAL'"),
    ("STR W0,[X1] |", "SWPB W0,W2,[X1] |", "unsupported AArch64 instruction 'SWPB'"),
    ("STR W0,[X1] |", "LDUMIN W0,W2,[X1] |", "unsupported AArch64 instruction 'LDUMIN'"),
    ("STR W0,[X1] |", "CAS W0,W2 |", "missing operand"),
    ("STR W0,[X1] |", "STR W0,[X1,X2],#8 |", "post-indexing of 'STR' takes [Xn],#k"),
    ("STR W0,[X1] |", "STR W0,[X1 |", "missing ']'"),
    ("STR W0,[X1] |", "STR W0,X1 |", "expected a memory operand"),
    ("STR W0,[X1] |", "STR W40,[X1] |", "expected a register"),
    ("STR W0,[X1] |", "B.HS L |", "unknown AArch64 instruction 'B.HS'"),  # herd reads no HS
    ("STR W0,[X1] |", "LDP X0,X0,[X1] |", "loads X0 twice"),
    ("STR W0,[X1] |", "B Nowhere |", "branch to label 'Nowhere'"),
    ("STR W0,[X1] |", "B .+6 |", "branch offset '.+6' is not a multiple of 4"),
    ("STR W0,[X1] |", "B .-8 |", "branch offset '.-8' leaves the thread's code"),
    ("STR W0,[X1] |", "DMB FULL |", "unknown barrier option 'FULL'"),
    ("STR W0,[X1] |", "Str W0,[X1] |", "unknown AArch64 instruction 'Str'"),
    ("{ 0:X1=x; 1:X1=x; }", "{ 0:X1=x; 1:W1=x; }", "error"),
    ("exists (1:X0=1)", "exists (1:X99=1)", "error"),
]


@pytest.mark.parametrize("old, new, why", BAD_TESTS, ids=[b[2] for b in BAD_TESTS])
def test_malformed_tests(
    old: str, new: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "bad.litmus"
    f.write_text(GOOD.replace(old, new, 1))
    for argv in (["parse", str(f)], ["herd7", str(f)], ["run", str(f)]):
        err = one_error(capsys, argv)
        assert why in err and err.startswith(str(f)), err


def test_good_test_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "good.litmus"
    f.write_text(GOOD)
    assert main(["herd7", str(f)]) == 0
    assert "Observation T Sometimes 1 1" in capsys.readouterr().out


#: models the AArch64 tests may meet, each with one construct herdsman does not know
BAD_MODELS = [
    ('"m"\ncatdep\nlet x = po | unknown-relation\nacyclic x\n', "unknown name 'unknown-relation'"),
    ('"m"\ncatdep\nacyclic po | ob2 as t\n', "unknown name 'ob2'"),
    ('AArch64 "m"\ncatdep\nwith x frm (all-enums po)\n', "error"),
    ('"m"\ncatdep\nacyclic po; [DMB.XYZ]; po\n', "unknown set 'DMB.XYZ'"),
]


@pytest.mark.parametrize("text, why", BAD_MODELS)
def test_models_with_unknown_constructs(
    text: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat = tmp_path / "bad.cat"
    cat.write_text(text)
    test = tmp_path / "good.litmus"
    test.write_text(GOOD)
    rc = main(["herd7", "-model", str(cat), str(test)])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and "internal error" not in err, err
    first = err.splitlines()[0]
    assert first.startswith(str(cat)) and why in first, err
