"""TruSt's graph (engine/trust/graph.py) over the program's tree of thread prefixes
(engine/semantics/paths.py)."""

from __future__ import annotations

from conftest import ROOT

from herdsman.engine.semantics.paths import PathTree
from herdsman.engine.semantics.state import Emit, Read, ThreadDone
from herdsman.engine.semantics.step import Semantics
from herdsman.engine.trust.graph import TrustGraph
from herdsman.graphs.execution import Layout
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

EXAMPLES = ROOT / "litmus" / "examples"

DEP = """PPC DEP
{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }
 P0           | P1           ;
 lwz r1,0(r2) | li r1,1      ;
 xor r3,r1,r1 | stw r1,0(r4) ;
 lwzx r5,r3,r4 | lwz r3,0(r2) ;
exists (0:r1=1)
"""


def graph(test) -> TrustGraph:
    program = lower(test)
    sem = Semantics(program)
    room = [sem.max_events(t) for t in range(len(program.threads))]
    mem = dict(program.memory)
    lay = Layout(sorted(mem), [mem[x] for x in sorted(mem)], room)
    return TrustGraph(lay, [PathTree(code, lay.shapes, mem).root() for code in sem.threads])


def test_paths_step_once_per_prefix_and_branch_on_values():
    g = graph(parse_text(DEP))
    root = g.roots[0]
    assert isinstance(root.step, Read) and root.step.event.loc == "x"
    assert root.child(1) is root.child(1)  # each prefix is one node
    after = root.child(1)
    assert isinstance(after.step, Read) and after.step.event.loc == "y"
    assert after.step.event.addr == 0b1  # lwzx's address depends on the first load
    leaf = after.child(0)
    assert isinstance(leaf.step, ThreadDone) and dict(leaf.step.regs)["r5"] == 0
    p1 = g.roots[1]
    assert isinstance(p1.step, Emit) and p1.step.event.loc == "x"
    assert isinstance(p1.after().step, Read)


def test_shapes_ignore_values_and_give_skeletons():
    g = graph(parse_text(DEP))
    root = g.roots[0]
    a, b = root.child(0).next_shape(), root.child(1).next_shape()
    assert a == b  # same events and dependencies, whatever the value read
    p1 = g.roots[1]
    sk = g.lay.shapes.skeleton((a, p1.after().next_shape()))
    kinds = [(e.kind, e.tid, e.loc) for e in sk.events]
    assert kinds == [
        ("W", -1, "x"),
        ("W", -1, "y"),
        ("R", 0, "x"),
        ("R", 0, "y"),
        ("W", 1, "x"),
        ("R", 1, "y"),
    ]
    assert sk.U.pairs(sk.deps["addr"]) == [(2, 3)]
    # a completion runs the thread to its end (reads take initial values)
    assert g.lay.shapes.length[root.completion()] == 2


def test_add_and_pop_restore_the_graph():
    g = graph(parse_file(EXAMPLES / "x86" / "SB.litmus"))
    before = (g.n[:], [c[:] for c in g.co], g.clock, [g.at(t) for t in range(g.T)])
    assert g.next_thread() == 0
    e = g.add_write_at(0, g.next_node(0), 0)
    assert g.co[g.loc(e)] == [e] and g.addedmax[e] and g.stamp[e] == 1
    g.add_read_from(0, g.next_node(0), g.lay.loc_index["y"], True)
    assert g.next_node(0) is None and g.final(0) is not None
    g.pop(0)
    g.pop(0)
    assert (g.n, g.co, g.clock, [g.at(t) for t in range(g.T)]) == before


def test_porf_prefix_and_revisit():
    """SB: P0 writes x, reads y (from init); P1 writes y: its write may revisit P0's
    read, deleting what was added after it and keeping its own porf-prefix."""
    g = graph(parse_file(EXAMPLES / "x86" / "SB.litmus"))
    y = g.lay.loc_index["y"]
    g.add_write_at(0, g.next_node(0), 0)  # P0: W x
    r = g.add_read_from(0, g.next_node(0), y, True)  # P0: R y <- init
    a = g.add_write_at(1, g.next_node(1), 0)  # P1: W y
    assert g.porf_view(a) == [0, 1]
    assert g.porf_view(r) == [2, 0]
    kept = g.kept_view(r, g.porf_view(a))
    assert kept == [2, 1]
    g2 = g.revisit(r, a, kept, g.porf_view(a))
    assert g2.rf[r] == a and g2.val[r] == 1
    assert not g2.revisitable[a] and g2.revisitable[r]
    assert g2.addedmax[r]  # a is co-latest
    assert g.rf[r] == y and g.val[r] == 0  # the original is untouched
    assert g2.at(0) is g.node[r - 1].child(1)  # P0 goes on from the new value
    node = g2.next_node(1)
    assert g2.next_thread() == 1 and node is not None and isinstance(node.step, Read)


def test_relations_number_like_the_skeleton():
    g = graph(parse_file(EXAMPLES / "x86" / "MP.litmus"))
    g.add_write_at(0, g.next_node(0), 0)
    w = g.add_write_at(0, g.next_node(0), 0)
    g.add_read_from(1, g.next_node(1), w, True)  # P1 reads y from P0
    rel = g.relations()
    assert rel.sk is g.lay.shapes.skeleton(g.shape_key()) and rel.sk.n == 5
    assert rel.U.pairs(rel.rf) == [(3, 4)]
    assert rel.U.pairs(rel.co) == [(0, 2), (1, 3)]
    pic = g.relations(values=True)
    assert [e.value for e in pic.events] == [0, 0, 1, 1, 1]


def test_remembered_prefixes_are_the_porf_prefixes(monkeypatch):
    """Every porf-prefix the explorer takes from :meth:`TrustGraph.view` (remembered per
    event, across additions, pops and revisits) is the one :meth:`porf_view` walks out
    afresh: on litmus tests and on C programs that spawn and join threads."""
    from support.engine import c_target

    from herdsman.cat.api import load_model
    from herdsman.engine.run import RunOptions
    from herdsman.engine.trust import core
    from herdsman.engine.trust.run import explore_program
    from herdsman.litmus.c import load_c_program

    asked = [0]
    remembered = TrustGraph.view

    def checked(g: TrustGraph, e: int) -> tuple[int, ...]:
        got = remembered(g, e)
        assert list(got) == g.porf_view(e, g.spawned_at if g.spawned else None)
        asked[0] += 1
        return got

    monkeypatch.setattr(TrustGraph, "view", checked)
    monkeypatch.setattr(core, "CORE", False)  # the Python explorer, whose graphs these are
    model = load_model("sc")
    for f in ("SB.litmus", "IRIW.litmus", "MP.litmus"):
        explore_program(lower(parse_file(EXAMPLES / "x86" / f)), model, RunOptions(engine="trust"))
    for f in sorted((EXAMPLES / "programs").glob("*.c"))[:12]:
        program = load_c_program(str(f), c_target("sc"), {}, [], unroll=2)
        explore_program(program, model, RunOptions(engine="trust", unroll=2))
    assert asked[0] > 200
