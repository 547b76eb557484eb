"""The operational engine (engine/operational): the store-buffer machine of SC, TSO and PSO
with shadow threads, DPOR with sleep sets, buffer bounding and stateful DPOR.

Its results are checked against engines and data that share none of its code: TruSt
(``engine="trust"``) and the reference engine on the 475 X86 tests of ../shared, herd7's
own logs of those tests, the zero-reduction machine (every run), the numbers of Zhang,
Kusano and Wang (PLDI 2015, Fig. 1 and 2), the verdicts the example C programs claim,
and the SPIN 2008 example of Yang et al. for stateful DPOR.

Catalogue-wide checks loop over the files and collect every mismatch, so that a failure
lists the first few instead of stopping at one test.
"""

from __future__ import annotations

import math
import os
from functools import cache

import pytest
from conftest import ROOT, shared_path
from support.c_examples import assertions, parse_header, program_files
from support.engine import c_target

from herdsman.cat.api import load_model
from herdsman.engine.operational.run import explore_operational
from herdsman.engine.outcome import Outcome
from herdsman.engine.run import RunOptions, run_program
from herdsman.herd_compat.formats.herd_block import herd_result
from herdsman.herd_compat.formats.herdlog import parse_state_line, read_herd_log
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Program
from herdsman.litmus.c import (
    c_program_from_text,
    load_c_program,
    lower_c_litmus,
    parse_c_litmus,
)
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

PROGRAMS = ROOT / "litmus" / "examples" / "programs"
#: How many mismatches a failing catalogue check prints.
SHOWN = 5

# ----------------------------------------------------------------------------- helpers


@cache
def model(spec: str):
    """A built-in model by name, or a herd cat file of ../shared by its relative path."""
    if spec.endswith(".cat"):
        return load_model(str(shared_path(*spec.split("/"))))
    return load_model(spec)


@cache
def x86_catalogue() -> tuple[tuple[str, Program], ...]:
    """The 475 X86 tests of ../shared (catalogue, then generated), each as (the folder it
    is in, its program)."""
    x86 = shared_path("x86")
    out = []
    for sub in ("tests", "generated"):
        for f in sorted((x86 / sub).glob("*.litmus")):
            out.append((sub, lower(parse_file(f))))
    return tuple(out)


def x86_sample(step: int) -> list[Program]:
    """Every ``step``-th test of the catalogue (spread over both folders)."""
    return [p for _, p in x86_catalogue()[::step]]


def x86_test(name: str) -> Program:
    (prog,) = [p for _, p in x86_catalogue() if p.name == name]
    return prog


def op(prog: Program, spec: str, **kw) -> Outcome:
    """The operational outcome (the naive run count is skipped unless asked: it costs)."""
    kw.setdefault("naive_budget", 0)
    return run_program(prog, model(spec), RunOptions(engine="operational", **kw))


def states_of(out: Outcome) -> dict:
    """Final state -> whether it satisfies the proposition (counts left out)."""
    return {st: c.satisfies for st, c in out.states.items()}


def report(what: str, bad: list) -> str:
    return f"{len(bad)} {what}; first ones:\n" + "\n".join(map(str, bad[:SHOWN]))


# ----------------------------------------------------------------------------- X86 catalogue

#: model -> (the engine it is compared with, herd7's logs of its model or None):
#: herd's logs of the catalogue are ../shared/x86/herd7-tests-*.log, those of the
#: generated tests ../shared/x86/generated/herd7-*.log.
X86_MODELS = {
    "sc": ("trust", "sc"),
    "tso": ("trust", "x86tso"),
    "pso": ("trust", None),
    "herd-cat/x86tso.cat": ("reference", "x86tso"),
}


@cache
def herd_records(log: str) -> dict:
    """herd7's blocks of both folders' logs for one model, by test name."""
    recs = {}
    for path in (
        shared_path("x86", f"herd7-tests-{log}.log"),
        shared_path("x86", "generated", f"herd7-{log}.log"),
    ):
        for r in read_herd_log(path):
            recs[r.name] = r
    return recs


