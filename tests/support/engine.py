"""Helpers for the engine tests (no tests here).

Hand-built IR (PPC and X86 instructions as the parsers lower them) and independent oracle
models (SC; x86-TSO after Owens, Sarkar and Sewell) written directly in Python, to test
the enumeration without the cat evaluator."""

from __future__ import annotations

import itertools
from functools import cache

from herdsman.cat.api import ModelIdentity, Verdict, load_model, scratch_checker
from herdsman.engine.trust import core
from herdsman.graphs.relalg import bits
from herdsman.litmus.asm import cells as asm
from herdsman.litmus.base.ir import (
    And,
    Atom,
    Condition,
    Imm,
    Label,
    MemLoc,
    Prop,
    Reg,
    RegLoc,
    Sym,
    SymRegLoc,
)
from herdsman.litmus.test import InitItem, Instruction, LitmusTest

# ----------------------------------------------------------------------------- PPC


def li(rd: str, k: int) -> Instruction:
    return asm.op(f"li {rd},{k}", "li", rd, "mov", (Imm(k),))


def addi(rd: str, ra: str, k: int) -> Instruction:
    return asm.op(f"addi {rd},{ra},{k}", "addi", rd, "add", (Reg(ra), Imm(k)))


def xor(rd: str, ra: str, rb: str) -> Instruction:
    return asm.op(f"xor {rd},{ra},{rb}", "xor", rd, "xor", (Reg(ra), Reg(rb)))


def mr(rd: str, rs: str) -> Instruction:
    return asm.op(f"mr {rd},{rs}", "mr", rd, "mov", (Reg(rs),))


def cmpw(ra: str, rb: str) -> Instruction:
    return asm.op(f"cmpw {ra},{rb}", "cmpw", "cr0", "cmp", (Reg(ra), Reg(rb)))


def cmpwi(ra: str, k: int) -> Instruction:
    return asm.op(f"cmpwi {ra},{k}", "cmpwi", "cr0", "cmp", (Reg(ra), Imm(k)))


def lwz(rd: str, ra: str) -> Instruction:
    return asm.load(f"lwz {rd},0({ra})", "lwz", rd, (Imm(0), Reg(ra)))


def lwzx(rd: str, ra: str, rb: str) -> Instruction:
    return asm.load(f"lwzx {rd},{ra},{rb}", "lwzx", rd, (Reg(ra), Reg(rb)))


def stw(rs: str, ra: str) -> Instruction:
    return asm.store(f"stw {rs},0({ra})", "stw", Reg(rs), (Imm(0), Reg(ra)))


def std(rs: str, ra: str) -> Instruction:
    return asm.store(f"std {rs},0({ra})", "std", Reg(rs), (Imm(0), Reg(ra)))


def stwx(rs: str, ra: str, rb: str) -> Instruction:
    return asm.store(f"stwx {rs},{ra},{rb}", "stwx", Reg(rs), (Reg(ra), Reg(rb)))


def beq(lbl: str) -> Instruction:
    return asm.branch(f"beq  {lbl}", "beq", lbl, "eq", "cr0")


def bne(lbl: str) -> Instruction:
    return asm.branch(f"bne  {lbl}", "bne", lbl, "ne", "cr0")


def b(lbl: str) -> Instruction:
    return asm.branch(f"b   {lbl}", "b", lbl, None, "cr0")


def fence(kind: str) -> Instruction:
    return asm.fence(kind.lower(), kind.lower(), kind)


def label(name: str) -> Label:
    return Label(name)


# ----------------------------------------------------------------------------- X86


def mov_st(x: str, v: int) -> Instruction:
    return asm.store(f"MOV [{x}],${v}", "MOV", Imm(v), (Imm(Sym(x)),))


def mov_ld(r: str, x: str) -> Instruction:
    return asm.load(f"MOV {r},[{x}]", "MOV", r, (Imm(Sym(x)),))


def mov_st_reg(x: str, r: str) -> Instruction:
    return asm.store(f"MOV [{x}],{r}", "MOV", Reg(r), (Imm(Sym(x)),))


MFENCE = asm.fence("MFENCE", "MFENCE", "MFENCE")


# ----------------------------------------------------------------------------- tests


def reg_init(tid: int, reg: str, sym: str) -> InitItem:
    return InitItem(RegLoc(tid, reg), Sym(sym), sym)


#: Pointer registers of two-thread PPC tests: P0 has x in r2 and y in r4, P1 the reverse.
PPC_PTR = [
    reg_init(0, "r2", "x"),
    reg_init(0, "r4", "y"),
    reg_init(1, "r2", "y"),
    reg_init(1, "r4", "x"),
]


