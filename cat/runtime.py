"""Run-time support of generated check code, one instance per skeleton.

Holds the concrete :class:`cat.evaluator.Evaluator` (for what the compiler left to run
time), the verdict constructors, witnesses for ``explain``, and the relation kernels the
generated code calls besides :class:`graphs.relalg.Universe`'s own.
"""

from __future__ import annotations

from herdsman.cat import checks, fixpoint
from herdsman.cat.env import Env
from herdsman.cat.errors import AssertionFailed, CatError, NonConvergence
from herdsman.cat.evaluator import DEFERRED, Evaluator
from herdsman.cat.recursion import DeepRecursion
from herdsman.cat.symbolic import concretize
from herdsman.cat.values import EMPTY, VRel, VSet, VValSet, sorted_items
from herdsman.graphs import herdnames
from herdsman.graphs.execution import Relations


class Runtime:
    """See the module docstring.  ``verdict_cls``/``failure_cls`` come from cat.api."""

    VSet = VSet
    VRel = VRel

    def __init__(self, sk, ev: Evaluator, verdict_cls, failure_cls) -> None:
        self.sk = sk
        self.U = sk.U
        self.EV = ev
        self.Verdict = verdict_cls
        self.Failure = failure_cls
        self._calls: dict[int, object] = {}
        #: the verdicts of rejected candidates, one per check, flags and undefinedness
        #: (their readers never change a verdict)
        self._rejected: dict[tuple, object] = {}
        #: whether a relation has no cycle (the universe's, compiled when it is)
        self.acyclic = self.U.acyclic

    # ------------------------------------------------------------------ kernels

    def seqs(self, rels: tuple[int, ...]) -> int:
        """``r1 ; r2 ; ...`` composed left to right (long sequences: see cat.codegen)."""
        seq = self.U.seq
        out = rels[0]
        for r in rels[1:]:
            out = seq(out, r)
        return out

    def pco(self, rf: int, fw: int) -> int:
        """herd's ``pco`` (graphs.herdnames), with ``obsco`` under the cos-opt variant."""
        return herdnames.pco(Relations(self.sk, rf, 0), fw, optace="cos-opt" in self.EV.variants)

    # ------------------------------------------------------------------ deferred evaluation
    def call(self, node, args: tuple):
        """Evaluate a ``generic``/``runtime`` node on its arguments' run-time values (deep
        recursion allowed: recursive cat functions run here)."""
        nodevals = {n.id: v for n, v in zip(node.args, args, strict=True)}
        memo: dict = {}
        ev = self.EV
        with DeepRecursion():
            if node.op == "generic":
                method, argvals, pos = node.info
                concrete = concretize(argvals, nodevals, memo)
                return DEFERRED[method](ev, *concrete, pos)
            expr, senv = node.info
            vals = {k: concretize(v, nodevals, memo) for k, v in senv.items()}
            return ev.eval(expr, Env(vals, senv.tags, senv.enums))

    @staticmethod
    def bits(v) -> int:
        """The bits of a set or relation a deferred call of that type gives."""
        if type(v) is VRel or type(v) is VSet:
            return v.bits
        if v is EMPTY:
            return 0
        raise TypeError(f"a set or relation expected, found {type(v).__name__}")

    def items(self, s, pos) -> list:
        if s is EMPTY:
            return []
        if type(s) is VValSet:
            return sorted_items(s)
        raise CatError(pos, "set expected")

    def stabilised(self, old, new) -> bool:
        return fixpoint.stabilised(self.EV, old, new, None)

    def final_writes(self, co: int) -> int:
        """The co-last writes (when an engine gives co but not FW)."""
        return self.sk.W & ~self.U.domain(co)

    @staticmethod
    def relation_or_none(v) -> int | None:
        if type(v) is VRel:
            return v.bits
        return 0 if v is EMPTY else None

    @staticmethod
    def show(name: str, v, rels: dict, sets: dict) -> None:
        if type(v) is VRel:
            rels[name] = v.bits
        elif type(v) is VSet:
            sets[name] = v.bits
        elif v is EMPTY:
            rels[name] = 0

    # ------------------------------------------------------------------ checks
    def test(self, kind: str, v) -> bool:
        return checks.test_value(self.EV, kind, False, v, None)

    def test_value(self, kind: str, negated: bool, v) -> bool:
        return checks.test_value(self.EV, kind, negated, v, None)

    def witness(self, kind: str, x, t) -> list[int] | None:
        U = self.U
        if type(x) is not int:
            return None
        if kind == "acyclic":
            return U.find_cycle(x)
        if kind == "irreflexive":
            w = U.reflexive_witness(x)
            return None if w is None else [w]
        if not x:
            return None
        if t == "set":
            return [(x & -x).bit_length() - 1]
        low = (x & -x).bit_length() - 1
        return list(divmod(low, U.cap))

    def rejected(self, name, kind: str, fl, ud):
        key = (name, kind, fl, ud)
        got = self._rejected.get(key)
        if got is None:
            got = self._rejected[key] = self.Verdict(
                False, (self.Failure(name, kind, None),), fl, ud
            )
        return got

    def failure(self, name, kind: str, witness):
        return self.Failure(name, kind, witness)

    @staticmethod
    def assertion(name, pos):
        raise AssertionFailed(pos, f"{name or '(unknown)'} assertion failed, check input test.")

    @staticmethod
    def nonconvergence(pos):
        raise NonConvergence(pos, "let rec does not converge (iteration bound reached)")
