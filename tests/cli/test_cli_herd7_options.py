"""herd7's options, index files, -conf/-names/-conds files, condition splicing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from herdsman.herd_compat.cli.herd7opts import OptionError, parse_herd7_args
from herdsman.herd_compat.formats.conds import condition_span, replace_condition
from herdsman.herd_compat.formats.dots import dot_base
from herdsman.herd_compat.pipeline.inputs import (
    expand_test_args,
    read_conds,
    read_index,
    read_names,
)
from herdsman.herd_compat.pipeline.models import resolve_model_spec
from herdsman.litmus.base.errors import InputError


def test_herd7_options(tmp_path: Path) -> None:
    cfg, st = parse_herd7_args(
        [
            "-model",
            "ppc.cat",
            "-I",
            "d1",
            "-I",
            "d2",
            "-variant",
            "mixed,cos-opt",
            "-variant",
            "deps",
            "-show",
            "prop",
            "-nshow",
            "3",
            "-o",
            "out",
            "-through",
            "invalid",
            "-skipchecks",
            "sc-per-location,no-thin-air",
            "-skipcheck",
            "observation",
            "-candidates",
            "true",
            "-optace",
            "true",
            "-unroll",
            "3",
            "-checkfilter",
            "false",
            "-speedcheck",
            "false",
            "-timeout",
            "2.5",
            "-suffix",
            "_x",
            "-q",
            "A.litmus",
            "B.litmus",
        ]
    )
    assert cfg.model == "ppc.cat" and cfg.include_dirs == ["d1", "d2"]
    assert cfg.variants == {"mixed", "cos-opt", "deps"}
    assert (cfg.show, cfg.nshow, cfg.outdir, cfg.suffix) == ("prop", 3, "out", "_x")
    assert cfg.through is True
    assert cfg.skipchecks == ["sc-per-location", "no-thin-air", "observation"]
    assert cfg.candidates and cfg.unroll == 3 and not cfg.checkfilter
    assert cfg.limits.time_limit == 2.5 and cfg.tests == ["A.litmus", "B.litmus"]
    assert not st.version and not st.help
    cfg, _ = parse_herd7_args(
        [
            "-show",
            "none",
            "-through",
            "none",
            "-optace",
            "iico",
            "-showone",
            "true",
            "-cat",
            "sc",
            "T.litmus",
        ]
    )
    assert cfg.show is None and not cfg.through and cfg.variants == set()
    assert cfg.nshow == 1 and cfg.model == "sc"
    assert parse_herd7_args(["-version"])[1].version
    assert parse_herd7_args(["-help"])[1].help


@pytest.mark.parametrize(
    "argv",
    [
        ["-x"],
        ["-show"],
        ["-show", "some"],
        ["-nshow", "x"],
        ["-candidates", "perhaps"],
        ["-speedcheck", "bogus"],
        ["-through", "everything"],
        ["--model", "sc"],
    ],
)
def test_herd7_bad_options(argv: list[str]) -> None:
    with pytest.raises(OptionError):
        parse_herd7_args(argv + ["T.litmus"])


def test_conf_file(tmp_path: Path) -> None:
    (tmp_path / "m.cat").write_text('"M"\n')
    conf = tmp_path / "run.cfg"
    conf.write_text(
        "# herd configuration\nmodel m.cat\nshow  wit # trailing comment\n"
        "variant mixed\ncandidates true\n"
    )
    cfg, _ = parse_herd7_args(["-conf", str(conf), "-variant", "deps", "T.litmus"])
    assert cfg.model == str(tmp_path / "m.cat")  # relative to the conf file
    assert cfg.show == "wit" and cfg.variants == {"mixed", "deps"} and cfg.candidates
    conf.write_text("-conf " + str(conf) + "\n")
    with pytest.raises(InputError, match="includes itself"):
        parse_herd7_args(["-conf", str(conf), "T.litmus"])
    conf.write_text("\n\nnshow lots\n")
    with pytest.raises(InputError) as e:
        parse_herd7_args(["-conf", str(conf), "T.litmus"])
    assert e.value.header() == f"{conf}:3:1: error: option -nshow: expected a number, found 'lots'"


def test_index_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "more").write_text("C.litmus\n/abs/D.litmus\n")
    idx = tmp_path / "all"
    idx.write_text("A.litmus\n# comment\n\n  B.litmus  \n@sub/more\n")
    want = [
        str(tmp_path / "A.litmus"),
        str(tmp_path / "B.litmus"),
        str(tmp_path / "sub" / "C.litmus"),
        "/abs/D.litmus",
    ]
    assert read_index(str(idx)) == want
    assert expand_test_args(["X.litmus", f"@{idx}"]) == ["X.litmus"] + want
    loop = tmp_path / "loop"
    loop.write_text("@loop\n")
    with pytest.raises(InputError, match="includes itself"):
        read_index(str(loop))


def test_index_of_power_tests(shared: Path) -> None:
    files = read_index(str(shared / "power" / "tests" / "@all"))
    assert len(files) == 8141 and all(Path(f).is_file() for f in files[:50])
    cfg, _ = parse_herd7_args([f"@{shared / 'power' / 'tests' / '@all'}"])
    assert cfg.tests == files


def test_directories(tmp_path: Path) -> None:
    for name in ("b.litmus", "a.litmus", "sub/c.litmus", "notes.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x")
    assert expand_test_args([str(tmp_path)]) == [
        str(tmp_path / "a.litmus"),
        str(tmp_path / "b.litmus"),
        str(tmp_path / "sub" / "c.litmus"),
    ]
    assert expand_test_args([str(tmp_path)], allow_dirs=False) == [str(tmp_path)]


def test_names_and_conds_files(tmp_path: Path) -> None:
    names = tmp_path / "names"
    names.write_text("MP\n# no\nSB extra words\n\n")
    assert read_names(str(names)) == {"MP", "SB"}
    conds = tmp_path / "conds"
    conds.write_text(
        'MP "exists\n(1:r1=1 /\\ 1:r3=0)\n"\nSB ~exists (0:r1=0)\n# c\nLB "forall (true)"\n'
    )
    assert read_conds(str(conds)) == {
        "MP": ("exists\n(1:r1=1 /\\ 1:r3=0)\n", 1),
        "SB": ("~exists (0:r1=0)", 4),
        "LB": ("forall (true)", 6),
    }
    conds.write_text('MP "exists (x=1)\n')
    with pytest.raises(InputError, match="unterminated"):
        read_conds(str(conds))


def test_power_conds_file(shared: Path) -> None:
    conds = read_conds(str(shared / "power" / "tests" / "conds.txt"))
    assert len(conds) > 900
    cond, line = conds["2+2W+isync+po"]
    assert cond.split() == ["exists", "(x=1", "/\\", "y=1)"] and line == 1


MP = """PPC MP
"PodWW Rfe PodRR Fre"
Cycle=Rfe PodRR Fre PodWW
{
0:r2=x; 0:r4=y;
1:r2=y; 1:r4=x;
}
 P0           | P1           ;
 li r1,1      | lwz r1,0(r2) ;
 stw r1,0(r2) | lwz r3,0(r4) ;
