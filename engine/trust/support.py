"""Which models TruSt can explore, and why not the others.

TruSt (Kokologiannakis et al., POPL 2022) builds each consistent graph exactly once if the
model is *prefix-closed* (removing a porf-maximal event keeps a graph consistent: checked
here as every rejecting axiom being monotone, per ``cat/monotone.py``), if its partial
graphs can be checked (the same monotone axioms), and if no consistent graph has a
``porf`` cycle (TruSt adds events in porf order, so it never builds such a graph).  It
also enumerates coherence orders itself, so the model's co must be the standard one
(``co_mode == "native"``).

Here ``porf`` is thread order and rf: the read and the write of one read-modify-write
instruction count as ordered (read first), although herd's ``po`` does not relate them
(``iico``).  A model whose axioms only speak of ``po`` may then allow an RMW to read from
a write that depends on its own write: such graphs exist only in programs with RMWs, so
the condition is checked per model and per kind of program (with or without RMWs).

The porf condition is semantic; it is checked on the model's verdicts for the smallest
porf cycles (load buffering; a read from a po-later write of its own thread; with RMWs,
two RMWs reading each other's write, and an RMW in a load-buffering cycle).  A model that
forbids these but allows a bigger porf cycle would go undetected: TruSt would then miss
those executions.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from herdsman.cat.api import PreparedModel
from herdsman.graphs.build import RMW, Built, R, W, build

_CACHE: weakref.WeakKeyDictionary[PreparedModel, dict[tuple[str, bool], str | None]] = (
    weakref.WeakKeyDictionary()
)

#: The probes (name, graph with a porf cycle), for every program ...
_PROBES: tuple[tuple[str, Callable[[], Built]], ...] = (
    (
        "load buffering (LB: each thread reads the other's later write)",
        lambda: build([[R("x", 1), W("y", 1)], [R("y", 1), W("x", 1)]]),
    ),
    ("a read from a po-later write of its own thread", lambda: build([[R("x", 1), W("x", 1)]])),
)
#: ... and for programs with read-modify-writes.
_RMW_PROBES: tuple[tuple[str, Callable[[], Built]], ...] = (
    (
        "two read-modify-writes that read each other's write",
        lambda: build([[RMW("x", 2, 1)], [RMW("x", 1, 2)]]),
    ),
    (
        "a read-modify-write whose read depends on its own write (through another thread)",
        lambda: build([[RMW("x", 2, 1)], [R("x", 1), W("x", 2)]]),
    ),
)


def refusal(model: PreparedModel, arch: str, rmw: bool = False) -> str | None:
    """Why TruSt cannot explore executions of ``model`` on ``arch`` programs (None: it
    can); ``rmw``: for programs with read-modify-writes.  Computed once per model,
    architecture and kind of program."""
    per = _CACHE.setdefault(model, {})
    key = (arch, rmw)
    if key not in per:
        per[key] = _refusal(model, arch, rmw)
    return per[key]


def _refusal(model: PreparedModel, arch: str, rmw: bool) -> str | None:
    if model.co_mode != "native":
        return (
            f"its coherence order is not the standard one (co_mode '{model.co_mode}'): "
            "TruSt enumerates co itself"
        )
    for ax in model.axioms:
        if ax.mode != "check" or ax.skipped:
            continue
        if not ax.monotone:
            name = f"'{ax.name}'" if ax.name else "(unnamed)"
            where = f" at {ax.pos.file}:{ax.pos.line}"
            return (
                f"its axiom {name} ({ax.test}){where} is not monotone, so partial graphs "
                "cannot be checked"
            )
    for what, make in _PROBES + (_RMW_PROBES if rmw else ()):
        g = make().rel
        verdicts = model.prepare(g.sk, arch).check(g.rf, co=g.co)
        if any(v.allowed for v in verdicts):
            return (
                f"it allows {what}: a po ∪ rf cycle, which TruSt never builds "
                "(use the reference engine)"
            )
    return None


def refusal_message(model: PreparedModel, arch: str, rmw: bool = False) -> str | None:
    """The one-line message for ``--engine trust`` with a model TruSt cannot explore."""
    why = refusal(model, arch, rmw)
    if why is None:
        return None
    kind = " with read-modify-writes" if rmw else ""
    return f"TruSt cannot explore model {model.spec} on {arch} programs{kind}: {why}"
