"""What every hostile-input test checks of a command's answer, and how it runs commands.

The rule (README, "Limits"): a result, or clean lines — ``FILE:LINE:COL: error: ...`` (a
cat file's followed by its source line and a caret) or ``herdsman COMMAND: error: ...``,
warnings at a limit — with a documented exit status; never a traceback, an "internal
error", unprintable bytes, or a line longer than a screen's worth of the culprit.
Also generated tests, and commands run in a child process, where an address-space limit
or a hang cannot reach the suite.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
from dataclasses import dataclass

import pytest

from herdsman.herd_compat.cli.main import main

#: An error line: a file's position, a command's usage error, or a warning about a limit.
ERROR_LINE = re.compile(r"^(.+:\d+:\d+: (error|warning): |herdsman( [a-z0-9 ]+)?: error: ).+")

#: Exit statuses a command may give (0 ok, 1 differences or no fix, 2 bad input, 3 limit or
#: incomplete, 42 an assertion can fail).
STATUSES = {0, 1, 2, 3, 42}

#: The longest line a diagnostic may have (a path of 160 characters, a message of 400).
LINE_MAX = 640


@dataclass
class Answer:
    """A command's exit status and output."""

    rc: int
    out: str
    err: str


def check(a: Answer, what: str = "") -> None:
    """``a`` keeps the rule of the module docstring."""
    where = f"{what}: " if what else ""
    assert a.rc in STATUSES, f"{where}exit status {a.rc}: {a.err[:300]}"
    bad = ("Traceback", "internal error", "RecursionError", "Fatal Python error")
    assert not any(b in a.err for b in bad), f"{where}{a.err[:500]}"
    if a.rc == 2:  # a refusal says why: on stderr, or in a campaign's report (validate, diff)
        said = a.err.splitlines()[:1] + [x.strip() for x in a.out.splitlines()]
        assert any(ERROR_LINE.match(x) for x in said), f"{where}{a.err[:300]} {a.out[-300:]}"
    for line in a.err.splitlines():
        assert line.isprintable(), f"{where}{line[:200]!r}"
        assert len(line) <= LINE_MAX, f"{where}a line of {len(line)} characters: {line[:200]}"


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Answer:
    """``herdsman ARGV`` in this process."""
    rc = main(argv)
    out, err = capsys.readouterr()
    return Answer(rc, out, err)


def run_child(argv: list[str], limit: float = 120, memory_mb: int = 2048) -> Answer:
    """``herdsman ARGV`` in a child process of at most ``memory_mb`` MB of address space,
    killed after ``limit`` seconds (a hang fails the test, never the suite)."""

    def bound() -> None:
        mb = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (mb, mb))

    r = subprocess.run(
        [sys.executable, "-m", "herdsman.herd_compat.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=limit,
        check=False,
        preexec_fn=bound,
    )
    return Answer(r.returncode, r.stdout, r.stderr)


def one_error(a: Answer, fragment: str, what: str = "") -> str:
    """``a`` is a refusal (exit 2) with exactly one line, holding ``fragment``: that line."""
    check(a, what)
    assert a.rc == 2, f"{what}: exit {a.rc}, {a.err[:300]}"
    lines = a.err.splitlines()
    assert len(lines) == 1, f"{what}: {a.err[:500]}"
    assert fragment in lines[0], f"{what}: {lines[0]}"
    return lines[0]


def x86_test(n: int, rows: int = 1, name: str = "T") -> str:
    """An X86 test of ``n`` threads, each ``rows`` instructions (writes and reads of x)."""
    head = " | ".join(f"P{i}" for i in range(n)) + " ;\n"
    row = " | ".join("MOV [x],$1" if i % 2 == 0 else "MOV EAX,[x]" for i in range(n)) + " ;\n"
    return f"X86 {name}\n{{\n}}\n{head}{row * rows}exists (1:EAX=0)\n"


def herdsman(*argv: str, limit: float = 60) -> subprocess.CompletedProcess[str]:
    """``herdsman ARGV`` in a child process (killed after ``limit`` seconds)."""
    return subprocess.run(
        [sys.executable, "-m", "herdsman.herd_compat.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=limit,
        check=False,
    )
