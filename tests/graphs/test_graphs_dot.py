"""DOT export in herd's style: the text parses back with pydot and has the expected
nodes, clusters, edges and colours (rendering: test_graphs_render.py)."""

from __future__ import annotations

import pydot
import pytest

from herdsman.graphs.build import RMW, F, R, W, build
from herdsman.graphs.dot import edge_color, event_letter, to_dot

# pydot's parser uses pyparsing names that pyparsing now deprecates (not our code)
pytestmark = pytest.mark.filterwarnings("ignore:.*deprecated.*:DeprecationWarning")


def parse(text: str):
    (g,) = pydot.graph_from_dot_data(text)
    return g


def unq(s: str | None) -> str | None:
    return s[1:-1] if s and s.startswith('"') and s.endswith('"') else s


def labels(g) -> dict[str, str]:
    """Node name -> label, over the graph and its clusters."""
    out = {}
    for n in [*g.get_nodes(), *(n for sub in g.get_subgraphs() for n in sub.get_nodes())]:
        # a node named again in a rank (no label), an invisible head: layout, not picture
        if n.get("label") is not None and n.get_name() not in ("node", "edge", "graph"):
            out[n.get_name()] = unq(n.get("label"))
    return out


def edges(g) -> set[tuple[str, str, str, str]]:
    """(source letter, target letter, label, colour) of every edge."""
    lab = labels(g)

    def letter(node: str) -> str:
        return lab[node].split(":")[0] if node in lab else node

    return {
        (
            letter(e.get_source()),
            letter(e.get_destination()),
            unq(e.get("label")),
            unq(e.get("color")),
        )
        for e in g.get_edges()
        if e.get("style") != "invis"  # layout hints
    }


def fencerel(b, kind: str) -> int:
    U, sk = b.U, b.sk
    return U.seq(U.restrict(sk.po, U.ALL, sk.fence_set(kind)), sk.po)


@pytest.fixture
def mp():
    """herd's MP+lwsync+addr, its execution with both reads from the init writes."""
    return build(
        [
            [
                W("x", 1, name="a", instr="stw r1,0(r2)"),
                F("LWSYNC", name="j"),
                W("y", 1, name="b", instr="stw r3,0(r4)"),
            ],
            [R("y", 0, name="c", instr="lwz r1,0(r2)"), R("x", 0, name="d", instr="lwzx r4,r3,r5")],
        ],
        deps={"addr": [("c", "d")]},
    )


def test_mp_lwsync_addr(mp) -> None:
    g = mp.rel
    shows = {"co": g.co, "fr": g.fr, "lwsync": fencerel(mp, "LWSYNC"), "addr": mp.sk.deps["addr"]}
    d = parse(to_dot(g, test_name="MP+lwsync+addr", model_name="PPC", shows=shows))
    assert d.get_name() == "G" and d.get_type() == "digraph"
    assert unq(d.get("label")) == "Test MP+lwsync+addr, Generic(PPC)"
    lab = labels(d)
    # memory events of the threads first (a..d), then the init writes, then the fence
    assert sorted(lab.values()) == sorted(
        [
            "a: W[x]=1\\lproc:P0 poi:0\\lstw r1,0(r2)",
            "b: W[y]=1\\lproc:P0 poi:2\\lstw r3,0(r4)",
            "c: R[y]=0\\lproc:P1 poi:0\\llwz r1,0(r2)",
            "d: R[x]=0\\lproc:P1 poi:1\\llwzx r4,r3,r5",
            "e: W[x]=0\\lInit",
            "f: W[y]=0\\lInit",
            "g: Lwsync\\lproc:P0 poi:1\\llwsync",
        ]
    )
    clusters = {s.get_name(): s for s in d.get_subgraphs() if s.get_name().startswith("cluster")}
    assert set(clusters) == {"cluster_proc0", "cluster_proc1"}
    assert unq(clusters["cluster_proc1"].get("label")) == "Thread 1"
    assert clusters["cluster_proc0"].get("color") == "magenta"
    in_p0 = {lab[n.get_name()][0] for n in clusters["cluster_proc0"].get_nodes()}
    assert in_p0 == {"a", "b", "g"}
    top = {lab[n.get_name()][0] for n in d.get_nodes() if n.get_name() in lab}
    assert top == {"e", "f"}  # init writes outside the clusters
    assert edges(d) == {
        ("a", "g", "po", "black"),
        ("g", "b", "po", "black"),  # c->d po: addr drawn
        ("e", "d", "rf", "red"),
        ("f", "c", "rf", "red"),
        ("e", "a", "co", "blue"),
        ("f", "b", "co", "blue"),
        ("c", "b", "fr", "#ffa040"),
        ("d", "a", "fr", "#ffa040"),
        ("a", "b", "lwsync", "darkgreen"),
        ("c", "d", "addr", "indigo"),
    }
    for e in d.get_edges():
        assert e.get("fontcolor") == e.get("color")


