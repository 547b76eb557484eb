"""Random relation and set expressions: the compiled evaluator and the run-time evaluator
against a naive set-of-pairs reference."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from herdsman.cat.api import load_model_text
from herdsman.cat.env import Env
from herdsman.cat.evaluator import Evaluator
from herdsman.cat.parser import parse_text
from herdsman.cat.prims import PRIMS
from herdsman.cat.shapes import candidates, shape
from herdsman.cat.values import VRel, VSet
from herdsman.graphs.herdnames import static_names

GRAPH = shape("WRC", "SYNC", "addr")
CANDS = candidates(GRAPH)
RF, CO = CANDS[len(CANDS) // 3]
U = GRAPH.U
N = U.n
EVENTS = range(N)


def pairs_of(r: int) -> frozenset:
    return frozenset(U.pairs(r))


def set_of(s: int) -> frozenset:
    return frozenset(i for i in EVENTS if (s >> i) & 1)


NAMES = static_names(GRAPH.sk, "PPC")
FR = U.seq(U.inverse(RF), CO) & ~U.ID
BASE_RELS = {
    "po": pairs_of(NAMES["po"][1]),
    "rf": pairs_of(RF),
    "co": pairs_of(CO),
    "fr": pairs_of(FR),
    "loc": pairs_of(NAMES["loc"][1]),
    "ext": pairs_of(NAMES["ext"][1]),
    "int": pairs_of(NAMES["int"][1]),
    "id": pairs_of(U.ID),
    "addr": pairs_of(NAMES["addr"][1]),
}
BASE_SETS = {name: set_of(NAMES[name][1]) for name in ("W", "R", "M", "F", "IW")}
ALL = frozenset(EVENTS)
FULL = frozenset((i, j) for i in EVENTS for j in EVENTS)
ID = frozenset((i, i) for i in EVENTS)


def compose(a, b):
    return frozenset((x, z) for x, y in a for y2, z in b if y == y2)


def closure(a):
    out = set(a)
    while True:
        new = out | compose(out, out)
        if new == out:
            return frozenset(out)
        out = new


base_sets = st.sampled_from(sorted(BASE_SETS)).map(lambda n: (n, BASE_SETS[n]))
small_sets = st.one_of(
    base_sets,
    st.tuples(base_sets, base_sets).map(lambda p: (f"({p[0][0]} | {p[1][0]})", p[0][1] | p[1][1])),
    st.tuples(base_sets, base_sets).map(lambda p: (f"({p[0][0]} & {p[1][0]})", p[0][1] & p[1][1])),
    st.tuples(base_sets, base_sets).map(lambda p: (f"({p[0][0]} \\ {p[1][0]})", p[0][1] - p[1][1])),
    base_sets.map(lambda s: (f"(~({s[0]}))", ALL - s[1])),
)


def _extend(rels):
    return st.one_of(
        st.tuples(rels, rels).map(lambda p: (f"({p[0][0]} | {p[1][0]})", p[0][1] | p[1][1])),
        st.tuples(rels, rels).map(lambda p: (f"({p[0][0]} & {p[1][0]})", p[0][1] & p[1][1])),
        st.tuples(rels, rels).map(lambda p: (f"({p[0][0]} \\ {p[1][0]})", p[0][1] - p[1][1])),
        st.tuples(rels, rels).map(
            lambda p: (f"({p[0][0]} ; {p[1][0]})", compose(p[0][1], p[1][1]))
        ),
        rels.map(lambda p: (f"({p[0]})^-1", frozenset((y, x) for x, y in p[1]))),
        rels.map(lambda p: (f"({p[0]})+", closure(p[1]))),
        rels.map(lambda p: (f"({p[0]})*", closure(p[1]) | ID)),
        rels.map(lambda p: (f"({p[0]})?", p[1] | ID)),
        rels.map(lambda p: (f"(~({p[0]}))", FULL - p[1])),
        st.tuples(rels, small_sets, small_sets).map(
            lambda p: (
                f"({p[0][0]} & ({p[1][0]} * {p[2][0]}))",
                frozenset((i, j) for i, j in p[0][1] if i in p[1][1] and j in p[2][1]),
            )
        ),
        st.tuples(small_sets, rels, small_sets).map(
            lambda p: (
                f"([{p[0][0]}]; {p[1][0]}; [{p[2][0]}])",
                frozenset((i, j) for i, j in p[1][1] if i in p[0][1] and j in p[2][1]),
            )
        ),
    )


rel_leaves = st.one_of(
    st.sampled_from(sorted(BASE_RELS)).map(lambda n: (n, BASE_RELS[n])),
    small_sets.map(lambda s: (f"[{s[0]}]", frozenset((i, i) for i in s[1]))),
    st.tuples(small_sets, small_sets).map(
        lambda p: (f"({p[0][0]} * {p[1][0]})", frozenset((i, j) for i in p[0][1] for j in p[1][1]))
    ),
)
rels = st.recursive(rel_leaves, _extend, max_leaves=6)
sets = st.one_of(
    small_sets,
    rels.map(lambda p: (f"domain({p[0]})", frozenset(x for x, _ in p[1]))),
    rels.map(lambda p: (f"range({p[0]})", frozenset(y for _, y in p[1]))),
)


def compiled_values(exprs: list[str]) -> list:
    body = "".join(f"let e{i} = {x}\nshow e{i}\n" for i, x in enumerate(exprs))
    m = load_model_text('"random"\ninclude "cos.cat"\n' + body)
    (v,) = m.prepare(GRAPH.sk, "PPC").check(RF, co=CO, want_shows=True)
    return [v.shows.get(f"e{i}", v.show_sets.get(f"e{i}")) for i in range(len(exprs))]


def runtime_value(expr: str):
    ev = Evaluator(universe=U, sk=GRAPH.sk)
    vals = {name: (VSet(b) if k == "set" else VRel(b)) for name, (k, b) in NAMES.items()}
    ev.predef = dict(vals)
    vals.update(rf=VRel(RF), co=VRel(CO), fr=VRel(FR))
    vals.update(PRIMS)
    return ev.eval(parse_text("let e = " + expr).instrs[0].bindings[0].exp, Env(vals))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(rels, min_size=1, max_size=6), st.lists(sets, min_size=1, max_size=3))
def test_random_expressions(rs, ss) -> None:
    exprs = [x for x, _ in rs] + [x for x, _ in ss]
    got = compiled_values(exprs)
    for (text, ref), value in zip(rs, got[: len(rs)], strict=True):
        assert pairs_of(value) == ref, text
        assert runtime_value(text) == VRel(U.from_pairs(ref)), text
    for (text, ref), value in zip(ss, got[len(rs) :], strict=True):
        assert set_of(value) == ref, text
        assert runtime_value(text) == VSet(U.from_set(ref)), text
