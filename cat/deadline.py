"""A CPU-time deadline the cat evaluator honours where it may run long at load time (a
``let rec`` over values iterated to its fixpoint).

The command line's per-test alarm (``herd_compat.limits.CpuTimeLimit``) interrupts
anything, but only from the main thread; a test run in another thread (a cluster
worker's) relies on this cooperative check instead.  The deadline is a context variable
(one per thread), set with :func:`cpu_deadline`; past it, :class:`DeadlinePassed`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_DEADLINE: ContextVar[float | None] = ContextVar("herdsman_cat_deadline", default=None)


class DeadlinePassed(Exception):
    """The CPU time given to the evaluation is spent."""


@contextmanager
def cpu_deadline(deadline: float | None) -> Iterator[None]:
    """Within the block, :func:`check` raises once ``time.process_time()`` is past
    ``deadline`` (None: no deadline; an earlier deadline already set is kept)."""
    outer = _DEADLINE.get()
    if deadline is None or (outer is not None and outer <= deadline):
        yield
        return
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check() -> None:
    """Raise :class:`DeadlinePassed` when the deadline set is past."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.process_time() > deadline:
        raise DeadlinePassed()