def herd_mismatch(out: Outcome, rec) -> str | None:
    """How ``out`` differs from herd7's block ``rec`` (verdict, Positive/Negative, states),
    or None."""
    mine = herd_result(out, rec.name, rec.hash or "", rec.condition, arch="X86")
    if mine.verdict != rec.verdict:
        return f"verdict {mine.verdict} != herd's {rec.verdict}"
    if (mine.positive, mine.negative) != (rec.positive, rec.negative):
        return f"Positive/Negative {mine.positive}/{mine.negative} != {rec.positive}/{rec.negative}"
    ours = {frozenset(parse_state_line(s)) for s in mine.states}
    herd = {frozenset(parse_state_line(s)) for s in rec.states}
    if ours != herd:
        return f"states {sorted(map(sorted, ours ^ herd))[:2]} differ"
    return None


@pytest.mark.parametrize("spec", list(X86_MODELS))
def test_x86_catalogue_matches_other_engine_and_herd(spec):
    """Every X86 test: the operational machine gives exactly TruSt's (sc, tso, pso) or the
    reference engine's (herd's x86tso.cat) final states and execution counts, and herd7's
    verdict, Positive/Negative counts and states where herd ran the model."""
    oracle, log = X86_MODELS[spec]
    recs = herd_records(log) if log else {}
    progs = x86_catalogue()
    assert len(progs) == 475
    assert {sub for sub, _ in progs} == {"tests", "generated"}
    bad_engine, bad_count, bad_herd = [], [], []
    for _, prog in progs:
        mine = op(prog, spec)
        other = run_program(prog, model(spec), RunOptions(engine=oracle))
        assert mine.engine == "operational" and other.engine != "operational"
        if (mine.observed, mine.quantifier, mine.states) != (
            other.observed,
            other.quantifier,
            other.states,
        ):
            bad_engine.append((prog.name, mine.states, other.states))
        # the machine's own count of distinct executions is the states' total
        if mine.stats.extra["executions"] != sum(c.executions for c in mine.states.values()):
            bad_count.append((prog.name, mine.stats.extra["executions"], mine.states))
        if log:
            rec = recs.get(prog.name)
            why = herd_mismatch(mine, rec) if rec else "not in herd's log"
            if why:
                bad_herd.append((prog.name, why))
    assert not bad_engine, report(f"tests differ from {oracle} (ours, theirs)", bad_engine)
    assert not bad_count, report("tests with inconsistent execution counts", bad_count)
    assert not bad_herd, report(f"tests differ from herd7-*{log}.log", bad_herd)


@pytest.mark.parametrize("spec", ["tso", "pso"])
def test_zero_reduction_agrees_with_dpor(spec):
    """Every 10th X86 test: the machine without reduction (every run) reaches the same
    final states with the same execution counts as DPOR, runs exactly the number of
    runs DPOR's naive count predicts, and never fewer than DPOR."""
    bad = []
    progs = x86_sample(10)
    assert len(progs) >= 45
    for prog in progs:
        dpor = op(prog, spec, naive_budget=20_000)
        naive = op(prog, spec, reduction="none")
        runs, predicted = naive.stats.extra["runs"], dpor.stats.extra.get("naive_runs")
        if naive.states != dpor.states:
            bad.append((prog.name, "states", naive.states, dpor.states))
        elif runs != predicted or runs < dpor.stats.extra["runs"]:
            bad.append((prog.name, "runs", runs, predicted, dpor.stats.extra["runs"]))
    assert not bad, report("tests where every run and DPOR differ", bad)


# ----------------------------------------------------------------------------- PLDI'15 figures

#: Fig. 1 of the paper is store buffering, herdsman's example SB
ZKW_FIG1 = ROOT / "litmus" / "examples" / "x86" / "SB.litmus"

ZKW_FIG2 = r"""C ZKW15-Fig2
"Zhang, Kusano, Wang, PLDI 2015, Fig. 2: a PSO example (message passing)"
{
x = 0;
y = 0;
}

P0(int *x, int *y)
{
	*x = 1;
	*y = 1;
}

P1(int *x, int *y)
{
	int r0;
	int r1;

	r0 = *y;
	if (r0 == 1)
		r1 = *x;
}

exists (1:r0=1 /\ 1:r1=0)
"""


