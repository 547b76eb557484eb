"""A journal of finished tests in SQLite: one committed row per test, written by one process.

The file format and guarantees shared by ``herdsman validate``'s campaign database
(:mod:`campaign_db`) and ``herdsman diff``'s journal (:mod:`diff_db`), each a
:class:`Journal` over its own :class:`~journal_rows.Table`:

* WAL mode and a commit per test: a run stopped by Ctrl-C or SIGKILL loses nothing it
  finished, and ``--resume`` skips the tests already there (the test's real path is the
  key: a row is replaced, never added twice);
* a ``meta`` table holds the fingerprint of the run's inputs, so that a journal is never
  resumed with other inputs;
* one writer at a time: an exclusive ``flock`` on the journal file itself from opening to
  :meth:`Journal.close`, dropped by the kernel when the process dies (no stale lock).  The
  lock follows the file, not its name: a second opening through a symbolic link, a hard
  link or another path (``..``) meets it and is refused with one line, naming the
  holder's pid where the system lists its locks (``/proc/locks``);
* every row carries a checksum (:func:`journal_rows.row_checksum`), checked whenever rows
  are read (``--resume`` and the final report), so that a flipped byte is an error naming
  the row, never a silent answer; SQLite's own complaints (corrupt, full, not a database)
  are one line too.

The messages name the file as its user does (:class:`Names`: "campaign database", "diff
journal"...).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import stat
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic

from herdsman.herd_compat.campaigns.journal_rows import (
    RETRIED,
    R,
    Table,
    from_db,
    readable,
    row_checksum,
)
from herdsman.litmus.base.errors import InputError

__all__ = ["Journal", "Names"]

#: How to run again over a journal that cannot be resumed.
_AGAIN = "run without --resume to start afresh, or use another --db"


@dataclass(frozen=True)
class Names:
    """How a journal's messages name things."""

    noun: str  # the file: "campaign database"
    command: str  # its writer: "herdsman validate"
    inputs: str  # what its fingerprint covers: "tests, model or expectations"


def _decode_text(raw: bytes) -> str:
    """SQLite TEXT as read back: a corrupt byte becomes a surrogate escape (and then fails
    the row's checksum) instead of an exception without the row."""
    return raw.decode("utf-8", "surrogateescape")


#: The journals this process holds open, by their file's identity (device, inode), with
#: the descriptor holding the ``flock``.  A second opening in this process is refused
#: before it opens the file: closing another descriptor of the file would drop the POSIX
#: locks SQLite holds on it.
_HELD: dict[tuple[int, int], int] = {}
#: Whether :func:`_forget_locks` runs in every forked child.
_FORK_HOOK: list[bool] = []


def _forget_locks() -> None:
    """In a forked child (a campaign's worker): let go of the journals' ``flock``s.  A
    ``flock`` belongs to the open file, which a fork shares: a worker still alive when its
    parent is killed would keep the journal locked against the ``--resume`` after it."""
    for fd in _HELD.values():
        os.close(fd)
    _HELD.clear()


def _identity(st: os.stat_result) -> tuple[int, int]:
    return (st.st_dev, st.st_ino)


def _holder(st: os.stat_result) -> int | None:
    """The pid holding a ``flock`` on the file of ``st``, where ``/proc/locks`` says."""
    if _identity(st) in _HELD:
        return os.getpid()
    want = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            for line in f:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 12345 fe:00:2146709 0 EOF"
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == want:
                    return int(fields[4]) if fields[4].isdigit() else None
    except OSError:
        pass
    return None


def _in_use(path: str, names: Names, holder: int | None) -> InputError:
    who = f" (process {holder})" if holder is not None else ""
    return InputError(
        path,
        0,
        0,
        f"{names.noun} is in use by another {names.command}{who}; "
        "wait for it to finish or use another --db",
    )


def _lock(path: str, names: Names) -> tuple[int, tuple[int, int]]:
    """Take the lock of the journal ``path``: an exclusive ``flock`` on the file itself
    (created empty when missing, which SQLite reads as an empty database), so that every
    name of the file meets the same lock.  Its descriptor and the file's identity."""
    try:
        before = os.stat(path)  # through symbolic links, as SQLite opens it
    except (FileNotFoundError, NotADirectoryError):
        before = None
    if before is not None and _identity(before) in _HELD:
        raise _in_use(path, names, os.getpid())
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise InputError(path, 0, 0, f"cannot open {names.noun}: not a regular file")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)  # this process holds no lock on the file (see _HELD)
        raise _in_use(path, names, _holder(st)) from None
    except OSError:
        os.close(fd)
        raise
    key = _identity(st)
    _HELD[key] = fd
    if not _FORK_HOOK:
        os.register_at_fork(after_in_child=_forget_locks)
        _FORK_HOOK.append(True)
    return fd, key


