"""The engine's own exceptions: giving up cleanly when a run exceeds its CPU time limit,
stopping at the first assertion that fails (GenMC's default) and at the first execution
that settles the condition (herd's ``-speedcheck fast``)."""

from __future__ import annotations

import time

from herdsman.cat.api import PreparedModel
from herdsman.litmus.base.errors import InputError


class TimeLimitExceeded(Exception):
    """The run took more CPU time than ``RunOptions.time_limit``."""


def check_deadline(deadline: float | None) -> None:
    """Raise :class:`TimeLimitExceeded` when ``time.process_time()`` is past ``deadline``."""
    if deadline is not None and time.process_time() > deadline:
        raise TimeLimitExceeded()


class NewLocation(Exception):
    """A thread accessed a location the explorer's layout does not have (an address
    computed at run time): the exploration starts again with it (initially 0)."""

    def __init__(self, loc: str) -> None:
        super().__init__(loc)
        self.loc = loc


class NoInitialWrite(Exception):
    """An explorer met a location the program gives no initial write (herd's location at
    a computed address: ``Program.computed_init``); only the reference engine reads such
    a location as herd does (from the test's stores only)."""

    def __init__(self, loc: str) -> None:
        super().__init__(loc)
        self.loc = loc


class ErrorFound(Exception):
    """An assertion failed and the run stops at the first error
    (``RunOptions.stop_on_error``); the outcome so far has it."""


class ConditionSettled(Exception):
    """An execution settled the final condition and the run stops there (herd's
    ``-speedcheck fast``); the outcome so far has it."""


def model_refusal(model: PreparedModel, program_where: str, message: str) -> InputError:
    """The error for a model that cannot run this program (an engine's refusal): it points
    at the model (its spec as the user gave it), naming the program too."""
    return InputError(model.spec, 0, 0, f"{message} (for {program_where})")
