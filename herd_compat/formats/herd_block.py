"""herd7's per-test block: as data (:class:`HerdBlock`), from an outcome, and as text.

One type holds herd's block whether it was made here from an engine's
:class:`~herdsman.engine.outcome.Outcome` (:func:`herd_result`) or read from a herd7 log
(:mod:`herd_compat.herdlog`), so that campaigns compare like with like and
:func:`format_result` prints both byte for byte as herd does (herd-formats.md section
4.1): ``Test``/``States``/state lines/verdict/``Witnesses``/``Positive``/``Flag``/
``Condition``/``Observation``/``Time``/``Candidates``/``Hash`` and a blank line.  herd sorts
the displayed locations (registers by thread then by the architecture's register order,
then memory by name) and the states (lexicographically on values, integers numerically
before symbols); :func:`herd_result` applies both orders, whatever order the engine used.
Under ``-speedcheck true|fast`` herd's block has the same lines, but only the executions
settling the condition were counted (the ``Observation`` word is still made from the
counts: :func:`observation_word`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter

from herdsman.engine.outcome import Outcome
from herdsman.litmus.base.arch import ARCHS, parsed_archs
from herdsman.litmus.base.casts import DEFAULT_CAST, Cast, cast_value
from herdsman.litmus.base.casts import c_cast as c_cast
from herdsman.litmus.base.ir import Loc, MemLoc, RegLoc, SymRegLoc, Value, value_key
from herdsman.litmus.base.values import array_cell
from herdsman.litmus.printer import hexa_text, loc_text, value_text

#: herd's kind word for each quantifier.
KINDS = {"exists": "Allowed", "~exists": "Forbidden", "forall": "Required"}


@dataclass
class HerdBlock:
    """herd's block for one test, in herd's words and orders.

    ``states`` are the state lines in herd's order; ``verdict`` is ``Ok``/``No``/``Undef``
    (``loop``: herd prefixes it with ``Loop``, an execution hit the unrolling bound);
    ``positive``/``negative`` are the ``Witnesses`` line (herd swaps them for ``~exists``);
    ``obs_positive``/``obs_negative`` the ``Observation`` line: the executions whose final
    state satisfies the proposition, and the others.  ``time`` and ``candidates`` are
    None when the block has no such line."""

    name: str
    kind: str  # Allowed | Forbidden | Required
    states: list[str]
    verdict: str  # Ok | No | Undef
    positive: int
    negative: int
    condition: str  # herd's condition text
    observation: str  # Never | Always | Sometimes
    obs_positive: int
    obs_negative: int
    loop: bool = False
    flags: list[str] = field(default_factory=list)
    time: float | None = None
    candidates: int | None = None
    hash: str | None = None

    @property
    def quant(self) -> str:
        """The condition's quantifier (``exists``, ``~exists``, ``forall``)."""
        return self.condition.split(" ", 1)[0]

    @property
    def condition_text(self) -> str:
        """The condition as herd prints it (the same as :attr:`condition`)."""
        return self.condition

    @property
    def verdict_line(self) -> str:
        """The verdict as herd prints it: ``Ok``, ``No``, ``Undef``, ``Loop Ok``..."""
        return ("Loop " if self.loop else "") + self.verdict


# ----------------------------------------------------------------------------- orders


def guess_arch(locs: Iterable[Loc]) -> str:
    """The architecture whose register names ``locs`` use (when none is given)."""
    regs = [loc.reg for loc in locs if isinstance(loc, RegLoc)]
    for name in parsed_archs():  # the first architecture all of whose names are registers
        if regs and all(ARCHS[name].register(r) for r in regs):
            return name
    return "PPC"


def _beyond_int(rows: list[tuple[Value, ...]]) -> bool:
    """Whether an integer of ``rows`` is not an ``int``'s (32 bits, signed)."""
    return any(type(v) is int and not -0x80000000 <= v <= 0x7FFFFFFF for row in rows for v in row)


@lru_cache(maxsize=4096)
def reg_key(arch: str, reg: str) -> tuple:
    """Sort key of register ``reg`` in herd's register order for ``arch``."""
    rec = ARCHS.get(arch)
    return rec.register_key(reg) if rec else (0, 0, reg)


def location_key(arch: str, loc: Loc) -> tuple:
    """Sort key of a displayed location: registers (thread, register order), then symbolic
    registers, then memory locations by name, then arrays' cells (by array, then index)."""
    if isinstance(loc, RegLoc):
        return (0, loc.tid, reg_key(arch, loc.reg), "")
    if isinstance(loc, SymRegLoc):
        return (1, 0, (), loc.name)
    cell = array_cell(loc)
    if cell is not None:
        return (3, 0, cell, "")
    return (2, 0, (), loc.name)


