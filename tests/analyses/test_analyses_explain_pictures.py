"""``explain``'s pictures read like herd's too once the violated check's cycle is drawn
over them: threads in order, the initial writes above, no label (the cycle's long
``AXIOM: relation`` ones included) over an event — on every bundled POWER and X86
test."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from support.pictures import layout

from herdsman.herd_compat.analyses.explain.report import ExplainConfig, explain
from herdsman.litmus.base.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("folder, model", [("ppc", "power"), ("x86", "sc")])
def test_explain_pictures_read_well(tmp_path: Path, folder: str, model: str) -> None:
    drawn = 0
    for test in sorted((ROOT / "litmus" / "examples" / folder).glob("*.litmus")):
        out = tmp_path / test.stem
        out.mkdir()
        cfg = ExplainConfig(model=model, test=str(test), outdir=str(out), limit=2)
        try:
            explain(cfg, io.StringIO())
        except InputError as e:  # a condition explain does not take: no picture
            assert "condition" in e.message, e
            continue
        for dot in out.glob("*.dot"):
            got = layout(dot.read_text())
            cols = got.thread_columns()
            assert cols == sorted(cols), f"{dot.name}: threads in the order {cols}"
            assert not got.init_below_threads(), dot.name
            assert not got.labels_over_nodes(), f"{dot.name}: {got.labels_over_nodes()}"
            drawn += 1
    assert drawn > 10
