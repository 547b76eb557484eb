"""Hostile inputs end quickly with one line: FIFOs and devices where a file is expected,
files over the size limits, tests with thousands of threads, tests over their time limit
(whatever phase they are in) and over ``--max-memory``.

Whatever could hang (a FIFO, ``/dev/zero``) or fill the memory runs in a child process
with a time limit, so that a regression fails the test instead of stopping the suite."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support.hostile import herdsman as _herdsman
from support.hostile import x86_test as _x86

from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.size import MAX_THREADS
from herdsman.herd_compat.cli.main import main
from herdsman.herd_compat.cli.run import run_tests
from herdsman.herd_compat.pipeline import limits as limits_module
from herdsman.herd_compat.pipeline import run_file as pipeline
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import (
    CpuTimeLimit,
    Limits,
    alarm_handler_kept,
    keep_alarm_handler,
)
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import MAX_SOURCE_BYTES, read_bytes

EXAMPLES = Path(__file__).resolve().parents[2] / "litmus" / "examples"
SB = str(EXAMPLES / "x86" / "SB.litmus")
ERROR_LINE = r"^\S+:\d+:\d+: (error|warning): "

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")


def _one_line(err: str, fragment: str) -> None:
    """``err`` is one diagnostic line containing ``fragment``, never a traceback."""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert fragment in lines[0], err


# ----------------------------------------------------------------------------- special files


@posix_only
def test_fifos_are_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "t.litmus"
    os.mkfifo(fifo)
    cfifo = tmp_path / "p.c"
    os.mkfifo(cfifo)
    for argv in (
        ["parse", str(fifo)],
        ["run", str(fifo)],
        ["herd7", f"@{fifo}"],  # an index file
        ["herd7", "-names", str(fifo), SB],
        ["validate", SB, "--expect", str(fifo), "--db", str(tmp_path / "db.sqlite")],
        ["verify", str(cfifo)],
        ["fences", str(cfifo), "-m", "tso"],
    ):
        r = _herdsman(*argv)
        assert r.returncode == 2, (argv, r.stderr)
        _one_line(r.stderr, "not a regular file (a FIFO)")
        assert r.stderr.startswith(str(fifo if "p.c" not in argv[1] else cfifo))
    header = tmp_path / "h.h"  # a header the C program includes
    os.mkfifo(header)
    prog = tmp_path / "inc.c"
    prog.write_text('#include "h.h"\nint main() { return 0; }\n')
    r = _herdsman("verify", str(prog))
    assert r.returncode == 2, r.stderr
    _one_line(r.stderr, f"{header}:0:0: error: not a regular file (a FIFO)")


@posix_only
def test_devices_are_refused(tmp_path: Path) -> None:
    for argv in (
        ["parse", "/dev/zero"],
        ["run", "/dev/zero"],
        ["herd7", "@/dev/zero"],
        ["validate", SB, "--expect", "/dev/zero", "--db", str(tmp_path / "db.sqlite")],
        ["verify", "/dev/zero"],
    ):
        r = _herdsman(*argv)
        assert r.returncode == 2, (argv, r.stderr)
        _one_line(r.stderr, "/dev/zero:0:0: error: not a regular file (a character device)")


def test_directories_are_refused(tmp_path: Path, capsys) -> None:
    assert main(["parse", str(tmp_path)]) == 2
    _one_line(capsys.readouterr().err, f"{tmp_path}:0:0: error: is a directory, expected a file")
    assert main(["verify", str(tmp_path)]) == 2
    _one_line(capsys.readouterr().err, "is a directory, expected a file")


# ----------------------------------------------------------------------------- sizes


def test_reads_stop_one_byte_past_the_limit(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_bytes(b"x" * 10)
    assert read_bytes(f, 10, "things") == b"x" * 10
    with pytest.raises(InputError) as e:
        read_bytes(f, 9, "things")
    assert e.value.header() == (
        f"{f}:0:0: error: file too large: herdsman reads things of at most 9 bytes"
    )


def test_a_2mb_test_is_refused(tmp_path: Path, capsys) -> None:
    big = tmp_path / "big.litmus"
    text = _x86(2)
    big.write_text(text + "(* " + "x" * (2 * MAX_SOURCE_BYTES) + " *)\n")
    for cmd in ("parse", "run", "herd7"):
        t0 = time.monotonic()
        assert main([cmd, str(big)]) == 2
        assert time.monotonic() - t0 < 30
        _one_line(
            capsys.readouterr().err,
            f"{big}:0:0: error: file too large: herdsman reads litmus tests and C programs of "
            "at most 1 MB",
        )


def test_3000_threads_are_refused_quickly(tmp_path: Path, capsys) -> None:
    wide = tmp_path / "wide.litmus"
    wide.write_text(_x86(3000, name="WIDE"))
    for engine in ("auto", "reference", "operational"):
        t0 = time.process_time()
        assert main(["run", "--engine", engine, str(wide)]) == 2
        assert time.process_time() - t0 < 10
        _one_line(
            capsys.readouterr().err,
            f"{wide}:0:0: error: unsupported: 3000 threads (herdsman explores programs of at "
            f"most {MAX_THREADS})",
        )


def test_too_many_events_are_refused(tmp_path: Path, capsys) -> None:
    long = tmp_path / "long.litmus"
    long.write_text(_x86(2, rows=2500, name="LONG"))  # 5000 events
    for engine in ("reference", "trust"):
        assert main(["run", "--engine", engine, str(long)]) == 2
        _one_line(capsys.readouterr().err, "unsupported: executions of up to 5001 events")


# ----------------------------------------------------------------------------- time


def test_cpu_time_limit_interrupts_any_code_and_does_not_leak() -> None:
    before = signal.getsignal(signal.SIGPROF)
    t0 = time.process_time()
    with pytest.raises(TimeLimitExceeded), CpuTimeLimit(0.2):
        while True:  # no deadline check anywhere
            pass
    assert time.process_time() - t0 < 5
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGPROF) == before
    with CpuTimeLimit(5):
        pass
    t1 = time.process_time()
    while time.process_time() - t1 < 0.3:  # no alarm left behind
        pass
    with CpuTimeLimit(None):
        assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_a_kept_alarm_handler_still_bounds_each_block_and_nothing_between() -> None:
    """A campaign worker keeps the alarm's handler installed between its tests: each block
    is still bounded, and no alarm leaks out of one (checked in a forked process, which
    keeps it for its life)."""
    assert _exit_in_fork(_kept_handler_blocks) == 0


def _exit_in_fork(target: Callable[[], None]) -> int | None:
    """The exit status of ``target`` run in a forked process (None: still running after
    60 s)."""
    child = multiprocessing.get_context("fork").Process(target=target)
    child.start()
    child.join(60)
    return child.exitcode


def _busy_block_stopped() -> bool:
    """Whether a busy loop with no deadline check in a 0.2 s block is stopped by it."""
    try:
        with CpuTimeLimit(0.2):
            while True:
                pass
    except TimeLimitExceeded:
        return True
    return False


def _kept_handler_blocks() -> None:
    keep_alarm_handler()
    for _ in range(2):
        t0 = time.process_time()
        if not _busy_block_stopped():
            os._exit(1)
        if time.process_time() - t0 > 5:
            os._exit(2)
        t1 = time.process_time()
        while time.process_time() - t1 < 0.3:  # no alarm left behind
            pass
        os.kill(os.getpid(), signal.SIGPROF)  # a late one between blocks: ignored
    os._exit(0)


def test_an_alarm_handler_kept_for_a_run_bounds_its_blocks_then_goes() -> None:
    """``herdsman herd7`` on a list of tests keeps the handler for the run: each block is
    still bounded, and the handler before the run is back after it (in a forked process:
    an earlier test of this one may have kept the handler for good, as a worker does)."""
    assert _exit_in_fork(_run_with_kept_handler) == 0


def _sentinel(signum: int, frame: object) -> None:
    pass


def _run_with_kept_handler() -> None:
    limits_module._handler_kept = False  # a process that has not kept it for good
    signal.signal(signal.SIGPROF, _sentinel)
    with alarm_handler_kept():
        if signal.getsignal(signal.SIGPROF) is _sentinel:
            os._exit(1)
        for _ in range(2):
            if not _busy_block_stopped():
                os._exit(2)
    if signal.getsignal(signal.SIGPROF) is not _sentinel:
        os._exit(3)
    os._exit(0)


def test_an_alarm_lost_where_python_cannot_raise_is_repeated() -> None:
    """An alarm raised inside a finaliser (as in a garbage collector's callback) is only
    printed by Python: the alarm fires again until the block ends."""
    lost: list[BaseException] = []
    t0 = time.process_time()

    class Swallows:
        def __del__(self) -> None:
            try:
                while time.process_time() - t0 < 10:  # the alarm lands here, and is lost
                    pass
            except TimeLimitExceeded as e:
                lost.append(e)

    with pytest.raises(TimeLimitExceeded), CpuTimeLimit(0.2):
        Swallows()  # its finaliser runs (and swallows) the first alarm
        while time.process_time() - t0 < 10:  # without a second alarm: no exception
            pass
    assert len(lost) == 1
    assert time.process_time() - t0 < 5


def test_the_time_limit_covers_reading_the_test(monkeypatch, tmp_path: Path) -> None:
    """A phase without deadline checks (here, a parser that never ends) is stopped too."""

    def stuck(path: str) -> object:
        while True:
            pass

    monkeypatch.setattr(pipeline, "read_input", stuck)
    cfg = RunConfig(limits=Limits(time_limit=0.3))
    t0 = time.process_time()
    rec = pipeline.run_file(SB, cfg, ModelCache(cfg))
    assert time.process_time() - t0 < 5
    assert isinstance(rec, pipeline.Failed) and rec.kind == "timeout"
    assert rec.message == f"{SB}:0:0: warning: time limit of 0.3 s exceeded, no result"


def test_the_time_limit_covers_loading_the_model(monkeypatch) -> None:
    """A model that cannot load within the time limit runs no test (one line, exit 3)."""

    def stuck(self: ModelCache, spec: str, extra: frozenset[str] = frozenset()) -> object:
        while True:
            pass

    monkeypatch.setattr(ModelCache, "get", stuck)
    out, err = io.StringIO(), io.StringIO()
    cfg = RunConfig(tests=[SB], model="tso", limits=Limits(time_limit=0.3))
    t0 = time.process_time()
    assert run_tests(cfg, out, err) == 3
    assert time.process_time() - t0 < 5
    assert out.getvalue() == ""
    _one_line(
        err.getvalue(),
        "tso:0:0: warning: loading the model took more than the time limit of 0.3 s, no test ran",
    )


def test_a_long_test_stops_at_its_time_limit(tmp_path: Path, capsys) -> None:
    slow = tmp_path / "slow.litmus"
    slow.write_text(_x86(64, rows=8, name="SLOW"))
    for argv in (["run", "--timeout", "1"], ["herd7", "-timeout", "1"]):
        t0 = time.process_time()
        assert main([*argv, str(slow), SB]) == 3  # herd: no block; every command: exit 3
        assert time.process_time() - t0 < 8
        got = capsys.readouterr()
        _one_line(got.err, f"{slow}:0:0: warning: time limit of 1 s exceeded, no result")
        assert got.out.startswith("Test SB Allowed\n")  # the next test still runs


# ----------------------------------------------------------------------------- memory


@posix_only
def test_memory_limit_is_one_result_and_the_run_goes_on(tmp_path: Path) -> None:
    hungry = tmp_path / "hungry.litmus"
    hungry.write_text(_x86(64, rows=8, name="HUNGRY"))
    line = f"{hungry}:0:0: warning: memory limit of 300 MB exceeded, no result"
    for argv in (
        ["run", "--max-memory", "300", "--engine", "reference"],
        ["herd7", "-max-memory", "300", "-engine", "reference"],
    ):
        r = _herdsman(*argv, str(hungry), SB, limit=120)
        assert r.returncode == 3, r.stderr
        _one_line(r.stderr, line)
        assert r.stdout.startswith("Test SB Allowed\n")
    r = _herdsman(
        "run", "--json", "--max-memory", "300", "--engine", "reference", str(hungry), limit=120
    )
    assert r.returncode == 3, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["status"], doc["test"], doc["error"]) == ("memory", "HUNGRY", line)


def test_memory_options_are_checked(capsys) -> None:
    assert main(["run", "--max-memory", "10", SB]) == 2
    _one_line(capsys.readouterr().err, "--max-memory must be at least 64 (MB)")
    assert main(["herd7", SB, "-max-memory"]) == 2
    _one_line(capsys.readouterr().err, "option -max-memory needs an argument")
    assert main(["herd7", SB, "-max-memory", "10"]) == 2
    _one_line(capsys.readouterr().err, "-max-memory must be at least 64 (MB)")
    assert main(["verify", "--memory", "10", "x.c"]) == 2  # verify's --memory, an alias
    _one_line(capsys.readouterr().err, "--max-memory must be at least 64 (MB)")
