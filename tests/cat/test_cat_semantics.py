"""Semantics of every cat construct, on a small hand-computed graph.

The graph (MP with a sync and an address dependency), events by name::

    init:x  init:y  |  a: W x=1   f: SYNC   b: W y=1  |  c: R y=1 -addr-> d: R x=0

rf: b->c, init:x->d; co: init:x->a, init:y->b.  Expressions are evaluated by the
compiled path (``show e`` of a model) and, for values that are not sets or relations,
decided by the model itself through ``if ... then 0 else _`` checks.
"""

from __future__ import annotations

import pytest

from herdsman.cat.api import load_model_text
from herdsman.cat.env import Env
from herdsman.cat.evaluator import Evaluator
from herdsman.cat.prims import PRIMS
from herdsman.cat.values import VClassRel, VRel, VSet, VTag, VValSet
from herdsman.graphs.build import F, R, W, build
from herdsman.graphs.herdnames import static_names
from herdsman.litmus.base.errors import InputError

G = build(
    [
        [W("x", 1, name="a"), F("SYNC", name="f"), W("y", 1, name="b")],
        [R("y", 1, name="c"), R("x", 0, name="d")],
    ],
    deps={"addr": [("c", "d")]},
)
U = G.U
E = G.ids
RF, CO = G.rel.rf, G.rel.co


def rel(*pairs: str) -> int:
    return G.relation(tuple(p.split(">")) for p in pairs)


def st(*names: str) -> int:
    return G.set(names)


def value(expr: str, prelude: str = "", variants=()) -> int:
    """The set or relation ``expr`` evaluates to on G (compiled path)."""
    m = load_model_text(
        f'"t"\ninclude "cos.cat"\n{prelude}\nlet e = {expr}\nshow e\n', variants=frozenset(variants)
    )
    (v,) = m.prepare(G.sk, "PPC").check(RF, co=CO, want_shows=True)
    assert v.allowed
    return v.shows["e"] if "e" in v.shows else v.show_sets["e"]


def holds(cond: str, prelude: str = "") -> bool:
    """Whether ``if cond then ... else ...`` takes its first branch."""
    m = load_model_text(
        f'"t"\ninclude "cos.cat"\n{prelude}\nempty (if {cond} then 0 else _) as c\n'
    )
    (v,) = m.prepare(G.sk, "PPC").check(RF, co=CO)
    return v.allowed


