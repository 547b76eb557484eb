"""The program IR: what a litmus test (or a small program) means, per thread.

A parsed litmus test is a :class:`LitmusTest`.  Its threads are sequences of typed
operations (:data:`Instr`), lowered from each architecture's assembly by one module per
architecture (``litmus/ppc.py``, ``litmus/x86.py``).  Every operation keeps the text herd
prints for it (``text``: herd's canonical dump, e.g. ``stw r1,0(r2)``), which the printer,
the DOT export and the hash use.

Values are ints or symbolic addresses (:class:`Sym`): ``0:r2=x`` puts the address of ``x``
in ``r2``.  Memory locations are named by their symbol.  Registers are thread-local names as
written in the code (``r1``, ``EAX``, ``%x0``); the condition register of PPC is ``cr0``.

The engine executes these operations (``engine/threads.py``); the register dataflow they
declare (:func:`uses`, :func:`defines`) is what herd's ``addr``/``data``/``ctrl`` are made of.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# ----------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True, order=True)
class Sym:
    """The address of global ``name`` (plus a byte ``offset``, normally 0)."""

    name: str
    offset: int = 0

    def __str__(self) -> str:
        return self.name if not self.offset else f"{self.name}+{self.offset}"


Value = int | Sym


def value_key(v: Value) -> tuple[int, int, str, int]:
    """herd's order of values in state lines: integers first (numerically), then symbols."""
    if isinstance(v, int):
        return (0, v, "", 0)
    return (1, 0, v.name, v.offset)


def show_value(v: Value) -> str:
    return str(v)


# ----------------------------------------------------------------------------- locations


@dataclass(frozen=True, slots=True)
class RegLoc:
    """Register ``reg`` of thread ``tid`` (``N:reg`` in conditions)."""

    tid: int
    reg: str

    def __str__(self) -> str:
        return f"{self.tid}:{self.reg}"


@dataclass(frozen=True, slots=True)
class MemLoc:
    """Memory location (global) ``name``; herd prints it ``[name]`` in states."""

    name: str

    def __str__(self) -> str:
        return f"[{self.name}]"


@dataclass(frozen=True, slots=True)
class SymRegLoc:
    """A symbolic register ``%name`` of the init section (allocated by herd)."""

    name: str

    def __str__(self) -> str:
        return f"%{self.name}"


Loc = RegLoc | MemLoc | SymRegLoc


# ----------------------------------------------------------------------------- operands


@dataclass(frozen=True, slots=True)
class Reg:
    name: str


@dataclass(frozen=True, slots=True)
class Imm:
    value: Value


Operand = Reg | Imm


# ----------------------------------------------------------------------------- operations
# Each operation has ``text``: herd's canonical dump of the instruction (for the hash, DOT
# labels and printing).  ``mnemonic`` is the mnemonic as written (``ld`` stays ``ld``).


@dataclass(frozen=True, slots=True)
class Label:
    """A label definition (its own item in herd's code table)."""

    name: str


@dataclass(frozen=True, slots=True)
class Nop:
    text: str
    mnemonic: str = "nop"


@dataclass(frozen=True, slots=True)
class Op:
    """Register computation ``dst <- fn(args)``.

    ``fn`` is one of :data:`OP_FUNCTIONS`.  A compare is ``Op(dst='cr0', fn='cmp'|'cmpu',
    ...)``; an op with ``sets_cr`` (``andi.``, ``xor.``) also writes ``cr0`` as a compare of
    its result with 0.
    """

    text: str
    mnemonic: str
    dst: str
    fn: str
    args: tuple[Operand, ...]
    sets_cr: bool = False


