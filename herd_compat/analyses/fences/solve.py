"""A minimum-cost set of fence placements meeting the constraints learnt so far (z3).

A :class:`Candidate` is one fence (or dependency) a program may get: where (``site``: a
litmus thread and code position, or a C source line) and which (``kind``: ``MFENCE``;
POWER's ``sync``, ``lwsync``, ``ctrlisync``, ``ctrl``; C11's fences ``seq_cst``,
``acq_rel``, ``release``, ``acquire``, and C11's orders on the access of a line,
``release access`` and ``acquire access``, :mod:`fences.orders`).  At one site the
fences are ordered by strength (:data:`STRENGTH`: sync ⊒ lwsync ⊒ ctrlisync ⊒ ctrl;
seq_cst ⊒ acq_rel ⊒ release and acquire, which are not comparable); an order on the
access is comparable with no fence (it orders that access only).

Constraints are formulas over candidates in the shape the critical cycles give
(:class:`Need`): an execution is forbidden when *some* cycle has *every* delay broken by
*some* candidate; a blocking clause (one cycle of one delay) says "at least one of these".
``minimum`` gives the cheapest set satisfying every constraint (``z3.Optimize``, one
Boolean per candidate, cost per kind from :data:`COSTS`), or None when none does.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import z3

__all__ = [
    "COSTS",
    "STRENGTH",
    "Candidate",
    "Need",
    "minimum",
    "stronger_or_equal",
    "weaker_or_equal",
]

#: The cost of each kind of placement (POWER: a sync costs most, a dependency least).
COSTS = {
    "MFENCE": 1,
    "sync": 8,
    "lwsync": 4,
    "ctrlisync": 2,
    "ctrl": 1,
    "seq_cst": 8,
    "acq_rel": 4,
    "release": 2,
    "acquire": 2,
    "release access": 1,
    "acquire access": 1,
}
#: Strength of the kinds placed at one site (higher orders more; equal: not comparable
#: unless the same kind).
STRENGTH = {
    "MFENCE": 4,
    "sync": 4,
    "lwsync": 3,
    "ctrlisync": 2,
    "ctrl": 1,
    "seq_cst": 4,
    "acq_rel": 3,
    "release": 2,
    "acquire": 2,
    "release access": 1,
    "acquire access": 1,
}
#: The kinds comparable with no other (orders on an access, :mod:`fences.orders`).
ALONE = frozenset({"release access", "acquire access"})


@dataclass(frozen=True, order=True)
class Candidate:
    """One placement a program may get: a site and a kind."""

    site: Hashable
    kind: str


def weaker_or_equal(c: Candidate, chosen: Iterable[Candidate]) -> bool:
    """Whether ``c`` adds nothing to ``chosen``: a placement at its site at least as
    strong is chosen."""
    return any(d.site == c.site and stronger_or_equal(d.kind, c.kind) for d in chosen)


def stronger_or_equal(k: str, other: str) -> bool:
    """Whether a placement of kind ``k`` orders at its site all one of kind ``other``
    does."""
    return k == other or (k not in ALONE and other not in ALONE and STRENGTH[k] > STRENGTH[other])


@dataclass(frozen=True)
class Need:
    """A constraint: some cycle (a tuple of delays) all of whose delays (each a tuple of
    the candidates that break it) are broken."""

    cycles: tuple[tuple[tuple[Candidate, ...], ...], ...]

    def holds(self, chosen: frozenset[Candidate]) -> bool:
        return any(all(any(c in chosen for c in d) for d in cyc) for cyc in self.cycles)


def minimum(needs: list[Need], timeout_ms: int | None = None) -> frozenset[Candidate] | None:
    """The cheapest set of candidates meeting every need (ties broken by z3), or None
    when no set does."""
    universe = sorted({c for n in needs for cyc in n.cycles for d in cyc for c in d}, key=repr)
    var = {c: z3.Bool(f"f{i}") for i, c in enumerate(universe)}
    opt = z3.Optimize()
    if timeout_ms is not None:
        opt.set("timeout", timeout_ms)
    for n in needs:
        opt.add(
            z3.Or(
                [
                    z3.And([z3.Or([var[c] for c in d]) for d in cyc])
                    for cyc in n.cycles
                    if all(d for d in cyc)
                ]
            )
        )
    if universe:
        opt.minimize(z3.Sum([z3.If(var[c], COSTS[c.kind], 0) for c in universe]))
    if opt.check() != z3.sat:
        return None
    model = opt.model()
    return frozenset(c for c in universe if z3.is_true(model.eval(var[c], True)))
