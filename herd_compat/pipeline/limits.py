"""Resource limits of a run: how much CPU time and memory a unit of work may take
(:class:`Limits`, the one type every command's configuration holds them in), the
documented defaults, a CPU-time alarm over one unit's whole pipeline, a bound on the
process's memory, and the one warning line that reports an exceeded limit.

The engines check their own deadline (:func:`engine.errors.check_deadline`) in their
search loops, but a test spends time elsewhere too: parsing, loading a model (a ``let
rec`` over values is computed then), building the skeleton and its relations, preparing
the model for a skeleton, one long check.  :class:`CpuTimeLimit` covers all of it: when
the process's CPU time (``time.process_time()``) reaches the limit, a watchdog thread
sends ``SIGPROF`` to the main thread, whose handler raises
:class:`~engine.errors.TimeLimitExceeded` wherever the test is.  (Not an ``ITIMER_PROF``
timer: while a process-wide CPU timer is armed, Linux reads the process's CPU clock from
a sample taken at scheduler ticks, and every CPU time measured — herd's ``Time``, the
engines' statistics — would come out short.)  The alarm is cancelled and its handler
restored when the block ends, so nothing leaks into the next test.  Until then it fires
again every :data:`RETRY_AFTER` CPU seconds: an exception raised where Python cannot pass
it on (in a garbage collector's callback, a weak reference's, a finaliser) is only
printed, and one such alarm must not leave the block unbounded.  Without a main
thread to take the signal (a test run from another thread, as on a cluster's workers) the
engines' own checks remain, and the cat evaluator's (``cat.api.cpu_deadline``: a ``let
rec`` iterated at load time).

:class:`MemoryLimit` lowers the soft limit of the process's address space
(``RLIMIT_AS``) for a block: an allocation beyond it raises :class:`MemoryError`, which
the pipeline turns into the test's result.  The soft limit is restored afterwards (the
hard one is never touched).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from types import FrameType, TracebackType

from herdsman.cat.api import DeadlinePassed, cpu_deadline
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.litmus.base.deep import address_space_room
from herdsman.litmus.base.errors import InputError

#: The smallest memory limit accepted, in MB (the interpreter and herdsman need ~40 MB).
MIN_MEMORY_MB = 64
#: The largest memory limit accepted, in MB (16 TB: beyond any machine, within RLIMIT_AS).
MAX_MEMORY_MB = 1 << 24
#: The default memory bound of every command that evaluates a model, in MB of address
#: space: the command's process, or each of a campaign's local workers.
DEFAULT_MEMORY_MB = 2048
#: The largest time limit accepted, in CPU seconds (about 11.6 days).
MAX_TIME_LIMIT = 1_000_000.0
#: The default time limit of each test, program or analysis of the commands that run
#: them, in CPU seconds.
DEFAULT_TIME_LIMIT = 3600.0
#: The largest loop bound accepted (``--unroll``, herd7's ``-unroll``).
MAX_UNROLL = 1_000_000
#: The default time limit of the commands that read one file or model at a time (``cat
#: check``, whose whole work is evaluating models; ``parse``): CPU seconds per file.
READ_TIME_LIMIT = 60.0


@dataclass(frozen=True)
class Limits:
    """How much a unit of work (a test, a program, a model, an analysis) may take:
    ``time_limit`` CPU seconds and ``memory_limit`` MB of address space (None: no bound).
    The command line's ``--timeout`` and ``--max-memory``; what the unit is, each
    command says (README, "Limits and exit statuses")."""

    time_limit: float | None = None
    memory_limit: int | None = None


#: The default limits of the commands that run tests, programs or analyses (each test,
#: program or analysis; each campaign worker's memory), and of those that read one file
#: or model at a time (``parse``, ``cat check``).
RUN_LIMITS = Limits(DEFAULT_TIME_LIMIT, DEFAULT_MEMORY_MB)
READ_LIMITS = Limits(READ_TIME_LIMIT, DEFAULT_MEMORY_MB)


def grace(time_limit: float) -> float:
    """The extra time a backstop (the alarm over a search that checks its own limit and
    reports how far it got, or a campaign's kill of a worker) gives beyond
    ``time_limit``."""
    return min(5.0, max(0.5, 0.2 * time_limit))


def time_line(path: str, limits: Limits, missing: str = "no result") -> str:
    """The one line reporting that ``path``'s unit of work ran out of time."""
    limit = f" of {limits.time_limit:g} s" if limits.time_limit is not None else ""
    return f"{path}:0:0: warning: time limit{limit} exceeded, {missing}"


def memory_line(path: str, limits: Limits, missing: str = "no result", bound: str = "") -> str:
    """The one line reporting that ``path``'s unit of work ran out of memory, or would
    have, by one of herdsman's bounds (``bound`` says which)."""
    if bound:
        return f"{path}:0:0: warning: {bound} (herdsman's bound), {missing}"
    if limits.memory_limit is None:
        return f"{path}:0:0: warning: out of memory, {missing}"
    return f"{path}:0:0: warning: memory limit of {limits.memory_limit} MB exceeded, {missing}"


#: A signal's disposition, as ``signal.signal`` takes and returns it.
Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None

#: The process time at which the armed alarm raises, None when no alarm is armed: a late
#: signal (one already on its way when the alarm was cancelled) is then ignored.
_due: float | None = None

#: CPU seconds between an alarm and the next while its block has not ended (the first
#: may have been raised where it is lost; the block's own handling of it takes less).
RETRY_AFTER = 1.0


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    if _due is None:
        return
    raise TimeLimitExceeded()


#: Whether the alarm's handler stays installed between blocks (:func:`keep_alarm_handler`).
_handler_kept = False


def keep_alarm_handler() -> None:
    """Leave the alarm's ``SIGPROF`` handler installed from now on, instead of installing
    and restoring it around each :class:`CpuTimeLimit` block: for a process that only runs
    tests, one after the other (a campaign's worker; two system calls fewer a test).
    Outside a block the handler ignores the signal.  From the main thread only."""
    global _handler_kept
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGPROF, _on_alarm)
        _handler_kept = True


