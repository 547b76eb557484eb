"""The example tests: they parse, print back, and every verdict their README claims is
herd7's answer to the very same test (same hash and condition) in the shared logs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.litmus.hash import herd_hash
from herdsman.litmus.parser import parse_file, parse_text
from herdsman.litmus.printer import herd_condition_text, print_test

EXAMPLES = Path(__file__).resolve().parents[2] / "litmus" / "examples"
SHAPES = ["SB", "MP", "LB", "IRIW", "WRC", "ISA2", "2+2W", "R", "S", "CoRR", "CoWW"]
LOGS = {
    "ppc.cat": [("power", "herd7-ppc.log")],
    "x86tso.cat": [("x86", "herd7-tests-x86tso.log"), ("x86", "generated", "herd7-x86tso.log")],
    "sc.cat": [("x86", "herd7-tests-sc.log"), ("x86", "generated", "herd7-sc.log")],
}


def example_files() -> list[Path]:
    """The assembly examples (C litmus tests: tests/test_c_litmus_examples.py)."""
    return sorted(p for d in ("ppc", "x86") for p in EXAMPLES.glob(f"{d}/*.litmus"))


@pytest.mark.parametrize("path", example_files(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_parses_and_roundtrips(path):
    t = parse_file(path)
    assert t.name == path.stem
    assert t.arch == path.parent.name.upper()
    assert parse_text(print_test(t)) == t


def test_every_shape_with_and_without_fences():
    for arch, fence in (
        ("ppc", ("sync", "lwsync", "addr", "ctrl", "data")),
        ("x86", ("mfence", "xchg", "lock")),
    ):
        names = {p.stem for p in (EXAMPLES / arch).glob("*.litmus")}
        for shape in SHAPES:
            assert shape in names, (arch, shape)
        fenced = [n for n in names if "+" in n.replace("2+2W", "") and any(f in n for f in fence)]
        assert len(fenced) >= 8, (arch, fenced)


def readme_claims() -> list[tuple[str, str, str, str, str]]:
    """(arch dir, test name, model, verdict, log test name) for each claimed verdict."""
    text = (EXAMPLES / "README.md").read_text()
    claims = []
    section = ""
    models: list[str] = []
    for line in text.splitlines():
        m = re.match(r"## \w+ \(`(\w+)/`\)", line)
        if m:
            section = m.group(1)
        if line.startswith("| test |"):
            models = [c.strip() for c in line.strip("|").split("|")][2:]
        m = re.match(r"\| `([^`]+)` \|", line)
        if m and section:
            cells = [c.strip() for c in line.strip("|").split("|")][2:]
            for model, cell in zip(models, cells, strict=True):
                v = re.fullmatch(r"(Ok|No) \((.+)\)", cell)
                if v:
                    claims.append((section, m.group(1), model, v.group(1), v.group(2)))
                else:
                    assert cell == "—", cell
    return claims


def log_index(path: Path) -> dict[str, tuple[str, str, str]]:
    out = {}
    name = verdict = cond = ""
    for line in path.read_text().splitlines():
        if line.startswith("Test "):
            name = line.split()[1]
        elif line in ("Ok", "No"):
            verdict = line
        elif line.startswith("Condition "):
            cond = line[len("Condition ") :]
        elif line.startswith("Hash="):
            out[name] = (verdict, cond, line[len("Hash=") :])
    return out


def test_readme_lists_every_example():
    text = (EXAMPLES / "README.md").read_text()
    for p in example_files():
        assert f"| `{p.stem}` |" in text, p


def test_readme_verdicts_match_herd_logs(shared):
    claims = readme_claims()
    assert len(claims) >= 40
    indexes = {model: {} for model in LOGS}
    for model, logs in LOGS.items():
        for parts in logs:
            indexes[model].update(log_index(shared_path(*parts)))
    for arch, name, model, verdict, log_name in claims:
        t = parse_file(EXAMPLES / arch / f"{name}.litmus")
        got = indexes[model][log_name]
        assert got == (verdict, herd_condition_text(t.condition), herd_hash(t)), (name, model)
