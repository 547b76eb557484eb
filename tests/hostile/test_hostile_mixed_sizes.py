"""Hostile inputs to herd's mixed-size rules (``litmus.sizes``): offsets written every way
herd reads them give herd's own line (herd7 7.57 prints ``[x+-4]`` for a negative one),
computed addresses never crash the static reading, and a long thread is read once."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import one_error

from herdsman.herd_compat.cli.main import main

REJECTED = [
    # (thread code, init, herd's message)
    (
        "LDR W0,[X1,#-4]",
        "0:X1=x;",
        "mixed-size test rejected (symbol [x+-4]), consider option -variant mixed",
    ),
    (
        "LDR W0,[X1,X2]",
        "0:X1=x; 0:X2=8;",
        "mixed-size test rejected (symbol [x+8]), consider option -variant mixed",
    ),
    ("SUB X3,X1,#0 ; STR X0,[X3] ; LDRH W0,[X1]", "0:X1=x;", "Illegal mixed-size test"),
    (  # a scaled index register (herd7 7.57 names x+12)
        "LDR W0,[X1,X2,LSL #2]",
        "0:X1=x; 0:X2=3;",
        "mixed-size test rejected (symbol [x+12]), consider option -variant mixed",
    ),
]


@pytest.mark.parametrize("code, init, message", REJECTED, ids=[r[0] for r in REJECTED])
def test_offsets_and_sizes_refused_as_herd(
    code: str, init: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "H.litmus"
    body = "".join(f" {ins.strip()} ;\n" for ins in code.split(";"))
    f.write_text(f"AArch64 H\n{{ {init} }}\n P0 ;\n{body}exists (0:X0=1)\n")
    err = one_error(capsys, ["herd7", str(f)])
    assert f"error: {message}" in err, err


def test_addresses_from_memory_and_loops_are_not_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pointer read from memory, an address register a loop changes: not known
    statically, not judged (the test runs)."""
    f = tmp_path / "L.litmus"
    f.write_text(
        "AArch64 L\n{ int *p = &x; 0:X1=p; 0:X4=x; }\n P0 ;\n LDR X2,[X1] ;\n"
        " LDR W3,[X2] ;\n L0: ;\n LDR W5,[X4] ;\n ADD X4,X4,#0 ;\n CBZ X5,L0 ;\n"
        "exists (0:X3=0)\n"
    )
    assert main(["herd7", str(f)]) == 0
    assert "Test L Allowed" in capsys.readouterr().out


def test_a_long_thread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "T.litmus"
    code = "".join(f" STR W0,[X1,#{4 * (i % 2)}] ;\n" for i in range(4000))
    f.write_text(
        f"AArch64 T\n{{ int x[2]; 0:X1=x; }}\n P0 ;\n MOV W0,#1 ;\n{code}"
        " LDR X0,[X1] ;\nexists (0:X0=1)\n"
    )
    err = one_error(capsys, ["herd7", str(f)])
    assert "Illegal mixed-size test (x accessed as word and quad)" in err
