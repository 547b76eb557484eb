"""Fences written into programs: litmus tests (``litmus/fencing.py``) and C programs
(``litmus/c/fencing.py``).

Litmus: for the example tests and samples of herd's X86 and POWER tests in ../shared,
placed fences give text that parses, keeps everything but the threads, has the expected
items where the origin map says, and round-trips; dependencies and fences change what
the models allow as they should.  C: peterson fenced before its wait loop parses, lowers
with the fence in both threads, and becomes safe under TSO; odd statement shapes stay
valid C; a line without a statement is an error.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from conftest import ROOT, shared_path

from herdsman.cat.api import load_model
from herdsman.engine.outcome import Outcome
from herdsman.engine.run import RunOptions, run_program
from herdsman.litmus.base.ir import Branch, Fence, Label, Load, Op
from herdsman.litmus.c import c_program_from_text
from herdsman.litmus.c.fencing import FENCE, fenced_c_text
from herdsman.litmus.c.parse import parse_c
from herdsman.litmus.c.preprocess import preprocess
from herdsman.litmus.fencing import KINDS, FencePlacement, fenced_test
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text
from herdsman.litmus.printer import print_test
from herdsman.litmus.test import Instruction, LitmusTest

EXAMPLES = ROOT / "litmus" / "examples"
PROGRAMS = EXAMPLES / "programs"
SAMPLE = 50

#: Code items a placement of each kind inserts.
SIZES = {"MFENCE": 1, "sync": 1, "lwsync": 1, "ctrl": 3, "ctrlisync": 4}


@cache
def model(name: str):
    return load_model(name)


def run(test: LitmusTest, model_name: str) -> Outcome:
    return run_program(lower(test), model(model_name))


# ----------------------------------------------------------------------------- litmus helpers


def placements_for(test: LitmusTest, seed: str) -> list[FencePlacement]:
    """Fences at the start, the end and a random point of every thread, and (PPC) each
    dependency after a random load of the thread; the same placements again (ignored)."""
    rng = random.Random(seed)
    fences = [k for k in KINDS[test.arch] if k not in ("ctrl", "ctrlisync")]
    out = []
    for tid, code in enumerate(test.threads):
        for before in sorted({0, len(code), rng.randrange(len(code) + 1)}):
            out.append(FencePlacement(tid, before, rng.choice(fences)))
        loads = [
            i + 1
            for i, item in enumerate(code)
            if isinstance(item, Instruction) and isinstance(item.op, Load)
        ]
        if test.arch == "PPC" and loads:
            for kind in ("ctrl", "ctrlisync"):
                out.append(FencePlacement(tid, rng.choice(loads), kind))
    return out + out[:2]


def check_fenced(test: LitmusTest, placements: list[FencePlacement]) -> LitmusTest:
    """The fenced test, after checking its text, its items and its origin map."""
    text, origins = fenced_test(test, placements)
    fenced = parse_text(text)
    assert fenced.name == test.name
    assert (fenced.arch, fenced.doc, fenced.info, fenced.init) == (
        test.arch,
        test.doc,
        test.info,
        test.init,
    )
    assert (fenced.condition, fenced.locations, fenced.filter, fenced.kinds) == (
        test.condition,
        test.locations,
        test.filter,
        test.kinds,
    )
    assert len(origins) == len(fenced.threads) == len(test.threads)
    unique = set(placements)
    for tid, (code, origin) in enumerate(zip(fenced.threads, origins, strict=True)):
        old = test.threads[tid]
        added = sum(SIZES[p.kind] for p in unique if p.thread == tid)
        assert len(code) == len(origin) == len(old) + added
        kept = [i for i in origin if i is not None]
        assert kept == list(range(len(old)))  # every original item, in order
        for item, i in zip(code, origin, strict=True):
            if i is not None:
                assert item == old[i]
        new = [item for item, i in zip(code, origin, strict=True) if i is None]
        fences = [x for x in new if isinstance(x, Instruction) and isinstance(x.op, Fence)]
        deps = [p for p in unique if p.thread == tid and p.kind.startswith("ctrl")]
        isyncs = sum(p.kind == "ctrlisync" for p in unique if p.thread == tid)
        assert len(fences) == sum(p.thread == tid for p in unique) - len(deps) + isyncs
        assert sum(isinstance(x, Label) for x in new) == len(deps)
    labels = [x.name for code in fenced.threads for x in code if isinstance(x, Label)]
    assert len(labels) == len(set(labels))
    # round trip: the text is the printer's, and it parses back to the same test
    assert print_test(fenced) == text
    assert parse_text(print_test(fenced)) == fenced
    return fenced


def shared_sample(folder: str, count: int) -> list[Path]:
    files = sorted(shared_path(*folder.split("/")).glob("*.litmus"))
    step = max(1, len(files) // count)
    return files[::step][:count]


def x86_sample() -> list[Path]:
    """herd's X86 tests (23), completed to 50 with generated ones."""
    tests = shared_sample("x86/tests", SAMPLE)
    return tests + shared_sample("x86/generated", SAMPLE - len(tests))


