"""The reference explorer against independent oracles and herd's X86 logs.

The oracle models (SC, x86-TSO) and a brute-force enumerator (every combination of thread
executions, every rf, every co, no pruning, no shapes) live in the tests, so the explorer's
pruning, shape grouping and value bookkeeping are checked against code that shares none of
them.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from types import SimpleNamespace

import pytest
from conftest import shared_path
from support.engine import (
    COWR2_INIT,
    MFENCE,
    PPC_PTR,
    GenericOracleModel,
    OracleModel,
    StubModel,
    addi,
    allowed,
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
    mem_eq,
    mov_ld,
    mov_st,
    regs_eq,
    std,
    stw,
    xor,
)

from herdsman.cat.api import load_model
from herdsman.engine.reference.skeletons import build_skeleton
from herdsman.engine.run import RunOptions, TimeLimitExceeded, run_program
from herdsman.engine.semantics.enumerate import thread_executions
from herdsman.graphs.relalg import bits
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    And,
    Atom,
    MemLoc,
    Not,
    PTrue,
    RegLoc,
    Sym,
    SymRegLoc,
    eval_prop,
)
from herdsman.litmus.lower import lower
from herdsman.litmus.test import InitItem


def run_test(test, model, opts=None):
    """The outcome of ``test`` under ``model`` by the reference engine (``auto`` would
    run TruSt for the oracle models that forbid load buffering)."""
    opts = opts or RunOptions()
    if opts.engine == "auto":
        opts = replace(opts, engine="reference")
    return run_program(lower(test), model, opts)


# ----------------------------------------------------------------------------- X86 tests
# Hand-built exactly as in ../shared/x86/tests (the parser is not needed for them).

X86 = {
    "SB": (
        [[mov_st("x", 1), mov_ld("EAX", "y")], [mov_st("y", 1), mov_ld("EAX", "x")]],
        regs_eq((0, "EAX", 0), (1, "EAX", 0)),
    ),
    "MP": (
        [[mov_st("x", 1), mov_st("y", 1)], [mov_ld("EAX", "y"), mov_ld("EBX", "x")]],
        regs_eq((1, "EAX", 1), (1, "EBX", 0)),
    ),
    "LB": (
        [[mov_ld("EAX", "x"), mov_st("y", 1)], [mov_ld("EAX", "y"), mov_st("x", 1)]],
        regs_eq((0, "EAX", 1), (1, "EAX", 1)),
    ),
    "2+2W": (
        [[mov_st("x", 2), mov_st("y", 1)], [mov_st("y", 2), mov_st("x", 1)]],
        mem_eq(("x", 2), ("y", 2)),
    ),
    "R": (
        [[mov_st("x", 1), mov_st("y", 1)], [mov_st("y", 2), mov_ld("EAX", "x")]],
        And((Atom(MemLoc("y"), 2), Atom(RegLoc(1, "EAX"), 0))),
    ),
    "S": (
        [[mov_st("x", 2), mov_st("y", 1)], [mov_ld("EAX", "y"), mov_st("x", 1)]],
        And((Atom(MemLoc("x"), 2), Atom(RegLoc(1, "EAX"), 1))),
    ),
    "SB+mfences": (
        [
            [mov_st("x", 1), MFENCE, mov_ld("EAX", "y")],
            [mov_st("y", 1), MFENCE, mov_ld("EAX", "x")],
        ],
        regs_eq((0, "EAX", 0), (1, "EAX", 0)),
    ),
    "MP+mfences": (
        [
            [mov_st("x", 1), MFENCE, mov_st("y", 1)],
            [mov_ld("EAX", "y"), MFENCE, mov_ld("EBX", "x")],
        ],
        regs_eq((1, "EAX", 1), (1, "EBX", 0)),
    ),
    "R+mfences": (
        [[mov_st("x", 1), MFENCE, mov_st("y", 1)], [mov_st("y", 2), MFENCE, mov_ld("EAX", "x")]],
        And((Atom(MemLoc("y"), 2), Atom(RegLoc(1, "EAX"), 0))),
    ),
    "SB+rfi-pos": (
        [
            [mov_st("x", 1), mov_ld("EAX", "x"), mov_ld("EBX", "y")],
            [mov_st("y", 1), mov_ld("EAX", "y"), mov_ld("EBX", "x")],
        ],
        regs_eq((0, "EAX", 1), (0, "EBX", 0), (1, "EAX", 1), (1, "EBX", 0)),
    ),
}


def x86_test(name: str):
    threads, prop = X86[name]
    return litmus("X86", name, threads, prop)


def herd_records(log: str) -> dict:
    from herdsman.herd_compat.formats.herdlog import read_herd_log

    return {r.name: r for r in read_herd_log(shared_path("x86", log))}


def as_state_sets(result) -> set[frozenset]:
    return {frozenset(zip(result.observed, st, strict=True)) for st in result.states}


def herd_state_sets(rec) -> set[frozenset]:
    from herdsman.herd_compat.formats.herdlog import parse_state_line

    return {frozenset(parse_state_line(line)) for line in rec.states}


def assert_like_herd(result, rec) -> None:
    assert as_state_sets(result) == herd_state_sets(rec), result.program
    assert (result.positive, result.negative) == (rec.obs_positive, rec.obs_negative), (
        result.program
    )


@pytest.mark.parametrize(
    "log,tso", [("herd7-tests-sc.log", False), ("herd7-tests-x86tso.log", True)]
)
def test_x86_hand_built_tests_match_herd(log, tso):
    recs = herd_records(log)
    for name in X86:
        r = run_test(x86_test(name), OracleModel(tso))
        assert_like_herd(r, recs[name])
        assert r.quantifier == "exists"


def run_all_x86(model, logname: str) -> int:
    from herdsman.litmus.parser import parse_file

    x86 = shared_path("x86")
    n = 0
    logs = (
        ("tests", f"herd7-tests-{logname}.log"),
        ("generated", f"generated/herd7-{logname}.log"),
    )
    for sub, log in logs:
        recs = herd_records(log)
        for f in sorted((x86 / sub).glob("*.litmus")):
            t = parse_file(f)
            assert_like_herd(run_test(t, model), recs[t.name])
            n += 1
    return n


@pytest.mark.parametrize("tso", [False, True])
def test_all_x86_tests_match_herd(tso):
    """The 475 X86 tests of ../shared (catalogue and generated), parsed, under SC and
    x86-TSO oracles: herd's states and counts (herd ran sc.cat and x86tso.cat)."""
    assert run_all_x86(OracleModel(tso), "x86tso" if tso else "sc") == 475


