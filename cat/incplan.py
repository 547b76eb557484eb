"""The incremental checker's checks as a :class:`CheckPlan` that a compiled explorer runs
itself: steps over slots of static relations, given per skeleton as 64-bit rows."""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from herdsman.cat.contract import (
    AcyclicStep,
    Base,
    CheckPlan,
    EmptyMeetStep,
    PlanStep,
    PlanTerm,
)
from herdsman.cat.form import Form, StepForm, seq_pair
from herdsman.cat.incstatics import StaticValues, meet, static_union

_WORD = (1 << 64) - 1

#: Per step whose value grows only by the new event's pairs: the key of the union of its
#: static terms (None: it has none) and its other terms as (base, the statics it meets,
#: the statics it takes away); None for any other step.
StepPlan = tuple[tuple[str, int] | None, list[tuple[int, tuple, tuple]]] | None


def compiled_plan(
    form: Form,
    steps: Sequence[tuple[StepForm, StepPlan]],
    meets: Sequence[bool],
    stat_ids: Sequence[tuple[int, ...]],
    values: StaticValues,
) -> CheckPlan | None:
    """The checks as a :class:`CheckPlan`, when each is a step whose value grows only
    by the new event's pairs (a union of static relations and of rf, co, fr met with
    static ones) or an emptiness of a meet with static operands; None otherwise."""
    if not form.stable:
        return None
    rel = dict(form.kinds)
    slots: dict[int | tuple, int] = {}

    def slot(key: int | tuple) -> int:
        return slots.setdefault(key, len(slots))

    def term(base: int, inters: Sequence[int], diffs: Sequence[int]) -> PlanTerm:
        """A filtered base relation over slots (its statics must be relations)."""
        if not all(rel.get(k, False) for k in (*inters, *diffs)):
            raise _NoPlan  # a set met with a relation, or a node no static
        return PlanTerm(Base(base), tuple(slot(k) for k in inters), tuple(slot(k) for k in diffs))

    out: list[PlanStep] = []
    try:
        for i, (sf, plan) in enumerate(steps):
            if sf.terms is None:
                if not meets[i]:
                    return None
                pair = seq_pair(sf) if sf.kind == "empty" else None
                seq = None if pair is None else (term(*pair[0]), term(*pair[1]))
                out.append(EmptyMeetStep(slot(("meet", i)), seq))
                continue
            if plan is None:
                return None
            skey, dyn = plan
            su = slot(skey) if skey is not None else None
            out.append(AcyclicStep(su, tuple(term(*t) for t in dyn)))
    except _NoPlan:
        return None
    order = list(slots)
    return CheckPlan(
        tuple(out),
        len(order),
        lambda key, words: _slot_rows(form, stat_ids, values, order, key, words),
    )


def _slot_rows(
    form: Form,
    stat_ids: Sequence[tuple[int, ...]],
    values: StaticValues,
    order: list[int | tuple],
    key: tuple[int, ...],
    words: int,
) -> bytes:
    """The relations of the slots ``order`` for the skeleton of completion ``key``,
    rows of ``words`` 64-bit words (see :class:`CheckPlan`)."""
    full = values.full(("c", *key))
    U = values.U
    n, cap, row = U.n, U.cap, U.ROW
    out = array("Q")
    for k in order:
        if isinstance(k, tuple) and k[0] == "meet":
            v = meet(form.steps[k[1]].node, full)
        elif isinstance(k, tuple):
            v = static_union(stat_ids[k[1]], k, full)
        else:
            v = full[k]
        for i in range(n):
            r = (v >> (i * cap)) & row
            out.extend((r >> (64 * w)) & _WORD for w in range(words))
    return out.tobytes()  # native order: the core is built for little-endian hosts only


class _NoPlan(Exception):
    """A check has no :class:`CheckPlan` form."""
