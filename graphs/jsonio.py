"""Execution graphs as JSON, and back.

``graph_to_json(g)`` gives a JSON-ready dict: every field of every event, the skeleton's
dependency relations and extra sets, and rf/co, relations as lists of ``[i, j]`` event
pairs (sets as lists of events), so other tools can read a graph without our bit
encoding.  ``graph_from_json(graph_to_json(g))`` rebuilds the same events, relations and
row stride.  Values are ints, or ``{"type": "Sym", "name": ..., "offset": ...}`` for
addresses (the convention of ``litmus/jsonir.py``).
"""

from __future__ import annotations

from typing import Any

from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph, Relations
from herdsman.graphs.relalg import Universe, members
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.ir import Sym, Value

FORMAT = "herdsman-graph/1"


def _value_to_json(v: Value | None) -> Any:
    if isinstance(v, Sym):
        return {"type": "Sym", "name": v.name, "offset": v.offset}
    return v


def _value_from_json(x: Any) -> Value | None:
    if isinstance(x, dict):
        if x.get("type") != "Sym":
            raise ValueError(f"unknown value {x!r}")
        return Sym(x["name"], x.get("offset", 0))
    if x is not None and not isinstance(x, int):
        raise ValueError(f"unknown value {x!r}")
    return x


def _pairs(U: Universe, r: int) -> list[list[int]]:
    return [[i, j] for i, j in U.pairs(r)]


def event_to_json(e: Event) -> dict[str, Any]:
    return {
        "kind": e.kind,
        "tid": e.tid,
        "index": e.index,
        "poi": e.poi,
        "loc": e.loc,
        "value": _value_to_json(None if e.value is None else e.known_value),
        "fence": e.fence,
        "instr": e.instr,
        "annots": sorted(e.annots),
        "addr": e.addr,
        "data": e.data,
        "ctrl": e.ctrl,
        "valdep": e.valdep,
    }


def event_from_json(d: dict[str, Any]) -> Event:
    return Event(
        kind=d["kind"],
        tid=d["tid"],
        index=d.get("index", -1),
        poi=d["poi"],
        loc=d.get("loc"),
        value=_value_from_json(d.get("value")),
        fence=d.get("fence"),
        annots=frozenset(d.get("annots", ())),
        instr=d.get("instr", ""),
        addr=d.get("addr", 0),
        data=d.get("data", 0),
        ctrl=d.get("ctrl", 0),
        valdep=d.get("valdep", 0),
    )


def graph_to_json(graph: ExecutionGraph | Relations) -> dict[str, Any]:
    """The graph as JSON-ready data (see the module docstring)."""
    g = graph if isinstance(graph, Relations) else graph.relations(values=True)
    sk, U = g.sk, g.U
    return {
        "format": FORMAT,
        "nthreads": sk.nthreads,
        "cap": U.cap,
        "events": [event_to_json(e) for e in sk.events],
        "deps": {name: _pairs(U, r) for name, r in sk.deps.items()},
        "extra_sets": {name: members(s) for name, s in sk.extra_sets.items()},
        "rf": _pairs(U, g.rf),
        "co": _pairs(U, g.co),
    }


def graph_from_json(d: dict[str, Any]) -> ExecutionGraph:
    """Inverse of :func:`graph_to_json`."""
    if d.get("format", FORMAT) != FORMAT:
        raise ValueError(f"unsupported graph format {d.get('format')!r}")
    events = tuple(event_from_json(e) for e in d["events"])
    U = Universe(len(events), d.get("cap"))

    def rel(pairs: list[list[int]]) -> int:
        for i, j in pairs:
            if not (0 <= i < U.n and 0 <= j < U.n):
                raise ValueError(f"pair {[i, j]} outside the {U.n} events")
        return U.from_pairs((i, j) for i, j in pairs)

    sk = Skeleton(
        events,
        d["nthreads"],
        deps={name: rel(p) for name, p in d.get("deps", {}).items()},
        extra_sets={name: U.from_set(s) for name, s in d.get("extra_sets", {}).items()},
        cap=d.get("cap"),
    )
    return ExecutionGraph.from_relations(sk, rel(d.get("rf", [])), rel(d.get("co", [])))
