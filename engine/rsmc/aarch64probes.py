"""Whether ``cb^aarch64`` (:func:`engine.rsmc.cb.aarch64_preds`) is valid for a model: the
model's own verdicts on the smallest AArch64 programs that would close a cycle of it.

An AArch64 model computes its dependencies from herd's register events (``catdep``), so
the probes are programs, run by the reference engine, not hand-built graphs: for each
kind of ``cb^aarch64`` edge from a read to a write (``addr``, ``data``, ``ctrl``,
``addr;po``, each barrier that orders a read with a later write, an acquire read, each
``ST`` barrier between a dependent write and a write), load buffering with that edge in one
thread and the same edge or ``DMB SY`` in the other; and, since a thread may read its
own write (``rfi``) on the way, the edge followed by a read of the write it orders and
a data dependency to the write the other thread reads.  The model must forbid each.
(A release write is no ``cb^aarch64`` edge: the second kind of probe, through a
``STLR``, is allowed by herd's ``aarch64.cat``.)
"""

from __future__ import annotations

from herdsman.cat.api import PreparedModel
from herdsman.engine.options import RunOptions
from herdsman.engine.reference.run import run_reference
from herdsman.engine.rsmc.cb import AARCH64_FULL, AARCH64_LD, AARCH64_ST
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_text

#: The code of each edge kind between ``LDR W0,[X1]`` and a write of 1 to ``[X3]``
#: (scratch: ``X7``, a location of its own).
_EDGES: dict[str, tuple[str, ...]] = {
    "addr": ("EOR W4,W0,W0", "MOV W5,#1", "STR W5,[X3,W4,SXTW]"),
    "data": ("EOR W4,W0,W0", "ADD W5,W4,#1", "STR W5,[X3]"),
    "ctrl": ("CBNZ W0,LC{t}", "LC{t}:", "MOV W5,#1", "STR W5,[X3]"),
    "addr;po": ("EOR W4,W0,W0", "LDR W6,[X7,W4,SXTW]", "MOV W5,#1", "STR W5,[X3]"),
    "A": ("MOV W5,#1", "STR W5,[X3]"),
    "Q": ("MOV W5,#1", "STR W5,[X3]"),
}
_READ = {"A": "LDAR W0,[X1]", "Q": "LDAPR W0,[X1]"}
for _f in sorted(AARCH64_FULL | AARCH64_LD):
    _word, _, _opt = _f.partition(".")
    _EDGES[_f] = (f"{_word} {_opt}", "MOV W5,#1", "STR W5,[X3]")
for _f in sorted(AARCH64_ST):  # after a write that depends on the read
    _word, _, _opt = _f.partition(".")
    _EDGES[_f] = ("EOR W4,W0,W0", "STR W4,[X7]", f"{_word} {_opt}", "MOV W5,#1", "STR W5,[X3]")


def _thread(t: int, edge: str, rfi: bool) -> list[str]:
    """Thread ``t``: read ``[X1]``, then ``edge`` to the write of ``[X3]``; with ``rfi``
    then a read of that write and a data dependency to a write of 1 to ``[X8]``."""
    code = [_READ.get(edge, "LDR W0,[X1]"), *(x.format(t=t) for x in _EDGES[edge])]
    if rfi:
        code += ["LDR W9,[X3]", "EOR W10,W9,W9", "ADD W10,W10,#1", "STR W10,[X8]"]
    return code


def _probe(a: str, b: str, rfi: bool) -> str:
    """The test: thread 0 with edge ``a`` from ``x`` to ``y`` (then, with ``rfi``, to
    ``u`` through its own write), thread 1 with ``b`` back to ``x``; its condition is
    the cycle."""
    t0, t1 = _thread(0, a, rfi), _thread(1, b, False)
    back = "u" if rfi else "y"
    init = f"0:X1=x; 0:X3=y; 0:X7=s0; 0:X8=u; 1:X1={back}; 1:X3=x; 1:X7=s1;"
    rows = []
    for k in range(max(len(t0), len(t1))):
        left = t0[k] if k < len(t0) else ""
        right = t1[k] if k < len(t1) else ""
        rows.append(f" {left} | {right} ;")
    cond = "0:X0=1 /\\ 1:X0=1" + (" /\\ 0:X9=1" if rfi else "")
    return (
        "AArch64 probe\n{ " + init + " }\n P0 | P1 ;\n" + "\n".join(rows) + f"\nexists ({cond})\n"
    )


def _allowed(model: PreparedModel, text: str) -> bool:
    program = lower(parse_text(text, "cb-probe.litmus"))
    out = run_reference(program, model, RunOptions(engine="reference"))
    return any(all(v == 1 for v in state) for state in out.states)


def cycle(model: PreparedModel) -> str | None:
    """The first probe (as ``"data and DMB.SY"``, ``"ctrl then rfi"``) whose cycle the
    model allows, or None: ``cb^aarch64`` is then valid for it."""
    for a in _EDGES:
        for b in dict.fromkeys((a, "DMB.SY")):
            if _allowed(model, _probe(a, b, False)):
                return a if a == b else f"{a} and {b}"
        if _allowed(model, _probe(a, "data", True)):
            return f"{a} then rfi"
    return None


__all__ = ["cycle"]
