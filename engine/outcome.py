"""What one run of one program under one model found: the :class:`Outcome` every engine returns.

An outcome is generic: final states with the number of allowed executions reaching each
(and whether it satisfies the program's final condition), the model's flags, whether an
execution was cut by the unrolling bound, the executions kept for pictures, every
execution when asked, and the engine's statistics.  herd's words (``Allowed``, ``Ok``,
``Positive``...), its hash and its text are made from it by ``herd_compat``; ``herdsman run
--json`` prints :meth:`Outcome.to_json`.

Explorers count with an :class:`OutcomeBuilder` (one per run), so that every engine counts
executions the same way (one per allowed verdict of the model, as herd) and keeps the same
executions for ``-show``.  Under herd's ``-speedcheck`` an outcome counts only the
executions that settle the condition (:attr:`OutcomeBuilder.irrelevant` says which final
states the explorers skip) and, with ``fast``, only the first of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from herdsman.cat.api import Verdict
from herdsman.engine.errors import ConditionSettled
from herdsman.graphs.execution import ExecutionGraph
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Loc, Sym, Value

__all__ = [
    "SHOW_MODES",
    "ErrorRecord",
    "ExecutionRecord",
    "Outcome",
    "OutcomeBuilder",
    "StateCount",
    "Stats",
    "check_show_mode",
    "wants_show",
]

#: The ``-show`` modes: which accepted executions are kept for pictures (``none``: none).
SHOW_MODES = ("prop", "neg", "all", "cond", "wit", "none")

State = tuple[Value, ...]


def check_show_mode(where: str, mode: str | None) -> None:
    """Refuse an unknown ``-show`` mode (an :class:`InputError` about ``where``)."""
    if mode is not None and mode not in SHOW_MODES:
        raise InputError(
            where, 0, 0, f"unknown -show mode '{mode}' (known: {', '.join(SHOW_MODES)})"
        )


def wants_show(mode: str | None, quant: str, sat: bool) -> bool:
    """Whether ``-show mode`` keeps an accepted execution of a program whose condition is
    quantified by ``quant`` and whose final state satisfies its proposition (``sat``) or
    not: ``prop`` the satisfying ones, ``neg`` the others, ``cond`` those settling the
    condition (the satisfying ones, the others for ``~exists``), ``wit`` the witnesses
    (the satisfying ones, the others for ``forall``), ``all`` every one."""
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


_new = tuple.__new__


class StateCount(NamedTuple):
    """A final state's allowed executions, and whether it satisfies the proposition (a
    named tuple: outcomes cross process boundaries in campaigns, cheaply)."""

    executions: int
    satisfies: bool


@dataclass(slots=True)
class ExecutionRecord:
    """One execution an engine kept: its observed final state, whether it satisfies the
    proposition, its graph with the relations and sets the model asked to show, the
    model's flags on it and, under a preemption bound, its preemptions."""

    state: State
    satisfies: bool
    graph: ExecutionGraph | None = None
    shows: dict[str, int] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()
    preemptions: int | None = None
    beyond_bound: bool = False


@dataclass(slots=True)
class ErrorRecord:
    """An execution where a thread failed an assertion: the assertion (``message``), the
    thread, the front-end's text of the operation (``origin``: a C program's is
    ``LINE: text``), whether the execution is complete (else another thread is blocked),
    its observed final state and its graph (for the trace and the picture).  A data race
    (``RunOptions.races``) is one too: ``race`` names its two accesses, the later one
    first, each ``(thread, index)`` as the graph's events are named (empty when the
    model gave no witness); ``thread`` is then the later access's."""

    message: str
    thread: int
    origin: str
    complete: bool
    state: State
    graph: ExecutionGraph | None = None
    race: tuple[tuple[int, int], ...] | None = None

    def to_json(self, names: list[str]) -> dict[str, Any]:
        return {
            "message": self.message,
            "thread": self.thread,
            "origin": self.origin,
            "complete": self.complete,
            "values": dict(zip(names, map(_json_value, self.state), strict=True)),
            **({} if self.race is None else {"race": [list(e) for e in self.race]}),
        }


