"""The compiled kernel of the relation algebra (``graphs/_relalg.c``) gives the answers of
the pure-Python operators, on random relations of every shape the engines use (row
stride ``cap >= n``; one word per row and several)."""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdsman.graphs import relalg
from herdsman.graphs.relalg import Universe

needs_kernel = pytest.mark.skipif(
    relalg._kernel is None, reason="the compiled kernel is not built (no C compiler at install)"
)


@st.composite
def relations(draw: st.DrawFn) -> tuple[Universe, int, int]:
    n = draw(st.sampled_from([0, 1, 2, 3, 7, 20, 40, 63, 64, 65, 100, 130]))
    cap = n + draw(st.sampled_from([0, 0, 1, 5, 64]))
    U = Universe(n, cap)
    p = draw(st.sampled_from([0.0, 0.05, 0.2, 0.6]))
    # one drawn seed, not one draw per pair: n*n draws exceed hypothesis's data budget
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))

    def rel() -> int:
        r = 0
        for i in range(n):
            for j in range(n):
                if rnd.random() < p:
                    r |= 1 << (i * cap + j)
        return r

    return U, rel(), rel()


@needs_kernel
@settings(max_examples=300, deadline=None)
@given(relations())
def test_kernel_matches_python(case: tuple[Universe, int, int]) -> None:
    U, r, s = case
    k = relalg._kernel
    seq = partial(k.seq, U.n, U.cap)
    plus = partial(k.plus, U.n, U.cap)
    inverse = partial(k.inverse, U.n, U.cap)
    acyclic = partial(k.acyclic, U.n, U.cap)
    assert seq(r, s) == U.seq_py(r, s)
    assert plus(r) == U.plus_py(r)
    assert seq(r, U.ID) == r & U.FULL  # a unit
    assert inverse(r) == U.inverse_py(r)
    assert inverse(inverse(r)) == r & U.FULL
    assert acyclic(r) == U.acyclic_py(r)
    dag = _upper(U, r)  # no cycle by construction
    assert acyclic(dag) and U.acyclic_py(dag)
    assert acyclic(r | U.ID) == (U.n == 0)
    assert k.domain(U.n, U.cap, r) == U.domain_py(r)
    assert k.range(U.n, U.cap, r) == U.range_py(r)
    assert k.domain(U.n, U.cap, inverse(r)) == U.range_py(r)


@needs_kernel
@settings(max_examples=200, deadline=None)
@given(relations(), st.integers(0, 2**32 - 1))
def test_kernel_product_matches_python(case: tuple[Universe, int, int], seed: int) -> None:
    """The product of two sets (the domain and range of the drawn relations, any sets, and
    sets beyond the universe, which the Python operator multiplies out)."""
    U, r, s = case
    product = partial(relalg._kernel.product, U.n, U.cap)
    rnd = random.Random(seed)
    sets = [U.domain_py(r), U.range_py(s), U.ALL, 0, rnd.getrandbits(U.n) if U.n else 0]
    for a in sets:
        for b in sets:
            assert product(a, b) == U.product_py(a, b)
    if not U.wide:  # (the wide operator takes sets of the universe only)
        a, b = rnd.getrandbits(U.n + 3), rnd.getrandbits(U.cap + 9)
        assert product(a, b) == U.product_py(a, b)
    if U.n:
        assert product(1 << (U.n - 1), U.ALL) == U.ROW << ((U.n - 1) * U.cap)


@needs_kernel
@settings(max_examples=200, deadline=None)
@given(relations())
def test_bound_kernel_matches_functions(case: tuple[Universe, int, int]) -> None:
    """``Kernel(n, cap)``'s methods (what a universe calls) answer as the functions."""
    U, r, s = case
    k = relalg._kernel
    b = k.Kernel(U.n, U.cap)
    n, cap = U.n, U.cap
    assert b.seq(r, s) == k.seq(n, cap, r, s)
    assert b.plus(r) == k.plus(n, cap, r)
    assert b.inverse(r) == k.inverse(n, cap, r)
    assert b.acyclic(r) is k.acyclic(n, cap, r)
    assert b.domain(r) == k.domain(n, cap, r)
    assert b.range(r) == k.range(n, cap, r)
    d, g = U.domain_py(r), U.range_py(s)
    assert b.product(d, g) == k.product(n, cap, d, g)
    with pytest.raises(TypeError):
        b.seq(r)
    with pytest.raises(TypeError):
        b.plus(-1)
    with pytest.raises(ValueError):
        k.Kernel(3, 2)  # cap < n


def _upper(U: Universe, r: int) -> int:
    """The pairs (i, j) of r with i < j."""
    out = 0
    for i in range(U.n):
        row = (r >> (i * U.cap)) & U.ROW
        out |= (row & ~((1 << (i + 1)) - 1)) << (i * U.cap)
    return out


@needs_kernel
def test_kernel_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError):
        relalg._kernel.seq(2, 2, -1, 1)
    with pytest.raises(ValueError):
        relalg._kernel.plus(3, 2, 1)  # cap < n
    with pytest.raises(TypeError):
        relalg._kernel.acyclic(2, 2)
    with pytest.raises(TypeError):
        relalg._kernel.inverse(2, 2, 1.5)
    with pytest.raises(TypeError):
        relalg._kernel.product(2, 2, 1, -1)
    with pytest.raises(ValueError):
        relalg._kernel.product(3, 2, 1, 1)  # cap < n


def test_pure_python_on_request() -> None:
    """``HERDSMAN_PURE_PYTHON=1`` runs the Python operators, kernel or not."""
    env = dict(os.environ, HERDSMAN_PURE_PYTHON="1")
    code = (
        "from herdsman.graphs import relalg; print(relalg.KERNEL, relalg.Universe(3).seq.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "seq_py"]
    code = (
        "from herdsman.graphs import relalg; U = relalg.Universe(3); "
        "print(U.inverse.__name__, U.acyclic.__name__, U.product.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["inverse_py", "acyclic_py", "product_py"]


def test_universes_pickle_either_way() -> None:
    """Skeletons travel between processes in campaigns: a universe pickles to its size."""
    U = Universe(5, 7)
    V = pickle.loads(pickle.dumps(U))
    assert (V.n, V.cap, V.ID) == (5, 7, U.ID) and V.seq(U.ID, U.FULL) == U.FULL
