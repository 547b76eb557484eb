"""Classic litmus shapes as hand-built skeletons, and all their candidate executions.

For tests and benchmarks of models without the litmus front-end: each shape (SB, MP, LB,
IRIW, WRC, ISA2, 2+2W, R, S, CoRR...) is a list of threads for :func:`graphs.build.build`,
optionally with fences between the accesses and dependencies.  :func:`candidates` lists
every (rf, co) of a skeleton: each read from any write of its location (values are not
constrained: a model decides on the graph alone), every coherence order with the initial
write first.
"""

from __future__ import annotations

import itertools

from herdsman.graphs.build import Built, F, R, W, build


def _thread(accesses, fence: str | None):
    out = []
    for i, a in enumerate(accesses):
        if i and fence:
            out.append(F(fence))
        out.append(a)
    return out


def shape(name: str, fence: str | None = None, dep: str | None = None) -> Built:
    """A shape with ``fence`` between the accesses of every thread and ``dep`` (addr,
    data, ctrl or ctrlisync) from each read to the next access of its thread."""
    r0, w1, w2 = (
        (lambda loc, n: R(loc, 0, name=n)),
        (lambda loc, n: W(loc, 1, name=n)),
        (lambda loc, n: W(loc, 2, name=n)),
    )
    threads = {
        "SB": [[w1("x", "a"), r0("y", "b")], [w1("y", "c"), r0("x", "d")]],
        "MP": [[w1("x", "a"), w1("y", "b")], [r0("y", "c"), r0("x", "d")]],
        "LB": [[r0("x", "a"), w1("y", "b")], [r0("y", "c"), w1("x", "d")]],
        "IRIW": [
            [w1("x", "a")],
            [r0("x", "b"), r0("y", "c")],
            [w1("y", "d")],
            [r0("y", "e"), r0("x", "f")],
        ],
        "WRC": [[w1("x", "a")], [r0("x", "b"), w1("y", "c")], [r0("y", "d"), r0("x", "e")]],
        "ISA2": [
            [w1("x", "a"), w1("y", "b")],
            [r0("y", "c"), w1("z", "d")],
            [r0("z", "e"), r0("x", "f")],
        ],
        "2+2W": [[w1("x", "a"), w2("y", "b")], [w1("y", "c"), w2("x", "d")]],
        "R": [[w1("x", "a"), w1("y", "b")], [w2("y", "c"), r0("x", "d")]],
        "S": [[w2("x", "a"), w1("y", "b")], [r0("y", "c"), w1("x", "d")]],
        "CoRR": [[w1("x", "a")], [r0("x", "b"), r0("x", "c")]],
        "CoWW": [[w1("x", "a"), w2("x", "b")]],
        "CoRW": [[r0("x", "a"), w1("x", "b")], [w2("x", "c")]],
    }[name]
    fence_kind = fence if dep != "ctrlisync" else None
    ths = [_thread(th, fence_kind) for th in threads]
    deps: dict[str, list] = {}
    if dep is not None:
        for th in threads:
            for a, b in zip(th, th[1:], strict=False):
                if a.kind == "R":
                    kind = "ctrl" if dep == "ctrlisync" else dep
                    deps.setdefault(kind, []).append((a.name, b.name))
        if dep == "ctrlisync":  # an isync between the read and the dependent access
            ths = []
            for th in threads:
                t = []
                for i, a in enumerate(th):
                    if i and th[i - 1].kind == "R":
                        t.append(F("ISYNC"))
                    t.append(a)
                ths.append(t)
    rf = [
        (f"init:{r.loc}", r.name)
        for th in threads
        for r in th
        if r.kind == "R" and r.name is not None  # every read here is named
    ]
    return build(ths, rf=rf, deps=deps)


SHAPES = ("SB", "MP", "LB", "IRIW", "WRC", "ISA2", "2+2W", "R", "S", "CoRR", "CoWW", "CoRW")


def candidates(b: Built) -> list[tuple[int, int]]:
    """Every (rf, co) of b's skeleton (see the module docstring)."""
    sk, U = b.sk, b.U
    evs = sk.events
    reads = [i for i, e in enumerate(evs) if e.kind == "R"]
    choices = [
        [j for j, w in enumerate(evs) if w.kind == "W" and w.loc == evs[r].loc] for r in reads
    ]
    per_loc = []
    for x in sk.locations:
        init = sk.init_write[x]
        ws = [i for i, e in enumerate(evs) if e.kind == "W" and e.loc == x and e.tid >= 0]
        per_loc.append([[init, *p] for p in itertools.permutations(ws)])
    out = []
    for srcs in itertools.product(*choices):
        rf = U.from_pairs((w, r) for w, r in zip(srcs, reads, strict=True))
        for orders in itertools.product(*per_loc):
            co = 0
            for order in orders:
                co |= U.total_order(order)
            out.append((rf, co))
    return out
