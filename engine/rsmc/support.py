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
  own thread (``po-loc`` is in ``cb^power``) and load buffering through any two of
  ``cb^power``'s edges (``addr``, ``data``, ``ctrl``, ``addr;po``, ``sync``, ``lwsync``):
  a model weaker than POWER (one checking only uniproc, say) is refused.
* An ARMv7 model (``ARM`` tests) that allows load buffering gets ``cb^arm`` (Nidhugg's
  ``--arm``: ``cb^power`` with ARM's full barriers, without ``po-loc``), under the same
  conditions with its edges (``addr``, ``data``, ``ctrl``, ``addr;po``, ``DMB``, ``DSB``,
  ``DMB ISH``): herd's ``arm.cat`` and the built-in ``arm``.
* An AArch64 model computing its dependencies from herd's register events (``catdep``:
  herd's ``aarch64.cat``, the built-in ``aarch64``) gets ``cb^aarch64``, derived from
  Arm's model (:mod:`engine.rsmc.cb`), when it forbids the cycles of
  :mod:`engine.rsmc.aarch64probes` (programs: its dependencies need register events);
  RSMC then builds register events too, and programs with read-modify-writes go to the
  reference engine.  Its non-monotone axioms judge complete traces only.
* Any other model (one allowing load buffering on another architecture) is refused.
* RSMC commits a read-modify-write's read and write together.  herd orders the two by
  ``iico``, not ``po``, so a model may allow an RMW to read from a write that depends on
  its own write (the built-in ``power`` does): for programs with read-modify-writes such
  a model is refused, as TruSt refuses it.

The cycles are checked on the model's own verdicts for the smallest shapes, as TruSt's
(``engine/trust/support.py``).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from herdsman.cat.api import PreparedModel
from herdsman.engine.rsmc import aarch64probes
from herdsman.graphs.build import RMW, F, R, W, build

_CACHE: weakref.WeakKeyDictionary[PreparedModel, dict[str, Choice]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Choice:
    """The commit-before order RSMC uses for a model (``order``, a key of
    ``cb.CB_ORDERS``), or why it cannot explore it (``refusal``)."""

    order: str | None
    refusal: str | None = None
    coherent: bool = False  # the model forbids CoWW and CoRW (see :func:`coherent`)


def _allows(model: PreparedModel, arch: str, threads: list, co: dict | None = None) -> bool:
    g = build(threads, co=co).rel
    return any(v.allowed for v in model.prepare(g.sk, arch).check(g.rf, co=g.co))


def coherent(model: PreparedModel, arch: str) -> bool:
    """Whether the model forbids a write co-before a po-earlier write of its thread to
    the same location (CoWW), and a write co-before the write a po-earlier read of its
    thread read (CoRW): then RSMC never asks it about those co positions."""
    coww = [[W("x", 1, name="a"), W("x", 2, name="b")]]
    corw = [[R("x", 2), W("x", 1, name="a")], [W("x", 2, name="b")]]
    return not _allows(model, arch, coww, {"x": ["b", "a"]}) and not _allows(
        model, arch, corw, {"x": ["a", "b"]}
    )


#: The edges of ``cb^power`` a load-buffering probe puts between a thread's read and write.
_CB_EDGES = ("addr", "data", "ctrl", "addr;po", "sync", "lwsync")
#: ... and those of ``cb^arm`` (its fences by their event kinds).
_ARM_CB_EDGES = ("addr", "data", "ctrl", "addr;po", "DMB", "DSB", "DMB.ISH")
_FENCE_EDGES = {"sync": "SYNC", "lwsync": "LWSYNC", "DMB": "DMB", "DSB": "DSB"}
_FENCE_EDGES |= {"DMB.ISH": "DMB.ISH"}


def _lb_thread(t: int, edge: str, src: str, dst: str) -> tuple[list, dict[str, list]]:
    """Thread ``t`` of a load-buffering probe: read ``src`` = 1, then write ``dst`` = 1,
    ordered by ``edge``; its items and dependencies."""
    r, w = f"r{t}", f"w{t}"
    if edge in _FENCE_EDGES:
        return [R(src, 1, name=r), F(_FENCE_EDGES[edge]), W(dst, 1, name=w)], {}
    if edge == "addr;po":
        return [R(src, 1, name=r), R(f"z{t}", 0, name=f"m{t}"), W(dst, 1, name=w)], {
            "addr": [(r, f"m{t}")]
        }
    return [R(src, 1, name=r), W(dst, 1, name=w)], {edge: [(r, w)]}


def _power_cycle(model: PreparedModel, arch: str, edges: tuple[str, ...] = _CB_EDGES) -> str | None:
    """The first pair of ``edges`` (as ``"sync and data"``: those of ``cb^power`` or
    ``cb^arm``) through which the model allows load buffering, or None: the order is
    valid only for models that allow no execution with a cycle of it."""
    for i, a in enumerate(edges):
        for b in edges[i:]:
            t0, d0 = _lb_thread(0, a, "x", "y")
            t1, d1 = _lb_thread(1, b, "y", "x")
            deps: dict[str, list] = {}
            for d in (d0, d1):
                for k, v in d.items():
                    deps.setdefault(k, []).extend(v)
            g = build([t0, t1], deps=deps).rel
            if any(v.allowed for v in model.prepare(g.sk, arch).check(g.rf, co=g.co)):
                return a if a == b else f"{a} and {b}"
    return None


#: With read-modify-writes: the po ∪ rf cycles through one (herd's ``po`` does not order
#: its read and write, ``iico`` does) that RSMC, committing the two together, never builds.
_RMW_PROBES = (
    (
        "two read-modify-writes that read each other's write",
        lambda: build([[RMW("x", 2, 1)], [RMW("x", 1, 2)]]),
    ),
    (
        "a read-modify-write whose read depends on its own write (through another thread)",
        lambda: build([[RMW("x", 2, 1)], [R("x", 1), W("x", 2)]]),
    ),
)


def _aarch64(model: PreparedModel, arch: str) -> Choice:
    """``cb^aarch64`` for an AArch64 model with register events, if valid for it.  Its
    axioms need not all be monotone (herd's ``aarch64.cat``'s ``external`` is not):
    RSMC's partial traces are each thread's fetched prefix, judged by the monotone ones,
    which reject no prefix of an allowed execution; the others judge complete traces."""
    refusal = _judgeable(model, partial=False)
    if refusal is not None:
        return Choice(None, refusal)
    if _allows(model, arch, [[R("x", 1), W("x", 1)]]):
        return Choice(None, "it allows a read from a po-later write of its own thread")
    found = aarch64probes.cycle(model)
    if found is not None:
        return Choice(
            None,
            f"it allows load buffering through {found}: a cycle of cb^aarch64, RSMC's "
            "commit-before order for AArch64 tests",
        )
    return Choice("aarch64", coherent=coherent(model, arch))


def _judgeable(model: PreparedModel, partial: bool = True) -> str | None:
    """Why RSMC cannot judge traces with the model (None: it can); with ``partial``
    every rejecting axiom must judge partial traces too."""
    if model.co_mode != "native":
        return (
            f"its coherence order is not the standard one (co_mode '{model.co_mode}'): "
            "RSMC enumerates co itself"
        )
    for ax in model.axioms:
        if not partial or ax.mode != "check" or ax.skipped or ax.monotone:
            continue
        name = f"'{ax.name}'" if ax.name else "(unnamed)"
        return (
            f"its axiom {name} ({ax.test}) at {ax.pos.file}:{ax.pos.line} is not monotone, "
            "so partial traces cannot be judged"
        )
    return None


def choose(model: PreparedModel, arch: str, rmw: bool = False) -> Choice:
    """RSMC's commit-before order for ``model`` on ``arch`` programs, with
    read-modify-writes or not (computed once per model, architecture and kind)."""
    per = _CACHE.setdefault(model, {})
    key = f"{arch}/{int(rmw)}"
    got = per.get(key)
    if got is None:
        got = per[key] = _choose(model, arch)
        if rmw and got.order is not None and model.register_events:
            got = per[key] = Choice(
                None,
                "read-modify-writes with herd's register events are explored by the "
                "reference engine",
            )
        elif rmw and got.order is not None:
            for what, make in _RMW_PROBES:
                g = make().rel
                if any(v.allowed for v in model.prepare(g.sk, arch).check(g.rf, co=g.co)):
                    got = per[key] = Choice(
                        None,
                        f"with read-modify-writes it allows {what}: RSMC commits a "
                        "read-modify-write's read and write together, so it never builds "
                        "that (use the reference engine)",
                    )
                    break
    return got


def _choose(model: PreparedModel, arch: str) -> Choice:
    if arch == "AArch64" and model.register_events:
        return _aarch64(model, arch)
    if model.register_events:
        return Choice(
            None,
            "it computes dependencies from herd's register events (catdep), which RSMC "
            "does not build (use the reference engine)",
        )
    refusal = _judgeable(model)
    if refusal is not None:
        return Choice(None, refusal)
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
        cycle = _power_cycle(model, arch)
        if cycle is not None:
            return Choice(
                None,
                f"it allows load buffering through {cycle}: a cycle of cb^power, RSMC's "
                "commit-before order for PPC tests",
            )
        return Choice("power", coherent=coh)
    if arch == "ARM":
        cycle = _power_cycle(model, arch, _ARM_CB_EDGES)
        if cycle is not None:
            return Choice(
                None,
                f"it allows load buffering through {cycle}: a cycle of cb^arm, RSMC's "
                "commit-before order for ARM tests",
            )
        return Choice("arm", coherent=coh)
    return Choice(
        None,
        f"it allows load buffering on {arch}: RSMC's commit-before orders for that are "
        "POWER's (cb^power) and ARM's (cb^arm), for PPC and ARM tests, and AArch64's "
        "(cb^aarch64) for AArch64 models with register events (catdep)",
    )
