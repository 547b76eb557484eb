"""Programs that spawn, join and assert, on both engines (IR built by hand).

Spawn and join order the graph as GenMC's thread creation does (po runs along them), a
thread starts only when spawned, a failed assertion is an error execution (complete, or
blocked when another thread is), and under ``loop_bound="block"`` an execution needing
more loop iterations than the bound is blocked, never counted as complete.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from herdsman.cat.api import load_model
from herdsman.engine.run import RunOptions, run_program
from herdsman.graphs.events import Event
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.ir import (
    Assert,
    Assume,
    Branch,
    Condition,
    Fence,
    Imm,
    Join,
    Label,
    Load,
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
)

ENGINES = ("reference", "trust")


def _thread(*code) -> Thread:
    return Thread(tuple(code), tuple(f"{i}: {type(c).__name__}" for i, c in enumerate(code)))


def _at(x: str) -> tuple[Imm]:
    return (Imm(Sym(x)),)


def _program(threads, memory, observed) -> Program:
    return Program(
        "p",
        "X86",
        tuple(threads),
        tuple(sorted(memory.items())),
        tuple(() for _ in threads),
        Condition("forall", PTrue()),
        observed=tuple(observed),
    )


def _run(program: Program, model: str, engine: str, **kw):
    return run_program(program, load_model(model), RunOptions(engine=engine, **kw))


def _summary(out) -> tuple:
    return (dict(out.states), out.stats.complete, bool(out.errors))


# main: x = 1; spawn 1; spawn 2; join 1; join 2; r = x; assert r == 2
# thread 1: x = 2          thread 2: a = x; assume a == 1; x = 3
def _spawning(assume: bool = True) -> Program:
    main = _thread(
        Store(Imm(1), _at("x")),
        Fence("MFENCE"),
        Spawn(1),
        Spawn(2),
        Join(1),
        Join(2),
        Fence("MFENCE"),
        Load("r", _at("x")),
        Op("c", "eq", (Reg("r"), Imm(2))),
        Assert("c", "ne", "r == 2"),
    )
    t1 = _thread(Store(Imm(2), _at("x")))
    code = [Load("a", _at("x"))]
    if assume:
        code += [Op("k", "eq", (Reg("a"), Imm(1))), Assume("k")]
    code.append(Store(Imm(3), _at("x")))
    return _program(
        [main, t1, _thread(*code)], {"x": 0}, [MemLoc("x"), RegLoc(2, "a"), RegLoc(0, "r")]
    )


@pytest.mark.parametrize("model", ["sc", "tso", "pso"])
def test_engines_agree_on_spawn_join_assert(model: str) -> None:
    outs = [_run(_spawning(), model, e) for e in ENGINES]
    assert _summary(outs[0]) == _summary(outs[1])
    # thread 2 reads 1 (written before the spawn) or 2, never the initial 0
    assert {st[1] for st in outs[1].states} <= {1, 2}
    # x ends 2 or 3: main's assertion fails when thread 2's write comes last
    assert {st[0] for st in outs[1].states} == {2, 3}
    assert outs[1].errors and outs[1].errors[0].message == "r == 2"
    assert outs[1].errors[0].thread == 0


def test_spawn_orders_writes_before_the_child() -> None:
    out = _run(_spawning(assume=False), "sc", "trust")
    # no execution where thread 2 reads the initial value or main's read sees an old x
    assert all(st[1] != 0 for st in out.states)


def test_stop_at_first_error() -> None:
    for e in ENGINES:
        out = _run(_spawning(), "sc", e, stop_on_error=True)
        assert out.errors and out.stats.extra.get("stopped_at_error") == 1
        assert out.stats.extra["errors"] == 1


def test_unspawned_thread_never_runs() -> None:
    # main: r = x; if r == 0 skip the spawn; thread 1: x = 5 (spawned only when r != 0)
    main = _thread(
        Load("r", _at("x")),
        Op("c", "eq", (Reg("r"), Imm(0))),
        Branch("End", "ne", "c"),
        Spawn(1),
        Label("End"),
    )
    prog = _program([main, _thread(Store(Imm(5), _at("x")))], {"x": 0}, [MemLoc("x")])
    for e in ENGINES:
        out = _run(prog, "sc", e)
        assert dict(out.states) == {(0,): (1, True)}, e


def test_join_of_a_blocked_thread_blocks() -> None:
    # thread 1 blocks (assume false); main joins it, then fails an assertion it never
    # reaches; thread 2 fails its own assertion: an error in a blocked execution
    main = _thread(Spawn(1), Spawn(2), Join(1), Op("z", "mov", (Imm(0),)), Assert("z"))
    t1 = _thread(Op("z", "mov", (Imm(0),)), Assume("z"))
    t2 = _thread(Store(Imm(1), _at("y")), Op("z", "mov", (Imm(0),)), Assert("z", "ne", "t2"))
    prog = _program([main, t1, t2], {"y": 0}, [MemLoc("y")])
    for e in ENGINES:
        out = _run(prog, "sc", e)
        assert out.stats.complete == 0, e
        assert [(x.message, x.complete) for x in out.errors] == [("t2", False)], e


def _counting_loop(bound: str) -> Program:
    # while (x == 0) { y = y + 1 }  (rotated), with nobody writing x: runs forever
    main = _thread(
        Branch("Check"),
        Label("Top"),
        Load("v", _at("y")),
        Op("v", "add", (Reg("v"), Imm(1))),
        Store(Reg("v"), _at("y")),
        Label("Check"),
        Load("r", _at("x")),
        Op("c", "eq", (Reg("r"), Imm(0))),
        Branch("Top", "ne", "c"),
    )
    return replace(_program([main], {"x": 0, "y": 0}, [MemLoc("y")]), loop_bound=bound)


def test_loop_bound_blocks_programs() -> None:
    for e in ENGINES:
        cut = _run(_counting_loop("cut"), "sc", e, unroll=2)  # as herd: Loop, no execution
        assert cut.stats.complete == 0 and not cut.states and cut.unroll_cut, e
        blocked = _run(_counting_loop("block"), "sc", e, unroll=2)
        assert blocked.stats.complete == 0 and not blocked.states, e
        assert blocked.stats.extra.get("blocked_loop_bound", 0) >= 1, e


def test_po_runs_along_spawn_and_join() -> None:
    ev = [
        Event("W", 0, 0, 0, loc="x", value=1),
        Event("S", 0, 1, 1, value=1),
        Event("J", 0, 2, 2, value=1),
        Event("R", 0, 3, 3, loc="x", value=0),
        Event("W", 1, 0, 0, loc="x", value=2),
    ]
    sk = Skeleton(tuple(ev), 2)
    pairs = set(sk.U.pairs(sk.po))
    assert (0, 4) in pairs and (1, 4) in pairs  # before the spawn -> the child
    assert (4, 2) in pairs and (4, 3) in pairs  # the child -> the join and after
    assert (4, 0) not in pairs and (3, 4) not in pairs
    assert set(sk.U.pairs(sk.thread_po)) == {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}
