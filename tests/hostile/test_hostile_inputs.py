"""Every command against every kind of hostile input (issue 13): the answer is a result or
clean error lines — ``FILE:LINE:COL: error: ...`` (a cat file's followed by its source line
and a caret) or ``herdsman COMMAND: error: ...`` — with a documented exit status, never a
traceback, an "internal error", a hang on a special file, or unprintable bytes echoed.

The inputs are made in a temporary directory: empty, blank, binary, not UTF-8, NUL bytes,
a 200 kB line, deep nesting, a FIFO, a device, a directory, a missing file, the wrong kind
of file; each goes where each command takes a file (a test, a program, a model, an index,
an expectation log, a configuration file).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from herdsman.herd_compat.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "litmus" / "examples"
SB = str(EXAMPLES / "x86" / "SB.litmus")
PROGRAM = str(EXAMPLES / "programs" / "counter.c")

#: An error line: a file's position, a command's usage error, or a warning about a limit.
ERROR_LINE = re.compile(r"^(.+:\d+:\d+: (error|warning): |herdsman( [a-z0-9 ]+)?: error: ).+")

#: Exit statuses a command may give (0 ok, 1 differences or no fix, 2 bad input, 3 limit or
#: incomplete, 42 an assertion can fail).
STATUSES = {0, 1, 2, 3, 42}


def _inputs(d: Path) -> dict[str, str]:
    """Hostile files by name -> their path."""
    files: dict[str, bytes] = {
        "empty": b"",
        "blank": b"\n\n   \n",
        "binary": bytes(range(256)) * 4,
        "latin1": "X86 T\n{ x=0; }\n P0 ;\n MOV [x],$1 ;\nexists (x=1) (* caf\xe9 *)\n".encode(
            "latin-1"
        ),
        "nul": b"X86 T\n{\x00}\n P0 ;\n MOV [x],$1 ;\nexists (x=1)\n",
        "long_line": b"X86 T\n{ " + b"x=0; " * 40_000 + b"}\n",
        "deep": b"X86 T\n{}\n P0 ;\n MOV [x],$1 ;\nexists " + b"(" * 5000 + b"x=1" + b")" * 5000,
        "truncated": b"X86 T\n{\n}\n P0 | P1 ;\n MOV [x],$1 |",
        "c_junk": b"int main() { return (((((((( ; }\n",
        "cat_junk": b'"m"\nlet x = (((\n',
        "log_junk": b"Test\nStates x\n",
    }
    out = {}
    for name, data in files.items():
        p = d / name
        p.write_bytes(data)
        out[name] = str(p)
    fifo = d / "fifo"
    os.mkfifo(fifo)
    out["fifo"] = str(fifo)
    out["device"] = "/dev/zero"
    out["directory"] = str(d)
    out["missing"] = str(d / "missing.litmus")
    return out


#: Where each command takes a file: argv with the hostile file in place of {}.
COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "parse": lambda f: ["parse", f],
    "run test": lambda f: ["run", "--timeout", "20", f],
    "run model": lambda f: ["run", "--model", f, SB],
    "herd7 test": lambda f: ["herd7", "-timeout", "20", f],
    "herd7 index": lambda f: ["herd7", f"@{f}"],
    "herd7 conf": lambda f: ["herd7", "-conf", f, SB],
    "herd7 conds": lambda f: ["herd7", "-conds", f, SB],
    "herd7 names": lambda f: ["herd7", "-names", f, SB],
    "cat check": lambda f: ["cat", "check", f],
    "verify": lambda f: ["verify", "--timeout", "20", f],
    "verify model": lambda f: ["verify", "--model", f, PROGRAM],
    "fences": lambda f: ["fences", "--model", "tso", "--timeout", "20", f],
    "explain test": lambda f: ["explain", "sc", "--timeout", "20", f],
    "explain model": lambda f: ["explain", f, SB],
    "diff test": lambda f: ["diff", "sc", "tso", "--timeout", "20", f],
    "diff model": lambda f: ["diff", f, "sc", SB],
    "validate expect": lambda f: ["validate", SB, "--expect", f],
}


def _check(rc: int, out: str, err: str) -> None:
    assert rc in STATUSES, (rc, err[:300])
    assert "Traceback" not in err and "internal error" not in err, err[:500]
    if rc == 2:  # a refusal says why: on stderr, or in a campaign's report (validate, diff)
        said = err.splitlines()[:1] + [x.strip() for x in out.splitlines()]
        assert any(ERROR_LINE.match(x) for x in said), (err[:300], out[-300:])
    for line in err.splitlines():
        assert line.isprintable(), repr(line[:200])
        assert len(line) <= 2000, line[:200]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _inputs(tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_survives_every_input(
    command: str,
    hostile: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # campaign journals go to ./.herdsman
    for name, path in sorted(hostile.items()):
        rc = main(COMMANDS[command](path))
        out, err = capsys.readouterr()
        try:
            _check(rc, out, err)
        except AssertionError as e:
            raise AssertionError(f"{command} on {name}: {e}") from None


BAD_COMMAND_LINES = [
    ["frobnicate"],
    ["run"],
    ["run", "--engine", "fast", SB],
    ["run", "--model", "sc", "--model", "tso", SB],
    ["run", "--variant", "nonsense", SB],
    ["run", "--timeout", "ten", SB],
    ["run", "--max-memory", "1", SB],
    ["herd7", "-frobnicate", SB],
    ["herd7", "-model"],
    ["herd7", "-variant", "nonsense", SB],
    ["herd7", "-speedcheck", "maybe", SB],
    ["herd7", "-graph", "round", SB],
    ["verify"],
    ["verify", "--unroll", "-1", PROGRAM],
    ["verify", "--max-bound", "2", "--model", "power", PROGRAM],
    ["fences", "--model", "arm", PROGRAM],
    ["validate", SB],
    ["validate", SB, "--expect", SB, "--jobs", "0"],
    ["validate", SB, "--expect", SB, "--dask-local", "0"],
    ["validate", SB, "--expect", SB, "--jobs", "2", "--dask-local", "2"],
    ["explain", "sc"],
    ["explain", "sc", SB, "--state", "0:EAX="],
    ["explain", "sc", SB, "--variant", "nonsense"],
    ["diff", "sc"],
    ["diff", "sc", "tso", SB, "--jobs", "0"],
    ["cat", "frobnicate"],
]


@pytest.mark.parametrize("argv", BAD_COMMAND_LINES, ids=" ".join)
def test_bad_command_lines(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (rc, err)
    _check(rc, out, err)
