"""From a skeleton's numbering of events to graph ids: a skeleton of the threads' shapes
numbers the initial writes, then each thread's events in turn; a graph of a layout gives
each thread its own block of ids (``Layout.base``)."""

from __future__ import annotations

from collections.abc import Sequence

from herdsman.graphs.execution import Layout
from herdsman.graphs.relalg import Universe

__all__ = ["Blocks", "blocks_of", "renumber", "renumber_set"]

#: (first number in the skeleton, first id in the graph, length) per block
Blocks = list[tuple[int, int, int]]


def blocks_of(lay: Layout, key: Sequence[int]) -> Blocks:
    """The blocks of the skeleton of the threads' shapes ``key`` in ``lay``'s graphs."""
    blocks = [(0, 0, lay.L)]
    off = lay.L
    for t, sid in enumerate(key):
        m = lay.shapes.length[sid]
        blocks.append((off, lay.base[t], m))
        off += m
    return blocks


def renumber_set(s: int, blocks: Blocks) -> int:
    """A set of skeleton events as graph ids."""
    out = 0
    for a, b, m in blocks:
        if m:
            out |= ((s >> a) & ((1 << m) - 1)) << b
    return out


def renumber(v: int, src: Universe, dst: Universe, blocks: Blocks, rel: bool) -> int:
    """A set or (``rel``) a relation of the skeleton's universe ``src`` in graph ids of
    the universe ``dst``."""
    if not rel:
        return renumber_set(v, blocks)
    out = 0
    for a, b, m in blocks:
        for i in range(m):
            row = (v >> ((a + i) * src.cap)) & src.ROW
            if row:
                out |= renumber_set(row, blocks) << ((b + i) * dst.cap)
    return out
