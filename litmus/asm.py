"""What the per-architecture assemblers share: cell errors and operand records.

A program cell (``LC00: lwz r1,0(r2)``) is parsed on its own text, so errors carry an
offset relative to the cell; :mod:`litmus.table` adds the cell's position in the file.
"""

from __future__ import annotations

from dataclasses import dataclass


class CellError(Exception):
    """Bad instruction at character ``offset`` of the (stripped) cell text."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


@dataclass(frozen=True, slots=True)
class Operand:
    """One written operand: ``kind`` is reg, num, mem (``d(rA)``: ``value`` d, ``reg`` rA),
    cr (``crN``), name (a label or symbol), str (a quoted string) or deref (X86 ``[...]``)."""

    kind: str
    text: str
    pos: int
    value: int = 0
    reg: str = ""


def describe(op: Operand) -> str:
    """How an operand is named in messages."""
    return f"'{op.text}'"


def split_labels(tokens: list[tuple[str, str, int]]) -> tuple[list[str], int]:
    """Leading ``NAME :`` pairs of a cell's tokens: the label names and where the rest starts."""
    labels: list[str] = []
    i = 0
    while i + 1 < len(tokens) and tokens[i][0] == "name" and tokens[i + 1][1] == ":":
        labels.append(tokens[i][1])
        i += 2
    return labels, i
