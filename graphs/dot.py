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

Where the events go (threads side by side, initial writes above) is :mod:`graphs.layout`;
drawing the text as an image is :mod:`graphs.render`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph, Relations
from herdsman.graphs.layout import (
    add_layout,
    column_positions,
    event_rows,
    header_name,
    runs_down,
    spread_flat_labels,
)
from herdsman.litmus.base.arch import fence_picture

if TYPE_CHECKING:  # pydot is imported when a picture is drawn (start-up of runs without)
    import pydot

__all__ = [
    "DRAWABLE",
    "GRAPH_MODES",
    "PICTURE_FORMATS",
    "SHOW_EVENTS",
    "PictureOptions",
    "edge_color",
    "event_action",
    "event_letter",
    "to_dot",
]

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
#: herd's AArch64 annotations of accesses (``AArch64Annot.pp``): acquire, acquire-pc,
#: release
_ORDERING = (("A", "Acq"), ("Q", "AcqPc"), ("L", "Rel"))


def edge_color(label: str, default: str = "brown") -> str:
    """herd's colour for an edge labelled ``label`` (``default`` for unknown names)."""
    key = label[: label.index(":") + 1] if ":" in label else label
    return _COLORS.get(key, default)


def event_letter(k: int) -> str:
    """herd's event name for display number k: ``a``..``z``, then ``ev26``..."""
    return chr(ord("a") + k) if k < 26 else f"ev{k}"


def event_action(e: Event) -> str:
    """herd's ``pp_action``: ``W[x]=1``, ``R[y]*=0`` (atomic), ``Sync``, ``Branching(bcc)``;
    a C program's ``Spawn(P1)`` and ``Join(P1)``."""
    if e.kind in ("R", "W"):
        star = "*" if e.annots & _ATOMIC else ""
        order = next((text for name, text in _ORDERING if name in e.annots), "")
        return f"{e.kind}[{e.loc}]{order}{star}={e.value}"
    if e.reg is not None:  # herd's register events: R0:X1q=x (registers are 64-bit)
        port = " (data)" if "DATA" in e.annots else ""
        return f"{e.kind[0]}{e.tid}:{e.reg}q={e.value}{port}"
    if e.kind == "F":
        if e.fence:
            return fence_picture(e.fence)
        return f"F[{','.join(sorted(e.annots))}]" if e.annots else "F"
    if e.kind == "B":  # a predicate's commit (AArch64's CAS, CSEL) carries its text, or ""
        if e.fence is None:
            return "Branching(bcc)"
        return f"Branching(pred)({e.fence})" if e.fence else "Branching(pred)"
    if e.kind == "N":  # herd's event with no action (an AArch64 jump)
        return ""
    if e.kind == "K":  # herd's lock and SRCU events (herd/CAction.ml pp_action)
        return _KERNEL_ACTIONS.get(e.fence or "", "{k}[{a}]({x})").format(
            x=e.loc, k=e.fence, a=",".join(sorted(e.annots))
        )
    if e.kind in ("S", "J"):  # herdsman's own: a C program's thread spawn and join
        return f"{'Spawn' if e.kind == 'S' else 'Join'}(P{e.value})"
    return e.kind


#: herd's text of the lock and SRCU events (``K``), by their set.
_KERNEL_ACTIONS = {
    "LKR": "Lock({x},R)",
    "LKW": "Lock({x},W)",
    "UL": "Unlock({x})",
    "LF": "TryLock({x},1)",
    "RL": "ReadLock({x},1)",
    "RU": "ReadLock({x},0)",
}


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


@dataclass(frozen=True)
class PictureOptions:
    """herd's picture options: ``-graph`` (``cluster``: a box per thread; ``columns``:
    threads side by side at fixed positions, for ``neato``; ``free``: dot places the
    events), ``-showevents`` (``all``: every event, ``noregs``: all but herd's register
    events, ``mem``: memory accesses, ``memfence``: accesses and fences), ``-squished``
    (short labels),
    ``-showinitwrites``, ``-showthread`` (thread labels; ``po:t`` labels in ``free``),
    ``-doshow``/``-unshow`` (relations added, by the names :data:`DRAWABLE` lists, or
    taken away), and a line under the legend saying which execution this is.  Then how
    the picture is filed: ``format`` (``dot`` text, or an image drawn by herdsman: ``svg``,
    ``png``) and ``layout``, Graphviz's program that places the events (herd's
    ``-dotcom``: ``dot``, or ``neato`` for herd's pinned ``columns``).

    herd's finer styling (``linux-kernel.cfg`` sets it): ``fontsize`` (of the legend,
    events and edges), ``arrowsize``, ``splines``, ``pad``, ``xscale``/``yscale``
    (spacing of ``-graph columns``), ``movelabel`` (an edge's label at its tail),
    ``showinitrf`` (rf from the initial writes when they are hidden), ``showfinalrf``
    (kept for herd's conf files: herdsman draws no final-state node), and ``edgeattr``
    (``label,attribute,value``: an attribute of the edges of that label)."""

    graph: str = "cluster"
    show_events: str = "noregs"
    squished: bool = False
    show_init_writes: bool = True
    show_thread: bool = True
    doshow: frozenset[str] = frozenset()
    unshow: frozenset[str] = frozenset()
    caption: str = ""
    format: str = "dot"
    layout: str = "dot"
    fontsize: int | None = None
    arrowsize: float | None = None
    splines: str | None = None
    pad: float | None = None
    xscale: float = 1.0
    yscale: float = 1.0
    movelabel: bool = False
    show_init_rf: bool = False
    show_final_rf: bool = False
    edge_attrs: tuple[tuple[str, str, str], ...] = ()


