"""Compiled conditions mean what litmus.ir.eval_prop means."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from herdsman.engine.conditions import compile_prop
from herdsman.litmus.base.ir import (
    And,
    Atom,
    Implies,
    MemLoc,
    Not,
    Or,
    PFalse,
    PTrue,
    RegLoc,
    Sym,
    eval_prop,
)

LOCS = [RegLoc(0, "r1"), RegLoc(1, "r1"), MemLoc("x"), MemLoc("y")]
#: values that agree on 8 or 32 bits and not on more (herd's masked comparisons)
VALUES = st.sampled_from([0, 1, 2, Sym("x"), 1 + (1 << 32), 257, -(1 << 32), (1 << 64) - 1, -1])
ATOMS = st.builds(
    Atom,
    st.sampled_from(LOCS),
    st.one_of(VALUES, st.sampled_from(LOCS)),
    st.sampled_from([0, 0, 8, 32, 64]),
)
PROPS = st.recursive(
    st.one_of(ATOMS, st.just(PTrue()), st.just(PFalse())),
    lambda sub: st.one_of(
        st.builds(lambda ps: And(tuple(ps)), st.lists(sub, min_size=1, max_size=3)),
        st.builds(lambda ps: Or(tuple(ps)), st.lists(sub, min_size=1, max_size=3)),
        st.builds(Not, sub),
        st.builds(Implies, sub, sub),
    ),
    max_leaves=8,
)


@given(PROPS, st.lists(VALUES, min_size=3, max_size=3))
def test_compiled_prop_agrees_with_eval_prop(p, values):
    shown = LOCS[:3]  # MemLoc("y") is absent from the state: it holds 0
    index = {loc: i for i, loc in enumerate(shown)}
    state = dict(zip(shown, values, strict=True))
    assert compile_prop(p, index)(tuple(values)) == eval_prop(p, state)


def test_masked_atoms_compare_on_their_bits():
    x = MemLoc("x")
    index = {x: 0}
    conj = And((Atom(x, 1, 32), Atom(x, 1, 8)))
    disj = Or((Atom(x, 2, 32), Atom(x, 1, 32)))
    for value, want in ((1, True), (1 + (1 << 32), True), (2 + (1 << 32), False)):
        assert compile_prop(conj, index)((value,)) is want
        assert compile_prop(Atom(x, 1, 32), index)((value,)) is want
        assert compile_prop(disj, index)((value,)) is True
    assert compile_prop(disj, index)((3 + (1 << 32),)) is False
    assert not compile_prop(Atom(x, 1), index)((1 + (1 << 32),))


#: herd's conditions listing states, factorised: a disjunction deciding on one location
BITS = st.sampled_from([0, 8, 32])
DECISIONS = st.recursive(
    ATOMS,
    lambda sub: st.builds(
        lambda loc, bits, branches: Or(
            tuple(And((Atom(loc, v, bits), *rest)) for v, rest in branches)
        ),
        st.sampled_from(LOCS),
        BITS,
        st.lists(st.tuples(VALUES, st.lists(sub, max_size=2)), min_size=2, max_size=4),
    ),
    max_leaves=10,
)


@given(DECISIONS, st.lists(st.lists(VALUES, min_size=3, max_size=3), min_size=1, max_size=4))
def test_compiled_decisions_agree_with_eval_prop(p, states):
    shown = LOCS[:3]
    index = {loc: i for i, loc in enumerate(shown)}
    f = compile_prop(p, index)  # (its branches compiled as the states take them)
    for values in states:
        assert f(tuple(values)) == eval_prop(p, dict(zip(shown, values, strict=True)))
