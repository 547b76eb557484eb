"""Events, skeletons, the execution graph and the hand builder (graphs/events.py,
graphs/skeleton.py, graphs/execution.py, graphs/shapes.py, graphs/build.py)."""

from __future__ import annotations

import pytest

from herdsman.graphs.build import RMW, B, F, R, W, build
from herdsman.graphs.events import Event, init_write, with_value
from herdsman.graphs.execution import ExecutionGraph, Layout, fr_of
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.ir import Sym


def pairs(b, r):
    return {(b.name(i), b.name(j)) for i, j in b.U.pairs(r)}


def test_numbering_and_defaults() -> None:
    b = build([[("W", "y", 1), ("F", "SYNC"), ("R", "x", 0)], [("W", "x", 1), ("R", "y", 0)]])
    assert list(b.ids) == ["init:x", "init:y", "0:0", "0:1", "0:2", "1:0", "1:1"]
    ev = b.sk.events
    assert [e.tid for e in ev] == [-1, -1, 0, 0, 0, 1, 1]
    assert [e.poi for e in ev] == [-1, -1, 0, 1, 2, 0, 1]
    assert [e.index for e in ev] == [-1, -1, 0, 1, 2, 0, 1]
    assert ev[3].kind == "F" and ev[3].fence == "SYNC" and ev[3].instr == "sync"
    assert b.sk.locations == ["x", "y"]
    assert b.sk.init_write == {"x": 0, "y": 1}
    assert b.sk.base == [2, 5]
    # reads of 0 come from the init writes (unique same-value writes)
    assert pairs(b, b.rel.rf) == {("init:x", "0:2"), ("init:y", "1:1")}
    assert pairs(b, b.rel.co) == {("init:x", "1:0"), ("init:y", "0:0")}


def test_fr_fw_final_memory() -> None:
    b = build(
        [[W("x", 1, name="a"), W("x", 2, name="b")], [R("x", 1, name="r")]], co={"x": ["b", "a"]}
    )
    g = b.rel
    assert pairs(b, g.co) == {("init:x", "a"), ("init:x", "b"), ("b", "a")}
    assert pairs(b, g.fr) == set()  # r reads the co-last write
    assert {b.name(e) for e in range(b.U.n) if (g.FW >> e) & 1} == {"a"}
    assert g.final_memory() == {"x": 1}
    assert [b.name(e) for e in g.co_order("x")] == ["init:x", "b", "a"]
    assert g.rf_source(b.ids["r"]) == b.ids["a"]
    b2 = build([[W("x", 1, name="a"), W("x", 2, name="b")], [R("x", 1, name="r")]])
    assert pairs(b2, b2.rel.fr) == {("r", "b")}
    assert fr_of(b2.U, b2.rel.rf, b2.rel.co) == b2.rel.fr


def test_po_skips_one_instruction_instance() -> None:
    b = build([[W("x", 1, name="w"), RMW("x", 1, 2, name="u"), B(name="br"), R("y", 0, name="r")]])
    po = pairs(b, b.sk.po)
    assert ("u.r", "u.w") not in po
    assert {("w", "u.r"), ("w", "u.w"), ("u.r", "br"), ("u.w", "br"), ("br", "r")} <= po
    assert pairs(b, b.sk.iico) == {("u.r", "u.w")}
    assert pairs(b, b.sk.po_iico) == po | {("u.r", "u.w")}


def test_relations_of_hand_made_events() -> None:
    evs = (
        init_write("x", 0),
        Event("W", 0, 0, 0, loc="x", value=1),
        Event("R", 0, 1, 1, loc="x", value=1),
        Event("W", 1, 0, 0, loc="x", value=2),
    )
    sk = Skeleton(evs, 2)
    assert sorted(sk.U.pairs(sk.po)) == [(1, 2)]
    assert sorted(sk.U.pairs(sk.int_)) == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 3)]
    assert sk.U.pairs(sk.same_instance) == [(1, 1), (2, 2), (3, 3)]
    assert (0, 0) not in sk.U.pairs(sk.ext) and (0, 1) in sk.U.pairs(sk.ext)


def test_dependencies_come_from_the_events() -> None:
    """An event's masks (over its thread's positions) are the skeleton's relations."""
    evs = (
        init_write("x", 0),
        init_write("y", 0),
        Event("R", 0, 0, 0, loc="x", value=0),
        Event("B", 0, 1, 1, data=0b1),
        Event("W", 0, 2, 2, loc="y", value=0, addr=0b1, data=0b1, ctrl=0b1, valdep=0b1),
    )
    sk = Skeleton(evs, 1)
    assert sk.U.pairs(sk.deps["addr"]) == [(2, 4)]
    assert sk.U.pairs(sk.deps["data"]) == [(2, 3), (2, 4)]
    assert sk.U.pairs(sk.deps["ctrl"]) == [(2, 4)]
    assert sk.U.pairs(sk.valdep) == [(2, 4)]
    assert "valdep" not in sk.deps  # not one of herd's names


