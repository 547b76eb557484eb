"""The campaign database: one SQLite row per finished test, committed as it arrives.

WAL mode and a commit per test mean a campaign stopped by Ctrl-C or SIGKILL loses nothing
it finished; ``--resume`` skips the tests already in the database.  A ``meta`` table holds
the fingerprint of the campaign's inputs so a database is never resumed with other inputs.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from herdsman.litmus.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,      -- real path of the test file
    path TEXT NOT NULL,        -- path as given
    name TEXT NOT NULL,        -- test name (file base name when it could not be parsed)
    status TEXT NOT NULL,      -- done | error | timeout
    category TEXT NOT NULL,    -- identical|verdict|states|counts|hash|missing|error|timeout
    result_text TEXT NOT NULL, -- our herd block, or the error message
    details TEXT NOT NULL,     -- JSON: the differences with herd
    cpu REAL,                  -- our CPU seconds for the test
    herd_time REAL,            -- herd's Time for the test, when known
    finished_at REAL NOT NULL,
    seq INTEGER NOT NULL       -- completion order
);
"""


@dataclass
class Row:
    key: str
    path: str
    name: str
    status: str
    category: str
    result_text: str
    details: dict[str, Any] = field(default_factory=dict)
    cpu: float | None = None
    herd_time: float | None = None
    finished_at: float = 0.0
    seq: int = 0


class CampaignDB:
    """Results of one campaign in an SQLite file (single writer: the parent process)."""

    def __init__(self, path: str) -> None:
        self.path = path
        parent = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(parent, exist_ok=True)
            self.conn = sqlite3.connect(path, timeout=30)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.executescript(SCHEMA)
            self.conn.commit()
        except (OSError, sqlite3.Error) as e:
            raise InputError(path, 0, 0, f"cannot open campaign database: {e}") from None
        self._seq = self._max_seq()

    def _max_seq(self) -> int:
        (n,) = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM results").fetchone()
        return int(n)

    # ---- meta
    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
        self.conn.commit()

    def start(self, fingerprint: str, resume: bool) -> int:
        """Prepare for a run; returns how many finished tests are kept.  Without ``resume``
        previous results are dropped; with it, the fingerprint must match."""
        old = self.get_meta("fingerprint")
        if resume and old is not None and old != fingerprint:
            raise InputError(
                self.path,
                0,
                0,
                "this campaign database was made for other inputs (tests, model or "
                "expectations); use another --db or run without --resume",
            )
        if not resume:
            self.conn.execute("DELETE FROM results")
            self._seq = 0
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
        self.conn.commit()
        return self.count()

    # ---- results
    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def done_keys(self) -> set[str]:
        return {k for (k,) in self.conn.execute("SELECT key FROM results")}

    def record(self, row: Row) -> None:
        """Store one finished test and commit at once (survives a kill right after)."""
        self._seq += 1
        row.seq = self._seq
        row.finished_at = row.finished_at or time.time()
        self.conn.execute(
            "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                row.key,
                row.path,
                row.name,
                row.status,
                row.category,
                row.result_text,
                json.dumps(row.details, sort_keys=True),
                row.cpu,
                row.herd_time,
                row.finished_at,
                row.seq,
            ),
        )
        self.conn.commit()

    def rows(self) -> dict[str, Row]:
        out = {}
        for r in self.conn.execute("SELECT * FROM results ORDER BY seq"):
            out[r[0]] = Row(
                key=r[0],
                path=r[1],
                name=r[2],
                status=r[3],
                category=r[4],
                result_text=r[5],
                details=json.loads(r[6]),
                cpu=r[7],
                herd_time=r[8],
                finished_at=r[9],
                seq=r[10],
            )
        return out

    def close(self) -> None:
        self.conn.close()
