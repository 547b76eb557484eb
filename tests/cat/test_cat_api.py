"""The checker API of DEVELOPERS.md: loading, co modes, verdicts, partial violations."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.cat.api import AxiomInfo, Failure, Verdict, load_model, load_model_text
from herdsman.cat.shapes import SHAPES, candidates, shape
from herdsman.litmus.base.errors import InputError


def test_load_builtins_and_errors(tmp_path) -> None:
    for name in ("sc", "tso", "pso", "power", "x86tso", "ppc", "PPC"):
        assert load_model(name).co_mode == "native"
    with pytest.raises(InputError) as ei:
        load_model("nosuch")
    assert "built-in models are" in ei.value.message and "power" in ei.value.message
    with pytest.raises(InputError):
        load_model(tmp_path / "missing.cat")
    m = load_model("tso")
    assert (m.arch, m.name) == ("X86", "TSO")
    ax = m.axioms[0]
    assert isinstance(ax, AxiomInfo) and ax.kind == "acyclic" and ax.mode == "check"
    assert ax.pos.line > 0 and ax.monotone


def test_arch_mismatch() -> None:
    b = shape("SB")
    with pytest.raises(InputError, match="Architecture mismatch"):
        load_model("tso").prepare(b.sk, "PPC")
    load_model("sc").prepare(b.sk, "PPC")  # no architecture: any test


def _count(session, cands, **kw):
    return sum(v.allowed for rf, co in cands for v in session.check(rf, co=co, **kw))


def test_generic_mode_counts_like_native(tmp_path) -> None:
    """A model with its own co generation (not recognised) enumerates co itself: one
    verdict per coherence order, for each choice of final writes."""
    from herdsman.cat.api import MODELS_DIR

    cross = (MODELS_DIR.parent / "lib" / "cross.cat").read_text()
    (tmp_path / "mycross.cat").write_text(cross.replace("pick_all", "pick_every"))
    src = (
        '"generic sc"\ninclude "mycross.cat"\nwith co from generate_cos(co0)\n'
        "let fr = (rf^-1; co) \\ id\nacyclic po | rf | co | fr as sc\n"
    )
    (tmp_path / "g.cat").write_text(src)
    generic = load_model(tmp_path / "g.cat")
    native = load_model("sc")
    assert generic.co_mode == "generic"
    for name in ("SB", "2+2W", "CoWW", "IRIW"):
        b = shape(name)
        cands = candidates(b)
        sn, sg = native.prepare(b.sk, "X86"), generic.prepare(b.sk, "X86")
        want = _count(sn, cands)
        rfs = sorted({rf for rf, _ in cands})
        # every final-write choice: one write per location
        import itertools

        per_loc = [[w for w in range(b.sk.n) if (s >> w) & 1] for s in b.sk.writes_by_loc.values()]
        got = 0
        for rf in rfs:
            for fws in itertools.product(*per_loc):
                fw = sum(1 << w for w in fws)
                vs = sg.check(rf, fw=fw)
                got += sum(v.allowed for v in vs)
                assert all(v.co is not None for v in vs if v.allowed)
        assert got == want, name


def test_none_mode() -> None:
    m = load_model_text('"no co"\nacyclic po | rf as x\n')
    assert m.co_mode == "none"
    b = shape("MP")
    (v,) = m.prepare(b.sk, "PPC").check(b.rel.rf, fw=b.rel.FW)
    assert v.allowed and v.co is None


def test_native_rejects_co_not_extending_the_base() -> None:
    m = load_model_text(
        '"t"\ninclude "cross.cat"\n'
        "with co from generate_cos(co0 | (po & loc & (W * W)))\n"
        "acyclic co as c\n"
    )
    assert m.co_mode == "native"
    b = shape("CoWW")  # a: W x=1 po b: W x=2
    s = m.prepare(b.sk, "PPC")
    ok = b.relation([("init:x", "a"), ("init:x", "b"), ("a", "b")])
    backwards = b.relation([("init:x", "a"), ("init:x", "b"), ("b", "a")])
    assert [v.allowed for v in s.check(b.rel.rf, co=ok)] == [True]
    assert s.check(b.rel.rf, co=backwards) == []


def test_verdict_fields() -> None:
    m = load_model("sc")
    b = shape("SB")
    s = m.prepare(b.sk, "X86")
    results = [s.check(rf, co=co) for rf, co in candidates(b)]
    assert all(len(r) == 1 and isinstance(r[0], Verdict) for r in results)
    rejected = [r[0] for r in results if not r[0].allowed]
    assert rejected and all(isinstance(v.failed[0], Failure) for v in rejected)
    assert {v.failed[0].name for v in rejected} == {"sc"}
    v = rejected[0]
    (e,) = s.check(
        *next(
            (rf, co) for (rf, co), r in zip(candidates(b), results, strict=True) if not r[0].allowed
        ),
        explain=True,
    )
    assert e.failed[0].witness and len(e.failed[0].witness) >= 2
    assert v.flags == frozenset() and v.undefined is False


@pytest.mark.parametrize("spec", ["power", "sc", "ppc.cat"])
@pytest.mark.parametrize("name", SHAPES)
def test_partial_violation_is_sound(spec: str, name: str) -> None:
    """If partial_violation says a partial graph already fails, no completion passes."""
    if spec == "ppc.cat":
        spec = str(shared_path("herd-cat", "ppc.cat"))
    m = load_model(spec)
    rnd = random.Random(zlib.crc32(f"{Path(spec).name}/{name}".encode()))  # reproducible
    for fence, dep in ((None, None), ("LWSYNC", "addr"), ("SYNC", None)):
        b = shape(name, fence, dep)
        s = m.prepare(b.sk, "PPC")
        U = b.U
        for rf, co in candidates(b):
            final = any(v.allowed for v in s.check(rf, co=co))
            pruned_full = s.partial_violation(rf, co)
            assert not (pruned_full and final)
            if not final:
                # the full candidate: a rejection by a monotone check must be detected
                (v,) = s.check(rf, co=co)
                monotone = {a.name for a in m.axioms if a.monotone}
                if v.failed[0].name in monotone:
                    assert pruned_full
            for _ in range(3):
                rf_part = sum(1 << b_ for b_ in _bits(rf) if rnd.random() < 0.6)
                writes = [w for w in range(U.n) if rnd.random() < 0.6]
                keep = U.from_set(writes)
                co_part = co & U.product(keep, keep)
                if s.partial_violation(rf_part, co_part):
                    assert not final


def _bits(x: int):
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def test_deep_recursion_only_around_the_work() -> None:
    """Inlining a function 300 calls deep needs more Python frames than the default limit:
    the api raises the limit for the work and restores it after (nothing at import)."""
    import sys

    old = sys.getrecursionlimit()
    tags = " || ".join(f"'t{i}" for i in range(300))
    src = (
        f'"deep"\nenum T = {tags}\n'
        "let rec walk s = match s with || {} -> 0 || x ++ r -> walk(r) end\n"
        "acyclic walk(T) | rf as deep\n"
    )
    m = load_model_text(src)
    assert [a.name for a in m.axioms] == ["deep"]
    session = m.prepare(shape("SB").sk, "X86")
    assert session.check(*candidates(shape("SB"))[0])
    assert sys.getrecursionlimit() == old


def _specialising_model(monkeypatch) -> tuple:
    """A PPC model whose sessions switch to their signature's code after 7 checks, and
    MP with an lwsync (no sync: a signature of its own)."""
    from herdsman.cat import session

    monkeypatch.setattr(session, "SPECIALISE_AFTER", 7)
    text = (
        'PPC m\ninclude "cos.cat"\nlet s = po; [SYNC]; po\nlet l = po; [LWSYNC]; po\n'
        "acyclic (po-loc | rf | co | fr) as uniproc\nacyclic (s | l | rfe | co | fr) as f\n"
    )
    return load_model_text(text, "m.cat"), shape("MP", "LWSYNC", None)


def test_sessions_switch_to_their_signatures_code(monkeypatch) -> None:
    """A skeleton whose signature has no code yet starts on the unspecialised code and,
    after ``SPECIALISE_AFTER`` checks, runs its own; the verdicts never change, and the
    next skeleton of that signature starts with it."""
    m, b = _specialising_model(monkeypatch)
    s = m.prepare(b.sk, "PPC")
    unit = m._unit("PPC")
    assert s._specialise is not None and list(unit.makes) == [0]  # no SYNC: a signature
    got = [
        ([v.allowed for v in s.check(rf, co=co)], s.partial_violation(rf, co))
        for rf, co in candidates(b)
    ]
    assert s._specialise is None and len(unit.makes) == 2  # switched after 7 checks
    s2 = m.prepare(b.sk, "PPC")
    assert s2._specialise is None  # starts on the signature's code
    again = [
        ([v.allowed for v in s2.check(rf, co=co)], s2.partial_violation(rf, co))
        for rf, co in candidates(b)
    ]
    assert got == again
    assert any(a[0] for a, _ in got) and not all(a[0] for a, _ in got)


def test_direct_functions_switch_when_spent(monkeypatch) -> None:
    """A search calling a session's functions directly tells it how many calls it made:
    past ``SPECIALISE_AFTER`` it gets the signature's own code (same verdicts); and a
    model's error met inside ``reporting()`` leaves as bad input."""
    from herdsman.cat.errors import CatError

    m, b = _specialising_model(monkeypatch)
    s = m.prepare(b.sk, "PPC")
    check, partial = s.direct()
    got = [[v.allowed for v in check(rf, co)] for rf, co in candidates(b)]
    assert s.spent(6) is None and s._specialise is not None
    switched = s.spent(1)
    assert switched is not None and s._specialise is None and switched[0] is not check
    assert [[v.allowed for v in switched[0](rf, co)] for rf, co in candidates(b)] == got
    assert s.spent(10_000) is None  # already on its own code
    with pytest.raises(InputError), s.reporting():
        raise CatError(None, "set expected")