@pytest.mark.parametrize(
    ("spec", "naive", "explored", "relaxed"),
    [("sc", 6, 3, False), ("tso", 24, 4, True), ("pso", 24, 4, True)],
)
def test_zkw15_fig1(spec, naive, explored, relaxed):
    """Fig. 1: under TSO the two reads and the two shadows' flushes are four independent
    transitions (4! = 24 naive runs), of which DPOR explores one per execution (4); under
    SC, 6 interleavings and 3 executions."""
    prog = lower(parse_file(ZKW_FIG1))
    out = op(prog, spec, naive_budget=20_000)
    x = out.stats.extra
    assert (x["naive_runs"], x["runs"], x["executions"]) == (naive, explored, explored)
    assert x["sleep_blocked"] == 0 and out.stats.blocked == 0
    assert out.condition_holds is relaxed
    assert ((0, 0) in out.states) is relaxed
    assert len(out.states) == explored


@pytest.mark.parametrize(
    ("spec", "naive", "explored", "reachable"),
    [("sc", 3, 2, False), ("tso", 3, 2, False), ("pso", 7, 3, True)],
)
def test_zkw15_fig2(tmp_path, spec, naive, explored, reachable):
    """Fig. 2 as a herd C litmus test: under PSO the flushes of x and y are independent
    (7 naive runs, 3 explored) and the reader sees y=1, x=0; SC and TSO keep the writes
    in order."""
    path = tmp_path / "ZKW15-Fig2.litmus"
    path.write_text(ZKW_FIG2, encoding="utf-8")
    prog = lower_c_litmus(
        parse_c_litmus(path.read_text(encoding="utf-8"), str(path)), c_target(spec)
    )
    out = op(prog, spec, naive_budget=20_000)
    x = out.stats.extra
    assert (x["naive_runs"], x["runs"], x["executions"]) == (naive, explored, explored)
    assert out.condition_holds is reachable
    assert out.positive == (1 if reachable else 0)
    trust = run_program(prog, model(spec), RunOptions(engine="trust"))
    assert out.states == trust.states


# ----------------------------------------------------------------------------- C programs

#: (program, model) cases whose TruSt and operational runs together take seconds (CPU
#: times measured: szymanski TSO 1.5 s + 2 s, PSO 2.4 s + 4 s; dijkstra PSO 0.3 s + 3 s):
#: run only with ``HERDSMAN_SLOW=1`` (as test_engine_c_examples.py's reference-slow programs).
SLOW_PROGRAMS = {("szymanski", "tso"), ("szymanski", "pso"), ("dijkstra", "pso")}
SLOW_SKIP = pytest.mark.skipif(
    not os.environ.get("HERDSMAN_SLOW"), reason="seconds of CPU: set HERDSMAN_SLOW=1 to run"
)


def program_cases() -> list:
    cases = []
    for p in program_files():
        for m in ("sc", "tso", "pso"):
            slow = (p.stem, m) in SLOW_PROGRAMS
            marks = [pytest.mark.slow, SLOW_SKIP] if slow else []
            cases.append(pytest.param(p, m, id=f"{p.stem}-{m}", marks=marks))
    return cases


def test_program_cases_are_there():
    names = {p.stem for p in program_files()}
    assert {"zkw15_fig1", "zkw15_fig2", "sdpor_fig1", "peterson", "szymanski"} <= names
    assert {name for name, _ in SLOW_PROGRAMS} <= names
    for p in program_files():
        assert {"sc", "tso", "pso"} <= set(parse_header(p).unsafe), p.name


@pytest.mark.parametrize(("path", "spec"), program_cases())
def test_c_program_verdict_and_trust_agree(path, spec):
    """Each example program: the operational engine finds the verdict its header claims
    (an assertion fails iff ``unsafe``), at one of the file's ``assert`` lines, and
    TruSt's final states and execution counts."""
    h = parse_header(path)
    prog = load_c_program(str(path), target=c_target(spec), unroll=h.unroll)
    kw = {} if h.unroll is None else {"unroll": h.unroll}
    mine = op(prog, spec, **kw)
    trust = run_program(prog, model(spec), RunOptions(engine="trust", symmetry=False, **kw))
    assert bool(mine.errors) == h.unsafe[spec], mine.errors[:1]
    lines = assertions(path)
    for err in mine.errors:
        assert int(err.origin.split(":", 1)[0]) in lines, err.origin
    assert mine.states == trust.states
    assert mine.stats.extra["executions"] == trust.stats.complete
    assert {e.message for e in mine.errors} == {e.message for e in trust.errors}
    assert mine.stats.complete >= trust.stats.complete > 0