# ----------------------------------------------------------------------------- litmus: text


@pytest.mark.parametrize("arch", ["x86", "ppc"])
def test_examples_fenced_text_parses_and_maps_back(arch):
    files = sorted((EXAMPLES / arch).glob("*.litmus"))
    assert files
    for f in files:
        test = parse_file(f)
        check_fenced(test, placements_for(test, f.name))


@pytest.mark.shared
@pytest.mark.parametrize("which", ["x86", "power"])
def test_shared_sample_fenced_text_parses_and_maps_back(which):
    files = x86_sample() if which == "x86" else shared_sample("power/tests", SAMPLE)
    assert len(files) == SAMPLE
    for f in files:
        test = parse_file(f)
        check_fenced(test, placements_for(test, f.name))


@pytest.mark.shared
def test_shared_fenced_text_is_herd_syntax():
    """What herd's format allows and the printer must keep to (herd-formats.md): thread
    columns, labels alone in their cell as ``LCnn:``, herd's branch text."""
    for f in shared_sample("power/tests", 10):
        test = parse_file(f)
        text, _ = fenced_test(test, placements_for(test, f.name))
        prog = text.split("}\n", 1)[1]
        rows = [r for r in prog.splitlines() if r.rstrip().endswith(";")]
        assert rows[0].replace(" ", "") == "|".join(f"P{i}" for i in range(test.nthreads)) + ";"
        cells = [c.strip() for r in rows[1:] for c in r.rstrip()[:-1].split("|")]
        for cell in cells:
            if ":" in cell:
                assert re.fullmatch(r"LC\d\d:", cell), cell
            if cell.startswith("beq"):
                assert re.fullmatch(r"beq  LC\d\d", cell), cell


def test_no_placement_gives_the_same_test_and_results():
    for f, model_name in (
        (EXAMPLES / "x86" / "SB.litmus", "tso"),
        (EXAMPLES / "x86" / "INC+locks.litmus", "tso"),
        (EXAMPLES / "ppc" / "MP+lwsync+ctrl.litmus", "power"),
        (EXAMPLES / "ppc" / "IRIW+addrs.litmus", "power"),
    ):
        test = parse_file(f)
        text, origins = fenced_test(test, [])
        again = parse_text(text)
        assert again == test and again.name == test.name
        assert origins == [list(range(len(code))) for code in test.threads]
        a, b = run(test, model_name), run(again, model_name)
        assert (a.states, a.condition_holds) == (b.states, b.condition_holds)


def test_dependency_idiom_is_herds():
    test = parse_file(EXAMPLES / "ppc" / "MP+lwsync+ctrl.litmus")  # P1 already uses LC00
    text, origins = fenced_test(test, [FencePlacement(1, 1, "ctrlisync")])
    rows = text.split("}\n", 1)[1].splitlines()
    p1 = [row.rstrip().removesuffix(";").split("|")[1].strip() for row in rows if "|" in row]
    assert p1[1:6] == ["lwz r1,0(r2)", "cmpw r1,r1", "beq  LC01", "LC01:", "isync"]
    assert origins[1][:6] == [0, None, None, None, None, 1]


def test_same_position_order_and_duplicates():
    test = parse_file(EXAMPLES / "ppc" / "MP.litmus")
    at = [
        FencePlacement(1, 1, "sync"),
        FencePlacement(1, 1, "lwsync"),
        FencePlacement(1, 1, "ctrl"),
        FencePlacement(1, 1, "sync"),
    ]
    text, origins = fenced_test(test, at)
    assert (text, origins) == fenced_test(test, reversed(at))
    new = [x for x, i in zip(parse_text(text).threads[1], origins[1], strict=True) if i is None]
    assert isinstance(new[0], Instruction) and isinstance(new[0].op, Op)  # cmpw first
    assert isinstance(new[1], Instruction) and isinstance(new[1].op, Branch)
    assert isinstance(new[2], Label)
    assert [x.op for x in new[3:]] == [Fence("SYNC"), Fence("LWSYNC")]


# ----------------------------------------------------------------------------- litmus: runs

