"""The compiled kernel of the relation algebra (``graphs/_relalg.c``) gives the answers of
the pure-Python operators, on random relations of every shape the engines use (row
stride ``cap >= n``; one word per row and several)."""

from __future__ import annotations

import os
import subprocess
import sys

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
    rnd = draw(st.randoms(use_true_random=False))

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
    assert U.seq_c(r, s) == U.seq_py(r, s)
    assert U.plus_c(r) == U.plus_py(r)
    assert U.seq_c(r, U.ID) == r & U.FULL  # a unit


@needs_kernel
def test_kernel_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError):
        relalg._kernel.seq(-1, 1, 2, 2)
    with pytest.raises(ValueError):
        relalg._kernel.plus(1, 3, 2)  # cap < n


def test_pure_python_on_request() -> None:
    """``HERDSMAN_PURE_PYTHON=1`` runs the Python operators, kernel or not."""
    env = dict(os.environ, HERDSMAN_PURE_PYTHON="1")
    code = "from herdsman.graphs import relalg; print(relalg.KERNEL, relalg.Universe.seq.__name__)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "seq_py"]
