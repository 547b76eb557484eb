"""herd's test hash (the ``Hash=`` line of its output), from a parsed test.

herd digests three texts with MD5 and digests the concatenated digests: the init state
(items sorted by location, ``loc=value`` with values as written, joined by ``"; "``), the
program (each thread's items in herd's canonical text, labels renamed ``L00``, ``L01``...
in sorted order, laid out as herd's ``Misc.string_of_prog`` table) and the observed
locations (condition and ``locations [...]``, sorted).  Tests with ``MemoryType``/``MT``/
``CacheType`` info keys digest those first; a ``Hash=`` info key is taken as is.
See herd-formats.md §4.3 (``lib/testHash.ml``).
"""

from __future__ import annotations

import hashlib
from types import ModuleType

from herdsman.litmus.asm.cells import branch_offset
from herdsman.litmus.base.ir import Branch, Condition, Label, Loc, RegLoc, SymRegLoc
from herdsman.litmus.base.memo import by_identity
from herdsman.litmus.base.values import array_cell
from herdsman.litmus.table import ASSEMBLERS
from herdsman.litmus.test import CodeItem, InitItem, LitmusTest, observed_of

_INFO_KEYS = ("memorytype", "mt", "cachetype")


def _md5(s: str) -> bytes:
    return hashlib.md5(s.encode("utf-8")).digest()


@by_identity(maxsize=1 << 14)
def _md5_of(s: str) -> bytes:
    """:func:`_md5` of a text the tests share (remembered texts of shared parts)."""
    return _md5(s)


def loc_key(loc: Loc) -> tuple[int, int, str, int]:
    """herd's order of locations: registers by (thread, name as a string), then symbolic
    registers, then globals by name, then arrays' cells (by array, then index)."""
    if isinstance(loc, RegLoc):
        return (0, loc.tid, loc.reg, 0)
    if isinstance(loc, SymRegLoc):
        return (1, 0, loc.name, 0)
    cell = array_cell(loc)
    if cell is not None:
        return (3, 0, *cell)
    return (2, 0, loc.name, 0)


def _init_loc(loc: Loc) -> str:
    if isinstance(loc, RegLoc):
        return f"{loc.tid}:{loc.reg}"
    return loc.name  # symbolic registers print without '%' here (testHash.ml)


def _obs_loc(loc: Loc) -> str:
    if isinstance(loc, RegLoc):
        return f"{loc.tid}:{loc.reg}"
    if isinstance(loc, SymRegLoc):
        return f"%{loc.name}"
    return loc.name


def _as_written(loc: Loc, written: str) -> Loc:
    """``loc`` with its register as the test wrote it (herd digests registers so)."""
    return RegLoc(loc.tid, written) if written and isinstance(loc, RegLoc) else loc


def _init_item(it: InitItem) -> str:
    loc = _init_loc(_as_written(it.loc, it.written))
    if it.cells is not None:  # herd digests an array's type and size, not its values
        return f"{it.ctype} {loc}[{len(it.cells)}]"
    v = it.text if it.value is not None else "0"
    if it.pointer:
        return f"{it.ctype} *{loc}={v}" if it.ctype else f"*{loc}={v}"
    if it.ctype:
        return f"{it.ctype} {loc}={v}"
    return f"{loc}={v}"


def init_digest_text(t: LitmusTest) -> str:
    """The init state as herd prints it for the hash."""
    return _init_digest_text(t.init)


@by_identity(maxsize=1 << 12)
def _init_digest_text(init: tuple[InitItem, ...]) -> str:
    """:func:`init_digest_text` of an init section (remembered: tests share them)."""
    seen: set[tuple[int, int, str, int]] = set()
    out: list[str] = []
    for it in sorted(init, key=lambda i: loc_key(_as_written(i.loc, i.written))):
        k = loc_key(_as_written(it.loc, it.written))
        if k not in seen:
            seen.add(k)
            out.append(_init_item(it))
    return "; ".join(out)


def string_of_prog(cols: list[list[str]]) -> str:
    """herd's ``Misc.string_of_prog``: a table of the threads' items, no header row."""
    return _table([_padded(c) for c in cols])


def _padded(col: list[str]) -> list[str]:
    """A column's cells, each padded to the column's width (and a blank each side)."""
    w = max((len(x) for x in col), default=0)
    return [f" {x.ljust(w)} " for x in col]


