"""JSON export of execution graphs: exact round trips, plain-JSON output, bad input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdsman.graphs.build import RMW, B, F, R, W, build
from herdsman.graphs.execution import ExecutionGraph
from herdsman.graphs.jsonio import graph_from_json, graph_to_json
from herdsman.litmus.base.ir import Sym


def same(graph: ExecutionGraph, other: ExecutionGraph) -> bool:
    g, h = graph.relations(values=True), other.relations(values=True)
    return (
        g.sk.events == h.sk.events
        and g.sk.nthreads == h.sk.nthreads
        and g.sk.deps == h.sk.deps
        and g.sk.extra_sets == h.sk.extra_sets
        and g.U.cap == h.U.cap
        and g.rf == h.rf
        and g.co == h.co
    )


def sample_graphs():
    yield build([[W("x", 1), R("y", 0)], [W("y", 1), R("x", 0)]]).graph
    yield build(
        [
            [RMW("x", 0, 1, instr="xchg [x],EAX"), F("MFENCE")],
            [R("p", Sym("x"), name="r"), B(), W("x", 2, annots={"EX"})],
        ],
        init={"p": Sym("x"), "q": Sym("y", 4)},
        deps={"ctrl": [("r", "1:2")], "addr": [("r", "1:2")]},
        co={"x": ["1:2", "0:0.w"]},
        cap=40,
    ).graph


@pytest.mark.parametrize("g", list(sample_graphs()))
def test_round_trip(g) -> None:
    d = graph_to_json(g)
    text = json.dumps(d)  # plain JSON
    h = graph_from_json(json.loads(text))
    assert same(g, h)
    assert graph_to_json(h) == d


def test_layout_is_readable() -> None:
    b = build([[W("x", 1, name="a")], [R("x", 1, name="r")]])
    d = graph_to_json(b.graph)
    assert d["format"] == "herdsman-graph/1"
    assert d["rf"] == [[b.ids["a"], b.ids["r"]]]
    assert d["co"] == [[b.ids["init:x"], b.ids["a"]]]
    ev = d["events"][b.ids["r"]]
    assert ev == {
        "kind": "R",
        "tid": 1,
        "index": 0,
        "poi": 0,
        "loc": "x",
        "value": 1,
        "fence": None,
        "instr": "",
        "annots": [],
        "addr": 0,
        "data": 0,
        "ctrl": 0,
        "valdep": 0,
    }


def test_symbolic_values() -> None:
    g = build([[W("p", Sym("y", 4))]]).graph
    d = graph_to_json(g)
    assert d["events"][1]["value"] == {"type": "Sym", "name": "y", "offset": 4}
    assert graph_from_json(d).relations(values=True).sk.events[1].value == Sym("y", 4)


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"format": "other/9"}, "unsupported graph format"),
        ({"rf": [[0, 99]]}, "outside"),
    ],
)
def test_bad_input(patch, message) -> None:
    d = graph_to_json(build([[W("x", 1)]]).graph)
    d.update(patch)
    with pytest.raises(ValueError, match=message):
        graph_from_json(d)


def test_bad_value() -> None:
    d = graph_to_json(build([[W("x", 1)]]).graph)
    d["events"][1]["value"] = "one"
    with pytest.raises(ValueError, match="unknown value"):
        graph_from_json(d)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.sampled_from("RW"), st.sampled_from("xyz")), max_size=4),
        min_size=1,
        max_size=4,
    ),
    st.integers(0, 8),
    st.randoms(use_true_random=False),
)
def test_round_trip_random(threads, extra_cap, rnd) -> None:
    """Random programs: each read takes the value of a random write (or 0)."""
    items = []
    writes: dict[str, list[str]] = {}
    k = 0
    for tid, th in enumerate(threads):
        row = []
        for j, (kind, loc) in enumerate(th):
            if kind == "W":
                k += 1
                row.append(W(loc, k))
                writes.setdefault(loc, []).append(f"{tid}:{j}")
            else:
                row.append(None)
        items.append(row)
    rf = []
    for tid, th in enumerate(threads):
        for j, (kind, loc) in enumerate(th):
            if kind == "R":
                src = rnd.choice(writes.get(loc, []) + [f"init:{loc}"])
                val = 0 if src.startswith("init") else None
                if val is None:
                    t, i = map(int, src.split(":"))
                    val = items[t][i].value
                items[tid][j] = R(loc, val)
                rf.append((src, f"{tid}:{j}"))
    n = sum(len(t) for t in threads) + len({loc for th in threads for _, loc in th})
    g = build(items, rf=rf, cap=n + extra_cap).graph
    assert same(g, graph_from_json(json.loads(json.dumps(graph_to_json(g)))))
