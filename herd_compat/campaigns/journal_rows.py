"""The rows of a journal (:mod:`journal`): a table's columns, how a row's values are stored
and read back, and the checksum each stored row carries.

A :class:`Table` describes one journal's table: its name, its columns (each of a
:class:`Kind`) and its row type, a dataclass whose fields are the columns in order.  Every
table starts with the test's key (its real path), path, name and status (one of
:data:`STATUSES`), and ends with when it finished and ``seq``, the completion order.

Texts that are not UTF-8 (file names decoded with ``os.fsdecode``'s surrogate escapes) are
stored losslessly as BLOBs of their bytes, every other text as TEXT (:func:`to_db`); JSON
values are objects, stored as sorted JSON text.  A stored row is valid when it matches its
checksum (:func:`row_checksum`) and every value has its column's type.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from collections.abc import Sequence
from dataclasses import Field, dataclass
from operator import attrgetter
from typing import Any, ClassVar, Generic, Protocol, TypeVar

__all__ = [
    "END_COLUMNS",
    "KEY_COLUMNS",
    "RETRIED",
    "STATUSES",
    "Column",
    "JournalRow",
    "Kind",
    "RowHead",
    "Table",
    "from_db",
    "readable",
    "row_checksum",
    "to_db",
]

STATUSES = ("done", "error", "timeout", "lost")
#: Statuses that ``--resume`` runs again: the worker died, the test has no answer.
RETRIED = ("lost",)


class JournalRow(Protocol):
    """What a journal needs of its rows (a dataclass: see :class:`Table`)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    key: str
    status: str
    finished_at: float
    seq: int


R = TypeVar("R", bound=JournalRow)


@dataclass
class RowHead:
    """The fields every journal's row starts with (:data:`KEY_COLUMNS`); a row type adds
    its own, then ``finished_at: float = 0.0`` and ``seq: int = 0`` (:data:`END_COLUMNS`)."""

    key: str  # the test's real path
    path: str  # as given
    name: str  # the test's name (the file's base name when it could not be read)
    status: str  # one of STATUSES


class Kind(enum.Enum):
    """What a column holds, and so how it is stored and checked."""

    TEXT = "text"  # any text, a file name that is not UTF-8 included
    STATUS = "status"  # one of STATUSES
    JSON = "json"  # a JSON object
    REAL = "real"
    OPTIONAL_REAL = "optional real"  # a float or None
    INTEGER = "integer"


#: The SQL type of each kind of column.
_SQL = {
    Kind.TEXT: "TEXT NOT NULL",
    Kind.STATUS: "TEXT NOT NULL",
    Kind.JSON: "TEXT NOT NULL",
    Kind.REAL: "REAL NOT NULL",
    Kind.OPTIONAL_REAL: "REAL",
    Kind.INTEGER: "INTEGER NOT NULL",
}


@dataclass(frozen=True)
class Column:
    name: str
    kind: Kind
    note: str  # what it holds, for the schema's comment


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


