"""herd's own tests: parse, print back, hash and condition text equal to herd7's logs.

A sample of the 8141 POWER tests (every mnemonic, every family prefix, every syntactic
feature, plus a regular stride) and all 475 X86 tests.  The full POWER round trip is
``bench/bench_parse.py``.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.litmus.base.ir import Branch, Label
from herdsman.litmus.hash import herd_hash
from herdsman.litmus.jsonir import from_json, to_json
from herdsman.litmus.parser import parse_file, parse_text
from herdsman.litmus.printer import herd_condition_text, print_test

PPC_LOG = ("power", "herd7-ppc.log")
X86_LOGS = [
    ("x86", "herd7-tests-x86tso.log"),
    ("x86", "herd7-tests-sc.log"),
    ("x86", "generated", "herd7-x86tso.log"),
    ("x86", "generated", "herd7-sc.log"),
]

_MNEMONIC = re.compile(r"(?<![\w.%])([a-z]+\.?)(?= |$)", re.M)
FEATURES = {
    "locations": re.compile(r"^locations", re.M),
    "final": re.compile(r"^final", re.M),
    "not": re.compile(r"\bnot\b|~"),
    "or": re.compile(r"\\/"),
    "true": re.compile(r"\btrue\b"),
    "trailer": re.compile(r"^<<", re.M),
    "comment": re.compile(r"\(\*"),
    "symbolic": re.compile(r"%\w"),
    "bracket": re.compile(r"\[\w+\]\s*="),
    "Pn": re.compile(r"\bP\d+:r"),
    "texname": re.compile(r"\A\S+ \S+ \("),
    "unterminated-doc": re.compile(r'\A[^\n]*\n"[^"\n]*\n[^"]*\Z'),
    "with": re.compile(r"^with", re.M),
    "one-line-init": re.compile(r"\{[^\n}]+\}"),
    "empty-row": re.compile(r"^\s*(\|\s*)+;", re.M),
    "label-instr": re.compile(r"\w+:\s*[a-z]"),
}


def log_records(path: Path) -> dict[str, dict[str, str]]:
    """Per test name: its Hash and Condition lines in a herd7 log."""
    out: dict[str, dict[str, str]] = {}
    rec: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.startswith("Test "):
            rec = {"name": line.split()[1]}
        elif line.startswith("Condition "):
            rec["condition"] = line[len("Condition ") :]
        elif line.startswith("Hash="):
            rec["hash"] = line[len("Hash=") :]
            out[rec["name"]] = rec
    return out


def family(name: str) -> str:
    return re.sub(r"\d+$", "", name.split("+")[0])


def power_sample(tests_dir: Path) -> list[Path]:
    """Every family prefix, every mnemonic (3 tests each), every feature (3 tests each),
    and every 25th test: a deterministic sample of the 8141 tests."""
    files = sorted(tests_dir.glob("*.litmus"))
    chosen: dict[Path, None] = {}
    seen_family: set[str] = set()
    per_key: dict[str, int] = defaultdict(int)
    for i, f in enumerate(files):
        text = f.read_text()
        fam = family(f.stem)
        keys = [fam] if fam not in seen_family else []
        seen_family.add(fam)
        prog = text[text.find("}") + 1 :]
        keys += ["m:" + m for m in set(_MNEMONIC.findall(prog))]
        keys += ["f:" + k for k, rx in FEATURES.items() if rx.search(text)]
        take = i % 25 == 0
        for k in keys:
            limit = 1 if not k.startswith(("m:", "f:")) else 3
            if per_key[k] < limit:
                per_key[k] += 1
                take = True
        if take:
            chosen[f] = None
    return list(chosen)


@pytest.fixture(scope="module")
def power():
    tests = shared_path("power", "tests")
    return power_sample(tests), log_records(shared_path(*PPC_LOG))


@pytest.fixture(scope="module")
def x86():
    files = sorted(shared_path("x86", "tests").glob("*.litmus"))
    files += sorted(shared_path("x86", "generated").glob("*.litmus"))
    records: dict[str, dict[str, str]] = {}
    for parts in X86_LOGS:
        records.update(log_records(shared_path(*parts)))
    return files, records


def check(path: Path, records: dict[str, dict[str, str]]) -> None:
    t = parse_file(path)
    rec = records[t.name]
    assert herd_hash(t) == rec["hash"], path
    assert herd_condition_text(t.condition) == rec["condition"], path
    printed = print_test(t)
    assert parse_text(printed, "printed") == t, path
    assert print_test(parse_text(printed)) == printed
    assert from_json(json.loads(json.dumps(to_json(t)))) == t


def test_power_sample_is_broad(power):
    files, records = power
    assert len(files) >= 400
    families = {family(f.stem) for f in files}
    all_families = {family(f.stem) for f in shared_path("power", "tests").glob("*.litmus")}
    assert families == all_families
    assert len(records) == 8141


def test_power_sample_roundtrip_and_hash(power):
    files, records = power
    mnemonics: set[str] = set()
    for f in files:
        check(f, records)
        for thread in parse_file(f).threads:
            mnemonics.update(i.mnemonic for i in thread if not isinstance(i, Label))
    # every mnemonic of the campaign (herd-formats.md §3.5) is in the sample
    assert {
        "stw",
        "li",
        "lwz",
        "xor",
        "lwsync",
        "sync",
        "addi",
        "lwzx",
        "cmpw",
        "beq",
        "stwx",
        "eieio",
        "isync",
        "ld",
        "std",
        "bne",
        "cmpwi",
        "mr",
        "divw",
        "mullw",
        "andi.",
        "stdx",
    } <= mnemonics


def test_all_x86_roundtrip_and_hash(x86):
    files, records = x86
    assert len(files) == 475
    for f in files:
        check(f, records)


def test_known_shapes(shared):
    """A few tests whose IR is known by heart."""
    mp = parse_file(shared / "power" / "tests" / "MP+lwsync+ctrlisync.litmus")
    p1 = mp.threads[1]
    ops = [i if isinstance(i, Label) else i.op for i in p1]
    assert [type(i).__name__ for i in ops] == ["Load", "Op", "Branch", "Label", "Fence", "Load"]
    assert isinstance(ops[2], Branch) and ops[2].target == "LC00" and ops[2].cond == "eq"
    sb = parse_file(shared / "x86" / "tests" / "SB.litmus")
    assert [i.text for i in sb.threads[0]] == ["MOV [x],$1", "MOV EAX,[y]"]
    corr5 = parse_file(shared / "power" / "tests" / "CoRR5.litmus")
    assert herd_condition_text(corr5.condition).startswith("exists (not (0:r1=2 /\\ 0:r2=2")
