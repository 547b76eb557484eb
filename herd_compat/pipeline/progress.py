"""Progress of a long run on stderr: executions so far, their rate, the estimated total.

:class:`TerminalProgress` is the :class:`engine.progress.ProgressReporter` of ``herdsman
run`` and ``herdsman herd7``.  On a terminal it draws one line (``\\r``, erased when the
test ends), from half a second into a test and at most four times a second; elsewhere
(``--progress`` on a pipe or a file) it writes a line a second and one at the end of each
test.  The estimated total comes from the explorer (:class:`engine.progress.TreeEstimate`:
it firms up as the search goes); the time left assumes the rate so far.

:class:`ProgressBar` is the progress of a run over many tests (``herdsman validate``,
``herdsman diff``): a rich progress bar on stderr with the tests done, the time so far and
the time left, its description updated as each test ends.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = ["ProgressBar", "TerminalProgress"]

#: On a terminal: first drawn this long into a test, then redrawn at most this often (s).
TTY_DELAY = 0.5
TTY_INTERVAL = 0.25
#: Elsewhere: a line this often (s), from the start.
LOG_INTERVAL = 1.0


class TerminalProgress:
    """Draws the progress of each test's run on ``out`` (see the module docstring)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.live = out.isatty()
        self.delay = TTY_DELAY if self.live else 0.0
        self.interval = TTY_INTERVAL if self.live else LOG_INTERVAL
        self.program = ""
        self.t0 = 0.0
        self.next = 0.0
        self.drawn = False
        self.executions = 0

    def start(self, program: str) -> None:
        self.program = program
        self.t0 = time.monotonic()
        self.next = self.t0 + self.delay
        self.drawn = False
        self.executions = 0

    def due(self) -> bool:
        return time.monotonic() >= self.next

    def update(self, executions: int, total: float | None) -> None:
        now = time.monotonic()
        self.next = now + self.interval
        self.executions = executions
        elapsed = now - self.t0
        text = f"{self.program}: {_count(executions)} executions"
        if elapsed > 0:
            text += f", {_count(round(executions / elapsed))}/s"
        if total is not None and executions and elapsed > 0:
            total = max(total, executions)
            left = (total - executions) * elapsed / executions
            text += f", ~{_count(round(total))} in all (~{_clock(left)} left)"
        text += f" [{_clock(elapsed)}]"
        self._draw(text)

    def finish(self) -> None:
        if self.live:
            if self.drawn:
                self.out.write("\r\x1b[K")
                self.out.flush()
            return
        elapsed = time.monotonic() - self.t0
        self.out.write(f"{self.program}: done in {_clock(elapsed)}\n")
        self.out.flush()

    def _draw(self, text: str) -> None:
        if self.live:
            width = shutil.get_terminal_size((80, 24)).columns
            self.out.write("\r\x1b[K" + text[: max(width - 1, 10)])
        else:
            self.out.write(text + "\n")
        self.out.flush()
        self.drawn = True


class ProgressBar:
    """A rich progress bar with ETA on stderr, titled ``title`` (nothing when disabled).
    It is drawn from the first finished test on: rich redraws it from a thread, and a
    campaign's workers, started before that, are then forked (see
    ``campaigns.workers.start_method_now``)."""

    def __init__(self, title: str, enabled: bool, total: int, done: int) -> None:
        self.p: Progress | None = None
        if not enabled:
            return
        # rich only when a bar is drawn (this module is imported by every command)
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.p = Progress(
            TextColumn(f"[bold]{title}[/bold] {{task.description}}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(file=sys.stderr),
            transient=False,
        )
        self.task = self.p.add_task("", total=total, completed=done)
        self.started = False

    def advance(self, description: str) -> None:
        """One more test done; ``description`` follows the title."""
        if self.p is not None:
            if not self.started:
                self.p.start()
                self.started = True
            self.p.update(self.task, advance=1, description=description)

    def stop(self) -> None:
        if self.p is not None:
            self.p.stop()


def _count(n: int) -> str:
    """A count for a human: exact up to 99,999, then three significant digits (k, M, G)."""
    if n < 100_000:
        return f"{n:,}"
    for unit, size in (("G", 10**9), ("M", 10**6), ("k", 10**3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(n)


def _clock(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on)."""
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
