"""The campaign database: one SQLite row per finished test, committed as it arrives.

WAL mode and a commit per test mean a campaign stopped by Ctrl-C or SIGKILL loses nothing
it finished; ``--resume`` skips the tests already in the database.  A ``meta`` table holds
the fingerprint of the campaign's inputs so a database is never resumed with other inputs.

One campaign at a time: :class:`CampaignDB` holds an exclusive ``flock`` on ``DB.lock``
from opening to closing (the kernel drops it when the process dies, so a killed campaign
leaves no stale lock), and a second opening is refused with one line.  Every row carries a
blake2b checksum of its stored values, checked whenever rows are read (``--resume`` and the
final report), so a flipped byte is an error naming the row, never a silent answer.  File
names that are not UTF-8 (``os.fsdecode``'s surrogate escapes) are stored losslessly as
BLOBs of their bytes; every other text is stored as TEXT.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from herdsman.litmus.errors import InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,      -- real path of the test file
    path TEXT NOT NULL,        -- path as given
    name TEXT NOT NULL,        -- test name (file base name when it could not be parsed)
    status TEXT NOT NULL,      -- done | error | timeout | lost (worker died: run again)
    category TEXT NOT NULL,    -- identical|verdict|states|counts|hash|missing|error|timeout
    result_text TEXT NOT NULL, -- our herd block, or the error message
    details TEXT NOT NULL,     -- JSON: the differences with herd
    cpu REAL,                  -- our CPU seconds for the test
    herd_time REAL,            -- herd's Time for the test, when known
    finished_at REAL NOT NULL,
    seq INTEGER NOT NULL,      -- completion order
    checksum TEXT NOT NULL     -- blake2b of the columns above (see row_checksum)
);
"""
#: The columns of ``results`` before the checksum, in order.
COLUMNS = "key path name status category result_text details cpu herd_time finished_at seq".split()
STATUSES = ("done", "error", "timeout", "lost")
#: Statuses that ``--resume`` runs again: the worker died, the test has no answer.
RETRIED = ("lost",)


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


def to_db(text: str) -> str | bytes:
    """How a text is stored: TEXT when it is UTF-8, else (a file name decoded with
    ``os.fsdecode``'s surrogate escapes) a BLOB of its bytes, so that nothing is lost."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape")
    return text


def from_db(value: str | bytes) -> str:
    """The text that :func:`to_db` stored as ``value``."""
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


def readable(text: str) -> str:
    """``text`` printable on any UTF-8 stream: a byte that is not UTF-8 shows as ``\\xff``."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that no file name decodes to
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def _decode_text(raw: bytes) -> str:
    """SQLite TEXT as read back: a corrupt byte becomes a surrogate escape (and then fails
    the row's checksum) instead of an exception without the row."""
    return raw.decode("utf-8", "surrogateescape")


