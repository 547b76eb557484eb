"""Pictures of executions in herd's style: DOT text (through pydot) and rendering.

``to_dot(g, test_name=..., model_name=..., shows=...)`` draws one execution the way herd's
``-show`` does (``herd/Pretty.ml``, herd-formats.md section 4.5): a ``digraph G`` with the
legend ``Test NAME, Generic(MODEL)``, the initial writes as boxes outside the threads, one
cluster ``Thread t`` per thread, events labelled ``a: W[x]=1\\lproc:P0 poi:1\\lstw r1,0(r2)``,
then the edges:

* ``po`` between consecutive events of a thread (one instruction instance to the next),
  omitted where rf or a shown relation joins the same two events (either direction);
* ``iico`` inside an instruction instance (the read and write of a read-modify-write);
* ``rf`` (red) unless ``rf`` is itself among the shown relations;
* every shown relation, transitive edges removed, labelled with its name and coloured as
  herd does: co/ca/ws blue, fr ``#ffa040``, fences darkgreen, dependencies indigo, other
  names brown.  ``co`` is always drawn.

Letters: herd numbers memory events before the others, so ``a``, ``b``... are the threads'
memory accesses in program order, then the initial writes, then fences and branches
(``ev26``... after ``z``).  herd also numbers register events, which we do not have, so
its letters for fences can differ from ours.

``render(dot_text, path, fmt)`` runs Graphviz ``dot`` (Debian/Ubuntu: ``apt-get install
graphviz``) and raises :class:`RenderError` with a clear message when it is missing.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pydot

from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph, Relations
from herdsman.litmus.arch import fence_picture

__all__ = ["to_dot", "render", "RenderError", "edge_color", "event_letter", "event_action"]

#: Edge colours of ``Pretty.ml`` (looked up by the label, or its prefix up to ``:``).
_COLORS: dict[str, str] = {"rf": "red", "po": "black", "po:": "black", "fr": "#ffa040"}
_COLORS.update(dict.fromkeys(("vo:", "seq"), "magenta"))
_COLORS.update(
    dict.fromkeys(
        ("grf", "A/B:", "ppo-ext:", "ppoext", "membar:", "poloc", "w*w*", "ppo-direct"), "brown"
    )
)
_COLORS["ppo-sela"] = "#00b000"
_COLORS.update(
    dict.fromkeys(
        (
            "lwfence",
            "lwf",
            "ffence",
            "ff",
            "implied",
            "mfence",
            "dmb",
            "lwsync",
            "eieio",
            "sync",
            "dmb-cumul",
            "dsb",
            "dmb.st",
            "dsb.st",
            "dmb.ld",
            "dsb.ld",
            "dmb.sy",
            "dsb.sy",
            "dmbst",
            "dsbst",
            "dsb-cumul",
            "sync-cumul",
            "lwsync-cumul",
            "sync_cumul",
            "lwsync_cumul",
            "syncext",
            "lwsyncext",
            "dmbext",
            "dsbext",
        ),
        "darkgreen",
    )
)
_COLORS.update(dict.fromkeys(("A", "B", "co", "ca", "ws"), "blue"))
_COLORS.update(
    dict.fromkeys(
        (
            "LL",
            "LS",
            "PML",
            "ll",
            "ls",
            "pml",
            "isync",
            "dep",
            "ctrl",
            "data",
            "addr",
            "ctrlisync",
            "isb",
            "ctrlisb",
            "ppo",
            "success",
        ),
        "indigo",
    )
)
_COLORS.update({"iico": "black", "iico_data": "black", "iico_control": "grey"})

#: Annotations that herd prints as ``*`` after the location (atomic accesses).
_ATOMIC = frozenset({"X", "EX"})


class RenderError(Exception):
    """Graphviz is missing or failed."""


def edge_color(label: str, default: str = "brown") -> str:
    """herd's colour for an edge labelled ``label`` (``default`` for unknown names)."""
    key = label[: label.index(":") + 1] if ":" in label else label
    return _COLORS.get(key, default)


def event_letter(k: int) -> str:
    """herd's event name for display number k: ``a``..``z``, then ``ev26``..."""
    return chr(ord("a") + k) if k < 26 else f"ev{k}"


def event_action(e: Event) -> str:
    """herd's ``pp_action``: ``W[x]=1``, ``R[y]*=0`` (atomic), ``Sync``, ``Branching(bcc)``."""
    if e.kind in ("R", "W"):
        star = "*" if e.annots & _ATOMIC else ""
        return f"{e.kind}[{e.loc}]{star}={e.value}"
    if e.kind == "F":
        return fence_picture(e.fence) if e.fence else "F"
    if e.kind == "B":
        return "Branching(bcc)"
    return e.kind


def _escape(s: str) -> str:
    """Text for a DOT string (herd's ``escape_dot`` plus quotes)."""
    return s.replace("\\", "\\\\").replace('"', '\\"')


def display_numbers(g: Relations) -> dict[int, int]:
    """herd-like display numbers: thread memory events, then init writes, then the rest."""
    evs = list(enumerate(g.events))
    order = [i for i, e in evs if e.is_mem and not e.is_init]
    order += [i for i, e in evs if e.is_init]
    order += [i for i, e in evs if not e.is_mem and not e.is_init]
    return {eid: k for k, eid in enumerate(order)}