#: The counter of the complete executions where GenMC's loop bound ended a thread.
ENDED_LOOP_BOUND = "ended_loop_bound"


@dataclass
class Stats:
    """What an exploration did, the one statistics type of every explorer: CPU ``time``
    (s), ``candidates`` judged by the model (allowed or not), ``complete`` executions
    explored, ``blocked`` explorations, and the engine's own counters by name (``extra``:
    TruSt's revisits and pruned options, RSMC's templates, DPOR's sleep-set cuts, the
    reference engine's value rounds...; see :meth:`counting`)."""

    time: float = 0.0
    candidates: int = 0
    complete: int = 0
    blocked: int = 0
    extra: dict[str, float] = field(default_factory=dict)

    @classmethod
    def counting(cls, names: tuple[str, ...], zero: float = 0.0) -> Stats:
        """Statistics of an explorer whose own counters ``names`` start at ``zero`` (in
        that order: the order they are reported in)."""
        return cls(extra=dict.fromkeys(names, zero))

    def loop_bound_hits(self) -> int:
        """The executions where a loop bound stopped a thread (blocked by it, or complete
        with a thread GenMC's ``-unroll`` ended): the exploration is exhaustive only up to
        the bound."""
        return int(self.extra.get("blocked_loop_bound", 0) + self.extra.get(ENDED_LOOP_BOUND, 0))

    def bump(self, key: str, n: float = 1) -> None:
        self.extra[key] = self.extra.get(key, 0) + n

    def absorb(self, other: Stats) -> None:
        """An exploration's statistics into these (an outcome's): its time, its counts,
        and its own counters after those already here."""
        self.time = other.time
        self.candidates = other.candidates
        self.complete = other.complete
        self.blocked = other.blocked
        self.extra.update(other.extra)

    def __reduce__(self) -> tuple[type[Stats], tuple]:
        # positional: campaigns send outcomes between processes by the thousand
        return (Stats, (self.time, self.candidates, self.complete, self.blocked, self.extra))

    def as_dict(self) -> dict[str, float]:
        out: dict[str, float] = {
            "time": self.time,
            "candidates": self.candidates,
            "complete": self.complete,
            "blocked": self.blocked,
        }
        out.update(self.extra)
        return out


