"""graphs.relalg against a naive set-of-pairs implementation, on random relations.

Sizes 1..40 events (and a few around the 48-event switch of ``domain``), row strides
``cap >= n``; every operator of :class:`Universe` is compared with its definition.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from herdsman.graphs.relalg import Universe, bits, members

Pairs = frozenset[tuple[int, int]]

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def universes(draw, max_n: int = 40) -> Universe:
    n = draw(st.integers(1, max_n))
    extra = draw(st.sampled_from([0, 0, 1, 3, 17, n]))
    return Universe(n, n + extra)


@st.composite
def rel_pairs(draw, n: int, max_size: int | None = None) -> Pairs:
    # sparse, medium or dense relations
    density = draw(st.sampled_from([0.0, 0.05, 0.2, 0.5, 0.9]))
    # one drawn seed, not one draw per pair: n*n draws exceed hypothesis's data budget
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    pairs = {(i, j) for i in range(n) for j in range(n) if rnd.random() < density}
    extra = draw(
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=max_size or 6)
    )
    return frozenset(pairs | set(extra))


@st.composite
def case(draw, nrels: int = 2, nsets: int = 2, max_n: int = 40):
    U = draw(universes(max_n))
    rels = [draw(rel_pairs(U.n)) for _ in range(nrels)]
    sets = [frozenset(draw(st.sets(st.integers(0, U.n - 1)))) for _ in range(nsets)]
    return U, rels, sets


# ----------------------------------------------------------------------------- naive model
def n_seq(a: Pairs, b: Pairs) -> Pairs:
    succ: dict[int, set[int]] = {}
    for j, k in b:
        succ.setdefault(j, set()).add(k)
    return frozenset((i, k) for i, j in a for k in succ.get(j, ()))


def n_plus(a: Pairs) -> Pairs:
    """Transitive closure by search from every event (independent of Warshall)."""
    succ: dict[int, set[int]] = {}
    for i, j in a:
        succ.setdefault(i, set()).add(j)
    out = set()
    for i in succ:
        seen: set[int] = set()
        todo = list(succ[i])
        while todo:
            j = todo.pop()
            if j not in seen:
                seen.add(j)
                todo.extend(succ.get(j, ()))
        out |= {(i, j) for j in seen}
    return frozenset(out)


def n_id(n: int) -> Pairs:
    return frozenset((i, i) for i in range(n))


def n_acyclic(a: Pairs) -> bool:
    return not any(i == j for i, j in n_plus(a))


def enc(U: Universe, p: Pairs) -> int:
    return U.from_pairs(p)


def dec(U: Universe, r: int) -> Pairs:
    return frozenset(U.pairs(r))


def s_enc(s) -> int:
    return sum(1 << e for e in s)


def s_dec(s: int) -> frozenset[int]:
    return frozenset(bits(s))


# ----------------------------------------------------------------------------- tests
@SETTINGS
@given(case())
def test_boolean_operators(c) -> None:
    U, (a, b), _ = c
    ra, rb = enc(U, a), enc(U, b)
    assert dec(U, ra | rb) == a | b
    assert dec(U, ra & rb) == a & b
    assert dec(U, ra & ~rb) == a - b
    full = frozenset(itertools.product(range(U.n), repeat=2))
    assert dec(U, U.complement(ra)) == full - a
    assert dec(U, U.FULL) == full
    assert dec(U, U.ID) == n_id(U.n)


@SETTINGS
@given(case())
def test_seq_inverse(c) -> None:
    U, (a, b), _ = c
    ra, rb = enc(U, a), enc(U, b)
    assert dec(U, U.seq(ra, rb)) == n_seq(a, b)
    assert dec(U, U.inverse(ra)) == frozenset((j, i) for i, j in a)
    assert U.inverse(U.inverse(ra)) == ra


@SETTINGS
@given(case(nrels=1))
def test_closures(c) -> None:
    U, (a,), _ = c
    ra = enc(U, a)
    plus = n_plus(a)
    assert dec(U, U.plus(ra)) == plus
    assert dec(U, U.star(ra)) == plus | n_id(U.n)
    assert dec(U, U.opt(ra)) == a | n_id(U.n)
    assert U.is_transitive(U.plus(ra))
    assert U.is_transitive(ra) == (n_seq(a, a) <= a)


@SETTINGS
@given(case(nrels=1))
def test_tests_and_cycles(c) -> None:
    U, (a,), _ = c
    ra = enc(U, a)
    assert U.irreflexive(ra) == (not any(i == j for i, j in a))
    acyclic = n_acyclic(a)
    assert U.acyclic(ra) == acyclic
    cyc = U.find_cycle(ra)
    if acyclic:
        assert cyc is None
    else:
        assert cyc is not None and len(set(cyc)) == len(cyc)
        for x, y in zip(cyc, cyc[1:] + cyc[:1], strict=True):
            assert (x, y) in a
        # the lowest event on any cycle
        on_cycle = {i for i, j in n_plus(a) if i == j}
        assert cyc[0] == min(on_cycle)
    plus = n_plus(a)
    for e in range(U.n):
        through = U.find_cycle(ra, through=e)
        if (e, e) in plus:
            assert through is not None and through[0] == e
            for x, y in zip(through, through[1:] + through[:1], strict=True):
                assert (x, y) in a
        else:
            assert through is None
    w = U.reflexive_witness(ra)
    assert (w is None) == U.irreflexive(ra)
    if w is not None:
        assert (w, w) in a


@SETTINGS
@given(case(nrels=1, nsets=2))
def test_sets_and_products(c) -> None:
    U, (a,), (s1, s2) = c
    ra, e1, e2 = enc(U, a), s_enc(s1), s_enc(s2)
    assert dec(U, U.product(e1, e2)) == frozenset(itertools.product(s1, s2))
    assert dec(U, U.product(U.ALL, e2)) == frozenset(itertools.product(range(U.n), s2))
    assert dec(U, U.ident(e1)) == frozenset((i, i) for i in s1)
    assert dec(U, U.ident(U.ALL)) == n_id(U.n)
    assert s_dec(U.domain(ra)) == {i for i, _ in a}
    assert s_dec(U.range(ra)) == {j for _, j in a}
    assert s_dec(U.field(ra)) == {i for i, _ in a} | {j for _, j in a}
    assert s_dec(U.set_complement(e1)) == set(range(U.n)) - s1
    restricted = frozenset((i, j) for i, j in a if i in s1 and j in s2)
    assert dec(U, U.restrict(ra, e1, e2)) == restricted
    assert dec(U, U.restrict(ra, U.ALL, e2)) == frozenset((i, j) for i, j in a if j in s2)
    assert dec(U, U.restrict(ra, U.ALL, U.ALL)) == a
    assert dec(U, U.restrict_domain(ra, e1)) == frozenset((i, j) for i, j in a if i in s1)
    assert dec(U, U.restrict_range(ra, e2)) == frozenset((i, j) for i, j in a if j in s2)
    for i in range(U.n):
        assert s_dec(U.row(ra, i)) == {j for x, j in a if x == i}
        assert s_dec(U.col(ra, i)) == {x for x, j in a if j == i}
    assert U.unspread(U.spread(e1)) == e1
    assert U.count(ra) == len(a)
    assert members(e1) == sorted(s1)


@SETTINGS
@given(st.integers(1, 40), st.randoms(use_true_random=False))
def test_total_order(n, rnd) -> None:
    U = Universe(n)
    seq = rnd.sample(range(n), rnd.randint(0, n))
    r = U.total_order(seq)
    assert dec(U, r) == frozenset(
        (seq[i], seq[j]) for i in range(len(seq)) for j in range(i + 1, len(seq))
    )
    assert U.acyclic(r) and U.is_transitive(r)


@settings(max_examples=80, deadline=None)
@given(case(nrels=1, max_n=14))
def test_transitive_reduction(c) -> None:
    U, (a,), _ = c
    ra = enc(U, a)
    red = U.transitive_reduction(ra)
    assert red & ~ra == 0  # a subset
    assert U.plus(red) == U.plus(ra)  # same closure
    r = dec(U, red)
    for p in r:  # minimal: no remaining pair is implied by the others
        assert p not in n_plus(r - {p})
    if n_acyclic(a):  # the unique reduction of a DAG: pairs with no longer path
        plus = n_plus(a)
        expect = frozenset(
            (i, j)
            for i, j in plus
            if not any((i, k) in plus and (k, j) in plus for k in range(U.n))
        )
        assert r == expect


@SETTINGS
@given(case(nrels=1), st.integers(0, 20))
def test_resize(c, more) -> None:
    U, (a,), _ = c
    V = Universe(U.n, U.cap + more)
    assert dec(V, U.resize(enc(U, a), V)) == a
    assert V.resize(U.resize(enc(U, a), V), U) == enc(U, a)


@pytest.mark.parametrize("n", [0, 1, 2, 47, 48, 49, 60])
def test_domain_around_the_switch(n) -> None:
    """``domain``/``unspread`` change algorithm above 48 events; both sides agree."""
    import random

    rnd = random.Random(n)
    for cap in (n, n + 1, 2 * n + 3):
        U = Universe(n, max(cap, n))
        for _ in range(20):
            a = (
                {(rnd.randrange(n), rnd.randrange(n)) for _ in range(rnd.randint(0, 3 * n))}
                if n
                else set()
            )
            r = U.from_pairs(a)
            assert s_dec(U.domain(r)) == {i for i, _ in a}
            assert s_dec(U.range(r)) == {j for _, j in a}
            for j in range(n):
                assert s_dec(U.col(r, j)) == {i for i, y in a if y == j}
            evs = {i for i, _ in a}
            assert U.unspread(U.spread(U.from_set(evs))) == U.from_set(evs)


def test_cap_below_n_rejected() -> None:
    with pytest.raises(ValueError):
        Universe(5, 4)


def test_empty_universe() -> None:
    U = Universe(0)
    assert U.ALL == 0 and U.ID == 0 and U.FULL == 0
    assert U.seq(0, 0) == 0 and U.plus(0) == 0 and U.acyclic(0)
    assert U.find_cycle(0) is None and U.domain(0) == 0 and U.range(0) == 0
