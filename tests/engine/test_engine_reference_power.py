"""POWER exactness: a sample of herd's campaign must give herd's states and counts.

The sample (about 400 tests) covers every mnemonic of the campaign, every family prefix
of test names and a few of herd's slowest tests.  It runs under the Python oracle of the
Power model (tests/support/engine.py) and, once the cat evaluator provides
``cat.api``, under herd's own ``ppc.cat`` and the built-in ``power`` model.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path

import pytest
from conftest import shared_path
from support.engine import PowerOracleModel

from herdsman.cat.api import load_model
from herdsman.engine.run import run_program
from herdsman.litmus.lower import lower

#: Every mnemonic of the 8141 tests (herd-formats.md section 3.5).
MNEMONICS = (
    "stw li lwz xor lwsync sync addi lwzx cmpw beq stwx eieio isync ld std bne cmpwi mr "
    "divw mullw andi. stdx"
).split()


def header_name(text: str, path: Path) -> str:
    words = text.split("\n", 1)[0].split()
    name = words[1] if len(words) > 1 else path.stem
    return name.removesuffix(".litmus")


@lru_cache(maxsize=1)
def campaign() -> tuple[list[str], dict[str, str], dict[str, str], dict]:
    """File names (herd's order), their test names, their texts, herd's records by name."""
    from herdsman.herd_compat.formats.herdlog import read_herd_log

    tests = shared_path("power", "tests")
    files = [f for f in (tests / "@all").read_text().split() if f]
    texts = {f: (tests / f).read_text() for f in files}
    names = {f: header_name(texts[f], tests / f) for f in files}
    recs = {r.name: r for r in read_herd_log(shared_path("power", "herd7-ppc.log"))}
    return files, names, texts, recs


@cache
def mnemonics_of(text: str) -> frozenset[str]:
    """First word of every cell of the program (labels dropped)."""
    prog = text.split("}", 1)[-1]
    out = set()
    for cell in re.split(r"[|;\n]", prog):
        words = re.sub(r"^\s*[\w.]+:", "", cell).split()
        if words:
            out.add(words[0])
    return frozenset(out)


def has_mnemonic(m: str, text: str) -> bool:
    return m in mnemonics_of(text)


@lru_cache(maxsize=1)
def power_sample(size: int = 400) -> tuple[str, ...]:
    """Test files: the 3 slowest for herd under 3 s and 2 of its slowest overall, the
    first test of each family, 3 tests per mnemonic, then a regular spread."""
    files, names, texts, recs = campaign()
    times = {f: recs[names[f]].time or 0.0 for f in files}
    chosen: list[str] = []

    def add(f: str) -> None:
        if f not in chosen:
            chosen.append(f)

    by_time = sorted(files, key=lambda f: -times[f])
    for f in [f for f in by_time if times[f] < 3.0][:3]:
        add(f)
    for f in by_time[5:7]:  # herd: about 13 s each
        add(f)
    families: dict[str, str] = {}
    for f in files:
        fam = re.sub(r"\d+$", "", names[f].split("+")[0])
        families.setdefault(fam, f)
    for f in families.values():
        add(f)
    for m in MNEMONICS:
        for f in [f for f in files if has_mnemonic(m, texts[f])][:3]:
            add(f)
    step = max(1, len(files) // size)
    for f in files[::step]:
        if len(chosen) >= size:
            break
        add(f)
    return tuple(chosen)


def run_sample(model, every: int = 1) -> list[str]:
    from herdsman.herd_compat.formats.herd_block import herd_result
    from herdsman.herd_compat.formats.herdlog import parse_state_line
    from herdsman.litmus.hash import herd_hash
    from herdsman.litmus.parser import parse_text
    from herdsman.litmus.printer import herd_condition_text

    files, names, texts, recs = campaign()
    tests = shared_path("power", "tests")
    bad = []
    for f in power_sample()[::every]:
        t = parse_text(texts[f], str(tests / f))
        r = run_program(lower(t), model)
        rec = recs[t.name]
        want = {frozenset(parse_state_line(x)) for x in rec.states}
        got = {frozenset(zip(r.observed, s, strict=True)) for s in r.states}
        h = herd_result(r, t.name, herd_hash(t), herd_condition_text(t.condition))
        if (h.hash, h.condition_text, h.kind) != (rec.hash, rec.condition, rec.kind):
            bad.append(f"{t.name}: hash/condition/kind {h.hash} {h.condition_text} {h.kind}")
        if got != want or (r.positive, r.negative) != (rec.obs_positive, rec.obs_negative):
            bad.append(
                f"{t.name}: {len(got)} states {r.positive}/{r.negative}, herd "
                f"{len(want)} states {rec.obs_positive}/{rec.obs_negative}"
            )
    return bad


def test_sample_covers_mnemonics_families_and_slow_tests():
    files, names, texts, recs = campaign()
    sample = power_sample()
    assert len(sample) >= 400
    for m in MNEMONICS:
        assert any(has_mnemonic(m, texts[f]) for f in sample), m
    families = {re.sub(r"\d+$", "", names[f].split("+")[0]) for f in files}
    assert families == {re.sub(r"\d+$", "", names[f].split("+")[0]) for f in sample}
    assert len([f for f in sample if (recs[names[f]].time or 0) > 10.0]) >= 2


def test_power_sample_matches_herd_with_python_power_model():
    # an independent check of the dependencies (the whole campaign agrees too, see the
    # engine report); a quarter of the sample keeps the test short
    assert run_sample(PowerOracleModel(), every=4) == []


@pytest.mark.parametrize("spec", ["herd-cat/ppc.cat", "power"])
def test_power_sample_matches_herd_with_cat_models(spec):
    model = load_model(str(shared_path(spec)) if spec.endswith(".cat") else spec)
    assert run_sample(model) == []
