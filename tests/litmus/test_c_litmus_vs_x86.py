"""C litmus tests against X86 ones: tests/support/x86_to_c.py's C version of every shared X86 test
has the X86 test's final states under tso and sc; and the C examples
(litmus/examples/c) give the verdicts their shapes are known for."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path
from support import x86_to_c as X86_TO_C

from herdsman.cat.api import load_model
from herdsman.engine.run import run_program
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Loc, RegLoc, Value
from herdsman.litmus.c import lower_c_litmus, parse_c_litmus
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "litmus" / "examples" / "c"
MODELS = ("tso", "sc")
CHUNKS = 8  # the corpus test in parts, so that pytest -n spreads it


def _final_states(outcome, keep: set[Loc], rename=None) -> set[tuple[tuple[str, Value], ...]]:
    """The final states of ``outcome`` on the locations ``keep`` (after ``rename``)."""
    out = set()
    for state in outcome.states:
        row = {}
        for loc, v in zip(outcome.observed, state, strict=True):
            loc = rename(loc) if rename else loc
            if loc in keep:
                row[str(loc)] = v
        out.add(tuple(sorted(row.items())))
    return out


def _to_c_loc(loc: Loc) -> Loc:
    if isinstance(loc, RegLoc):
        return RegLoc(loc.tid, X86_TO_C.c_register(loc.reg))
    return loc


def _c_program(path: Path, target: str = "tso"):
    return lower_c_litmus(parse_c_litmus(path.read_text(), str(path)), target=target)


def check_same_states(x86: Path, tmp: Path, models: dict) -> None:
    """The C version of ``x86`` (written in ``tmp``) has its final states under ``models``."""
    c_path = tmp / f"{x86.stem}.litmus"
    c_path.write_text(X86_TO_C.convert_file(x86))
    x86_prog = lower(parse_file(x86))
    c_prog = _c_program(c_path)
    for name, model in models.items():
        x86_out = run_program(x86_prog, model)
        c_out = run_program(c_prog, model)
        keep = {_to_c_loc(loc) for loc in x86_out.observed}
        assert keep <= set(c_out.observed), (x86.name, name, keep, c_out.observed)
        want = _final_states(x86_out, keep, _to_c_loc)
        got = _final_states(c_out, keep)
        assert want and got == want, (x86.name, name, sorted(want), sorted(got))
        runs = [sum(c.executions for c in o.states.values()) for o in (x86_out, c_out)]
        assert runs[0] == runs[1], (x86.name, name, runs)  # as many executions, too


def _x86_corpus() -> list[Path]:
    base = shared_path("x86")
    files = sorted((base / "tests").glob("*.litmus")) + sorted(
        (base / "generated").glob("*.litmus")
    )
    assert len(files) == 475, len(files)  # 23 herd tests + 452 generated
    return files


@pytest.mark.shared
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_shared_x86_test_as_c_has_the_same_states(chunk, tmp_path):
    models = {m: load_model(m) for m in MODELS}
    for x86 in _x86_corpus()[chunk::CHUNKS]:
        check_same_states(x86, tmp_path, models)


def test_bundled_x86_examples_as_c_have_the_same_states(tmp_path):
    """The X86 examples (LOCK'd adds and XCHGs among them) agree with their C versions."""
    models = {m: load_model(m) for m in MODELS}
    for x86 in sorted((ROOT / "litmus" / "examples" / "x86").glob("*.litmus")):
        check_same_states(x86, tmp_path, models)


# ----------------------------------------------------------------------------- generator

BRANCHY = """X86 branchy
"written for this test: flags, forward jumps, arithmetic"
{ 0:ECX=2; y=3; }
 P0           | P1           ;
 MOV EAX,[x]  | MOV [x],$1   ;
 CMP EAX,$1   | MOV EBX,[y]  ;
 JNE L0       | ADD EBX,$-3  ;
 MOV [y],$5   | JE L1        ;
 L0:          | MOV [x],$2   ;
 ADD ECX,EAX  | L1:          ;
 JMP L2       | LOCK; INC [z];
 MOV [z],$9   | SFENCE       ;
 L2:          | MOV EDX,EBX  ;
exists (0:EAX=1 /\\ 0:ECX=3 /\\ [y]=5 /\\ 1:EDX=0 /\\ x=1)
"""


def test_branches_flags_and_arithmetic_become_c(tmp_path):
    path = tmp_path / "branchy.litmus"
    path.write_text(BRANCHY)
    text = X86_TO_C.convert_file(path)
    assert "if (r0 == 1) {" in text  # CMP EAX,$1; JNE L0 skips the store unless EAX=1
    assert "r1 = r1 - 3;" in text and "if (r1 != 0) {" in text  # ADD EBX,$-3; JE L1
    assert "\tint r2 = 2;" in text and "r2 = r2 + r0;" in text
    assert "atomic_fetch_add_explicit(z, 1, memory_order_seq_cst);" in text
    assert "smp_wmb();" in text and "$9" not in text and "= 9" not in text  # JMP skips it
    assert "exists (0:r0=1 /\\ 0:r2=3 /\\ [y]=5 /\\ 1:r3=0 /\\ x=1)" in text
    assert "y = 3;" in text
    (tmp_path / "c").mkdir()
    check_same_states(path, tmp_path / "c", {m: load_model(m) for m in MODELS})


@pytest.mark.parametrize(
    ("cells", "why"),
    [
        (" MOV EAX,[EBX] ;\n L0: ;\n JMP L0 ;", "backward jump"),
        (" JE L0 ;\n L0: ;", "flags it tests"),
        (" MOV %r,$1 ;", "symbolic register"),
        (" MOVB [x],$1 ;", "1-byte store"),
        (" CMP EAX,$0 ;\n JE L0 ;\n L1: ;\n MOV [x],$1 ;\n L0: ;\n JMP L1 ;", "do not nest"),
        (" CMP EAX,$0 ;\n MOV EAX,[x] ;\n JE L0 ;\n L0: ;", "flags it tests"),
    ],
)
def test_what_has_no_c_equivalent_is_refused(tmp_path, cells, why):
    path = tmp_path / "bad.litmus"
    path.write_text(f"X86 bad\n{{ }}\n P0 ;\n{cells}\nexists (0:EAX=0)\n")
    with pytest.raises(InputError) as exc:
        X86_TO_C.convert_file(path)
    assert "no C equivalent" in exc.value.message and why in exc.value.message
    assert str(exc.value).startswith(f"{path}:0:0: error: ")


def test_register_names_map_both_ways():
    assert X86_TO_C.c_register("EAX") == "r0" and X86_TO_C.c_register("EDX") == "r3"
    assert X86_TO_C.x86_register("r5") == "EDI"
    t = parse_text("X86 t\n{ }\n P0 ;\n MOV EAX,[x] ;\nlocations [0:EBX;]\nexists (P0:EAX=1)\n")
    text = X86_TO_C.x86_to_c(t, "locations [0:EBX;]\nexists (P0:EAX=1)")
    assert text.endswith("locations [0:r1;]\nexists (P0:r0=1)\n")
    assert "\tint r1 = 0;" in text  # only in the condition: declared, zero


def test_cli_writes_one_file_per_test_and_reports_refusals(tmp_path, capsys):
    good = ROOT / "litmus" / "examples" / "x86" / "MP.litmus"
    bad = tmp_path / "loop.litmus"
    bad.write_text("X86 loop\n{ }\n P0 ;\n L0: ;\n JMP L0 ;\nexists (0:EAX=0)\n")
    out = tmp_path / "out"
    assert X86_TO_C.main([str(good), str(bad), "-o", str(out)]) == 2
    assert [p.name for p in out.iterdir()] == ["MP.litmus"]
    captured = capsys.readouterr()
    assert "1 C tests written" in captured.out and "1 refused" in captured.out
    assert f"{bad}:0:0: error: no C equivalent" in captured.err


# ----------------------------------------------------------------------------- examples

#: (exists condition reachable under sc, under tso) for each example of litmus/examples/c.
EXPECTED = {
    "2+2W": (False, False),
    "CAS+cmpxchgs": (False, False),
    "CS+spinlocks": (False, False),
    "CoRR": (False, False),
    "IRIW": (False, False),
    "IRIW+mbs": (False, False),
    "LB": (False, False),
    "LB+ctrl": (False, False),
    "MP": (False, False),
    "MP+c11": (False, False),
    "MP+rel+acq": (False, False),
    "MP+wmb+rmb": (False, False),
    "R": (False, True),
    "S": (False, False),
    "SB": (False, True),
    "SB+c11sc": (False, False),
    "SB+mbs": (False, False),
    "SB+xchgs": (False, False),
    "WRC": (False, False),
}


def test_examples_are_the_listed_ones():
    assert sorted(p.stem for p in EXAMPLES.glob("*.litmus")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_verdicts_under_sc_and_tso(name):
    path = EXAMPLES / f"{name}.litmus"
    test = parse_c_litmus(path.read_text(), str(path))
    assert test.name == name
    assert test.condition.quant == "exists"
    prog = lower_c_litmus(test, target="tso")
    for model, want in zip(MODELS[::-1], EXPECTED[name], strict=True):
        out = run_program(prog, load_model(model))
        assert out.states, (name, model)
        reached = any(c.satisfies for c in out.states.values())
        assert reached == want, (name, model)