def to_dot(
    graph: ExecutionGraph | Relations,
    *,
    test_name: str,
    model_name: str = "",
    shows: Mapping[str, int] | None = None,
    show_init_writes: bool = True,
    show_init_rf: bool = False,
    show_po: bool = True,
    legend: bool = True,
    model_opts: str = "",
) -> str:
    """DOT text of one execution in herd's style (see the module docstring).

    ``shows``: the relations to draw, by name (a model's ``show`` output); ``None`` draws
    ``co`` and ``fr``.  ``co`` is added when missing.  ``show_init_writes=False`` hides the
    initial writes; their rf edges then appear only with ``show_init_rf`` (from a point,
    herd's ``-showinitrf``).  ``model_opts`` goes between ``Generic`` and the model name
    in the legend (e.g. ``[withcatdep]``); with no ``model_name`` the legend is the test
    name alone."""
    g = graph if isinstance(graph, Relations) else graph.relations(values=True)
    sk, U = g.sk, g.U
    evs = g.events
    if shows is None:
        shows = {"co": g.co, "fr": g.fr}
    rels = dict(shows)
    if "co" not in rels:
        rels = {"co": g.co, **rels}
    shown = U.ALL if show_init_writes else U.ALL & ~sk.IW
    num = display_numbers(g)

    def node(eid: int) -> str:
        return f"eiid{num[eid]}"

    dot = pydot.Dot("G", graph_type="digraph")
    if legend:
        text = f"Test {test_name}"
        if model_name:
            text += f", Generic{model_opts}({model_name})"
        dot.set("label", f'"{_escape(text)}"')

    def label(i: int, e: Event) -> str:
        head = f"{event_letter(num[i])}: {event_action(e)}"
        if e.is_init:
            return f'"{_escape(head)}\\lInit"'
        return f'"{_escape(head)}\\lproc:P{e.tid} poi:{e.poi}\\l{_escape(e.instr)}"'

    if show_init_writes:
        for i, e in enumerate(evs):
            if e.is_init:
                dot.add_node(pydot.Node(node(i), label=label(i, e), shape="box", color="blue"))
    for t in range(sk.nthreads):
        sub = pydot.Subgraph(
            f"cluster_proc{t}", rank="sink", label=f'"Thread {t}"', color="magenta", shape="box"
        )
        for i, e in enumerate(evs):
            if e.tid == t:
                sub.add_node(pydot.Node(node(i), label=label(i, e), shape="box", color="blue"))
        dot.add_subgraph(sub)

    def edge(a: str, b: str, lbl: str, color: str) -> None:
        q = f'"{color}"' if color.startswith("#") else color
        dot.add_edge(pydot.Edge(a, b, label=f'"{_escape(lbl)}"', color=q, fontcolor=q))

    # the relations to draw, restricted to shown events, transitive edges removed
    keep = U.product(shown, shown)
    drawn = {name: U.transitive_reduction(r & keep) for name, r in rels.items()}
    rf = g.rf & keep
    # iico inside instruction instances (consecutive events only)
    iico = sk.iico & keep
    for a, b in U.pairs(iico):
        if not any(U.has(iico, a, c) and U.has(iico, c, b) for c in range(U.n)):
            edge(node(a), node(b), "iico", edge_color("iico", "black"))
    if show_po:
        joined = rf
        for r in drawn.values():
            joined |= r
        joined |= U.inverse(joined)
        for a, b in _visible_po(g):
            if not U.has(joined, a, b):
                edge(node(a), node(b), "po", "black")
    if "rf" not in drawn:
        for a, b in U.pairs(rf):
            edge(node(a), node(b), "rf", "red")
        if not show_init_writes and show_init_rf:
            for _w, b in U.pairs(g.rf & U.product(sk.IW, shown)):
                point = f"init{node(b)}"
                dot.add_node(
                    pydot.Node(point, shape="point", height="0.2", width="0.2", color="red")
                )
                edge(point, node(b), "rf", "red")
    for name, r in drawn.items():
        color = edge_color(name)
        for a, b in U.pairs(r):
            edge(node(a), node(b), name, color)
    return dot.to_string()


def _visible_po(g: Relations) -> list[tuple[int, int]]:
    """po between consecutive instruction instances of each thread (last event of one to
    first event of the next), as herd's ``make_visible_po``."""
    out = []
    groups: dict[int, list[list[int]]] = {}
    for i, e in enumerate(g.events):
        if e.is_init:
            continue
        gs = groups.setdefault(e.tid, [])
        prev = g.events[gs[-1][-1]] if gs else None
        if prev is not None and prev.poi == e.poi:  # one instruction instance
            gs[-1].append(i)
        else:
            gs.append([i])
    for gs in groups.values():
        for x, y in zip(gs, gs[1:], strict=False):
            out.append((x[-1], y[0]))
    return out


def render(dot_text: str, path: str | Path, fmt: str | None = None) -> Path:
    """Run Graphviz ``dot`` on ``dot_text``, writing ``path`` (format from ``fmt`` or the
    file suffix: svg, png, pdf...).  Raises :class:`RenderError` if ``dot`` is missing or
    fails."""
    path = Path(path)
    fmt = fmt or path.suffix.lstrip(".") or "svg"
    exe = shutil.which("dot")
    if exe is None:
        raise RenderError(
            "Graphviz 'dot' is not on PATH: install Graphviz to render pictures "
            "(Debian/Ubuntu: apt-get install graphviz), or keep the .dot text"
        )
    proc = subprocess.run(
        [exe, f"-T{fmt}", "-o", str(path)],
        input=dot_text.encode(),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        msg = " ".join(proc.stderr.decode(errors="replace").split())
        raise RenderError(f"dot -T{fmt} failed: {msg or 'exit status ' + str(proc.returncode)}")
    return path
