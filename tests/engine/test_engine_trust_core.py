"""TruSt's compiled exploration loop (engine/trust/_core.c) against the Python explorer:
the same executions, the same outcome and the same counts (pruned options, refused,
doomed and inconsistent revisits, blocked graphs, checks) on every program both run.

The Python explorer is the one the rest of the tests compare with the reference engine;
``HERDSMAN_PURE_PYTHON`` (or a build without a compiler) leaves only it, and these tests
skip.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, shared_path
from support.engine import c_target, spy_on_fallback

from herdsman.cat.api import load_model, load_model_text
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.run import RunOptions
from herdsman.engine.trust import core
from herdsman.engine.trust.run import explore_program, trust_applies
from herdsman.graphs.execution import Layout
from herdsman.litmus.base.ir import Program
from herdsman.litmus.c import load_c_program
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

pytestmark = pytest.mark.skipif(not core.CORE, reason="the compiled core is not built")

EXAMPLES = ROOT / "litmus" / "examples"
PROGRAMS = EXAMPLES / "programs"


def explore(program: Program, model, compiled: bool, monkeypatch, **kw):
    monkeypatch.setattr(core, "CORE", compiled)
    run = explore_program(program, model, RunOptions(engine="trust", **kw))
    stats = run.stats.as_dict()
    del stats["time"]
    return run.result, stats


def agree(program: Program, model, monkeypatch, **kw) -> dict[str, float]:
    """Explore ``program`` both ways; their outcomes and counts must be the same."""
    a, sa = explore(program, model, True, monkeypatch, **kw)
    b, sb = explore(program, model, False, monkeypatch, **kw)
    assert sa == sb, program.name
    assert (a.states, a.positive, a.negative, sorted(a.flags), a.unroll_cut) == (
        b.states,
        b.positive,
        b.negative,
        sorted(b.flags),
        b.unroll_cut,
    ), program.name
    assert [(e.message, e.thread, e.complete) for e in a.errors] == [
        (e.message, e.thread, e.complete) for e in b.errors
    ]
    return sa


def litmus(files: list[Path], spec: str, monkeypatch) -> int:
    model = load_model(spec)
    n = 0
    for f in files:
        program = lower(parse_file(f))
        if trust_applies(model, program):
            agree(program, model, monkeypatch)
            n += 1
    return n


@pytest.mark.parametrize("spec", ["sc", "tso", "pso"])
def test_examples(spec, monkeypatch):
    files = sorted((EXAMPLES / "x86").glob("*.litmus")) + sorted(
        (EXAMPLES / "tso").glob("*.litmus")
    )
    assert litmus(files, spec, monkeypatch) > 10


@pytest.mark.parametrize("spec", ["sc", "tso"])
def test_every_x86_test(spec, monkeypatch):
    files = sorted(shared_path("x86", "tests").glob("*.litmus"))
    files += sorted(shared_path("x86", "generated").glob("*.litmus"))
    assert litmus(files, spec, monkeypatch) == 475


def test_ppc_tests_under_sc(monkeypatch):
    files = sorted(shared_path("power").glob("**/*.litmus"))[::40]
    assert litmus(files, "sc", monkeypatch) > 150


@pytest.mark.parametrize("spec", ["sc", "tso"])
def test_c_programs(spec, monkeypatch):
    """Threads spawned and joined, loops, locks, assertions (a read-modify-write the
    statics cannot rule out sends the run back to the Python explorer: same counts)."""
    model = load_model(spec)
    done = 0
    for f in sorted(PROGRAMS.glob("*.c")):
        program = load_c_program(str(f), c_target(spec), {}, [], unroll=3)
        if trust_applies(model, program):
            agree(program, model, monkeypatch, unroll=3)
            done += 1
    assert done >= 10


FAMILY = """
#include <pthread.h>
#include <stdatomic.h>
atomic_int c;
void *inc(void *arg) {
    int r = atomic_load_explicit(&c, memory_order_relaxed);
    atomic_store_explicit(&c, r + 1, memory_order_relaxed);
    return NULL;
}
int main(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, inc, NULL);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    return 0;
}
"""


def test_counter_family_counts(tmp_path, monkeypatch):
    path = tmp_path / "inc4.c"
    path.write_text(FAMILY)
    program = load_c_program(str(path), c_target("sc"), {}, [])
    stats = agree(program, load_model("sc"), monkeypatch)
    assert stats["complete"] == 576  # (2N)! / 2^N, GenMC's count


def test_listing_and_pictures(monkeypatch):
    """Printing executions or showing graphs builds each complete graph: the same ones."""
    model = load_model("tso")
    for name in ("SB.litmus", "IRIW+mfences.litmus"):
        program = lower(parse_file(EXAMPLES / "x86" / name))
        for kw in ({"print_executions": True}, {"show": "all"}):
            a, _ = explore(program, model, True, monkeypatch, **kw)
            b, _ = explore(program, model, False, monkeypatch, **kw)
            assert [e.state for e in a.executions] == [e.state for e in b.executions]
            assert [w.state for w in a.witnesses] == [w.state for w in b.witnesses]


def test_duplicates_are_tracked(monkeypatch):
    program = lower(parse_file(EXAMPLES / "x86" / "IRIW.litmus"))
    stats = agree(program, load_model("pso"), monkeypatch, track_duplicates=True)
    assert stats["duplicates"] == 0 and stats["complete"] > 0


def test_time_limit(monkeypatch):
    rows = [" | ".join(["MOV [x],$1"] * 4) + " ;"] * 2 + [" | ".join(["MOV EAX,[x]"] * 4) + " ;"]
    text = "X86 BIG\n{ x=0; }\n P0 | P1 | P2 | P3 ;\n" + "\n".join(rows) + "\nexists (x=1)\n"
    monkeypatch.setattr(core, "CORE", True)
    with pytest.raises(TimeLimitExceeded):
        explore_program(lower(parse_text(text)), load_model("sc"), RunOptions(time_limit=0.001))


def test_plans():
    """sc, tso and pso have plans; the whole-model checker has none."""
    lay = Layout(["x"], [0], [2, 2])
    for spec in ("sc", "tso", "pso"):
        plan = load_model(spec).consistency_checker("X86", lay).compiled_plan()
        assert plan is not None and plan.nslots > 0
        assert len(plan.statics((0, 0), 1)) == plan.nslots * lay.size * 8
        assert len(plan.statics((0, 0), 2)) == plan.nslots * lay.size * 16
    assert load_model("sc").consistency_checker("X86", lay, "cat").compiled_plan() is None


def test_read_modify_writes(monkeypatch):
    """tso's atomicity check (``rmw & (fre; coe)`` empty) runs in the core too."""
    raised = spy_on_fallback(monkeypatch)
    program = lower(parse_file(EXAMPLES / "x86" / "SB+xchgs.litmus"))
    agree(program, load_model("tso"), monkeypatch)
    assert raised == []


