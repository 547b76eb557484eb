"""Room for deep recursion: Python's recursion limit raised around the work that needs it.

Parsing nested expressions, inlining cat functions at their call sites, generating and
compiling code for deep node graphs and running recursive cat functions recurse in Python
far deeper than the default limit allows.  The entry points of :mod:`cat.api` (and the
run-time evaluation of :mod:`cat.runtime`) run their work inside :class:`DeepRecursion`,
which raises the limit for the time of the work and restores the old one after; nothing
changes the limit at import time.
"""

from __future__ import annotations

import sys

#: The recursion limit deep cat work needs (inlining depth 400, run-time recursion).
DEEP_LIMIT = 20000


class DeepRecursion:
    """``with DeepRecursion(): ...`` runs the body with a recursion limit of at least
    :data:`DEEP_LIMIT` (a class, not a generator: it is cheap enough for run-time calls)."""

    __slots__ = ("old",)

    def __enter__(self) -> None:
        self.old = old = sys.getrecursionlimit()
        if old < DEEP_LIMIT:
            sys.setrecursionlimit(DEEP_LIMIT)

    def __exit__(self, *exc: object) -> None:
        if self.old < DEEP_LIMIT:
            sys.setrecursionlimit(self.old)