def litmus(
    arch: str,
    name: str,
    threads: list[list],
    prop: Prop,
    init: list[InitItem] | None = None,
    quant: str = "exists",
    locations: tuple = (),
    filter: Prop | None = None,
) -> LitmusTest:
    return LitmusTest(
        arch,
        name,
        None,
        None,
        (),
        tuple(init or ()),
        tuple(tuple(t) for t in threads),
        Condition(quant, prop),
        locations=locations,
        filter=filter,
    )


def regs_eq(*pairs: tuple[int, str, int]) -> Prop:
    return And(tuple(Atom(RegLoc(t, r), v) for t, r, v in pairs))


def mem_eq(*pairs: tuple[str, int]) -> Prop:
    return And(tuple(Atom(MemLoc(x), v) for x, v in pairs))


#: CoWR2's pointers: x holds the address z; P0's %t0 holds t and %x0 x (P0 stores t into
#: x), %x1 gives P1 the address x (P1 reads x and stores where it points).
COWR2_INIT = [
    InitItem(MemLoc("x"), Sym("z"), "z"),
    InitItem(SymRegLoc("t0"), Sym("t"), "t"),
    InitItem(SymRegLoc("x0"), Sym("x"), "x"),
    InitItem(SymRegLoc("x1"), Sym("x"), "x"),
]

# ----------------------------------------------------------------------------- oracles


def allowed(co: int | None) -> Verdict:
    """A verdict accepting the candidate."""
    return Verdict(allowed=True, co=co)


class _NativeSession:
    """An oracle session in ``native`` co mode: a candidate passes when ``ok(rf, co)``;
    every axiom of the oracles is monotone, so the same test prunes partial ones."""

    calls = 0

    def ok(self, rf: int, co: int) -> bool:
        raise NotImplementedError

    def check(self, rf, co=None, fw=None, explain=False, want_shows=False):
        self.calls += 1
        if co is None:
            raise AssertionError("native oracle needs co")
        return [allowed(co)] if self.ok(rf, co) else []

    def partial_violation(self, rf, co):
        return not self.ok(rf, co)


class _Session(_NativeSession):
    """SC: acyclic(po | rf | co | fr).  TSO: acyclic(po-loc | rf | co | fr) and
    acyclic(ppo | mfence | rfe | co | fr) with ppo = po minus write-to-read pairs."""

    def __init__(self, sk, tso: bool) -> None:
        U = sk.U
        self.sk = sk
        self.U = U
        self.tso = tso
        M = sk.M
        po = sk.po & U.product(M, M)
        self.poloc = sk.po & sk.loc
        if tso:
            F = sk.fence_set("MFENCE")
            ppo = po & ~U.product(sk.W, sk.R)
            mf = U.seq(sk.po & U.product(M, F), sk.po & U.product(F, M))
            self.static = ppo | mf
        else:
            self.static = po

    def ok(self, rf: int, co: int) -> bool:
        U = self.U
        fr = U.seq(U.inverse(rf), co) & ~U.ID
        if not U.acyclic(self.poloc | rf | co | fr):
            return False
        r = rf & self.sk.ext if self.tso else rf
        return U.acyclic(self.static | r | co | fr)


@cache
def c_target(spec: str) -> str:
    """The mapping C programs are lowered with for model ``spec`` (its identity's)."""
    return load_model(spec).identity.target


class StubModel:
    """What a model of the tests gives the engine besides its sessions
    (``cat.api.PreparedModel``): a name, an identity (no built-in model, so no machine,
    herd's C annotations), no checks of cat's to read (so TruSt, RSMC and ``auto`` judge
    it by its sessions alone), and a consistency checker asking its sessions."""

    spec = "oracle"
    identity = ModelIdentity("other", None, "c", None, "")
    axioms: tuple = ()
    reads_values = False  # compares no values (different-values)

    def compared_events(self, sk, arch):
        return 0

    def consistency_checker(self, arch, lay, kind="auto"):
        return scratch_checker(self, arch)


class OracleModel(StubModel):
    """An independent model (``native`` co mode) for engine tests."""

    co_mode = "native"
    register_events = False

    def __init__(self, tso: bool = False) -> None:
        self.tso = tso

    def prepare(self, sk, arch):
        return _Session(sk, self.tso)