class Journal(Generic[R]):
    """The rows of one run in the SQLite file ``path`` (see the module docstring), locked
    against a second writer from opening to :meth:`close`."""

    def __init__(self, path: str, table: Table[R], names: Names) -> None:
        self.path = path
        self.table = table
        self.names = names
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            self._lock_fd, self._file_id = _lock(path, names)
        except OSError as e:
            raise InputError(path, 0, 0, f"cannot open {names.noun}: {e.strerror or e}") from None
        conn: sqlite3.Connection | None = None
        try:
            with self._sqlite_errors(f"cannot open {names.noun}", "use another --db"):
                conn = self.conn = sqlite3.connect(path, timeout=30)
                conn.text_factory = _decode_text
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(self._schema())
                conn.commit()
                self._seq = self._max_seq()
        except InputError:
            if conn is not None:
                conn.close()
            self._unlock()
            raise

    def _schema(self) -> str:
        meta = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
        return meta + self.table.schema()

    def _error(self, message: str) -> InputError:
        return InputError(self.path, 0, 0, message)

    @contextmanager
    def _sqlite_errors(
        self, what: str | None = None, advice: str = "remove it or use another --db"
    ) -> Iterator[None]:
        """SQLite's complaints about the file (corrupt, full, not a database) as one line."""
        try:
            yield
        except sqlite3.ProgrammingError:
            raise  # a misuse of the API: a bug in herdsman, not a property of the file
        except sqlite3.Error as e:
            noun = self.names.noun
            primary = e.sqlite_errorcode & 0xFF  # without the extended code's detail
            if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
                message = f"corrupt {noun} ({e}); remove it or use another --db"
            else:
                message = f"{what or noun + ' is unusable'}: {e}; {advice}"
            raise self._error(message) from None

    def _max_seq(self) -> int:
        query = f"SELECT COALESCE(MAX(seq), 0) FROM {self.table.name}"
        (n,) = self.conn.execute(query).fetchone()
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
        previous rows are dropped; with it, the fingerprint must match and every stored
        row must pass the integrity checks (:meth:`verify`)."""
        old = self.get_meta("fingerprint")
        if resume and old is not None and old != fingerprint:
            raise self._error(
                f"this {self.names.noun} was made for other inputs ({self.names.inputs}); "
                "use another --db or run without --resume"
            )
        with self._sqlite_errors():
            if resume:
                self.verify()
            else:  # a new table: also upgrades a journal of an older layout
                self.conn.execute(f"DROP TABLE IF EXISTS {self.table.name}")
                self.conn.executescript(self._schema())
                self._seq = 0
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (fingerprint,)
            )
            self.conn.commit()
        return self.count()

    def verify(self) -> None:
        """Refuse a journal that SQLite finds corrupt, that has no row checksums (made by an
        older herdsman) or other columns, or with a row that fails its checksum."""
        noun = self.names.noun
        with self._sqlite_errors():
            problems = [m for (m,) in self.conn.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise self._error(f"corrupt {noun} ({'; '.join(problems)}); {_AGAIN}")
            info = self.conn.execute(f"PRAGMA table_info({self.table.name})")
            names = [r[1] for r in info]
        if "checksum" not in names:
            raise self._error(
                f"this {noun} was made by an older herdsman (no row checksums); {_AGAIN}"
            )
        if names != [*self.table.column_names(), "checksum"]:
            raise self._error(f"this {noun} was made by another herdsman (other columns); {_AGAIN}")
        self.rows()

    # ---- rows
    def count(self) -> int:
        with self._sqlite_errors():
            query = f"SELECT COUNT(*) FROM {self.table.name}"
            return int(self.conn.execute(query).fetchone()[0])

    def done_keys(self) -> set[str]:
        """Keys of the tests finished for good: a test whose worker died is run again."""
        return {k for k, r in self.rows().items() if r.status not in RETRIED}

    def record(self, row: R) -> None:
        """Store one finished test and commit at once (survives a kill right after)."""
        self._seq += 1
        row.seq = self._seq
        row.finished_at = row.finished_at or time.time()
        values = self.table.encode(row)
        marks = ",".join("?" * (len(values) + 1))
        with self._sqlite_errors():
            self.conn.execute(
                f"INSERT OR REPLACE INTO {self.table.name} VALUES ({marks})",
                (*values, row_checksum(values)),
            )
            self.conn.commit()

    def rows(self) -> dict[str, R]:
        """Every stored row by key, in completion order; a row that fails its checksum (or
        holds a value of the wrong type) is an error naming it."""
        columns = ", ".join(self.table.column_names())
        query = f"SELECT rowid, {columns}, checksum FROM {self.table.name} ORDER BY seq"
        with self._sqlite_errors():
            stored = self.conn.execute(query).fetchall()
        out = {}
        for rowid, *values, checksum in stored:
            row = self.table.decode(values) if checksum == row_checksum(values) else None
            if row is None:
                key = values[0]
                test = readable(from_db(key)) if isinstance(key, (str, bytes)) else repr(key)
                raise self._error(
                    f"corrupt {self.names.noun}: row {rowid} (test {test}) does not match its "
                    f"checksum; {_AGAIN}"
                )
            out[row.key] = row
        return out

    def rows_of(self, keys: Iterable[str]) -> list[R]:
        """The stored rows of the tests ``keys`` (checked as :meth:`rows`), in that order."""
        by_key = self.rows()
        return [by_key[k] for k in keys if k in by_key]

    def close(self) -> None:
        """Close the journal and give up its lock."""
        try:
            self.conn.close()
        finally:
            self._unlock()

    def _unlock(self) -> None:
        if _HELD.get(self._file_id) == self._lock_fd:  # not in a forked child: its own
            del _HELD[self._file_id]
            os.close(self._lock_fd)
