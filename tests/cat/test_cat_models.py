"""Built-in models against herd's own files (run by our evaluator), and herd's files
themselves: every candidate of the classic shapes gets the same verdict."""

from __future__ import annotations

import pytest
from conftest import shared_path

from herdsman.cat.api import BUILTINS, load_model
from herdsman.cat.shapes import SHAPES, candidates, shape

_MODELS: dict[str, object] = {}


def model(spec: str):
    if spec not in _MODELS:
        _MODELS[spec] = load_model(spec)
    return _MODELS[spec]


def herd(name: str) -> str:
    return str(shared_path("herd-cat", name))


def allowed_counts(spec_a: str, spec_b: str, arch: str, name: str, fence, dep):
    b = shape(name, fence, dep)
    sa, sb = model(spec_a).prepare(b.sk, arch), model(spec_b).prepare(b.sk, arch)
    out_a, out_b = [], []
    for rf, co in candidates(b):
        out_a.append(tuple(v.allowed for v in sa.check(rf, co=co)))
        out_b.append(tuple(v.allowed for v in sb.check(rf, co=co)))
    return out_a, out_b


PPC_CASES = [
    (n, f, d)
    for n in SHAPES
    for f, d in [
        (None, None),
        ("SYNC", None),
        ("LWSYNC", None),
        ("LWSYNC", "addr"),
        (None, "data"),
        (None, "ctrl"),
        (None, "ctrlisync"),
        ("EIEIO", "addr"),
        ("SYNC", "addr"),
    ]
]
X86_CASES = [(n, f) for n in SHAPES for f in (None, "MFENCE")]


@pytest.mark.parametrize("name, fence, dep", PPC_CASES)
def test_power_is_herds_ppc(name, fence, dep) -> None:
    a, b = allowed_counts("power", herd("ppc.cat"), "PPC", name, fence, dep)
    assert a == b


@pytest.mark.parametrize("name, fence", X86_CASES)
def test_tso_is_herds_x86tso(name, fence) -> None:
    a, b = allowed_counts("tso", herd("x86tso.cat"), "X86", name, fence, None)
    assert a == b
    c, d = allowed_counts("tso", herd("tso.cat"), "X86", name, fence, None)
    assert c == d


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("arch, fence", [("X86", None), ("X86", "MFENCE"), ("PPC", "SYNC")])
def test_sc_is_herds_sc(name, arch, fence) -> None:
    a, b = allowed_counts("sc", herd("sc.cat"), arch, name, fence, None)
    assert a == b


def test_classic_verdicts() -> None:
    """The textbook answers: which shapes each model relaxes beyond SC."""

    def weak(spec, arch, name, fence=None, dep=None) -> int:
        """Candidates the model allows and SC forbids."""
        b = shape(name, fence, dep)
        s, sc = model(spec).prepare(b.sk, arch), model("sc").prepare(b.sk, arch)
        return sum(
            any(v.allowed for v in s.check(rf, co=co))
            and not any(v.allowed for v in sc.check(rf, co=co))
            for rf, co in candidates(b)
        )

    assert weak("tso", "X86", "SB") and not weak("tso", "X86", "SB", "MFENCE")
    assert not weak("tso", "X86", "MP") and not weak("tso", "X86", "IRIW")
    assert weak("pso", "X86", "MP") and not weak("pso", "X86", "MP", "MFENCE")
    assert weak("pso", "X86", "2+2W") and not weak("pso", "X86", "LB")
    assert weak("power", "PPC", "MP") and not weak("power", "PPC", "MP", "LWSYNC")
    assert not weak("power", "PPC", "MP", "LWSYNC", "addr")
    assert not weak("power", "PPC", "MP", "SYNC", "addr")
    assert weak("power", "PPC", "IRIW", "LWSYNC") and not weak("power", "PPC", "IRIW", "SYNC")
    assert weak("power", "PPC", "LB") and not weak("power", "PPC", "LB", None, "data")
    assert not weak("power", "PPC", "CoRR") and not weak("power", "PPC", "CoRW")
    assert weak("power", "PPC", "WRC", None, "addr") and not weak("power", "PPC", "WRC", "SYNC")


def test_builtins_are_native_and_documented() -> None:
    for b in BUILTINS:
        m = load_model(b.name)
        assert m.co_mode == "native", b.name
        text = b.path.read_text()
        assert "Written for herdsman" in text
        assert all(a.monotone for a in m.axioms if a.mode == "check"), b.name
    assert load_model("x86tso").name == "TSO" and load_model("ppc").arch == "PPC"


# ----------------------------------------------------------------------------- herd's files

#: herd-cat fragments that only make sense included by another model (they use names
#: their includer defines): checked through the model that includes them.
FRAGMENTS = {"ppo.cat": "ppc.cat", "ppc-checks.cat": "ppc.cat"}


def test_every_herd_file_loads_and_runs() -> None:
    d = shared_path("herd-cat")
    b = shape("MP", "SYNC", "addr")
    for f in sorted(d.glob("*.cat")):
        spec = d / FRAGMENTS.get(f.name, f.name)
        m = load_model(spec)
        assert m.lint() == [], f
        archs = ("PPC", "X86")
        if m.arch in ("PPC", "X86"):
            archs = (m.arch,)
        elif f.name == "tso.cat":  # uses MFENCE without a fallback
            archs = ("X86",)
        for arch in archs:
            s = m.prepare(b.sk, arch)
            for rf, co in candidates(b)[:6]:
                fw = b.sk.W & ~b.U.domain(co)
                vs = s.check(rf, co=co, fw=fw, explain=True, want_shows=True)
                assert isinstance(vs, list), f
                s.partial_violation(rf, co)


def test_cos_opt_variant_runs_herds_optimised_generation() -> None:
    """cos.cat with variant cos-opt includes cos-ok-opt.cat (pco, ConsCo check)."""
    m = load_model(herd("ppc.cat"), variants={"cos-opt"})
    plain = load_model(herd("ppc.cat"))
    assert m.co_mode == "native" and any(a.name == "ConsCo" for a in m.axioms)
    for name in ("MP", "SB", "CoRR", "2+2W"):
        b = shape(name, "LWSYNC")
        s1, s2 = m.prepare(b.sk, "PPC"), plain.prepare(b.sk, "PPC")
        for rf, co in candidates(b):
            got = [v.allowed for v in s1.check(rf, co=co)]
            want = [v.allowed for v in s2.check(rf, co=co)]
            assert any(got) == any(want)
