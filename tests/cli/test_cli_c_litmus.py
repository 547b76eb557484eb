"""C litmus tests through ``herdsman run`` and ``herdsman herd7``: herd's block (with
herd's hash of C tests), the built-in models through the C11/kernel mappings, and a
user's cat model that speaks of herd's C annotation sets."""

from __future__ import annotations

from pathlib import Path

from herdsman.herd_compat.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "litmus" / "examples" / "c"

# A model for C tests written against herd's annotation sets: sequential consistency,
# plus a flag raised by every execution with a release write read by an acquire read.
ANNOTATED = """C annotations
include "cos.cat"
acyclic po | rf | co | fr as sc
flag ~empty ([W & Release]; rf; [R & Acquire]) as release-acquire
"""


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    got = capsys.readouterr()
    return rc, got.out, got.err


def test_run_prints_herds_block(capsys) -> None:
    rc, out, err = _run(capsys, "run", "--model", "tso", str(EXAMPLES / "SB.litmus"))
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "Test SB Allowed" and "Ok" in lines
    assert "Condition exists (0:r0=0 /\\ 1:r0=0)" in lines
    assert lines[-2].startswith("Hash=") and len(lines[-2]) == len("Hash=") + 32
    rc, out, _ = _run(capsys, "herd7", "-model", "sc", str(EXAMPLES / "SB.litmus"))
    assert rc == 0 and "\nNo\n" in out and "Observation SB Never 0 3" in out


def test_user_model_sees_annotations(capsys, tmp_path) -> None:
    model = tmp_path / "annot.cat"
    model.write_text(ANNOTATED)
    rc, out, err = _run(capsys, "run", "--model", str(model), str(EXAMPLES / "MP+rel+acq.litmus"))
    assert rc == 0, err
    assert "Flag release-acquire" in out.splitlines()
    assert "\nNo\n" in out  # sequentially consistent: the message is never lost


def test_c_test_needs_a_model(capsys) -> None:
    rc, _, err = _run(capsys, "run", str(EXAMPLES / "SB.litmus"))
    assert rc == 2
    assert err.count("\n") == 1 and ": error: no default model for architecture C" in err
