"""The eager enumeration built on the step function reproduces round 1's exactly.

``tests/data/thread_digests.tsv`` was recorded with round 1's own enumeration (which ran
the instructions directly, before the step function existed): for each of the 8616
shared PPC and X86 tests, a digest of every thread execution (events with values, final
registers, dependencies, the unrolling flag, in enumeration order), the executions per
thread, the value rounds and the executions dropped for a bad address.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.engine.semantics.enumerate import ThreadExec, ThreadsResult, thread_executions
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file

DATA = Path(__file__).resolve().parents[1] / "data" / "thread_digests.tsv"


def canon_exec(te: ThreadExec) -> str:
    """The canonical text of a thread execution (the recording's)."""

    def val(v: object) -> str:
        return "-" if v is None else str(v)

    evs = ";".join(
        f"{e.kind}|{e.poi}|{e.poi}|{e.loc or '-'}|{val(e.value)}|{e.fence or '-'}|"
        f"{','.join(sorted(e.annots))}|{e.instr}"
        for e in te.events
    )

    def rel(name: str) -> str:
        return ",".join(f"{a}>{b}" for a, b in sorted(te.pairs(name)))

    regs = ",".join(f"{r}={val(v)}" for r, v in sorted(te.regs))
    return (
        f"{evs}#a:{rel('addr')}#d:{rel('data')}#c:{rel('ctrl')}#v:{rel('valdep')}"
        f"#r:{regs}#l:{int(te.loop)}"
    )


def digest(th: ThreadsResult) -> str:
    h = hashlib.sha256()
    for tid, execs in enumerate(th.execs):
        h.update(f"T{tid}\n".encode())
        for te in execs:
            h.update(canon_exec(te).encode() + b"\n")
    h.update(f"rounds={th.rounds};bad={th.bad_address}".encode())
    return h.hexdigest()[:20]


def records() -> list[list[str]]:
    return [
        line.rstrip("\n").split("\t")
        for line in DATA.read_text().splitlines()
        if line and not line.startswith("#")
    ]


def test_recording_covers_every_shared_test():
    recs = records()
    assert len(recs) == 8616
    assert sum(r[0].startswith("power/") for r in recs) == 8141


@pytest.mark.parametrize("part", range(8))
def test_enumeration_reproduces_round_one(part):
    base = shared_path()
    bad = []
    for rel, want, counts, rounds, dropped in records()[part::8]:
        th = thread_executions(lower(parse_file(str(base / rel))))
        got = digest(th)
        if got != want:
            mine = ".".join(str(len(x)) for x in th.execs)
            bad.append(
                f"{rel}: digest {got} != {want} (executions {mine} vs {counts}, rounds "
                f"{th.rounds} vs {rounds}, dropped {th.bad_address} vs {dropped})"
            )
    assert not bad, f"{len(bad)} tests differ:\n" + "\n".join(bad[:20])