PO = rel("a>f", "a>b", "f>b", "c>d")
FR = rel("d>a")


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("po", PO),
        ("rf", rel("b>c", "init:x>d")),
        ("co", rel("init:x>a", "init:y>b")),
        ("fr", FR),
        ("0", 0),
        ("{}", 0),
        ("po | rf", PO | rel("b>c", "init:x>d")),
        ("po & loc", 0),
        ("po \\ (W * W)", rel("a>f", "f>b", "c>d")),
        ("po; rf", rel("a>c", "f>c")),
        ("rf; po", rel("b>d")),
        ("po^-1", rel("f>a", "b>a", "b>f", "d>c")),
        ("(po | rf)+", PO | rel("b>c", "init:x>d", "b>d", "a>c", "a>d", "f>c", "f>d")),
        ("(rf; po)*", rel("b>d") | U.ID),
        ("rf?", rel("b>c", "init:x>d") | U.ID),
        ("~po", U.FULL & ~PO),
        ("[W]; po; [W]", rel("a>b")),
        ("[W]; po", rel("a>f", "a>b")),
        ("po; [R]", rel("c>d")),
        ("[R]", rel("c>c", "d>d")),
        ("[W]; [M]", rel("init:x>init:x", "init:y>init:y", "a>a", "b>b")),
        ("W * R", U.product(st("init:x", "init:y", "a", "b"), st("c", "d"))),
        ("po & (W * _)", rel("a>f", "a>b")),
        ("po & ~(W * _)", rel("f>b", "c>d")),
        ("_ & addr", rel("c>d")),
        ("po & _", PO),
        ("{} | addr", rel("c>d")),
        ("addr \\ {}", rel("c>d")),
        ("fencerel(SYNC)", rel("a>b")),
        ("ctrlcfence(po, SYNC)", rel("a>b")),
        ("po-loc | rfe | rfi", rel("b>c", "init:x>d")),
        ("co0", rel("init:x>a", "init:y>b")),
        ("toid(R)", rel("c>c", "d>d")),
        ("imply(W * _, po)", (U.FULL & ~U.product(st("init:x", "init:y", "a", "b"), U.ALL)) | PO),
        ("nodetour(po, po, po)", rel("a>f", "f>b", "c>d")),
        ("singlestep(po)", rel("a>f", "f>b", "c>d")),
        ("let x = po in let f y = x | y in let x = rf in f 0", PO),
        ("let f = fun x -> x; x in f(po)", rel("a>b")),
        ("let (p, q) = (po, rf) in p & q", 0),
        ("let p, q = po, addr in p & q", rel("c>d")),
        ("let rec t = po | (t; t) in t", PO),
        ("let rec t = rf | (t; po) in t", rel("b>c", "b>d", "init:x>d")),
        ("let rec a1 = po | b1 and b1 = a1; a1 in b1", rel("a>b")),
        ("try nothing-here with addr", rel("c>d")),
        ("try fail(0) with rf", rel("b>c", "init:x>d")),
        ("try addr with rf", rel("c>d")),
        ('if "v" then po else rf', rel("b>c", "init:x>d")),
        ("if addr subset po then addr else 0", rel("c>d")),
        ("if W = M then po else addr", rel("c>d")),
        ("let rec f s = match s with {} -> {} || p ++ r -> p ++ f r end in f po", PO),
        ("let rec f s = match s with {} -> 0 || p ++ r -> f r end in f po", 0),
        ("match addr with {} -> 0 || p ++ r -> r end", 0),
        ("match 0 with {} -> rf || p ++ r -> r end", rel("b>c", "init:x>d")),
    ],
)
def test_relations(expr: str, expected: int) -> None:
    assert value(expr) == expected, expr


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("W", st("init:x", "init:y", "a", "b")),
        ("R", st("c", "d")),
        ("M & IW", st("init:x", "init:y")),
        ("F", st("f")),
        ("SYNC", st("f")),
        ("domain(po)", st("a", "f", "c")),
        ("range(rf)", st("c", "d")),
        ("udr(rf)", st("b", "init:x", "c", "d")),
        ("~W", st("f", "c", "d")),
        ("_ \\ M", st("f")),
        ("emptyset", 0),
        ("W \\ FW", st("init:x", "init:y")),
        ("domain 0", 0),
        (
            "let rec f s = match s with {} -> {} || e ++ r -> e ++ f r end in f W",
            st("init:x", "init:y", "a", "b"),
        ),
        ("match W with {} -> {} || s1 | e ++ s2 -> s1 | s2 end", st("init:x", "init:y", "b")),
        ("X | EX", 0),
    ],
)
def test_sets(expr: str, expected: int) -> None:
    assert value(expr) == expected, expr


@pytest.mark.parametrize(
    "cond, expected",
    [
        ("po = po", True),
        ("po = rf", False),
        ("{} = 0", True),
        ("addr subset po", True),
        ("po subset addr", False),
        ("R subset M", True),
        ("'b in T", True),
        ("'a in ~{'b, 'c}", True),
        ("T = {'a, 'b, 'c}", True),
        ("~{'a} = {'b, 'c}", True),
        ("{'a} | 'b = {'a, 'b}", True),
        ("{'a, 'b} & {'b, 'c} = {'b}", True),
        ("{'a, 'b} \\ {'b} = {'a}", True),
        ("'a ++ {'b} = {'b, 'a}", True),
        ("(match 'b with 'a -> po || 'b -> rf || _ -> 0 end) = rf", True),
        ("(match 'c with 'a -> po || _ -> addr end) = addr", True),
        ("map (fun t -> t) T = T", True),
        (
            "(let rec size s = match s with {} -> {} || x ++ r -> 'a ++ size r end in size T)"
            " = {'a}",
            True,
        ),
        ("partition(W) = {IW & (W \\ (W & IW)), {}} ", False),
        ("{(po, rf)} = {(po, rf)}", True),
        ('"v" || not "w"', True),
        ('"v" && "w"', False),
        ('variant "v"', False),
    ],
)
def test_conditions(cond: str, expected: bool) -> None:
    assert holds(cond, "enum T = 'a || 'b || 'c") == expected, cond


