"""Engines against each other and against brute force on random C programs.

``tests/c_oracle/gen.py`` writes small C programs (threads created and joined by main,
loads, stores, atomic read-modify-writes, fences, branches, loops, an assertion); the C
front-end lowers each for the model's target; the reference engine and TruSt must agree
on the verdict (an assertion can fail), the final states with their counts and the number
of complete executions under sc, tso and pso; under sc both must also equal
``tests/c_oracle/interleave.py``, which runs every interleaving of the program's IR by
brute force, independently of the engines.  Each program runs with both meanings of the
unrolling bound (``block``: GenMC's, ``herdsman verify``; ``cut``: herd's); programs the
reference engine cannot enumerate within ``LIMIT`` are rejected, not judged.  The
interpreter itself is checked first, on IR programs built by hand and on the litmus
examples (against the reference engine).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, event, given, reject, settings
from hypothesis import strategies as st
from support.c_oracle.gen import c_programs
from support.c_oracle.interleave import StateCapExceeded, apply, interleavings
from support.engine import c_target

from herdsman.cat.api import PreparedModel, load_model
from herdsman.engine.outcome import Outcome
from herdsman.engine.run import RunOptions, TimeLimitExceeded, run_program
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assert,
    Assume,
    Branch,
    Condition,
    Fence,
    Imm,
    Instr,
    Join,
    Label,
    Load,
    Lock,
    MemLoc,
    Op,
    Program,
    PTrue,
    Reg,
    RegLoc,
    Spawn,
    Store,
    Sym,
    Thread,
    Unlock,
    Value,
)
from herdsman.litmus.c import c_program_from_text
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

UNROLL = 2

# ----------------------------------------------------------------------------- the oracle


def program(
    *threads: list[Instr],
    observed: tuple = (),
    memory: dict[str, Value] | None = None,
    registers: tuple = (),
    loop_bound: str = "block",
) -> Program:
    """An X86 program of these threads (origins: the operations' reprs)."""
    mem = {"x": 0, "y": 0, **(memory or {})}
    return Program(
        name="T",
        arch="X86",
        threads=tuple(Thread(tuple(code), tuple(map(repr, code))) for code in threads),
        memory=tuple(sorted(mem.items())),
        registers=registers or tuple(() for _ in threads),
        condition=Condition("forall", PTrue(), ""),
        observed=observed,
        loop_bound=loop_bound,
    )


X, Y = (Imm(Sym("x")),), (Imm(Sym("y")),)


def states(res) -> dict:
    return dict(res.states)


def test_store_buffering_has_three_sc_executions():
    p = program(
        [Store(Imm(1), X), Load("r0", Y)],
        [Store(Imm(1), Y), Load("r1", X)],
        observed=(RegLoc(0, "r0"), RegLoc(1, "r1")),
    )
    res = interleavings(p)
    assert res.complete == 3 and not res.error
    assert states(res) == {(0, 1): 1, (1, 0): 1, (1, 1): 1}  # (0, 0) is not SC


def test_message_passing_forbids_new_flag_old_data():
    p = program(
        [Store(Imm(1), X), Fence("MFENCE"), Store(Imm(1), Y)],
        [Load("r0", Y), Load("r1", X)],
        observed=(RegLoc(1, "r0"), RegLoc(1, "r1")),
    )
    res = interleavings(p)
    assert states(res) == {(0, 0): 1, (0, 1): 1, (1, 1): 1}


def test_coherence_orders_make_distinct_graphs():
    """2+2W: the same final state from different coherence orders counts once per graph."""
    p = program([Store(Imm(1), X)], [Store(Imm(2), X)], [Store(Imm(2), X)], observed=(MemLoc("x"),))
    res = interleavings(p)
    assert res.complete == 6 and states(res) == {(1,): 2, (2,): 4}


def test_compare_and_swap_succeeds_once():
    p = program(
        [CAS("r", X, Imm(0), Imm(1))],
        [CAS("r", X, Imm(0), Imm(2))],
        observed=(RegLoc(0, "r"), RegLoc(1, "r"), MemLoc("x")),
    )
    res = interleavings(p)
    assert states(res) == {(0, 1, 1): 1, (2, 0, 2): 1}


def test_fetch_add_is_atomic():
    inc = [RMW("r", X, "add", Imm(1))]
    p = program(inc, inc, observed=(MemLoc("x"),))
    res = interleavings(p)
    assert states(res) == {(2,): 2}


def test_join_waits_for_the_thread_and_assert_reports():
    main = [Spawn(1), Join(1), Load("r", X), Op("t", "eq", (Reg("r"), Imm(1))), Assert("t")]
    child = [Store(Imm(1), X)]
    res = interleavings(program(main, child, observed=(RegLoc(0, "r"),)))
    assert states(res) == {(1,): 1} and not res.error
    # without the join, main may read before the child writes: the assertion can fail
    res = interleavings(program([m for m in main if not isinstance(m, Join)], child))
    assert res.complete == 2 and res.error
    # a thread nobody spawned yet starts only when spawned: it cannot write before
    early = [Load("r", X), Spawn(1), Join(1)]
    res = interleavings(program(early, child, observed=(RegLoc(0, "r"), MemLoc("x"))))
    assert states(res) == {(0, 1): 1}


def test_failed_assert_stops_its_thread_which_still_finishes():
    p = program(
        [Load("r", X), Assert("r", "ne"), Store(Imm(5), Y)],
        [Store(Imm(1), X)],
        observed=(MemLoc("y"),),
    )
    res = interleavings(p)
    assert res.error and states(res) == {(0,): 1, (5,): 1}


def test_assume_and_held_locks_block():
    p = program([Load("r", X), Assume("r")], [Store(Imm(1), X)], observed=(RegLoc(0, "r"),))
    res = interleavings(p)
    assert states(res) == {(1,): 1} and res.blocked == 1
    crit = [
        Lock((Imm(Sym("m")),)),
        Load("r", X),
        Op("r", "add", (Reg("r"), Imm(1))),
        Store(Reg("r"), X),
        Unlock((Imm(Sym("m")),)),
    ]
    res = interleavings(program(crit, crit, memory={"m": 0}, observed=(MemLoc("x"),)))
    assert states(res) == {(2,): 2} and res.blocked > 0


def spin(loop_bound: str) -> Program:
    """Thread 0 reads x until it is non-zero (a rotated loop); thread 1 writes it."""
    loop = [
        Label("L"),
        Load("r", X),
        Op("t", "eq", (Reg("r"), Imm(0))),
        Branch("L", "ne", "t"),
    ]
    return program(loop, [Store(Imm(1), X)], observed=(RegLoc(0, "r"),), loop_bound=loop_bound)


def test_backward_branches_are_bounded():
    res = interleavings(spin("block"), unroll=2)
    assert res.complete == 3 and states(res) == {(1,): 3}  # read 1 after 0, 1 or 2 zeros
    assert interleavings(spin("block"), unroll=0).complete == 1
    res = interleavings(spin("cut"), unroll=1)  # herd's cut: the thread stops, counted
    assert states(res) == {(1,): 2, (0,): 1}


def test_addresses_and_arithmetic():
    a1 = (Imm(Sym("a")), Imm(1))
    p = program(
        [Op("p", "mov", (Imm(Sym("a")),)), Load("r", (Reg("p"), Imm(1))), Store(Imm(7), a1)],
        memory={"a": 0, "a+1": 5},
        observed=(RegLoc(0, "r"), MemLoc("a+1")),
    )
    assert states(interleavings(p)) == {(5, 7): 1}
    assert apply("add", [Sym("a"), 2]) == Sym("a", 2)
    assert apply("sub", [Sym("a", 3), Sym("a", 1)]) == 2
    assert [apply("cmp", [a, b]) for a, b in ((1, 2), (2, 2), (3, 2))] == [-1, 0, 1]
    assert apply("div", [7, 0]) == 0 and apply("mod", [7, 0]) == 0
    assert apply("div", [-7, 2]) == -3 and apply("mod", [-7, 2]) == -1


@pytest.mark.parametrize("arch", ["x86", "ppc"])
def test_oracle_matches_the_reference_engine_on_the_litmus_examples(arch):
    model = load_model("sc")
    for f in sorted((ROOT / "litmus" / "examples" / arch).glob("*.litmus")):
        p = lower(parse_file(f))
        ref = run_program(p, model, RunOptions(engine="reference"))
        res = interleavings(p)
        assert res.complete == ref.stats.complete, f.name
        assert states(res) == {s: c.executions for s, c in ref.states.items()}, f.name


# ----------------------------------------------------------------------------- agreement

#: Programs per model (so 3 x this many in all; hypothesis derandomized for CI).
EXAMPLES = 100
#: CPU seconds the reference engine may take on one program: its enumeration of
#: candidates grows fast with the writes to one location; a program over the limit is
#: rejected (a few percent of them), not judged.
LIMIT = 1.0

AGREEMENT = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


@cache
def model_of(name: str) -> PreparedModel:
    return load_model(name)


Summary = tuple[bool, dict, int]


def summary(out: Outcome) -> Summary:
    """What must agree: the verdict, final states with counts, complete executions."""
    return (
        bool(out.errors),
        {s: c.executions for s, c in out.states.items()},
        out.stats.complete,
    )


def run(program: Program, model: PreparedModel, engine: str, limit: float | None) -> Summary:
    opts = RunOptions(engine=engine, unroll=UNROLL, stop_on_error=False, time_limit=limit)
    return summary(run_program(program, model, opts))


def show(results: dict[str, Summary]) -> str:
    return "\n".join(
        f"  {k}: error={e} complete={n} states={sorted(st.items(), key=str)}"
        for k, (e, st, n) in results.items()
    )


#: What the unrolling bound does: ``block`` (``herdsman verify``, GenMC) or ``cut`` (herd).
loop_bounds = st.sampled_from(("block", "cut"))


def agree(text: str, name: str, loop_bound: str) -> None:
    """The reference engine, TruSt and (under sc) brute force agree on ``text``."""
    model = model_of(name)
    prog = c_program_from_text(text, target=c_target(name))
    prog = replace(prog, loop_bound=loop_bound)
    try:
        results = {"reference": run(prog, model, "reference", LIMIT)}
    except TimeLimitExceeded:
        event("reference engine over the time limit")
        reject()
    results["trust"] = run(prog, model, "trust", None)
    if name == "sc":
        try:
            res = interleavings(prog, UNROLL)
        except StateCapExceeded:
            event("oracle over its state cap")
            reject()
        results["oracle"] = (res.error, dict(res.states), res.complete)
    event(f"complete executions: {'none' if not results['trust'][2] else 'some'}")
    event(f"assertion can fail: {results['trust'][0]}")
    first = results["reference"]
    assert all(r == first for r in results.values()), (
        f"{name}, loop bound {loop_bound}: engines disagree\n{show(results)}\n{text}"
    )


@AGREEMENT
@given(c_programs(), loop_bounds)
def test_engines_agree_under_sc(text, loop_bound):
    agree(text, "sc", loop_bound)


@AGREEMENT
@given(c_programs(), loop_bounds)
def test_engines_agree_under_tso(text, loop_bound):
    agree(text, "tso", loop_bound)


@AGREEMENT
@given(c_programs(), loop_bounds)
def test_engines_agree_under_pso(text, loop_bound):
    agree(text, "pso", loop_bound)
