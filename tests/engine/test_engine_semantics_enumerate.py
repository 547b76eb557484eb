"""Thread executions (the eager enumeration on the step function): events, values, and
herd's addr/data/ctrl dependencies."""

from __future__ import annotations

import pytest
from support.engine import (
    COWR2_INIT,
    PPC_PTR,
    addi,
    b,
    beq,
    bne,
    cmpw,
    cmpwi,
    fence,
    label,
    li,
    litmus,
    lwz,
    lwzx,
    mov_ld,
    mov_st_reg,
    mr,
    reg_init,
    regs_eq,
    std,
    stw,
    stwx,
    xor,
)

from herdsman.engine.reference.skeletons import build_skeleton
from herdsman.engine.semantics import enumerate as enum
from herdsman.engine.semantics.arith import apply_op
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Op, PTrue, Reg, Sym
from herdsman.litmus.lower import lower
from herdsman.litmus.test import Instruction

thread_executions = enum.thread_executions


def one_thread(code, init=None, arch="PPC"):
    t = litmus(arch, "T", [code], PTrue(), init=init or PPC_PTR[:2])
    return thread_executions(lower(t))


def kinds(te):
    return "".join(e.kind for e in te.events)


def test_straight_line_events_and_poi():
    res = one_thread([li("r1", 1), stw("r1", "r2"), fence("LWSYNC"), lwz("r3", "r4")])
    assert len(res.execs[0]) == 1  # y only ever holds 0
    te = res.execs[0][0]
    assert kinds(te) == "WFR"
    assert [e.poi for e in te.events] == [1, 2, 3]
    assert te.events[0].loc == "x" and te.events[0].value == 1
    assert te.events[1].fence == "LWSYNC"
    assert te.events[2].instr == "lwz r3,0(r4)"
    assert res.values["x"] == {0, 1} and res.locations == ["x", "y"]


def test_read_values_come_from_the_fixpoint():
    # P0 writes x=1 then copies what it reads from x into y: y may hold 0 or 1.
    code0 = [li("r1", 1), stw("r1", "r2"), lwz("r3", "r2"), stw("r3", "r4")]
    code1 = [lwz("r1", "r2")]
    t = litmus("PPC", "T", [code0, code1], PTrue(), init=PPC_PTR)
    res = thread_executions(lower(t))
    assert res.values["x"] == {0, 1} and res.values["y"] == {0, 1}
    assert sorted(te.read_values for te in res.execs[0]) == [(0,), (1,)]
    assert sorted(te.read_values for te in res.execs[1]) == [(0,), (1,)]
    # the copy store has a value dependency (not the constant store)
    for te in res.execs[0]:
        assert te.pairs("valdep") == {(1, 2)} and te.pairs("data") == {(1, 2)}


def test_growing_values_stop():
    # r1 <- x; x <- r1 + 1 : values would grow forever; the bound stops them.
    code = [lwz("r1", "r2"), addi("r1", "r1", 1), stw("r1", "r2")]
    res = one_thread(code)
    assert {0, 1, 2} <= res.values["x"]
    assert len(res.values["x"]) <= 4


def test_addr_dependency_through_xor():
    code = [lwz("r1", "r2"), xor("r3", "r1", "r1"), lwzx("r5", "r3", "r4")]
    te = one_thread(code).execs[0][0]
    assert kinds(te) == "RR"
    assert te.pairs("addr") == {(0, 1)} and not te.pairs("data") and not te.pairs("ctrl")
    assert te.events[1].loc == "y"  # 0 + y


def test_data_dependency_and_constant_value():
    code = [lwz("r1", "r2"), xor("r3", "r1", "r1"), addi("r3", "r3", 1), stw("r3", "r4")]
    res = one_thread(code)
    for te in res.execs[0]:
        assert te.pairs("data") == {(0, 1)} and te.pairs("valdep") == {(0, 1)}
        assert not te.pairs("addr")
        assert te.events[1].value == 1


def test_stwx_data_and_addr():
    code = [lwz("r1", "r2"), xor("r3", "r1", "r1"), stwx("r1", "r3", "r4")]
    te = one_thread(code).execs[0][0]
    assert te.pairs("addr") == {(0, 1)} and te.pairs("data") == {(0, 1)}


def test_mr_and_li_break_or_keep_taint():
    code = [lwz("r1", "r2"), mr("r5", "r1"), li("r1", 0), stw("r5", "r4"), stw("r1", "r4")]
    te = one_thread(code).execs[0][0]
    assert te.pairs("data") == {(0, 1)}


