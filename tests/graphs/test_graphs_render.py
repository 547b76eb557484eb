"""Pictures drawn as images by the renderer pip brings (graphviz-pure), with a system
``dot`` as the fallback and a clear error without either; and how they read: threads side
by side in order, initial writes above, no edge label over a node (measured on the
layout of every bundled litmus example)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from support.pictures import layout

from herdsman.graphs import render as rmod
from herdsman.graphs.build import R, W, build
from herdsman.graphs.dot import PictureOptions, to_dot
from herdsman.graphs.render import Renderer, RenderError, find_renderer, render, render_all
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, run_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "litmus" / "examples"


def _sb() -> str:
    b = build([[W("x", 1), R("y", 0)], [W("y", 1), R("x", 0)]])
    return to_dot(b.graph, test_name="SB", model_name="TSO")


def test_graphviz_pure_is_found_without_installing_graphviz() -> None:
    r = find_renderer()
    assert r.name == "graphviz-pure", "graphviz-pure is a dependency: pip installs it"


@pytest.mark.parametrize("fmt, magic", [("svg", b"<svg"), ("png", b"\x89PNG\r\n\x1a\n")])
def test_render_svg_and_png(tmp_path: Path, fmt: str, magic: bytes) -> None:
    out = render(_sb(), tmp_path / f"sb.{fmt}")
    data = out.read_bytes()
    assert (magic in data[:400]) if fmt == "svg" else data.startswith(magic)


def test_render_all_draws_each_text_once() -> None:
    images = render_all([_sb(), _sb().replace("Test SB", "Test SB2")], "svg")
    assert len(images) == 2
    assert b"Test SB," in images[0] and b"Test SB2" in images[1]


def test_render_reports_a_failure() -> None:
    with pytest.raises(RenderError, match="graphviz-pure failed: .*syntax error"):
        render_all(["digraph G { a -> }"], "svg")


def test_no_renderer_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rmod.shutil, "which", lambda _name: None)
    monkeypatch.setattr(rmod, "_scripts_dirs", lambda: [])
    with pytest.raises(RenderError, match="pip install graphviz-pure.*apt-get install graphviz"):
        find_renderer()


def test_a_system_dot_where_it_is_the_only_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rmod.shutil, "which", lambda n: "/usr/bin/dot" if n == "dot" else None)
    monkeypatch.setattr(rmod, "_scripts_dirs", lambda: [])
    assert find_renderer() == Renderer("dot", "/usr/bin/dot")


def test_a_renderer_that_hangs_is_stopped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    slow = tmp_path / "slow"
    slow.write_text("#!/bin/sh\nsleep 30\n")
    slow.chmod(slow.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(rmod, "RENDER_SECONDS", 0.3)
    monkeypatch.setattr(rmod, "RENDER_PER_PICTURE", 0.0)
    with pytest.raises(RenderError, match="took more than 0.3 s"):
        render_all([_sb()], "svg", renderer=Renderer("slow", str(slow)))


# ----------------------------------------------------------------------------- how they read


def _pictures(folder: str, model: str | None) -> list[tuple[str, str]]:
    """The first two executions drawn of every bundled test in ``folder``."""
    out = []
    for mode in ("cluster", "columns"):
        cfg = RunConfig(model=model, show="all", nshow=2, outdir=os.devnull)
        cfg.picture = PictureOptions(graph=mode)
        models = ModelCache(cfg)
        for path in sorted((EXAMPLES / folder).glob("*.litmus")):
            rec = run_file(str(path), cfg, models)
            assert isinstance(rec, Done), rec
            out += [(f"{path.name} ({mode})", p) for p in rec.pictures]
    return out


@pytest.mark.parametrize("folder, model", [("ppc", None), ("x86", None), ("c", "tso")])
def test_bundled_examples_read_like_herds_pictures(folder: str, model: str | None) -> None:
    """Threads left to right in order, the initial writes above the threads, and no edge
    label over an event, in herd's two layouts with threads (cluster, columns)."""
    pictures = _pictures(folder, model)
    assert len(pictures) > 20
    for name, text in pictures:
        got = layout(text)
        cols = got.thread_columns()
        assert cols == sorted(cols), f"{name}: threads drawn in the order {cols}"
        assert not got.init_below_threads(), f"{name}: an initial write below a thread"
        assert not got.labels_over_nodes(), f"{name}: labels over events {got.labels_over_nodes()}"