# ----------------------------------------------------------------------------- buffer bounds


@pytest.mark.parametrize("spec", ["tso", "pso"])
def test_buffer_bounds_on_x86_tests(spec):
    """Every 5th X86 test: a bound of 0 is SC (the same states and counts); bounds 1, 2, 3
    give subsets of the unbounded states (with their verdicts and at most their counts),
    growing with the bound."""
    bad = []
    grew = 0
    for prog in x86_sample(5):
        sc = op(prog, "sc")
        unbounded = op(prog, spec)
        prev = op(prog, spec, buffer_bound=0)
        if prev.states != sc.states:
            bad.append((prog.name, 0, prev.states, sc.states))
        for k in (1, 2, 3):
            bounded = op(prog, spec, buffer_bound=k)
            assert bounded.stats.extra["buffer_bound"] == k
            now = bounded.states
            if not set(prev.states) <= set(now) <= set(unbounded.states):
                bad.append((prog.name, k, set(now), set(prev.states), set(unbounded.states)))
                continue
            for st, c in now.items():
                u = unbounded.states[st]
                if c.satisfies != u.satisfies or c.executions > u.executions:
                    bad.append((prog.name, k, st, c, u))
            grew += len(now) > len(prev.states)
            prev = bounded
    assert not bad, report("bounded runs out of order (test, k, ...)", bad)
    assert grew > 0  # the bound does make a difference on some test


def test_buffer_bound_store_buffering():
    """SB: the relaxed outcome needs one buffered write per thread: at k=1, not k=0."""
    sb = x86_test("SB")
    for spec in ("tso", "pso"):
        assert not op(sb, spec, buffer_bound=0).condition_holds
        assert op(sb, spec, buffer_bound=1).condition_holds
        assert op(sb, spec).condition_holds
    assert not op(sb, "sc").condition_holds


# ----------------------------------------------------------------------------- stateful DPOR


def test_stateful_agrees_on_x86_tests():
    """Every 5th X86 test: stateful DPOR reaches the same final states (each with its
    verdict) as stateless DPOR."""
    bad = []
    for prog in x86_sample(5):
        for spec in ("sc", "tso", "pso"):
            stateless = op(prog, spec)
            stateful = op(prog, spec, stateful=True)
            if states_of(stateful) != states_of(stateless):
                bad.append((prog.name, spec, set(stateful.states), set(stateless.states)))
            elif stateful.stats.extra["states"] <= 0:
                bad.append((prog.name, spec, "no state stored"))
    assert not bad, report("tests where stateful and stateless DPOR differ", bad)


def sdpor(n: int, spec: str) -> Program:
    return load_c_program(
        str(PROGRAMS / "sdpor_fig1.c"), target=c_target(spec), defines={"N": str(n)}
    )


@pytest.mark.parametrize(
    ("n", "spec"),
    # stateless TSO/PSO DPOR already takes 10 s at N=20 (17920 runs), so SC only there
    [(2, "sc"), (2, "tso"), (2, "pso"), (10, "sc"), (10, "tso"), (10, "pso"), (20, "sc")],
)
def test_stateful_sdpor_fig1(n, spec):
    """Yang et al.'s Fig. 1 with -D N=n: stateful DPOR (no unrolling bound) reaches the
    stateless final states (unrolled ceil(n/5) times: every loop completes), neither
    finds an error, and stateful cuts runs at visited states."""
    prog = sdpor(n, spec)
    stateless = op(prog, spec, unroll=math.ceil(n / 5))
    assert not stateless.unroll_cut and stateless.stats.blocked == 0
    stateful = op(prog, spec, stateful=True)
    assert states_of(stateful) == states_of(stateless) == {(0, 0): True}
    assert not stateful.errors and not stateless.errors
    x = stateful.stats.extra
    assert x["states"] > 0 and x["visited_cut"] > 0
    assert x["runs"] <= stateless.stats.extra["runs"]
    if n > 2:
        assert x["runs"] < stateless.stats.extra["runs"]


