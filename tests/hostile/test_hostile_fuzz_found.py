"""What the fuzzers of ``bench/`` found (issue 29's fresh runs), swept over every command
that takes the input: model names no file system can hold (a name longer than a path's
component), and an empty file name.  Each is one clean line and exit status 2."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support.hostile import check, one_error, run

EXAMPLES = Path(__file__).resolve().parents[2] / "litmus" / "examples"
SB = str(EXAMPLES / "x86" / "SB.litmus")
PROGRAM = str(EXAMPLES / "programs" / "counter.c")

#: Model names longer than a file name may be (255 bytes): ``stat`` fails on them with
#: ENAMETOOLONG, which pathlib's tests raise where os.path's answer "no such file".
LONG_NAMES = ("x" * 256, "9" * 300, "x" * 300 + ".cat", "d/" + "x" * 4000, "x" * 20000)


def _model_lines(name: str, db: str) -> list[list[str]]:
    """Every command line that takes ``name`` as a model (campaigns' journal: ``db``)."""
    return [
        ["run", "--model", name, SB],
        ["herd7", "-model", name, SB],
        ["cat", "check", name],
        ["verify", "--model", name, PROGRAM],
        ["fences", "--model", name, PROGRAM],
        ["explain", name, SB],
        ["diff", "--db", db, name, "sc", SB],
        ["diff", "--db", db, "sc", name, SB],
        ["validate", "--db", db, "--model", name, "--expect", SB, SB],
    ]


@pytest.mark.parametrize("name", LONG_NAMES, ids=lambda n: f"{len(n)}-chars")
def test_a_model_name_too_long_for_a_path_is_refused_cleanly(capsys, tmp_path, name) -> None:
    for argv in _model_lines(name, str(tmp_path / "journal.sqlite")):
        a = run(capsys, argv)
        check(a, " ".join(argv)[:80])
        assert a.rc == 2, f"{argv[:2]}: exit {a.rc}: {a.err[:300]}"


@pytest.mark.parametrize(
    "argv",
    [
        ["run", ""],
        ["herd7", ""],
        ["parse", ""],
        ["verify", ""],
        ["fences", "--model", "tso", ""],
        ["explain", "sc", ""],
        ["diff", "", "sc", SB],
    ],
    ids=lambda a: a[0] + ("-model" if a[1] == "" and a[0] == "diff" else ""),
)
def test_an_empty_file_name_keeps_the_error_form(capsys, argv) -> None:
    line = one_error(run(capsys, argv), "", " ".join(argv))
    assert line.startswith("'':0:0: error: "), line


JOIN = """#include <pthread.h>
int x;
void *t(void *a) { x = 1; return 0; }
int main() { pthread_t t1; pthread_create(&t1, 0, t, 0); pthread_join(%s, 0); return 0; }
"""


@pytest.mark.parametrize("thread", ["pthread_join", "t", "(pthread_t)&x", "(pthread_t)&t1"])
@pytest.mark.parametrize("command", ["verify", "fences"])
def test_joining_an_address_is_refused_cleanly(capsys, tmp_path, thread, command) -> None:
    f = tmp_path / "join.c"
    f.write_text(JOIN % thread)
    argv = [command, str(f)] + (["--model", "tso"] if command == "fences" else [])
    a = run(capsys, argv)
    check(a, thread)
    assert a.rc in (0, 2), a.err


def test_a_memory_bound_below_the_process_size_starts_no_thread_under_it() -> None:
    """A command run in a process already larger than its ``--max-memory`` (a caller's
    process, the fuzzers' workers): the time limit's watchdog thread is started before the
    bound, so that its stack need not fit under it (it gave "can't start new thread", or a
    hang when the thread half-started)."""
    code = (
        "from herdsman.herd_compat.cli.main import main\n"
        "big = bytearray(700 << 20)\n"
        f"print('rc', main(['run', '--max-memory', '512', '--model', 'tso', {SB!r}]))\n"
    )
    # glibc's own arenas, as a user's process has them (the test workers limit them)
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert "rc 3" in r.stdout, r.stderr[-500:]
    assert "internal error" not in r.stderr and "thread" not in r.stderr, r.stderr[-500:]
    assert "memory limit of 512 MB" in r.stderr


def test_a_bound_hit_by_one_command_is_not_the_next_ones() -> None:
    """An error met at a memory bound is the bound's (exit 3), but only in the command
    that met it: a bug in the next command of the same process is an internal error."""
    code = (
        "from herdsman.herd_compat.cli.main import guarded\n"
        "from herdsman.herd_compat.pipeline.limits import MemoryLimit\n"
        "big = bytearray(700 << 20)\n"
        "def at_bound():\n"
        "    with MemoryLimit(512):\n"
        "        raise RuntimeError('lost at the bound')\n"
        "def bug():\n"
        "    raise RuntimeError('a bug')\n"
        "print('rc', guarded('first', at_bound))\n"
        "del big\n"
        "print('rc', guarded('second', bug))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert r.stdout.split("\n")[:2] == ["rc 3", "rc 2"], (r.stdout, r.stderr[-500:])
    assert "first: error: memory limit of 512 MB exceeded" in r.stderr, r.stderr[-500:]
    assert "second: error: internal error (RuntimeError: a bug)" in r.stderr, r.stderr[-500:]


def test_validate_describes_every_error_whatever_the_cap(capsys, tmp_path) -> None:
    """``validate --show-mismatches 1`` exits 2 on a test the model cannot take: its error
    is in the report even when a mismatch before it took the one place."""
    ppc = str(EXAMPLES / "ppc" / "2+2W.litmus")
    argv = ["validate", "--db", str(tmp_path / "j.sqlite"), "--model", "tso"]
    table = tmp_path / "expected.txt"
    table.write_text("SB | Never\n2+2W | Never\n")  # SB is a mismatch under tso
    a = run(capsys, [*argv, "--show-mismatches", "0", "--expect", str(table), SB, ppc])
    check(a, "validate")
    assert a.rc == 2
    assert "2+2W" in a.out, a.out


#: A program whose parse runs on :func:`~herdsman.litmus.base.deep.run_deep`'s thread, per
#: command: a C litmus test (``run``, ``explain``) or a C program (``verify``, ``fences``).
_DEEP_INPUTS = {
    "run": ["--model", "sc", str(EXAMPLES / "c" / "MP+rel+acq.litmus")],
    "explain": ["sc", str(EXAMPLES / "c" / "MP+rel+acq.litmus")],
    "verify": [PROGRAM],
    "fences": ["--model", "tso", PROGRAM],
}
_ROOMS = (96, 64, 40, 8, 0, -100)


@pytest.mark.parametrize("command", sorted(_DEEP_INPUTS))
def test_a_deep_thread_under_a_full_address_space_does_not_hang(command) -> None:
    """The command-line fuzzer's hang: in a process whose address space is near or past
    ``--max-memory``, the C parser's big-stack thread started on the stack glibc kept from
    a finished one, then died allocating its first frame, and ``Thread.start`` waited for
    ever.  Swept over the room left below the bound (MB; negative: already past it)."""
    argv = [command, "--max-memory", "512", *_DEEP_INPUTS[command]]
    code = (
        "import resource\n"
        "from herdsman.herd_compat.cli.main import main\n"
        "from herdsman.litmus.base.deep import run_deep\n"
        "run_deep('warm', lambda: 0)\n"  # a finished thread's stack, kept for the next
        "def vm():\n"
        "    pages = int(open('/proc/self/statm').read().split()[0])\n"
        "    return pages * resource.getpagesize() >> 20\n"
        f"for room in {_ROOMS!r}:\n"
        "    ballast = bytearray(max(0, 512 - room - vm()) << 20)\n"
        f"    print('rc', main({argv!r}), flush=True)\n"
        "    del ballast\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    rcs = [line.split()[1] for line in r.stdout.splitlines() if line.startswith("rc ")]
    assert len(rcs) == len(_ROOMS) and set(rcs) <= {"0", "2", "3"}, (rcs, r.stderr[-500:])
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr[-500:]


@pytest.mark.parametrize(
    "where",
    [
        "in-use",
        "203.0.113.9",  # an address not of this machine (TEST-NET-3)
        "no.such.host.invalid",
        "x" * 64,  # a label longer than names may have
        "x" * 300,
        "x" * 20_000,
        "",
    ],
    ids=lambda w: w if len(w) < 30 else f"{len(w)}-chars",
)
def test_serve_refuses_an_address_it_cannot_listen_on(capsys, where) -> None:
    """``serve`` on a port in use, or an address it cannot have, exited 3 with the web
    server's own log line (a status the README gives no command for that): now one
    ``herdsman serve: error:`` line and exit 2, as every bad command line."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        host = "127.0.0.1" if where == "in-use" else where
        line = one_error(run(capsys, ["serve", "--host", host, "--port", str(port)]), "", host)
    assert line.startswith("herdsman serve: error: "), line
