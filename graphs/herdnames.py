"""The event sets and relations herd predefines before a cat model runs.

``static_names(sk, arch)`` gives every name that depends only on the skeleton (events, po,
dependencies); ``dynamic_names(g)`` the ones that depend on the rf/co choice (``rf``,
``FW``, ``pco``).  Values are tagged ``("set", bits)`` or ``("rel", bits)``.  Which names
exist follows herd's ``machModelChecker.ml`` (herd-formats.md section 1.5): register events
are never in the universe; ``co``/``fr`` are not predefined (models build them).
"""

from __future__ import annotations

from graphs.execution import ExecutionGraph, Skeleton

Tagged = tuple[str, int]

#: Fence sets per architecture (herd's barrier sets, named by the upper-case mnemonic).
FENCE_SETS: dict[str, tuple[str, ...]] = {
    "PPC": ("SYNC", "LWSYNC", "ISYNC", "EIEIO"),
    "X86": ("MFENCE", "SFENCE", "LFENCE"),
    "X86_64": ("MFENCE", "SFENCE", "LFENCE"),
}

#: Annotation sets per architecture (besides the fence sets).
ANNOT_SETS: dict[str, tuple[str, ...]] = {
    "PPC": ("X", "EX"),
    "X86": ("X",),
    "X86_64": ("X", "NT"),
}

#: Sets herd always defines that are empty for the architectures we run.
EMPTY_SETS = (
    "NExp", "SPEC", "SPURIOUS", "Rreg", "Wreg", "ADDR", "DATA", "BCC", "PRED",
    "T", "GCS", "TLBI", "no-loc", "CutOff", "FAULT", "FAULT-RD", "FAULT-WR",
    "EXC-ENTRY", "EXC-RET",
)  # fmt: skip

#: Relations herd always defines that are empty for the architectures we run.
EMPTY_RELS = (
    "iico_data", "iico_ctrl", "iico_order", "rf-reg", "tst", "depend", "success",
    "control", "equiv-spec",
)  # fmt: skip


def static_names(sk: Skeleton, arch: str) -> dict[str, Tagged]:
    """Names whose value is fixed by the skeleton."""
    U = sk.U
    M = sk.M
    env: dict[str, Tagged] = {
        "M": ("set", M),
        "R": ("set", sk.R),
        "W": ("set", sk.W),
        "IW": ("set", sk.IW),
        "F": ("set", sk.F),
        "B": ("set", sk.B),
        "Exp": ("set", M),
        "EXEC": ("set", U.ALL),
        "id": ("rel", U.ID),
        "loc": ("rel", sk.loc),
        "int": ("rel", sk.int_),
        "ext": ("rel", sk.ext),
        "po": ("rel", sk.po),
        "partial_po": ("rel", sk.po),
    }
    for name in EMPTY_SETS:
        env[name] = ("set", 0)
    for name in EMPTY_RELS:
        env[name] = ("rel", 0)
    for name in FENCE_SETS.get(arch, ()):
        env[name] = ("set", sk.fence_set(name))
    for name in ANNOT_SETS.get(arch, ()):
        env[name] = ("set", sk.annot_set(name))
    for name in ("addr", "data", "ctrl"):
        env[name] = ("rel", sk.deps.get(name, 0))
    for name, rel in sk.deps.items():
        env.setdefault(name, ("rel", rel))
    for name, s in sk.extra_sets.items():
        env[name] = ("set", s)
    # Events of one instruction instance (herd's same-instance), and sm/si: identity on
    # memory events in the non-mixed mode.
    same = 0
    groups: dict[int, int] = {}
    for e in sk.events:
        if e.iiid >= 0:
            groups[e.iiid] = groups.get(e.iiid, 0) | (1 << e.eid)
    for s in groups.values():
        same |= U.product(s, s)
    same |= U.ID
    env["same-instance"] = ("rel", same)
    env["same-instr"] = ("rel", same)
    env["same-static"] = ("rel", same)
    env["sm"] = ("rel", U.ident(U.ALL))
    env["si"] = ("rel", U.ident(U.ALL))
    env["aligned"] = ("rel", U.product(M, M))
    return env


def dynamic_names(g: ExecutionGraph, fw: int | None = None) -> dict[str, Tagged]:
    """Names that depend on rf (and on the final writes ``FW``).

    ``fw`` overrides the final writes (engines that enumerate them, as herd does);
    by default they are the co-maximal writes of ``g``.
    """
    return {
        "rf": ("rel", g.rf),
        "FW": ("set", g.FW if fw is None else fw),
    }