MP_LWSYNC_PO = """PPC MP+lwsync+po
{
0:r2=x; 0:r4=y;
1:r2=y; 1:r4=x;
}
 P0           | P1           ;
 li r1,1      | lwz r1,0(r2) ;
 stw r1,0(r2) | lwz r3,0(r4) ;
 lwsync       |              ;
 li r3,1      |              ;
 stw r3,0(r4) |              ;
exists (1:r1=1 /\\ 1:r3=0)
"""


def test_ctrlisync_forbids_mp_under_power_but_ctrl_does_not():
    test = parse_text(MP_LWSYNC_PO)
    assert run(test, "power").condition_holds
    outcomes = {}
    for kind in ("ctrl", "ctrlisync", "sync", "lwsync"):
        fenced = check_fenced(test, [FencePlacement(1, 1, kind)])
        outcomes[kind] = run(fenced, "power").condition_holds
    assert outcomes == {"ctrl": True, "ctrlisync": False, "sync": False, "lwsync": False}


def test_mfences_forbid_sb_under_tso():
    test = parse_file(EXAMPLES / "x86" / "SB.litmus")
    assert run(test, "tso").condition_holds
    one = check_fenced(test, [FencePlacement(0, 1, "MFENCE")])
    assert run(one, "tso").condition_holds
    both = check_fenced(test, [FencePlacement(0, 1, "MFENCE"), FencePlacement(1, 1, "MFENCE")])
    assert not run(both, "tso").condition_holds


# ----------------------------------------------------------------------------- litmus: errors

CR0_LIVE = """PPC cr0
{
0:r2=x;
}
 P0           ;
 cmpwi r5,0   ;
 lwz r1,0(r2) ;
 beq L0       ;
 li r3,1      ;
 L0:          ;
exists (0:r1=0)
"""


@pytest.mark.parametrize(
    ("place", "message"),
    [
        (FencePlacement(0, 0, "MFENCE"), "unknown fence kind 'MFENCE'"),
        (FencePlacement(0, 0, "isync"), "unknown fence kind 'isync'"),
        (FencePlacement(2, 0, "sync"), "no thread P2"),
        (FencePlacement(0, 6, "sync"), "outside thread P0"),
        (FencePlacement(0, -1, "sync"), "outside thread P0"),
        (FencePlacement(1, 0, "ctrl"), "needs a load just before it"),
        (FencePlacement(0, 2, "ctrlisync"), "needs a load just before it"),  # after a store
    ],
)
def test_bad_placements(place, message):
    test = parse_file(EXAMPLES / "ppc" / "MP.litmus")
    with pytest.raises(ValueError, match=message):
        fenced_test(test, [place])


def test_dependency_must_not_clobber_a_live_cr0():
    test = parse_text(CR0_LIVE)
    with pytest.raises(ValueError, match="cr0"):
        fenced_test(test, [FencePlacement(0, 2, "ctrl")])
    fenced_test(test, [FencePlacement(0, 2, "sync")])


def test_unsupported_arch():
    test = replace(parse_file(EXAMPLES / "x86" / "SB.litmus"), arch="ARM")
    with pytest.raises(ValueError, match="ARM"):
        fenced_test(test, [FencePlacement(0, 1, "MFENCE")])


# ----------------------------------------------------------------------------- C programs


def wait_loop_line(text: str) -> int:
    return next(i for i, s in enumerate(text.splitlines(), 1) if "while (flag[other]" in s)


def worker_fences(text: str, path: str, target: str = "tso") -> list[list[str]]:
    """Per thread but main, the origins of its fences of ``atomic_thread_fence``."""
    prog = c_program_from_text(text, path, target=target)
    return [
        [o for op, o in zip(t.code, t.origins, strict=True) if isinstance(op, Fence)]
        for t in prog.threads[1:]
    ]


def test_peterson_fenced_before_its_wait_loop():
    path = PROGRAMS / "peterson.c"
    text = path.read_text(encoding="utf-8")
    line = wait_loop_line(text)
    out = fenced_c_text(text, [line], path=str(path))
    # the text is the original but for the include and the fence before the loop
    assert out.replace("#include <stdatomic.h>\n", "").replace(FENCE + " ", "") == text
    assert out.count(FENCE) == 1 and "#include <stdatomic.h>\n" in out
    parse_c(preprocess(out, str(path)), str(path))
    assert worker_fences(text, str(path)) == [[], []]
    for target in ("tso", "power"):
        fences = worker_fences(out, str(path), target)
        assert len(fences) == 2  # the two threads running thread()
        assert all(
            len(f) == 1 and f[0].endswith(": atomic_thread_fence(memory_order_seq_cst)")
            for f in fences
        )
    # the fence is just before the loop's first load in both threads
    prog = c_program_from_text(out, str(path), target="tso")
    for t in prog.threads[1:]:
        first = next(i for i, o in enumerate(t.origins) if "while" in o)
        assert isinstance(t.code[first - 1], Fence)
    # and it is the one TSO needs (peterson_fenced.c)
    opts = RunOptions(stop_on_error=False)
    before = run_program(c_program_from_text(text, str(path)), model("tso"), opts)
    after = run_program(c_program_from_text(out, str(path)), model("tso"), opts)
    assert before.errors and not after.errors


