"""What every fuzzer of ``bench/`` shares: one case run in-process under a guard (a hang),
its peak memory (a run over 2 GB), the judge of its exit status and stderr, and
the cases run in parallel worker processes (``--jobs``), the same for the same seed.

A case is run by :func:`run_case` in a worker: ``herdsman`` in-process with stdout and
stderr captured.  It *hangs* when it computes longer than ``--guard`` CPU seconds (far
beyond the ``--timeout`` the fuzzers pass, which counts CPU time too) or waits ten times
that on the wall clock; it is *over 2 GB* when the worker's peak resident size
crossed 2 GB during it (the peak of a process only grows, so the case that crossed is the
culprit).  :func:`judge` names what a result breaks: a traceback or an "internal error",
an exit status the README does not document for that command, a status 2 without one
clean error line (an error may show its source line and a caret under the culprit), a
line on stderr longer than :data:`LINE_MAX` or not printable.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing
import multiprocessing.queues
import queue as queue_module
import random
import re
import resource
import signal
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Generic, TypeVar

from herdsman.herd_compat.cli.main import main as herdsman_main

#: A run whose process's peak resident size crosses this is over the documented bound.
MEMORY_BOUND_MB = 2048

#: A case hangs past its CPU guard, or past this many times the guard on the wall clock.
REAL_FACTOR = 10

#: The longest line a diagnostic may have (README: a screen line of the culprit).
LINE_MAX = 640

#: Exit statuses the README documents, per command (``herd_compat.pipeline.status``).
DOCUMENTED = {
    "parse": (0, 2, 3),
    "cat": (0, 2, 3),
    "run": (0, 2, 3),
    "herd7": (0, 2, 3),
    "validate": (0, 1, 2, 3),
    "diff": (0, 1, 2, 3),
    "verify": (0, 2, 3, 42),
    "fences": (0, 1, 2, 3),
    "explain": (0, 2, 3),
    "serve": (0, 2),
}

#: Commands that report bad input test by test in their report (stdout), not on stderr.
CAMPAIGNS = ("validate", "diff")

#: Progress on stderr with the error lines (``--progress``): a campaign's bar, or a line
#: of a test's or program's run off a terminal (``herd_compat.pipeline.progress``).
PROGRESS = re.compile(
    r"^(validate|diff) .*━"
    r"|^(?!.*:\d+:\d+: )\S.*: ([\d,.]+[kMG]? executions, .*\[[\d:]+\]|done in [\d:]+)$"
)

#: A clean error line: bad input (``FILE:LINE:COL: error:``) or a bad command line.
ERROR_LINE = re.compile(r"^(\S.*:\d+:\d+: (error|warning): |herdsman [\w ]+: (error|warning): )")


class Hang(BaseException):
    """Raised in a case that ran past its guard (a BaseException, so that no
    handler of herdsman's turns it into an answer)."""


@dataclass(frozen=True)
class Result:
    """One case's run: exit status (None: hung), stdout, stderr, seconds, peak MB."""

    rc: int | None
    out: str
    err: str
    seconds: float
    peak_mb: float
    crossed: bool


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang()


def run_case(argv: list[str], guard: float) -> Result:
    """Run ``herdsman ARGV`` in this process, guarded by ``guard`` seconds of this
    process's user CPU time (herdsman's ``--timeout`` counts CPU time: on a loaded machine
    the wall clock says nothing; ``SIGVTALRM``, as herdsman's own limit uses ``SIGPROF``)
    and by ``REAL_FACTOR * guard`` seconds of wall clock (a run blocked without
    computing)."""
    before = _peak_mb()
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    previous = {sig: signal.signal(sig, _alarm) for sig in (signal.SIGVTALRM, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_VIRTUAL, guard)
    signal.setitimer(signal.ITIMER_REAL, guard * REAL_FACTOR)
    rc: int | None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = herdsman_main(argv)
    except Hang:
        rc = None
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    peak = _peak_mb()
    crossed = before < MEMORY_BOUND_MB <= peak
    return Result(rc, out.getvalue(), err.getvalue(), time.monotonic() - start, peak, crossed)


def _excerpt(lines: list[str], k: int) -> bool:
    """Whether ``lines[k]`` is part of an error's excerpt: a caret line, or the source
    line just before one."""
    caret = re.compile(r"^\s*\^+\s*$")
    return bool(caret.match(lines[k]) or (k + 1 < len(lines) and caret.match(lines[k + 1])))


def judge(command: str, result: Result, valid: tuple[int, ...] | None = None) -> str | None:
    """Why a run breaks herdsman's promise, if it does (``valid``: the statuses this case
    may end with, by default every status documented for ``command``)."""
    if result.rc is None:
        return "hang"
    if result.crossed:
        return f"over {MEMORY_BOUND_MB} MB ({result.peak_mb:.0f} MB)"
    text = result.out + result.err
    if "Traceback" in text or "internal error" in text:
        return "internal error"
    if result.rc not in (valid or DOCUMENTED[command]):
        return f"exit status {result.rc}"
    lines = [x for x in result.err.splitlines() if x.strip() and not PROGRESS.match(x)]
    for line in lines:
        if not line.isprintable():
            return f"an unprintable line on stderr: {line[:80]!r}"
        if len(line) > LINE_MAX:
            return f"a line of {len(line)} characters on stderr"
    if result.rc == 2:
        if command in CAMPAIGNS:  # a campaign's refusals are in its report (and notes)
            said = lines + [x.strip() for x in result.out.splitlines()]
            return None if any(ERROR_LINE.match(x) for x in said) else "no error said"
        if not lines:
            return "exit status 2 without a message"
        if not ERROR_LINE.match(lines[0]) or not all(
            ERROR_LINE.match(line) or _excerpt(lines, k) for k, line in enumerate(lines)
        ):
            return "a message not in FILE:LINE:COL: error: form"
    return None


def mutate(src: str, rnd: random.Random, tokens: tuple[str, ...]) -> str:
    """One to three mutations of ``src``: delete a few characters, insert one of
    ``tokens``, duplicate a line, truncate, replace a word by another of the text."""
    for _ in range(rnd.randint(1, 3)):
        k = rnd.random()
        p = rnd.randrange(len(src) + 1)
        if k < 0.3:
            src = src[:p] + src[p + rnd.randint(1, 8) :]
        elif k < 0.6:
            src = src[:p] + rnd.choice(tokens) + src[p:]
        elif k < 0.75:
            lines = src.split("\n")
            lines.insert(rnd.randrange(len(lines)), rnd.choice(lines))
            src = "\n".join(lines)
        elif k < 0.85:
            src = src[:p]
        else:
            words = re.findall(r"\w+", src)
            if words:
                src = src.replace(rnd.choice(words), rnd.choice(words), 1)
    return src


def _worker(
    work: Callable[[int], tuple[str, str | None]],
    mine: range,
    queue: multiprocessing.queues.Queue[tuple[int, str, str | None]],
) -> None:
    for i in mine:
        queue.put((i, *work(i)))


def parallel(
    work: Callable[[int], tuple[str, str | None]], count: int, jobs: int
) -> Iterator[tuple[int, str, str | None]]:
    """``work(i)`` for ``i < count``, ``jobs`` processes at a time, as they end: (i, label,
    problem).  The workers are forked (they run the caller's module as loaded) and not
    daemonic, so that a case may start processes of its own (campaigns do)."""
    if jobs <= 1:
        for i in range(count):
            yield (i, *work(i))
        return
    ctx = multiprocessing.get_context("fork")
    queue: multiprocessing.queues.Queue[tuple[int, str, str | None]] = ctx.Queue()
    workers = [
        ctx.Process(target=_worker, args=(work, range(k, count, jobs), queue), daemon=False)
        for k in range(jobs)
    ]
    for w in workers:
        w.start()
    seen: set[int] = set()
    while len(seen) < count:
        try:
            i, label, why = queue.get(timeout=5)
        except queue_module.Empty:
            if any(w.is_alive() for w in workers):
                continue
            for i in sorted(set(range(count)) - seen):  # a worker died: its cases crashed
                yield i, "crashed", "the worker process died"
            break
        seen.add(i)
        yield i, label, why
    for w in workers:
        w.join()


def tally(
    results: Iterable[tuple[int, str, str | None]], say: Callable[[str], None]
) -> tuple[dict[str, int], int]:
    """Count labels and failures, printing each failure."""
    counts: dict[str, int] = {}
    failed = 0
    for i, label, why in results:
        counts[label] = counts.get(label, 0) + 1
        if why is not None:
            failed += 1
            say(f"case {i}: {why}")
    return counts, failed


def arguments(doc: str | None, keep: str) -> argparse.ArgumentParser:
    """The command line every fuzzer has (``keep``: the default folder of failing cases,
    under the temporary directory)."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (1: in this one)")
    ap.add_argument("--guard", type=float, default=90.0, help="CPU seconds: past them, a hang")
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / keep)
    return ap


C = TypeVar("C")


class Work(Generic[C]):
    """Case ``i`` of a fuzzer's cases, run in a worker: what :meth:`run` says of it (a
    label to count, a problem or None)."""

    def __init__(self, cases: list[C], args: argparse.Namespace) -> None:
        self.cases = cases
        self.keep: Path = args.keep.resolve()
        self.seed: int = args.seed
        self.guard: float = args.guard

    def __call__(self, i: int) -> tuple[str, str | None]:
        return self.run(i, self.cases[i])

    def run(self, i: int, case: C) -> tuple[str, str | None]:
        raise NotImplementedError


def run_all(work: Work[C], args: argparse.Namespace) -> tuple[str, int]:
    """Run every case (printing each failure): the counts of the labels, shown, and the
    number of failures."""
    args.keep.mkdir(parents=True, exist_ok=True)
    counts, failed = tally(parallel(work, len(work.cases), args.jobs), print)
    return ", ".join(f"{n} {label}" for label, n in sorted(counts.items())), failed