@dataclass(frozen=True, slots=True)
class Load:
    """``dst <- mem[sum(addr)]``; ``annots`` are herd event-set names the read joins
    (``X`` for atomic, ``EX`` for exclusives...)."""

    text: str
    mnemonic: str
    dst: str
    addr: tuple[Operand, ...]
    size: int = 4
    annots: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Store:
    """``mem[sum(addr)] <- src``."""

    text: str
    mnemonic: str
    src: Operand
    addr: tuple[Operand, ...]
    size: int = 4
    annots: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class RMW:
    """Atomic read-modify-write: ``old <- mem[a]; mem[a] <- fn(old, src); dst <- old``
    (X86 ``XCHG`` is fn='second', ``LOCK ADD`` is fn='add' with dst None)."""

    text: str
    mnemonic: str
    dst: str | None
    addr: tuple[Operand, ...]
    fn: str
    src: Operand
    size: int = 4
    annots: frozenset[str] = frozenset({"X"})


@dataclass(frozen=True, slots=True)
class Fence:
    """A barrier; ``kind`` is herd's set name: SYNC, LWSYNC, ISYNC, EIEIO, MFENCE, SFENCE,
    LFENCE."""

    text: str
    mnemonic: str
    kind: str


@dataclass(frozen=True, slots=True)
class Branch:
    """Jump to ``target`` if ``cond`` holds of register ``creg`` (``cond`` None: always).

    ``cond`` is one of eq, ne, lt, le, gt, ge (PPC ``beq`` = ('cr0', 'eq'))."""

    text: str
    mnemonic: str
    target: str
    cond: str | None = None
    creg: str = "cr0"


Instr = Label | Nop | Op | Load | Store | RMW | Fence | Branch

#: Register functions an :class:`Op` may use, with their arity.
OP_FUNCTIONS: dict[str, int] = {
    "mov": 1,  # dst <- a
    "add": 2,
    "sub": 2,  # a - b
    "mul": 2,
    "div": 2,  # signed, truncating; division by 0 gives 0 (herd)
    "and": 2,
    "or": 2,
    "xor": 2,
    "nor": 2,
    "neg": 1,
    "shl": 2,
    "shr": 2,  # logical right shift
    "sra": 2,  # arithmetic right shift
    "cmp": 2,  # signed compare: -1 / 0 / 1
    "cmpu": 2,  # unsigned compare
}


def uses(ins: Instr) -> tuple[str, ...]:
    """Registers an operation reads (address and value registers alike)."""
    if isinstance(ins, Op):
        regs = [a.name for a in ins.args if isinstance(a, Reg)]
    elif isinstance(ins, Load):
        regs = [a.name for a in ins.addr if isinstance(a, Reg)]
    elif isinstance(ins, Store):
        regs = [a.name for a in ins.addr if isinstance(a, Reg)]
        if isinstance(ins.src, Reg):
            regs.append(ins.src.name)
    elif isinstance(ins, RMW):
        regs = [a.name for a in ins.addr if isinstance(a, Reg)]
        if isinstance(ins.src, Reg):
            regs.append(ins.src.name)
    elif isinstance(ins, Branch):
        regs = [ins.creg] if ins.cond is not None else []
    else:
        regs = []
    return tuple(regs)


def defines(ins: Instr) -> tuple[str, ...]:
    """Registers an operation writes."""
    if isinstance(ins, Op):
        return (ins.dst, "cr0") if ins.sets_cr and ins.dst != "cr0" else (ins.dst,)
    if isinstance(ins, Load):
        return (ins.dst,)
    if isinstance(ins, RMW):
        return (ins.dst,) if ins.dst else ()
    return ()


# ----------------------------------------------------------------------------- conditions


@dataclass(frozen=True, slots=True)
class PTrue:
    pass


@dataclass(frozen=True, slots=True)
class PFalse:
    pass


@dataclass(frozen=True, slots=True)
class Atom:
    """``loc = value`` (``value`` may also be a location: ``loc = loc'``)."""

    loc: Loc
    value: Value | Loc


@dataclass(frozen=True, slots=True)
class Not:
    prop: Prop


@dataclass(frozen=True, slots=True)
class And:
    props: tuple[Prop, ...]