def test_stateful_sdpor_fig1_n64():
    """The paper's N=64: C(26,13) orders of the atomic blocks.  Stateful DPOR finishes,
    storing states and cutting at visited ones; stateless DPOR runs out of its 2 s and
    returns what it explored so far."""
    prog = sdpor(64, "tso")
    full = explore_operational(
        prog,
        model("tso"),
        RunOptions(engine="operational", stateful=True, time_limit=30),
        partial=True,
    )
    assert not full.timed_out
    x = full.result.stats.extra
    assert x["states"] > 0 and x["visited_cut"] > 0
    assert states_of(full.result) == {(0, 0): True} and not full.result.errors
    cut = explore_operational(
        prog,
        model("tso"),
        RunOptions(engine="operational", unroll=13, time_limit=2),
        partial=True,
    )
    assert cut.timed_out
    assert cut.result.stats.extra["runs"] > 0 and cut.result.stats.extra["timed_out"] == 1
    assert set(cut.result.states) <= {(0, 0)} and not cut.result.errors
    assert "naive_runs" not in cut.result.stats.extra


#: Programs whose loops store: under tso and pso their buffers may grow without end (an
#: infinite state space), so stateful DPOR runs them with a buffer bound.
STATEFUL_BOUNDED = {"dijkstra", "dijkstra_fenced"}
#: Stateful runs of seconds of CPU (bakery under PSO: 2 s): with HERDSMAN_SLOW=1 only.
STATEFUL_SLOW = {("bakery", "pso"), ("dijkstra_fenced", "pso")}


def stateful_cases() -> list:
    cases = []
    for p in program_files():
        for m in ("sc", "tso", "pso"):
            marks = []
            if (p.stem, m) in STATEFUL_SLOW:
                marks += [pytest.mark.slow, SLOW_SKIP]
            cases.append(pytest.param(p, m, id=f"{p.stem}-{m}", marks=marks))
    return cases


@pytest.mark.parametrize(("path", "spec"), stateful_cases())
def test_stateful_c_program_verdict(path, spec):
    """Each example program (loops unbounded: they end or revisit a state): stateful DPOR
    finishes and finds the verdict the header claims."""
    h = parse_header(path)
    prog = load_c_program(str(path), target=c_target(spec))
    bound = 2 if path.stem in STATEFUL_BOUNDED and spec != "sc" else None
    run = explore_operational(
        prog,
        model(spec),
        RunOptions(
            engine="operational",
            stateful=True,
            naive_budget=0,
            time_limit=20,
            buffer_bound=bound,
            stop_on_error=h.unsafe[spec],
        ),
        partial=True,
    )
    assert not run.timed_out
    out = run.result
    assert (out.states or out.errors) and out.stats.extra["states"] > 0
    assert bool(out.errors) == h.unsafe[spec], out.errors[:1]


FIG2_PSO_MAIN = r"""
#include <assert.h>
#include <pthread.h>
int x = 0, y = 0;
void *writer(void *arg) { x = 1; y = 1; return 0; }
void *reader(void *arg) { if (y == 1) { assert(x != 0); } return 0; }
int main(void)
{
	pthread_t a, b;
	pthread_create(&a, 0, writer, 0);
	pthread_create(&b, 0, reader, 0);
	return 0;
}
"""


def test_stateful_reports_every_failed_assertion():
    """Fig. 2 as a C program under PSO: every run ends with x=1, y=1, and only the one
    where the reader saw y=1 before x=1 fails.  Stateless DPOR reports it; stateful DPOR,
    which counts runs once per final state, must report it too."""
    prog = c_program_from_text(FIG2_PSO_MAIN, "<fig2>", target="pso")
    assert op(prog, "pso").errors
    stateful = op(prog, "pso", stateful=True)
    assert stateful.stats.extra["runs"] == 3
    assert stateful.errors


