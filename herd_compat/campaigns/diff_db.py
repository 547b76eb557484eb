"""The journal of ``herdsman diff``: one SQLite row per finished test.

A :class:`~journal.Journal` (WAL, a commit per test, ``--resume``, the fingerprint of the
inputs: the two models, the tests, the options; one writer at a time, a checksum on every
row) whose rows are :class:`DiffRow`: a test's group (``identical``, ``a-allows``...; see
:mod:`herd_compat.diff`) with everything else as JSON: both models' verdicts, states and
counts, and the witness execution of a difference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from herdsman.herd_compat.campaigns.journal import Journal, Names
from herdsman.herd_compat.campaigns.journal_rows import Column, Kind, RowHead, Table

__all__ = ["DIFFS", "DiffDB", "DiffRow"]


@dataclass
class DiffRow(RowHead):
    """One journaled test (see the module docstring)."""

    group: str
    details: dict[str, Any] = field(default_factory=dict)
    cpu: float | None = None
    finished_at: float = 0.0
    seq: int = 0


DIFFS = Table(
    "diffs",
    (
        Column("grp", Kind.TEXT, "identical | a-allows | b-allows | ... | error | noresult"),
        Column("details", Kind.JSON, "both results, the witness, the error line"),
        Column("cpu", Kind.OPTIONAL_REAL, "CPU seconds for the test (both runs, the witness)"),
    ),
    DiffRow,
)

NAMES = Names("diff journal", "herdsman diff", "models, tests or options")


class DiffDB(Journal[DiffRow]):
    """The journal of one diff run, locked against a second writer until :meth:`close`."""

    def __init__(self, path: str) -> None:
        super().__init__(path, DIFFS, NAMES)
