"""``herdsman diff``: where two models differ, checked against herd7's own logs and against
the reference engine.

* built-in ``power`` against herd's ``ppc.cat`` on a sample of the POWER tests: no
  difference;
* ``tso`` against ``sc`` on a sample of the X86 tests: the tests that differ are exactly
  those whose verdict, states or counts differ between herd7's logs with ``x86tso.cat``
  and ``sc.cat`` (``bench/bench_diff.py`` checks the whole set);
* ``pso`` against ``tso``: PSO only ever allows more;
* a model weakened on purpose (a copy of a built-in one without one check, written to a
  temporary directory): exactly the expected tests differ, each with a witness execution
  that the reference engine finds among those the weak model allows and that the strong
  model rejects when judged here, by the check removed;
* the journal: a run killed midway and resumed records no test twice and runs only the
  tests not finished;
* bad input: one line, exit status 2.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, many_stores, one_error, shared_path, warm_model

from herdsman.cat.api import load_model
from herdsman.engine.options import RunOptions
from herdsman.engine.run import run_program
from herdsman.herd_compat.analyses.explain.report import execution_json
from herdsman.herd_compat.campaigns.diff import DiffConfig, run_diff
from herdsman.herd_compat.campaigns.diff_db import DiffDB
from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.cli.main import main
from herdsman.herd_compat.formats.herdlog import read_expectations, read_herd_log
from herdsman.herd_compat.pipeline.limits import Limits
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

X86 = ROOT / "litmus" / "examples" / "x86"
PPC = ROOT / "litmus" / "examples" / "ppc"
ONE_LINE = re.compile(r"^(\S+:\d+:\d+: error: .+|herdsman diff: error: .+)$")


def diff(tmp_path: Path, a: str, b: str, inputs: list[str], **kw) -> tuple[int, dict, str]:
    """Run ``herdsman diff`` in process (workers are processes): status, JSON, stdout."""
    out = io.StringIO()
    js = tmp_path / f"diff-{len(list(tmp_path.glob('diff-*.json')))}.json"
    cfg = DiffConfig(
        a=a,
        b=b,
        inputs=inputs,
        db=str(tmp_path / f"{js.stem}.sqlite"),
        json_out=str(js),
        progress=False,
        **({"workers": Workers(jobs=2)} | kw),
    )
    res = run_diff(cfg, out=out, err=io.StringIO())
    return res.status, json.loads(js.read_text()), out.getvalue()


def differing(doc: dict) -> dict[str, dict]:
    return {t["name"]: t for t in doc["tests"] if t["group"] != "identical"}


def index(tmp_path: Path, name: str, paths: list[Path]) -> str:
    f = tmp_path / name
    f.write_text("".join(f"{p}\n" for p in paths))
    return f"@{f}"


# ----------------------------------------------------------------------------- herd's models


def test_power_against_herds_ppc_cat(tmp_path) -> None:
    """The built-in POWER model and herd's ppc.cat agree on a sample of the campaign (the
    quick tests of every 200th)."""
    tests = shared_path("power", "tests")
    ppc = shared_path("herd-cat", "ppc.cat")
    times = {b.name: b.time or 0.0 for b in read_herd_log(shared_path("power", "herd7-ppc.log"))}
    names = sorted(p.name for p in tests.glob("*.litmus"))[::200]
    sample = [tests / n for n in names if times.get(n[: -len(".litmus")], 1.0) < 0.05]
    assert len(sample) > 20
    status, doc, out = diff(tmp_path, "power", str(ppc), [index(tmp_path, "power", sample)])
    assert status == 0, out
    assert doc["summary"]["identical"] == len(sample) == doc["tests_total"]


def herd_differences(names: set[str]) -> set[str]:
    """The X86 tests among ``names`` whose answers differ between herd7's two logs."""
    logs = {}
    for model in ("x86tso", "sc"):
        logs[model] = {}
        for p in (f"herd7-tests-{model}.log", f"generated/herd7-{model}.log"):
            logs[model].update(read_expectations(shared_path("x86", p), 0))
    out = set()
    for n in names:
        a, b = logs["x86tso"][n].record, logs["sc"][n].record
        if (a.verdict, a.states, a.positive, a.negative) != (
            b.verdict,
            b.states,
            b.positive,
            b.negative,
        ):
            out.add(n)
    return out


def test_tso_against_sc_as_herds_logs_say(tmp_path) -> None:
    """tso and sc differ on exactly the tests where herd7's x86tso.cat and sc.cat logs
    differ (a sample: the catalogue tests and every 8th generated one), each difference
    with a witness that sc rejects by its check sc."""
    x86 = shared_path("x86")
    sample = sorted((x86 / "tests").glob("*.litmus"))
    sample += sorted((x86 / "generated").glob("*.litmus"))[::8]
    status, doc, out = diff(tmp_path, "tso", "sc", [index(tmp_path, "x86", sample)])
    got = differing(doc)
    expected = herd_differences({p.stem for p in sample})
    assert set(got) == expected and expected, out
    assert status == 1
    for t in got.values():
        assert t["group"] in ("a-allows", "both-forbid")  # tso allows more, never less
        w = t["witness"]
        assert w["allowing"] == "tso" and w["rejecting"] == "sc" and w["axiom"] == "sc", t


