"""Combinations of thread-execution shapes for the reference search: which make an execution.

:func:`combination_status` says whether thread executions of given shapes (one per
thread) make an execution together (spawns, joins, blocked threads, failed assertions);
:func:`by_compared_values` splits a combination so that each part holds one execution's
values for the events the model compares; :func:`wanted_execs` drops, under herd's
``-speedcheck``, the thread executions whose final registers cannot satisfy the
condition.  The search over one combination is :class:`engine.reference.search.Combo`.
"""

from __future__ import annotations

import itertools

from herdsman.cat.api import PreparedModel
from herdsman.engine.conditions import wanted_values
from herdsman.engine.reference.skeletons import build_skeleton
from herdsman.engine.semantics.enumerate import ThreadExec, ThreadsResult
from herdsman.engine.semantics.state import ThreadFailed
from herdsman.litmus.base.ir import Atom, Prop, RegLoc, atom_holds

__all__ = ["by_compared_values", "combination_status", "wanted_execs"]


def by_compared_values(
    threads: ThreadsResult, combo: list[list[ThreadExec]], model: PreparedModel, arch: str
) -> list[list[list[ThreadExec]]]:
    """The combination of shapes ``combo`` split so that, in each part, every thread
    execution of a thread gives the same values to the events the model may compare
    (``different-values``: a skeleton holds one execution's values)."""
    if not model.reads_values:
        return [combo]
    lay = build_skeleton(threads.locations, threads.init_mem, [v[0] for v in combo])
    compared = model.compared_events(lay.sk, arch)
    if compared == 0:
        return [combo]
    parts = []
    for t, variants in enumerate(combo):
        positions = [
            i
            for i in range(len(variants[0].events))
            if compared is None or compared >> (lay.base[t] + i) & 1
        ]
        split: dict[tuple, list[ThreadExec]] = {}
        for te in variants:
            split.setdefault(tuple([te.events[i][5] for i in positions]), []).append(te)
        parts.append(list(split.values()))
    return [list(p) for p in itertools.product(*parts)]


def wanted_execs(per_thread: list[list[ThreadExec]], prop: Prop) -> list[list[ThreadExec]]:
    """The thread executions whose final registers agree with those ``prop`` pins (a
    final state satisfying it needs them; see :func:`engine.conditions.wanted_values`)."""
    wanted: dict[int, list[tuple[str, Atom]]] = {}
    for loc, a in wanted_values(prop).items():
        if isinstance(loc, RegLoc):
            wanted.setdefault(loc.tid, []).append((loc.reg, a))
    if not wanted:
        return per_thread
    out = []
    for t, execs in enumerate(per_thread):
        pins = wanted.get(t)
        if pins:
            execs = [te for te in execs if all(atom_holds(a, te.reg(r)) for r, a in pins)]
        out.append(execs)
    return out


def combination_status(
    heads: list[ThreadExec], spawned: frozenset[int]
) -> tuple[list[tuple[int, ThreadFailed]], bool, bool] | None:
    """Whether thread executions of these shapes (one per thread) make an execution
    together: a thread has events iff it starts (at once, or spawned by one of them), a
    join follows the end of its thread, and one waits at a join only for a thread that
    never ends.  None if they do not, else the failed assertions, whether the execution
    is blocked (a thread stopped early; only worth exploring when one failed, or when the
    loop bound stopped one: it is counted apart) and whether the loop bound did."""
    started = {e.value for te in heads for e in te.events if e.kind == "S"}
    blocked = bound = False
    for te in heads:
        if te.tid in spawned and (te.end != "unstarted") != (te.tid in started):
            return None
        if any(e.kind == "J" and not heads[e.other].finished for e in te.events):
            return None
        if te.end == "join":
            waited = heads[te.waits]
            if waited.finished:
                return None
            blocked = True
            bound = bound or waited.end == "done"  # a thread the loop bound ended
        elif te.end == "blocked" or te.end == "bound":
            blocked = True
            bound = bound or te.end == "bound"
    fails = [(te.tid, te.failure) for te in heads if te.failure is not None]
    if blocked and not fails and not bound:
        return None
    return fails, blocked, bound
