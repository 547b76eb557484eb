"""The workbench's server, over HTTP: the catalog, examples and models (nothing outside
them), jobs streamed as they run — herd's block and a picture per execution, GenMC's
report, explain, diff —, the command line's one-line errors, time limits and cancelling
(the worker process is killed), and what a page elsewhere cannot do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.serve import Server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "litmus" / "examples"
MP = "ppc/MP+lwsync+addr.litmus"

#: A test the reference engine takes long over (4 threads of 4 writes to x).
LONG = (
    "X86 LONG\n{ }\n P0 | P1 | P2 | P3 ;\n"
    + "".join(
        " " + " | ".join(f"MOV [x],${t * 10 + i + 1}" for t in range(4)) + " ;\n" for i in range(4)
    )
    + " MOV EAX,[x] | MOV EAX,[x] | MOV EAX,[x] | MOV EAX,[x] ;\nexists (0:EAX=1 /\\ 1:EAX=11)\n"
)


def _of(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def _cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys; from herdsman.herd_compat.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *argv], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_catalog_examples_and_models(server: Server) -> None:
    status, body = server.get("/api/catalog")
    doc = json.loads(body)
    assert status == 200
    assert {"path": "ppc/MP+lwsync+addr.litmus", "kind": "litmus"} in doc["examples"]
    assert {"path": "programs/peterson.c", "kind": "program"} in doc["examples"]
    assert {"sc", "tso", "pso", "power"} <= set(doc["models"])
    assert "trust" in doc["engines"]
    status, body = server.get("/api/example?path=ppc/MP%2Blwsync%2Baddr.litmus")
    assert status == 200 and body.startswith(b"PPC MP+lwsync+addr")
    status, body = server.get("/api/model?name=tso")
    assert status == 200 and b"acyclic" in body


@pytest.mark.parametrize(
    "path",
    [
        "/api/example?path=../../pyproject.toml",
        "/api/example?path=/etc/passwd",
        "/api/example?path=ppc/..%2F..%2Fcat%2Fapi.py",
        "/api/model?name=/etc/passwd",
        "/static/../../pyproject.toml",
        "/static/%2e%2e/examples.py",
    ],
)
def test_nothing_outside_the_examples_is_served(server: Server, path: str) -> None:
    status, body = server.get(path)
    assert status == 404 and b"[project]" not in body and b"import" not in body


def test_only_json_jobs_and_this_machines_host(server: Server) -> None:
    body = json.dumps({"example": "x86/SB.litmus"}).encode()
    status, _ = server.post("/api/jobs", body, "text/plain")  # a form elsewhere can send this
    assert status == 415
    status, msg = server.post("/api/jobs", b'{"example": "../x.litmus"}', "application/json")
    assert status == 400 and b"not a bundled example" in msg
    status, _ = server.get("/api/catalog", headers={"Host": "attacker.example"})
    assert status == 400
    status, _ = server.get("/", headers={"Host": "localhost:1"})
    assert status == 200


def test_the_pages_security_headers(server: Server) -> None:
    req = __import__("urllib.request").request.urlopen(server.url + "/", timeout=30)
    csp = req.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert req.headers["X-Content-Type-Options"] == "nosniff"


def test_mp_under_power_streams_herds_block_and_pictures(server: Server) -> None:
    events = server.job({"example": "ppc/MP+lwsync+addr.litmus", "model": "power"})
    assert [e["type"] for e in events[:2]] == ["job", "started"]
    (block,) = _of(events, "block")
    expected = _cli(
        "herd7", "-model", "power", "ppc/MP+lwsync+addr.litmus", cwd=ROOT / "litmus" / "examples"
    )
    drop_time = lambda t: [x for x in t.splitlines() if not x.startswith("Time ")]  # noqa: E731
    assert drop_time(block["text"]) == drop_time(expected.stdout)
    assert "Observation MP+lwsync+addr Never 0 3" in block["text"]
    (states,) = _of(events, "states")
    assert [s["state"] for s in states["states"]] == [
        "1:r1=0; 1:r4=0;",
        "1:r1=0; 1:r4=1;",
        "1:r1=1; 1:r4=1;",
    ]
    assert _of(events, "pictures") == [{"type": "pictures", "total": 3}]
    pics = _of(events, "picture")
    assert [p["index"] for p in pics] == [0, 1, 2]
    assert all("<svg" in p["svg"] and "Test MP+lwsync+addr" in p["svg"] for p in pics)
    assert {p["state"] for p in pics} == {s["state"] for s in states["states"]}
    assert events[-1]["type"] == "done"


def test_peterson_under_tso_is_genmcs_report(server: Server, tmp_path: Path) -> None:
    events = server.job({"example": "programs/peterson.c", "model": "tso"})
    (report,) = _of(events, "report")
    assert report["text"].startswith("Error: Safety violation!\n")
    assert "Assertion violation: in_cs == 0" in report["text"] and report["unsafe"]
    expected = _cli(
        "verify", "--model", "tso", "programs/peterson.c", cwd=ROOT / "litmus" / "examples"
    )
    same = lambda t: [x for x in t.splitlines() if not x.startswith("Total wall-clock")]  # noqa: E731
    assert same(report["text"]) == same(expected.stdout)
    (pic,) = _of(events, "picture")
    assert "Test peterson, Generic(tso)" in pic["svg"] and "Spawn(P1)" in pic["svg"]


def test_bad_input_is_the_command_lines_line(server: Server, tmp_path: Path) -> None:
    text = "X86 BAD\n{ }\n P0 ;\n MOV [x],$1 ;\n FROB EAX ;\nexists (x=1)\n"
    events = server.job({"text": text, "model": "tso"})
    (err,) = _of(events, "error")
    (tmp_path / "BAD.litmus").write_text(text)
    cli = _cli("herd7", "-model", "tso", "BAD.litmus", cwd=tmp_path)
    assert err["message"] == cli.stderr.strip() and cli.returncode == 2
    assert (err["file"], err["line"]) == ("BAD.litmus", 5)


def test_a_cat_error_points_at_its_line(server: Server) -> None:
    cat = '"broken"\nlet com = rf | co | fr\nacyclic po | com | nosuch as sc\n'
    events = server.job({"example": "x86/SB.litmus", "model": "custom", "cat": cat})
    (err,) = _of(events, "error")
    assert err["file"] == "model.cat" and err["line"] in (2, 3)
    assert err["message"].startswith("model.cat:") and ": error: " in err["message"]


def test_explain_draws_the_violated_axioms_cycle(server: Server) -> None:
    events = server.job(
        {"task": "explain", "example": "ppc/MP+lwsync+addr.litmus", "model": "power"}
    )
    (report,) = _of(events, "report")
    assert "Forbidden: 1 candidate execution gives this state" in report["text"]
    assert "rejected by observation" in report["text"]
    (pic,) = _of(events, "picture")
    assert pic["state"] == "candidate 1" and "observation: " in pic["svg"]


def test_diff_streams_each_test(server: Server) -> None:
    tests = ["x86/SB.litmus", "x86/MP.litmus", "x86/IRIW.litmus"]
    events = server.job({"task": "diff", "model": "tso", "model_b": "sc", "tests": tests})
    rows = _of(events, "diffrow")
    assert [r["n"] for r in rows] == [1, 2, 3] and [r["path"] for r in rows] == tests
    sb = rows[0]
    assert sb["group"] == "a-allows" and sb["heading"] == "tso allows, sc forbids"
    (report,) = _of(events, "report")
    assert report["text"].startswith("herdsman diff: A = tso, B = sc; 3 tests")
    assert any("SB" in p["state"] for p in _of(events, "picture"))


def test_every_run_has_a_time_limit(server: Server) -> None:
    events = server.job({"text": LONG, "model": "tso", "engine": "reference", "timeout": 1})
    warnings = _of(events, "warning")
    assert warnings and "time limit of 1 s exceeded" in warnings[0]["message"]
    assert events[-1]["type"] == "done"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is dead
        return f.read().split(")")[-1].split()[0] != "Z"


def test_cancel_kills_the_worker(server: Server) -> None:
    stream = server.stream({"text": LONG, "model": "tso", "engine": "reference", "timeout": 60})
    job = next(stream)
    started = next(stream)
    assert started["type"] == "started" and _alive(started["pid"])
    assert server.delete(f"/api/jobs/{job['id']}") == 200
    rest = list(stream)
    assert rest[-1] == {"type": "error", "message": "cancelled"}
    assert not _alive(started["pid"])
    assert server.delete(f"/api/jobs/{job['id']}") == 404


def test_leaving_the_page_kills_the_worker(server: Server) -> None:
    req = {"text": LONG, "model": "tso", "engine": "reference", "timeout": 60}
    events = server.stream(req)
    next(events)
    started = next(events)
    pid = started["pid"]
    events.close()  # the browser goes away
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(pid)


def test_jobs_wait_their_turn(server: Server) -> None:
    """At most two jobs at once: a third waits (``queued``) and runs when one ends."""
    req = {"text": LONG, "model": "tso", "engine": "reference", "timeout": 60}
    streams = [server.stream(req) for _ in range(2)]
    firsts = [(next(s), next(s)) for s in streams]
    got: list[dict] = []
    third = threading.Thread(target=lambda: got.extend(server.job({"example": "x86/SB.litmus"})))
    third.start()
    time.sleep(1.5)
    assert got == [] and third.is_alive()
    for (job, _), s in zip(firsts, streams, strict=True):
        server.delete(f"/api/jobs/{job['id']}")
        list(s)
    third.join(60)
    assert got[0]["type"] == "job" and got[0]["queued"] and got[-1]["type"] == "done"