SPIN_TOGGLE = r"""
#include <pthread.h>
int flag = 0, g = 0;
void *spin(void *arg) { int r = 0; while (flag == 0) { r = 1 - r; g = 0; } return 0; }
void *setter(void *arg) { flag = 1; return 0; }
int main(void)
{
	pthread_t a, b;
	pthread_create(&a, 0, spin, 0);
	pthread_create(&b, 0, setter, 0);
	return 0;
}
"""


def test_stateful_revisits_cycling_local_states():
    """Under SC this program has a handful of states (r, flag and g are 0 or 1), but the
    spinning thread's loop is unbounded: stateful DPOR must cut it at a visited state.
    With ``r = 0`` instead of ``r = 1 - r`` it does."""
    prog = c_program_from_text(SPIN_TOGGLE, "<spin>", target="tso")
    constant = c_program_from_text(
        SPIN_TOGGLE.replace("r = 1 - r;", "r = 0;"), "<spin>", target="tso"
    )
    opts = RunOptions(engine="operational", stateful=True, naive_budget=0, time_limit=1)
    ok = explore_operational(constant, model("sc"), opts, partial=True)
    assert not ok.timed_out and ok.stats.extra["visited_cut"] > 0
    run = explore_operational(prog, model("sc"), opts, partial=True)
    assert not run.timed_out


# ----------------------------------------------------------------------------- refusals

PPC_MP = r"""PPC MP
""
{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }
 P0           | P1           ;
 li r1,1      | lwz r1,0(r2) ;
 stw r1,0(r2) | lwz r3,0(r4) ;
 stw r1,0(r4) |              ;
exists (1:r1=1 /\ 1:r3=0)
"""


def refusal(prog: Program, spec: str, **kw) -> str:
    with pytest.raises(InputError) as e:
        run_program(prog, model(spec), RunOptions(engine="operational", **kw))
    return str(e.value)


def test_refusals(tmp_path):
    fig1 = load_c_program(str(PROGRAMS / "zkw15_fig1.c"), target="tso")
    msg = refusal(fig1, "power")
    assert "model power is none of them" in msg and "sc, tso" in msg
    path = tmp_path / "MP.litmus"
    path.write_text(PPC_MP, encoding="utf-8")
    ppc = lower(parse_file(path))
    assert ppc.arch == "PPC"
    assert "this is a PPC program" in refusal(ppc, "tso")
    assert "the buffer bound must be >= 0" in refusal(fig1, "tso", buffer_bound=-1)
    assert "unknown reduction" in refusal(fig1, "tso", reduction="sleep")
    with pytest.raises(InputError, match="need --engine operational"):
        run_program(fig1, model("tso"), RunOptions(engine="trust", buffer_bound=1))
    # the same refusal from the partial exploration's door
    with pytest.raises(InputError, match="model power"):
        explore_operational(fig1, model("power"), RunOptions(engine="operational"), True)


# ----------------------------------------------------------------------------- error traces


def test_error_trace_has_the_failing_reads():
    """zkw15_fig1.c under TSO: main's assertion a==0 && b==0 fails; the first error
    carries its execution's graph, where main's reads of a and b read 0 from the
    threads' writes (each thread read the other's variable before its write landed)."""
    prog = load_c_program(str(PROGRAMS / "zkw15_fig1.c"), target="tso")
    out = op(prog, "tso")
    assert out.errors
    err = out.errors[0]
    assert err.graph is not None and err.complete
    g = err.graph
    events = {e: g.event(e) for e in g.events()}
    reads = {ev.loc: e for e, ev in events.items() if ev.kind == "R" and ev.tid == err.thread}
    assert {"a", "b"} <= set(reads)
    rel = g.relations()
    for loc in ("a", "b"):
        r = reads[loc]
        assert events[r].value == 0
        w = rel.rf_source(r)
        assert w is not None and events[w].kind == "W" and events[w].loc == loc
        assert events[w].tid not in (err.thread, -1)  # a thread's write, not the initial one
        assert events[r].instr == err.origin  # the failing assert's line and text
    # the other threads read 0 too: TSO's store buffering (and printf reads back a and b)
    relaxed = [ev for ev in events.values() if ev.kind == "R" and ev.tid != err.thread]
    assert sorted((ev.loc, ev.value) for ev in relaxed) == [("a", 0), ("b", 0), ("x", 0), ("y", 0)]
    # SC reaches no error
    assert not op(prog, "sc").errors


