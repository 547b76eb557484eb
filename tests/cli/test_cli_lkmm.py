"""The Linux-kernel memory model run unchanged: ``herdsman herd7 -conf linux-kernel.cfg``
with herd's bell, macro and cat files (``../shared/linux``) prints herd's blocks."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.herd_compat.cli.herd7opts import parse_herd7_args
from herdsman.herd_compat.cli.run import run_tests


def _herd7(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    cfg, _ = parse_herd7_args(argv)
    rc = run_tests(cfg, out, err)
    return rc, out.getvalue(), err.getvalue()


def _blocks(text: str) -> dict[str, str]:
    """herd's blocks by test name, without their Time line."""
    out = {}
    for block in re.split(r"\n(?=Test )", text.strip()):
        name = block.split()[1]
        out[name] = re.sub(r"(?m)^Time .*\n", "", block.strip() + "\n")
    return out


def _lkmm_args() -> list[str]:
    linux = shared_path("linux")
    return ["-I", str(linux / "cats"), "-conf", str(linux / "cfgs" / "linux-kernel.cfg")]


def test_the_shared_kernel_tests_print_herds_blocks() -> None:
    """The 79 tests of ``../shared/linux/tests``, blocks identical to herd's current
    release (``.expected``) but for ``Time``."""
    tests = sorted(shared_path("linux", "tests").glob("*.litmus"))
    assert len(tests) == 79
    differ = _differing(tests)
    assert not differ, f"{len(differ)} differ: {differ[:10]}"


def _differing(tests: list[Path]) -> list[str]:
    """The tests whose block is not the one in ``TEST.expected`` (but for Time)."""
    rc, out, err = _herd7([*_lkmm_args(), *map(str, tests)])
    assert rc == 0 and err == ""
    got = _blocks(out)
    assert len(got) == len(tests)
    differ = []
    for t in tests:
        want = Path(str(t) + ".expected").read_text().strip() + "\n"
        if got.get(want.split()[1]) != want:
            differ.append(t.name)
    return differ


DATA = Path(__file__).resolve().parents[1] / "data" / "lkmm"


@pytest.mark.parametrize("folder", ["kernel", "primitives"])
def test_kernel_and_primitive_tests_print_herds_blocks(folder: str) -> None:
    """The kernel's own tests (``Documentation/litmus-tests``, and
    ``tools/memory-model/litmus-tests``'s one missing from ../shared) and our tests of
    each family of the .def file's primitives: blocks identical to herd7 7.58's
    (``.expected``, the lkmmv2 semantics of linux-kernel.cfg, which 7.57 lacks)."""
    tests = sorted((DATA / folder).glob("*.litmus"))
    assert len(tests) >= 13 and not _differing(tests)


def test_options_on_the_command_line_equal_the_conf_file() -> None:
    """``-macros``, ``-bell``, ``-model`` and ``-variant`` given one by one run as the
    conf file."""
    cats = shared_path("linux", "cats")
    test = str(shared_path("linux", "tests", "MP+polocks.litmus"))
    argv = ["-macros", str(cats / "linux-kernel.def"), "-bell", str(cats / "linux-kernel.bell")]
    argv += ["-model", str(cats / "linux-kernel.cat"), "-variant", "lkmmv2", test]
    rc, out, _ = _herd7(argv)
    rc2, out2, _ = _herd7([*_lkmm_args(), test])
    assert rc == rc2 == 0 and _blocks(out) == _blocks(out2)
    assert "Observation MP+polocks Never 0 3" in out


def test_the_conf_file_sets_herds_picture_options() -> None:
    cfg, _ = parse_herd7_args([*_lkmm_args()])
    pic = cfg.picture
    assert pic.graph == "columns" and pic.squished and pic.fontsize == 8
    assert (pic.xscale, pic.yscale, pic.arrowsize, pic.pad) == (2.0, 1.5, 0.8, 0.1)
    assert pic.movelabel and not pic.show_init_writes and pic.splines == "spline"
    assert ("co", "color", "blue") in pic.edge_attrs and "lkmmv2" in cfg.variants
    assert cfg.bell is not None and cfg.macros is not None


def test_pictures_follow_the_conf_file(tmp_path: Path) -> None:
    test = str(shared_path("linux", "tests", "MP+poonceonces.litmus"))
    rc, _, _ = _herd7([*_lkmm_args(), "-show", "prop", "-o", str(tmp_path), test])
    assert rc == 0
    dot = (tmp_path / "MP+poonceonces.dot").read_text()
    assert "fontsize=8" in dot and "splines=spline" in dot and 'arrowsize="0.800000"' in dot


def test_without_the_variant_the_bell_flags_it() -> None:
    """The bell's own check: without ``lkmmv2`` herd flags the run (and herdsman too)."""
    cats = shared_path("linux", "cats")
    test = str(shared_path("linux", "tests", "SB+poonceonces.litmus"))
    argv = ["-macros", str(cats / "linux-kernel.def"), "-bell", str(cats / "linux-kernel.bell")]
    rc, out, _ = _herd7([*argv, "-model", str(cats / "linux-kernel.cat"), test])
    assert rc == 0 and "Flag this-model-requires-variant-higher-than-lkmmv1" in out


@pytest.mark.parametrize("engine", ["trust", "rsmc", "operational"])
def test_lock_events_need_the_reference_engine(engine: str) -> None:
    test = str(shared_path("linux", "tests", "MP+polocks.litmus"))
    rc, out, err = _herd7([*_lkmm_args(), "-engine", engine, test])
    assert rc == 2 and out == ""
    assert "does not take herd's lock and SRCU events" in err