def test_split3() -> None:
    """``s1 | x ++ s2``: x an element, s1/s2 the elements before/after it."""
    rest = value("match po with {} -> 0 || a | p ++ b -> a | b end")
    assert rest & ~PO == 0 and (PO & ~rest).bit_count() == 1
    mid = value("match po with {} -> 0 || a | p ++ b -> p ++ 0 end")
    assert mid == PO & ~rest
    before = value("match po with {} -> 0 || a | p ++ b -> a end")
    after = value("match po with {} -> 0 || a | p ++ b -> b end")
    assert before | mid | after == PO and not (before & after) and before < mid < after


def test_variants() -> None:
    assert value('if "v" then po else rf', variants=["v"]) == PO
    assert value('if "V" then po else rf', variants=["v"]) == PO  # case-insensitive
    m = load_model_text(
        '"t"\nif "v" let z = po else let z = rf end\nshow z\n', variants=frozenset(["v"])
    )
    (v,) = m.prepare(G.sk, "PPC").check(RF, fw=G.rel.FW, want_shows=True)
    assert v.shows["z"] == PO


# ----------------------------------------------------------------------------- instructions


def run(src: str, **kw):
    m = load_model_text('"t"\ninclude "cos.cat"\n' + src, **kw)
    return m, m.prepare(G.sk, "PPC").check(RF, co=CO, want_shows=True)


def test_checks_and_names() -> None:
    _, vs = run("acyclic po as a\nirreflexive po as b\nempty addr & loc as c\n")
    assert [v.allowed for v in vs] == [True]
    _, vs = run("empty addr as x\n")
    assert not vs[0].allowed and vs[0].failed[0].name == "x"
    _, vs = run("~empty addr as x\n")
    assert vs[0].allowed
    _, vs = run("acyclic po | po^-1 as cyc\n")
    assert vs[0].failed[0].kind == "acyclic"


def test_flag_undefined_assert() -> None:
    _, (v,) = run("flag ~empty addr as has-addr\nflag empty addr as no-addr\n")
    assert v.allowed and v.flags == frozenset({"has-addr"})
    _, (v,) = run("undefined_unless empty addr as u\n")
    assert v.allowed and v.undefined
    _, (v,) = run("undefined_unless empty addr & loc as u\n")
    assert not v.undefined
    with pytest.raises(InputError, match="boom assertion failed"):
        run("assert empty addr as boom\n")


def test_procedures_and_call() -> None:
    src = "procedure p(r, s) = empty r & s\nlet inner = po end\ncall p(po, addr) as q\n"
    _, (v,) = run(src + "show inner\n")
    assert not v.allowed
    _, (v,) = run(src, skipchecks=("q",))
    assert v.allowed
    _, (v,) = run("let inner = rf\ncall subseteq(addr, po)\nshow inner\n")
    assert v.allowed and v.shows["inner"] == RF  # bindings made in a call are dropped
    _, (v,) = run("call inclusion(po, addr)\n")
    assert not v.allowed
    _, (v,) = run("procedure rec q(x) = empty x end\ncall q(0)\n")
    assert v.allowed


def test_forall_and_with_over_tags() -> None:
    _, (v,) = run("enum T = 'a || 'b\nforall t in T do empty 0 end\n")
    assert v.allowed
    _, vs = run(
        "enum T = 'a || 'b || 'c\nwith t from T\n"
        "let z = match t with 'a -> po || _ -> 0 end\nempty z as nz\n"
    )
    assert [v.allowed for v in vs] == [False, True, True]  # one candidate per choice
    _, vs = run("with s from {}\n")
    assert vs == []  # an empty choice rejects the execution