@dataclass(frozen=True, slots=True)
class Whole:
    """An array observed whole, herd's ``x={1,2}``: its location and the locations of an
    outcome holding its cells, in order (``x[0]``, ``x[1]``...)."""

    loc: MemLoc
    cells: tuple[Loc, ...]


def state_lines(
    observed: Sequence[Loc],
    states: Iterable[tuple[Value, ...]],
    arch: str = "",
    casts: Mapping[Loc, Cast | None] | None = None,
    hexa: bool = False,
    shown: Sequence[Loc | Whole] | None = None,
) -> list[str]:
    """herd's state lines, sorted as herd prints them (``arch`` empty: guessed from the
    register names); ``casts`` gives the C locations' types (:func:`c_cast`), which
    change how their values print, not how the states sort; ``hexa``: values in
    hexadecimal, as unsigned words of their type (herd's ``-hexa true``); ``shown``:
    the locations herd displays when they are not ``observed`` (arrays observed whole,
    each value ``{v0,v1}`` of its cells)."""
    if shown is not None:
        return _whole_state_lines(observed, states, arch, casts or {}, hexa, shown)
    order, heads, template, columns = _display(tuple(observed), arch or guess_arch(observed))
    rows = list(map(columns, states))
    if not hexa and not casts:  # the usual case: plain integers of an int's range
        seen = set().union(*rows)
        if all(type(v) is int and -0x80000000 <= v <= 0x7FFFFFFF for v in seen):
            rows.sort()
            return list(map(template.__mod__, rows))
    if hexa or casts or _beyond_int(rows):  # herd prints a location of no type as an int
        types = [(casts or {}).get(observed[i], DEFAULT_CAST) for i in order]
        rows.sort(key=lambda row: tuple([value_key(v) for v in row]))
        return [
            "".join(
                [
                    f"{h}{_typed_text(v, c, hexa)};"
                    for h, v, c in zip(heads, row, types, strict=True)
                ]
            )
            for row in rows
        ]
    if all(type(v) is int for row in rows for v in row):  # the usual case: plain integers
        rows.sort()
        return ["".join([f"{h}{v};" for h, v in zip(heads, row, strict=True)]) for row in rows]
    rows.sort(key=lambda row: tuple([value_key(v) for v in row]))
    return [
        "".join([f"{h}{value_text(v)};" for h, v in zip(heads, row, strict=True)]) for row in rows
    ]


def _whole_state_lines(
    observed: Sequence[Loc],
    states: Iterable[tuple[Value, ...]],
    arch: str,
    casts: Mapping[Loc, Cast | None],
    hexa: bool,
    shown: Sequence[Loc | Whole],
) -> list[str]:
    """:func:`state_lines` of the locations ``shown``, arrays observed whole among them:
    herd sorts a whole array's values cell by cell, and prints them ``{v0,v1}``."""
    locs = tuple([x.loc if isinstance(x, Whole) else x for x in shown])
    order = _display(locs, arch or guess_arch(observed))[0]
    heads = [("" if k == 0 else " ") + _shown_text(shown[i]) + "=" for k, i in enumerate(order)]
    at = {loc: i for i, loc in enumerate(observed)}
    columns = [
        tuple([at[c] for c in x.cells]) if isinstance(x, Whole) else at[x]
        for x in (shown[i] for i in order)
    ]
    types = [casts.get(locs[i], DEFAULT_CAST) for i in order]

    def key(st: tuple[Value, ...]) -> tuple:
        return tuple(
            [
                tuple([value_key(st[j]) for j in col])
                if isinstance(col, tuple)
                else value_key(st[col])
                for col in columns
            ]
        )

    lines = []
    for st in sorted(states, key=key):
        parts = []
        for h, col, c in zip(heads, columns, types, strict=True):
            if isinstance(col, tuple):
                parts.append(f"{h}{{{','.join([_typed_text(st[j], c, hexa) for j in col])}}};")
            else:
                parts.append(f"{h}{_typed_text(st[col], c, hexa)};")
        lines.append("".join(parts))
    return lines


def _typed_text(v: Value, c: Cast | None, hexa: bool) -> str:
    """A value as herd prints it in a location of type ``c`` (in hexadecimal: ``hexa``)."""
    typed = cast_value(v, c)
    return hexa_text(typed, (c or DEFAULT_CAST)[0]) if hexa else value_text(typed)


def _shown_text(x: Loc | Whole) -> str:
    """A displayed location as herd prints it in states (a whole array without brackets)."""
    return x.loc.name if isinstance(x, Whole) else loc_text(x)