@pytest.mark.parametrize(
    "spec,log",
    [("herd-cat/x86tso.cat", "x86tso"), ("herd-cat/sc.cat", "sc"), ("tso", "x86tso"), ("sc", "sc")],
)
def test_all_x86_tests_match_herd_with_cat_models(spec, log):
    model = load_model(str(shared_path(spec)) if spec.endswith(".cat") else spec)
    assert run_all_x86(model, log) == 475


@pytest.mark.parametrize("tso", [False, True])
def test_pruning_modes_and_generic_mode_agree(tso):
    for name in X86:
        t = x86_test(name)
        ref = run_test(t, OracleModel(tso), RunOptions(prune="never"))
        for prune in ("step", "location"):
            r = run_test(t, OracleModel(tso), RunOptions(prune=prune))
            assert (r.states, r.positive, r.negative) == (ref.states, ref.positive, ref.negative)
            assert r.stats.candidates <= ref.stats.candidates
        g = run_test(t, GenericOracleModel(tso))
        assert (g.states, g.positive, g.negative) == (ref.states, ref.positive, ref.negative)


def test_pruning_saves_candidates():
    t = x86_test("SB+rfi-pos")
    full = run_test(t, OracleModel(False), RunOptions(prune="never"))
    pruned = run_test(t, OracleModel(False))
    assert pruned.stats.candidates < full.stats.candidates
    assert pruned.stats.extra["pruned"] > 0


# ----------------------------------------------------------------------------- brute force


