"""Readers for herd's answers: herd7 logs and mcompare-style verdict tables.

A herd7 log is a sequence of per-test blocks (herd-formats.md section 4.1), read into
:class:`~herd_compat.output.HerdBlock` (the type our own blocks have); a verdict table
(``ppc.allowed``, section 5.4) gives per test one verdict per column.  Campaigns compare
our results with either; :func:`read_expectations` tells them apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from herdsman.herd_compat.formats.herd_block import HerdBlock
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import MemLoc, RegLoc, Sym, SymRegLoc, Value
from herdsman.litmus.base.numbers import ValueOutOfRange, parse_literal
from herdsman.litmus.base.source import MAX_LOG_BYTES, read_text

_TEST = re.compile(r"Test (\S+) (\S+)$")
_STATES = re.compile(r"States (\d{1,18})$")
_VERDICT = re.compile(r"(Loop )?(Ok|No|Undef)$")
_POSNEG = re.compile(r"Positive: (\d{1,18}) Negative: (\d{1,18})$")
_OBS = re.compile(r"Observation (\S+) (Never|Always|Sometimes) (\d{1,18}) (\d{1,18})$")
_TIME = re.compile(r"Time (\S+) (\d+(?:\.\d+)?)$")
_CANDS = re.compile(r"Candidates (\S+) (\d{1,18})$")
_HASH = re.compile(r"Hash=(\S+)$")
_FLAG = re.compile(r"Flag (.+)$")


class _Lines:
    """Lines of a log with a cursor, for error positions."""

    def __init__(self, path: str, lines: list[str]) -> None:
        self.path = path
        self.lines = lines
        self.i = 0

    def peek(self) -> str | None:
        return self.lines[self.i] if self.i < len(self.lines) else None

    def take(self, pattern: re.Pattern[str], what: str) -> re.Match[str]:
        line = self.peek()
        if line is None:
            raise InputError(self.path, self.i, 0, f"truncated herd log: expected {what}")
        m = pattern.match(line)
        if m is None:
            raise InputError(self.path, self.i + 1, 1, f"expected {what}, found {line!r}")
        self.i += 1
        return m


def _parse_block(src: _Lines) -> HerdBlock:
    m = src.take(_TEST, "'Test NAME KIND'")
    name, kind = m.group(1), m.group(2)
    n = int(src.take(_STATES, "'States N'").group(1))
    states = []
    for _ in range(n):
        line = src.peek()
        if line is None or not (line.endswith(";") or line == ""):  # "": no location
            raise InputError(src.path, src.i + 1, 1, f"expected {n} state lines for {name}")
        states.append(line)
        src.i += 1
    m = src.take(_VERDICT, "Ok/No/Undef")
    loop, verdict = m.group(1) is not None, m.group(2)
    src.take(re.compile(r"Witnesses$"), "'Witnesses'")
    m = src.take(_POSNEG, "'Positive: P Negative: N'")
    pos, neg = int(m.group(1)), int(m.group(2))
    flags = []
    while (line := src.peek()) is not None and line.startswith("Flag "):
        flags.append(src.take(_FLAG, "a Flag line").group(1))
    cond = src.take(re.compile(r"Condition (.+)$"), "'Condition ...'").group(1)
    m = src.take(_OBS, "'Observation NAME WORD P N'")
    obs, opos, oneg = m.group(2), int(m.group(3)), int(m.group(4))
    rec = HerdBlock(
        name=name,
        kind=kind,
        states=states,
        verdict=verdict,
        positive=pos,
        negative=neg,
        condition=cond,
        observation=obs,
        obs_positive=opos,
        obs_negative=oneg,
        loop=loop,
        flags=flags,
    )
    if (line := src.peek()) is not None and line.startswith("Time "):
        rec.time = float(src.take(_TIME, "'Time NAME SECONDS'").group(2))
    if (line := src.peek()) is not None and line.startswith("Candidates "):
        rec.candidates = int(src.take(_CANDS, "'Candidates NAME N'").group(2))
    if (line := src.peek()) is not None and line.startswith("Hash="):
        rec.hash = src.take(_HASH, "'Hash=...'").group(1)
    line = src.peek()
    if line is not None:
        if line != "":
            raise InputError(src.path, src.i + 1, 1, f"expected an empty line, found {line!r}")
        src.i += 1
    return rec


def log_blocks(text: str, path: str = "<log>") -> list[tuple[int, HerdBlock]]:
    """The test blocks of a herd7 log, in order, each with the line of its ``Test`` line.
    Lines outside blocks (herd's warnings when stderr was captured too) are skipped."""
    src = _Lines(path, text.split("\n"))
    if src.lines and src.lines[-1] == "":
        src.lines.pop()
    out = []
    while (line := src.peek()) is not None:
        if line.startswith("Test "):
            out.append((src.i + 1, _parse_block(src)))
        else:
            src.i += 1
    return out


def parse_herd_log(text: str, path: str = "<log>") -> list[HerdBlock]:
    """The test blocks of a herd7 log, in order."""
    return [block for _, block in log_blocks(text, path)]


def read_herd_log(path: str | Path) -> list[HerdBlock]:
    return parse_herd_log(_read(path), str(path))


# ----------------------------------------------------------------------------- states


@lru_cache(maxsize=4096)
def parse_value(text: str) -> Value:
    """A value as herd prints it: signed decimal or hex integer, else a symbol."""
    if re.fullmatch(r"-?\d+|-?0x[0-9a-fA-F]+", text):
        try:
            return parse_literal(text)
        except ValueOutOfRange:
            return Sym(text)  # no value of herdsman's: it compares unequal to all of them
    return Sym(text)


@lru_cache(maxsize=4096)
def parse_location(text: str) -> RegLoc | MemLoc | SymRegLoc:
    if m := re.fullmatch(r"(\d{1,9}):(.+)", text):
        return RegLoc(int(m.group(1)), m.group(2))
    if m := re.fullmatch(r"\[(.+)\]", text):
        return MemLoc(m.group(1))
    if text.startswith("%"):
        return SymRegLoc(text[1:])
    return MemLoc(text)


def parse_state_line(line: str) -> list[tuple[RegLoc | MemLoc | SymRegLoc, Value]]:
    """``0:r1=1; [x]=y;`` -> [(RegLoc(0,'r1'), 1), (MemLoc('x'), Sym('y'))]."""
    out = []
    for item in line.split(";"):
        item = item.strip()
        if not item:
            continue
        loc, _, val = item.partition("=")
        out.append((parse_location(loc), parse_value(val)))
    return out


# ----------------------------------------------------------------------------- tables


@dataclass
class VerdictTable:
    """An mcompare-style table: test name -> one value per column."""

    columns: list[str]
    rows: dict[str, tuple[str, ...]]
    lines: dict[str, int] = field(default_factory=dict)


def parse_verdict_table(text: str, path: str = "<table>") -> VerdictTable:
    """Rows ``NAME | v1 v2 ...``; separator lines (dashes), ``*Title*`` lines skipped; the
    row with an empty name is the header naming the columns."""
    columns: list[str] = []
    rows: dict[str, tuple[str, ...]] = {}
    lines: dict[str, int] = {}
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip() or set(line.strip()) <= {"-"}:
            continue
        if "|" not in line:
            if line.strip().startswith("*") and line.strip().endswith("*"):
                continue
            raise InputError(path, n, 1, f"expected 'NAME | verdicts', found {line!r}")
        name, _, rest = line.partition("|")
        name = name.strip()
        values = tuple(rest.split())
        if not name:
            columns = list(values)
            continue
        if not values:
            raise InputError(path, n, len(line), f"no verdict for test {name}")
        if name in rows and rows[name] != values:
            raise InputError(path, n, 1, f"test {name} appears twice with different verdicts")
        rows[name] = values
        lines[name] = n
    return VerdictTable(columns, rows, lines)


def read_verdict_table(path: str | Path) -> VerdictTable:
    return parse_verdict_table(_read(path), str(path))


# ----------------------------------------------------------------------------- either


@dataclass
class Expectation:
    """What herd says about one test: always a verdict, the full record from a log; or,
    from a kernel test's own ``Result:`` line (``result``: Never, Sometimes, Always,
    Maybe, DEADLOCK; ``datarace``: a data race predicted), what the kernel's
    ``judgelitmus.sh`` expects (:mod:`herd_compat.formats.results`)."""

    name: str
    verdict: str  # Ok | No | Undef
    record: HerdBlock | None = None
    source: str = ""
    line: int = 0
    result: str | None = None
    datarace: bool = False


def detect_format(text: str) -> str:
    """``log`` (herd7 output) or ``table`` (verdict table), from the first content line."""
    for line in text.split("\n"):
        s = line.strip()
        if not s:
            continue
        if s.startswith("Test "):
            return "log"
        if "|" in s or (s.startswith("*") and s.endswith("*")):
            return "table"
        if s.startswith("Warning") or s.startswith("File "):
            continue  # herd diagnostics captured with the log
        break
    return "unknown"


def read_expectations(path: str | Path, column: int = 0) -> dict[str, Expectation]:
    """Expectations per test name from a herd log or a verdict table (auto-detected).

    ``column`` selects the table column (0: the model's verdict in ``ppc.allowed``).
    """
    text = _read(path)
    fmt = detect_format(text)
    out: dict[str, Expectation] = {}
    if fmt == "log":
        for line, rec in log_blocks(text, str(path)):
            out[rec.name] = Expectation(rec.name, rec.verdict, rec, str(path), line)
        return out
    if fmt == "table":
        table = parse_verdict_table(text, str(path))
        for name, values in table.rows.items():
            if column >= len(values):
                raise InputError(
                    str(path), table.lines[name], 1, f"test {name} has no column {column + 1}"
                )
            out[name] = Expectation(name, values[column], None, str(path), table.lines[name])
        return out
    raise InputError(
        str(path), 1, 1, "not a herd7 log nor a verdict table (expected 'Test ...' or 'NAME | ...')"
    )


def _read(path: str | Path) -> str:
    return read_text(path, MAX_LOG_BYTES, "herd logs and verdict tables")