def test_ctrl_targets_all_later_events_but_not_the_branch():
    # lwz; cmpw; beq L; L: isync; lwz; stw; cmpw; bne M; M: sync
    code = [
        lwz("r1", "r2"),
        cmpw("r1", "r1"),
        beq("L"),
        label("L"),
        fence("ISYNC"),
        lwz("r3", "r4"),
        stw("r1", "r4"),
        cmpwi("r3", 0),
        bne("M"),
        label("M"),
        fence("SYNC"),
    ]
    res = one_thread(code)
    te = res.execs[0][0]
    assert kinds(te) == "RBFRWBF"
    # poi counts instructions, not labels
    assert [e.poi for e in te.events] == [0, 2, 3, 4, 5, 7, 8]
    assert te.pairs("data") == {(0, 1), (0, 4), (3, 5)}
    assert te.pairs("ctrl") == {(0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (3, 6)}
    assert not te.pairs("addr")


def test_branch_outcome_depends_on_value():
    # r1 <- x; if r1 != 0 skip the store to y.
    code = [lwz("r1", "r2"), cmpwi("r1", 0), bne("L"), li("r3", 1), stw("r3", "r4"), label("L")]
    t = litmus(
        "PPC",
        "T",
        [code, [li("r1", 1), stw("r1", "r2")]],
        PTrue(),
        init=PPC_PTR[:2] + [reg_init(1, "r2", "x")],
    )
    res = thread_executions(lower(t))
    by_val = {te.read_values: kinds(te) for te in res.execs[0]}
    assert by_val == {(0,): "RBW", (1,): "RB"}
    shapes = {te.shape() for te in res.execs[0]}
    assert len(shapes) == 2


def test_x86_branches_make_no_commit_and_stores_are_addr():
    code = [mov_ld("EAX", "x"), mov_st_reg("y", "EAX")]
    te = thread_executions(lower(litmus("X86", "T", [code], PTrue()))).execs[0][0]
    assert kinds(te) == "RW"
    assert te.pairs("addr") == {(0, 1)} and not te.pairs("data") and te.pairs("valdep") == {(0, 1)}


def test_loop_is_unrolled_and_flagged():
    code = [label("L"), lwz("r1", "r2"), b("L")]
    res = one_thread(code)
    (te,) = res.execs[0]
    assert kinds(te) == "RRR"  # first pass + 2 backward jumps
    assert te.loop


def test_symbolic_registers_and_pointer_shapes():
    # CoWR2-like: x holds a pointer (z or t); the store goes where it points.
    p0 = [std("%t0", "%x0")]
    p1 = [lwz("r2", "%x1"), li("r3", 1), stw("r3", "r2")]
    res = thread_executions(lower(litmus("PPC", "T", [p0, p1], PTrue(), init=COWR2_INIT)))
    assert res.values["x"] == {Sym("z"), Sym("t")}
    locs = sorted(te.events[1].loc for te in res.execs[1])
    assert locs == ["t", "z"]
    assert res.locations == ["t", "x", "z"]
    assert dict(res.program.symbolic) == {"t0": Sym("t"), "x0": Sym("x"), "x1": Sym("x")}


def test_address_arithmetic():
    assert apply_op("add", [Sym("x"), 4]) == Sym("x", 4)
    assert apply_op("xor", [Sym("x"), Sym("x")]) == 0
    assert apply_op("sub", [Sym("x", 8), Sym("x")]) == 8
    assert apply_op("div", [-7, 2]) == -3 and apply_op("div", [1, 0]) == 0
    assert apply_op("cmp", [1, 2]) == -1 and apply_op("cmpu", [-1, 2]) == 1


def test_unsupported_operation_is_an_input_error():
    bad = Instruction("frob r1,r2", "frob", Op("r1", "frob", (Reg("r2"),)))
    t = litmus("PPC", "T", [[li("r2", 1), bad]], PTrue())
    with pytest.raises(InputError) as ei:
        thread_executions(lower(t))
    assert "P0, instruction 1 'frob r1,r2'" in str(ei.value)
    bad2 = Instruction("add r1,r2,r3", "add", Op("r1", "mul", (Reg("r2"), Reg("r3"))))
    t2 = litmus(
        "PPC", "T", [[bad2]], PTrue(), init=[reg_init(0, "r2", "x"), reg_init(0, "r3", "y")]
    )
    with pytest.raises(InputError, match="address"):
        thread_executions(lower(t2))


def test_undefined_label_is_an_input_error():
    t = litmus("PPC", "T", [[beq("NOWHERE")]], PTrue())
    with pytest.raises(InputError, match="undefined label"):
        thread_executions(lower(t))


def test_skeleton_numbering_and_deps():
    code0 = [lwz("r1", "r2"), xor("r3", "r1", "r1"), lwzx("r5", "r3", "r4")]
    code1 = [li("r1", 1), stw("r1", "r2"), fence("SYNC"), stw("r1", "r4")]
    t = litmus(
        "PPC",
        "T",
        [code0, code1],
        regs_eq((0, "r1", 1)),
        init=PPC_PTR,
    )
    res = thread_executions(lower(t))
    lay = build_skeleton(res.locations, res.init_mem, [res.execs[0][0], res.execs[1][0]])
    sk = lay.sk
    assert [(e.kind, e.tid, e.loc) for e in sk.events] == [
        ("W", -1, "x"),
        ("W", -1, "y"),
        ("R", 0, "x"),
        ("R", 0, "y"),
        ("W", 1, "y"),
        ("F", 1, None),
        ("W", 1, "x"),
    ]
    assert lay.base == [2, 4]
    assert sk.deps["addr"] == sk.U.pair(2, 3)
    assert sk.deps["data"] == 0 and sk.deps["ctrl"] == 0
    assert len({(e.tid, e.poi) for e in sk.events if e.tid >= 0}) == 5
