"""TruSt (engine/trust*.py) against the reference engine: same results, each execution once.

TruSt and the reference engine share only the thread semantics and the cat model; the
comparison is on herd's result fields (states, positive/negative counts, flags) and
TruSt counts every complete graph it builds twice (``track_duplicates``): equal counts
and no duplicate mean the same set of executions.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import ROOT, shared_path
from support.bench import load_bench

from herdsman.cat.api import load_model, load_model_text
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.run import RunOptions, run_program
from herdsman.engine.trust.run import explore_program, run_trust, trust_applies
from herdsman.herd_compat.formats.genmc import summary
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

EXAMPLES = ROOT / "litmus" / "examples"


def same(a, b) -> bool:
    return (a.states, a.positive, a.negative, sorted(a.flags)) == (
        b.states,
        b.positive,
        b.negative,
        sorted(b.flags),
    )


def compare(test, model, **kw):
    ref = run_program(lower(test), model, RunOptions(engine="reference"))
    run = explore_program(lower(test), model, RunOptions(track_duplicates=True, **kw))
    assert same(ref, run.result), test.name
    assert run.stats.extra["duplicates"] == 0, test.name
    return ref, run


@pytest.mark.parametrize("spec", ["sc", "tso", "pso"])
def test_every_x86_test_matches_reference(spec):
    files = sorted(shared_path("x86", "tests").glob("*.litmus"))
    files += sorted(shared_path("x86", "generated").glob("*.litmus"))
    assert len(files) == 475
    model = load_model(spec)
    complete = blocked = 0
    for f in files:
        _, run = compare(parse_file(f), model)
        complete += run.stats.complete
        blocked += run.stats.blocked
    assert complete > 3000
    assert blocked <= 0.05 * complete


@pytest.mark.parametrize("spec", ["sc", "tso", "pso"])
def test_x86_examples_match_reference(spec):
    """The repository's examples, read-modify-writes included (refused under sc)."""
    model = load_model(spec)
    for f in sorted((EXAMPLES / "x86").glob("*.litmus")):
        test = parse_file(f)
        if trust_applies(model, lower(test)):
            compare(test, model)
        else:
            assert spec == "sc" and ("XCHG" in f.read_text() or "LOCK" in f.read_text())


def test_ppc_examples_match_reference_under_sc():
    model = load_model("sc")
    for f in sorted((EXAMPLES / "ppc").glob("*.litmus")):
        compare(parse_file(f), model)


def rmw_program(n: int, reps: int) -> str:
    """n threads each doing ``reps`` atomic increments of x."""
    cols = [" | ".join(["LOCK; INC [x]"] * n) + " ;"] * reps
    head = " | ".join(f"P{t}" for t in range(n)) + " ;"
    return f"X86 RMW{n}x{reps}\n{{ x=0; }}\n{head}\n" + "\n".join(cols) + "\nexists (x=2)\n"


MIXED = """X86 MIXED
{ x=0; }
 P0            | P1            | P2            ;
 LOCK; INC [x] | MOV EAX,[x]   | MOV [x],$5    ;
 MOV EBX,[x]   | LOCK; INC [x] | LOCK; INC [x] ;
exists (x=7)
"""


@pytest.mark.parametrize("spec", ["tso", "pso"])
def test_read_modify_writes_under_tso_pso(spec):
    model = load_model(spec)
    for text in (rmw_program(2, 2), rmw_program(3, 1), MIXED):
        compare(parse_text(text), model)


def test_sc_with_read_modify_writes():
    """herdsman's sc.cat orders an RMW's read before its write (``rmw`` in its acyclic
    axiom): TruSt explores it on programs with RMWs.  A model ordering them only through
    iico, which its axiom ignores (herd's own sc.cat does so), allows RMWs that read each
    other's write, a porf cycle TruSt never builds (it would miss those executions), so
    TruSt refuses it and auto uses the reference."""
    test = parse_text(MIXED)
    compare(test, load_model("sc"))
    holey = load_model_text(
        'SC\ninclude "cos.cat"\nempty rmw & (fre; coe) as atomic\nacyclic po | rf | co | fr as sc\n'
    )
    assert not trust_applies(holey, lower(test))
    with pytest.raises(InputError, match="read-modify-writes.*each other's write"):
        run_trust(lower(test), holey, RunOptions())
    assert run_program(lower(test), holey).engine == "reference"
    plain = parse_file(EXAMPLES / "x86" / "SB.litmus")
    assert trust_applies(holey, lower(plain))


def test_power_is_refused_naming_load_buffering():
    model = load_model("power")
    test = parse_file(EXAMPLES / "ppc" / "LB.litmus")
    with pytest.raises(InputError) as e:
        run_program(lower(test), model, RunOptions(engine="trust"))
    assert "load buffering" in e.value.render()
    assert run_program(lower(test), model).engine == "reference"  # auto


