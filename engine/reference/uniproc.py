"""Whether a model lets a read read from a po-later write of its own thread.

Every model with herd's uniproc (``acyclic po-loc | com``: coherence) forbids it, and
then the reference explorer's thread executions need no value that only such a write
gives (:func:`engine.semantics.enumerate.thread_executions`, ``own_later``).  Asked of
the model itself, on the smallest such graph (a thread reading ``x`` from its own later
write of ``x``), so that a model without the check — or run with it skipped — keeps every
candidate.  Answered once per model and architecture.
"""

from __future__ import annotations

import weakref

from herdsman.cat.api import PreparedModel
from herdsman.graphs.build import R, W, build

_CACHE: weakref.WeakKeyDictionary[PreparedModel, dict[str, bool]] = weakref.WeakKeyDictionary()


def reads_own_later(model: PreparedModel, arch: str) -> bool:
    """Whether ``model`` may accept a read from a po-later write of its own thread (True
    for a model with no cat checks to ask)."""
    if not model.axioms:
        return True
    per = _CACHE.setdefault(model, {})
    if arch not in per:
        g = build([[R("x", 1), W("x", 1)]]).rel
        verdicts = model.prepare(g.sk, arch).check(g.rf, co=g.co)
        per[arch] = any(v.allowed for v in verdicts)
    return per[arch]
