"""What cat promises the explorers: verdicts, and the two checker interfaces.

``cat.api`` hands these out (it is the only door from the engine into cat); the modules of
cat that implement them import them from here.

* :class:`Session`: a model prepared for one skeleton judges candidates given as
  relations (``check``), or tells that a partial candidate already violates a monotone
  axiom (``partial_violation``).  The reference explorer uses it.
* :class:`ConsistencyChecker`: GenMC's ``ConsistencyChecker`` for explorers that grow one
  :class:`graphs.execution.ExecutionGraph` an event at a time (TruSt): is the graph still
  consistent after adding this event, which writes may this read read from, where may
  this write go in co, which revisits are doomed, and the model's verdicts on a complete
  graph.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from herdsman.graphs.execution import ExecutionGraph, Relations
from herdsman.graphs.skeleton import Skeleton


@dataclass(frozen=True, slots=True)
class Failure:
    """A failed check: its name (None if unnamed), kind, and a witness when asked
    (a cycle for ``acyclic``, ``[e]`` for ``irreflexive``, a pair or event for ``empty``)."""

    name: str | None
    kind: str
    witness: list[int] | None = None


@dataclass(slots=True)
class Verdict:
    """The model's answer for one candidate (one per ``with`` choice).

    ``allowed``: the candidate reached the end of the model; ``failed``: the failing
    checks (the first one only, unless ``explain``); ``flags``: the ``flag`` checks that
    held; ``undefined``: an ``undefined_unless`` check failed; ``co``: the co relation
    bound; ``shows``/``show_sets``: relations/sets to draw (``want_shows``)."""

    allowed: bool
    failed: tuple[Failure, ...] = ()
    flags: frozenset[str] = frozenset()
    undefined: bool = False
    co: int | None = None
    shows: dict[str, int] = field(default_factory=dict)
    show_sets: dict[str, int] = field(default_factory=dict)


class Session(Protocol):
    """A model prepared for one skeleton (see the module docstring).  ``rf`` and ``co``
    are relations over the skeleton's events; ``fw`` the final writes (a set) for models
    that choose co themselves."""

    def check(
        self,
        rf: int,
        co: int | None = None,
        fw: int | None = None,
        explain: bool = False,
        want_shows: bool = False,
    ) -> list[Verdict]: ...

    def partial_violation(self, rf: int, co: int | None = None) -> bool: ...


class PreparedModel(Protocol):
    """What explorers need of a model judging candidates: how it makes co (``native``:
    the explorer enumerates coherence orders; ``generic``/``none``: it passes the final
    writes), and its sessions."""

    @property
    def co_mode(self) -> str: ...

    @property
    def register_events(self) -> bool:
        """Whether the model reads herd's register events (it computes dependencies
        itself: herd's ``catdep``): the explorer then builds them."""
        ...

    def prepare(self, sk: Skeleton, arch: str) -> Session: ...


@dataclass(frozen=True)
class CheckPlan:
    """A checker's monotone checks in the form a compiled explorer runs them itself
    (``engine/trust/_core.c``), over *slots*: static relations of the graph's events.

    Each of ``steps`` is ``(meet, su, terms)``: an emptiness check whose static operands
    meet in the relation of slot ``meet`` (it holds while that meet, restricted to the
    present events, is empty; with two ``terms`` A and B, while the meet has no pair of
    A ; B; with none the compiled explorer cannot decide it otherwise), or (``meet``
    -1) an acyclicity check of the union of slot ``su`` (-1: none) and ``terms``, each
    ``(base, inters, diffs)``: base 1 rf, 2 co, 3 fr, met with the slots ``inters`` and
    without those of ``diffs``.  ``statics(key, words)`` gives every slot's relation for
    the skeleton the threads' paths complete to (per thread, the completion's shape id),
    as ``nslots * size`` rows of ``words`` little-endian 64-bit words each (row ``i``: the
    events ``i`` relates to).
    The slots are restriction stable: restricted to the events present, a relation does
    not depend on how the paths complete."""

    steps: tuple[tuple[int, int, tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]], ...]
    nslots: int
    statics: Callable[[tuple[int, ...], int], bytes]


class ConsistencyChecker(Protocol):
    """Consistency of a growing graph (see the module docstring).  Per graph the checker
    keeps its own state in ``g.cstate``: :meth:`restart` (re)builds it for a graph it has
    not seen (the empty one, or one a revisit built), :meth:`added` and :meth:`removed`
    follow the graph's last event."""

    name: str
    checks: int
    #: whether a complete graph the checks accepted is allowed (no flag, no
    #: ``undefined_unless``): its verdicts need not look at it
    exact: bool

    def compiled_plan(self) -> CheckPlan | None:
        """The checks for a compiled explorer (None: they have no such form)."""
        ...

    def restart(self, g: ExecutionGraph) -> bool:
        """Whether ``g`` may be completed into a consistent graph."""
        ...

    def added(self, g: ExecutionGraph, e: int) -> bool:
        """Whether ``g``, where ``e`` was just added, may still be completed."""
        ...

    def removed(self, g: ExecutionGraph, e: int) -> None:
        """``e``, the last event added, was removed again."""
        ...

    def rf_floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        """How many of the rf options of the read ``e`` (the next event: the initial write
        of location ``li``, then its writes in co order) are certainly inconsistent."""
        ...

    def co_floor(self, g: ExecutionGraph, e: int, li: int) -> int:
        """The lowest co position of the write ``e`` (the next event) that may be
        consistent; the ones below it certainly are not."""
        ...

    def revisit_doomed(self, g: ExecutionGraph, r: int, a: int, kept: Sequence[int]) -> bool:
        """Whether read ``r`` reading from write ``a`` in ``g`` restricted to ``kept``
        (per thread, its first events) is certainly inconsistent."""
        ...

    def verdicts(
        self, g: ExecutionGraph, want_shows: bool = False
    ) -> tuple[list[Verdict], Relations | None]:
        """The model's verdicts on a complete graph, and the relations they judged (None
        when the checks that accepted the graph are all the model has)."""
        ...