def test_show_unshow() -> None:
    _, (v,) = run("show po as p\nshow addr, rf\nunshow rf\nshow W as ws\n")
    assert v.shows["p"] == PO and v.shows["addr"] == rel("c>d") and "rf" not in v.shows
    assert v.show_sets["ws"] == st("init:x", "init:y", "a", "b")
    assert v.shows["co"] == CO and v.shows["fr"] == FR  # cos.cat shows them


def test_skipchecks_and_through() -> None:
    _, (v,) = run("empty po as p\nempty rf as r\n", skipchecks=("p",))
    assert not v.allowed and v.failed[0].name == "r"
    _, (v,) = run("empty po as p\nempty rf as r\n", through=True)
    assert v.allowed
    _, (v,) = run("flag ~empty po as p\n", through=True)
    assert v.flags == frozenset({"p"})


def test_explain_witnesses() -> None:
    m = load_model_text(
        '"t"\ninclude "cos.cat"\nacyclic po | po^-1 as a\n'
        "irreflexive po | id as b\nempty addr as c\nempty R as d\n"
    )
    s = m.prepare(G.sk, "PPC")
    (v,) = s.check(RF, co=CO)
    assert [f.name for f in v.failed] == ["a"]
    (v,) = s.check(RF, co=CO, explain=True)
    assert [f.name for f in v.failed] == ["a", "b", "c", "d"]
    cyc = v.failed[0].witness
    r = PO | U.inverse(PO)
    steps = zip(cyc, cyc[1:] + cyc[:1], strict=True)
    assert len(cyc) >= 2 and all(U.has(r, x, y) for x, y in steps)
    assert v.failed[2].witness == [E["c"], E["d"]]
    assert v.failed[3].witness == [E["c"]]


def test_includes_search_order(tmp_path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "x.cat").write_text('"x"\nlet picked = rf\n')
    (tmp_path / "here.cat").write_text('"h"\nlet picked = po\n')
    model = tmp_path / "m.cat"
    model.write_text('"m"\ninclude "here.cat"\ninclude "x.cat"\nshow picked\n')
    from herdsman.cat.api import load_model

    m = load_model(model, include_dirs=[tmp_path / "lib"])
    (v,) = m.prepare(G.sk, "PPC").check(RF, fw=G.rel.FW, want_shows=True)
    assert v.shows["picked"] == RF
    (tmp_path / "x.cat").write_text('"x"\nlet picked = addr\n')  # beside the model: first
    m = load_model(model, include_dirs=[tmp_path / "lib"])
    (v,) = m.prepare(G.sk, "PPC").check(RF, fw=G.rel.FW, want_shows=True)
    assert v.shows["picked"] == rel("c>d")


def test_stdlib_names() -> None:
    m = load_model_text(
        '"t"\ninclude "cos.cat"\nshow lxsx, amo, rmw, po-loc, rfe, rfi, co0\n'
        "let u = emptyset | NDATA | PoD | BR | LKW | PTE | X | EX\n"
        "let v = map (fun x -> x) {}\nlet w = partition W\n"
        "let k = tag2instrs\nlet t = total\nshow u\n"
    )
    (v,) = m.prepare(G.sk, "PPC").check(RF, co=CO, want_shows=True)
    assert v.shows["rmw"] == 0 and v.show_sets["u"] == 0
    assert m.lint() == []


# ----------------------------------------------------------------------------- run-time evaluator


def concrete_env() -> tuple[Evaluator, Env]:
    ev = Evaluator(universe=U, sk=G.sk)
    vals = {
        name: (VSet(b) if k == "set" else VRel(b))
        for name, (k, b) in static_names(G.sk, "PPC").items()
    }
    ev.predef = dict(vals)
    vals.update(rf=VRel(RF), co=VRel(CO))
    vals.update(PRIMS)
    return ev, Env(vals, {"x": "L", "y": "L"}, {"L": ("x", "y")})


