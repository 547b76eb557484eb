"""What running one litmus test under one model produces.

Engines fill a :class:`TestResult`; ``herd_compat`` prints it in herd's format, compares it
with herd's logs and stores it in campaign databases.  States are tuples of values in the
order of ``observed`` (herd's display order); herd's state-line order is applied by the
printer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from herdsman.litmus.ir import Loc, Value


@dataclass
class ShownExecution:
    """An execution kept for a picture (``-show``): the graph and the relations to draw."""

    graph: object  # graphs.execution.ExecutionGraph
    shows: dict[str, int]
    satisfies: bool  # whether the condition's proposition holds
    flags: frozenset[str] = frozenset()


@dataclass
class TestResult:
    """herd's per-test block, as data.

    ``kind`` is ``Allowed``/``Forbidden``/``Required`` (from the quantifier);
    ``positive``/``negative`` count accepted executions satisfying / not satisfying the
    proposition (for ``~exists`` herd swaps them when printing ``Positive``/``Negative``;
    see herd_compat.output); ``undefined`` is set when an execution failed an
    ``undefined_unless`` check; ``loop`` when an execution hit the unrolling bound.
    """

    name: str
    kind: str
    quant: str  # exists | ~exists | forall
    observed: list[Loc]
    states: set[tuple[Value, ...]]
    positive: int  # executions satisfying the proposition
    negative: int  # executions not satisfying it
    hash: str
    condition_text: str  # as herd prints it after "Condition "
    flags: list[str] = field(default_factory=list)
    undefined: bool = False
    loop: bool = False
    time: float = 0.0  # CPU seconds
    candidates: int = 0  # candidate executions tried (accepted + rejected)
    engine: str = "reference"
    stats: dict[str, float] = field(default_factory=dict)
    shown: list[ShownExecution] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """herd's Ok/No verdict."""
        if self.quant == "exists":
            return self.positive > 0
        if self.quant == "~exists":
            return self.positive == 0
        return self.negative == 0  # forall
