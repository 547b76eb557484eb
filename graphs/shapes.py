"""Interned shapes of thread prefixes, and the skeletons of their combinations.

Explorers add events one at a time and ask a model about graphs whose threads hold
prefixes of their executions.  The skeleton of such a graph (what a model prepares itself
for) depends only on the *shapes* of the prefixes: their events up to values.  A
:class:`ShapeTable` numbers each shape once (a prefix's shape is the previous shape plus
one event) and builds the skeleton of a combination of shapes once, so a model is prepared
once per combination, however many graphs have it.
"""

from __future__ import annotations

from herdsman.graphs.events import Event, init_write
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.ir import Value

#: Skeletons kept at most (the table is emptied when full, which keeps memory flat).
MAX_SKELETONS = 1024


class ShapeTable:
    """Thread-prefix shapes of one program (id 0: the empty prefix), and skeletons.

    ``locations`` and ``init`` are the program's memory locations (sorted) and their
    initial values: every skeleton starts with their initial writes."""

    def __init__(self, locations: tuple[str, ...], init: tuple[Value, ...]) -> None:
        self.locations = locations
        self.init = init
        self._ids: dict[tuple[int, tuple], int] = {}
        self.last: list[Event | None] = [None]  # per shape: its last event, without value
        self.prev: list[int] = [0]
        self.length: list[int] = [0]
        self._skeletons: dict[tuple[int, ...], Skeleton] = {}

    def intern(self, prev: int, ev: Event) -> int:
        """The shape of the prefix ``prev`` followed by ``ev``."""
        key = (prev, ev.key())
        got = self._ids.get(key)
        if got is None:
            got = self._ids[key] = len(self.prev)
            # a spawn or join keeps its thread (part of the shape)
            self.last.append(ev if ev.kind == "S" or ev.kind == "J" else ev._replace(value=None))
            self.prev.append(prev)
            self.length.append(self.length[prev] + 1)
        return got

    def events(self, sid: int) -> list[Event]:
        """The events of the prefix of shape ``sid`` (without values)."""
        out = []
        while sid:
            e = self.last[sid]
            assert e is not None
            out.append(e)
            sid = self.prev[sid]
        out.reverse()
        return out

    def skeleton(self, key: tuple[int, ...]) -> Skeleton:
        """The skeleton of a graph whose thread ``t`` holds a prefix of shape ``key[t]``:
        initial writes, then thread by thread (cached)."""
        sk = self._skeletons.get(key)
        if sk is None:
            if len(self._skeletons) >= MAX_SKELETONS:
                self._skeletons.clear()
            events = [init_write(x, v) for x, v in zip(self.locations, self.init, strict=True)]
            for sid in key:
                events += self.events(sid)
            sk = self._skeletons[key] = Skeleton(tuple(events), len(key))
        return sk