def ceval(src: str):
    from herdsman.cat.parser import parse_text

    ev, env = concrete_env()
    return ev.eval(parse_text("let e = " + src).instrs[0].bindings[0].exp, env)


def test_runtime_primitives() -> None:
    parts = ceval("classes-loc(W)")
    assert parts == VValSet("set", frozenset({VSet(st("init:x", "a")), VSet(st("init:y", "b"))}))
    lins = ceval("linearisations(W & loc2events('x), 0)")
    assert len(lins.items) == 2 and VRel(rel("init:x>a")) in lins.items
    assert ceval("linearisations(W & loc2events('x), co)").items == frozenset(
        {VRel(CO & rel("init:x>a"))}
    )
    assert ceval("linearisations(W & loc2events('x), co | co^-1)").items == frozenset()
    assert ceval("classes(id & (M * M))").items == frozenset(
        VSet(1 << i) for i in range(U.n) if (G.sk.M >> i) & 1
    )
    assert ceval("different-values(loc)") == VRel(
        rel("init:x>a", "a>init:x", "d>a", "a>d", "init:y>b", "b>init:y", "init:y>c", "c>init:y")
    )
    assert ceval("fromto(SYNC)") == VRel(rel("a>b"))
    assert ceval("domain(po)") == VSet(st("a", "f", "c"))
    assert ceval("{(po, 0)}").elem == ("tuple", ("rel", "rel"))
    xs, ys = st("init:x", "a"), st("init:y", "b")
    assert ceval("lift(classes-loc(W), co)") == VClassRel(frozenset({(xs, xs), (ys, ys)}))
    assert ceval("lift(classes-loc(W), po)") == VClassRel(frozenset({(xs, ys)}))  # a po b
    assert ceval("delift(lift(classes-loc(W), co))") == VRel(U.product(xs, xs) | U.product(ys, ys))


def test_runtime_tags() -> None:
    ev, env = concrete_env()
    env = Env(env.vals, {"a": "T", "b": "T"}, {"T": ("a", "b")})
    ev.enums["T"] = ("a", "b")
    from herdsman.cat.parser import parse_text

    e = parse_text("let e = ~{'a}").instrs[0].bindings[0].exp
    assert ev.eval(e, env) == VValSet(("tag", "T"), frozenset({VTag("T", "b")}))


def test_runtime_forall_and_with() -> None:
    """forall / with over sets known only per skeleton (here: the writes by location)."""
    _, (v,) = run("forall s in partition(W) do empty ([s]; po; [s]) as inside end\n")
    assert v.allowed
    _, (v,) = run("forall s in partition(M) do empty ([s]; rf; [s]) as inside end\n")
    assert not v.allowed and v.failed[0].name == "inside"  # b rf c, both on y
    _, vs = run("with s from partition(W)\nempty [s] & [IW] as noinit\n")
    assert len(vs) == 2 and not any(v.allowed for v in vs)  # each location has an init write
    _, vs = run("with s from partition(W)\nlet t = s\nshow t\n")
    assert sorted(v.show_sets["t"] for v in vs) == sorted([st("init:x", "a"), st("init:y", "b")])


def test_let_rec_when() -> None:
    _, (v,) = run("let rec t = po | (t; t) when acyclic t as ok\n")
    assert v.allowed
    _, (v,) = run("let rec t = po | rf | (t; t) | (t; fr) when irreflexive t as nocycle\n")
    assert not v.allowed  # b rf c po d fr a po b
    _, (v,) = run(
        "let rec t = po | rf | (t; t) | (t; fr) when irreflexive t as nocycle\n",
        skipchecks=("nocycle",),
    )
    assert v.allowed


def test_every_deferred_operation_is_known() -> None:
    """A ``generic`` node names its operation (backend.Deferred); the evaluator's table of
    them (evaluator.DEFERRED) has each one, and only those."""
    from typing import get_args

    from herdsman.cat.backend import Deferred
    from herdsman.cat.evaluator import DEFERRED

    assert set(DEFERRED) == set(get_args(Deferred))
