"""A test's record crosses from a campaign's worker to its parent whole."""

from __future__ import annotations

import pickle

from conftest import ROOT

from herdsman.engine.outcome import StateCount
from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, run_file

EXAMPLES = ROOT / "litmus" / "examples"


def test_a_record_travels_whole() -> None:
    cfg = RunConfig(model="tso")
    rec = run_file(str(EXAMPLES / "x86" / "SB.litmus"), cfg, ModelCache(cfg))
    assert isinstance(rec, Done)
    back = pickle.loads(pickle.dumps(rec))
    assert back == rec and back.test == rec.test and back.outcome.stats == rec.outcome.stats
    assert all(type(c) is StateCount for c in back.outcome.states.values())
    assert format_result(back.herd_block()) == format_result(rec.herd_block())
