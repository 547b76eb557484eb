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

__all__ = [
    "Arch",
    "ARCHS",
    "arch",
    "arm_register",
    "fence_picture",
    "x86_64_part",
    "parsed_archs",
    "is_arch",
    "riscv_register",
]


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
    (``pp_barrier``); ``exclusive_pairs``: herd predefines ``rmw`` (see the field)."""

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
    #: herd predefines ``rmw`` from the events (its ``atomic_load_store``): exclusive
    #: pairs of ``X`` accesses, a read-modify-write event being one event
    exclusive_pairs: bool = False
    #: herd also predefines ``amo``: the ``rmw`` pairs of one instruction (AArch64)
    amo_pairs: bool = False
    #: an unconditional branch and a nop issue an event with no action (herd's NoAction)
    nop_events: bool = False
    #: herd rejects a test accessing one location with two sizes, or a symbol at an
    #: offset that is no array cell, unless ``-variant mixed`` (``litmus.sizes``)
    reject_mixed: bool = False


# ----------------------------------------------------------------------------- PPC

_PPC_GPR = re.compile(r"[rR](\d{1,9})")
_GPR = re.compile(r"r(\d{1,9})$")
_FPR = re.compile(r"fpr(\d{1,9})$")
_CRBIT = re.compile(r"cr:(\d{1,9})$")
_CRFIELD = re.compile(r"cr(\d{1,9})$")
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


def _x86_64_parts() -> dict[str, tuple[str, int]]:
    """Each register name of each size -> its 64-bit register's name and its width."""
    out: dict[str, tuple[str, int]] = {}
    for i, b in enumerate(_X86_64_BASES):
        if i < 8:
            full = "r" + b
            names = [(full, 64), ("e" + b, 32), (b, 16)]
            if b in ("ax", "bx", "cx", "dx"):
                names += [(b[0] + "l", 8), (b[0] + "h", 8)]
            else:
                names += [(b + "l", 8)]
        else:
            full = b
            names = [(b, 64), (b + "d", 32), (b + "w", 16), (b + "b", 8)]
        for n, bits in names:
            out[n] = (full, bits)
    return out


_X86_64_PARTS = _x86_64_parts()


def x86_64_part(name: str) -> tuple[str, int] | None:
    """The 64-bit register a register name of X86_64 is part of (``eax``: ``rax``), and
    its width in bits; any case, as herd's lexer."""
    return _X86_64_PARTS.get(name.lower())


def _x86_64_register(name: str) -> str | None:
    """A register of an X86_64 initial state or condition: a 64-bit one (herd refuses the
    others there), ``rip`` or ``cs``, in any case; canonical in lower case."""
    if name.startswith("%"):
        return name
    low = name.lower()
    if low in ("rip", "cs") or _X86_64_PARTS.get(low, ("", 0))[1] == 64:
        return low
    return None


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


# ----------------------------------------------------------------------------- ARM

#: ARM's registers in herd's constructor order (lib/ARMBase.ml): the general ones, the
#: flags and the reservation (neither can be written in a test).
_ARM_ORDER = (*(f"R{i}" for i in range(13)), "SP", "LR", "PC", "FP", "Z", "RESADDR")
_ARM_NAMES = {**{r: r for r in _ARM_ORDER[:17]}, "IP": "R12"}


def arm_register(name: str) -> str | None:
    """ARM's register ``name`` in any case (``IP`` is ``R12``), canonical: ``R0``, ``SP``."""
    if name.startswith("%"):
        return name
    return _ARM_NAMES.get(name.upper())


def _arm_register_key(reg: str) -> tuple:
    if reg in _ARM_ORDER:  # constant constructors first, in order; then symbolic ones
        return (0, _ARM_ORDER.index(reg), "")
    return (1, 0, reg)


#: herd's ARM barrier sets (ARMArch_herd.ml ``barrier_sets``): DMB SY is ``DMB``...
_ARM_FENCES = ("DMB", "DMB.ISH", "DSB", "DMB.ST", "DSB.ST", "ISB")


