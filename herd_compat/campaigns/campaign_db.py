"""The campaign database of ``herdsman validate``: one SQLite row per finished test.

A :class:`~journal.Journal` (WAL, a commit per test, ``--resume``, the fingerprint of the
campaign's inputs, one campaign at a time per database, a checksum on every row, file
names that are not UTF-8 stored losslessly) whose rows are :class:`Row`: a test's herd
block, or the line saying why there is none, and how it compares with herd's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from herdsman.herd_compat.campaigns.journal import Journal, Names
from herdsman.herd_compat.campaigns.journal_rows import (
    RETRIED,
    STATUSES,
    Column,
    Kind,
    RowHead,
    Table,
    from_db,
    readable,
    row_checksum,
    to_db,
)

__all__ = [
    "COLUMNS",
    "RETRIED",
    "RESULTS",
    "STATUSES",
    "CampaignDB",
    "Row",
    "from_db",
    "readable",
    "row_checksum",
    "to_db",
]


@dataclass
class Row(RowHead):
    """A test's result: our herd block (or the error message) compared with herd's."""

    category: str
    result_text: str
    details: dict[str, Any] = field(default_factory=dict)
    cpu: float | None = None
    herd_time: float | None = None
    finished_at: float = 0.0
    seq: int = 0


RESULTS = Table(
    "results",
    (
        Column("category", Kind.TEXT, "identical|verdict|states|counts|hash|missing|error|timeout"),
        Column("result_text", Kind.TEXT, "our herd block, or the error message"),
        Column("details", Kind.JSON, "the differences with herd"),
        Column("cpu", Kind.OPTIONAL_REAL, "our CPU seconds for the test"),
        Column("herd_time", Kind.OPTIONAL_REAL, "herd's Time for the test, when known"),
    ),
    Row,
)
#: The columns of ``results`` before the checksum, in order.
COLUMNS = RESULTS.column_names()

NAMES = Names("campaign database", "herdsman validate", "tests, model or expectations")


class CampaignDB(Journal[Row]):
    """Results of one campaign in an SQLite file, locked against a second campaign (one
    writer: the parent process) from opening to :meth:`close`."""

    def __init__(self, path: str) -> None:
        super().__init__(path, RESULTS, NAMES)