def test_c_fence_lines_stay_and_include_is_not_repeated():
    path = PROGRAMS / "peterson_fenced.c"
    text = path.read_text(encoding="utf-8")
    line = wait_loop_line(text)
    out = fenced_c_text(text, [line, line], path=str(path))
    assert out.count("#include <stdatomic.h>") == 1
    assert out.count("\n") == text.count("\n")  # same lines: the origins keep their numbers
    fences = worker_fences(out, str(path))
    assert all(f"{line}: atomic_thread_fence(memory_order_seq_cst)" in f for f in fences)
    assert fenced_c_text(text, []) == text


SHAPES = """#include <pthread.h>
#define N 2
int x; int y; int *p = &y;

void *worker(void *arg)
{
  int a = 1; const int
     b = 2; /* comment ; { */
  *p = a; ++x; (void)x; (x) = b;
  if (x) *p = 3; else --x;
  if (x == 1)
    x = 7;
  else
    x = 8;
  while (x == 5) ;
  while (x == 6)
     ;
  do x++; while (0);
  for (int i = 0; i < N; i++) { x = i; }
  for (int i = 0; i < N; i++)
    y = i;
  { x = 5; }
  if (y == 1)
  {
    y = 9;
  }
  // a "comment" with ; and {
  x = N; y = ';';
  return 0;
}

int main(void)
{
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  return 0;
}
"""


def statement_lines() -> list[int]:
    rows = SHAPES.splitlines()
    return [
        i
        for i, row in enumerate(rows, 1)
        if 7 <= i <= 30 and row.strip() and not row.strip().startswith(("//", "else", "}"))
    ]


def unfenced(out: str) -> str:
    """``out`` without the include and the one fence (with its braces) inserted."""
    out = out.replace("#include <stdatomic.h>\n", "", 1)
    wrapped = f"{{ {FENCE} "
    if wrapped not in out:
        return out.replace(f"{FENCE} ", "", 1)
    i = out.index(wrapped)
    j = out.index(" }", i)
    return out[:i] + out[i + len(wrapped) : j] + out[j + 2 :]


@pytest.mark.parametrize("line", statement_lines())
def test_c_statement_shapes_stay_valid(line):
    out = fenced_c_text(SHAPES, [line], path="shapes.c")
    assert out.count(FENCE) == 1
    assert unfenced(out) == SHAPES
    assert out.splitlines()[line].count(FENCE) == 1 or line == 8  # b's statement starts on 7
    before = sum(len(f) for f in worker_fences(SHAPES, "shapes.c"))
    assert sum(len(f) for f in worker_fences(out, "shapes.c")) > before


def test_c_all_shapes_at_once():
    lines = statement_lines()
    out = fenced_c_text(SHAPES, lines, path="shapes.c")
    assert out.count(FENCE) == len(lines)
    fences = worker_fences(out, "shapes.c", target="power")
    assert fences[0]  # every fence lowers (loops unrolled may repeat them)
    if shutil.which("gcc") is not None:
        r = subprocess.run(
            ["gcc", "-fsyntax-only", "-std=c11", "-pthread", "-x", "c", "-"],
            input=out,
            capture_output=True,
            text=True,
            check=False,
        )
        assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("line", [1, 3, 5, 6, 13, 26, 27, 30, 31, 1000])
def test_c_line_without_statement(line):
    with pytest.raises(ValueError, match=f"shapes.c:{line}: no statement starts"):
        fenced_c_text(SHAPES, [line], path="shapes.c")


def test_c_macro_expansions_around_a_statement():
    text = (
        "#define LONG_NAME 1\nint x, y;\nint main(void)\n{\n  if (x)\n"
        "    x = LONG_NAME + LONG_NAME; x = 2;\n  if (x)\n"
        "    x = LONG_NAME; y = LONG_NAME;\n  return 0;\n}\n"
    )
    out = fenced_c_text(text, [6])
    assert "{ " + FENCE + " x = LONG_NAME + LONG_NAME; } x = 2;" in out
    c_program_from_text(out)
    # where the body ends is hidden between two expansions
    with pytest.raises(ValueError, match="macro expansion"):
        fenced_c_text(text, [8])
