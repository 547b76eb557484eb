"""What every explorer records about a test: herd's counts, the executions to show, the result.

The reference explorer (:mod:`engine.reference`) and TruSt (:mod:`engine.trust_tally`)
count accepted executions the same way (one per allowed verdict, as herd), keep the same
executions for ``-show`` and fill the same :class:`engine.result.TestResult`; this module
holds that common part so both engines print identical blocks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from herdsman.engine.result import ShownExecution, TestResult
from herdsman.litmus.errors import InputError
from herdsman.litmus.ir import LitmusTest, Value

__all__ = ["KINDS", "SHOW_MODES", "Counts", "check_show_mode", "wants_show", "shown_execution"]

#: herd's kind word for each quantifier.
KINDS = {"exists": "Allowed", "~exists": "Forbidden", "forall": "Required"}
#: herd's ``-show`` modes (``none``, or no mode, shows nothing).
SHOW_MODES = ("prop", "neg", "all", "cond", "wit")


def check_show_mode(where: str, mode: str | None) -> None:
    """Refuse an unknown ``-show`` mode (an :class:`InputError` about ``where``)."""
    if mode is not None and mode != "none" and mode not in SHOW_MODES:
        raise InputError(where, 0, 0, f"unknown -show mode '{mode}'")


def wants_show(mode: str | None, quant: str, sat: bool) -> bool:
    """Whether herd's ``-show mode`` keeps an accepted execution of a test quantified by
    ``quant`` whose final state satisfies the proposition (``sat``) or not: ``prop`` the
    satisfying ones, ``neg`` the others, ``cond`` those settling the condition (the
    satisfying ones, the others for ``~exists``), ``wit`` the witnesses (the satisfying
    ones, the others for ``forall``), ``all`` every one.  (``-nshow`` is the caller's.)"""
    if mode is None or mode == "none":
        return False
    if mode == "all":
        return True
    if mode == "prop":
        return sat
    if mode == "neg":
        return not sat
    if mode == "cond":
        return (not sat) if quant == "~exists" else sat
    if mode == "wit":
        return (not sat) if quant == "forall" else sat
    return False


def shown_execution(graph: Any, verdict: Any, sat: bool) -> ShownExecution:
    """The picture of an accepted execution: its graph with the relations the model's
    verdict asks to show (``shows``) and the flags it raised."""
    return ShownExecution(
        graph=graph,
        shows=dict(getattr(verdict, "shows", None) or {}),
        satisfies=sat,
        flags=frozenset(getattr(verdict, "flags", ()) or ()),
    )


@dataclass
class Counts:
    """herd's counts over the accepted executions of one test (see :meth:`count`)."""

    states: set[tuple[Value, ...]] = field(default_factory=set)
    positive: int = 0
    negative: int = 0
    flags: set[str] = field(default_factory=set)
    undefined: bool = False
    loop: bool = False
    shown: list[ShownExecution] = field(default_factory=list)

    def count(self, obs: tuple[Value, ...], sat: bool, loop: bool, verdicts: Iterable) -> int:
        """Count the allowed ones of ``verdicts`` (one candidate's) as executions with
        observed final state ``obs``, satisfying the proposition or not (``sat``), from
        thread executions that hit the unrolling bound or not (``loop``); how many."""
        n = 0
        for v in verdicts:
            if v.allowed:
                n += 1
                if v.flags:
                    self.flags.update(v.flags)
                if v.undefined:
                    self.undefined = True
        if n:
            self.states.add(obs)
            if sat:
                self.positive += n
            else:
                self.negative += n
            if loop:
                self.loop = True
        return n

    def result(self, test: LitmusTest, **fields: Any) -> TestResult:
        """herd's block for ``test`` with these counts; ``fields`` gives the engine's part
        (``observed``, ``time``, ``candidates``, ``engine``, ``stats``)."""
        from herdsman.litmus.hash import herd_hash
        from herdsman.litmus.printer import herd_condition_text

        quant = test.condition.quant
        return TestResult(
            name=test.name,
            kind=KINDS.get(quant, "Required"),
            quant=quant,
            states=self.states,
            positive=self.positive,
            negative=self.negative,
            hash=herd_hash(test),
            condition_text=herd_condition_text(test.condition),
            flags=sorted(self.flags),
            undefined=self.undefined,
            loop=self.loop,
            shown=self.shown,
            **fields,
        )