class AcceptAll(StubModel):
    """A model that accepts every candidate (pure enumeration counts)."""

    co_mode = "native"

    def prepare(self, sk, arch):
        def check(rf, co=None, fw=None, **kw):
            return [allowed(co)]

        return SimpleNamespace(check=check, partial_violation=lambda rf, co: False)


def brute_force(test, tso: bool | None):
    """States and counts by the book: every combination of thread executions, every rf
    of equal value, every co; candidates whose rf closes a value-dependency cycle are
    rejected (herd cannot solve their equations)."""
    res = thread_executions(lower(test))
    observed = test.observed_locations()
    states, pos, neg = set(), 0, 0
    for combo in itertools.product(*res.execs):
        lay = build_skeleton(res.locations, res.init_mem, list(combo))
        sk, U = lay.sk, lay.sk.U
        sess = OracleModel(bool(tso)).prepare(sk, test.arch) if tso is not None else None
        evs = sk.events
        reads = [i for i, e in enumerate(evs) if e.kind == "R"]
        choices = [
            [
                j
                for j, w in enumerate(evs)
                if w.kind == "W" and w.loc == evs[r].loc and w.value == evs[r].value
            ]
            for r in reads
        ]
        cos = []
        for x in sk.locations:
            init = sk.init_write[x]
            ws = [w for w in bits(sk.writes_by_loc[x]) if w != init]
            cos.append([U.total_order([init, *p]) for p in itertools.permutations(ws)])
        for srcs in itertools.product(*choices):
            rf = U.from_pairs((w, r) for w, r in zip(srcs, reads, strict=True))
            if sk.valdep and not U.acyclic(rf | sk.valdep):
                continue
            for parts in itertools.product(*cos):
                co = 0
                for c in parts:
                    co |= c
                if sess is not None and not sess.ok(rf, co):
                    continue
                g_final = {}
                for w in bits(sk.W & ~U.domain(co)):
                    g_final[sk.events[w].loc] = sk.events[w].value
                state = {}
                for loc in observed:
                    if isinstance(loc, RegLoc):
                        state[loc] = combo[loc.tid].reg(loc.reg)
                    elif isinstance(loc, MemLoc):
                        state[loc] = g_final.get(loc.name, res.init_mem.get(loc.name, 0))
                states.add(tuple(state[loc] for loc in observed))
                if eval_prop(test.condition.prop, state):
                    pos += 1
                else:
                    neg += 1
    return states, pos, neg


PPC = {
    # data dependencies on both sides: the rf cycle is rejected (unsolvable values)
    "LB+datas": litmus(
        "PPC",
        "LB+datas",
        [[lwz("r1", "r2"), xor("r3", "r1", "r1"), addi("r3", "r3", 1), stw("r3", "r4")]] * 2,
        regs_eq((0, "r1", 1), (1, "r1", 1)),
        init=PPC_PTR,
    ),
    # a store of the value read: write values vary with the thread execution
    "copy": litmus(
        "PPC",
        "copy",
        [[lwz("r1", "r2"), stw("r1", "r4")], [li("r1", 2), stw("r1", "r4"), lwz("r3", "r2")]],
        regs_eq((0, "r1", 2), (1, "r3", 2)),
        init=PPC_PTR,
    ),
    # value-dependent control flow (PET-like) gives several shapes
    "branchy": litmus(
        "PPC",
        "branchy",
        [
            [
                li("r1", 1),
                stw("r1", "r2"),
                lwz("r3", "r4"),
                cmpwi("r3", 1),
                bne("L0"),
                li("r5", 2),
                stw("r5", "r2"),
                label("L0"),
            ],
            [
                li("r1", 1),
                stw("r1", "r2"),
                lwz("r3", "r4"),
                cmpw("r3", "r3"),
                beq("L1"),
                label("L1"),
                fence("ISYNC"),
                lwz("r6", "r4"),
            ],
        ],
        And((Atom(MemLoc("x"), 2), Atom(RegLoc(1, "r3"), 1))),
        init=PPC_PTR,
    ),
    "MP+addr": litmus(
        "PPC",
        "MP+addr",
        [
            [li("r1", 1), stw("r1", "r2"), fence("LWSYNC"), li("r3", 1), stw("r3", "r4")],
            [lwz("r1", "r2"), xor("r3", "r1", "r1"), lwzx("r5", "r3", "r4")],
        ],
        regs_eq((1, "r1", 1), (1, "r5", 0)),
        init=PPC_PTR,
    ),
}


