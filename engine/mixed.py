"""herd's mixed-size check on executions: the sizes a location is accessed with together.

herd judges a test's access sizes per candidate execution (``mem.ml``'s ``check_sizes``,
once the execution's reads are matched with writes), not per program text: a second size
on a path no execution takes (a branch on a location only ever 0) is no mixed-size
access.  :func:`sizes_together` finds them on the thread executions the reference engine
enumerates (their reads take every value the stores may give): two sizes of one location
in one thread execution, or in executions of two threads.  ``litmus.sizes`` asks it only
for a location its static reading found accessed with two sizes.
"""

from __future__ import annotations

from collections.abc import Callable

from herdsman.engine.semantics.enumerate import thread_executions
from herdsman.litmus.base.ir import Program
from herdsman.litmus.sizes import accesses

__all__ = ["sizes_together"]


def sizes_together(program: Program, unroll: int) -> Callable[[str], tuple[int, int] | None]:
    """For a location of ``program``, two sizes it is accessed with in its executions
    (threads unrolled ``unroll`` times), or None; the executions are enumerated once, at
    the first question (most tests never ask)."""
    found: dict[str, tuple[int, int]] | None = None

    def together(loc: str) -> tuple[int, int] | None:
        nonlocal found
        if found is None:
            found = _conflicts(program, unroll)
        return found.get(loc)

    return together


def _conflicts(program: Program, unroll: int) -> dict[str, tuple[int, int]]:
    """Per location accessed with two sizes in the thread executions, two of them."""
    # an access's size by its thread, instruction and kind (one instruction's accesses of
    # one kind have one size: LDP's two reads, a CAS's read and write)
    size: dict[tuple[int, str, str], int] = {}
    for a in accesses(program):
        size[(a.tid, program.threads[a.tid].origins[a.pos], a.kind)] = a.size
    out: dict[str, tuple[int, int]] = {}
    before: dict[str, set[int]] = {}  # per location: the sizes earlier threads use
    for tid, execs in enumerate(thread_executions(program, unroll).execs):
        used: dict[str, set[int]] = {}  # per location: the sizes this thread uses
        for ex in execs:
            mine: dict[str, int] = {}  # per location: the first size of this execution
            for e in ex.events:
                s = None if e.loc is None else size.get((tid, e.instr, e.kind))
                if s is None or e.loc is None:
                    continue
                first = mine.setdefault(e.loc, s)
                if first != s:
                    out.setdefault(e.loc, (first, s))
                used.setdefault(e.loc, set()).add(s)
        for loc, sizes in used.items():
            pair = next(((a, b) for a in before.get(loc, ()) for b in sizes if a != b), None)
            if pair is not None:
                out.setdefault(loc, pair)
            before.setdefault(loc, set()).update(sizes)
    return out
