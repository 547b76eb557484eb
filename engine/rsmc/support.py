"""Which models RSMC can explore, with which commit-before order, and why not the others.

RSMC enumerates coherence orders itself (the model's co must be the standard one,
``co_mode == "native"``) and judges partial traces with the model's monotone axioms
(every rejecting axiom must be monotone, per ``cat/monotone.py``: a trace the model
rejects stays rejected when events are committed).  Its commit-before order must be
*valid* for the model: no allowed execution may order an event cb-before itself.

* A model that allows no po ∪ rf cycle (load buffering, a read from a po-later write of
  its thread) gets the ``po`` order (:mod:`engine.rsmc.cb`): valid and deadlock free.
* A POWER model (``PPC`` tests) that allows load buffering gets the paper's
  ``cb^power``, valid and deadlock free for herd's POWER model (built-in ``power``,
  herd's ``ppc.cat``); the model must still forbid a read from a po-later write of its
  own thread (``po-loc`` is in ``cb^power``).
* Any other model (one allowing load buffering on another architecture) is refused.

The cycles are checked on the model's own verdicts for the smallest shapes, as TruSt's
(``engine/trust/support.py``).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from herdsman.cat.api import Model
from herdsman.graphs.build import R, W, build

_CACHE: weakref.WeakKeyDictionary[Model, dict[str, Choice]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Choice:
    """The commit-before order RSMC uses for a model (``order``, a key of
    ``cb.CB_ORDERS``), or why it cannot explore it (``refusal``)."""

    order: str | None
    refusal: str | None = None
    coherent: bool = False  # the model forbids CoWW and CoRW (see :func:`coherent`)


def _allows(model: Model, arch: str, threads: list, co: dict | None = None) -> bool:
    g = build(threads, co=co).rel
    return any(v.allowed for v in model.prepare(g.sk, arch).check(g.rf, co=g.co))


def coherent(model: Model, arch: str) -> bool:
    """Whether the model forbids a write co-before a po-earlier write of its thread to
    the same location (CoWW), and a write co-before the write a po-earlier read of its
    thread read (CoRW): then RSMC never asks it about those co positions."""
    coww = [[W("x", 1, name="a"), W("x", 2, name="b")]]
    corw = [[R("x", 2), W("x", 1, name="a")], [W("x", 2, name="b")]]
    return not _allows(model, arch, coww, {"x": ["b", "a"]}) and not _allows(
        model, arch, corw, {"x": ["a", "b"]}
    )


def choose(model: Model, arch: str) -> Choice:
    """RSMC's commit-before order for ``model`` on ``arch`` programs (computed once per
    model and architecture)."""
    per = _CACHE.setdefault(model, {})
    got = per.get(arch)
    if got is None:
        got = per[arch] = _choose(model, arch)
    return got


def _choose(model: Model, arch: str) -> Choice:
    if model.co_mode != "native":
        return Choice(
            None,
            f"its coherence order is not the standard one (co_mode '{model.co_mode}'): "
            "RSMC enumerates co itself",
        )
    for ax in model.axioms:
        if ax.mode != "check" or ax.skipped or ax.monotone:
            continue
        name = f"'{ax.name}'" if ax.name else "(unnamed)"
        return Choice(
            None,
            f"its axiom {name} ({ax.test}) at {ax.pos.file}:{ax.pos.line} is not monotone, "
            "so partial traces cannot be judged",
        )
    if _allows(model, arch, [[R("x", 1), W("x", 1)]]):
        return Choice(
            None,
            "it allows a read from a po-later write of its own thread, which every "
            "commit-before order forbids",
        )
    coh = coherent(model, arch)
    if not _allows(model, arch, [[R("x", 1), W("y", 1)], [R("y", 1), W("x", 1)]]):
        return Choice("po", coherent=coh)
    if arch == "PPC":
        return Choice("power", coherent=coh)
    return Choice(
        None,
        f"it allows load buffering on {arch}: RSMC's commit-before order for that is "
        "POWER's (cb^power), for PPC tests",
    )
