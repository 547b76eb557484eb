"""Where the events of a picture go: hints that make Graphviz draw an execution as herd's
pictures read, threads side by side in program order with the initial writes above.

Every drawn event gets a *row*: its place among its thread's drawn events (the initial
writes: row -1).  The k-th events of all threads share a rank (``rank=same``), the
initial writes take the first rank (``rank=min``), and only edges running down a thread
(:func:`runs_down`) order the ranks: every other edge is drawn with ``constraint=false``,
so a read-from across threads never pulls one thread below another.  Invisible edges keep
each thread's events in program order (where ``po`` is not drawn) and the initial writes
above the threads.

``-graph columns``: a ``Thread t`` label node heads each thread's column and invisible
flat edges chain the columns' nodes of every rank in thread order, which ``dot`` keeps,
so threads stand left to right in order; the nodes also carry herd's fixed positions
(:func:`column_positions`) for those who render with ``neato``.  ``-graph cluster``
(herd's default): a box per thread; ``dot`` lays boxes out side by side but may swap two
of them where that saves crossings, as it treats each box as a unit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from herdsman.graphs.events import Event
from herdsman.graphs.execution import Relations

if TYPE_CHECKING:  # pydot is imported when a picture is drawn (start-up of runs without)
    import pydot

__all__ = [
    "add_layout",
    "column_positions",
    "event_rows",
    "header_name",
    "runs_down",
    "spread_flat_labels",
]

#: A label that fits between two columns (characters).
SHORT_LABEL = 3


def event_rows(g: Relations, shown: int) -> dict[int, int]:
    """Each drawn event's row: its place among its thread's drawn events (-1 for an
    initial write)."""
    rows: dict[int, int] = {}
    count: dict[int, int] = {}
    for i, e in enumerate(g.events):
        if (shown >> i) & 1:
            if e.is_init:
                rows[i] = -1
            else:
                rows[i] = count.get(e.tid, 0)
                count[e.tid] = rows[i] + 1
    return rows


def runs_down(events: Sequence[Event], rows: dict[int, int], a: int, b: int) -> bool:
    """Whether an edge from event ``a`` to event ``b`` runs down one thread (only those
    order the layout's ranks)."""
    ea, eb = events[a], events[b]
    return not ea.is_init and ea.tid == eb.tid and rows[a] < rows[b]


def header_name(t: int) -> str:
    """The node naming thread ``t`` above its column (herd's name for it)."""
    return f"proc{t}_label_node"


def _invisible(dot: pydot.Dot, a: str, b: str, weight: int = 1) -> None:
    import pydot

    attrs: dict[str, Any] = {"style": "invis"}
    if weight != 1:
        attrs["weight"] = str(weight)
    dot.add_edge(pydot.Edge(a, b, **attrs))


def add_layout(
    dot: pydot.Dot,
    g: Relations,
    rows: dict[int, int],
    node: Callable[[int], str],
    mode: str,
    nthreads: int,
) -> None:
    """Add the ranks and invisible edges of ``mode`` (``cluster`` or ``columns``; the
    columns' header nodes must be in ``dot`` already)."""
    import pydot

    dot.set("newrank", "true")
    events = g.events
    byrow: dict[int, list[int]] = {}
    for i, r in sorted(rows.items(), key=lambda kv: (kv[1], events[kv[0]].tid, kv[0])):
        byrow.setdefault(r, []).append(i)
    inits = byrow.get(-1, [])
    columns = mode == "columns"
    for r, ids in sorted(byrow.items()):
        rank = "min" if r < 0 and not columns else "same"
        same = pydot.Subgraph(f"rank{r + 1}", rank=rank)
        for i in ids:
            same.add_node(pydot.Node(node(i)))
        dot.add_subgraph(same)
    by_thread: dict[int, list[int]] = {}
    for r, ids in sorted(byrow.items()):
        if r >= 0:
            for i in ids:
                by_thread.setdefault(events[i].tid, []).append(i)
    # a head per thread on top, in thread order (a flat chain no edge crosses), each
    # heading its thread's column (a group: columns do not cross); in columns the
    # thread's label, in a cluster an invisible point
    heads = pydot.Subgraph("rank_threads", rank="min")
    for t in range(nthreads):
        if columns:
            heads.add_node(pydot.Node(header_name(t)))
        else:
            heads.add_node(
                pydot.Node(header_name(t), style="invis", shape="point", width="0", group=f"t{t}")
            )
    dot.add_subgraph(heads)
    for t in range(1, nthreads):
        _invisible(dot, header_name(t - 1), header_name(t))
    for t in range(nthreads):
        for i in inits[t::nthreads] if t < len(inits) else []:
            _invisible(dot, header_name(t), node(i))
        ids = by_thread.get(t, [])
        if ids:
            _invisible(dot, header_name(t), node(ids[0]), 10)
        if inits and ids:
            _invisible(dot, node(inits[min(t, len(inits) - 1)]), node(ids[0]))
    # program order, where po is not drawn (a thread's column stays in order)
    for ids in by_thread.values():
        for a, b in zip(ids, ids[1:], strict=False):
            _invisible(dot, node(a), node(b), 10)


def column_positions(
    g: Relations, shown: int, squished: bool = False
) -> dict[object, tuple[float, float]]:
    """herd's ``-graph columns`` positions (inches, for ``neato``): threads side by side,
    each thread's events downwards in po order, each thread's label above its column
    (key ``("proc", t)``) and the initial writes in a row above the labels.  herd steps 1
    inch across and 0.75 down; squished labels get 1.6 across, full labels (three lines:
    action, proc and poi, instruction) 2.6 across and 1.1 down, so that boxes do not
    overlap."""
    xstep, ystep = (1.6, 0.75) if squished else (2.6, 1.1)
    per: dict[int, list[int]] = {}
    inits = []
    for i, e in enumerate(g.events):
        if not (shown >> i) & 1:
            continue
        if e.is_init:
            inits.append(i)
        else:
            per.setdefault(e.tid, []).append(i)
    nthreads = g.sk.nthreads
    top = max((len(es) for es in per.values()), default=1) - 1
    pos: dict[object, tuple[float, float]] = {}
    for t, es in per.items():
        for k, i in enumerate(es):
            pos[i] = ((t + 1.0) * xstep, (top - k) * ystep)
    y_label = (top + 0.6) * ystep
    y_init = (top + 1.4) * ystep
    delta = 1.0 if nthreads >= len(inits) else 0.75
    shift = (nthreads - len(inits) * delta) / 2.0
    for k, i in enumerate(inits):
        pos[i] = ((shift + k * delta + 1.0) * xstep, y_init)
    for t in range(nthreads):
        pos[("proc", t)] = ((t + 1.0) * xstep, y_label)
    return pos


def _unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def spread_flat_labels(dot: pydot.Dot) -> None:
    """Labels of edges within one row kept off the events: ``dot`` draws such an edge
    straight between the two events and its label halfway, over them when it is longer
    than the gap; such an edge (a label of more than :data:`SHORT_LABEL` characters) leaves
    and enters its events from below instead, its label under the row.  Call it once
    every edge is in (a cycle drawn over a picture adds some)."""
    rows = [
        {_unquote(str(n.get_name())) for n in sub.get_nodes()}
        for sub in dot.get_subgraphs()
        if _unquote(str(sub.get_name())).startswith("rank")
    ]
    for e in dot.get_edges():
        label = _unquote(str(e.get("label") or ""))
        a, b = _unquote(str(e.get_source())), _unquote(str(e.get_destination()))
        if len(label) > SHORT_LABEL and any(a in row and b in row for row in rows):
            e.set("tailport", "s")
            e.set("headport", "s")
