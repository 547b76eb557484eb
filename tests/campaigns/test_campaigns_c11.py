"""The 69 C11 litmus tests of ../shared/c11 as a campaign against herd7 7.57's log: herd's
own ``rc11.cat``, unmodified, and the built-in ``rc11`` give herd's blocks byte for byte
(``Time`` aside), on the reference explorer and on TruSt."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
from herdsman.herd_compat.pipeline.inputs import read_index

#: herd7 7.57's Hash of the shared imm-R2.litmus as it is (run on the file itself); the
#: log's block was made from another text of the test: herd7 7.57 on the file says
#: ``Never 0 19`` (herd's C po orders a read-modify-write's read before its write), as
#: herdsman does, where the log says ``Sometimes 1 19``.
IMM_R2_HASH = "21e090460096e5a839ee629a5ee6b67b"


@pytest.mark.parametrize(
    ("model", "engine"),
    [("herd", "reference"), ("herd", "trust"), ("rc11", "trust"), ("rc11", "reference")],
)
def test_c11_tests_as_herd7(tmp_path: Path, model: str, engine: str) -> None:
    c11 = shared_path("c11")
    cat = str(c11 / "cat" / "rc11.cat") if model == "herd" else model
    cfg = CampaignConfig(
        inputs=read_index(str(c11 / "tests" / "@all")),
        expect=str(c11 / "herd7-c11.log"),
        model=cat,
        engine=engine,
        db=str(tmp_path / "c11.sqlite"),
        progress=False,
    )
    outcome = run_campaign(cfg, io.StringIO(), io.StringIO())
    assert len(outcome.rows) == 69
    other = {r.name: r for r in outcome.rows if r.category != "identical"}
    assert set(other) == {"imm-R2"}, {n: r.category for n, r in other.items()}
    imm = other["imm-R2"]
    assert imm.category == "verdict"
    assert "Observation imm-R2 Never 0 19" in imm.result_text
    assert imm.result_text.rstrip().endswith(f"Hash={IMM_R2_HASH}")
