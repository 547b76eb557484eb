"""herd's single-event read-modify-writes, for the models that judge them.

herd gives a RISC-V ``amo`` one event that is both a read and a write (its ``AMO`` set).
herdsman's explorers give it two, a read then a write of one instruction instance, as any
read-modify-write, so that rf and co are chosen as for the others: the two are in
bijection with herd's (the read's rf is the event's rf, the write's place in co the
event's).  A model judges the *fused* skeleton (:func:`fuse`): each such pair (both
events annotated ``AMO``) is one event of kind ``U``, the later events of its thread
renumbered, dependencies moved along.  As herd's, the fused event's address depends on
every register it reads (the stored one too: it is a load), its data on the stored one.
:class:`Fused` maps relations and sets between the two numberings.
"""

from __future__ import annotations

from dataclasses import dataclass

from herdsman.graphs.events import Event
from herdsman.graphs.relalg import Universe, bits
from herdsman.graphs.skeleton import Skeleton

#: The annotation of the two events of a read-modify-write herd makes one event.
FUSED = "AMO"


@dataclass(frozen=True)
class Fused:
    """A skeleton with its fused pairs made one event (``sk``); ``to`` maps each event of
    the original to its event in ``sk``, ``back`` each event of ``sk`` to the original
    (a fused event to the pair's write)."""

    sk: Skeleton
    U0: Universe  # the original skeleton's universe
    to: tuple[int, ...]
    back: tuple[int, ...]

    def rel(self, r: int) -> int:
        """Relation ``r`` of the original in ``sk`` (pairs inside a fused event dropped)."""
        U, to = self.sk.U, self.to
        out = 0
        for i, j in self.U0.pairs(r):
            a, b = to[i], to[j]
            if a != b:
                out |= U.pair(a, b)
        return out

    def set(self, s: int) -> int:
        """Event set ``s`` of the original in ``sk``."""
        out = 0
        for i in bits(s):
            out |= 1 << self.to[i]
        return out

    def rel_back(self, r: int) -> int:
        """Relation ``r`` of ``sk`` in the original (a fused event is its write)."""
        U0, back = self.U0, self.back
        out = 0
        for a, b in self.sk.U.pairs(r):
            out |= U0.pair(back[a], back[b])
        return out

    def set_back(self, s: int) -> int:
        out = 0
        for a in bits(s):
            out |= 1 << self.back[a]
        return out


def _pairs(events: tuple[Event, ...]) -> list[int]:
    """The reads whose next event is the write of the same fused read-modify-write."""
    out = []
    for i in range(len(events) - 1):
        r, w = events[i], events[i + 1]
        if (
            r.kind == "R"
            and w.kind == "W"
            and FUSED in r.annots
            and FUSED in w.annots
            and r.tid == w.tid >= 0
            and r.poi == w.poi
        ):
            out.append(i)
    return out


def fuse(sk: Skeleton) -> Fused | None:
    """``sk`` with its fused read-modify-writes made one event each (None: it has none)."""
    if FUSED not in sk.annotated:  # no event of a fused read-modify-write
        return None
    events = sk.events
    pairs = _pairs(events)
    if not pairs:
        return None
    reads = set(pairs)
    to: list[int] = []
    back: list[int] = []
    pos: dict[int, list[int]] = {}  # per thread: old position -> new position
    for i, e in enumerate(events):
        if i - 1 in reads:  # the write of a fused pair: the read's event
            to.append(to[i - 1])
            back[-1] = i
            pos[e.tid].append(pos[e.tid][-1])
            continue
        to.append(len(back))
        back.append(i)
        if e.tid >= 0:
            at = pos.setdefault(e.tid, [])
            at.append(at[-1] + 1 if at else 0)
    new: list[Event] = []
    for i, e in enumerate(events):
        if i - 1 in reads:
            continue
        if e.tid < 0:
            new.append(e)
            continue
        p = pos[e.tid]

        def m(mask: int, p: list[int] = p) -> int:
            out = 0
            for k in bits(mask):
                out |= 1 << p[k]
            return out

        if i in reads:
            w = events[i + 1]
            me = ~(1 << p[e.index])
            new.append(
                Event(
                    "U",
                    e.tid,
                    p[e.index],
                    e.poi,
                    e.loc,
                    w.value,
                    None,
                    e.annots | w.annots,
                    e.instr,
                    m(e.addr | w.addr | w.data) & me,
                    m(w.data) & me,
                    m(e.ctrl | w.ctrl) & me,
                    m(w.valdep) & me,
                )
            )
            continue
        new.append(
            Event(
                e.kind,
                e.tid,
                p[e.index],
                e.poi,
                e.loc,
                e.value,
                e.fence,
                e.annots,
                e.instr,
                m(e.addr),
                m(e.data),
                m(e.ctrl),
                m(e.valdep),
            )
        )
    # the relations and sets given beside the events, moved along (the declared
    # dependencies come again from the events' masks)
    tmp = Fused(Skeleton(tuple(new), sk.nthreads), sk.U, tuple(to), tuple(back))
    deps = {name: tmp.rel(rel) for name, rel in sk.deps.items()}
    sets = {name: tmp.set(s) for name, s in sk.extra_sets.items()}
    fused = Skeleton(tuple(new), sk.nthreads, deps=deps, extra_sets=sets)
    return Fused(fused, sk.U, tuple(to), tuple(back))
