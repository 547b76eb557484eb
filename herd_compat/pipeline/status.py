"""Exit statuses: one rule for every command (README, "Limits and exit statuses").

0: every answer is the good one (allowed as herd says, safe, identical, explained);
1: a negative answer (``validate``, ``diff``: differences; ``fences``: no placement helps);
42: ``verify``: an assertion can fail (GenMC's and Nidhugg's status);
2: bad input or a bad command line;
3: a time or memory limit ran out, so an answer is missing (or a campaign's report is
incomplete: tests lost to dead workers).
When several apply, the status is the most severe: 2, then 3, then 1 or 42, then 0 (a
campaign whose report is incomplete exits 3 whatever else).
"""

from __future__ import annotations

from collections.abc import Iterable

OK = 0
NEGATIVE = 1
BAD_INPUT = 2
LIMIT = 3
UNSAFE = 42

#: Severity: the larger wins.
_RANK = {OK: 0, NEGATIVE: 1, UNSAFE: 1, LIMIT: 2, BAD_INPUT: 3}


def worst(statuses: Iterable[int]) -> int:
    """The exit status of a command whose parts ended with ``statuses``."""
    return max(statuses, key=_RANK.__getitem__, default=OK)


def failure_status(kind: str) -> int:
    """The status of a unit of work without a result (``Failed.kind``): a limit that ran
    out (``timeout``, ``memory``), else bad input (or a bug, reported as one line)."""
    return LIMIT if kind in ("timeout", "memory") else BAD_INPUT