ODD = """ODD
include "cos.cat"
empty rmw & (fre; co; coe) as atomic
acyclic po | rmw | rf | co | fr as sc
"""


def test_a_check_the_core_cannot_evaluate_goes_back_to_python(monkeypatch):
    """An emptiness check of another form, on a program where its static part is not
    empty: the run starts again with the Python explorer, early, and counts as it does."""
    raised = spy_on_fallback(monkeypatch)
    program = lower(parse_file(EXAMPLES / "x86" / "SB+xchgs.litmus"))
    agree(program, load_model_text(ODD), monkeypatch)
    assert raised == [True]


class Recorder:
    """A progress reporter always due: it hears every report."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, float | None]] = []

    def start(self, program: str) -> None:
        pass

    def due(self) -> bool:
        return True

    def update(self, executions: int, total: float | None) -> None:
        self.seen.append((executions, total))

    def finish(self) -> None:
        pass


def test_progress_and_estimates_are_the_python_explorers(tmp_path, monkeypatch):
    """Every 256 steps the same executions so far and the same estimated total."""
    path = tmp_path / "inc4.c"
    path.write_text(FAMILY)
    program = load_c_program(str(path), c_target("sc"), {}, [])
    heard = []
    for compiled in (True, False):
        rec = Recorder()
        explore(program, load_model("sc"), compiled, monkeypatch, progress=rec)
        heard.append(rec.seen)
    assert heard[0] == heard[1]
    assert len(heard[0]) > 5 and heard[0][-1][1] is not None


def test_graphs_over_64_events(monkeypatch):
    """The wide build (``_core128``) takes graphs of up to 128 events: SB after 34
    private writes per thread, and MP with its last events past id 64 (so past the first
    word of every set)."""
    if core.MAX_EVENTS < 128:
        pytest.skip("the wide core is not built (a compiler without 128-bit integers)")
    pad = ["MOV [a],$1 | MOV [b],$1 ;"] * 34
    for tail in (
        ["MOV [x],$1 | MOV [y],$1 ;", "MOV EAX,[y] | MOV EAX,[x] ;"],
        ["MOV [x],$1 | MOV EAX,[y] ;", "MOV [y],$1 | MOV EBX,[x] ;"],
    ):
        text = "X86 WIDE\n{ x=0; y=0; a=0; b=0; }\n P0 | P1 ;\n" + "\n".join(pad + tail)
        text += "\nexists (x=1)\n"
        program = lower(parse_text(text))
        stats = agree(program, load_model("tso"), monkeypatch)
        assert stats["complete"] >= 3


@pytest.mark.parametrize("room", [4096, 3])
def test_statics_forgotten_when_too_many(room, monkeypatch):
    """The core keeps the static relations of the skeletons it met (Szymanski's algorithm
    meets some 150) and forgets them all when it holds ``MAX_STATICS``: either way it
    explores as the Python explorer does."""
    monkeypatch.setattr(core, "MAX_STATICS", room)
    program = load_c_program(str(PROGRAMS / "szymanski.c"), c_target("tso"), {}, [])
    assert (
        agree(program, load_model("tso"), monkeypatch)["complete"] == 688
    )  # blocked at the loop bound, not complete (GenMC)
