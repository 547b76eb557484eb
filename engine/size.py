"""How large a program the explorers take: at most :data:`MAX_THREADS` threads and, for
the axiomatic engines, executions of at most :data:`MAX_EVENTS` events.

Relations are bit matrices over an execution's events (:mod:`graphs.relalg`): n events
cost n² bits per relation, and a model computes dozens of relations per candidate, so a
test with thousands of threads or instructions would fill the memory for minutes before
its first candidate.  Such a program is refused at once as bad input instead.
"""

from __future__ import annotations

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Program

#: The most threads a program may have.  herd has no limit of its own; its test suites
#: have at most 6 threads and GenMC's benchmarks a few dozen, while exploring every
#: interleaving of more than a few dozen threads is out of reach anyway.
MAX_THREADS = 64

#: The most events an execution may have: its threads' longest paths (loops unrolled as
#: the run says) and one initial write per memory location.  At 4096 events a relation
#: is 2 MB.
MAX_EVENTS = 4096


def check_threads(program: Program) -> None:
    """Refuse a program of more than :data:`MAX_THREADS` threads (an InputError)."""
    n = len(program.threads)
    if n > MAX_THREADS:
        raise InputError(
            program.where,
            0,
            0,
            f"unsupported: {n} threads (herdsman explores programs of at most {MAX_THREADS})",
        )


def check_events(program: Program, room: list[int], locations: int | None = None) -> None:
    """Refuse a program whose executions may have more than :data:`MAX_EVENTS` events
    (``room``: the most events of each thread, see ``ThreadCode.max_events``;
    ``locations``: how many locations they touch, all the program's by default)."""
    n = sum(room) + (len(program.memory) if locations is None else locations)
    if n > MAX_EVENTS:
        raise InputError(
            program.where,
            0,
            0,
            f"unsupported: executions of up to {n} events (at most {MAX_EVENTS}: "
            "relations over them would not fit in memory)",
        )