@lru_cache(maxsize=4096)
def _display(
    observed: tuple[Loc, ...], arch: str
) -> tuple[tuple[int, ...], tuple[str, ...], str, Callable[[tuple[Value, ...]], tuple]]:
    """herd's display order of the locations of a state, the text before each value
    (``0:r1=``, then `` [x]=``...), a state line's ``%`` template for integer values
    in that order (``0:r1=%d; [x]=%d;``) and the function taking a state's values in
    that order."""
    order = tuple(sorted(range(len(observed)), key=lambda i: location_key(arch, observed[i])))
    heads = tuple(
        ("" if k == 0 else " ") + loc_text(observed[i]) + "=" for k, i in enumerate(order)
    )
    template = "".join([h.replace("%", "%%") + "%d;" for h in heads])
    columns: Callable[[tuple[Value, ...]], tuple]
    if len(order) >= 2:
        columns = itemgetter(*order)  # (a tuple of them, in one C call)
    else:
        columns = lambda st: tuple([st[i] for i in order])  # noqa: E731 - of one or none
    return order, heads, template, columns


# ----------------------------------------------------------------------------- the block


def observation_word(positive: int, negative: int) -> str:
    """herd's ``Observation`` word: ``Never`` without a positive execution, ``Always``
    without a negative one, else ``Sometimes``.  herd7 7.57 says it from the counts alone,
    under ``-speedcheck`` too (where the executions that settle nothing were not counted:
    ``Always 1 0`` for an ``exists`` settled at once)."""
    if positive == 0:
        return "Never"
    if negative == 0:
        return "Always"
    return "Sometimes"


def flag_lines(flags: Iterable[str], undefined: bool) -> list[str]:
    """herd's flags in order: ``*undef*`` first (herd's Undef < Flag), then by name."""
    if not flags and not undefined:  # the usual block: no flag
        return []
    names = sorted({f for f in flags if f != "*undef*"})
    if undefined or "*undef*" in flags:
        names.insert(0, "*undef*")
    return names


def herd_result(
    outcome: Outcome,
    name: str,
    hash: str,
    condition_text: str,
    *,
    arch: str = "",
    time: float | None = None,
    candidates: bool = False,
    casts: Mapping[Loc, Cast | None] | None = None,
    hexa: bool = False,
    shown: Sequence[Loc | Whole] | None = None,
) -> HerdBlock:
    """herd's block for an outcome of the test named ``name`` (its hash and condition as
    herd prints them; ``arch`` orders the registers, guessed when empty).  ``time`` is
    the test's CPU time (default: the engine's); ``candidates`` adds herd's
    ``Candidates`` line (``-candidates true``); ``casts``: the types of a C test's
    locations and ``shown`` the displayed ones when they differ (see :func:`state_lines`)."""
    pos = neg = 0  # (outcome.positive and outcome.negative, in one pass)
    for executions, satisfies in outcome.states.values():
        if satisfies:
            pos += executions
        else:
            neg += executions
    quant = outcome.quantifier
    # (outcome.condition_holds, from the counts at hand)
    holds = pos > 0 if quant == "exists" else pos == 0 if quant == "~exists" else neg == 0
    return HerdBlock(
        name=name,
        kind=KINDS.get(quant, "Required"),
        states=state_lines(outcome.observed, outcome.states, arch, casts, hexa, shown),
        verdict="Undef" if outcome.undefined else ("Ok" if holds else "No"),
        positive=neg if quant == "~exists" else pos,  # herd's check_wit
        negative=pos if quant == "~exists" else neg,
        condition=condition_text,
        observation=observation_word(pos, neg),
        obs_positive=pos,
        obs_negative=neg,
        loop=outcome.unroll_cut,
        flags=flag_lines(outcome.flags, outcome.undefined),
        time=outcome.stats.time if time is None else time,
        candidates=outcome.stats.candidates if candidates else None,
        hash=hash,
    )


def format_result(b: HerdBlock) -> str:
    """herd's text of a block (ending with the empty line)."""
    name = b.name
    out = [f"Test {name} {b.kind}\nStates {len(b.states)}", *b.states]
    verdict = f"Loop {b.verdict}" if b.loop else b.verdict  # (b.verdict_line)
    out.append(f"{verdict}\nWitnesses\nPositive: {b.positive} Negative: {b.negative}")
    if b.flags:
        out += [f"Flag {f}" for f in b.flags]
    out.append(
        f"Condition {b.condition}\n"
        f"Observation {name} {b.observation} {b.obs_positive} {b.obs_negative}"
    )
    if b.time is not None:
        out.append(f"Time {b.name} {b.time:0.2f}")
    if b.candidates is not None:
        out.append(f"Candidates {b.name} {b.candidates}")
    if b.hash:
        out.append(f"Hash={b.hash}")
    return "\n".join(out) + "\n\n"