PENDING_STORE = """X86 pending-store
{ }
 P0          | P1          | P2          ;
 MOV EAX,[x] | MOV [x],$1  | MOV ECX,[y] ;
 MOV [y],EAX | MOV EBX,[y] |             ;
exists (y=0)
"""


def test_a_pending_store_value_is_part_of_the_state(tmp_path):
    """Two states that differ only in the value a thread is about to store (from a
    register dead after the store) are different: stateful DPOR must not merge them, and
    the naive count must count the runs there are."""
    path = tmp_path / "pending.litmus"
    path.write_text(PENDING_STORE)
    prog = lower(parse_file(str(path)))
    stateless = op(prog, "sc", naive_budget=20_000)
    stateful = op(prog, "sc", stateful=True)
    assert set(stateful.states) == set(stateless.states)
    every = op(prog, "sc", reduction="none")
    assert every.stats.extra["runs"] == stateless.stats.extra["naive_runs"]


def _sb_stores(n: int) -> str:
    """Store buffering with ``n`` stores before each thread's read."""
    rows = [f" MOV [x],${i + 1} | MOV [y],${i + 1} ;" for i in range(n)]
    body = "\n".join(rows)
    return f"""X86 SB{n}
{{ }}
 P0 | P1 ;
{body}
 MOV EAX,[y] | MOV EAX,[x] ;
exists (0:EAX=0 /\\ 1:EAX=0)
"""


@pytest.mark.parametrize("n", [2, 3, 4])
def test_buffer_bounds_explore_fewer_runs(tmp_path, n):
    """A bounded buffer waits for its shadow when full, so the runs explored under a
    bound are runs of the unbounded machine: no more of them than unbounded, one per
    execution on store buffering, growing with the bound."""
    path = tmp_path / f"sb{n}.litmus"
    path.write_text(_sb_stores(n))
    prog = lower(parse_file(str(path)))
    runs = []
    for k in (0, 1, 2, 3, None):
        out = op(prog, "tso", buffer_bound=k)
        x = out.stats.extra
        assert x["runs"] == x["executions"]
        runs.append(x["runs"])
    assert runs == sorted(runs) and runs[0] == 2 * n + 1


# --------------------------------------------------- stateful DPOR on cyclic state spaces

_CYCLIC = {
    # a thread independent of another's endless loop must still run (the ignoring problem)
    "ignored": """
#include <assert.h>
#include <pthread.h>
int x, y;
void *p0(void *a) { while (1) { x = 1; x = 0; } return 0; }
void *p1(void *a) { y = 1; while (x == 1) ; assert(0); return 0; }
int main(void) { pthread_t a, b; pthread_create(&a, 0, p0, 0);
  pthread_create(&b, 0, p1, 0); pthread_join(a, 0); pthread_join(b, 0); return 0; }
""",
    # a failure while another thread loops for ever: no run ends, it must be reported
    "never_ends": """
#include <assert.h>
#include <pthread.h>
int x;
void *p0(void *a) { assert(0); return 0; }
void *p1(void *a) { while (1) { x = 1; x = 0; } return 0; }
int main(void) { pthread_t a, b; pthread_create(&a, 0, p0, 0);
  pthread_create(&b, 0, p1, 0); pthread_join(a, 0); pthread_join(b, 0); return 0; }
""",
}


@pytest.mark.parametrize("reduction", ["dpor", "none"])
@pytest.mark.parametrize("model", ["sc", "tso", "pso"])
@pytest.mark.parametrize("name", sorted(_CYCLIC))
def test_stateful_search_reports_failures_on_cyclic_state_spaces(
    name: str, model: str, reduction: str
) -> None:
    program = c_program_from_text(_CYCLIC[name], f"{name}.c", "pso" if model == "pso" else "tso")
    opts = RunOptions(
        engine="operational",
        stateful=True,
        reduction=reduction,
        buffer_bound=1,
        stop_on_error=True,
    )
    out = run_program(program, load_model(model), opts)
    assert out.errors and out.errors[0].message == "0"
