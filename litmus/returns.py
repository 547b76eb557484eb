"""herd's returns: a thread's ``RET`` (AArch64), ``ret`` (X86_64), ``blr`` (PPC), ``BX LR``
(ARM), the IR's :class:`Exit`, end it under ``-variant telechat`` (the variant of herd's
compiled tests, often their own ``Variant=telechat``): herd's ``B.Exit``, no event.
Without it herd jumps to the link register's value (code addresses), which herdsman does
not model: the test is refused with one error naming the instruction."""

from __future__ import annotations

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Exit, Program

#: the variant under which a return ends its thread
TELECHAT = "telechat"


def check_returns(program: Program, variants: frozenset[str], path: str) -> None:
    """An InputError when ``program`` returns (:class:`Exit`) and ``variants`` (the run's
    and the test's) lack ``telechat``."""
    if any(v.lower() == TELECHAT for v in variants):
        return
    for th in program.threads:
        for ins, origin in zip(th.code, th.origins, strict=True):
            if type(ins) is Exit:
                raise InputError(
                    path,
                    0,
                    0,
                    f"unsupported {program.arch} instruction '{origin}' "
                    f"(a return: only with -variant {TELECHAT})",
                )


__all__ = ["TELECHAT", "check_returns"]
