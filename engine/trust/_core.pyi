"""Types of TruSt's compiled exploration loop (``_core.c``; ``_core128`` is the same
for graphs of up to 128 events)."""

from herdsman.engine.trust.core import CompiledExplorer, CoreStep

#: The graph at the present leaf: per thread its event count; per event its rf source,
#: value id (-1: none), stamp; per location its co and its reads; per event its path
#: node; per thread where it was spawned; the addedmax and revisitable sets; the clock.
Snapshot = tuple[
    list[int],
    list[int],
    list[int],
    list[int],
    list[list[int]],
    list[list[int]],
    list[int],
    list[int],
    int,
    int,
    int,
]

class Core:
    def __init__(
        self,
        host: CompiledExplorer,
        T: int,
        L: int,
        size: int,
        base: list[int],
        room: list[int],
        spawned: list[int],
        initial: list[int],
        steps: list[CoreStep],
        nslots: int,
        estimate: bool,
        max_statics: int,
        writes_first: bool = ...,
        /,
    ) -> None: ...
    def run(self) -> bool: ...
    def stats(self) -> dict[str, int]: ...
    def snapshot(self) -> Snapshot: ...
    def estimate(self) -> float | None: ...
