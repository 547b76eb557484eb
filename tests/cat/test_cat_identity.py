"""A model's identity (``cat.identity``): decided from its text, never from its file's
name; the table of built-in models; herd's own files known as the models they are."""

from __future__ import annotations

import pytest
from conftest import ROOT, shared_path

from herdsman.cat.api import BUILTINS, load_model, load_model_text, resolve_spec
from herdsman.cat.identity import MODELS_DIR, OTHER, builtin_names, digest
from herdsman.engine.options import RunOptions
from herdsman.engine.run import run_program
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.c.target import TARGETS
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

TSO_TEXT = (MODELS_DIR / "tso.cat").read_text()
#: a model of its own: tso with sequential consistency required too
OWN_TEXT = TSO_TEXT + "\nacyclic po | rf | co | fr as mine\n"


def facts(spec, **kw) -> tuple:
    i = load_model(spec, **kw).identity
    return (i.family, i.machine, i.target, i.arch)


def test_builtins() -> None:
    assert facts("sc") == ("sc", "sc", "tso", None)
    assert facts("tso") == ("tso", "tso", "tso", "X86")
    assert facts("pso") == ("pso", "pso", "pso", None)
    assert facts("power") == ("power", None, "power", "PPC")
    aliases = {"x86tso": "tso", "x86-tso": "tso", "ppc": "power", "PPC": "power"}
    for alias, family in aliases.items():
        assert facts(alias)[0] == family
    assert load_model("tso").identity.builtin


def test_the_table() -> None:
    names = builtin_names()
    assert len(names) == len(set(names))
    for b in BUILTINS:
        assert b.path.is_file() and b.path.parent == MODELS_DIR, b
        assert b.target in TARGETS, b
        assert load_model(b.name).identity.family == b.name
        assert b.machine in (None, "sc", "tso", "pso"), b


@pytest.mark.parametrize(
    "name, family, machine",
    [("sc.cat", "sc", "sc"), ("x86tso.cat", "tso", "tso"), ("tso.cat", "tso", "tso")]
    + [("ppc.cat", "power", None)],
)
def test_herds_files_are_the_models_they_are(name: str, family: str, machine: str) -> None:
    i = load_model(shared_path("herd-cat", name)).identity
    assert (i.family, i.machine) == (family, machine)


def test_herds_other_files_are_other() -> None:
    for name in ("cos.cat", "fences.cat", "x86fences.cat"):
        assert load_model(shared_path("herd-cat", name)).identity.family == OTHER


def test_content_decides_not_the_name(tmp_path) -> None:
    own = tmp_path / "tso.cat"  # named tso, axioms of its own
    own.write_text(OWN_TEXT)
    assert facts(own) == (OTHER, None, "c", "X86")
    copy = tmp_path / "mine.cat"  # another name, tso's text (comments and layout aside)
    copy.write_text("(* my copy *)\n" + TSO_TEXT.replace(" | ", "  |  ").replace("\n\n", "\n"))
    assert facts(copy) == ("tso", "tso", "tso", "X86")
    assert load_model_text(TSO_TEXT).identity.family == "tso"
    assert digest("a (* x *) b\n\n c") == digest("a b c") != digest("a c b")


def test_a_name_with_no_file_selects_the_builtin(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # as herd: -model ppc.cat with no such file
    assert resolve_spec("ppc.cat") == MODELS_DIR / "power.cat"
    assert facts("ppc.cat")[0] == "power" and facts("x86tso.cat")[0] == "tso"
    (tmp_path / "tso.cat").write_text(OWN_TEXT)
    assert facts("tso.cat")[0] == OTHER  # a file of that name: its text decides
    with pytest.raises(InputError, match="built-in models are"):
        load_model("nosuch")


def test_skipped_checks_leave_no_machine() -> None:
    assert facts("tso", skipchecks=("tso",)) == ("tso", None, "tso", "X86")
    assert facts("tso", through=True)[1] is None
    assert facts("tso", skipchecks=("nosuch",))[1] == "tso"


def test_the_operational_engine_runs_only_its_machines(tmp_path) -> None:
    sb = lower(parse_file(str(ROOT / "litmus" / "examples" / "x86" / "SB.litmus")))
    opts = RunOptions(engine="operational")
    assert run_program(sb, load_model("tso"), opts).positive > 0
    own = tmp_path / "tso.cat"
    own.write_text(OWN_TEXT)
    with pytest.raises(InputError, match="operational engine runs the machines"):
        run_program(sb, load_model(own), opts)
    axiomatic = run_program(sb, load_model(own), RunOptions(engine="trust"))
    assert axiomatic.positive == 0  # its own axioms: SB's relaxed outcome is forbidden