@contextmanager
def alarm_handler_kept() -> Iterator[None]:
    """:func:`keep_alarm_handler` for the block (a process running a list of tests, as
    ``herdsman herd7`` does), the previous handler back after it."""
    global _handler_kept
    if _handler_kept or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGPROF, _on_alarm)
    _handler_kept = True
    try:
        yield
    finally:
        _handler_kept = False
        if previous is not None:  # None: not set from Python
            signal.signal(signal.SIGPROF, previous)


class _Watchdog:
    """A thread that sends ``SIGPROF`` to the main thread once the process's CPU time
    reaches ``due`` (one per process, started when first needed)."""

    #: The longest the watchdog sleeps between looks at the clock, in seconds.
    LOOK_EVERY = 0.05

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.due: float | None = None
        #: when (``time.monotonic()``) the watchdog looks at the clock next; None: not
        #: before it is woken
        self.looks_at: float | None = None
        self.wake = threading.Condition()
        self.thread = threading.Thread(target=self._watch, name="herdsman-cpu-limit", daemon=True)
        self.thread.start()

    def arm(self, due: float) -> None:
        """Signal once the process's CPU time reaches ``due``.  The watchdog is woken only
        when its next look would come too late: not for each test of a campaign (each
        wake-up costs a switch of threads, ~0.05 ms of CPU time)."""
        with self.wake:
            self.due = due
            looks_at = self.looks_at
            if looks_at is None or due - time.process_time() < looks_at - time.monotonic():
                self.wake.notify()

    def disarm(self) -> None:
        """No signal is sent once this returns."""
        with self.wake:
            self.due = None

    def _watch(self) -> None:
        main = threading.main_thread().ident
        assert main is not None
        with self.wake:
            while True:
                if self.due is None:
                    self.looks_at = None
                    self.wake.wait()
                    continue
                left = self.due - time.process_time()
                if left <= 0:  # again later, if the block has not ended by then
                    self.due = time.process_time() + RETRY_AFTER
                    signal.pthread_kill(main, signal.SIGPROF)
                    continue
                # the process's CPU time runs no faster than this clock while its main
                # thread is its one busy thread: the due time comes after this look
                pause = min(max(left, 0.001), self.LOOK_EVERY)
                self.looks_at = time.monotonic() + pause
                self.wake.wait(pause)


_watchdog: _Watchdog | None = None


def _the_watchdog() -> _Watchdog:
    """This process's watchdog (a forked child starts its own)."""
    global _watchdog
    if _watchdog is None or _watchdog.pid != os.getpid():
        _watchdog = _Watchdog()
    return _watchdog


def threads_a_fork_would_cut() -> int:
    """How many threads of this process, besides the calling one, a fork would leave
    behind in the middle of their work: all but the watchdog (a forked child has none of
    the parent's threads, and starts its own watchdog, never touching the parent's)."""
    me = threading.current_thread()
    mine = _watchdog.thread if _watchdog is not None and _watchdog.pid == os.getpid() else None
    return sum(1 for t in threading.enumerate() if t is not me and t is not mine)


