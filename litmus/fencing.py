"""Insert fences and dependencies into a litmus test's threads at given positions.

``fenced_test(test, placements)`` gives the herd-format text of ``test`` with each
:class:`FencePlacement` inserted (the choice of placements is made elsewhere), and for each
code item of the fenced threads the index of the original item it came from.  Fences are
one instruction (X86 ``MFENCE``; PPC ``sync``, ``lwsync``); PPC ``ctrl`` and ``ctrlisync``
are herd's control-dependency idiom after a load of ``rD``: ``cmpw rD,rD``, ``beq LCnn``,
``LCnn:`` (then ``isync`` for ctrlisync), with a label fresh in the test.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from herdsman.litmus.base.ir import Branch, Label, Load, Op
from herdsman.litmus.printer import print_test
from herdsman.litmus.table import ASSEMBLERS
from herdsman.litmus.test import CodeItem, Instruction, LitmusTest

__all__ = ["KINDS", "FencePlacement", "fenced_test"]


@dataclass(frozen=True, order=True)
class FencePlacement:
    """A fence of ``kind`` in thread ``thread`` (P0 = 0), before its code item ``before``
    (labels count; ``len(code)`` is the end of the thread)."""

    thread: int
    before: int
    kind: str


#: The kinds of placement each architecture accepts.
KINDS: dict[str, tuple[str, ...]] = {
    "X86": ("MFENCE",),
    "PPC": ("sync", "lwsync", "ctrl", "ctrlisync"),
}

#: Kinds that are dependencies on the load just before the placement (inserted first).
_DEPENDENCIES = frozenset({"ctrl", "ctrlisync"})


def fenced_test(
    test: LitmusTest, placements: Iterable[FencePlacement]
) -> tuple[str, list[list[int | None]]]:
    """herd-format text of ``test`` with the fences inserted, and per thread of the fenced
    test, for each of its code items the index of the original item it came from (None: an
    inserted item).  Several placements at one position go in a fixed order (dependencies
    first, then fences, each in :data:`KINDS` order); duplicates count once."""
    kinds = KINDS.get(test.arch)
    if kinds is None:
        raise ValueError(
            f"cannot insert fences in a {test.arch} test (supported: {', '.join(KINDS)})"
        )
    unique = set(placements)
    for p in unique:
        _check(test, kinds, p)
    chosen = sorted(
        unique,
        key=lambda p: (p.thread, p.before, p.kind not in _DEPENDENCIES, kinds.index(p.kind)),
    )
    used = {item.name for code in test.threads for item in code if isinstance(item, Label)}
    labels = _fresh_labels(used)
    threads: list[tuple[CodeItem, ...]] = []
    origins: list[list[int | None]] = []
    for tid, code in enumerate(test.threads):
        here = [p for p in chosen if p.thread == tid]
        items: list[CodeItem] = []
        origin: list[int | None] = []
        for at in range(len(code) + 1):
            for p in here:
                if p.before == at:
                    new = _inserted(test.arch, code, p, labels)
                    items.extend(new)
                    origin.extend([None] * len(new))
            if at < len(code):
                items.append(code[at])
                origin.append(at)
        threads.append(tuple(items))
        origins.append(origin)
    return print_test(replace(test, threads=tuple(threads))), origins


def _check(test: LitmusTest, kinds: tuple[str, ...], p: FencePlacement) -> None:
    """ValueError unless ``p`` is of one of ``kinds`` and inside a thread of ``test``."""
    if p.kind not in kinds:
        raise ValueError(
            f"unknown fence kind '{p.kind}' for {test.arch} (expected one of {', '.join(kinds)})"
        )
    if not 0 <= p.thread < len(test.threads):
        raise ValueError(f"no thread P{p.thread} in {test.name} ({len(test.threads)} threads)")
    n = len(test.threads[p.thread])
    if not 0 <= p.before <= n:
        raise ValueError(
            f"position {p.before} is outside thread P{p.thread} of {test.name} (0..{n})"
        )


def _fresh_labels(used: set[str]) -> Iterator[str]:
    """``LC00``, ``LC01``... (herd's names for dependency labels), skipping ``used``."""
    n = 0
    while True:
        name = f"LC{n:02d}"
        n += 1
        if name not in used:
            yield name


def _inserted(
    arch: str, code: tuple[CodeItem, ...], p: FencePlacement, labels: Iterator[str]
) -> list[CodeItem]:
    """The code items placement ``p`` inserts in ``code``."""
    if p.kind not in _DEPENDENCIES:
        return _assemble(arch, [p.kind])
    prev = code[p.before - 1] if p.before > 0 else None
    if not (isinstance(prev, Instruction) and isinstance(prev.op, Load)):
        raise ValueError(
            f"a {p.kind} dependency in P{p.thread} at {p.before} needs a load just before it"
        )
    if _cr0_live(code, p.before):
        raise ValueError(
            f"a {p.kind} dependency in P{p.thread} at {p.before} would overwrite cr0, "
            "which a later branch reads"
        )
    reg = prev.op.dst
    label = next(labels)
    lines = [f"cmpw {reg},{reg}", f"beq {label}", f"{label}:"]
    if p.kind == "ctrlisync":
        lines.append("isync")
    return _assemble(arch, lines)


def _cr0_live(code: tuple[CodeItem, ...], at: int) -> bool:
    """Whether a conditional branch from ``at`` on reads ``cr0`` before anything writes it
    (in program order: tests branch forward)."""
    for item in code[at:]:
        if isinstance(item, Label):
            continue
        if isinstance(item.op, Branch) and item.op.cond is not None and item.op.creg == "cr0":
            return True
        if isinstance(item.op, Op) and (item.op.dst == "cr0" or item.op.sets_cr):
            return False
    return False


def _assemble(arch: str, lines: list[str]) -> list[CodeItem]:
    """The code items of ``lines`` as the test parser reads them."""
    return [item for line in lines for item in ASSEMBLERS[arch].parse_cell(line)]
