"""herd's predefined names on hand-built skeletons, computed by hand (herd-formats.md 1.5)."""

from __future__ import annotations

import pytest

from herdsman.graphs.build import RMW, B, F, R, W, build
from herdsman.graphs.herdnames import co0, dynamic_names, obsco, pco, static_names


def names(b, env, name):
    """The value of ``name`` in ``env`` as event names (set) or name pairs (relation)."""
    kind, v = env[name]
    if kind == "set":
        return {b.name(e) for e in range(b.U.n) if (v >> e) & 1}
    return {(b.name(i), b.name(j)) for i, j in b.U.pairs(v)}


@pytest.fixture
def mp():
    """MP+lwsync+ctrl-ish: P0 W x; lwsync; W y | P1 R y; branch; R x."""
    return build(
        [
            [W("x", 1, name="a"), F("LWSYNC", name="f"), W("y", 1, name="b")],
            [R("y", 1, name="c"), B(name="br"), R("x", 0, name="d")],
        ],
        deps={"ctrl": [("c", "br"), ("c", "d")], "addr": [("c", "d")]},
    )


def test_sets(mp) -> None:
    env = static_names(mp.sk, "PPC")
    assert names(mp, env, "M") == {"init:x", "init:y", "a", "b", "c", "d"}
    assert names(mp, env, "W") == {"init:x", "init:y", "a", "b"}
    assert names(mp, env, "R") == {"c", "d"}
    assert names(mp, env, "IW") == {"init:x", "init:y"}
    assert names(mp, env, "F") == {"f"}
    assert names(mp, env, "B") == names(mp, env, "BCC") == {"br"}
    assert names(mp, env, "LWSYNC") == {"f"}
    assert names(mp, env, "SYNC") == names(mp, env, "ISYNC") == names(mp, env, "EIEIO") == set()
    assert names(mp, env, "Exp") == names(mp, env, "M")
    assert names(mp, env, "no-loc") == {"f", "br"}
    for empty in ("NExp", "Rreg", "Wreg", "SPEC", "T", "TLBI", "FAULT", "X", "EX"):
        assert names(mp, env, empty) == set(), empty
    assert "MFENCE" not in env  # not a PPC set


def test_universe_relations(mp) -> None:
    env = static_names(mp.sk, "PPC")
    every = {mp.name(e) for e in range(mp.U.n)}
    # id: all events, fences and branches included (no register events exist)
    assert names(mp, env, "id") == {(e, e) for e in every}
    # loc: memory events of one location, reflexive on them, never on a fence
    loc = names(mp, env, "loc")
    xs, ys = {"init:x", "a", "d"}, {"init:y", "b", "c"}
    assert loc == {(p, q) for p in xs for q in xs} | {(p, q) for p in ys for q in ys}
    assert ("f", "f") not in loc and ("br", "br") not in loc
    # int: same thread, reflexive; init writes in no thread, not even with themselves
    t0, t1 = {"a", "f", "b"}, {"c", "br", "d"}
    assert names(mp, env, "int") == {(p, q) for p in t0 for q in t0} | {
        (p, q) for p in t1 for q in t1
    }
    # ext: different threads, the init writes being one group of their own
    ext = names(mp, env, "ext")
    assert ("init:x", "init:y") not in ext and ("init:x", "a") in ext and ("a", "c") in ext
    assert not any(p == q for p, q in ext)
    assert names(mp, env, "po") == {
        ("a", "f"),
        ("a", "b"),
        ("f", "b"),
        ("c", "br"),
        ("c", "d"),
        ("br", "d"),
    }
    assert names(mp, env, "partial_po") == names(mp, env, "po")
    # sm = si: identity on memory events (non-mixed mode)
    mem = names(mp, env, "M")
    assert names(mp, env, "sm") == names(mp, env, "si") == {(e, e) for e in mem}
    # same-instance: reflexive on instruction events, nothing for init writes
    assert names(mp, env, "same-instance") == {(e, e) for e in every if "init" not in e}
    assert names(mp, env, "ctrl") == {("c", "br"), ("c", "d")}
    assert names(mp, env, "addr") == {("c", "d")}
    assert names(mp, env, "data") == set()
    for empty in ("iico_data", "iico_ctrl", "rf-reg", "depend", "success"):
        assert names(mp, env, empty) == set(), empty


def test_fencerel_by_hand(mp) -> None:
    """stdlib's fencerel(LWSYNC) = (po & (_ * LWSYNC)); po, from the predefined names."""
    env = static_names(mp.sk, "PPC")
    U = mp.U
    po, lw = env["po"][1], env["LWSYNC"][1]
    fencerel = U.seq(po & U.product(U.ALL, lw), po)
    assert {(mp.name(i), mp.name(j)) for i, j in U.pairs(fencerel)} == {("a", "b")}
    # ctrlcfence(ctrl, ISYNC) is empty here: no isync
    isync = env["ISYNC"][1]
    assert U.seq(env["ctrl"][1] & U.product(U.ALL, isync), po) == 0


