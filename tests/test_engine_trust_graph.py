"""TruSt's program view (engine/trust_program.py) and graph (engine/trust_graph.py)."""

from __future__ import annotations

from conftest import ROOT

from herdsman.engine.threads import thread_executions
from herdsman.engine.trust_graph import TGraph
from herdsman.engine.trust_program import Program
from herdsman.litmus import parse_file, parse_text

EXAMPLES = ROOT / "litmus" / "examples"

DEP = """PPC DEP
{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }
 P0           | P1           ;
 lwz r1,0(r2) | li r1,1      ;
 xor r3,r1,r1 | stw r1,0(r4) ;
 lwzx r5,r3,r4 | lwz r3,0(r2) ;
exists (0:r1=1)
"""


def program(text: str) -> Program:
    return Program(thread_executions(parse_text(text)))


def test_trie_segments_end_with_reads():
    prog = program(DEP)
    root = prog.roots[0]
    assert [s.ev.kind for s in root.steps] == ["R"]
    assert set(root.children) == {0, 1}  # the values x may hold
    child = root.child(1)
    assert child.start == 1 and [s.ev.kind for s in child.steps] == ["R"]
    assert child.steps[0].ev.loc == "y"
    leaf = child.child(0)
    assert leaf.final is not None and leaf.final.reg("r5") == 0
    assert root.child(7).blocked  # a value no execution of the thread reads
    # P1: a write, then a read
    assert [s.ev.kind for s in prog.roots[1].steps] == ["W", "R"]
    assert prog.roots[1].steps[0].ev.loc == "x"


def test_shapes_ignore_values_and_give_skeletons():
    prog = program(DEP)
    a = prog.roots[0].child(0).steps[0].shape
    b = prog.roots[0].child(1).steps[0].shape
    assert a == b  # same events and dependencies, whatever the value read
    sk = prog.skeleton((a, prog.roots[1].steps[-1].shape))
    kinds = [(e.kind, e.tid, e.loc) for e in sk.events]
    assert kinds == [
        ("W", -1, "x"),
        ("W", -1, "y"),
        ("R", 0, "x"),
        ("R", 0, "y"),
        ("W", 1, "x"),
        ("R", 1, "y"),
    ]
    assert sk.U.pairs(sk.deps["addr"]) == [(2, 3)]  # lwzx's address depends on the load


def test_add_and_pop_restore_the_graph():
    prog = Program(thread_executions(parse_file(EXAMPLES / "x86" / "SB.litmus")))
    g = TGraph(prog)
    before = (g.n[:], [c[:] for c in g.co], g.clock)
    t = g.next_thread()
    assert t == 0
    st = g.next_step(0)
    li = prog.loc_index[st.ev.loc]
    g.add_write(0, st, 0, li)
    e = g.base[0]
    assert g.co[li] == [e] and g.addedmax[e] and g.stamp[e] == 1
    st2 = g.next_step(0)
    g.add_read(0, st2, prog.loc_index[st2.ev.loc], True)
    g.pop(0)
    g.pop(0)
    assert (g.n, g.co, g.clock) == before


def test_porf_prefix_and_revisit():
    """SB: P0 writes x, reads y (from init); P1 writes y: its write may revisit P0's
    read, deleting what was added after it and keeping its own porf-prefix."""
    prog = Program(thread_executions(parse_file(EXAMPLES / "x86" / "SB.litmus")))
    g = TGraph(prog)
    x, y = prog.loc_index["x"], prog.loc_index["y"]
    g.add_write(0, g.next_step(0), 0, x)  # P0: W x
    r = g.base[0] + 1
    g.add_read(0, g.next_step(0), y, True)  # P0: R y <- init
    g.add_write(1, g.next_step(1), 0, y)  # P1: W y
    a = g.base[1]
    assert g.porf_view(a) == [0, 1]
    assert g.porf_view(r) == [2, 0]
    kept = g.kept_view(r, g.porf_view(a))
    assert kept == [2, 1]
    g2 = g.revisit(r, a, kept, g.porf_view(a))
    assert g2.rf[r] == a and g2.val[r] == 1
    assert not g2.revisitable[a] and g2.revisitable[r]
    assert g2.addedmax[r]  # a is co-latest
    assert g.rf[r] == y  # the original is untouched
    assert g2.next_thread() == 1 and g2.next_step(1).ev.kind == "R"


def test_encoding_numbers_like_the_skeleton():
    prog = Program(thread_executions(parse_file(EXAMPLES / "x86" / "MP.litmus")))
    g = TGraph(prog)
    x, y = prog.loc_index["x"], prog.loc_index["y"]
    g.add_write(0, g.next_step(0), 0, x)
    g.add_write(0, g.next_step(0), 0, y)
    g.add_read(1, g.next_step(1), g.base[0] + 1, True)  # P1 reads y from P0
    key, rf, co, off, size = g.encode()
    sk = prog.skeleton(key)
    assert size == sk.n == 5
    U = sk.U
    assert U.pairs(rf) == [(3, 4)]
    assert U.pairs(co) == [(0, 2), (1, 3)]