exists
(1:r1=1 /\\ 1:r3=0)
"""


def test_condition_span() -> None:
    s, e = condition_span(MP)
    assert MP[s:e] == "exists\n(1:r1=1 /\\ 1:r3=0)\n"
    assert replace_condition(MP, "~exists (1:r1=0)").endswith(" ;\n~exists (1:r1=0)\n")
    with_locs = MP.replace("exists\n", "locations [0:r1; x;]\nexists\n")
    s, _ = condition_span(with_locs)
    assert with_locs[s:].startswith("exists\n(1:r1")
    filtered = MP.replace("exists\n", "filter (1:r1=1)\nforall\n")
    s, _ = condition_span(filtered)
    assert filtered[s:].startswith("forall\n(1:r1")
    commented = MP.replace(" ;\nexists", ' ;\n(* exists here *)\n"exists" ~ exists')
    s, _ = condition_span(commented)
    assert commented[s:].startswith("~ exists")
    trailer = MP + "<< anything exists >>\n"
    s, e = condition_span(trailer)
    assert trailer[s:e].startswith("exists") and trailer[e:].startswith("<<")
    nocond = MP[: MP.index("exists")]
    assert condition_span(nocond) == (len(nocond), len(nocond))
    unterminated_doc = MP.replace('"PodWW Rfe PodRR Fre"', '"PodWW Rfe')  # as in b5.litmus
    s, _ = condition_span(unterminated_doc)
    assert unterminated_doc[s:].startswith("exists\n(1:r1")


def test_condition_span_on_every_test(shared: Path) -> None:
    """The splice point is a quantifier in every test of the campaign (8141 + X86)."""
    files = sorted((shared / "power" / "tests").glob("*.litmus"))
    files += sorted((shared / "x86").rglob("*.litmus"))
    for f in files:
        text = f.read_text()
        s, e = condition_span(text)
        assert text[s:e].lstrip().startswith(("exists", "~exists", "forall", "final")), f


def test_small_helpers(tmp_path: Path) -> None:
    assert dot_base("dir/MP+lwsync.litmus") == "MP+lwsync" and dot_base("x/T.lit") == "T"
    (tmp_path / "m.cat").write_text("")
    assert resolve_model_spec("m.cat", [str(tmp_path)]) == str(tmp_path / "m.cat")
    assert resolve_model_spec("power", [str(tmp_path)]) == "power"


def test_index_files_named_as_herd_names_them(tmp_path: Path, monkeypatch) -> None:
    """herd's rule: an argument or line whose base name starts with '@' is an index file
    read at that very path ('herd7 @all' reads the file '@all')."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "@more").write_text("C.litmus\n")
    (tmp_path / "@all").write_text("A.litmus\n@sub/@more\nsub/@more\n")
    want = [str(tmp_path / "A.litmus")] + [str(tmp_path / "sub" / "C.litmus")] * 2
    assert expand_test_args([str(tmp_path / "@all")]) == want
    monkeypatch.chdir(tmp_path)
    rel = ["A.litmus", os.path.join("sub", "C.litmus"), os.path.join("sub", "C.litmus")]
    assert expand_test_args(["@all"]) == rel
    assert expand_test_args(["@@all"]) == rel  # herdsman's @PATH form, PATH being '@all'
    assert expand_test_args(["B.litmus", "sub/@more"]) == ["B.litmus", "sub/C.litmus"]
    with pytest.raises(InputError) as e:
        expand_test_args(["@none"])
    assert e.value.header() == "@none:0:0: error: no such file"
