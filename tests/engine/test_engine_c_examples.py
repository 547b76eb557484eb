"""The example C programs (litmus/examples/programs): every verdict their headers claim.

Each program starts with a header comment of ``herdsman:`` lines: ``expect MODEL=VERDICT
...`` (``safe``: no assertion can fail; ``unsafe``: one can), optionally ``unroll N``
(the loop bound to run it with) and ``reference-slow`` (only TruSt runs it, but for one
spot check; ``HERDSMAN_SLOW=1`` runs the reference engine on it too). For every model
named, the program runs with TruSt and with the reference engine, which must find the
header's verdict and agree with each other on it, on the final states and their counts,
and on the number of complete executions; under a model TruSt refuses (POWER, which
allows load buffering) the reference engine runs alone. Every failed assertion is
reported at an ``assert`` of the file. ``herdsman verify`` gives GenMC's lines and exit
statuses.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
from support.c_examples import MODELS, PROGRAMS, Header, assertions, parse_header, program_files
from support.engine import c_target

from herdsman.cat.api import load_model
from herdsman.engine.outcome import Outcome
from herdsman.engine.run import RunOptions, run_program
from herdsman.engine.trust.run import trust_applies
from herdsman.herd_compat.cli.main import main
from herdsman.litmus.base.ir import Program
from herdsman.litmus.c import load_c_program

ENGINES = ("trust", "reference")


def cases() -> list:
    return [
        pytest.param(p, m, id=f"{p.stem}-{m}")
        for p in program_files()
        for m in parse_header(p).unsafe
    ]


@cache
def loaded_model(name: str):
    return load_model(name)


def load(path: Path, model_name: str) -> Program:
    """The program, its loops bounded at load time by its header's ``unroll`` (GenMC's
    ``-unroll``: C programs bound their own loops)."""
    return load_c_program(str(path), c_target(model_name), unroll=parse_header(path).unroll)


def explore(prog: Program, model_name: str, engine: str, header: Header) -> Outcome:
    """Every execution of ``prog`` (no stop at the first error)."""
    opts = RunOptions(engine=engine, stop_on_error=False)
    if header.unroll is not None:
        opts.unroll = header.unroll
    return run_program(prog, loaded_model(model_name), opts)


def check_agree(trust: Outcome, ref: Outcome) -> None:
    assert bool(trust.errors) == bool(ref.errors)
    assert trust.states == ref.states
    assert trust.stats.complete == ref.stats.complete
    assert {e.message for e in trust.errors} == {e.message for e in ref.errors}


def identifiers(text: str) -> set[str]:
    """The lower-case identifiers of C text (macros, upper-case, may be expanded)."""
    return set(re.findall(r"\b[a-z_]\w*", text))


# ----------------------------------------------------------------------------- the files


def test_programs_are_there():
    names = {p.stem for p in program_files()}
    for algo in ("peterson", "dekker", "bakery", "szymanski", "dijkstra", "burns"):
        assert {algo, f"{algo}_fenced"} <= names
    for other in ("ticket_lock", "tas_lock", "seqlock", "abp"):
        assert {other, f"{other}_fenced"} <= names
    assert {"zkw15_fig1", "zkw15_fig2", "sdpor_fig1", "counter", "counter_racy"} <= names


@pytest.mark.parametrize("path", program_files(), ids=lambda p: p.stem)
def test_header(path):
    """Every program claims SC, TSO and PSO verdicts; a mutual-exclusion algorithm is
    correct under SC, and its fenced version under TSO and PSO."""
    h = parse_header(path)
    assert {"sc", "tso", "pso"} <= set(h.unsafe), path.name
    if path.stem.endswith("_fenced"):
        assert not any(h.unsafe.values()), path.name
        assert (path.parent / f"{path.stem.removesuffix('_fenced')}.c").exists()
    elif (path.parent / f"{path.stem}_fenced.c").exists():
        assert not h.unsafe["sc"] and any(h.unsafe.values()), path.name
    assert assertions(path), f"{path.name} asserts nothing"


def test_readme_lists_every_program_with_its_verdicts():
    readme = (PROGRAMS / "README.md").read_text(encoding="utf-8")
    rows = {}
    for line in readme.splitlines():
        m = re.match(r"\| `(\w+)\.c` \|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    assert set(rows) == {p.stem for p in program_files()}
    for p in program_files():
        h = parse_header(p)
        cells = rows[p.stem][1 : 1 + len(MODELS)]
        want = ["—" if m not in h.unsafe else ("unsafe" if h.unsafe[m] else "safe") for m in MODELS]
        assert cells == want, p.name


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_programs_are_c11():
    """The programs (and the TSO benchmarks of litmus/examples/tso) are valid C for a real
    compiler with the system's headers."""
    for p in [*program_files(), *sorted((PROGRAMS.parent / "tso").glob("*.c"))]:
        r = subprocess.run(
            ["gcc", "-fsyntax-only", "-std=c11", "-pthread", str(p)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert r.returncode == 0, f"{p.name}: {r.stderr}"


# ----------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(("path", "model_name"), cases())
def test_verdict_and_engines_agree(path, model_name):
    h = parse_header(path)
    prog = load(path, model_name)
    if not trust_applies(loaded_model(model_name), prog):
        engines: tuple[str, ...] = ("reference",)
    else:
        slow = h.reference_slow and not os.environ.get("HERDSMAN_SLOW")
        engines = ENGINES[:1] if slow else ENGINES
    outs = {e: explore(prog, model_name, e, h) for e in engines}
    lines = assertions(path)
    for engine, out in outs.items():
        assert bool(out.errors) == h.unsafe[model_name], f"{engine}: {out.errors[:1]}"
        assert out.stats.complete > 0
        for err in out.errors:
            line = int(err.origin.split(":", 1)[0])
            assert line in lines, f"{engine}: {err.origin}"
            assert err.message and identifiers(err.message) <= identifiers(lines[line])
    if len(outs) == 2:
        check_agree(outs["trust"], outs["reference"])


def test_engines_agree_on_a_slow_program():
    """The spot check of a reference-slow program: Szymanski's under TSO, hundreds of
    executions (and TruSt's blocked explorations of its spin loops)."""
    path = PROGRAMS / "szymanski.c"
    h = parse_header(path)
    assert h.reference_slow
    prog = load(path, "tso")
    trust, ref = (explore(prog, "tso", e, h) for e in ENGINES)
    check_agree(trust, ref)
    assert trust.stats.complete > 500


# ----------------------------------------------------------------------------- the command


COMPLETE = re.compile(r"^Number of complete executions explored: (\d+)$", re.M)
BLOCKED = re.compile(r"^Number of blocked executions seen: (\d+)$", re.M)


def verify(capsys, *argv: str) -> tuple[int, str]:
    rc = main(["verify", *argv])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.out + cap.err
    return rc, cap.out


def counts(out: str) -> tuple[int, int]:
    """GenMC's counts in ``herdsman verify``'s output: complete and blocked executions
    (the blocked line may be left out when there are none)."""
    complete = COMPLETE.search(out)
    assert complete, out
    blocked = BLOCKED.search(out)
    return int(complete.group(1)), int(blocked.group(1)) if blocked else 0


def test_verify_unsafe(capsys):
    rc, out = verify(capsys, str(PROGRAMS / "peterson.c"), "--model", "tso")
    assert rc == 42
    assert "Error: Safety violation!" in out
    counts(out)


def test_verify_safe(capsys):
    path = PROGRAMS / "peterson_fenced.c"
    rc, out = verify(capsys, str(path), "--model", "tso", "--engine", "trust")
    assert rc == 0
    assert "No errors were detected." in out
    assert "Error: " not in out
    as_verify = load_c_program(str(path), c_target("tso"))  # no --unroll: GenMC's default
    opts = RunOptions(engine="trust", stop_on_error=False, writes_first=True)  # as verify
    api = run_program(as_verify, loaded_model("tso"), opts)
    assert counts(out) == (api.stats.complete, api.stats.blocked)


def test_verify_defines(capsys):
    """-D sets a program's parameter: N atomic increments, in any order (N! executions,
    none blocked: a read-modify-write that cannot be placed is moot, as in GenMC)."""
    counter = str(PROGRAMS / "counter.c")
    rc, out = verify(capsys, counter, "--model", "sc", "-D", "N=2")
    assert rc == 0
    assert counts(out) == (2, 0)
    rc, out = verify(capsys, counter, "--model", "tso", "-D", "N=4")
    assert rc == 0
    assert counts(out) == (24, 0)
    rc, out = verify(capsys, str(PROGRAMS / "counter_racy.c"), "--model", "sc", "-D", "N=2")
    assert rc == 42 and "Error: Safety violation!" in out
