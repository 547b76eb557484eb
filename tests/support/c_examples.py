"""The example C programs (litmus/examples/programs) and what their headers claim: per
model whether an assertion can fail, the loop bound, whether the reference engine is slow
on them; and the assertions of a file."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from conftest import ROOT, header_lines

PROGRAMS = ROOT / "litmus" / "examples" / "programs"
MODELS = ("sc", "tso", "pso", "power")
VERDICTS = {"safe": False, "unsafe": True}


@dataclass(frozen=True)
class Header:
    """What a program's header claims: per model, whether an assertion can fail."""

    unsafe: dict[str, bool] = field(default_factory=dict)
    unroll: int | None = None
    reference_slow: bool = False


def parse_header(path: Path) -> Header:
    """The ``herdsman:`` lines of the comment that opens ``path``."""
    unsafe: dict[str, bool] = {}
    unroll = None
    slow = False
    for key, words in header_lines(path):
        if key == "expect":
            for word in words:
                model, _, verdict = word.partition("=")
                assert model in MODELS and verdict in VERDICTS, f"{path.name}: {word}"
                unsafe[model] = VERDICTS[verdict]
        elif key == "unroll":
            (n,) = words
            unroll = int(n)
        elif key == "reference-slow":
            slow = True
        else:
            raise AssertionError(f"{path.name}: unknown header line {key!r}")
    return Header(unsafe, unroll, slow)


def program_files() -> list[Path]:
    return sorted(PROGRAMS.glob("*.c"))


def assertions(path: Path) -> dict[int, str]:
    """The line and text of every ``assert(...)`` of a file (one a line)."""
    out = {}
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = re.search(r"\bassert\((.*?)\);", line)
        if m:
            out[i] = m.group(1)
    return out