def row_checksum(values: Sequence[object]) -> str:
    """blake2b of a row's stored values (:data:`COLUMNS`, as SQLite gives them back), each
    tagged with its type and length so that no two rows hash alike by shifting bytes."""
    h = hashlib.blake2b(digest_size=16)
    for v in values:
        if v is None:
            tag, data = b"n", b""
        elif isinstance(v, bytes):
            tag, data = b"b", v
        elif isinstance(v, str):
            tag, data = b"s", v.encode("utf-8", "surrogateescape")
        elif isinstance(v, bool):
            raise TypeError(f"no boolean column in the campaign database: {v!r}")
        elif isinstance(v, int):
            tag, data = b"i", str(v).encode()
        elif isinstance(v, float):
            tag, data = b"f", v.hex().encode()
        else:
            raise TypeError(f"cannot store {type(v).__name__} in the campaign database")
        h.update(tag + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def _well_typed(values: Sequence[object]) -> bool:
    """Whether a row's values have the types :meth:`CampaignDB.record` stores."""
    key, path, name, status, category, text, details, cpu, herd_time, finished_at, seq = values
    texts = all(isinstance(v, str | bytes) for v in (key, path, name, text))
    numbers = all(v is None or isinstance(v, float) for v in (cpu, herd_time))
    return (
        texts
        and numbers
        and status in STATUSES
        and isinstance(category, str)
        and isinstance(details, str)
        and isinstance(finished_at, float)
        and isinstance(seq, int)
    )


def _lock(path: str) -> int:
    """Take the campaign lock of the database ``path`` (an exclusive ``flock`` on
    ``path.lock``, which holds the owner's pid): its file descriptor."""
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        os.close(fd)
        who = f" (process {holder})" if holder.isdigit() else ""
        raise InputError(
            path,
            0,
            0,
            f"campaign database is in use by another herdsman validate{who}; "
            "wait for it to finish or use another --db",
        ) from None
    except OSError:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


_UNUSABLE = "campaign database is unusable"


class CampaignDB:
    """Results of one campaign in an SQLite file, locked against a second campaign (one
    writer: the parent process) from opening to :meth:`close`."""

    def __init__(self, path: str) -> None:
        self.path = path
        parent = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(parent, exist_ok=True)
            self._lock_fd = _lock(path)
        except OSError as e:
            raise InputError(path, 0, 0, f"cannot open campaign database: {e}") from None
        conn: sqlite3.Connection | None = None
        try:
            with self._sqlite_errors("cannot open campaign database", "use another --db"):
                conn = self.conn = sqlite3.connect(path, timeout=30)
                conn.text_factory = _decode_text
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(SCHEMA)
                conn.commit()
                self._seq = self._max_seq()
        except InputError:
            if conn is not None:
                conn.close()
            os.close(self._lock_fd)
            raise

    @contextmanager
    def _sqlite_errors(
        self, what: str = _UNUSABLE, advice: str = "remove it or use another --db"
    ) -> Iterator[None]:
        """SQLite's complaints about the file (corrupt, full, not a database) as one line."""
        try:
            yield
        except sqlite3.ProgrammingError:
            raise  # a misuse of the API: a bug in herdsman, not a property of the file
        except sqlite3.Error as e:
            primary = e.sqlite_errorcode & 0xFF  # without the extended code's detail
            if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
                message = f"corrupt campaign database ({e}); remove it or use another --db"
            else:
                message = f"{what}: {e}; {advice}"
            raise InputError(self.path, 0, 0, message) from None

    def _max_seq(self) -> int:
        (n,) = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM results").fetchone()
        return int(n)

    # ---- meta
    def get_meta(self, key: str) -> str | None:
        with self._sqlite_errors():
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        with self._sqlite_errors():
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
            self.conn.commit()

    def start(self, fingerprint: str, resume: bool) -> int:
        """Prepare for a run; returns how many finished tests are kept.  Without ``resume``
        previous results are dropped; with it, the fingerprint must match and every stored
        row must pass the integrity checks (:meth:`verify`)."""
        old = self.get_meta("fingerprint")
        if resume and old is not None and old != fingerprint:
            raise InputError(
                self.path,
                0,
                0,
                "this campaign database was made for other inputs (tests, model or "
                "expectations); use another --db or run without --resume",
            )
        with self._sqlite_errors():
            if resume:
                self.verify()
            else:  # a new table: also upgrades a database of an older schema
                self.conn.execute("DROP TABLE IF EXISTS results")
                self.conn.executescript(SCHEMA)
                self._seq = 0
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (fingerprint,)
            )
            self.conn.commit()
        return self.count()

    def verify(self) -> None:
        """Refuse a database that SQLite finds corrupt, that has no row checksums (made by
        an older herdsman) or with a row that fails its checksum."""
        again = "run without --resume to start afresh, or use another --db"
        with self._sqlite_errors():
            problems = [m for (m,) in self.conn.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise InputError(
                    self.path, 0, 0, f"corrupt campaign database ({'; '.join(problems)}); {again}"
                )
            names = [r[1] for r in self.conn.execute("PRAGMA table_info(results)")]
            if "checksum" not in names:
                raise InputError(
                    self.path,
                    0,
                    0,
                    f"this campaign database was made by an older herdsman (no row checksums); "
                    f"{again}",
                )
        self.rows()

    # ---- results
    def count(self) -> int:
        with self._sqlite_errors():
            return int(self.conn.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def done_keys(self) -> set[str]:
        """Keys of the tests finished for good: a test whose worker died is run again."""
        return {k for k, r in self.rows().items() if r.status not in RETRIED}

    def record(self, row: Row) -> None:
        """Store one finished test and commit at once (survives a kill right after)."""
        self._seq += 1
        row.seq = self._seq
        row.finished_at = row.finished_at or time.time()
        values = (
            to_db(row.key),
            to_db(row.path),
            to_db(row.name),
            row.status,
            row.category,
            to_db(row.result_text),
            json.dumps(row.details, sort_keys=True),
            None if row.cpu is None else float(row.cpu),  # REAL columns give floats back
            None if row.herd_time is None else float(row.herd_time),
            float(row.finished_at),
            row.seq,
        )
        with self._sqlite_errors():
            self.conn.execute(
                "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (*values, row_checksum(values)),
            )
            self.conn.commit()

    def rows(self) -> dict[str, Row]:
        """Every stored row by key, in completion order; a row that fails its checksum (or
        holds a value of the wrong type) is an error naming it."""
        out = {}
        query = f"SELECT rowid, {', '.join(COLUMNS)}, checksum FROM results ORDER BY seq"
        with self._sqlite_errors():
            stored = self.conn.execute(query).fetchall()
        for rowid, *values, checksum in stored:
            row = self._decode(rowid, values, checksum)
            out[row.key] = row
        return out

    def _decode(self, rowid: int, values: list[Any], checksum: object) -> Row:
        if checksum == row_checksum(values) and _well_typed(values):
            key, path, name, status, category, text, details, *numbers = values
            try:
                decoded = json.loads(details)
            except json.JSONDecodeError:
                decoded = None
            if isinstance(decoded, dict):
                cpu, herd_time, finished_at, seq = numbers
                return Row(
                    from_db(key),
                    from_db(path),
                    from_db(name),
                    status,
                    category,
                    from_db(text),
                    decoded,
                    cpu,
                    herd_time,
                    finished_at,
                    seq,
                )
        key = values[0]
        test = readable(from_db(key)) if isinstance(key, str | bytes) else repr(key)
        raise InputError(
            self.path,
            0,
            0,
            f"corrupt campaign database: row {rowid} (test {test}) does not match its "
            "checksum; run without --resume to start afresh, or use another --db",
        )

    def close(self) -> None:
        """Close the database and give up the campaign lock."""
        try:
            self.conn.close()
        finally:
            os.close(self._lock_fd)