def cowr2():
    init = [*COWR2_INIT, InitItem(SymRegLoc("t1"), Sym("t"), "t")]
    p0 = [std("%t0", "%x0")]
    p1 = [
        lwz("r1", "%x1"),
        lwz("r2", "%x1"),
        li("r3", 1),
        stw("r3", "r2"),
        lwz("r4", "%t1"),
    ]
    return litmus(
        "PPC", "CoWR2", [p0, p1], And((Atom(MemLoc("t"), 1), Atom(RegLoc(1, "r4"), 0))), init=init
    )


@pytest.mark.parametrize("name", [*PPC, "CoWR2"])
@pytest.mark.parametrize("tso", [None, False, True])
def test_explorer_matches_brute_force(name, tso):
    t = cowr2() if name == "CoWR2" else PPC[name]
    model = AcceptAll() if tso is None else OracleModel(tso)
    r = run_test(t, model)
    states, pos, neg = brute_force(t, tso)
    assert (set(r.states), r.positive, r.negative) == (states, pos, neg)
    assert pos + neg > 0


def test_cowr2_like_herd_under_sc():
    """herd's CoWR2 (a store through an address read twice): under SC the same two states
    and three executions as herd's POWER run (whichever address is read, P1 then reads
    its own store or the initial t), so herd's record is the answer."""
    from herdsman.herd_compat.formats.herdlog import parse_state_line, read_herd_log
    from herdsman.litmus.parser import parse_file

    (rec,) = [r for r in read_herd_log(shared_path("power", "herd7-ppc.log")) if r.name == "CoWR2"]
    r = run_program(
        lower(parse_file(str(shared_path("power", "tests", "CoWR2.litmus")))), OracleModel(False)
    )
    got = {frozenset(zip(r.observed, s, strict=True)) for s in r.states}
    want = {frozenset(parse_state_line(x)) for x in rec.states}
    assert (r.positive, r.negative) == (rec.obs_positive, rec.obs_negative) == (0, 3)
    assert len(got) == 2 and got == want, (got, want)


def test_lb_datas_cycle_rejected_even_if_model_accepts():
    r = run_test(PPC["LB+datas"], AcceptAll())
    assert r.positive == 0 and r.stats.extra.get("cyclic_values", 0) > 0


# ----------------------------------------------------------------------------- run API


def test_result_fields_and_quantifiers():
    t = x86_test("SB")
    r = run_test(t, OracleModel(True))
    assert r.program == "SB" and r.quantifier == "exists" and r.engine == "reference"
    assert r.observed == (RegLoc(0, "EAX"), RegLoc(1, "EAX"))
    assert r.stats.candidates >= r.positive + r.negative and r.stats.time >= 0
    assert r.condition_holds
    for quant, holds in (("~exists", False), ("forall", False)):
        t2 = litmus("X86", "SB", X86["SB"][0], X86["SB"][1], quant=quant)
        r2 = run_test(t2, OracleModel(True))
        assert r2.quantifier == quant and r2.condition_holds == holds
        assert (r2.positive, r2.negative) == (r.positive, r.negative)


def test_locations_and_filter():
    threads, prop = X86["SB"]
    t = litmus("X86", "SB", threads, PTrue(), locations=(MemLoc("x"), RegLoc(0, "EAX")))
    r = run_test(t, OracleModel(True))
    assert r.observed == (MemLoc("x"), RegLoc(0, "EAX"))
    assert set(r.states) == {(1, 0), (1, 1)} and r.negative == 0 and r.positive == 4
    f = litmus("X86", "SB", threads, prop, filter=Not(Atom(RegLoc(0, "EAX"), 0)))
    rf = run_test(f, OracleModel(True))
    assert rf.positive == 0 and rf.negative == 2
    off = run_test(f, OracleModel(True), RunOptions(checkfilter=False))
    assert (off.positive, off.negative) == (1, 3)


