"""The program table: ``P0 | P1 ;`` then rows of cells, one per thread, to IR threads.

The table is cut by hand (``|`` between cells, ``;`` ending rows, comments blanked, quoted
strings kept whole, X86's ``LOCK;`` kept inside its cell) and every non-empty cell is
lowered by its architecture's assembler.  Cells repeat a lot across tests (``li r1,1``),
so their IR is cached by text, and so are whole threads (a column of cells), one object
per thread's code.  The usual table is cut with plain splits; any other, or a table with
an error, is read cell by cell with offsets, which reports the error at its place.
Labels are checked per thread: a label is defined once and every branch goes to a label
of its own thread.
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import ModuleType

from herdsman.litmus.asm import aarch64, arm, cells, ppc, riscv, x86, x86_64
from herdsman.litmus.asm.cells import CellError
from herdsman.litmus.base.ir import Branch, Label
from herdsman.litmus.base.source import Source
from herdsman.litmus.splitter import skip_comment
from herdsman.litmus.test import CodeItem, Instruction

#: The assembler of each architecture herdsman parses (see ``litmus.arch``).
ASSEMBLERS: dict[str, ModuleType] = {
    "PPC": ppc,
    "X86": x86,
    "ARM": arm,
    "RISCV": riscv,
    "X86_64": x86_64,
    "AArch64": aarch64,
}

_SPECIAL = re.compile(r"[|;\"]")
_LOCK_END = re.compile(r"(?:^|[\s:])(?:LOCK|lock)\s*$")
_PROC = re.compile(r"P(\d+)")


def _blank_comments(src: Source, start: int, end: int) -> str:
    """The program text with its comments replaced by blanks (offsets are kept)."""
    text = src.text[start:end]
    if "(*" not in text:
        return text
    out = []
    pos = 0
    while True:
        i = text.find("(*", pos)
        if i < 0:
            out.append(text[pos:])
            return "".join(out)
        j = skip_comment(src, start + i) - start
        out.append(text[pos:i])
        out.append("".join("\n" if c == "\n" else " " for c in text[i:j]))
        pos = j


def _rows(src: Source, arch: str, text: str, start: int) -> tuple[list[list[tuple[int, int]]], int]:
    """Rows of cell spans in ``text`` (the program at ``start``, comments blanked) and where
    unterminated text begins."""
    first = re.match(r"\s*;", text)  # herd accepts one ';' before the thread header
    pos = first.end() if first else 0
    x86 = arch in ("X86", "X86_64")
    if '"' not in text and not (x86 and "lock" in text.lower()):
        return _split_rows(text, pos)
    rows: list[list[tuple[int, int]]] = []
    cells: list[tuple[int, int]] = []
    cell_start = pos
    while True:
        m = _SPECIAL.search(text, pos)
        if m is None:
            return rows, cell_start
        c = m.group()
        if c == '"':
            close = text.find('"', m.end())
            if close < 0:
                raise src.error(start + m.start(), "unterminated string '\"'")
            pos = close + 1
        elif c == "|":
            cells.append((cell_start, m.start()))
            cell_start = pos = m.end()
        elif c == ";" and x86 and _LOCK_END.search(text[cell_start : m.start()]):
            pos = m.end()  # ``LOCK; ADD ...``: the ';' belongs to the instruction
        else:
            cells.append((cell_start, m.start()))
            rows.append(cells)
            cells = []
            cell_start = pos = m.end()


def _split_rows(text: str, pos: int) -> tuple[list[list[tuple[int, int]]], int]:
    """:func:`_rows` for the usual program without strings nor ``LOCK;``: plain splits."""
    rows: list[list[tuple[int, int]]] = []
    pieces = text[pos:].split(";")
    for piece in pieces[:-1]:
        cells = []
        o = pos
        for c in piece.split("|"):
            e = o + len(c)
            cells.append((o, e))
            o = e + 1
        rows.append(cells)
        pos += len(piece) + 1
    return rows, pos


def parse_program(
    src: Source, arch: str, span: tuple[int, int]
) -> tuple[tuple[CodeItem, ...], ...]:
    """The threads of the program at ``span`` as tuples of IR operations."""
    start, end = span
    usual = _usual_program(arch, src.text[start:end])
    if usual is not None:
        return usual
    prog = _blank_comments(src, start, end)
    rows, rest = _rows(src, arch, prog, start)
    tail = prog[rest:]
    if tail.strip():
        at = start + rest + (len(tail) - len(tail.lstrip()))
        if not rows:
            raise src.error(at, "expected the thread header 'P0 | P1 | ... ;'")
        raise src.error(at, "instruction row not terminated by ';'")
    if not rows:
        raise src.error(start, "missing program: expected the thread header 'P0 | P1 | ... ;'")
    header = rows[0]
    for i, (a, b) in enumerate(header):
        cell = prog[a:b]
        name = cell.strip()
        if name != f"P{i}":
            at = start + a + (len(cell) - len(cell.lstrip()))
            if _PROC.fullmatch(name):
                raise src.error(
                    at, f"threads must be named P0, P1, ... in order: expected P{i}, found {name}"
                )
            raise src.error(at, f"expected P{i} in the thread header, found '{name}'")
    return _checked_threads(src, arch, prog, start, rows)


def _usual_program(arch: str, text: str) -> tuple[tuple[CodeItem, ...], ...] | None:
    """The threads of the usual program table (no comment, string nor X86 ``LOCK;``, no
    ``;`` before the header, one cell per thread in every row, every cell and label
    right), read with plain splits; None for any other table (read with :func:`_rows`,
    and checked cell by cell)."""
    if "(*" in text or '"' in text or arch in ("X86", "X86_64") and "lock" in text.lower():
        return None
    pieces = text.split(";")
    if pieces[-1].strip():
        return None
    n = pieces[0].count("|") + 1
    if tuple([c.strip() for c in pieces[0].split("|")]) != _header(n):
        return None
    rows = [piece.split("|") for piece in pieces[1:-1]]
    if any(len(row) != n for row in rows):
        return None
    cols = [_column(arch, tuple([c.strip() for c in col])) for col in zip(*rows, strict=True)]
    threads = tuple(c for c in cols if c is not None)
    return threads if len(threads) == n else None


@lru_cache(maxsize=64)
def _header(n: int) -> tuple[str, ...]:
    """The thread header of ``n`` threads, its cells stripped."""
    return tuple(f"P{i}" for i in range(n))


#: A thread's code, per architecture and text of its cells (a campaign's tests share
#: threads: RISC-V's 9674 threads are 634 texts); None when a cell or label is wrong
#: (the test is then read cell by cell, which reports it at its place).
@lru_cache(maxsize=1 << 14)
def _column(arch: str, cells: tuple[str, ...]) -> tuple[CodeItem, ...] | None:
    code: list[CodeItem] = []
    for cell in cells:
        if cell:
            ops = _lower_cell(arch, cell)
            if isinstance(ops, CellError):
                return None
            code.extend(ops)
    marks = [(item, 0) for item in code if isinstance(item, Label) or isinstance(item.op, Branch)]
    if _label_problem(0, marks) or (arch == "AArch64" and _offset_problem(tuple(code), marks)):
        return None
    if len(_CODES) >= 1 << 14:
        _CODES.clear()
    items = tuple(code)
    return _CODES.setdefault(tuple(map(id, items)), items)


#: One object per thread's code (columns differing only in empty cells give the same):
#: what is remembered of a thread is so per identity (its lowering, its compiled code).
#: Keyed by its items' identities (a cell's items are one object per text: no hashing
#: of instructions), which the code kept here keeps alive (an identity found is theirs).
_CODES: dict[tuple[int, ...], tuple[CodeItem, ...]] = {}


def _checked_threads(
    src: Source, arch: str, prog: str, start: int, rows: list[list[tuple[int, int]]]
) -> tuple[tuple[CodeItem, ...], ...]:
    """The threads of the program table ``rows`` (a header of the right threads, then
    rows), cell by cell: a wrong cell count, cell or label is an InputError at its place."""
    n = len(rows[0])
    threads: list[list[CodeItem]] = [[] for _ in range(n)]
    marks: list[list[tuple[CodeItem, int]]] = [[] for _ in range(n)]  # labels, branches
    for row in rows[1:]:
        if len(row) != n:
            a = row[0][0]
            cell = prog[a : row[0][1]]
            at = start + a + (len(cell) - len(cell.lstrip()))
            raise src.error(
                at,
                f"this row has {len(row)} cell{'s' if len(row) != 1 else ''} but the test has "
                f"{n} thread{'s' if n != 1 else ''} "
                "(one cell per thread, separated by '|')",
            )
        for tid, (a, b) in enumerate(row):
            raw = prog[a:b]
            cell = raw.strip()
            if not cell:
                continue
            ops = _lower_cell(arch, cell)
            if isinstance(ops, CellError):
                at = start + a + (len(raw) - len(raw.lstrip()))
                raise src.error(at + ops.offset, ops.message)
            threads[tid].extend(ops)
            for item in ops:
                if isinstance(item, Label) or isinstance(item.op, Branch):
                    marks[tid].append((item, start + a + (len(raw) - len(raw.lstrip()))))
    for tid in range(n):
        if marks[tid]:
            _check_labels(src, tid, marks[tid])
            if arch != "AArch64":  # only AArch64's branches may go to offsets (.+8)
                continue
            problem = _offset_problem(tuple(threads[tid]), marks[tid])
            if problem is not None:
                raise src.error(*problem)
    return tuple(tuple(t) for t in threads)


def _offset_problem(
    code: tuple[CodeItem, ...], marks: list[tuple[CodeItem, int]]
) -> tuple[int, str] | None:
    """The first branch of ``code`` to an offset that is no instruction of it (``.+6``,
    beyond the end): where (its cell's position in ``marks``) and why; else None."""
    try:
        cells.offset_targets(code)
    except ValueError as e:
        bad = str(e).split("'")[1]
        for x, at in marks:
            if isinstance(x, Instruction) and isinstance(x.op, Branch) and x.op.target == bad:
                return at, str(e)
        return 0, str(e)
    return None


@lru_cache(maxsize=1 << 15)
def _lower_cell(arch: str, cell: str) -> tuple[CodeItem, ...] | CellError:
    try:
        return ASSEMBLERS[arch].parse_cell(cell)
    except CellError as exc:
        return exc


def _check_labels(src: Source, tid: int, marks: list[tuple[CodeItem, int]]) -> None:
    problem = _label_problem(tid, marks)
    if problem is not None:
        raise src.error(*problem)


def _label_problem(tid: int, marks: list[tuple[CodeItem, int]]) -> tuple[int, str] | None:
    """The first wrong label of thread ``tid`` (a label defined twice, a branch to a label
    the thread does not define): where (the position paired with it in ``marks``, the
    thread's labels and branches) and the message; None when all are right."""
    defined: set[str] = set()
    for ins, at in marks:
        if isinstance(ins, Label):
            if ins.name in defined:
                return at, f"label '{ins.name}' is defined twice in thread P{tid}"
            defined.add(ins.name)
    for ins, at in marks:
        if isinstance(ins, Instruction) and isinstance(ins.op, Branch):
            if ins.op.target not in defined and cells.branch_offset(ins.op.target) is None:
                return at, f"branch to label '{ins.op.target}', which thread P{tid} does not define"
    return None