def test_sb_default_shows_co_and_fr() -> None:
    b = build([[W("x", 1), R("y", 0)], [W("y", 1), R("x", 0)]])
    d = parse(to_dot(b.graph, test_name="SB"))
    assert unq(d.get("label")) == "Test SB"  # no model: the test name alone
    got = edges(d)
    assert {lbl for _, _, lbl, _ in got} == {"po", "rf", "co", "fr"}
    assert ("b", "c", "fr", "#ffa040") in got and ("d", "a", "fr", "#ffa040") in got
    assert ("a", "b", "po", "black") in got and ("c", "d", "po", "black") in got


def test_iriw_transitive_edges_removed_and_colours() -> None:
    b = build(
        [
            [W("x", 1, name="w1")],
            [W("x", 2, name="w2")],
            [W("x", 3, name="w3")],
            [R("x", 2, name="r1"), R("x", 1, name="r2")],
            [R("y", 0), R("y", 0)],
        ],
        co={"x": ["w2", "w1", "w3"]},
    )
    g = b.rel
    ppo = b.sk.po
    d = parse(
        to_dot(
            g,
            test_name="IRIW-ish",
            model_name="PPC",
            shows={"fr": g.fr, "ppo": ppo, "hb": ppo | g.rf},
        )
    )
    got = edges(d)
    co = {(s, t) for s, t, lbl, _ in got if lbl == "co"}
    # co is total on 4 writes of x: 6 pairs, drawn as the 3-edge chain
    assert len(co) == 3
    assert {lbl: col for _, _, lbl, col in got} == {
        "co": "blue",
        "fr": "#ffa040",
        "ppo": "indigo",
        "hb": "brown",
        "rf": "red",
    }
    # po never drawn where ppo joins the same events
    assert not any(lbl == "po" for _, _, lbl, _ in got)


def test_hidden_init_writes_and_init_rf() -> None:
    b = build([[W("x", 1)], [R("x", 0, name="r"), R("x", 1)]])
    g = b.rel
    d = parse(to_dot(g, test_name="T", show_init_writes=False))
    assert all("Init" not in v for v in labels(d).values())
    assert [x for x in edges(d) if x[2] == "rf"] == [("a", "c", "rf", "red")]
    d2 = parse(to_dot(g, test_name="T", show_init_writes=False, show_init_rf=True))
    points = [n for n in d2.get_nodes() if n.get("shape") == "point"]
    assert len(points) == 1
    assert any(e.get_source() == points[0].get_name() for e in d2.get_edges())


def test_rmw_labels_and_iico() -> None:
    b = build([[RMW("x", 0, 1, name="u", instr="xchg [x],EAX"), F("MFENCE")]])
    d = parse(to_dot(b.graph, test_name="X", model_name="TSO"))
    vals = set(labels(d).values())
    assert "a: R[x]*=0\\lproc:P0 poi:0\\lxchg [x],EAX" in vals
    assert "b: W[x]*=1\\lproc:P0 poi:0\\lxchg [x],EAX" in vals
    assert "d: MFENCE\\lproc:P0 poi:1\\lmfence" in vals
    got = edges(d)
    assert ("a", "b", "iico", "black") in got
    assert ("b", "d", "po", "black") in got and ("a", "b", "po", "black") not in got


def test_rf_shown_as_a_relation_replaces_rfmap() -> None:
    b = build([[W("x", 1)], [R("x", 1)]])
    d = parse(to_dot(b.graph, test_name="T", shows={"rf": b.rel.rf}))
    rf = [x for x in edges(d) if x[2] == "rf"]
    assert rf == [("a", "b", "rf", "red")]


def test_quoting_of_odd_text() -> None:
    b = build([[W("x", 1, instr='weird "quoted" \\ text')]])
    text = to_dot(b.graph, test_name='a "name"', model_name="M")
    d = parse(text)
    assert unq(d.get("label")) == 'Test a \\"name\\", Generic(M)'
    assert any('\\"quoted\\"' in v for v in labels(d).values())


def test_helpers() -> None:
    assert [event_letter(k) for k in (0, 25, 26, 100)] == ["a", "z", "ev26", "ev100"]
    assert edge_color("sync") == "darkgreen" and edge_color("mfence") == "darkgreen"
    assert edge_color("ctrlisync") == "indigo" and edge_color("data") == "indigo"
    assert edge_color("vo:1") == "magenta" and edge_color("whatever") == "brown"
    assert edge_color("ca") == "blue" and edge_color("fr") == "#ffa040"
