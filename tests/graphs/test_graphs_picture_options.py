"""herd's picture options on the DOT text (``graphs/dot.py`` ``PictureOptions``): the
``-graph`` modes, ``-showevents``, ``-squished``, ``-showinitwrites``, ``-showthread``,
``-doshow``/``-unshow``, the caption saying which execution a picture is, and the note
on files holding several graphs; rendered with Graphviz when it is installed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from herdsman.cat.api import load_model
from herdsman.engine.run import RunOptions, run_program
from herdsman.graphs.dot import PictureOptions, to_dot
from herdsman.graphs.render import render
from herdsman.herd_compat.formats.dots import execution_pictures
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

ROOT = Path(__file__).resolve().parents[2]
MP = ROOT / "litmus" / "examples" / "ppc" / "MP+lwsync+addr.litmus"


def _witness():
    test = parse_file(MP)
    out = run_program(lower(test), load_model("power"), RunOptions(show="all"))
    return test, out


def _dot(**kw) -> str:
    test, out = _witness()
    w = out.witnesses[0]
    return to_dot(
        w.graph, test_name=test.name, model_name="PPC", shows=w.shows, options=PictureOptions(**kw)
    )


def test_cluster_is_herds_default() -> None:
    text = _dot()
    assert "subgraph cluster_proc0" in text and "subgraph cluster_proc1" in text
    assert 'label="Thread 0"' in text
    assert "pos=" not in text


def test_columns_pins_threads_side_by_side() -> None:
    text = _dot(graph="columns")
    assert "cluster" not in text
    pos = {
        m.group(1): (float(m.group(2)), float(m.group(3)))
        for m in re.finditer(r'(eiid\d+) \[label="[^"]*"[^\]]*pos="([\d.]+),([\d.]+)!"', text)
    }
    assert len(pos) == 7  # 5 thread events and 2 initial writes
    xs = {x for x, _ in pos.values()}
    assert len(xs) >= 2  # two columns
    # thread 0's events go down in program order
    t0 = [pos[n] for n in ("eiid0", "eiid6", "eiid1")]
    assert t0[0][0] == t0[1][0] == t0[2][0] and t0[0][1] > t0[1][1] > t0[2][1]
    assert "proc0_label_node" in text and "proc1_label_node" in text


def test_free_labels_po_with_the_thread() -> None:
    text = _dot(graph="free")
    assert "cluster" not in text and 'label="po:0"' in text
    assert 'label="po:0"' not in _dot(graph="free", show_thread=False)


def test_showevents_squished_initwrites_thread() -> None:
    assert "Lwsync" in _dot() and "Lwsync" not in _dot(show_events="mem")
    assert "Lwsync" in _dot(show_events="memfence")
    squished = _dot(squished=True)
    assert "proc:P0" not in squished and 'label="a: W[x]=1"' in squished
    assert "Init" not in _dot(show_init_writes=False)
    assert 'label="Thread 0"' not in _dot(show_thread=False)


def test_doshow_and_unshow() -> None:
    plain = _dot()
    assert 'label="fr"' in plain
    assert 'label="fr"' not in _dot(unshow=frozenset({"fr"}))
    assert 'label="rf"' not in _dot(unshow=frozenset({"rf"}))
    assert 'label="loc"' in _dot(doshow=frozenset({"loc"}))


def test_each_picture_says_which_execution_it_is() -> None:
    test, out = _witness()
    pics = execution_pictures(out.witnesses, test.name, "PPC", out.observed, "PPC")
    assert len(pics) == len(out.witnesses) > 1
    for n, text in enumerate(pics, 1):
        assert f"\\nexecution {n} of {len(pics)}: 1:r1=" in text


@pytest.mark.parametrize("mode", ["cluster", "columns", "free"])
@pytest.mark.parametrize("layout", ["dot", "neato"])
def test_every_mode_renders(tmp_path: Path, mode: str, layout: str) -> None:
    """With graphviz-pure (a dependency), in each -graph mode, by dot and by neato (the
    columns' pinned positions)."""
    png = tmp_path / f"mp-{mode}.png"
    render(_dot(graph=mode), png, engine=layout)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _herd7(capsys, *argv: str) -> tuple[int, str, str]:
    from herdsman.herd_compat.cli.main import main

    rc = main(["herd7", *argv])
    got = capsys.readouterr()
    return rc, got.out, got.err


def test_herd7_picture_options_and_conf_files(capsys, tmp_path: Path) -> None:
    conf = tmp_path / "pics.conf"
    conf.write_text("# a user's herd configuration\ngraph columns\nsquished true\nshowevents mem\n")
    rc, _, err = _herd7(capsys, "-conf", str(conf), "-show", "all", "-o", str(tmp_path), str(MP))
    assert rc == 0, err
    text = (tmp_path / "MP+lwsync+addr.dot").read_text()
    assert text.startswith("/* 3 graphs: render each with 'dot -Tpng -O")
    assert text.count("digraph G") == 3 and "cluster" not in text and "pos=" in text
    assert "Lwsync" not in text and "proc:P0" not in text
    assert "note: a .dot file holding several executions" in err


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["-graph", "bogus"], "'bogus' is not one of cluster, columns, free"),
        (["-showevents", "regs"], "is not one of"),
        (["-doshow", "ppo"], "herdsman draws the relations the model shows"),
    ],
)
def test_herd7_bad_picture_options(capsys, argv: list[str], needle: str) -> None:
    rc, _, err = _herd7(capsys, *argv, str(MP))
    assert rc == 2 and needle in err and err.count("\n") == 1


def test_herd7_viewers_say_what_is_done_instead(capsys, tmp_path: Path) -> None:
    rc, _, err = _herd7(capsys, "-gv", "-show", "prop", "-o", str(tmp_path), str(MP))
    assert rc == 0 and "herdsman opens no viewer" in err
