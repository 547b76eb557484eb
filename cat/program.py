"""A compiled model: its :class:`Program` of checks over nodes, per step, and its axioms.

:mod:`cat.compiler` makes a :class:`Compiled`; :mod:`cat.codegen` writes its code,
:mod:`cat.monotone` and :mod:`cat.form` read its checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from herdsman.cat import ast as A
from herdsman.cat.env import Env
from herdsman.cat.ir import Graph, Node

# ----------------------------------------------------------------------------- programs


@dataclass
class CheckStep:
    """One check: ``[~]kind value`` in ``mode``; ``index`` into the model's axioms."""

    kind: str
    negated: bool
    mode: str
    name: str | None
    value: Any
    pos: A.Pos
    index: int


@dataclass
class CoStep:
    """Native co: the engine's co must extend ``cobase`` (restricted to same-location
    writes), else the candidate is not one of the model's."""

    cobase: Any
    pos: A.Pos


@dataclass
class RejectStep:
    """The execution is rejected here (empty ``with`` set, failed ``let rec ... when``)."""

    pos: A.Pos
    reason: str


@dataclass
class ForallStep:
    """``forall x in S do ... end`` over a run-time set: ``body`` per element."""

    var: Node
    setval: Any
    body: Program
    pos: A.Pos


@dataclass
class End:
    """The end of the model: the relations/sets to show, and the value of ``co``."""

    shows: dict
    co: Any


@dataclass
class WithStep:
    """``with x from S``: the continuation runs once per element, with x bound to ``var``
    (a node); for a set known at compile time, ``branches`` holds one program per element."""

    var: Node | None
    setval: Any
    cont: Program | None
    pos: A.Pos
    branches: list | None = None


@dataclass
class Program:
    steps: list = field(default_factory=list)
    tail: End | WithStep | None = None


@dataclass
class Axiom:
    """A check as found in the model (before skipping)."""

    name: str | None
    kind: str
    negated: bool
    mode: str
    pos: A.Pos
    skipped: bool
    steps: list = field(default_factory=list)


@dataclass
class Compiled:
    graph: Graph
    program: Program
    axioms: list[Axiom]
    co_mode: str
    withs: int
    native_with: bool
    env: Env | None = None
    bindings: list = field(default_factory=list)
    #: the event sets a bell file predefines -> their annotation (``cat.bell``)
    tag_sets: dict[str, str] = field(default_factory=dict)
    #: the model compares the values of events (``different-values``)
    reads_values: bool = False
    #: the variant names the model's ``if`` s test (lower case)
    variants_read: frozenset[str] = frozenset()
