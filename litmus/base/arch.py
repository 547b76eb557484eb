"""Architecture records: every fact herdsman knows about an architecture, in one place.

One :class:`Arch` per architecture name herd knows.  The front-ends read which
architectures they parse and their register names; the program semantics reads which
branches make a commit event and which registers of a store are a data port; the graphs
read herd's predefined fence and annotation sets; cat reads which names are
architectures; herd_compat reads the default model and herd's order of registers in
state lines.  Nothing else in the code base names an architecture's properties.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Arch", "ARCHS", "arch", "fence_picture", "parsed_archs", "is_arch"]


@dataclass(frozen=True)
class Arch:
    """What herdsman knows of one architecture.

    ``parsed``: herdsman has a front-end for its litmus tests.  ``fences`` and
    ``annot_sets`` are herd's predefined event sets (``barrier_sets``, ``annot_sets``).
    ``branch_commit``: a conditional branch issues a commit event ``B`` (so herd's
    ``ctrl`` exists).  ``store_data_port``: the stored register of a plain store is a data
    port (``data``; else the dependency is ``addr``); read-modify-writes always read their
    operand as data.  ``default_model``: the built-in model herd7 runs tests of this
    architecture with.  ``register``: the canonical name of a register (None: not one);
    ``register_key``: herd's order of registers in state lines (OCaml's ``compare`` on its
    register type); ``fence_pictures``: how herd names each fence in pictures
    (``pp_barrier``)."""

    name: str
    parsed: bool = False
    fences: tuple[str, ...] = ()
    annot_sets: tuple[str, ...] = ()
    branch_commit: bool = True
    store_data_port: bool = True
    default_model: str | None = None
    register: Callable[[str], str | None] = lambda name: None
    register_hint: str = ""
    register_key: Callable[[str], tuple] = lambda reg: (0, 0, reg)
    fence_pictures: tuple[tuple[str, str], ...] = ()  # how herd draws each fence event
    #: herd's other event sets of the architecture, which no event herdsman builds joins
    #: (cache maintenance, TLB invalidation levels, fault types...): defined, empty
    other_sets: tuple[str, ...] = ()
    #: herd's ``rmw`` pairs the atomic (``X``) accesses of a location, an exclusive load
    #: with the next exclusive store (``lxsx``), and ``amo`` those of one instruction
    atomic_pairs: bool = False
    #: an unconditional branch and a nop issue an event with no action (herd's NoAction)
    nop_events: bool = False


# ----------------------------------------------------------------------------- PPC

_PPC_GPR = re.compile(r"[rR](\d+)")
_GPR = re.compile(r"r(\d+)$")
_FPR = re.compile(r"fpr(\d+)$")
_CRBIT = re.compile(r"cr:(\d+)$")
_CRFIELD = re.compile(r"cr(\d+)$")
#: PPC special registers after the GPRs and FPRs, in constructor order (lib/PPCBase.ml).
_PPC_SPECIAL = ("pc", "rc", "oe", "xer_0", "xer_1", "xer_2")
_PPC_LATE = ("lr", "ctr", "carry")
_PPC_TAIL = ("res", "resaddr")


def _ppc_register(name: str) -> str | None:
    """``r0``..``r31`` in any case (as herd), written without leading zeros."""
    if name.startswith("%"):
        return name
    m = _PPC_GPR.fullmatch(name)
    if m and int(m.group(1)) < 32 and (m.group(1) == "0" or m.group(1)[0] != "0"):
        return "r" + m.group(1)
    return None


def _ppc_register_key(reg: str) -> tuple:
    low = reg.lower()
    if m := _GPR.match(low):
        return (0, int(m.group(1)), "")
    if m := _FPR.match(low):
        return (1, int(m.group(1)), "")
    if low in _PPC_SPECIAL:
        return (2, _PPC_SPECIAL.index(low), "")
    if m := _CRBIT.match(low):
        return (3, int(m.group(1)), "")
    if m := _CRFIELD.match(low):
        return (4, int(m.group(1)), "")
    if low in _PPC_LATE:
        return (5, _PPC_LATE.index(low), "")
    if reg.startswith("%"):
        return (6, 0, reg)
    if low in _PPC_TAIL:
        return (8, _PPC_TAIL.index(low), "")
    return (7, 0, reg)


# ----------------------------------------------------------------------------- X86

#: The general registers of X86 (32-bit), in herd's constructor order (lib/X86Base.ml).
X86_REGS = ("EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP")
#: The other registers herd knows, after the general ones: not usable as operands.
X86_OTHER_REGS = ("EIP", "ZF", "SF", "CF")
_X86_ORDER = X86_REGS + X86_OTHER_REGS


def _x86_register(name: str) -> str | None:
    if name.startswith("%"):
        return name
    return name if name in X86_REGS else None


def _x86_register_key(reg: str) -> tuple:
    up = reg.upper()
    if up in _X86_ORDER:
        return (0, _X86_ORDER.index(up), "")
    if reg.startswith("%"):
        return (1, 0, reg)
    return (2, 0, reg)


# ----------------------------------------------------------------------------- X86_64

_X86_64_BASES = ("ax", "bx", "cx", "dx", "si", "di", "bp", "sp") + tuple(
    f"r{i}" for i in range(8, 16)
)


def _x86_64_names() -> dict[str, int]:
    """Each register name of each size -> its base register's constructor index."""
    out: dict[str, int] = {}
    for i, b in enumerate(_X86_64_BASES):
        if i < 8:
            names = ["r" + b, "e" + b, b]
            names += [b[0] + "l", b[0] + "h"] if b in ("ax", "bx", "cx", "dx") else [b + "l"]
        else:
            names = [b, b + "d", b + "w", b + "b"]
        for n in names:
            out[n] = i
    return out