def test_skeleton_rejects_misplaced_events() -> None:
    with pytest.raises(ValueError):
        Skeleton((Event("W", 0, 1, 0, loc="x", value=1), Event("W", 0, 0, 1, loc="x")), 1)


def test_event_key_and_value() -> None:
    e = Event("W", 0, 2, 3, loc="x", value=1, data=0b10)
    assert with_value(e, 7) == e._replace(value=7)
    assert e.key() == with_value(e, 9).key() and e.key() != e._replace(loc="y").key()


def test_symbolic_values_and_cap() -> None:
    b = build([[W("p", Sym("x")), R("p", Sym("x"), name="r")]], init={"p": 0, "x": 5}, cap=16)
    assert b.U.cap == 16 and b.U.n == 4
    assert b.rel.final_memory() == {"p": Sym("x"), "x": 5}
    assert pairs(b, b.rel.rf) == {("0:0", "r")}


def test_from_relations_orders_co() -> None:
    b = build([[W("x", 1), W("x", 2)]])
    U = b.U
    co = U.total_order([0, 2, 1])
    g = ExecutionGraph.from_relations(b.sk, b.rel.rf, co)
    assert [g.ev[w].value for w in g.co[0]] == [2, 1]
    assert [b.name(e) for e in g.relations(values=True).co_order("x")] == ["init:x", "0:1", "0:0"]


# ----------------------------------------------------------------------------- growing


def _sb() -> ExecutionGraph:
    """SB, grown by hand: each thread writes its location then reads the other's."""
    lay = Layout(["x", "y"], [0, 0], [2, 2])
    return ExecutionGraph(lay)


def test_grow_pop_copy_and_restrict() -> None:
    g = _sb()
    sh = g.lay.shapes
    wx = Event("W", 0, 0, 0, loc="x", value=1)
    ry = Event("R", 0, 1, 1, loc="y")
    wy = Event("W", 1, 0, 0, loc="y", value=1)
    rx = Event("R", 1, 1, 1, loc="x")
    a = g.add_write(0, wx, sh.intern(0, wx), 0)
    b = g.add_read(0, ry, sh.intern(g.shape[a], ry), 1)  # from the initial write of y
    c = g.add_write(1, wy, sh.intern(0, wy), 0)
    d = g.add_read(1, rx, sh.intern(g.shape[c], rx), a)
    assert (a, b, c, d) == (2, 3, 4, 5)
    assert g.events() == [2, 3, 4, 5] and g.val[b] == 0 and g.val[d] == 1
    assert g.co == [[2], [4]] and g.reads_of(0) == [5] and g.stamp[d] == 4
    assert g.porf_view(d) == [1, 2] and g.in_view(a, [1, 0]) and not g.in_view(c, [1, 0])
    rel = g.relations(values=True)
    assert rel.final_memory() == {"x": 1, "y": 1}
    assert rel.rf_source(3) == 1 and rel.rf_source(5) == 2
    assert g.event(d).value == 1
    # the valueless view shares its skeleton with every graph of this shape
    assert g.relations().sk is g.lay.shapes.skeleton(g.shape_key())
    h = g.copy()
    h.pop(1)
    assert h.n == [2, 1] and g.n == [2, 2] and h.reads_of(0) == []
    h.restrict([1, 1])
    assert h.events() == [2, 4] and h.rl == [[], []] and h.co == [[2], [4]]
    with pytest.raises(IndexError):
        g.add_read(0, ry, 0, 1)  # no room left in thread 0


def test_shapes_intern_without_values() -> None:
    g = _sb()
    sh = g.lay.shapes
    w1 = Event("W", 0, 0, 0, loc="x", value=1)
    assert sh.intern(0, w1) == sh.intern(0, with_value(w1, 2)) != sh.intern(0, w1._replace(loc="y"))
    sid = sh.intern(0, w1)
    assert sh.length[sid] == 1 and sh.events(sid) == [with_value(w1, None)]
    sk = sh.skeleton((sid, 0))
    assert [e.kind for e in sk.events] == ["W", "W", "W"] and sk.n == 3


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
    assert b.relation([("a", "f")]) == b.U.pair(b.ids["a"], b.ids["f"])
    assert b.sk.events[b.ids["a"]].annots == frozenset({"X"})
    with pytest.raises(KeyError):
        b.name(99)
