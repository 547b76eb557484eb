"""The kernel's expected results (``Result:`` lines) judged as ``judgelitmus.sh`` does
(``herd_compat/formats/results.py``), and ``validate --expect results``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
from herdsman.herd_compat.formats.compare import compare
from herdsman.herd_compat.formats.herd_block import HerdBlock
from herdsman.herd_compat.formats.results import judge, result_expectation

DATA = Path(__file__).resolve().parents[1] / "data" / "lkmm"


def _block(obs: str, pos: int, neg: int, flags: tuple[str, ...] = ()) -> HerdBlock:
    return HerdBlock(
        "T", "Allowed", [], "Ok", pos, neg, "exists (0:r0=1)", obs, pos, neg, flags=list(flags)
    )


def _exp(result: str):
    text = f"C T\n\n(*\n * Result: {result}\n *)\n\n{{}}\n"
    exp = result_expectation(text, "t.litmus")
    assert exp is not None and exp.name == "T"
    return exp


@pytest.mark.parametrize(
    ("result", "block", "ok"),
    [
        ("Never", ("Never", 0, 3), True),
        ("Never", ("Sometimes", 1, 2), False),
        ("Sometimes", ("Sometimes", 1, 2), True),
        ("Always", ("Always", 3, 0), True),
        ("Maybe", ("Never", 0, 3), True),
        ("DEADLOCK", ("Never", 0, 0), True),
        ("DEADLOCK", ("Never", 0, 3), False),
        ("Never", ("Never", 0, 0), False),  # an unexpected deadlock
        ("Maybe", ("Never", 0, 0), False),
    ],
)
def test_judgelitmus_rules(result: str, block: tuple[str, int, int], ok: bool) -> None:
    assert judge(_block(*block), _exp(result)).ok is ok


def test_data_races_must_be_predicted() -> None:
    race = ("data-race",)
    assert judge(_block("Sometimes", 1, 1, race), _exp("Sometimes DATARACE")).ok
    assert not judge(_block("Sometimes", 1, 1), _exp("Sometimes DATARACE")).ok
    assert not judge(_block("Sometimes", 1, 1, race), _exp("Sometimes")).ok
    j = judge(_block("Sometimes", 1, 1, race), _exp("Never DATARACE"))  # forgiven
    assert j.ok and "forgiven" in j.why


def test_a_mismatch_says_what_was_expected() -> None:
    c = compare(_block("Sometimes", 1, 2), _exp("Never"))
    assert c.category == "verdict"
    assert c.details["herd_verdict"] == "Result: Never"
    assert c.details["our_verdict"] == "Observation T Sometimes 1 2"


def test_a_test_without_result_has_no_expectation() -> None:
    assert result_expectation("C T\n{}\nP0(int *x) {}\n", "t.litmus") is None


def test_validate_the_kernel_tests_against_their_result_lines(tmp_path: Path) -> None:
    linux = shared_path("linux")
    cfg = CampaignConfig(
        inputs=[str(DATA / "kernel")],
        expect="results",
        model=str(linux / "cats" / "linux-kernel.cat"),
        bell=str(linux / "cats" / "linux-kernel.bell"),
        macros=str(linux / "cats" / "linux-kernel.def"),
        variants={"lkmmv2"},
        db=str(tmp_path / "k.sqlite"),
        progress=False,
    )
    out = run_campaign(cfg, out=io.StringIO(), err=io.StringIO())
    assert out.status == 0 and len(out.rows) == 13
    assert all(r.category == "identical" for r in out.rows)
