"""Helpers for the hostile-input tests (no tests here): generated tests and a command run
in a child process, where an address-space limit or a hang cannot reach the suite."""

from __future__ import annotations

import subprocess
import sys


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
