"""Minimality by brute force: does a cheaper set of placements make the program safe?

Fences only ever remove executions, so if a set of placements leaves the program unsafe,
so does every weaker subset: only the *maximal* sets cheaper than a budget (at most one
placement per site, nothing more fits) need a run (a fence and an order on the access
of one line together are not tried).  ``cheaper_sets`` lists them;
``cheaper_works`` runs the oracle on each (the check the tests and the bench make of
z3's answers).
"""

from __future__ import annotations

import collections
from collections.abc import Hashable

from herdsman.herd_compat.analyses.fences.solve import COSTS, Candidate, stronger_or_equal
from herdsman.herd_compat.analyses.fences.synth import Oracle

__all__ = ["cheaper_sets", "cheaper_works"]


def cheaper_sets(cands: tuple[Candidate, ...], budget: int) -> list[frozenset[Candidate]]:
    """The maximal sets of ``cands`` (at most one per site) that cost less than
    ``budget``."""
    sites: dict[Hashable, list[Candidate]] = collections.defaultdict(list)
    for c in cands:
        sites[c.site].append(c)
    keys = list(sites)
    out: list[frozenset[Candidate]] = []

    def maximal(s: frozenset[Candidate], spent: int) -> bool:
        for k in keys:
            here = [c for c in sites[k] if c in s]
            extra = COSTS[here[0].kind] if here else 0
            for c in sites[k]:
                stronger = not here or (
                    c.kind != here[0].kind and stronger_or_equal(c.kind, here[0].kind)
                )
                if stronger and spent - extra + COSTS[c.kind] < budget:
                    return False
        return True

    def rec(i: int, chosen: list[Candidate], spent: int) -> None:
        if i == len(keys):
            s = frozenset(chosen)
            if maximal(s, spent):
                out.append(s)
            return
        rec(i + 1, chosen, spent)
        for c in sites[keys[i]]:
            if spent + COSTS[c.kind] < budget:
                rec(i + 1, [*chosen, c], spent + COSTS[c.kind])

    if budget > 0:
        rec(0, [], 0)
    return out


def cheaper_works(oracle: Oracle, budget: int, limit: int | None = None) -> bool | None:
    """Whether a set of ``oracle``'s candidates costing less than ``budget`` makes the
    program safe; None when there are more than ``limit`` sets to try."""
    sets = cheaper_sets(oracle.candidates(), budget)
    if limit is not None and len(sets) > limit:
        return None
    return any(not oracle.violations(s) for s in sets)
