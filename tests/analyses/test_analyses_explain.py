"""``herdsman explain``: the check that rejects each candidate of the classic shapes, and its
cycle, checked against the models' own relations evaluated independently of the explain
code.

For SB, MP, LB, IRIW and 2+2W (and CoRR) under sc, tso and power, built-in and herd's own
model files: the check named is the one the model names for the shape (herd's ``sc``,
x86tso's ``tso``, ppc.cat's ``thinair``/``propagation``/``observation``...), and the cycle
is a real one: each edge of cat's cycle lies in the check's relation and the named steps
form a closed walk through it, each step in the relation it is labelled with and in the
base relation it names; those relations are evaluated here with the model itself (a copy
of its text with ``show`` instructions written by this test), and the base relations from
the execution's rf, co and program order.  The pictures highlight exactly that cycle.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pydot
import pytest
from conftest import ROOT, SHARED

from herdsman.cat.api import Model, load_model, load_model_text, parse_term
from herdsman.graphs.dot import display_numbers
from herdsman.graphs.execution import Relations
from herdsman.herd_compat.analyses.explain.candidates import Candidate, explain_state
from herdsman.herd_compat.analyses.explain.report import condition_state, parse_state, witness_dot
from herdsman.herd_compat.analyses.explain.witness import RelationLens, Witness
from herdsman.herd_compat.cli.main import main
from herdsman.litmus.base.ir import Program, RegLoc
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

X86 = ROOT / "litmus" / "examples" / "x86"
PPC = ROOT / "litmus" / "examples" / "ppc"
HERD = SHARED / "herd-cat"

#: The check's relation, written here (not read from the model by the explain code): for
#: each model and check name, the operand of the check.
CHECKS = {
    ("sc", "sc"): "po | rmw | rf | co | fr",
    ("sc", "atomic"): "rmw & (fre; coe)",
    ("tso", "tso"): "ghb",
    ("tso", "uniproc"): "po-loc | rf | co | fr | amo",
    ("pso", "pso"): "ghb",
    ("pso", "uniproc"): "po-loc | rf | co | fr | amo",
    ("power", "sc-per-location"): "po-loc | rf | fr | co",
    ("power", "no-thin-air"): "hb",
    ("power", "propagation"): "co | prop",
    ("power", "observation"): "fre; prop; hb*",
    ("herd:sc.cat", "sc"): "po | ((fr | rf | co);sm)",
    ("herd:x86tso.cat", "tso"): "ghb",
    ("herd:x86tso.cat", None): "po-loc | amo | com",
    ("herd:ppc.cat", "scperlocation"): "po-loc | rf | fr | co",
    ("herd:ppc.cat", "thinair"): "hb",
    ("herd:ppc.cat", "propagation"): "co|prop",
    ("herd:ppc.cat", "observation"): "fre;prop;hbstar",
}

#: (model, test, expected): the check that forbids the test's condition state, or
#: "allowed".
CASES = [
    *[("sc", X86 / f"{t}.litmus", "sc") for t in ("SB", "MP", "LB", "IRIW", "2+2W", "CoRR")],
    ("tso", X86 / "SB.litmus", "allowed"),
    *[("tso", X86 / f"{t}.litmus", "tso") for t in ("MP", "LB", "IRIW", "2+2W")],
    ("tso", X86 / "CoRR.litmus", "uniproc"),
    ("tso", X86 / "SB+mfences.litmus", "tso"),
    ("pso", X86 / "MP.litmus", "allowed"),
    ("pso", X86 / "LB.litmus", "pso"),
    *[("power", PPC / f"{t}.litmus", "allowed") for t in ("SB", "MP", "LB", "IRIW", "2+2W")],
    ("power", PPC / "SB+syncs.litmus", "propagation"),
    ("power", PPC / "MP+lwsync+addr.litmus", "observation"),
    ("power", PPC / "LB+ctrls.litmus", "no-thin-air"),
    ("power", PPC / "IRIW+syncs.litmus", "propagation"),
    ("power", PPC / "2+2W+lwsyncs.litmus", "propagation"),
    ("power", PPC / "S+lwsyncs.litmus", "propagation"),
    ("power", PPC / "WRC+lwsync+addr.litmus", "observation"),
    ("power", PPC / "CoRR.litmus", "sc-per-location"),
]
HERD_CASES = [
    *[("herd:sc.cat", X86 / f"{t}.litmus", "sc") for t in ("SB", "MP", "LB", "IRIW", "2+2W")],
    ("herd:x86tso.cat", X86 / "SB.litmus", "allowed"),
    *[("herd:x86tso.cat", X86 / f"{t}.litmus", "tso") for t in ("MP", "LB", "IRIW", "2+2W")],
    ("herd:x86tso.cat", X86 / "CoRR.litmus", None),  # herd's uniproc check has no name
    ("herd:ppc.cat", PPC / "SB+syncs.litmus", "propagation"),
    ("herd:ppc.cat", PPC / "MP+lwsync+addr.litmus", "observation"),
    ("herd:ppc.cat", PPC / "LB+ctrls.litmus", "thinair"),
    ("herd:ppc.cat", PPC / "IRIW+syncs.litmus", "propagation"),
    ("herd:ppc.cat", PPC / "2+2W+lwsyncs.litmus", "propagation"),
    ("herd:ppc.cat", PPC / "MP+lwsync+ctrlisync.litmus", "observation"),
    ("herd:ppc.cat", PPC / "CoRR.litmus", "scperlocation"),
    ("herd:ppc.cat", PPC / "MP.litmus", "allowed"),
]

_MODELS: dict[str, Model] = {}


def model(spec: str) -> Model:
    if spec not in _MODELS:
        if spec.startswith("herd:"):
            path = HERD / spec.removeprefix("herd:")
            if not path.exists():
                pytest.skip(f"needs {path} (the shared ground-truth folder is absent)")
            _MODELS[spec] = load_model(path)
        else:
            _MODELS[spec] = load_model(spec)
    return _MODELS[spec]


def program(path: Path) -> Program:
    return lower(parse_file(path))


# ----------------------------------------------------------------------------- the checks,
# evaluated here


def evaluate(m: Model, rels: Relations, arch: str, exprs: list[str]) -> dict[str, int]:
    """The values of cat expressions on an execution, with the model itself: its text with
    ``show (e) as tN`` appended (after everything: the checks' names are bound then)."""
    text = Path(m.path).read_text(encoding="utf-8")
    text += "".join(f"\nshow ({e}) as t{k}" for k, e in enumerate(exprs)) + "\n"
    copy = load_model_text(text, m.path, include_dirs=m.include_dirs)
    verdicts = copy.prepare(rels.sk, arch).check(rels.rf, co=rels.co, explain=True, want_shows=True)
    shows = verdicts[0].shows
    return {e: shows[f"t{k}"] for k, e in enumerate(exprs)}


def base_relations(rels: Relations) -> dict[str, int]:
    """The execution's base relations, computed here from its events, rf and co."""
    sk, U = rels.sk, rels.U
    evs = sk.events
    n = len(evs)

    def rel(pred) -> int:
        return U.from_pairs((a, b) for a in range(n) for b in range(n) if pred(a, b))

    def ext(a: int, b: int) -> bool:
        return evs[a].tid != evs[b].tid

    def po(a: int, b: int) -> bool:
        return evs[a].tid == evs[b].tid >= 0 and evs[a].index < evs[b].index

    rf, co = rels.rf, rels.co
    fr = U.seq(U.inverse(rf), co) & ~U.ID
    out = {"po": rel(po), "rf": rf, "co": co, "fr": fr}
    for name, r in (("rf", rf), ("co", co), ("fr", fr)):
        out[name + "e"] = r & rel(ext)
        out[name + "i"] = r & ~rel(ext)
    for kind in {e.fence for e in evs if e.kind == "F"}:
        out[kind.lower()] = rel(
            lambda a, b, k=kind: any(po(a, f) and po(f, b) for f in range(n) if evs[f].fence == k)
        )
    masks = [{"addr": e.addr, "data": e.data, "ctrl": e.ctrl} for e in evs]
    for dep in ("addr", "data", "ctrl"):
        out[dep] = rel(lambda a, b, d=dep: po(a, b) and bool((masks[b][d] >> evs[a].index) & 1))
    if "isync" in out:
        out["ctrlisync"] = out["ctrl"] & out["isync"]
    return out


def check_cycle(spec: str, m: Model, c: Candidate, arch: str) -> Witness:
    """The candidate's witness is a real cycle of the named check's relation (see the
    module docstring)."""
    w = c.judgement.witness
    assert w is not None and w.evaluated, w
    rels = c.rels
    U = rels.U
    check = CHECKS[(spec, w.name)]
    labels = sorted({s.relation for s in w.steps})
    vals = evaluate(m, rels, arch, [check, *labels])
    X = vals[check]
    cycle = list(w.cycle)
    if w.kind == "acyclic":
        for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            assert U.has(X, a, b), (w, a, b)
    else:
        assert w.kind == "irreflexive" and len(cycle) == 1 and U.has(X, cycle[0], cycle[0])
    steps = w.steps
    assert steps
    for s, t in zip(steps, steps[1:] + steps[:1], strict=True):
        assert s.dst == t.src, "the steps are a closed walk"
    sources = [s.src for s in steps]
    k = 0
    for e in sources:  # cat's cycle, in order, along the walk
        if k < len(cycle) and e == cycle[k]:
            k += 1
    assert k == len(cycle), (cycle, sources)
    base = base_relations(rels)
    com = base["po"] | base["rf"] | base["co"] | base["fr"]
    for s in steps:
        assert U.has(vals[s.relation], s.src, s.dst), (s, "not in its relation")
        if s.base:
            assert U.has(base[s.base], s.src, s.dst), (s, "not in its base relation")
            assert U.has(com, s.src, s.dst)
    return w


def check_picture(c: Candidate, w: Witness) -> None:
    """The picture highlights the witness's steps: thick red edges labelled with the
    check's name, one per step."""
    text = witness_dot(c.rels, "T", "M", "caption", w)
    with warnings.catch_warnings():  # pydot's parser uses pyparsing's older names
        warnings.simplefilter("ignore", DeprecationWarning)
        g = pydot.graph_from_dot_data(text)[0]
    num = display_numbers(c.rels)
    name_of = {f"eiid{k}": i for i, k in num.items()}
    thick = [
        (name_of[e.get_source()], name_of[e.get_destination()], e.get("label").strip('"'))
        for e in g.get_edges()
        if e.get("penwidth") == "3"
    ]
    assert sorted((s.src, s.dst) for s in w.steps) == sorted((a, b) for a, b, _ in thick)
    assert all(label.startswith(f"{w.axiom}: ") for _, _, label in thick)


def run_case(spec: str, path: Path, expected: str | None) -> None:
    m = model(spec)
    prog = program(path)
    state = condition_state(prog.condition, str(path))
    ex = explain_state(prog, m, state, RelationLens(m))
    if expected == "allowed":
        assert ex.verdict == "allowed" and ex.witness is not None
        rels = ex.witness.rels
        verdicts = m.prepare(rels.sk, prog.arch).check(rels.rf, co=rels.co)
        assert any(v.allowed for v in verdicts)
        for w, r in rels.U.pairs(rels.rf):  # each read reads its value
            assert rels.events[w].value == rels.events[r].value
        return
    assert ex.verdict == "forbidden", (ex.total, ex.allowed)
    assert ex.rejected and len(ex.rejected) == ex.total
    for c in ex.rejected:
        j = c.judgement
        assert not j.allowed and j.failure is not None and j.failure.name == expected
        verdicts = m.prepare(c.rels.sk, prog.arch).check(c.rels.rf, co=c.rels.co)
        assert verdicts and not any(v.allowed for v in verdicts)
        w = check_cycle(spec, m, c, prog.arch)
        if expected is not None:
            assert w.axiom == expected
        check_picture(c, w)


@pytest.mark.parametrize("spec,path,expected", CASES, ids=[f"{s}-{p.stem}" for s, p, _ in CASES])
def test_builtin_models_name_the_check_and_its_cycle(spec, path, expected) -> None:
    run_case(spec, path, expected)


@pytest.mark.parametrize(
    "spec,path,expected", HERD_CASES, ids=[f"{s[5:]}-{p.stem}" for s, p, _ in HERD_CASES]
)
def test_herds_models_name_the_check_and_its_cycle(spec, path, expected) -> None:
    run_case(spec, path, expected)


SB3 = """X86 SB3
{ }
 P0         | P1         | P2          ;
 MOV [x],$1 | MOV [y],$1 | MOV EAX,[x] ;
 MOV EAX,[y] | MOV EAX,[x] |            ;
exists (0:EAX=0 /\\ 1:EAX=0)
"""


def test_every_candidate_is_listed(tmp_path) -> None:
    """Every candidate giving the state is listed with its own failing check (SB with a
    third thread reading x: two candidates, both rejected), or counted (``limit``); an
    allowed state lists the candidates rejected beside its witness."""
    m = model("sc")
    f = tmp_path / "SB3.litmus"
    f.write_text(SB3)
    prog = program(f)
    ex = explain_state(prog, m, condition_state(prog.condition, str(f)), RelationLens(m))
    assert ex.verdict == "forbidden" and ex.total == 2
    assert [c.number for c in ex.rejected] == [1, 2]
    for c in ex.rejected:
        check_cycle("sc", m, c, "X86")
    ex = explain_state(prog, m, condition_state(prog.condition, str(f)), limit=1)
    assert ex.total == 2 and len(ex.rejected) == 1
    prog = program(X86 / "IRIW.litmus")
    state = parse_state("1:EAX=1 /\\ 1:EBX=0 /\\ 3:EAX=1", "X86", 4)
    ex = explain_state(prog, m, state, RelationLens(m))
    assert ex.verdict == "allowed" and (ex.total, ex.allowed) == (2, 1)
    assert ex.witness is not None and [c.judgement.axiom for c in ex.rejected] == ["sc"]


def test_state_syntax() -> None:
    assert parse_state("0:r1=0 /\\ 1:r1=0", "PPC", 2) == (
        (RegLoc(0, "r1"), 0),
        (RegLoc(1, "r1"), 0),
    )
    assert parse_state("0:EAX=0; 1:EAX=0;", "X86", 2) == parse_state(
        "0:EAX=0 /\\ 1:EAX=0", "X86", 2
    )
    for bad in ("0:r1=0 \\/ 1:r1=0", "0:r1=0 /\\ 0:r1=1", "~0:r1=0", "", "0:r1="):
        with pytest.raises(Exception) as e:
            parse_state(bad, "PPC", 2)
        assert e.type.__name__ == "InputError" and str(e.value).startswith("--state:")


def test_reading_cat_expressions() -> None:
    e = parse_term("po | ((fr | rf | co);sm) | ii & R*R | f(x)+ | [W];po^-1")
    assert e.op == "union"
    parts = ["po", "(fr | rf | co); sm", "ii & (R * R)", "f(x)+", "[W]; po^-1"]
    assert [a.text for a in e.args] == parts
    assert [a.op for a in e.args] == ["name", "seq", "inter", "plus", "seq"]
    assert parse_term(e.text) == e


# ----------------------------------------------------------------------------- the command


ONE_LINE = re.compile(r"^\S+:\d+:\d+: error: .+$")


def test_command_text_json_and_pictures(capsys, tmp_path) -> None:
    path = str(PPC / "MP+lwsync+addr.litmus")
    assert main(["explain", "power", path, "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Forbidden: 1 candidate execution gives this state" in out
    assert "Candidate 1 of 1: rejected by observation" in out
    assert "-fre-> a: W[x]=1 -prop(lwsync)-> b: W[y]=1 -rfe-> c: R[y]=1 -ppo(addr)->" in out
    dot = (tmp_path / "MP+lwsync+addr-candidate-1.dot").read_text()
    assert 'label="observation: fre"' in dot and "penwidth=3" in dot
    assert main(["explain", "power", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "forbidden" and doc["candidates"] == 1
    edges = doc["rejected"][0]["witness"]["edges"]
    assert [e["label"] for e in edges] == ["fre", "prop(lwsync)", "rfe", "ppo(addr)"]
    assert main(["explain", "tso", str(X86 / "SB.litmus"), "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Allowed: 1 candidate execution gives this state" in out
    assert (tmp_path / "SB-allowed.dot").is_file()


def test_command_unreachable_state(capsys) -> None:
    argv = ["explain", "sc", str(X86 / "SB.litmus"), "--state", "0:EAX=7; 1:EAX=0"]
    assert main(argv) == 0
    assert "No candidate execution gives this state" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv,where",
    [
        (["nosuch", str(X86 / "SB.litmus")], "nosuch:0:0"),
        (["sc", str(X86 / "nosuch.litmus")], "nosuch.litmus:0:0"),
        (["power", str(X86 / "SB.litmus")], "power:0:0"),
        (["sc", str(X86 / "SB.litmus"), "--state", "0:EAX=0 \\/ 1:EAX=0"], "--state:1:1"),
        (["sc", str(X86 / "SB.litmus"), "--state", "0:EAX=0 /\\ 9:EAX=0"], "--state:1:"),
        (["sc", str(X86 / "SB.litmus"), "--state", "0:EAX=="], "--state:1:"),
        (["sc", str(X86 / "SB.litmus"), "-o", "/nonexistent/dir"], "/nonexistent/dir:0:0"),
    ],
)
def test_command_bad_input(capsys, argv, where) -> None:
    assert main(["explain", *argv]) == 2
    cap = capsys.readouterr()
    err = cap.err.rstrip("\n")
    assert "\n" not in err and ONE_LINE.match(err) and where in err.split(" error:")[0], err
    assert "Traceback" not in cap.err + cap.out


def test_command_condition_not_a_state(capsys, tmp_path) -> None:
    text = (X86 / "SB.litmus").read_text()
    text = re.sub(r"exists.*", "exists (0:EAX=0 \\/ 1:EAX=0)", text, flags=re.S)
    f = tmp_path / "SBor.litmus"
    f.write_text(text)
    assert main(["explain", "sc", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give the state to explain with --state" in err
    assert main(["explain", "sc", str(f), "--state", "0:EAX=0 /\\ 1:EAX=0"]) == 0