@dataclass
class Outcome:
    """The result of one run (see the module docstring).

    ``observed``: the locations of a final state, in the program's order; ``states`` maps
    each final state (values in that order) reached by an allowed execution to its count;
    ``quantifier`` is the final condition's (``exists``, ``~exists``, ``forall``);
    ``unroll_cut``: an allowed execution hit the unrolling bound (herd's ``Loop``);
    ``undefined``: one failed an ``undefined_unless`` check; ``speedcheck``: herd's
    ``-speedcheck`` mode of the run (``true``, ``fast``: only the executions settling the
    condition were counted, see :class:`OutcomeBuilder`)."""

    program: str
    engine: str
    observed: tuple[Loc, ...]
    quantifier: str
    states: dict[State, StateCount] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()
    undefined: bool = False
    unroll_cut: bool = False
    witnesses: list[ExecutionRecord] = field(default_factory=list)
    executions: list[ExecutionRecord] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)
    errors: list[ErrorRecord] = field(default_factory=list)
    speedcheck: str = "false"

    def __reduce__(self) -> tuple[Callable[..., Outcome], tuple]:
        # positional, the states' counts as plain tuples (a named tuple pickles ~10x
        # slower): campaigns send outcomes between processes by the thousand
        return (
            _outcome,
            (
                self.program,
                self.engine,
                self.observed,
                self.quantifier,
                {state: (c[0], c[1]) for state, c in self.states.items()},
                self.flags,
                self.undefined,
                self.unroll_cut,
                self.witnesses,
                self.executions,
                self.stats,
                self.errors,
                self.speedcheck,
            ),
        )

    @property
    def positive(self) -> int:
        """Allowed executions whose final state satisfies the proposition."""
        return sum(c.executions for c in self.states.values() if c.satisfies)

    @property
    def negative(self) -> int:
        """Allowed executions whose final state does not satisfy it."""
        return sum(c.executions for c in self.states.values() if not c.satisfies)

    @property
    def condition_holds(self) -> bool:
        """Whether the final condition holds: some allowed execution satisfies the
        proposition (``exists``), none does (``~exists``), all do (``forall``)."""
        if self.quantifier == "exists":
            return self.positive > 0
        if self.quantifier == "~exists":
            return self.positive == 0
        return self.negative == 0

    def to_json(self) -> dict[str, Any]:
        """The outcome as JSON data: locations as herd writes them (``0:r1``, ``[x]``),
        integer values as numbers and addresses as strings."""
        names = [str(loc) for loc in self.observed]
        return {
            "program": self.program,
            "engine": self.engine,
            "quantifier": self.quantifier,
            "condition_holds": self.condition_holds,
            "observed": names,
            "states": [
                {
                    "values": dict(zip(names, map(_json_value, st), strict=True)),
                    "executions": c.executions,
                    "satisfies": c.satisfies,
                }
                for st, c in self.states.items()
            ],
            "positive": self.positive,
            "negative": self.negative,
            "flags": sorted(self.flags),
            "undefined": self.undefined,
            "unroll_cut": self.unroll_cut,
            "speedcheck": self.speedcheck,
            "executions": [
                {
                    "values": dict(zip(names, map(_json_value, ex.state), strict=True)),
                    "satisfies": ex.satisfies,
                    **({} if ex.preemptions is None else {"preemptions": ex.preemptions}),
                    **({"beyond_bound": True} if ex.beyond_bound else {}),
                }
                for ex in self.executions
            ],
            "stats": self.stats.as_dict(),
            "errors": [e.to_json(names) for e in self.errors],
        }


def _json_value(v: Value) -> int | str:
    return str(v) if isinstance(v, Sym) else v


def _outcome(
    program: str,
    engine: str,
    observed: tuple[Loc, ...],
    quantifier: str,
    states: dict[State, tuple[int, bool]],
    *rest: Any,
) -> Outcome:
    """An :class:`Outcome` from its pickled fields (see ``Outcome.__reduce__``)."""
    counts = {state: tuple.__new__(StateCount, c) for state, c in states.items()}
    return Outcome(program, engine, observed, quantifier, counts, *rest)