#: The ``-graph`` modes and the ``-showevents`` values herd knows; the files herdsman
#: writes (``--format``).
GRAPH_MODES = ("cluster", "columns", "free")
PICTURE_FORMATS = ("dot", "svg", "png")
SHOW_EVENTS = ("all", "noregs", "mem", "memfence")
#: The relations ``-doshow`` can add to any picture (a model's own are drawn when it
#: shows them).
DRAWABLE = ("po", "rf", "co", "fr", "addr", "data", "ctrl", "iico", "loc")


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
    options: PictureOptions | None = None,
) -> str:
    """DOT text of one execution in herd's style (see the module docstring).

    ``shows``: the relations to draw, by name (a model's ``show`` output); ``None`` draws
    ``co`` and ``fr``.  ``co`` is added when missing.  ``show_init_writes=False`` hides the
    initial writes; their rf edges then appear only with ``show_init_rf`` (from a point,
    herd's ``-showinitrf``).  ``model_opts`` goes between ``Generic`` and the model name
    in the legend (e.g. ``[withcatdep]``); with no ``model_name`` the legend is the test
    name alone."""
    opts = options or PictureOptions(show_init_writes=show_init_writes)
    show_init_rf = show_init_rf or opts.show_init_rf
    g = graph if isinstance(graph, Relations) else graph.relations(values=True)
    sk, U = g.sk, g.U
    if not model_opts and sk.has_regs:  # a model that computes dependencies (catdep)
        model_opts = "[withcatdep]"
    evs = g.events
    if shows is None:
        shows = {"co": g.co, "fr": g.fr}
    rels = dict(shows)
    if "co" not in rels:
        rels = {"co": g.co, **rels}
    basic = _drawable(g)
    for name in sorted(opts.doshow):
        if name in basic and name not in rels:
            rels[name] = basic[name]
    for name in opts.unshow:
        rels.pop(name, None)
    show_po = show_po and "po" not in opts.unshow and "po" not in rels
    shown = _shown_events(g, opts)
    num = display_numbers(g)
    mode = opts.graph

    def node(eid: int) -> str:
        return f"eiid{num[eid]}"

    import pydot

    dot = pydot.Dot("G", graph_type="digraph")
    if legend:
        text = f"Test {test_name}"
        if model_name:
            text += f", Generic{model_opts}({model_name})"
        text = _escape(text)
        if opts.caption:
            text += f"\\n{_escape(opts.caption)}"
        dot.set("label", f'"{text}"')
    if opts.fontsize is not None:
        dot.set("fontsize", str(opts.fontsize))
    if opts.splines is not None:
        dot.set("splines", opts.splines)
    if opts.pad is not None:
        dot.set("pad", f'"{opts.pad:f}"')

    def label(i: int, e: Event) -> str:
        head = f"{event_letter(num[i])}: {event_action(e)}"
        if opts.squished:
            return f'"{_escape(head)}"'
        if e.is_init:
            return f'"{_escape(head)}\\lInit"'
        return f'"{_escape(head)}\\lproc:P{e.tid} poi:{e.poi}\\l{_escape(e.instr)}"'

    pos = column_positions(g, shown, opts.squished) if mode == "columns" else {}
    pos = {k: (x * opts.xscale, y * opts.yscale) for k, (x, y) in pos.items()}
    rows = event_rows(g, shown)
    shape = "none" if opts.squished else "box"

    def add(where: pydot.Dot | pydot.Subgraph, i: int, e: Event) -> None:
        extra: dict[str, Any] = {"pos": f'"{pos[i][0]:f},{pos[i][1]:f}!"'} if i in pos else {}
        if mode != "free" and not e.is_init:
            extra["group"] = f"t{e.tid}"
        if opts.fontsize is not None:
            extra["fontsize"] = str(opts.fontsize)
        where.add_node(pydot.Node(node(i), label=label(i, e), shape=shape, color="blue", **extra))

    for i, e in enumerate(evs):
        if e.is_init and (shown >> i) & 1:
            add(dot, i, e)
    for t in range(sk.nthreads):
        thread = f"Thread {t}" if opts.show_thread else ""
        if mode == "cluster":
            sub = pydot.Subgraph(
                f"cluster_proc{t}", label=f'"{thread}"', color="magenta", shape="box"
            )
        if mode == "columns":
            x, y = pos[("proc", t)]
            dot.add_node(
                pydot.Node(
                    header_name(t),
                    shape="none",
                    label=f'"{thread}"',
                    pos=f'"{x:f},{y:f}!"',
                    group=f"t{t}",
                )
            )
        for i, e in enumerate(evs):
            if e.tid == t and (shown >> i) & 1:
                add(sub if mode == "cluster" else dot, i, e)
        if mode == "cluster":
            dot.add_subgraph(sub)

    def edge(a: str, b: str, lbl: str, color: str, ranked: bool = True) -> None:
        attrs = {k: v for name, k, v in opts.edge_attrs if name == lbl}
        color = attrs.pop("color", color)
        q = f'"{color}"' if color.startswith("#") else color
        where = "label"
        text = lbl
        if opts.movelabel and not lbl.startswith("po"):  # herd: at the tail, padded
            where, text = "taillabel", lbl + " " * len(lbl)
        extra: dict[str, Any] = {where: f'"{_escape(text)}"', "color": q, "fontcolor": q}
        if not ranked and mode != "free":
            extra["constraint"] = "false"
        if opts.fontsize is not None:
            extra["fontsize"] = str(opts.fontsize)
        if opts.arrowsize is not None:
            extra["arrowsize"] = f'"{opts.arrowsize:f}"'
        for k, v in attrs.items():
            if k != "label":
                extra[k] = v
        dot.add_edge(pydot.Edge(a, b, **extra))

    def along(a: int, b: int) -> bool:
        return runs_down(evs, rows, a, b)

    if mode != "free":
        add_layout(dot, g, rows, node, mode, sk.nthreads)

    # the relations to draw, restricted to shown events, transitive edges removed
    keep = U.product(shown, shown)
    drawn = {name: U.transitive_reduction(r & keep) for name, r in rels.items()}
    rf = g.rf & keep
    # iico inside instruction instances (consecutive events only)
    iico = sk.iico & keep
    for a, b in U.pairs(iico):
        if not any(U.has(iico, a, c) and U.has(iico, c, b) for c in range(U.n)):
            edge(node(a), node(b), "iico", edge_color("iico", "black"), along(a, b))
    if show_po:
        joined = rf
        for r in drawn.values():
            joined |= r
        joined = 0 if mode == "free" else joined | U.inverse(joined)
        for a, b in _visible_po(g, shown):
            if not U.has(joined, a, b):
                lbl = f"po:{evs[a].tid}" if mode == "free" and opts.show_thread else "po"
                edge(node(a), node(b), lbl, "black", along(a, b))
    if "rf" not in drawn and "rf" not in opts.unshow:
        for a, b in U.pairs(rf):
            edge(node(a), node(b), "rf", "red", along(a, b))
        if not opts.show_init_writes and show_init_rf:
            for _w, b in U.pairs(g.rf & U.product(sk.IW, shown)):
                point = f"init{node(b)}"
                dot.add_node(
                    pydot.Node(point, shape="point", height="0.2", width="0.2", color="red")
                )
                edge(point, node(b), "rf", "red")
    for name, r in drawn.items():
        color = edge_color(name)
        for a, b in U.pairs(r):
            edge(node(a), node(b), name, color, along(a, b))
    if mode != "free":
        spread_flat_labels(dot)
    return dot.to_string()


def _drawable(g: Relations) -> dict[str, int]:
    """The relations :data:`DRAWABLE` names, on ``g``."""
    sk = g.sk
    out = {"po": sk.po, "rf": g.rf, "co": g.co, "fr": g.fr, "iico": sk.iico, "loc": sk.loc}
    out.update(sk.declared_deps())
    return out


def _shown_events(g: Relations, opts: PictureOptions) -> int:
    """The events ``opts`` draws (``-showevents``, ``-showinitwrites``)."""
    sk, U = g.sk, g.U
    keep = U.ALL & ~sk.reg_events  # herd shows register events only with "all"
    if opts.show_events == "all":
        keep = U.ALL
    elif opts.show_events == "mem":
        keep = sk.M
    elif opts.show_events == "memfence":
        keep = sk.M | sk.F
    if not opts.show_init_writes:
        keep &= ~sk.IW
    return keep


def _visible_po(g: Relations, shown: int) -> list[tuple[int, int]]:
    """po between consecutive instruction instances of each thread (last event of one to
    first event of the next) among the events drawn, as herd's ``make_visible_po``."""
    out = []
    groups: dict[int, list[list[int]]] = {}
    for i, e in enumerate(g.events):
        if e.is_init or not (shown >> i) & 1:
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
