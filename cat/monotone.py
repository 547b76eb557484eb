"""Monotonicity of checks: which axioms can only become more violated as a graph grows.

A graph grows by events that arrive with their rf and co edges, and by rf/co edges added
among existing events.  Each compiled node is classified:

* ``stable``: its value does not depend on rf/co at all (the skeleton: ``po``, ``loc``,
  dependencies, fences, event sets, ``id``...; and anything built from stable things);
* ``monotone``: it can only grow (``rf``, ``co``, and unions, intersections, sequences,
  closures, inverses, products, domains and ranges of monotone-or-stable things,
  ``A \\ B`` with ``B`` stable — also ``A \\ (A & S)`` with ``S`` stable —, least fixpoints
  of monotone bodies);
* ``unknown``: anything else (``FW``, a complement or difference by a growing thing,
  run-time evaluation, ``with`` variables...).

Functions were inlined at their call sites by the compiler, so their bodies are analysed
there.  A plain (rejecting) ``acyclic``/``irreflexive``/``empty`` check on a stable or
monotone value is *monotone*: once it fails on a partial graph, it fails on every
completion.  ``~`` checks, flags and the like never are.
"""

from __future__ import annotations

from herdsman.cat.backend import Backend
from herdsman.cat.checks import operand
from herdsman.cat.ir import Node
from herdsman.cat.program import CheckStep, Compiled, Program, WithStep

STABLE, MONO, UNKNOWN = "stable", "monotone", "unknown"

_JOIN_OPS = frozenset({"union", "inter", "seq", "inv", "plus", "domain", "range", "prod", "toid"})


def _join(classes) -> str:
    out = STABLE
    for c in classes:
        if c == UNKNOWN:
            return UNKNOWN
        if c == MONO:
            out = MONO
    return out


class Analysis:
    """Node classification (memoised) and the monotone checks of a compiled model."""

    def __init__(self, compiled: Compiled) -> None:
        self.c = compiled
        self.memo: dict[int, str] = {}

    def cls(self, v) -> str:
        if type(v) is not Node:
            return STABLE  # a constant
        got = self.memo.get(v.id)
        if got is None:
            got = self._cls(v)
            self.memo[v.id] = got
        return got

    def _cls(self, n: Node) -> str:
        op = n.op
        if op in ("name", "const", "all", "id", "full"):
            return STABLE
        if op == "input":
            return MONO if n.info in ("rf", "co") else UNKNOWN
        if op == "fixvar":
            return MONO  # assumption while analysing the body of its fixpoint
        if op in _JOIN_OPS:
            return _join(self.cls(a) for a in n.args)
        if op == "diff":
            a, b = n.args
            if self.cls(b) == STABLE:
                return self.cls(a)
            if b.op == "inter" and a in b.args:
                rest = [x for x in b.args if x is not a]
                if all(self.cls(x) == STABLE for x in rest):
                    return self.cls(a)
            return STABLE if self.cls(a) == STABLE and self.cls(b) == STABLE else UNKNOWN
        if op == "proj":
            fix = n.args[0]
            if n.info == -1:
                return UNKNOWN
            inputs = _join(self.cls(a) for a in fix.args)
            body = _join(self.cls(r) for r in fix.info.results)
            return _join([inputs, body])
        return UNKNOWN

    def check_class(self, step: CheckStep) -> str:
        if step.kind == "when":
            return UNKNOWN
        x, _ = operand(Backend(graph=self.c.graph), step.kind, step.value, step.pos)
        return self.cls(x)

    def step_monotone(self, step: CheckStep) -> bool:
        return (
            step.mode == "check" and not step.negated and self.check_class(step) in (STABLE, MONO)
        )

    def eligible_steps(self) -> list[CheckStep]:
        """Checks every candidate goes through (not in unrolled branches or loops)."""
        out: list[CheckStep] = []
        prog: Program | None = self.c.program
        while prog is not None:
            out.extend(s for s in prog.steps if isinstance(s, CheckStep))
            tail = prog.tail
            prog = tail.cont if isinstance(tail, WithStep) and tail.branches is None else None
        return out

    def monotone_steps(self) -> dict[int, bool]:
        """id(step) -> whether partial_violation may evaluate it."""
        return {id(s): self.step_monotone(s) for s in self.eligible_steps()}