@pytest.mark.slow
def test_on_a_dask_cluster_as_on_local_workers(tmp_path) -> None:
    """``diff`` runs on dask (``--dask-local``) too: the same groups and witnesses as on
    local worker processes."""
    _, local, _ = diff(tmp_path, "pso", "tso", [str(X86)])
    on_dask = Workers(dask_local=2)
    limits = Limits(memory_limit=512)
    _, dask, out = diff(tmp_path, "pso", "tso", [str(X86)], workers=on_dask, limits=limits)
    assert "a dask cluster of 2 workers" in out

    def answers(doc: dict) -> dict[str, tuple]:
        return {t["name"]: (t["group"], json.dumps(t.get("witness"))) for t in doc["tests"]}

    assert answers(dask) == answers(local)


def test_pso_against_tso(tmp_path) -> None:
    """PSO allows what TSO allows and more: MP, 2+2W, S and their like differ (PSO allows,
    TSO forbids by its check tso); SB, LB, IRIW, the fenced tests do not."""
    status, doc, out = diff(tmp_path, "pso", "tso", [str(X86)])
    got = differing(doc)
    assert status == 1
    assert {"MP", "2+2W", "S"} <= set(got), out
    assert not {"SB", "LB", "IRIW", "MP+mfences", "2+2W+mfences", "CoRR"} & set(got)
    for t in got.values():
        assert t["group"] == "a-allows" and t["witness"]["axiom"] == "tso", t


# ----------------------------------------------------------------------------- weakened models


def weaken(tmp_path: Path, builtin: str, check: str) -> Path:
    """A copy of a built-in model without the check named ``check``."""
    text = (ROOT / "cat" / "models" / f"{builtin}.cat").read_text()
    lines = text.split("\n")
    kept = [line for line in lines if not re.search(rf"\bas {re.escape(check)}\s*$", line)]
    assert len(kept) == len(lines) - 1
    f = tmp_path / f"{builtin}-without-{check}.cat"
    f.write_text("\n".join(kept))
    return f


def rejudge(test: Path, weak: str, strong: str, execution: dict, check: str) -> None:
    """The witness execution is one the reference engine finds allowed by ``weak``, and
    ``strong`` rejects it, by ``check``."""
    t = parse_file(test)
    weak_model, strong_model = load_model(weak), load_model(strong)
    outcome = run_program(lower(t), weak_model, RunOptions(engine="reference", show="all"))
    found = [
        ex.graph.relations(values=True)
        for ex in outcome.witnesses
        if ex.graph is not None and execution_json(ex.graph.relations(values=True)) == execution
    ]
    assert len(found) == 1, f"{test.name}: the witness is no execution {weak} allows"
    rels = found[0]
    verdicts = strong_model.prepare(rels.sk, t.arch).check(rels.rf, co=rels.co, explain=True)
    assert verdicts and not any(v.allowed for v in verdicts)
    assert verdicts[0].failed[0].name == check


#: The bundled tests whose condition only TSO's global happens-before forbids (the others
#: are allowed by TSO, or forbidden by uniproc or atomicity too).
GHB_TESTS = {
    "2+2W",
    "2+2W+mfences",
    "IRIW",
    "IRIW+mfences",
    "ISA2",
    "LB",
    "LB+mfences",
    "MP",
    "MP+mfences",
    "R+mfences",
    "S",
    "S+mfences",
    "SB+lockadds",
    "SB+mfences",
    "SB+xchgs",
    "WRC",
    "WRC+mfences",
}
#: The bundled POWER tests forbidden by the observation axiom alone.
OBSERVATION_TESTS = {
    "ISA2+lwsync+data+addr",
    "MP+lwsync+addr",
    "MP+lwsync+ctrlisync",
    "MP+lwsyncs",
    "WRC+lwsync+addr",
}


@pytest.mark.parametrize(
    "builtin,check,tests,expected",
    [("tso", "tso", X86, GHB_TESTS), ("power", "observation", PPC, OBSERVATION_TESTS)],
)
def test_weakened_model(tmp_path, builtin, check, tests, expected) -> None:
    weak = str(weaken(tmp_path, builtin, check))
    status, doc, out = diff(tmp_path, weak, builtin, [str(tests)], outdir=str(tmp_path))
    got = differing(doc)
    assert status == 1 and set(got) == expected, out
    for name, t in got.items():
        assert t["group"] == "a-allows"
        w = t["witness"]
        assert w["allowed_by"] == "a" and w["axiom"] == check
        assert "cycle of " + check in "\n".join(w["text"])
        rejudge(tests / f"{name}.litmus", weak, builtin, w["execution"], check)
        assert Path(t["picture"]).read_text() == w["dot"]
        assert "penwidth=3" in w["dot"]


# ----------------------------------------------------------------------------- the journal


def journal(path: Path) -> dict[str, tuple]:
    db = DiffDB(str(path))
    try:
        return {k: (r.seq, r.finished_at, r.group) for k, r in db.rows().items()}
    finally:
        db.close()


