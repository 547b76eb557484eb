"""The engine's own exception: giving up cleanly when a run exceeds its CPU time limit."""

from __future__ import annotations

import time


class TimeLimitExceeded(Exception):
    """The run took more CPU time than ``RunOptions.time_limit``."""


def check_deadline(deadline: float | None) -> None:
    """Raise :class:`TimeLimitExceeded` when ``time.process_time()`` is past ``deadline``."""
    if deadline is not None and time.process_time() > deadline:
        raise TimeLimitExceeded()
