"""Which events' values a model may compare on a skeleton (``different-values``).

Explorers share one skeleton between candidates whose events differ only by their values;
a model that compares values needs the candidate's own.  Most of the time the events it
could compare are few or none (the LKMM compares an SRCU lock's value with its unlock's:
none without SRCU), so :func:`compared_events` bounds them from above: the argument of
each ``different-values`` of the model, evaluated with every same-location rf and co
pair, which only adds pairs when the argument is monotone in rf and co
(:mod:`cat.monotone`); None when some argument is not, or cannot be evaluated so.
"""

from __future__ import annotations

from typing import Any

from herdsman.cat.form import Unsupported, eval_static
from herdsman.cat.ir import Node
from herdsman.cat.monotone import UNKNOWN, Analysis
from herdsman.cat.prims import PRIMS
from herdsman.cat.program import Compiled
from herdsman.cat.values import VRel
from herdsman.graphs.skeleton import Skeleton


def arguments(compiled: Compiled) -> list[Any]:
    """The arguments of the model's ``different-values`` (nodes, or values known when
    compiling)."""
    prim = PRIMS["different-values"]
    out = []
    for n in compiled.graph.nodes:
        if n.op == "generic" and n.info[0] == "apply":
            args = n.info[1]
            if args and args[0] is prim:
                out.append(args[1])
    return out


def compared_events(
    compiled: Compiled, analysis: Analysis, sk: Skeleton, names: dict[str, int]
) -> int | None:
    """A superset of the events whose values the model may compare on ``sk`` (a mask;
    ``names``: herd's predefined names' bits), or None when it cannot tell."""
    U = sk.U
    W, R = sk.W, sk.R
    inputs = {"rf": sk.loc & U.product(W, R), "co": sk.loc & U.product(W, W) & ~U.ID}
    memo: dict[int, int] = {}
    out = 0
    for arg in arguments(compiled):
        if type(arg) is VRel:
            out |= U.domain(arg.bits) | U.range(arg.bits)
            continue
        if type(arg) is not Node or analysis.cls(arg) == UNKNOWN:
            return None
        try:
            v = eval_static(arg, U, names, memo, inputs)
        except (Unsupported, KeyError, TypeError):
            return None
        out |= U.domain(v) | U.range(v)
    return out
