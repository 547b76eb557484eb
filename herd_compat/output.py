"""herd7's per-test output block, byte for byte (herd-formats.md section 4.1).

:func:`format_result` turns an :class:`engine.result.TestResult` into the text herd prints
for one test: ``Test``/``States``/state lines/verdict/``Witnesses``/``Positive``/``Flag``/
``Condition``/``Observation``/``Time``/``Candidates``/``Hash`` and a blank line.  herd sorts
the displayed locations (registers by thread then by the architecture's register order,
then memory by name) and the states (lexicographically on values, integers numerically
before symbols); both orders are applied here, whatever order the engine used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from herdsman.engine.outcome import Outcome
from herdsman.litmus.arch import ARCHS, parsed_archs
from herdsman.litmus.ir import Loc, RegLoc, Sym, SymRegLoc, Value, value_key

#: herd's kind word for each quantifier.
KINDS = {"exists": "Allowed", "~exists": "Forbidden", "forall": "Required"}


@dataclass
class TestResult:
    """herd's per-test block, as data.

    ``kind`` is ``Allowed``/``Forbidden``/``Required`` (from the quantifier);
    ``positive``/``negative`` count accepted executions satisfying / not satisfying the
    proposition (for ``~exists`` herd swaps them when printing ``Positive``/``Negative``);
    ``undefined`` is set when an execution failed an ``undefined_unless`` check; ``loop``
    when an execution hit the unrolling bound."""

    name: str
    kind: str
    quant: str  # exists | ~exists | forall
    observed: list[Loc]
    states: set[tuple[Value, ...]]
    positive: int
    negative: int
    hash: str
    condition_text: str
    flags: list[str] = field(default_factory=list)
    undefined: bool = False
    loop: bool = False
    time: float = 0.0  # CPU seconds
    candidates: int = 0

    @property
    def ok(self) -> bool:
        """herd's Ok/No verdict."""
        if self.quant == "exists":
            return self.positive > 0
        if self.quant == "~exists":
            return self.positive == 0
        return self.negative == 0  # forall


def herd_result(outcome: Outcome, name: str, hash: str, condition_text: str) -> TestResult:
    """herd's block for an outcome of the test named ``name`` (its hash and condition as
    herd prints them)."""
    return TestResult(
        name=name,
        kind=KINDS.get(outcome.quantifier, "Required"),
        quant=outcome.quantifier,
        observed=list(outcome.observed),
        states=set(outcome.states),
        positive=outcome.positive,
        negative=outcome.negative,
        hash=hash,
        condition_text=condition_text,
        flags=sorted(outcome.flags),
        undefined=outcome.undefined,
        loop=outcome.unroll_cut,
        time=outcome.stats.time,
        candidates=outcome.stats.candidates,
    )


def guess_arch(locs: Iterable[Loc]) -> str:
    """The architecture whose register names ``locs`` use (when a result lacks it)."""
    regs = [loc.reg for loc in locs if isinstance(loc, RegLoc)]
    for name in parsed_archs():  # the first architecture all of whose names are registers
        if regs and all(ARCHS[name].register(r) for r in regs):
            return name
    return "PPC"


@lru_cache(maxsize=4096)
def reg_key(arch: str, reg: str) -> tuple:
    """Sort key of register ``reg`` in herd's register order for ``arch``."""
    rec = ARCHS.get(arch)
    return rec.register_key(reg) if rec else (0, 0, reg)


def location_key(arch: str, loc: Loc) -> tuple:
    """Sort key of a displayed location: registers (thread, register order), then symbolic
    registers, then memory locations by name."""
    if isinstance(loc, RegLoc):
        return (0, loc.tid, reg_key(arch, loc.reg), "")
    if isinstance(loc, SymRegLoc):
        return (1, 0, (), loc.name)
    return (2, 0, (), loc.name)


def show_location(loc: Loc) -> str:
    """A location as herd prints it in a state: ``0:r1``, ``[x]``, ``%x0``."""
    return str(loc)


def show_value(v: Value) -> str:
    """A value as herd prints it: signed decimal, or the symbol's name."""
    if isinstance(v, Sym):
        return str(v)
    return str(int(v))


def display_order(observed: Sequence[Loc], arch: str) -> list[int]:
    """Indices of ``observed`` in herd's display order."""
    return sorted(range(len(observed)), key=lambda i: location_key(arch, observed[i]))


def state_lines(
    observed: Sequence[Loc], states: Iterable[tuple[Value, ...]], arch: str = ""
) -> list[str]:
    """herd's state lines, sorted as herd prints them."""
    arch = arch or guess_arch(observed)
    order = display_order(observed, arch)
    locs = [show_location(observed[i]) for i in order]
    rows = [tuple(st[i] for i in order) for st in states]
    rows.sort(key=lambda row: tuple(value_key(v) for v in row))
    return [
        " ".join(f"{loc}={show_value(v)};" for loc, v in zip(locs, row, strict=True))
        for row in rows
    ]


# ----------------------------------------------------------------------------- the block


def verdict_word(r: TestResult) -> str:
    """``Ok``/``No``/``Undef``, prefixed by ``Loop `` when the unrolling bound was hit."""
    word = "Undef" if r.undefined else ("Ok" if r.ok else "No")
    return ("Loop " if r.loop else "") + word


def witnesses(r: TestResult) -> tuple[int, int]:
    """The ``Positive``/``Negative`` pair: swapped for ``~exists`` (herd's check_wit)."""
    if r.quant == "~exists":
        return r.negative, r.positive
    return r.positive, r.negative


def observation_word(positive: int, negative: int) -> str:
    if positive == 0:
        return "Never"
    if negative == 0:
        return "Always"
    return "Sometimes"


def flag_lines(r: TestResult) -> list[str]:
    """``Flag`` lines: ``*undef*`` first (herd's Undef < Flag), then flags by name."""
    names = sorted({f for f in r.flags if f != "*undef*"})
    if r.undefined or "*undef*" in r.flags:
        names.insert(0, "*undef*")
    return [f"Flag {n}" for n in names]


def format_result(r: TestResult, *, arch: str = "", candidates: bool = False) -> str:
    """herd's output block for one test (ending with the empty line).

    ``arch`` selects the register order (``PPC``, ``X86``, ``X86_64``, ``C``); when empty it
    is taken from ``r.arch`` if the result has one, else guessed from the register names.
    ``candidates`` adds the ``Candidates`` line (herd's ``-candidates true``).
    """
    arch = arch or getattr(r, "arch", "") or guess_arch(r.observed)
    out = [f"Test {r.name} {r.kind}", f"States {len(r.states)}"]
    out += state_lines(r.observed, r.states, arch)
    out.append(verdict_word(r))
    out.append("Witnesses")
    pos, neg = witnesses(r)
    out.append(f"Positive: {pos} Negative: {neg}")
    out += flag_lines(r)
    out.append(f"Condition {r.condition_text}")
    out.append(
        f"Observation {r.name} {observation_word(r.positive, r.negative)} {r.positive} {r.negative}"
    )
    out.append(f"Time {r.name} {r.time:0.2f}")
    if candidates:
        out.append(f"Candidates {r.name} {r.candidates}")
    if r.hash:
        out.append(f"Hash={r.hash}")
    return "\n".join(out) + "\n\n"
