"""How a rendered picture reads, measured on Graphviz's layout (its JSON output): the
threads' columns from left to right, and edge labels that cover a node."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass

from herdsman.graphs.render import find_renderer

#: Graphviz's default font size (points) and a generous width of one character in it
#: (when the layout does not say how wide a label's text is).
FONT = 14.0
CHAR = 0.55 * FONT

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Layout:
    """Where things went: each visible node's box and label, each visible edge's label
    box, in points."""

    nodes: dict[str, tuple[Box, str]]
    labels: list[tuple[str, Box]]

    def thread_columns(self) -> list[int]:
        """The threads of the events (``proc:Pt`` in their labels), ordered by the left
        edge of each thread's leftmost event."""
        xs: dict[int, float] = {}
        for box, label in self.nodes.values():
            m = re.search(r"proc:P(\d+)", label)
            if m:
                t = int(m.group(1))
                xs[t] = min(xs.get(t, box[0]), box[0])
        return sorted(xs, key=lambda t: xs[t])

    def init_below_threads(self) -> bool:
        """Whether an initial write is lower than some thread's first event."""
        inits = [box for box, label in self.nodes.values() if "Init" in label]
        events = [box for box, label in self.nodes.values() if "proc:P" in label]
        if not inits or not events:
            return False
        top_event = max(b[3] for b in events)  # y grows upwards in Graphviz
        return min(b[1] for b in inits) < top_event

    def labels_over_nodes(self) -> list[tuple[str, str]]:
        """(edge label, node) pairs whose boxes meet by more than 2 points."""
        out = []
        for text, lb in self.labels:
            for name, (box, _) in self.nodes.items():
                if _meet(lb, box):
                    out.append((text, name))
        return out


def _meet(a: Box, b: Box, slack: float = 2.0) -> bool:
    return (
        a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack
    )


def layout(dot_text: str, engine: str = "dot") -> Layout:
    """Lay ``dot_text`` out with the renderer herdsman uses and measure it."""
    r = find_renderer()
    proc = subprocess.run(
        [r.program, f"-K{engine}", "-Tjson"],
        input=dot_text.encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    doc = json.loads(proc.stdout)
    nodes: dict[str, tuple[Box, str]] = {}
    for o in doc.get("objects", []):
        if "pos" not in o or o.get("style") == "invis" or o.get("shape") == "point":
            continue
        x, y = map(float, o["pos"].split(","))
        w, h = float(o["width"]) * 72 / 2, float(o["height"]) * 72 / 2
        nodes[o["name"]] = ((x - w, y - h, x + w, y + h), o.get("label", ""))
    labels = []
    for e in doc.get("edges", []):
        if "lp" not in e or e.get("style") == "invis":
            continue
        x, y = map(float, e["lp"].split(","))
        text = e.get("label", "")
        # the text's width as Graphviz measured it (else a generous guess)
        widths = [op["width"] for op in e.get("_ldraw_", []) if op.get("op") == "T"]
        w = (max(widths) if widths else len(text) * CHAR) / 2
        labels.append((text, (x - w, y - FONT / 2, x + w, y + FONT / 2)))
    return Layout(nodes, labels)