class _GenericSession(_Session):
    """The same model, but enumerating co itself from the final writes (herd's cos.cat
    semantics: every order of each location's writes, init first, FW last)."""

    def check(self, rf, co=None, fw=None, explain=False, want_shows=False):
        assert co is None and fw is not None
        sk, U = self.sk, self.U
        per_loc = []
        for x, ws in sk.writes_by_loc.items():
            init = sk.init_write[x]
            rest = [w for w in bits(ws) if w != init]
            last = [w for w in rest if (fw >> w) & 1]
            orders = []
            for perm in itertools.permutations(rest):
                if (fw >> init) & 1 and rest:
                    continue
                if last and perm[-1] != last[0]:
                    continue
                orders.append(U.total_order([init, *perm]))
            per_loc.append(orders)
        out = []
        for combo in itertools.product(*per_loc):
            co = 0
            for c in combo:
                co |= c
            if self.ok(rf, co):
                out.append(allowed(co))
        return out


class GenericOracleModel(OracleModel):
    co_mode = "generic"

    def prepare(self, sk, arch):
        return _GenericSession(sk, self.tso)


class _PowerSession(_NativeSession):
    """The Power model of "Herding cats" (Alglave, Maranget, Tautschnig 2014), written
    directly on the relations: sc per location, no thin air (hb), propagation,
    observation.  Every axiom is monotone in rf and co, so it also prunes."""

    def __init__(self, sk) -> None:
        U = self.U = sk.U
        self.sk = sk
        po, R, W = sk.po, sk.R, sk.W
        self.R, self.W = R, W
        self.poloc = po & sk.loc
        self.ext = sk.ext
        self.int = sk.int_
        addr, data, ctrl = (sk.deps.get(k, 0) for k in ("addr", "data", "ctrl"))
        self.dd = addr | data
        self.ctrl = ctrl

        def fencerel(s: int) -> int:
            return U.seq(po & U.product(U.ALL, s), po)

        isync = sk.fence_set("ISYNC")
        self.ctrlisync = U.seq(ctrl & U.product(U.ALL, isync), po)
        self.addrpo = U.seq(addr, po)
        sync = fencerel(sk.fence_set("SYNC"))
        lwsync = fencerel(sk.fence_set("LWSYNC")) & ~U.product(W, R)
        eieio = fencerel(sk.fence_set("EIEIO")) & U.product(W, W)
        self.strong = sync
        self.fence = sync | lwsync | eieio
        self.RR = U.product(R, R)
        self.RW = U.product(R, W)
        self.WW = U.product(W, W)

    def ok(self, rf: int, co: int) -> bool:
        U = self.U
        fr = U.seq(U.inverse(rf), co) & ~U.ID
        if not U.acyclic(self.poloc | rf | co | fr):
            return False
        rfe, rfi = rf & self.ext, rf & self.int
        fre, coe = fr & self.ext, co & self.ext
        rdw = self.poloc & U.seq(fre, rfe)
        detour = self.poloc & U.seq(coe, rfe)
        ci0 = self.ctrlisync | detour
        ii0 = self.dd | rfi | rdw
        cc0 = self.dd | self.poloc | self.ctrl | self.addrpo
        ci, ii, cc, ic = ci0, ii0, cc0, 0
        while True:
            ci2 = ci0 | U.seq(ci, ii) | U.seq(cc, ci)
            ii2 = ii0 | ci | U.seq(ic, ci) | U.seq(ii, ii)
            cc2 = cc0 | ci | U.seq(ci, ic) | U.seq(cc, cc)
            ic2 = ii | cc | U.seq(ic, cc) | U.seq(ii, ic)
            if (ci2, ii2, cc2, ic2) == (ci, ii, cc, ic):
                break
            ci, ii, cc, ic = ci2, ii2, cc2, ic2
        ppo = (ii & self.RR) | (ic & self.RW)
        hb = ppo | self.fence | rfe
        if not U.acyclic(hb):
            return False
        hbstar = U.star(hb)
        propbase = U.seq(self.fence | U.seq(rfe, self.fence), hbstar)
        chapo = rfe | fre | coe | U.seq(fre, rfe) | U.seq(coe, rfe)
        prop = (propbase & self.WW) | U.seq(
            U.seq(U.seq(chapo | U.ID, U.star(propbase)), self.strong), hbstar
        )
        if not U.acyclic(co | prop):
            return False
        return U.irreflexive(U.seq(U.seq(fre, prop), hbstar))


class PowerOracleModel(StubModel):
    """The Power model as a Python oracle (``native`` co mode)."""

    co_mode = "native"
    register_events = False

    def prepare(self, sk, arch):
        return _PowerSession(sk)


def spy_on_fallback(monkeypatch) -> list[bool]:
    """The calls of the compiled core's fallback to the Python explorer, as they come."""
    raised: list[bool] = []
    fallback = core.CompiledExplorer.fallback

    def spy(self):
        raised.append(True)
        fallback(self)

    monkeypatch.setattr(core.CompiledExplorer, "fallback", spy)
    return raised