def test_auto_picks_trust_where_the_model_allows():
    test = parse_file(EXAMPLES / "x86" / "SB.litmus")
    r = run_program(lower(test), load_model("tso"))
    assert r.engine == "trust" and r.stats.complete == 4
    assert (
        run_program(lower(test), load_model("tso"), RunOptions(engine="reference")).engine
        == "reference"
    )


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def test_user_model_of_the_right_kind_is_explored(tmp_path):
    """A user's cat file (SC as one order of the communications): explored by TruSt."""
    spec = write(
        tmp_path,
        "mysc.cat",
        """\
        "my SC"
        include "cos.cat"
        let com = rf | co | fr
        acyclic po | com as order
        """,
    )
    model = load_model(spec)
    compared = 0
    for f in sorted((EXAMPLES / "x86").glob("*.litmus"))[:12]:
        test = parse_file(f)
        if trust_applies(model, lower(test)):  # all but the test with locked instructions
            compare(test, model)
            compared += 1
    assert compared >= 10


def test_non_monotone_axiom_is_refused(tmp_path):
    spec = write(
        tmp_path,
        "odd.cat",
        """\
        "odd"
        include "cos.cat"
        acyclic po | rf | co | fr as sc
        empty rf & (FW * R) as last
        """,
    )
    model = load_model(spec)
    test = parse_file(EXAMPLES / "x86" / "SB.litmus")
    with pytest.raises(InputError, match="axiom 'last'.*not monotone"):
        run_trust(lower(test), model, RunOptions())


def test_a_thread_with_no_execution_for_a_value_blocks():
    """Reading 1 from x makes P0's next address no location: herd drops that execution
    of P0; TruSt reports the exploration as blocked and finds the same executions."""
    test = parse_text("""X86 BADADDR
{ x=y; y=5; }
 P0            | P1         ;
 MOV EAX,[x]   | MOV [x],$1 ;
 MOV EBX,[EAX] |            ;
exists (0:EBX=5)
""")
    _, run = compare(test, load_model("sc"))
    assert run.stats.blocked == 1 and run.stats.extra["blocked_thread"] == 1


def test_time_limit():
    text = load_bench("bench_trust_sbnw").sbnw(9)
    with pytest.raises(TimeLimitExceeded):
        run_trust(lower(parse_text(text)), load_model("sc"), RunOptions(time_limit=0.05))


def test_pictures_are_the_reference_engines():
    """With show=all TruSt keeps the same execution graphs (numbered alike)."""
    model = load_model("tso")
    for name in ("SB.litmus", "MP.litmus", "IRIW+mfences.litmus"):
        test = parse_file(EXAMPLES / "x86" / name)
        ref = run_program(lower(test), model, RunOptions(engine="reference", show="all"))
        tr = run_trust(lower(test), model, RunOptions(show="all"))

        def sig(graph):
            g = graph.relations(values=True)
            return (tuple((e.kind, e.tid, e.loc, e.value) for e in g.sk.events), g.rf, g.co)

        assert sorted(sig(s.graph) for s in ref.witnesses) == sorted(
            sig(s.graph) for s in tr.witnesses
        )
        assert len(tr.witnesses) == ref.positive + ref.negative


def test_statistics_and_listing():
    test = parse_file(EXAMPLES / "x86" / "SB.litmus")
    run = explore_program(lower(test), load_model("sc"), RunOptions(print_executions=True))
    assert len(run.result.executions) == run.stats.complete == 3
    assert run.result.stats.complete == 3
    text = summary(run.result, executions=True)
    assert "Number of complete executions explored: 3" in text
    assert "Number of blocked executions seen" not in text  # as GenMC: only when some
    assert text.count("Execution ") == 3
    assert {e.state for e in run.result.executions} == {(0, 1), (1, 0), (1, 1)}
    assert "Execution 1: 0:EAX=" in text


def test_checkers_agree_on_examples():
    """The cat checker (from scratch) and the incremental one explore alike."""
    model = load_model("pso")
    for f in sorted((EXAMPLES / "x86").glob("*.litmus")):
        test = parse_file(f)
        a = explore_program(lower(test), model, RunOptions(checker="cat")).stats
        b = explore_program(lower(test), model, RunOptions(checker="incremental")).stats
        assert (
            a.complete,
            a.extra["revisits"],
            a.extra["refused"],
            a.blocked,
            a.extra["pruned"],
        ) == (
            b.complete,
            b.extra["revisits"],
            b.extra["refused"],
            b.blocked,
            b.extra["pruned"],
        ), f.name
        assert (
            a.extra["revisits_inconsistent"]
            == b.extra["revisits_inconsistent"] + b.extra["revisits_doomed"]
        )


SPIN = """PPC SPIN
{ 0:r2=x; 1:r2=x; 1:r4=y; 0:r4=y; }
 P0           | P1           ;
 LC00:        | li r1,1      ;
 lwz r1,0(r2) | stw r1,0(r4) ;
 cmpwi r1,0   | stw r1,0(r2) ;
 beq LC00     |              ;
 lwz r3,0(r4) |              ;
exists (0:r3=0)
"""

FILTERED = """X86 FILT
{ }
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MOV EAX,[y] | MOV EAX,[x] ;
filter (0:EAX=0)
exists (1:EAX=0)
"""


@pytest.mark.parametrize("spec", ["sc", "pso"])
def test_loops_and_filters(spec):
    """A spin loop (unrolled, herd's loop flag) and a filter count as in the reference."""
    model = load_model(spec)
    ref, run = compare(parse_text(SPIN), model)
    assert ref.unroll_cut and run.result.unroll_cut
    _, run = compare(parse_text(FILTERED), model)
    assert run.stats.extra["filtered"] == 2
