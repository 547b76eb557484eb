"""The POWER families of the RSMC paper, as PPC litmus tests (for ``bench/bench_rsmc.py``).

* :func:`fig11`: the paper's Fig. 11.  Each of two threads stores 1 to its own flag,
  [``sync``], loads the other's flag, and if it read 0 stores N distinct values to ``z``.
  With the syncs: 3 traces for every N; without: C(2N, N) + 3.
* :func:`sbnw`: SB+NW.  Each thread stores 1 to its own flag, N distinct values to ``z``,
  [``sync``], then loads the other's flag.  Under POWER: 3 · C(2N, N) traces with the
  syncs, 4 · C(2N, N) without.
"""

from __future__ import annotations


def _table(rows: list[tuple[str, str]]) -> str:
    w = max(12, *(len(a) for a, _ in rows), *(len(b) for _, b in rows))
    head = f" {'P0':<{w}} | {'P1':<{w}} ;"
    return "\n".join([head, *(f" {a:<{w}} | {b:<{w}} ;" for a, b in rows)])


def fig11(n: int, sync: bool = True) -> str:
    """Litmus text of Fig. 11 with ``n`` stores to z per thread, with or without the
    syncs."""
    rows = [("li r1,1", "li r1,1"), ("stw r1,0(r2)", "stw r1,0(r2)")]
    if sync:
        rows.append(("sync", "sync"))
    rows += [("lwz r3,0(r4)", "lwz r3,0(r4)"), ("cmpwi r3,0", "cmpwi r3,0")]
    rows.append(("bne LC00", "bne LC01"))
    for i in range(n):
        rows += [(f"li r5,{i + 1}", f"li r5,{n + i + 1}"), ("stw r5,0(r6)", "stw r5,0(r6)")]
    rows.append(("LC00:", "LC01:"))
    name = f"SB+{n}W{'+syncs' if sync else ''}-fig11"
    return (
        f"PPC {name}\n{{\n0:r2=x; 0:r4=y; 0:r6=z;\n1:r2=y; 1:r4=x; 1:r6=z;\n}}\n"
        f"{_table(rows)}\nexists (0:r3=0 /\\ 1:r3=0)\n"
    )


def sbnw(n: int, sync: bool = True) -> str:
    """Litmus text of SB+NW with ``n`` stores to z per thread, with or without the
    syncs."""
    rows = [("li r1,1", "li r1,1"), ("stw r1,0(r2)", "stw r1,0(r2)")]
    for i in range(n):
        rows += [(f"li r5,{i + 1}", f"li r5,{n + i + 1}"), ("stw r5,0(r6)", "stw r5,0(r6)")]
    if sync:
        rows.append(("sync", "sync"))
    rows.append(("lwz r3,0(r4)", "lwz r3,0(r4)"))
    name = f"SB+{n}W{'+syncs' if sync else ''}"
    return (
        f"PPC {name}\n{{\n0:r2=x; 0:r4=y; 0:r6=z;\n1:r2=y; 1:r4=x; 1:r6=z;\n}}\n"
        f"{_table(rows)}\nexists (0:r3=0 /\\ 1:r3=0)\n"
    )