class CpuTimeLimit:
    """``with CpuTimeLimit(seconds):`` raises :class:`TimeLimitExceeded` inside the block
    once it has used ``seconds`` of CPU time (no limit: None).  One at a time: the
    process has one watchdog."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._previous: Handler = None
        self._armed = False
        self._installed = False
        self._cooperative: AbstractContextManager[None] | None = None

    def __enter__(self) -> CpuTimeLimit:
        global _due
        if self.seconds is None:
            return self
        # the cat evaluator's own check, which works in any thread (the alarm does not)
        self._cooperative = cpu_deadline(time.process_time() + self.seconds)
        self._cooperative.__enter__()
        if threading.current_thread() is not threading.main_thread():
            return self
        if not _handler_kept:
            self._previous = signal.signal(signal.SIGPROF, _on_alarm)
            self._installed = True
        self._armed = True
        _due = time.process_time() + self.seconds
        _the_watchdog().arm(_due)  # a limit of 0 s fires at once
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._cooperative is not None:
            self._cooperative.__exit__(None, None, None)
            self._cooperative = None
        self._disarm()
        if isinstance(exc, DeadlinePassed):  # the cooperative check's way of saying it
            raise TimeLimitExceeded() from None

    def _disarm(self) -> None:
        global _due
        if not self._armed:
            return
        _due = None  # a signal already on its way is ignored
        _the_watchdog().disarm()
        if self._installed and self._previous is not None:  # None: not set from Python
            signal.signal(signal.SIGPROF, self._previous)  # ours ignores signals anyway
        self._armed = self._installed = False


def limit_memory(mb: int | None) -> None:
    """Bound this process's address space to ``mb`` MB from now on (a campaign worker's,
    for its whole life; None: no limit)."""
    if mb is None:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    _load_unwinder()
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _load_unwinder() -> None:
    """Map the C unwinder glibc loads when a thread first exits, while there is room:
    loaded under the bound it may fail, and glibc then aborts the whole process
    ("libgcc_s.so.1 must be installed for pthread_exit to work")."""
    global _unwinder
    if _unwinder is None:
        try:
            _unwinder = ctypes.CDLL("libgcc_s.so.1")
        except OSError:  # not this C library's way: nothing to load
            _unwinder = False


#: The unwinder, once loaded (False: there is none to load).
_unwinder: ctypes.CDLL | bool | None = None


#: Room left under the address-space bound below which an error is the bound's.
AT_BOUND_BYTES = 64 << 20
#: Errors that say what they are whatever the memory left.
_NOT_MEMORY = (MemoryError, InputError, TimeLimitExceeded, DeadlinePassed)


#: The bound (MB) of the last :class:`MemoryLimit` left at its bound, None if none was.
_bound_hit: int | None = None


def bound_hit() -> int | None:
    """The memory bound (MB) a block of this process ended at, if one did: an error the
    interpreter lost there (``SystemError: error return without exception set``, what a
    failed allocation in C code can leave) is that bound's."""
    return _bound_hit


def forget_bound_hit() -> None:
    """Start afresh: no block has ended at its bound (a command's start)."""
    global _bound_hit
    _bound_hit = None


class MemoryLimit:
    """``with MemoryLimit(mb):`` allocations that would take the process's address space
    beyond ``mb`` MB raise :class:`MemoryError` inside the block (no limit: None)."""

    def __init__(self, mb: int | None) -> None:
        self.mb = mb
        self._previous: tuple[int, int] | None = None

    def __enter__(self) -> MemoryLimit:
        if self.mb is None:
            return self
        self._previous = resource.getrlimit(resource.RLIMIT_AS)
        _the_watchdog()  # before the bound: a thread's stack may not fit under it
        limit_memory(self.mb)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._previous is None:
            return
        # an error met at the bound is the bound's: an allocation failing inside a C
        # function or a finaliser may surface as another error ("SystemError: ...
        # returned NULL without setting an exception" from a parser's constructor)
        global _bound_hit
        resource.setrlimit(resource.RLIMIT_AS, self._previous)  # first: room to look
        self._previous = None
        assert self.mb is not None
        room = address_space_room(self.mb << 20)
        at_bound = room is not None and room < AT_BOUND_BYTES
        if at_bound:
            _bound_hit = self.mb
        if at_bound and isinstance(exc, Exception) and not isinstance(exc, _NOT_MEMORY):
            raise MemoryError from exc