def test_x86_sets_and_rmw_instance() -> None:
    b = build(
        [
            [RMW("x", 0, 1, name="u"), F("MFENCE", name="m"), R("y", 0, name="r")],
            [W("y", 1, name="w")],
        ]
    )
    env = static_names(b.sk, "X86")
    assert names(b, env, "MFENCE") == {"m"}
    assert names(b, env, "SFENCE") == names(b, env, "LFENCE") == set()
    assert names(b, env, "X") == {"u.r", "u.w"}
    assert "SYNC" not in env and "EX" not in env
    # the read and write of one RMW are one instance: not po-related, same-instance
    assert ("u.r", "u.w") not in names(b, env, "po")
    assert ("u.r", "m") in names(b, env, "po") and ("u.w", "m") in names(b, env, "po")
    assert {("u.r", "u.w"), ("u.w", "u.r")} <= names(b, env, "same-instance")
    assert {(b.name(i), b.name(j)) for i, j in b.U.pairs(b.sk.iico)} == {("u.r", "u.w")}
    assert names(b, env, "iico_data") == {("u.r", "u.w")}
    # stdlib's amo = [Exp & R & X]; (same-instance \ id) & loc; [Exp & W & X]
    U = b.U
    X, Rs, Ws = env["X"][1], env["R"][1], env["W"][1]
    amo = U.restrict((env["same-instance"][1] & ~U.ID) & env["loc"][1], Rs & X, Ws & X)
    assert {(b.name(i), b.name(j)) for i, j in U.pairs(amo)} == {("u.r", "u.w")}
    assert "NT" in static_names(b.sk, "X86_64")


def test_ppc_exclusives_in_ex() -> None:
    b = build([[R("x", 0, name="l", annots={"EX"}), W("x", 1, name="s", annots={"EX"})]])
    env = static_names(b.sk, "PPC")
    assert names(b, env, "EX") == {"l", "s"}
    assert names(b, env, "X") == set()
    # lxsx = [R & EX]; po \ (po; [M & EX]; po); [W & EX]
    U = b.U
    ex, po = env["EX"][1], env["po"][1]
    inner = U.seq(U.seq(po, U.ident(env["M"][1] & ex)), po)
    lxsx = U.restrict(po & ~inner, env["R"][1] & ex, env["W"][1] & ex)
    assert {(b.name(i), b.name(j)) for i, j in U.pairs(lxsx)} == {("l", "s")}


def test_empty_skeleton_has_all_names() -> None:
    """The cat compiler asks for the names on an empty skeleton to learn their kinds."""
    from herdsman.graphs.execution import Skeleton

    sk = Skeleton(events=(), nthreads=0)
    for arch in ("PPC", "X86", "X86_64"):
        env = static_names(sk, arch)
        assert all(kind in ("set", "rel") and v == 0 for kind, v in env.values())


def test_names_used_by_herd_models_are_defined() -> None:
    """Every predefined name herd's stdlib/sc/tso/x86tso/ppc/cos files read
    (herd-formats.md 2.2), plus the dynamic ones."""
    b = build([[W("x", 1)]])
    dyn = dynamic_names(b.rel)
    used = {
        "PPC": "ADDR B Exp FW IW M NExp W ext id iico_data int loc po rf same-instance sm R "
        "addr ctrl data SYNC LWSYNC EIEIO ISYNC pco",
        "X86": "ADDR B Exp FW IW M NExp W ext id iico_data int loc po rf same-instance sm R "
        "MFENCE pco",
    }
    for arch, text in used.items():
        env = {**static_names(b.sk, arch), **dyn}
        missing = [n for n in text.split() if n not in env]
        assert not missing, (arch, missing)


# ----------------------------------------------------------------------------- pco
def pairs(b, r):
    return {(b.name(i), b.name(j)) for i, j in b.U.pairs(r)}


def test_pco_is_co0_plus_observed_coherence() -> None:
    """CoRR-like: P0 writes x twice; P1 reads x twice (1 then 2), P2 writes x then reads."""
    b = build(
        [
            [W("x", 1, name="a"), W("x", 2, name="b")],
            [R("x", 2, name="c"), R("x", 1, name="d")],
            [W("x", 3, name="e"), R("x", 1, name="f")],
        ],
        co={"x": ["a", "e", "b"]},
    )
    g = b.rel
    fw = g.FW
    assert {b.name(e) for e in range(b.U.n) if (fw >> e) & 1} == {"b"}
    c0 = pairs(b, co0(g, fw))
    assert c0 == {("init:x", w) for w in "abe"} | {("init:x", "b"), ("a", "b"), ("e", "b")}
    obs = pairs(b, obsco(g))
    # ww: a po-loc b; rr: c reads b, d reads a -> (b, a); wr: e po-loc f, f reads a -> (e, a)
    assert obs == {("a", "b"), ("b", "a"), ("e", "a")}
    assert pairs(b, pco(g)) == c0 | obs
    assert pairs(b, pco(g, optace=False)) == c0
    assert not b.U.acyclic(pco(g))  # herd would discard this candidate (a<b<a)
    dyn = dynamic_names(g)
    assert dyn["pco"] == ("rel", pco(g)) and dyn["FW"] == ("set", fw)
    assert dyn["rf"] == ("rel", g.rf)


def test_pco_rw_and_fw_override() -> None:
    """rw: a read po-before a write to the same location orders its source before it."""
    b = build(
        [[R("x", 1, name="r"), W("x", 2, name="w")], [W("x", 1, name="v")]], co={"x": ["v", "w"]}
    )
    g = b.rel
    assert pairs(b, obsco(g)) == {("v", "w")}
    v = b.set(["v"])
    forced = pairs(b, pco(g, fw=v))
    assert ("w", "v") in forced and ("v", "w") in forced  # FW = v contradicts rw: cyclic
    assert dynamic_names(g, fw=v)["FW"] == ("set", v)


def test_pco_sees_inside_an_rmw() -> None:
    """herd's pco is built on po_iico: the read of an RMW is before its write."""
    b = build([[RMW("x", 1, 2, name="u")], [W("x", 1, name="v")]], co={"x": ["v", "u.w"]})
    g = b.rel
    assert pairs(b, obsco(g)) == {("v", "u.w")}