@dataclass(frozen=True, slots=True)
class Or:
    props: tuple[Prop, ...]


@dataclass(frozen=True, slots=True)
class Implies:
    left: Prop
    right: Prop


Prop = PTrue | PFalse | Atom | Not | And | Or | Implies


@dataclass(frozen=True, slots=True)
class Condition:
    """The final condition.  ``quant`` is ``exists``, ``~exists`` or ``forall`` (what herd
    prints); ``written`` is the keyword as written (``final``, ``exists``, ``not exists``,
    ``~exists``, ``forall``, ``observed``, ``()`` or ``''`` when absent) so the printer
    can reproduce it."""

    quant: str
    prop: Prop
    written: str = ""


def prop_locations(p: Prop) -> list[Loc]:
    """Locations a proposition mentions, in order of first occurrence."""
    out: list[Loc] = []

    def walk(q: Prop) -> None:
        if isinstance(q, Atom):
            for x in (q.loc, q.value):
                if isinstance(x, RegLoc | MemLoc | SymRegLoc) and x not in out:
                    out.append(x)
        elif isinstance(q, Not):
            walk(q.prop)
        elif isinstance(q, And | Or):
            for r in q.props:
                walk(r)
        elif isinstance(q, Implies):
            walk(q.left)
            walk(q.right)

    walk(p)
    return out


def eval_prop(p: Prop, state: dict[Loc, Value]) -> bool:
    """Truth of ``p`` in a final state (locations absent from ``state`` hold 0)."""
    if isinstance(p, Atom):
        v = state.get(p.loc, 0)
        w = p.value
        if isinstance(w, RegLoc | MemLoc | SymRegLoc):
            w = state.get(w, 0)
        return v == w
    if isinstance(p, And):
        return all(eval_prop(q, state) for q in p.props)
    if isinstance(p, Or):
        return any(eval_prop(q, state) for q in p.props)
    if isinstance(p, Not):
        return not eval_prop(p.prop, state)
    if isinstance(p, Implies):
        return (not eval_prop(p.left, state)) or eval_prop(p.right, state)
    return isinstance(p, PTrue)


# ----------------------------------------------------------------------------- tests


@dataclass(frozen=True, slots=True)
class InitItem:
    """One init item.  ``value`` is None for a bare ``x`` (value 0); ``text`` is the value
    exactly as written (the hash uses it: ``0x10`` stays ``0x10``); ``ctype`` is a C-ish
    type written before the location (``int64_t``), ``pointer`` the ``*`` marker."""

    loc: Loc
    value: Value | None
    text: str = ""
    ctype: str | None = None
    pointer: bool = False


@dataclass(frozen=True)
class LitmusTest:
    """A parsed litmus test: syntax and meaning at once (threads are IR operations).

    Equality ignores ``path`` and source positions, so ``parse(print(t)) == t``.
    """

    arch: str  # 'PPC' | 'X86' | 'X86_64' | 'C'
    name: str
    texname: str | None
    doc: str | None
    info: tuple[tuple[str, str], ...]  # key=value lines, in order
    init: tuple[InitItem, ...]
    threads: tuple[tuple[Instr, ...], ...]
    condition: Condition
    locations: tuple[Loc, ...] = ()
    filter: Prop | None = None
    kinds: tuple[tuple[str, str], ...] = ()  # `with name: ~exists; ...` (parsed, ignored)
    path: str = field(default="", compare=False)

    # --- conveniences used by the engine and herd_compat
    @property
    def nthreads(self) -> int:
        return len(self.threads)

    def observed_locations(self) -> list[Loc]:
        """Condition locations then ``locations [...]`` items, without repeats."""
        out = prop_locations(self.condition.prop)
        if self.filter is not None:
            pass  # filter locations are not displayed by herd
        for loc in self.locations:
            if loc not in out:
                out.append(loc)
        return out
