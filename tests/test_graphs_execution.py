"""Skeletons, execution graphs and the hand builder (graphs/execution.py, graphs/build.py)."""

from __future__ import annotations

import pytest

from herdsman.graphs.build import RMW, B, F, R, W, build
from herdsman.graphs.execution import Event, ExecutionGraph, Skeleton, co_from_orders
from herdsman.litmus.ir import Sym


def pairs(b, r):
    return {(b.name(i), b.name(j)) for i, j in b.U.pairs(r)}


def test_numbering_and_defaults() -> None:
    b = build([[("W", "y", 1), ("F", "SYNC"), ("R", "x", 0)], [("W", "x", 1), ("R", "y", 0)]])
    assert list(b.ids) == ["init:x", "init:y", "0:0", "0:1", "0:2", "1:0", "1:1"]
    ev = b.sk.events
    assert [e.tid for e in ev] == [-1, -1, 0, 0, 0, 1, 1]
    assert [e.poi for e in ev] == [-1, -1, 0, 1, 2, 0, 1]
    assert ev[3].kind == "F" and ev[3].fence == "SYNC" and ev[3].instr == "sync"
    assert b.sk.locations == ["x", "y"]
    assert b.sk.init_write == {"x": 0, "y": 1}
    # reads of 0 come from the init writes (unique same-value writes)
    assert pairs(b, b.graph.rf) == {("init:x", "0:2"), ("init:y", "1:1")}
    assert pairs(b, b.graph.co) == {("init:x", "1:0"), ("init:y", "0:0")}


def test_fr_fw_final_memory() -> None:
    b = build(
        [[W("x", 1, name="a"), W("x", 2, name="b")], [R("x", 1, name="r")]], co={"x": ["b", "a"]}
    )
    g = b.graph
    assert pairs(b, g.co) == {("init:x", "a"), ("init:x", "b"), ("b", "a")}
    assert pairs(b, g.fr) == set()  # r reads the co-last write
    assert {b.name(e) for e in range(b.U.n) if (g.FW >> e) & 1} == {"a"}
    assert g.final_memory() == {"x": 1}
    assert [b.name(e) for e in g.co_order("x")] == ["init:x", "b", "a"]
    assert g.rf_source(b.ids["r"]) == b.ids["a"]
    b2 = build([[W("x", 1, name="a"), W("x", 2, name="b")], [R("x", 1, name="r")]])
    assert pairs(b2, b2.graph.fr) == {("r", "b")}


def test_po_skips_one_instruction_instance() -> None:
    b = build([[W("x", 1, name="w"), RMW("x", 1, 2, name="u"), B(name="br"), R("y", 0, name="r")]])
    po = pairs(b, b.sk.po)
    assert ("u.r", "u.w") not in po
    assert {("w", "u.r"), ("w", "u.w"), ("u.r", "br"), ("u.w", "br"), ("br", "r")} <= po
    assert pairs(b, b.sk.iico) == {("u.r", "u.w")}
    assert pairs(b, b.sk.po_iico) == po | {("u.r", "u.w")}


def test_po_without_instance_ids() -> None:
    """Events whose iiid is unknown (-1) are each their own instance."""
    evs = (
        Event(0, "W", -1, -1, loc="x", value=0),
        Event(1, "W", 0, 0, loc="x", value=1),
        Event(2, "R", 0, 1, loc="x", value=1),
        Event(3, "W", 1, 0, loc="x", value=2),
    )
    sk = Skeleton(evs, 2)
    assert sorted(sk.U.pairs(sk.po)) == [(1, 2)]
    assert sorted(sk.U.pairs(sk.int_)) == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 3)]
    assert sk.U.pairs(sk.same_instance) == [(1, 1), (2, 2), (3, 3)]
    assert (0, 0) not in sk.U.pairs(sk.ext) and (0, 1) in sk.U.pairs(sk.ext)


def test_skeleton_rejects_misnumbered_events() -> None:
    with pytest.raises(ValueError):
        Skeleton((Event(1, "W", -1, -1, loc="x", value=0),), 0)


def test_symbolic_values_and_cap() -> None:
    b = build([[W("p", Sym("x")), R("p", Sym("x"), name="r")]], init={"p": 0, "x": 5}, cap=16)
    assert b.U.cap == 16 and b.U.n == 4
    assert b.graph.final_memory() == {"p": Sym("x"), "x": 5}
    assert pairs(b, b.graph.rf) == {("0:0", "r")}


def test_co_from_orders() -> None:
    b = build([[W("x", 1), W("x", 2)]])
    U = b.U
    assert co_from_orders(U, [[0, 2, 1]]) == U.from_pairs([(0, 2), (0, 1), (2, 1)])
    g = ExecutionGraph(b.sk, b.graph.rf, co_from_orders(U, [[0, 2, 1]]))
    assert [b.name(e) for e in g.co_order("x")] == ["init:x", "0:1", "0:0"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"threads": [[R("x", 1)]]}, "no write"),
        ({"threads": [[W("x", 1), W("x", 1), R("x", 1)]]}, "several"),
        ({"threads": [[W("x", 1), R("x", 2)]], "rf": [("0:0", "0:1")]}, "writes 1, reads 2"),
        ({"threads": [[W("x", 1), W("y", 1)]], "co": [["0:0", "0:1"]]}, "one location"),
        ({"threads": [[W("x", 1), W("x", 2)]], "co": [["0:0"]]}, "each of its writes"),
        ({"threads": [[W("x", 1, name="a"), W("y", 1, name="a")]]}, "two events named"),
        ({"threads": [[W("x", 1)]], "deps": {"addr": [("0:0", "zz")]}}, "no event named"),
        ({"threads": [[W("x", 1)]], "annots": {"zz": ["X"]}}, "unknown events"),
        ({"threads": [[("Q", 1)]]}, "not a thread item"),
    ],
)
def test_builder_errors(kwargs, message) -> None:
    threads = kwargs.pop("threads")
    with pytest.raises(ValueError, match=message):
        build(threads, **kwargs)


def test_builder_helpers() -> None:
    b = build([[W("x", 1, name="a"), F("LWSYNC", name="f")]], annots={"a": ["X"]})
    assert b.set(["a", "f"]) == (1 << b.ids["a"]) | (1 << b.ids["f"])
    assert b.rel([("a", "f")]) == b.U.pair(b.ids["a"], b.ids["f"])
    assert b.sk.events[b.ids["a"]].annots == frozenset({"X"})
    with pytest.raises(KeyError):
        b.name(99)