def row_checksum(values: Sequence[object]) -> str:
    """blake2b of a row's stored values (as SQLite gives them back), each tagged with its
    type and length so that no two rows hash alike by shifting bytes."""
    h = hashlib.blake2b(digest_size=16)
    for v in values:
        if v is None:
            tag, data = b"n", b""
        elif isinstance(v, bytes):
            tag, data = b"b", v
        elif isinstance(v, str):
            tag, data = b"s", v.encode("utf-8", "surrogateescape")
        elif isinstance(v, bool):
            raise TypeError(f"no boolean column in a journal: {v!r}")
        elif isinstance(v, int):
            tag, data = b"i", str(v).encode()
        elif isinstance(v, float):
            tag, data = b"f", v.hex().encode()
        else:
            raise TypeError(f"cannot store {type(v).__name__} in a journal")
        h.update(tag + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def _store(kind: Kind, value: Any) -> object:
    """A row's value as its column stores it."""
    match kind:
        case Kind.TEXT:
            return to_db(value)
        case Kind.JSON:
            return json.dumps(value, sort_keys=True)
        case Kind.OPTIONAL_REAL:  # REAL columns give floats back
            return None if value is None else float(value)
        case Kind.REAL:
            return float(value)
        case Kind.INTEGER:
            return int(value)
    return value


_INVALID = object()


def _load(kind: Kind, stored: object) -> object:
    """The row's value stored as ``stored``, or ``_INVALID`` when it has the wrong type."""
    match kind:
        case Kind.TEXT if isinstance(stored, (str, bytes)):
            return from_db(stored)
        case Kind.STATUS if stored in STATUSES:
            return stored
        case Kind.JSON if isinstance(stored, str):
            try:
                value = json.loads(stored)
            except json.JSONDecodeError:
                return _INVALID
            return value if isinstance(value, dict) else _INVALID
        case Kind.OPTIONAL_REAL if stored is None or isinstance(stored, float):
            return stored
        case Kind.REAL if isinstance(stored, float):
            return stored
        case Kind.INTEGER if isinstance(stored, int) and not isinstance(stored, bool):
            return stored
    return _INVALID


#: The columns every journal's table starts with...
KEY_COLUMNS = (
    Column("key", Kind.TEXT, "real path of the test file"),
    Column("path", Kind.TEXT, "path as given"),
    Column("name", Kind.TEXT, "test name (file base name when it could not be read)"),
    Column("status", Kind.STATUS, "done | error | timeout | lost (a worker died: run again)"),
)
#: ... and ends with, before the checksum.
END_COLUMNS = (
    Column("finished_at", Kind.REAL, "when the test finished (time.time())"),
    Column("seq", Kind.INTEGER, "completion order"),
)


@dataclass(frozen=True)
class Table(Generic[R]):
    """One journal's table: :data:`KEY_COLUMNS`, its own ``payload`` columns and
    :data:`END_COLUMNS`, which are ``row_type``'s fields in order."""

    name: str
    payload: tuple[Column, ...]
    row_type: type[R]

    def __post_init__(self) -> None:
        fields = [f.name for f in dataclasses.fields(self.row_type)]
        head, tail = len(KEY_COLUMNS), len(END_COLUMNS)
        if (
            len(fields) != len(self.columns)
            or fields[:head] != [c.name for c in KEY_COLUMNS]
            or fields[-tail:] != [c.name for c in END_COLUMNS]
        ):
            raise ValueError(f"table {self.name}: {self.row_type} does not fit its columns")

    @property
    def columns(self) -> tuple[Column, ...]:
        return (*KEY_COLUMNS, *self.payload, *END_COLUMNS)

    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def schema(self) -> str:
        """The SQL that creates the table (when it does not exist)."""
        lines = []
        for i, c in enumerate(self.columns):
            sql = "TEXT PRIMARY KEY" if i == 0 else _SQL[c.kind]
            lines.append(f"    {c.name} {sql}, -- {c.note}")
        lines.append("    checksum TEXT NOT NULL -- blake2b of the columns above")
        return f"CREATE TABLE IF NOT EXISTS {self.name} (\n" + "\n".join(lines) + "\n);\n"

    def encode(self, row: R) -> tuple[object, ...]:
        """A row's values as stored (before its checksum)."""
        names = [f.name for f in dataclasses.fields(self.row_type)]
        values = attrgetter(*names)(row)  # the fields in order (astuple would copy details)
        return tuple(_store(c.kind, v) for c, v in zip(self.columns, values, strict=True))

    def decode(self, stored: Sequence[object]) -> R | None:
        """The row stored as ``stored`` (its checksum checked), or None when a value has
        the wrong type."""
        values = [_load(c.kind, v) for c, v in zip(self.columns, stored, strict=True)]
        if any(v is _INVALID for v in values):
            return None
        return self.row_type(*values)