@pytest.mark.parametrize(
    "mode,expect", [("prop", 1), ("neg", 2), ("all", 2), ("cond", 1), ("wit", 1)]
)
def test_show_modes(mode, expect):
    r = run_test(x86_test("SB"), OracleModel(True), RunOptions(show=mode, nshow=2))
    assert len(r.witnesses) == expect
    # SB's exists: prop, cond and wit keep satisfying executions, neg the others, all both
    want = {"prop": {True}, "cond": {True}, "wit": {True}, "neg": {False}, "all": {True, False}}
    assert {s.satisfies for s in r.witnesses} == want[mode]
    for s in r.witnesses:
        g = s.graph.relations(values=True)
        assert g.rf and {e.value for e in g.events if e.kind == "R"} <= {0, 1}
    if mode == "prop":
        (s,) = r.witnesses
        regs = [e for e in s.graph.relations(values=True).events if e.kind == "R"]
        assert [e.value for e in regs] == [0, 0]  # the SB witness, with its own values


def test_time_limit():
    # three threads hammering one location: thousands of coherence orders
    code = [mov_st("x", 1), mov_st("x", 2), mov_ld("EAX", "x")]
    t = litmus("X86", "big", [code, code, code], PTrue())
    with pytest.raises(TimeLimitExceeded):
        run_test(t, AcceptAll(), RunOptions(time_limit=0.0))


def test_bad_options_are_input_errors():
    with pytest.raises(InputError, match="engine"):
        run_test(x86_test("SB"), OracleModel(), RunOptions(engine="trust-me"))
    with pytest.raises(InputError, match="show"):
        run_test(x86_test("SB"), OracleModel(), RunOptions(show="pictures"))


class Recorder(StubModel):
    """Accepts everything and records what the explorer passes to the model."""

    def __init__(self, co_mode: str) -> None:
        self.co_mode = co_mode
        self.calls: list[tuple] = []
        self.sk = None

    def prepare(self, sk, arch):
        self.sk = sk

        def check(rf, co=None, fw=None, **kw):
            self.calls.append((rf, co, fw))
            return [allowed(co)]

        return SimpleNamespace(check=check, partial_violation=lambda rf, co: False)


def test_native_mode_passes_total_coherence_orders():
    rec = Recorder("native")
    r = run_test(x86_test("2+2W"), rec, RunOptions(prune="never"))
    sk = rec.sk
    U = sk.U
    assert len(rec.calls) == 4 == r.positive + r.negative
    for rf, co, fw in rec.calls:
        assert rf == 0 and fw is None
        assert U.plus(co) == co and not (co & U.ID)  # a strict order
        for x, ws in sk.writes_by_loc.items():
            n = bin(ws).count("1")
            assert bin(co & U.product(ws, ws)).count("1") == n * (n - 1) // 2  # total
            assert U.row(co, sk.init_write[x]) == ws & ~(1 << sk.init_write[x])  # init first


def test_generic_mode_chooses_final_writes_of_observed_locations_only():
    rec = Recorder("generic")
    run_test(x86_test("2+2W"), rec)
    sk = rec.sk
    fws = {fw for _, co, fw in rec.calls}
    assert all(co is None for _, co, _ in rec.calls)
    # x and y each have 3 writes (init included): 9 choices of one write per location
    assert len(fws) == 9
    for fw in fws:
        assert all(bin(fw & ws).count("1") == 1 for ws in sk.writes_by_loc.values())
    rec2 = Recorder("generic")
    run_test(x86_test("SB"), rec2)  # no memory location observed: no final write chosen
    assert {fw for *_, fw in rec2.calls} == {0}


def test_time_limit_during_thread_execution():
    # one thread reading x four times, x taking 5 values: 625 thread executions
    reader = [mov_ld(f"E{i}X", "x") for i in range(4)]
    writers = [[mov_st("x", v)] for v in (1, 2, 3, 4)]
    t = litmus("X86", "wide", [reader, *writers], PTrue())
    assert len(thread_executions(lower(t)).execs[0]) == 625
    with pytest.raises(TimeLimitExceeded):
        thread_executions(lower(t), deadline=0.0)
