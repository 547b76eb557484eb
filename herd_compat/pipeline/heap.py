"""The heap of a process that runs many tests (a campaign's worker, ``herdsman herd7`` on
a list of tests): what lives as long as the process kept out of the garbage collector's
way."""

from __future__ import annotations

import gc

#: Allocations of containers between two collections of the young generation in a
#: process running many tests (see :func:`long_lived`).
YOUNG = 20_000


def long_lived() -> None:
    """Keep what lives as long as the process (the model, its code, the parsers, then the
    caches the tests fill) out of the garbage collector's full passes: frozen now, and
    after each full pass, what survived it.  A full pass then visits only what the tests
    built since the last one (a few ms), not the process's whole heap (up to 45 ms on the
    POWER campaign, charged to whichever test was running).  The young generation is
    collected less often than Python's default.  Only the young generations are collected
    first: the garbage of start-up (loading the model) is young, the old generation holds
    the imported modules (a full pass over them: 0.02 s, which found nothing to free)."""
    gc.collect(1)
    gc.freeze()
    # a test builds thousands of short-lived containers, nearly all freed by their
    # reference counts: a young collection every YOUNG of them (not Python's 700) looks
    # at fewer of them alive (RISC-V worker loop: about 5 % less CPU)
    gc.set_threshold(YOUNG, 20, 20)
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.append(_freeze_survivors)


def leaving() -> None:
    """When a process that ran many tests (after :func:`long_lived`) has finished them:
    freeze what they leave (the caches, the last test's data), so that the full collection
    the interpreter makes as it exits does not walk it (0.15 s after the RISC-V campaign,
    about 3 % of its CPU time).  An earlier full pass, should the process go on, frees
    cycles made from then on as before."""
    gc.freeze()


def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()