_X86_64_NAMES = _x86_64_names()
_X86_64_XMM = re.compile(r"xmm(\d)$")
_X86_64_FLAGS = ("zf", "sf", "cf")


def _x86_64_register_key(reg: str) -> tuple:
    low = reg.lower()
    if low == "rip":
        return (0, 0, "")
    if low in _X86_64_NAMES:
        return (1, _X86_64_NAMES[low], "")
    if m := _X86_64_XMM.match(low):
        return (2, int(m.group(1)), "")
    if reg.startswith("%"):
        return (3, 0, reg)
    if low in _X86_64_FLAGS:
        return (5, _X86_64_FLAGS.index(low), "")
    return (4, 0, reg)


# ----------------------------------------------------------------------------- AArch64

_A64_GPR = re.compile(r"[XxWw](\d+)")
#: AArch64 registers herd knows besides X0..X30, in its constructor order after the
#: general registers (lib/AArch64Base.ml ``reg``): symbolic, NZCV, SP, PC, ResAddr.
_A64_LATE = ("NZCV", "SP", "PC", "Res")


def _aarch64_register(name: str) -> str | None:
    """``X0``..``X30`` (``LR`` is ``X30``), ``XZR`` and ``SP``, in any case, as herd's
    locations name them (``parse_xreg``); ``%name`` symbolic."""
    if name.startswith("%"):
        return name
    up = name.upper()
    if up == "LR":
        return "X30"
    if up in ("XZR", "SP"):
        return up
    m = _A64_GPR.fullmatch(name)
    if m and up[0] == "X" and int(m.group(1)) <= 30 and str(int(m.group(1))) == m.group(1):
        return "X" + m.group(1)
    return None


def _aarch64_register_key(reg: str) -> tuple:
    up = reg.upper()
    if up == "XZR":
        return (0, 0, "")
    if (m := _A64_GPR.fullmatch(reg)) and up[0] == "X":
        return (1, int(m.group(1)), "")
    if reg.startswith("%"):
        return (2, 0, reg)
    if reg in _A64_LATE:
        return (3, _A64_LATE.index(reg), "")
    return (4, 0, reg)


def _aarch64_barriers() -> tuple[str, ...]:
    """herd's barrier sets (``do_fold_dmb_dsb``): DMB and DSB for every domain and type,
    named ``DMB.SY``, ``DMB.ISHLD``... (SY with a type is ``DMB.LD``), then ``ISB``."""
    out = []
    for dom in ("SY", "OSH", "ISH", "NSH"):
        for typ in ("", "ST", "LD"):
            opt = dom if not typ else (typ if dom == "SY" else dom + typ)
            out += [f"DMB.{opt}", f"DSB.{opt}"]
    return (*out, "ISB")


_A64_FENCES = _aarch64_barriers()


def _aarch64_other_sets() -> tuple[str, ...]:
    """herd's AArch64 sets of actions herdsman never builds (non-VMSA): cache
    maintenance (``DC.CVAU``, ``IC.IALLU``...), the explicit sets ``AF``/``DB``, exception
    levels, fault types and TLBI kinds."""
    dc = [f"DC.{f}{t}{p}" for f in ("I", "C", "CI", "Z") for t in ("VA", "SW") for p in ("C", "U")]
    ic = [f"IC.I{t}U{d}" for t in ("ALL", "VA") for d in ("IS", "")]
    levels = ["E0", "E1", "E2", "E3"]
    faults = ["MMU", "Translation", "AccessFlag", "Permission", "TagCheck"]
    return (*dc, *ic, "AF", "DB", *levels, *faults, "UndefinedInstruction", "TLBIIS", "TLBInXS")


