"""What RC11's checker (``cat/c11.py``) needs of a skeleton, in graph ids: per event its
po predecessors and the po-earlier writes at its location, the events of each location,
and the sets of C11 orders."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from herdsman.cat.renumber import blocks_of, renumber_set
from herdsman.graphs.execution import Layout
from herdsman.graphs.herdnames import static_names

__all__ = ["C11Statics", "c11_statics", "members"]


@lru_cache(maxsize=1 << 16)
def members(s: int) -> tuple[int, ...]:
    """The events of an event set, increasing (remembered: the checker's sets recur
    from graph to graph, and a lookup is cheaper than the bit loop)."""
    out = []
    while s:
        low = s & -s
        out.append(low.bit_length() - 1)
        s ^= low
    return tuple(out)


@dataclass(frozen=True, slots=True)
class C11Statics:
    """What the checker needs of a skeleton, over graph ids: per event its po
    predecessors (``popred``, po as herd's C ``po``: along spawns and joins, a
    read-modify-write's read before its write) and the writes among them at its
    location (``sbloc``); the events of each location (``at``, by location index); the
    sets ``A`` (atomic), ``ACQ`` (acquire or stronger: ACQ, ACQ_REL, SC), ``REL``
    (release or stronger), ``SC``, ``F`` (fences), ``R``, ``W``."""

    popred: tuple[int, ...]
    sbloc: tuple[int, ...]
    at: tuple[int, ...]
    A: int
    ACQ: int
    REL: int
    SC: int
    F: int
    R: int
    W: int


def c11_statics(lay: Layout, key: tuple[int, ...], arch: str) -> C11Statics:
    """The statics of the skeleton of the threads' shapes ``key`` (graph ids of ``lay``)."""
    sk = lay.shapes.skeleton(key)
    names = {name: b for name, (_, b) in static_names(sk, arch).items()}
    U = sk.U
    blocks = blocks_of(lay, key)

    def move(s: int) -> int:
        return renumber_set(s, blocks)

    size = lay.size
    to_graph = [0] * U.n
    for a, b, m in blocks:
        for i in range(m):
            to_graph[a + i] = b + i
    po = names["po"]
    popred = [0] * size
    for i in range(U.n):
        row = (po >> (i * U.cap)) & U.ROW
        gi = 1 << to_graph[i]
        while row:
            low = row & -row
            popred[to_graph[low.bit_length() - 1]] |= gi
            row ^= low
    W = move(names["W"])
    at = [0] * lay.L
    for i, ev in enumerate(sk.events):
        li = lay.loc_index.get(ev.loc) if ev.loc is not None and ev.is_mem else None
        if li is not None:  # (a location not laid out yet is met before it matters)
            at[li] |= 1 << to_graph[i]
    sbloc = [0] * size
    for li in range(lay.L):
        s = at[li] & W
        x = at[li]
        while x:
            low = x & -x
            e = low.bit_length() - 1
            sbloc[e] = popred[e] & s
            x ^= low
    return C11Statics(
        popred=tuple(popred),
        sbloc=tuple(sbloc),
        at=tuple(at),
        A=move(names["A"]),
        ACQ=move(names["ACQ"] | names["ACQ_REL"] | names["SC"]),
        REL=move(names["REL"] | names["ACQ_REL"] | names["SC"]),
        SC=move(names["SC"]),
        F=move(names["F"]),
        R=move(names["R"]),
        W=W,
    )
