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
* :class:`PreparedModel`: a loaded model as every explorer and analysis receives it: its
  :class:`ModelIdentity` (which model it is: decided once, when it is loaded), its checks
  (:class:`AxiomInfo`), how it makes co, its sessions and its consistency checkers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Protocol

from herdsman.cat.ast import Pos
from herdsman.graphs.execution import ExecutionGraph, Layout, Relations
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


class Base(IntEnum):
    """The base relation a term of a :class:`CheckPlan` starts from (numbered as the
    compiled explorer numbers them)."""

    RF = 1
    CO = 2
    FR = 3


@dataclass(frozen=True, slots=True)
class PlanTerm:
    """A base relation met with the static relations of the slots ``inters`` and
    without those of ``diffs``."""

    base: Base
    inters: tuple[int, ...]
    diffs: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AcyclicStep:
    """An acyclicity check: the union of the static relation of slot ``static`` (None:
    no static part) and of ``terms`` has no cycle."""

    static: int | None
    terms: tuple[PlanTerm, ...]


@dataclass(frozen=True, slots=True)
class EmptyMeetStep:
    """An emptiness check whose static operands meet in the relation of slot ``meet``:
    it holds while that meet, restricted to the events present, is empty, or, with
    ``seq`` = (A, B), while it has no pair of A ; B.  With ``seq`` None a compiled
    explorer cannot decide it when the meet is not empty (the model must be evaluated)."""

    meet: int
    seq: tuple[PlanTerm, PlanTerm] | None


#: The variants of the built-in ``rc11`` and ``ra`` that make them GenMC v0.11's models:
#: its release sequences (C++20's) and its SC order (``cat/models/rc11.cat``).
GENMC_RS = "genmc-rs"
GENMC_SC = "genmc-sc"
GENMC_VARIANTS = (GENMC_RS, GENMC_SC)


@dataclass(frozen=True, slots=True)
class C11Variants:
    """Which of GenMC's variants a C11 model runs with: ``rs`` its release sequences
    (``genmc-rs``), ``sc`` its SC order (``genmc-sc``)."""

    rs: bool = False
    sc: bool = False

    @staticmethod
    def of(names: AbstractSet[str]) -> C11Variants:
        """The variants among the (lower-case) variant names ``names``."""
        return C11Variants(GENMC_RS in names, GENMC_SC in names)


@dataclass(frozen=True, slots=True)
class C11Step:
    """RC11's (``sc`` True) or RA's checks (``cat/c11.py``): happens-before as views,
    coherence, atomicity and, with ``sc``, RC11's SC axiom, over the slots of
    :data:`C11_SLOTS` (per event: its po predecessors, the po-earlier writes at its
    location; then the sets of atomic, acquire, release, SC events and fences, each a
    slot whose row ``x`` is ``{x}`` for its members, else empty); ``variants``: GenMC's
    release sequences and SC order."""

    sc: bool
    variants: C11Variants = C11Variants()


#: The slots of a :class:`C11Step`'s plan, in order.
C11_SLOTS = ("popred", "sbloc", "A", "ACQ", "REL", "SC", "F")

#: One check of a :class:`CheckPlan`.
PlanStep = AcyclicStep | EmptyMeetStep | C11Step


@dataclass(frozen=True)
class CheckPlan:
    """A checker's monotone checks in the form a compiled explorer runs them itself
    (``engine/trust/_core.c``), over *slots*: static relations of the graph's events.

    ``steps``: the checks; ``nslots``: how many slots; ``statics(key, words)`` gives
    every slot's relation for the skeleton the threads' paths complete to (per thread,
    the completion's shape id), as ``nslots * size`` rows of ``words`` little-endian
    64-bit words each (row ``i``: the events ``i`` relates to).  The slots are
    restriction stable: restricted to the events present, a relation does not depend on
    how the paths complete."""

    steps: tuple[PlanStep, ...]
    nslots: int
    statics: Callable[[tuple[int, ...], int], bytes]


@dataclass(frozen=True, slots=True)
class ModelIdentity:
    """Which model a loaded model is, decided once when it is loaded (``cat.identity``),
    from its text, never from its file's name.

    ``family``: the built-in model it is (``sc``, ``tso``, ``pso``, ``power``...: its
    own file, or herd's file of that model), else ``other``; ``machine``: the
    operational machine whose runs are exactly its executions (``sc``, ``tso``, ``pso``),
    None when there is none (or its checks are not all applied: ``-skipchecks``,
    ``-through``); ``target``: the mapping C programs are lowered with for it
    (``litmus.c.target``: ``tso``, ``pso``, ``power``, or ``c``, herd's C annotations);
    ``arch``: the architecture of the tests it is for (None: any); ``digest``: of its
    text, comments and layout aside; ``branch_events``: whether it looks at the commit
    events of conditional branches (a program lowered for it may leave them out when not:
    :attr:`litmus.base.ir.Program.branch_events`)."""

    family: str
    machine: str | None
    target: str
    arch: str | None
    digest: str
    branch_events: bool = True

    @property
    def builtin(self) -> bool:
        """Whether it is one of herdsman's built-in models."""
        return self.family != "other"


@dataclass(frozen=True, slots=True)
class AxiomInfo:
    """A check of the model: ``mode`` is check | flag | undefined_unless | assert;
    ``monotone``: evaluated by ``partial_violation``; ``skipped`` by ``-skipchecks``."""

    name: str | None
    kind: str
    negated: bool
    mode: str
    monotone: bool
    pos: Pos
    skipped: bool = False

    @property
    def test(self) -> str:
        """The test as the model writes it: ``acyclic``, ``~empty``..."""
        return ("~" if self.negated else "") + self.kind


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


class PreparedModel(Protocol):
    """A loaded model as explorers and analyses receive it (``cat.api.Model``; tests may
    give their own): how the user named it (``spec``), which model it is
    (``identity``), its checks (``axioms``), how it makes co (``native``: the explorer
    enumerates coherence orders; ``generic``/``none``: it passes the final writes), its
    sessions, and a consistency checker for graphs of one layout."""

    @property
    def spec(self) -> str: ...

    @property
    def identity(self) -> ModelIdentity: ...

    @property
    def axioms(self) -> Sequence[AxiomInfo]: ...

    @property
    def co_mode(self) -> str: ...

    @property
    def register_events(self) -> bool:
        """Whether the model reads herd's register events (it computes dependencies
        itself: herd's ``catdep``): the explorer then builds them."""
        ...

    @property
    def reads_values(self) -> bool:
        """Whether the model compares events' values (``different-values``)."""
        ...

    def compared_events(self, sk: Skeleton, arch: str) -> int | None:
        """A superset of the events whose values the model may compare on ``sk`` (a mask;
        0: none; None: it cannot tell)."""
        ...

    def prepare(self, sk: Skeleton, arch: str) -> Session: ...

    def consistency_checker(self, arch: str, lay: Layout, kind: str = "auto") -> ConsistencyChecker:
        """A checker of graphs of layout ``lay`` (``kind``: see ``cat.api.CHECKERS``;
        a ``ValueError`` for one the model cannot have)."""
        ...