# ----------------------------------------------------------------------------- the records

_X86_FENCES = ("MFENCE", "SFENCE", "LFENCE")
_C_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _c_register(name: str) -> str | None:
    return name if _C_IDENT.fullmatch(name) else None


_C_ANNOTS = (
    *("X", "RMW", "A", "NA", "annot"),
    *("ACQ", "SC", "REL", "ACQ_REL", "RLX", "CON"),
    *("LK", "LKR", "LKW", "LS", "LF", "UL", "RL", "RU"),
    *("ONCE", "Mb", "Rmb", "Wmb", "Acquire", "Release", "Noreturn"),
)

ARCHS: dict[str, Arch] = {
    a.name: a
    for a in (
        Arch(
            "PPC",
            parsed=True,
            fences=("SYNC", "LWSYNC", "ISYNC", "EIEIO"),
            # X: atomic accesses (none in PPC programs); EX: lwarx / stwcx.
            annot_sets=("X", "EX"),
            branch_commit=True,
            store_data_port=True,
            default_model="power",
            register=_ppc_register,
            register_hint="r0..r31",
            register_key=_ppc_register_key,
            # herd spells the eieio barrier "Eioio"
            fence_pictures=(
                ("SYNC", "Sync"),
                ("LWSYNC", "Lwsync"),
                ("ISYNC", "Isync"),
                ("EIEIO", "Eioio"),
            ),
        ),
        Arch(
            "X86",
            parsed=True,
            fences=_X86_FENCES,
            annot_sets=("X",),  # locked and xchg accesses
            branch_commit=False,
            store_data_port=False,  # MOV [x],EAX: the register is an address port in herd
            default_model="tso",
            register=_x86_register,
            register_hint="EAX, EBX, ECX, EDX, ESI, EDI, EBP or ESP",
            register_key=_x86_register_key,
            fence_pictures=tuple((f, f) for f in _X86_FENCES),
        ),
        Arch(
            "X86_64",
            fences=_X86_FENCES,
            annot_sets=("X", "NT"),  # NT: non-temporal accesses
            branch_commit=False,
            store_data_port=False,
            default_model="tso",
            register_key=_x86_64_register_key,
            fence_pictures=tuple((f, f) for f in _X86_FENCES),
        ),
        Arch(
            "AArch64",
            parsed=True,
            fences=_A64_FENCES,
            # herd's AArch64Annot.sets: X atomic (exclusives), A acquire, Q acquire-pc,
            # L release, NoRet, S speculated, NT non-temporal
            annot_sets=("X", "A", "Q", "L", "NoRet", "S", "NT"),
            branch_commit=True,
            store_data_port=True,
            default_model="aarch64",
            register=_aarch64_register,
            register_hint="X0..X30, XZR or SP",
            register_key=_aarch64_register_key,
            fence_pictures=tuple((f, f.replace(".", " ")) for f in _A64_FENCES),
            other_sets=_aarch64_other_sets(),
            atomic_pairs=True,
            nop_events=True,
        ),
        Arch(
            "C",  # its tests are read by litmus/c, not by the assembly splitter
            register=_c_register,  # a thread's local variables
            register_hint="a local variable of the thread",
            # herd's C annotation sets (herd/CAction.ml: memory orders, atomicity, locks)
            # and the Linux-kernel ones its bell file declares (ONCE, Mb, Acquire...)
            annot_sets=_C_ANNOTS,
            branch_commit=True,
            store_data_port=True,
        ),
        # herd's other architectures: their names are known (models declare them, tests
        # name them); herdsman has no front-end for them.
        *(
            Arch(name)
            for name in (
                "ARM",
                "MIPS",
                "RISCV",
                "CPP",
                "LISA",
                "BPF",
                "JAVA",
                "ASL",
                "PTX",
                "GPU_PTX",
            )
        ),
    )
}


def arch(name: str) -> Arch:
    """The record of architecture ``name`` (KeyError for a name herd does not know)."""
    return ARCHS[name]


def is_arch(name: str) -> bool:
    """Whether ``name`` is an architecture herd knows."""
    return name in ARCHS


def parsed_archs() -> tuple[str, ...]:
    """The architectures herdsman reads litmus tests of."""
    return tuple(a.name for a in ARCHS.values() if a.parsed)


def fence_picture(kind: str) -> str:
    """How herd names a fence event of kind ``kind`` in pictures (``Sync``, ``MFENCE``)."""
    for a in ARCHS.values():
        for k, text in a.fence_pictures:
            if k == kind:
                return text
    return kind