class OutcomeBuilder:
    """Counts allowed executions into an :class:`Outcome` (shared by every explorer).

    ``show``/``nshow``: herd's ``-show`` mode and its cap on kept executions;
    ``speedcheck``: herd's ``-speedcheck`` mode.  With speedcheck, explorers skip the
    executions whose proposition has the value :attr:`irrelevant` (they do not settle the
    condition: herd's ``worth_going``) before asking the model about them, and with
    ``fast`` they call :meth:`settle` after counting one, which ends the run."""

    def __init__(
        self,
        observed: Iterable[Loc],
        quant: str,
        show: str | None = None,
        nshow: int | None = None,
        speedcheck: str = "false",
    ) -> None:
        self.observed = tuple(observed)
        self.quant = quant
        self.show = show
        self.nshow = nshow
        self.speedcheck = speedcheck
        #: speedcheck: the value of the proposition on the final states of no interest
        #: (False for ``exists`` and ``~exists``, True for ``forall``); None: count all
        self.irrelevant: bool | None = None if speedcheck == "false" else quant == "forall"
        #: speedcheck fast: only the first execution settling the condition is counted
        self.fast = speedcheck == "fast"
        self.states: dict[State, list[int | bool]] = {}
        self.flags: set[str] = set()
        self.undefined = False
        self.unroll_cut = False
        self.witnesses: list[ExecutionRecord] = []
        self.executions: list[ExecutionRecord] = []
        self.errors: list[ErrorRecord] = []
        self.stats = Stats()

    def error(self, record: ErrorRecord) -> None:
        """Note an execution where an assertion fails (the first is kept with its graph,
        the others are counted: ``stats.extra["errors"]``)."""
        self.stats.bump("errors")
        if not self.errors:
            self.errors.append(record)

    def count(self, obs: State, sat: bool, loop: bool, verdicts: Iterable[Verdict]) -> int:
        """Count the allowed ones of ``verdicts`` (one candidate's) as executions with
        observed final state ``obs``, satisfying the proposition or not (``sat``); how many
        (with speedcheck ``fast``, the first allowed one only: herd stops there).  An
        allowed candidate whose threads hit the unrolling bound (``loop``) is not counted:
        as herd, it only marks the verdict ``Loop``."""
        if self.fast:
            verdicts = [v for v in verdicts if v.allowed][:1]
        n = self.allowed(verdicts)
        if n and loop:  # as herd: cut by the unrolling bound, it only marks the verdict
            self.unroll_cut = True
            return 0
        if n:
            self.add(obs, sat, n)
        return n

    def allowed(self, verdicts: Iterable[Verdict]) -> int:
        """How many of ``verdicts`` (one candidate's) the model allows, their flags and
        undefined behaviour noted (:meth:`count` without a state: speedcheck off)."""
        n = 0
        for v in verdicts:
            if v.allowed:
                n += 1
                if v.flags:
                    self.flags.update(v.flags)
                if v.undefined:
                    self.undefined = True
        return n

    def add(self, obs: State, sat: bool, n: int) -> None:
        """Count ``n`` allowed executions (:meth:`allowed`) with final state ``obs``."""
        entry = self.states.get(obs)
        if entry is None:
            self.states[obs] = [n, sat]
        else:
            entry[0] += n

    def executions_so_far(self) -> int:
        """The executions counted so far (for a progress report)."""
        return sum([int(n) for n, _ in self.states.values()])

    def settle(self) -> None:
        """An execution settling the condition was counted: with speedcheck ``fast`` the
        run stops (:class:`ConditionSettled`)."""
        if self.fast:
            raise ConditionSettled()

    def wants_witness(self, sat: bool) -> bool:
        """Whether an allowed execution satisfying the proposition or not (``sat``) is to
        be kept for a picture (``-show``, up to ``nshow`` of them)."""
        return wants_show(self.show, self.quant, sat) and (
            self.nshow is None or len(self.witnesses) < self.nshow
        )

    def keep_witness(
        self, graph: ExecutionGraph, verdict: Verdict, state: State, sat: bool
    ) -> None:
        """Keep an allowed execution for a picture, with what the model asks to show."""
        self.witnesses.append(record(graph, verdict, state, sat))

    def finish(self, program: str, engine: str) -> Outcome:
        return Outcome(
            program=program,
            engine=engine,
            observed=self.observed,
            quantifier=self.quant,
            states={st: _new(StateCount, (int(n), bool(s))) for st, (n, s) in self.states.items()},
            flags=frozenset(self.flags),
            undefined=self.undefined,
            unroll_cut=self.unroll_cut,
            witnesses=self.witnesses,
            executions=self.executions,
            stats=self.stats,
            errors=self.errors,
            speedcheck=self.speedcheck,
        )


def record(graph: ExecutionGraph, verdict: Verdict, state: State, sat: bool) -> ExecutionRecord:
    """The record of an allowed execution: its graph, with the relations the model's
    verdict asks to show and the flags it raised."""
    return ExecutionRecord(
        state=state, satisfies=sat, graph=graph, shows=dict(verdict.shows), flags=verdict.flags
    )
