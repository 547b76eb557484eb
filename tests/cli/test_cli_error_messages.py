"""Errors that point the right way (issue 13, item 4): each names the culprit and says what
to do, in one line (a cat file's: the line, its source line and a caret)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from herdsman.cat.api import DeadlinePassed, cpu_deadline, load_model_text
from herdsman.cat.library import defining_files
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.herd_compat.cli.cat_check import LEGEND
from herdsman.herd_compat.cli.herd7opts import OptionError, variant_tags
from herdsman.herd_compat.cli.main import main
from herdsman.herd_compat.pipeline.limits import CpuTimeLimit

EXAMPLES = Path(__file__).resolve().parents[2] / "litmus" / "examples"
SB = str(EXAMPLES / "x86" / "SB.litmus")
LB_PPC = str(EXAMPLES / "ppc" / "LB.litmus")


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_library_name_says_which_file_to_include(tmp_path: Path, capsys) -> None:
    model = tmp_path / "noco.cat"
    model.write_text('"m"\nlet com = rf | co | fr\nacyclic po | com as sc\n')
    rc, out, err = _run(capsys, ["run", "--model", str(model), SB])
    assert rc == 2 and out == ""
    first, src, caret = err.splitlines()
    assert first == (
        f"{model}:2:16: error: unknown name 'co': it is defined in the built-in library; "
        'add include "cos.cat"'
    )
    assert src == "let com = rf | co | fr" and caret == " " * 15 + "^"
    assert defining_files("mfence") == ("x86fences.cat",)
    assert defining_files("fr") == ("cos.cat",)
    assert defining_files("no-such-name") == ()
    typo = tmp_path / "typo.cat"  # a name no library file defines keeps the usual hint
    typo.write_text('"m"\nacyclic pox as sc\n')
    rc, _, err = _run(capsys, ["run", "--model", str(typo), SB])
    assert rc == 2 and "did you mean 'po'?" in err.splitlines()[0]


def test_include_search_path_names_every_directory(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("inc.cat").write_text('"m"\ninclude "nothere.cat"\n')
    rc, _, err = _run(capsys, ["run", "--model", "inc.cat", "-I", str(tmp_path / "lib"), SB])
    assert rc == 2
    assert err.splitlines()[0] == (
        f"inc.cat:2:1: error: cannot find included file \"nothere.cat\" (searched '.', "
        f"'{tmp_path / 'lib'}', the built-in library)"
    )


def test_refusals_blame_the_model_not_the_test(capsys) -> None:
    rc, _, err = _run(capsys, ["run", "--model", "power", "--engine", "trust", LB_PPC])
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith("power:0:0: error: TruSt cannot explore model power")
    assert err.rstrip().endswith(f"(for {LB_PPC})")
    rc, _, err = _run(capsys, ["run", "--model", "power", "--engine", "operational", LB_PPC])
    assert rc == 2 and err.startswith("power:0:0: error: the operational engine runs")
    rc, _, err = _run(capsys, ["run", "--model", "power", SB])
    assert rc == 2
    assert err == (
        f"power:0:0: error: model power is for PPC, test {SB} is X86 (architecture mismatch)\n"
    )


def test_a_negated_axiom_is_shown_negated(tmp_path: Path, capsys) -> None:
    model = tmp_path / "ne.cat"
    model.write_text('"m"\ninclude "cos.cat"\n~empty rf as some_rf\nacyclic po | rf | co as x\n')
    rc, out, err = _run(capsys, ["cat", "check", str(model)])
    assert rc == 0 and err == ""
    assert "~empty        some_rf" in out
    rc, _, err = _run(capsys, ["run", "--model", str(model), "--engine", "trust", SB])
    assert rc == 2 and "its axiom 'some_rf' (~empty)" in err


def test_cat_check_explains_its_words(capsys) -> None:
    rc, out, _ = _run(capsys, ["cat", "check", "sc"])
    assert rc == 0 and out.splitlines()[-1] == "(herdsman cat check --help explains the columns)"
    rc, out, _ = _run(capsys, ["cat", "check", "--help"])
    assert rc == 0 and LEGEND in out
    for word in ("native", "generic", "none", "decided", "stable", "monotone", "unknown"):
        assert f"\n  {word} " in LEGEND
    assert "(prunes)" in LEGEND and "skipped" in LEGEND


@pytest.mark.parametrize("flag", ["--model", "-m"])
def test_an_option_given_twice_is_refused(capsys, flag: str) -> None:
    rc, out, err = _run(capsys, ["run", "--model", "sc", flag, "tso", SB])
    assert rc == 2 and out == ""
    also = "" if flag == "--model" else " (as --model, then -m)"
    assert err == f"herdsman run: error: option {flag} given twice{also}: give it once\n"
    rc, _, err = _run(capsys, ["verify", "--timeout", "1", "--timeout", "2", "x.c"])
    assert rc == 2 and "option --timeout given twice" in err


def test_variant_tags_are_herds(capsys) -> None:
    assert variant_tags("mixed,cos-opt T01") == {"mixed", "cos-opt", "T01"}
    with pytest.raises(OptionError, match="nonsense is a bad tag for -variant"):
        variant_tags("deps,nonsense")
    rc, _, err = _run(capsys, ["herd7", "-variant", "nonsense", SB])
    assert rc == 2 and err.startswith("herdsman herd7: error: nonsense is a bad tag for -variant")
    rc, _, err = _run(capsys, ["run", "--variant", "nonsense", SB])
    assert rc == 2 and err.startswith("herdsman run: error: nonsense is a bad tag for --variant")


def test_directories_and_output_directories(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, out, err = _run(capsys, ["run", str(empty)])
    assert (rc, out) == (2, "")
    assert err == f"{empty}:0:0: error: no litmus tests (*.litmus) in this directory\n"
    afile = tmp_path / "f"
    afile.write_text("")
    rc, _, err = _run(capsys, ["herd7", "-o", str(afile), SB])
    assert rc == 2 and err.startswith(f"{afile}:0:0: error: output directory is not a directory")


def test_c_tests_in_parse_say_where_they_are_read(capsys) -> None:
    rc, _, err = _run(capsys, ["parse", str(EXAMPLES / "c" / "LB.litmus")])
    assert rc == 2 and "C litmus tests are read by 'herdsman run'" in err


#: A ``let rec`` over values, iterated to its fixpoint when the model is compiled.
GROWING = '"m"\nlet rec s = {po} | map (fun r -> r | (r;r)) s\nacyclic po as x\n'


def test_let_rec_honours_the_cpu_deadline_in_any_thread() -> None:
    assert load_model_text(GROWING, "grow.cat").axioms  # it converges without a deadline
    with pytest.raises(DeadlinePassed), cpu_deadline(time.process_time() - 1):
        assert load_model_text(GROWING, "grow.cat").axioms
    caught: list[str] = []

    def worker() -> None:  # no alarm here (not the main thread): the cooperative check
        try:
            with CpuTimeLimit(0):
                assert load_model_text(GROWING, "grow.cat").axioms
            caught.append("finished")
        except TimeLimitExceeded:
            caught.append("time limit")

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert caught == ["time limit"]