def test_resume_after_a_kill_records_nothing_twice(tmp_path) -> None:
    """A run killed midway (SIGKILL) keeps the tests it finished; ``--resume`` runs only
    the others, leaves the finished rows as they were, and ends with one row per test."""
    x86 = shared_path("x86", "generated")
    tests = sorted(x86.glob("*.litmus"))[:150]
    idx = index(tmp_path, "tests", tests)
    db = tmp_path / "journal.sqlite"
    cmd = [sys.executable, "-m", "herdsman.herd_compat.cli.main", "diff", "tso", "sc", idx]
    cmd += ["--jobs", "1", "--db", str(db), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 600  # a loaded machine is slow, not wrong
        rows = 0
        while rows < 8 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
            if db.exists():
                try:
                    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                        rows = conn.execute("SELECT COUNT(*) FROM diffs").fetchone()[0]
                except sqlite3.OperationalError:
                    rows = 0
        assert proc.poll() is None, "the run ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(10)
    before = journal(db)
    assert 8 <= len(before) < len(tests)
    err = io.StringIO()
    cfg = DiffConfig(
        "tso", "sc", [idx], workers=Workers(jobs=2), db=str(db), resume=True, progress=False
    )
    res = run_diff(cfg, out=io.StringIO(), err=err)
    assert f"{len(before)} tests done, {len(tests) - len(before)} to run" in err.getvalue()
    after = journal(db)
    assert len(after) == len(tests) == len(res.rows)
    assert {k: after[k] for k in before} == before  # finished rows untouched
    old = max(seq for seq, _, _ in before.values())
    new = sorted(seq for k, (seq, _, _) in after.items() if k not in before)
    assert new == list(range(old + 1, old + 1 + len(tests) - len(before)))
    # another run over the same journal with other inputs is refused with --resume
    assert main(["diff", "pso", "sc", idx, "--db", str(db), "--resume"]) == 2


# ----------------------------------------------------------------------------- bad input


def _one_error(capsys, argv: list[str]) -> str:
    return one_error(capsys, ["diff", *argv], ONE_LINE)


def test_bad_input(capsys, tmp_path) -> None:
    sb = str(X86 / "SB.litmus")
    db = ["--db", str(tmp_path / "j.sqlite")]
    assert "unknown model 'nosuch'" in _one_error(capsys, ["nosuch", "sc", sb, *db])
    assert "no such file" in _one_error(capsys, ["tso", str(tmp_path / "no.cat"), sb, *db])
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no litmus tests" in _one_error(capsys, ["tso", "sc", str(empty), *db])
    assert "--jobs" in _one_error(capsys, ["tso", "sc", sb, "--jobs", "0", *db])
    assert "frob is a bad tag for --variant" in _one_error(
        capsys, ["tso", "sc", sb, "--variant", "mixed,frob", *db]
    )
    assert "does not exist" in _one_error(capsys, ["tso", "sc", sb, "-o", str(empty / "x"), *db])
    held = DiffDB(str(tmp_path / "held.sqlite"))
    try:
        err = _one_error(capsys, ["tso", "sc", sb, "--db", str(tmp_path / "held.sqlite")])
        assert "in use by another herdsman diff" in err
    finally:
        held.close()
    bad = tmp_path / "bad.litmus"
    bad.write_text("X86 bad\n{ }\n P0 ;\n FROB [x],$1 ;\nexists (0:EAX=0)\n")
    assert main(["diff", "tso", "sc", sb, str(bad), *db, "--no-progress"]) == 2
    out = capsys.readouterr().out
    assert re.search(r"errors \(bad input\)\s+1", out) and "bad.litmus:4:" in out


def test_exit_status_without_differences(capsys, tmp_path) -> None:
    argv = ["diff", "tso", "x86tso", str(X86 / "MP.litmus"), str(X86 / "SB.litmus")]
    assert main([*argv, "--db", str(tmp_path / "j"), "--no-progress"]) == 0
    assert re.search(r"same answers\s+2", capsys.readouterr().out)
    assert os.path.exists(tmp_path / "j")


def test_tests_without_result_exit_3(capsys, tmp_path) -> None:
    """A test over ``--timeout`` (each model's run) has no result: exit status 3."""
    slow = tmp_path / "SLOWCO.litmus"
    slow.write_text(many_stores(5))
    warm_model("power")  # the limit applies to loading the models too
    # SLOWCO takes ~12 s, MP a few ms: room for a loaded machine, and for a full garbage
    # collection of this process while it loads the models
    argv = ["diff", "power", "power", str(slow), str(PPC / "MP.litmus"), "--timeout", "0.5"]
    assert main([*argv, "--db", str(tmp_path / "j"), "--no-progress"]) == 3
    out = capsys.readouterr().out
    assert re.search(r"no result \(timeout, memory, lost\)\s+1", out)
    # the worker stops at 0.5 s of CPU, or on a loaded machine the pool kills it first
    assert re.search(r"time limit of [0-9.]+ s exceeded", out)