def _table(padded: list[list[str]]) -> str:
    """:func:`string_of_prog` of padded columns (a short column's missing cells blank)."""
    rows = max((len(c) for c in padded), default=0)
    full = [c + [" " * (len(c[0]) if c else 2)] * (rows - len(c)) for c in padded]
    return "".join(["|".join(row) + ";\n" for row in zip(*full, strict=True)])


def code_digest_text(t: LitmusTest) -> str:
    """The program as herd prints it for the hash."""
    arch = ASSEMBLERS[t.arch]
    names = frozenset().union(*[_label_names(code) for code in t.threads])
    if not names:  # the usual test: each thread's column is remembered
        return _table([_plain_column(arch, code) for code in t.threads])
    ordered = tuple(sorted(names))
    rename = {name: f"L{i:02d}" for i, name in enumerate(ordered)}
    return _table([_labelled_column(arch, code, ordered, rename) for code in t.threads])


#: Padded columns of threads with labels, per architecture, thread (by identity, kept
#: alive with its column) and the test's label names (which say their renaming).
_LABELLED: dict[tuple[str, int, tuple[str, ...]], tuple[object, list[str]]] = {}


def _labelled_column(
    arch: ModuleType, code: tuple[CodeItem, ...], names: tuple[str, ...], rename: dict[str, str]
) -> list[str]:
    """The padded column of a thread of a test whose labels are ``names`` (sorted),
    renamed per ``rename`` (the caller only reads it)."""
    key = (arch.__name__, id(code), names)
    got = _LABELLED.get(key)
    if got is not None and got[0] is code:
        return got[1]
    col = _padded(_texts(arch, code, rename))
    if len(_LABELLED) >= 1 << 14:
        _LABELLED.clear()
    _LABELLED[key] = (code, col)
    return col


@by_identity(maxsize=1 << 14)
def _label_names(code: tuple[CodeItem, ...]) -> frozenset[str]:
    """The labels a thread defines or branches to."""
    names: set[str] = set()
    for ins in code:
        if isinstance(ins, Label):
            names.add(ins.name)
        elif isinstance(ins.op, Branch) and branch_offset(ins.op.target) is None:
            names.add(ins.op.target)  # a label (an offset, .+8, is shown as it is)
    return frozenset(names)


def _texts(arch: ModuleType, code: tuple[CodeItem, ...], rename: dict[str, str]) -> list[str]:
    """herd's texts of a thread's items for the hash, labels renamed per ``rename``."""
    return [
        rename[ins.name] + ":" if isinstance(ins, Label) else arch.hash_text(ins, rename)
        for ins in code
    ]


@by_identity(maxsize=1 << 14)
def _plain_column(arch: ModuleType, code: tuple[CodeItem, ...]) -> list[str]:
    """The padded column of a thread of a test without labels (the caller only reads it)."""
    return _padded(_texts(arch, code, {}))


def observed_digest_text(t: LitmusTest) -> str:
    """The observed locations as herd prints them for the hash."""
    return _observed_digest_text(t.condition, t.locations, t.spelled)


@by_identity(maxsize=1 << 14)
def _observed_digest_text(
    cond: Condition, locations: tuple[Loc, ...], spelled: tuple[tuple[RegLoc, str], ...]
) -> str:
    """:func:`observed_digest_text` of a test's condition part (remembered: tests share
    them)."""
    written = dict(spelled)
    locs = {_as_written(x, written.get(x, "")) for x in observed_of(cond, locations)}  # type: ignore[arg-type]
    return "; ".join(_obs_loc(x) for x in sorted(locs, key=loc_key))


def info_digest(t: LitmusTest) -> bytes:
    """Digest of the memory-type info keys, or nothing when the test has none."""
    pairs = sorted((k.lower(), v) for k, v in t.info if k.lower() in _INFO_KEYS)
    if not pairs:
        return b""
    return _md5("".join(f"{k}={v}" for k, v in pairs))


def herd_hash(t: LitmusTest) -> str:
    """herd's hash of ``t`` (32 lower-case hex digits)."""
    for k, v in t.info:
        if k == "Hash":
            return v
    digest = (
        info_digest(t)
        + _md5_of(_init_digest_text(t.init))
        + _md5(code_digest_text(t))
        + _md5_of(_observed_digest_text(t.condition, t.locations, t.spelled))
    )
    return hashlib.md5(digest).hexdigest()


__all__ = ["herd_hash", "loc_key", "string_of_prog"]