def _arm_fence_pictures() -> tuple[tuple[str, str], ...]:
    """herd's names of ARM barriers in pictures: lower case, ``dmb.st`` (ARMSem.ml)."""
    opts = ("SY", "ST", "ISH", "ISHST", "NSH", "NSHST", "OSH", "OSHST")
    out = [("ISB", "isb")]
    for b in ("DMB", "DSB"):
        for o in opts:
            kind = b if o == "SY" else f"{b}.{o}"
            out.append((kind, kind.lower()))
    return tuple(out)


# ----------------------------------------------------------------------------- RISC-V

#: RISC-V's ABI register names (lib/RISCVBase.ml ``pp_xregs``; herd spells s10 "10").
_RISCV_ABI = (
    *("zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1"),
    *(f"a{i}" for i in range(8)),
    *(f"s{i}" for i in range(2, 10)),
    *("10", "s11", "t3", "t4", "t5", "t6"),
)
_RISCV_NAMES = {
    **{f"x{i}": f"x{i}" for i in range(32)},
    **{n: f"x{i}" for i, n in enumerate(_RISCV_ABI)},
    "fp": "x8",
}
_RISCV_X = re.compile(r"x(\d+)$")


def riscv_register(name: str) -> str | None:
    """RISC-V's register ``name`` (``x0``..``x31`` or an ABI name, lower case), canonical
    as herd prints it: ``x5``."""
    if name.startswith("%"):
        return name
    return _RISCV_NAMES.get(name)


def _riscv_register_key(reg: str) -> tuple:
    if reg == "res":  # herd's RESADDR: a constant constructor, before Ireg _
        return (0, 0, "")
    if m := _RISCV_X.match(reg):
        return (1, int(m.group(1)), "")
    return (2, 0, reg)


#: herd's RISC-V barrier sets (RISCVArch_herd.ml): ``Fence.i``, ``Fence.r.rw``... and
#: ``Fence.tso``, each fence event in the set of its kind.
_RISCV_FENCES = (
    "Fence.i",
    *(f"Fence.{a}.{b}" for a in ("r", "w", "rw") for b in ("r", "w", "rw")),
    "Fence.tso",
)


def _riscv_fence_pictures() -> tuple[tuple[str, str], ...]:
    """herd's names of RISC-V fences in pictures (``pp_barrier_dot``: ``fence.r.rw``)."""
    return tuple((k, k.lower()) for k in _RISCV_FENCES)


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
            parsed=True,
            fences=_X86_FENCES,
            annot_sets=("X", "NT"),  # NT: non-temporal accesses
            branch_commit=False,
            store_data_port=True,  # herd reads a stored register as data (X86_64Sem.ml)
            default_model="tso64",
            register=_x86_64_register,
            register_hint="a 64-bit register: rax, rbx, ..., r15",
            register_key=_x86_64_register_key,
            fence_pictures=tuple((f, f.lower()) for f in _X86_FENCES),
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
            exclusive_pairs=True,
            amo_pairs=True,
            nop_events=True,
            reject_mixed=True,
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
        Arch(
            "ARM",
            parsed=True,
            fences=_ARM_FENCES,
            # X: exclusives (LDREX/STREX); A, L, AL, NoRet: none in ARMv7 programs
            annot_sets=("X", "A", "L", "AL", "NoRet"),
            branch_commit=True,
            store_data_port=True,
            default_model="arm",
            register=arm_register,
            register_hint="R0..R12, SP, LR or PC",
            register_key=_arm_register_key,
            fence_pictures=_arm_fence_pictures(),
            exclusive_pairs=True,
        ),
        Arch(
            "RISCV",
            parsed=True,
            fences=_RISCV_FENCES,
            # X: lr/sc and amo; the access orders; AMO: amo events (read and write at once)
            annot_sets=("X", "Acq", "Rel", "AcqRel", "Sc", "AMO"),
            branch_commit=True,
            store_data_port=True,
            default_model="riscv",
            register=riscv_register,
            register_hint="x0..x31 or an ABI name (a0, t1, s2...)",
            register_key=_riscv_register_key,
            fence_pictures=_riscv_fence_pictures(),
            exclusive_pairs=True,
        ),
        # herd's other architectures: their names are known (models declare them, tests
        # name them); herdsman has no front-end for them.
        *(
            Arch(name)
            for name in (
                "MIPS",
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
