"""Which explorer ``--engine auto`` runs for a program under a model.

TruSt where the model allows it (:mod:`engine.trust.support`: no po ∪ rf cycle, standard
co, monotone axioms).  Otherwise (POWER models allow load buffering) RSMC or the
reference engine, by the size of herd's candidate space: the reference engine builds
every rf × co candidate (pruned by the model's monotone axioms as it chooses), which is
cheapest when the space is small, as in most litmus tests; RSMC's cost follows the
executions the model allows, however many candidates there are.  Neither wins
everywhere: on the RSMC paper's Fig. 11 with syncs (3 executions among C(2N, N)
candidates) RSMC takes milliseconds where the reference engine takes 45 s at N = 10; on
the same test without syncs, or on SB+NW, nearly every candidate is allowed: there the
two are even (Fig. 11) or the reference engine is 1.5 times faster (SB+NW), and on
herd's POWER campaign the reference engine is faster on nearly every test.  So from
:data:`RSMC_FROM` candidates (a base-10 logarithm, above every test of the POWER
campaign) ``auto`` runs RSMC for
:data:`RSMC_BUDGET` CPU seconds and, if it has not finished, the reference engine: at
most that second more than the better of the two when the reference engine is the
better, milliseconds instead of minutes when RSMC is.  Measured by
``bench/bench_rsmc.py --auto``.

Programs with loops or threads that spawn threads (C programs) go to RSMC outright when
it accepts them: the reference engine enumerates each thread's executions before it
chooses any rf, which grows with every loop iteration and every read.  Measured on the
example programs under ``power`` (``bench/bench_rsmc.py --auto``, CPU seconds, RSMC
against the reference engine): bakery 0.6 against 4.7, szymanski 5.7 against 9.5,
peterson and burns within 0.1 s of each other.  (Under ``power`` RSMC refuses programs
with read-modify-writes, see :mod:`engine.rsmc.support`.)  No test of herd's POWER
campaign has a loop.
"""

from __future__ import annotations

import math
from functools import lru_cache

from herdsman.cat.api import PreparedModel
from herdsman.engine.rsmc.run import rsmc_refusal
from herdsman.engine.semantics.step import THREAD_CACHE, Semantics, ThreadCode, semantics_of
from herdsman.engine.trust.run import trust_applies
from herdsman.litmus.base.ir import CAS, RMW, Load, Program, Store

#: ``auto`` tries RSMC first from this many candidates (log10; the POWER campaign's
#: largest is 5.5).
RSMC_FROM = 7.0
#: ... for this many CPU seconds, then runs the reference engine.
RSMC_BUDGET = 1.0


def candidate_space(sem: Semantics) -> float:
    """log10 of herd's candidates for the program of ``sem``, counted on its code as
    written (each access once, its address from the initial registers): per location,
    its writes' coherence orders times each read's choice of write."""
    writes: dict[str, int] = {}
    reads: dict[str, int] = {}
    for th in sem.threads:
        for x, (w, r) in _accesses(th).items():
            writes[x] = writes.get(x, 0) + w
            reads[x] = reads.get(x, 0) + r
    out = 0.0
    for x in set(writes) | set(reads):
        w = writes.get(x, 0)
        out += math.lgamma(w + 1) / math.log(10) + reads.get(x, 0) * math.log10(w + 1)
    return out


@lru_cache(maxsize=1024)
def _most_space(n: int) -> float:
    """The largest :func:`candidate_space` of a program of ``n`` accesses: all of them on
    one location (a location's ``w! (w+1)^r`` only grows with another's writes and reads
    moved into it), ``w`` of them writes."""
    return max(
        math.lgamma(w + 1) / math.log(10) + (n - w) * math.log10(w + 1) for w in range(n + 1)
    )


@lru_cache(maxsize=THREAD_CACHE)
def _count(th: ThreadCode) -> int:
    """The accesses of one compiled thread, as written."""
    return sum(w + r for w, r in _accesses(th).values())


@lru_cache(maxsize=THREAD_CACHE)
def _accesses(th: ThreadCode) -> dict[str, tuple[int, int]]:
    """The writes and reads of one compiled thread per location, as written (compiled
    threads are shared by identical threads of a campaign's tests: counted once)."""
    out: dict[str, tuple[int, int]] = {}
    for pc, ins in enumerate(th.code):
        if not isinstance(ins, (Load, Store, RMW, CAS)):
            continue
        x = th.static_loc(pc) or "?"
        w, r = out.get(x, (0, 0))
        out[x] = (w + (not isinstance(ins, Load)), r + (not isinstance(ins, Store)))
    return out


def auto_engine(model: PreparedModel, program: Program) -> str:
    """The explorer ``--engine auto`` runs (see the module docstring): ``trust``,
    ``rsmc`` (outright), ``rsmc-first`` (within :data:`RSMC_BUDGET`, then the reference
    engine) or ``reference``."""
    if trust_applies(model, program):
        return "trust"
    sem = semantics_of(program)
    if sem.spawned or any(th.back for th in sem.threads):
        chosen = "rsmc"
    elif (
        _most_space(sum(map(_count, sem.threads))) >= RSMC_FROM  # (a bound, at once)
        and candidate_space(sem) >= RSMC_FROM
    ):
        chosen = "rsmc-first"
    else:
        return "reference"
    # RSMC's refusal probes the model (once per model): only for the programs it may take
    return chosen if rsmc_refusal(model, program) is None else "reference"
