"""herd's returns: a thread's ``RET`` (AArch64), ``ret`` (X86_64), ``blr`` (PPC), ``BX LR``
(ARM), the IR's :class:`Exit`, end it under ``-variant telechat`` (the variant of herd's
compiled tests, often their own ``Variant=telechat``): herd's ``B.Exit``, no event.
Without it herd jumps to the link register's value (code addresses), which herdsman does
not model: the test is refused with one error naming the instruction, at its first cell
of that text in the test's program."""

from __future__ import annotations

import re

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Exit, Program
from herdsman.litmus.base.source import read_source

#: the variant under which a return ends its thread
TELECHAT = "telechat"


def check_returns(program: Program, variants: frozenset[str], path: str) -> None:
    """An InputError when ``program`` returns (:class:`Exit`) and ``variants`` (the run's
    and the test's) lack ``telechat``."""
    if not program.has(Exit) or any(v.lower() == TELECHAT for v in variants):
        return
    for th in program.threads:
        for ins, origin in zip(th.code, th.origins, strict=True):
            if type(ins) is Exit:
                line, col = _where(path, origin)
                why = f"unsupported {program.arch} instruction '{origin}'"
                raise InputError(
                    path, line, col, f"{why} (a return: only with -variant {TELECHAT})"
                )


def _where(path: str, origin: str) -> tuple[int, int]:
    """(line, column) of the first program cell reading ``origin`` (case and spacing
    aside), (0, 0) when the file no longer says it."""
    try:
        src = read_source(path)
    except InputError:
        return 0, 0
    words = r"\s+".join(re.escape(w) for w in origin.split())
    cell = re.compile(rf"(?:^|[|;])[ \t]*({words})[ \t]*(?=[|;])", re.IGNORECASE | re.MULTILINE)
    m = cell.search(src.text)
    return (0, 0) if m is None else src.position(m.start(1))


__all__ = ["TELECHAT", "check_returns"]
