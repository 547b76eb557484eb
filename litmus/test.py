"""Litmus tests as written: herd's syntax of a test, with the IR operation of each instruction.

A :class:`LitmusTest` keeps what herd's format says (header, info lines, init items as
written, each thread's code, the final condition) so the printer and herd's hash can
reproduce it; each instruction of the code is an :class:`Instruction`: herd's canonical
text, the mnemonic as written, and its operation in the program IR (:mod:`litmus.ir`).
``litmus/lower.py`` makes the :class:`litmus.ir.Program` the engines run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from herdsman.litmus.base.ir import (
    Condition,
    Instr,
    Label,
    Loc,
    Prop,
    RegLoc,
    Value,
    prop_locations,
)
from herdsman.litmus.base.memo import cached


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction of a thread's code: herd's canonical dump of it (``text``: the
    hash, the printer and pictures use it), the mnemonic as written (``ld`` stays
    ``ld``), and what it does (``op``)."""

    text: str
    mnemonic: str
    op: Instr
    #: the instruction's further operations, after ``op`` (one instruction, several
    #: effects: ``LDP``'s second read, a post-indexed access's register update)
    more: tuple[Instr, ...] = ()


#: An item of a thread's code: a label or an instruction.
CodeItem = Label | Instruction


@dataclass(frozen=True, slots=True)
class InitItem:
    """One init item.  ``value`` is None for a bare ``x`` (value 0); ``text`` is the value
    exactly as written (the hash uses it: ``0x10`` stays ``0x10``); ``ctype`` is a C-ish
    type written before the location (``int64_t``), ``pointer`` the ``*`` marker;
    ``written``: its register as written when that is not the canonical name."""

    loc: Loc
    value: Value | None
    text: str = ""
    ctype: str | None = None
    pointer: bool = False
    written: str = field(default="", compare=False)  # a register written otherwise (a0)
    #: an array ``TYPE v[N] = {...}``: its cells' initial values (None: not an array)
    cells: tuple[Value, ...] | None = None


@dataclass(frozen=True)
class LitmusTest:
    """A parsed litmus test (see the module docstring).

    Equality ignores ``path`` and source positions, so ``parse(print(t)) == t``.
    """

    arch: str  # 'PPC' | 'X86'
    name: str
    texname: str | None
    doc: str | None
    info: tuple[tuple[str, str], ...]  # key=value lines, in order
    init: tuple[InitItem, ...]
    threads: tuple[tuple[CodeItem, ...], ...]
    condition: Condition
    locations: tuple[Loc, ...] = ()
    filter: Prop | None = None
    kinds: tuple[tuple[str, str], ...] = ()  # `with name: ~exists; ...` (parsed, ignored)
    path: str = field(default="", compare=False)
    #: condition registers written otherwise than canonically, as written (herd's hash)
    spelled: tuple[tuple[RegLoc, str], ...] = field(default=(), compare=False)

    @property
    def nthreads(self) -> int:
        return len(self.threads)

    def observed_locations(self) -> list[Loc]:
        """Condition locations then ``locations [...]`` items, without repeats (herd does
        not display the locations only the filter reads)."""
        return list(self._observed)

    @cached
    def _observed(self) -> tuple[Loc, ...]:
        """:meth:`observed_locations`, found once (the hash and the lowering both ask)."""
        return observed_of(self.condition, self.locations)


def observed_of(condition: Condition, locations: tuple[Loc, ...]) -> tuple[Loc, ...]:
    """The locations a test with this condition and ``locations [...]`` observes
    (:meth:`LitmusTest.observed_locations`)."""
    out = prop_locations(condition.prop)
    for loc in locations:
        if loc not in out:
            out.append(loc)
    return tuple(out)
