"""bench/herd_instruction_tests.py on a small tree laid out as herdtools7's
(``herd/tests/instructions/<ARCH>``): it tallies a test whose output is herd's as
*same*, one with another expected output as *differ*, one herdsman rejects as
*refused*, one herd rejects too as *both refuse*; without a tree it says so and exits 0."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.bench import load_bench

DATA = Path(__file__).resolve().parents[1] / "data" / "aarch64" / "alu"


def _bench():
    return load_bench("herd_instruction_tests")


def test_tallies_on_a_small_tree(tmp_path: Path, capsys) -> None:
    d = tmp_path / "herd" / "tests" / "instructions" / "AArch64"
    d.mkdir(parents=True)
    shutil.copy(DATA / "F2.litmus", d / "F2.litmus")
    shutil.copy(DATA / "F2.expected", d / "F2.litmus.expected")
    shutil.copy(DATA / "F3.litmus", d / "F3.litmus")
    shutil.copy(DATA / "F2.expected", d / "F3.litmus.expected")  # not F3's: differs
    (d / "U.litmus").write_text("AArch64 U\n{ }\nP0 ;\nCASP X0,X1,X2,X3,[X4] ;\n")
    (d / "U.litmus.expected").write_text("Test U Allowed\n")
    (d / "E.litmus").write_text("AArch64 E\n{ }\nP0 ;\nFOO ;\n")
    (d / "E.litmus.expected-failure").write_text("Warning: ...\n")
    argv = ["--herdtools7", str(tmp_path), "--archs", "AArch64", "--jobs", "1", "--show"]
    assert _bench().main(argv) == 0
    out = capsys.readouterr().out
    row = next(x for x in out.splitlines() if x.startswith("AArch64 "))
    assert row.split() == ["AArch64", "4", "1", "1", "1", "1", "0"]
    assert "refused     AArch64/U" in out and "unsupported AArch64 instruction 'CASP'" in out
    assert "differ      AArch64/F3  line 1: ours 'Test F3 Required', herd 'Test F2 Allowed'" in out


def test_without_a_tree_it_says_so(tmp_path: Path, capsys) -> None:
    assert _bench().main(["--herdtools7", str(tmp_path / "none")]) == 0
    assert "not found" in capsys.readouterr().out
