"""ARM, RISC-V and X86_64 exactness: herd's blocks, byte for byte except ``Time``.

Every Nth test of the shared ARM and RISC-V campaigns (``../shared/arm``,
``../shared/riscv``) under herd's own model (``arm.cat``, ``riscv.cat``, unmodified) and
under the built-in ``arm`` and ``riscv``, against herd7 7.57's logs; RSMC (``cb^arm``) on
ARM tests as well.  The RISC-V log's entries for the ``SF_THESIS`` folder were made from
older versions of those files (herd7 run on the current ones gives our blocks), so the
sample leaves that folder out.  X86_64 tests (``tests/data/x86_64``) against herd7's
output on them.  The whole campaigns are ``bench/campaign.py --sets arm,riscv``.
"""

from __future__ import annotations

import contextlib
import io
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import ROOT, shared_path

from herdsman.herd_compat.cli.main import main
from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.formats.herdlog import parse_herd_log, read_herd_log

#: Every how many tests of each campaign the sample takes.
STRIDE = {"arm": 60, "riscv": 50}


@lru_cache(maxsize=4)
def expected(arch: str) -> dict[str, str]:
    """herd's block of each test of a campaign's log, without its Time line."""
    log = shared_path(arch, f"herd7-{arch}.log")
    return {b.name: _untimed(format_result(b)) for b in read_herd_log(log)}


def _untimed(block: str) -> str:
    return "".join(line for line in block.splitlines(True) if not line.startswith("Time "))


def sample(arch: str) -> list[str]:
    tests = shared_path(arch, "tests")
    files = [f for f in (tests / "@all").read_text().split() if not f.startswith("SF_THESIS/")]
    return files[:: STRIDE[arch]]


def run_blocks(argv: list[str], cwd: Path) -> dict[str, str]:
    """``herdsman herd7 ARGV`` run in ``cwd``: its blocks by test name, without Time."""
    out = io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out):
        assert main(["herd7", *argv]) == 0
    return {b.name: _untimed(format_result(b)) for b in parse_herd_log(out.getvalue())}


@pytest.mark.parametrize("arch", ["arm", "riscv"])
@pytest.mark.parametrize("model", ["herd", "builtin"])
def test_sample_identical_to_herd(arch: str, model: str) -> None:
    tests = shared_path(arch, "tests")
    files = sample(arch)
    spec = str(shared_path(arch, "cat", f"{arch}.cat")) if model == "herd" else arch
    got = run_blocks(["-model", spec, *files], tests)
    want = expected(arch)
    assert len(got) == len(files)
    bad = [name for name, block in got.items() if want[name] != block]
    assert not bad, f"{len(bad)} blocks differ from herd's, first {bad[0]}:\n{got[bad[0]]}"


def test_rsmc_on_arm_gives_herds_blocks() -> None:
    tests = shared_path("arm", "tests")
    files = sample("arm")[::2]
    got = run_blocks(["-model", "arm", "-engine", "rsmc", *files], tests)
    want = expected("arm")
    assert [n for n, b in got.items() if want[n] != b] == []


def test_default_models_are_the_builtin_ones() -> None:
    tests = shared_path("riscv", "tests")
    files = sample("riscv")[:10]
    assert run_blocks(files, tests) == run_blocks(["-model", "riscv", *files], tests)


X86_64 = ROOT / "tests" / "data" / "x86_64"


@pytest.mark.parametrize("test", sorted(p.name for p in X86_64.glob("*.litmus")))
def test_x86_64_identical_to_herd(test: str) -> None:
    got = run_blocks([test], X86_64)
    want = (X86_64 / test).with_suffix(".expected").read_text()
    assert "".join(got.values()) == want


def test_graph_explorers_refuse_what_they_cannot_explore(capsys) -> None:
    """A store-conditional's failure and herd's single-event amos: TruSt and RSMC say so
    in one line; ``auto`` runs the reference engine, with herd's answer under sc."""
    tests = shared_path("riscv", "tests")
    lrsc = "ATOMICS/BASIC_2_THREAD/LB+poxxs.litmus"
    amo = "AMO_X0_2_THREAD/2+2W+po+poarar+NEW.litmus"
    for engine, test in (("trust", lrsc), ("rsmc", amo)):
        out = io.StringIO()
        with contextlib.chdir(tests), contextlib.redirect_stdout(out):
            assert main(["herd7", "-model", "sc", "-engine", engine, test]) == 2
        assert "reference engine" in capsys.readouterr().err
    got = run_blocks(["-model", "sc", lrsc], tests)
    assert "Positive: 0 Negative: 40" in got["LB+poxxs"]  # herd7 -model sc.cat: 32 states
