"""Monotonicity classification of checks (stable / monotone / unknown)."""

from __future__ import annotations

import pytest

from herdsman.cat.api import load_model_text
from herdsman.cat.monotone import MONO, STABLE, UNKNOWN


def classes(exprs: list[str], prelude: str = "") -> list[tuple[str, bool]]:
    body = "".join(f"empty {x} as c{i}\n" for i, x in enumerate(exprs))
    m = load_model_text('"t"\ninclude "cos.cat"\n' + prelude + body)
    unit = m._main
    out = []
    for ax, info in zip(unit.compiled.axioms, m.axioms, strict=True):
        if ax.name is None or not ax.name.startswith("c"):
            continue
        (step,) = ax.steps
        out.append((unit.analysis.check_class(step), info.monotone))
    return out


@pytest.mark.parametrize(
    "expr, cls",
    [
        ("po", STABLE),
        ("loc & ext", STABLE),
        ("addr | data | ctrl", STABLE),
        ("W * R", STABLE),
        ("_ \\ po", STABLE),
        ("~po", STABLE),
        ("[W]; po; [R]", STABLE),
        ("id", STABLE),
        ("fencerel(SYNC)", STABLE),
        ("po-loc", STABLE),
        ("rf", MONO),
        ("co", MONO),
        ("fr", MONO),
        ("rfe", MONO),
        ("coe", MONO),
        ("fre", MONO),
        ("(rf | po)+", MONO),
        ("rf^-1", MONO),
        ("rf; po", MONO),
        ("rf \\ id", MONO),
        ("rf & (W * R)", MONO),
        ("domain(rf) * M", MONO),
        ("[range(co)]", MONO),
        ("(po | rf)*", MONO),
        ("co \\ (co & int)", MONO),
        ("let rec t = rf | (t; po) in t", MONO),
        ("FW * FW", UNKNOWN),
        ("~rf", UNKNOWN),
        ("po \\ rf", UNKNOWN),
        ("co0", UNKNOWN),
        ("_ \\ co", UNKNOWN),
        ("domain(co) * (W \\ domain(co))", UNKNOWN),
        ("let rec t = rf \\ t in t", UNKNOWN),
    ],
)
def test_expression_classes(expr: str, cls: str) -> None:
    ((got, mono),) = classes([expr])
    assert got == cls, expr
    assert mono == (cls != UNKNOWN)


def test_check_kinds() -> None:
    m = load_model_text(
        '"t"\ninclude "cos.cat"\nacyclic po | rf as a\n~empty rf as b\n'
        "flag ~empty rf as c\nundefined_unless empty rf as d\n"
        "irreflexive fr; rf as e\nacyclic FW * FW as f\n"
    )
    mono = {a.name: a.monotone for a in m.axioms}
    assert mono == {"a": True, "b": False, "c": False, "d": False, "e": True, "f": False}


def test_builtin_axioms_are_monotone() -> None:
    from herdsman.cat.api import load_model

    for spec in ("power", "sc", "tso", "pso"):
        assert all(a.monotone for a in load_model(spec).axioms if a.mode == "check"), spec
