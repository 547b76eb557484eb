"""The program IR: what a program means, independent of the front-end that wrote it.

A :class:`Program` is threads of typed operations (:data:`Instr`) over thread-local
registers, with labels and branches, plus the initial state (every memory location with
its initial value, the initial registers of each thread) and the final condition whose
locations make a final state.  The litmus front-ends (``litmus/ppc.py``, ``litmus/x86.py``)
lower herd's assembly to it (``litmus/lower.py``); printing a test back in herd's format
stays theirs (``litmus/test.py`` keeps herd's text of every instruction beside its
operation).  A thread keeps, per operation, the front-end's text for it (its *origin*:
herd's canonical instruction for a litmus test), which pictures and traces show.

Operations: register computations (:class:`Op`, :class:`Select`), memory accesses (:class:`Load`,
:class:`Store`, read-modify-writes :class:`RMW` and :class:`CAS`, store-conditionals
:class:`StoreCond`), fences, branches,
``assume``/``assert``, locks, thread spawn and join.  Their meaning, one step at a time,
is ``engine/semantics``; the register dataflow they declare (:func:`uses`,
:func:`defines`) is what herd's ``addr``/``data``/``ctrl`` are made of.

Values are ints or symbolic addresses (:class:`Sym`): ``0:r2=x`` puts the address of ``x``
in ``r2``.  Memory locations are named by their symbol.  Values and locations live in
:mod:`litmus.base.values` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from herdsman.litmus.base.memo import by_identity, cached
from herdsman.litmus.base.values import Loc as Loc
from herdsman.litmus.base.values import MemLoc as MemLoc
from herdsman.litmus.base.values import RegLoc as RegLoc
from herdsman.litmus.base.values import Sym as Sym
from herdsman.litmus.base.values import SymRegLoc as SymRegLoc
from herdsman.litmus.base.values import Value as Value
from herdsman.litmus.base.values import Vector as Vector
from herdsman.litmus.base.values import show_value as show_value
from herdsman.litmus.base.values import value_key as value_key

# ----------------------------------------------------------------------------- operands


@dataclass(frozen=True, slots=True)
class Reg:
    """A register; in an address, ``shift`` scales it (its value shifted left by that
    much: AArch64's ``[X1,X2,LSL #3]``, X86's ``[rbx+8*rcx]``)."""

    name: str
    shift: int = 0


@dataclass(frozen=True, slots=True)
class Imm:
    value: Value


Operand = Reg | Imm


# ----------------------------------------------------------------------------- operations


@dataclass(frozen=True, slots=True)
class Label:
    """A label definition (the target of branches)."""

    name: str


@dataclass(frozen=True, slots=True)
class Nop:
    """Does nothing (but counts as an instruction: herd's ``poi`` advances)."""


@dataclass(frozen=True, slots=True)
class Op:
    """Register computation ``dst <- fn(args)`` (``fn`` one of ``numbers.OP_FUNCTIONS``).

    With ``sets_cr`` the operation also writes ``cr0``, the comparison of its result with
    0 (PPC's ``andi.``, X86's flags).  With ``flags`` = (register, function) it also
    writes that register with that function of the same arguments (AArch64's ``ADDS``
    writes ``NZCV``)."""

    dst: str
    fn: str
    args: tuple[Operand, ...]
    sets_cr: bool = False
    flags: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Select:
    """``dst <- fn(args)`` if ``cond`` holds of register ``creg`` (as for a :class:`Branch`),
    else ``dst <- other_fn(other)`` (AArch64's ``CSEL``): herd reads ``creg``, commits a
    predicate (no branch; text ``text`` when ``cond`` holds), reads the chosen operands."""

    dst: str
    creg: str
    cond: str
    fn: str
    args: tuple[Operand, ...]
    other_fn: str
    other: tuple[Operand, ...]
    text: str = ""
    commit: bool = True  # False: no predicate commit (ARM's MOVEQ: a guard only)


@dataclass(frozen=True, slots=True)
class Load:
    """``dst <- mem[sum(addr)]``; ``annots`` are herd event-set names the read joins
    (``X`` for atomic, ``EX`` for exclusives...).  ``reserve``: a load-reserve, which also
    writes the address to that register (the reservation a :class:`StoreCond` reads).
    ``widen``: the value read goes to ``dst`` converted as by the ``conv`` operation of
    that code (its low bits, sign-extended when negative: AArch64's ``LDR Wt`` is 32);
    0: as it is (a byte or half-word load: its low bits, by ``size``).  ``sign``: the
    ``size`` bytes read are sign-extended first (AArch64's ``LDRSB``..., PPC's ``lwa``)."""

    dst: str
    addr: tuple[Operand, ...]
    size: int = 4
    annots: frozenset[str] = frozenset()
    reserve: str | None = None
    widen: int = 0
    sign: bool = False


@dataclass(frozen=True, slots=True)
class Store:
    """``mem[sum(addr)] <- src``."""

    src: Operand
    addr: tuple[Operand, ...]
    size: int = 4
    annots: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class RMW:
    """Atomic read-modify-write: ``old <- mem[a]; mem[a] <- fn(old, src); dst <- old``
    (X86 ``XCHG`` is fn='second', ``LOCK ADD`` is fn='add' with dst None).  Without the
    ``X`` annotation it is a read and a write of one instruction, not atomic (X86_64's
    ``add`` to memory).  With ``sets_cr`` it also writes ``cr0``, the comparison of the
    new value with 0 (X86_64's flags).
    ``write_annots``, when given, are the write's annotations (else the read's)."""

    dst: str | None
    addr: tuple[Operand, ...]
    fn: str
    src: Operand
    size: int = 4
    annots: frozenset[str] = frozenset({"X"})
    sets_cr: bool = False
    write_annots: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class CAS:
    """Compare-and-swap: ``old <- mem[a]; if old == expected: mem[a] <- desired;
    dst <- old``; a failed one only reads (C11's ``compare_exchange``)."""

    dst: str | None
    addr: tuple[Operand, ...]
    expected: Operand
    desired: Operand
    annots: frozenset[str] = frozenset({"X"})
    write_annots: frozenset[str] | None = None  # the write's, when not ``annots``


@dataclass(frozen=True, slots=True)
class StoreCond:
    """Store-conditional: it may always fail (``status <- 1``, no write); it may succeed
    (``mem[a] <- src``, ``status <- 0``) when register ``reserve`` holds the address ``a``
    (a load-reserve put it there).  Either way ``reserve <- 0``.  With ``status_deps``
    the status of a success depends on the address registers and on the write itself
    (herd's RISC-V: later ``addr``/``data``/``ctrl`` through it start at the write)."""

    status: str
    src: Operand
    addr: tuple[Operand, ...]
    reserve: str
    size: int = 4
    annots: frozenset[str] = frozenset({"X"})
    status_deps: bool = False


@dataclass(frozen=True, slots=True)
class Fence:
    """A barrier; ``kind`` is herd's set name: SYNC, LWSYNC, ISYNC, EIEIO, MFENCE, SFENCE,
    LFENCE...  herd's C fences are ``F`` events carrying annotation sets instead: their
    kind is ``F.`` and the sets, dot-separated (``F.SC``, ``F.Mb``)."""

    kind: str


@dataclass(frozen=True, slots=True)
class Branch:
    """Jump to ``target`` if ``cond`` holds of register ``creg`` (``cond`` None: always).

    ``cond`` is one of eq, ne, lt, le, gt, ge, comparing the register (a comparison
    result, or any integer) with 0: PPC ``beq`` is ('cr0', 'eq'); with ``rhs``, comparing
    it with that register (RISC-V's ``bne x5,x6,L`` is ('x5', 'ne', 'x6'))."""

    target: str
    cond: str | None = None
    creg: str = "cr0"
    rhs: str | None = None


@dataclass(frozen=True, slots=True)
class Assume:
    """The execution goes on only if ``cond`` holds of register ``creg`` (as a
    :class:`Branch`); otherwise the thread is blocked for good.  With ``commit`` False it
    is a constraint on values, not a branch (no commit event, no control dependency:
    herd's equations, as in a kernel compare-and-exchange)."""

    creg: str
    cond: str = "ne"
    commit: bool = True


@dataclass(frozen=True, slots=True)
class Assert:
    """If ``cond`` does not hold of register ``creg``, the execution is an error
    (``message`` says which assertion)."""

    creg: str
    cond: str = "ne"
    message: str = ""


@dataclass(frozen=True, slots=True)
class Lock:
    """Acquire the lock at ``addr``: a read of 0 then a write of 1, atomically; a read of
    anything else blocks the thread (the lock is held)."""

    addr: tuple[Operand, ...]
    annots: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Unlock:
    """Release the lock at ``addr``: a write of 0."""

    addr: tuple[Operand, ...]
    annots: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Effect:
    """An event at ``addr`` that is no memory access: herd's lock and SRCU events of the
    Linux kernel (``kind`` is herd's set: LKR, LKW, UL, LF, RL, RU, or SRCU for
    ``synchronize_srcu``), with its annotations.  The model decides what they read."""

    kind: str
    addr: tuple[Operand, ...]
    annots: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Choose:
    """Go on at one of the labels ``targets``, any of them (herd's alternatives: a
    ``spin_trylock`` that takes the lock or fails); no event, no dependency."""

    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Spawn:
    """Start thread ``thread`` (its first event comes after this one)."""

    thread: int


@dataclass(frozen=True, slots=True)
class Join:
    """Wait until thread ``thread`` has finished (with ``reg``: the thread whose number
    register ``reg`` holds, a C program's ``pthread_t`` known at run time)."""

    thread: int
    reg: str | None = None


@dataclass(frozen=True, slots=True)
class Free:
    """Release the heap allocation at ``addr`` (no shared-memory event): the thread's
    later accesses to it, or a second release, are errors."""

    addr: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class Kill:
    """The thread stops here without finishing (GenMC's loop bound, ``-unroll``): the
    execution is complete (as GenMC 0.11 counts it) unless a thread joins this one,
    whose join then waits for ever (blocked)."""


@dataclass(frozen=True, slots=True)
class Exit:
    """The thread ends here, finished (herd's ``B.Exit``: a return under ``-variant
    telechat``, AArch64's ``RET``, PPC's ``blr``...): no event."""


Instr = (
    Label
    | Nop
    | Op
    | Select
    | Load
    | Store
    | StoreCond
    | RMW
    | CAS
    | Fence
    | Branch
    | Assume
    | Assert
    | Lock
    | Unlock
    | Effect
    | Choose
    | Spawn
    | Join
    | Free
    | Kill
    | Exit
)

#: A barrier's state (``barrier`` below): its generation, its count and the arrivals it
#: still waits for, in fields of these bits (lowest first: waiting, count, generation).
BARRIER_FIELD = 16
#: The annotations of a barrier's arrival (a read-modify-write: GenMC's barrier-aware
#: model checking explores one order of arrivals) and of its wait (a read of the
#: barrier's latest state, made once the barrier lets the thread through).
BARRIER_ARRIVE, BARRIER_WAIT = "BAR", "BWAIT"

# ----------------------------------------------------------------------------- conditions


@dataclass(frozen=True, slots=True)
class PTrue:
    pass


@dataclass(frozen=True, slots=True)
class PFalse:
    pass


@dataclass(frozen=True, slots=True)
class Atom:
    """``loc = value`` (``value`` may also be a location: ``loc = loc'``).  ``bits``: the
    integers are compared as herd compares a location with a constant, at the location's
    type: modulo ``2**bits`` (herd's ``mask_type``: a 64-bit register of no declared type
    holding ``0x1fffffffe`` is ``-2`` as an ``int``); 0: exactly (see :func:`atom_holds`)."""

    loc: Loc
    value: Value | Loc | Vector
    bits: int = 0


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


def map_atoms(p: Prop, f: Callable[[Atom], Prop]) -> Prop:
    """``p`` with each atom ``a`` replaced by ``f(a)`` (``p`` itself when none changes)."""
    if type(p) is Atom:
        return f(p)
    if type(p) is And or type(p) is Or:
        props = p.props
        # atoms, most of the members, mapped here (one call less each)
        parts = tuple([f(q) if type(q) is Atom else map_atoms(q, f) for q in props])
        for a, b in zip(parts, props, strict=True):
            if a is not b:
                return type(p)(parts)
        return p
    if type(p) is Not:
        q = map_atoms(p.prop, f)
        return p if q is p.prop else Not(q)
    if type(p) is Implies:
        a, b = map_atoms(p.left, f), map_atoms(p.right, f)
        return p if a is p.left and b is p.right else Implies(a, b)
    return p


def prop_locations(p: Prop) -> list[Loc]:
    """Locations a proposition mentions, in order of first occurrence."""
    return list(_prop_locations(p))


@by_identity(maxsize=4096)
def _prop_locations(p: Prop) -> tuple[Loc, ...]:
    """:func:`prop_locations`, once per proposition (a campaign's tests share them), read
    with an explicit stack (no recursion)."""
    out: dict[Loc, None] = {}
    todo: list[Prop] = [p]
    seen: set[int] = set()  # the atoms read (the atoms of a proposition repeat)
    while todo:
        q = todo.pop()
        if type(q) is Atom:
            if id(q) not in seen:
                seen.add(id(q))
                if isinstance(q.loc, _LOCATIONS):
                    out.setdefault(q.loc)
                if isinstance(q.value, _LOCATIONS):
                    out.setdefault(q.value)
        elif type(q) is Not:
            todo.append(q.prop)
        elif type(q) is And or type(q) is Or:
            todo.extend(reversed(q.props))
        elif type(q) is Implies:
            todo.append(q.right)
            todo.append(q.left)
    return tuple(out)


_LOCATIONS = (RegLoc, MemLoc, SymRegLoc)


def same_word(v: Value, w: Value | Vector, bits: int) -> bool:
    """Whether ``v`` and ``w`` are equal, integers modulo ``2**bits`` when ``bits`` (a
    location's value never equals a :class:`Vector`)."""
    if v == w:
        return True
    return bits > 0 and type(v) is int and type(w) is int and not (v - w) & ((1 << bits) - 1)


def atom_holds(a: Atom, v: Value) -> bool:
    """Whether ``a.loc = a.value`` holds when ``a.loc`` holds ``v`` (``a.value`` a constant)."""
    w = a.value
    assert not isinstance(w, (RegLoc, MemLoc, SymRegLoc)), "a constant atom"
    return same_word(v, w, a.bits)


def eval_prop(p: Prop, state: dict[Loc, Value]) -> bool:
    """Truth of ``p`` in a final state (locations absent from ``state`` hold 0)."""
    if isinstance(p, Atom):
        v = state.get(p.loc, 0)
        w = p.value
        if isinstance(w, (RegLoc, MemLoc, SymRegLoc)):
            return v == state.get(w, 0)
        return same_word(v, w, p.bits)
    if isinstance(p, And):
        return all(eval_prop(q, state) for q in p.props)
    if isinstance(p, Or):
        return any(eval_prop(q, state) for q in p.props)
    if isinstance(p, Not):
        return not eval_prop(p.prop, state)
    if isinstance(p, Implies):
        return (not eval_prop(p.left, state)) or eval_prop(p.right, state)
    return isinstance(p, PTrue)


# ----------------------------------------------------------------------------- programs


@dataclass(frozen=True, slots=True)
class Thread:
    """One thread: its operations and, per operation, the front-end's text for it.
    ``joined``: the positions of the operations that continue the instruction of the
    operation before them (an instruction with several effects, AArch64's ``LDP`` or a
    post-indexed ``LDR``: its events share herd's ``poi``)."""

    code: tuple[Instr, ...]
    origins: tuple[str, ...]
    joined: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if len(self.origins) != len(self.code):
            raise ValueError("a thread needs one origin per operation")


@dataclass(frozen=True)
class Program:
    """A program: its threads, initial state and final condition.

    ``memory``: every memory location (by name, sorted) with its initial value;
    ``registers``: the initial registers of each thread (unlisted ones hold 0);
    ``symbolic``: herd's symbolic registers ``%name`` (every thread starts with them)
    with their initial values; ``observed``: the locations of a final state, in order;
    ``condition``: the final condition; ``filter``: executions whose final state does not
    satisfy it are not counted (herd's ``filter``); ``loop_bound``: what the unrolling
    bound does to a thread that would take a backward branch once more: ``cut`` stops the
    thread, and the execution only marks the verdict ``Loop`` (herd's ``-unroll``, litmus
    tests), ``block`` blocks the execution (GenMC's ``--unroll``, C programs): neither is
    counted as complete; ``none`` never bounds a thread (C programs bound their own
    loops, as GenMC's ``-unroll`` does); ``symmetric``: per thread, the thread it is
    symmetric to (spawned by the same thread to run the same function with the same
    argument, with no memory access between the two spawns: GenMC's symmetry
    reduction), or -1; ``branch_events``: whether its conditional branches issue commit
    events where its architecture's do (False for a model that never looks at them, such
    as RC11: a long loop then adds no event, and the executions are the same);
    ``computed_init``: whether a memory location reached only by a computed address (not
    in ``memory``) has an initial write of 0 (C), or none (herd's litmus tests: a read
    there reads a store of the test)."""

    name: str
    arch: str
    threads: tuple[Thread, ...]
    memory: tuple[tuple[str, Value], ...]
    registers: tuple[tuple[tuple[str, Value], ...], ...]
    condition: Condition
    observed: tuple[Loc, ...] = ()
    symbolic: tuple[tuple[str, Value], ...] = ()
    filter: Prop | None = None
    path: str = field(default="", compare=False)
    loop_bound: str = "cut"
    symmetric: tuple[int, ...] = ()
    branch_events: bool = True
    computed_init: bool = True

    @property
    def where(self) -> str:
        """What error messages about the program name: its file, else its name."""
        return self.path or self.name

    def initial_value(self, loc: Loc) -> Value:
        """The initial value of a memory location or symbolic register, so its final
        value when nothing writes it (0 for anything else)."""
        if isinstance(loc, MemLoc):
            return self._initial[0].get(loc.name, 0)
        if isinstance(loc, SymRegLoc):
            return self._initial[1].get(loc.name, 0)
        return 0

    def initially_written(self, name: str) -> bool:
        """Whether memory location ``name`` has an initial write (see ``computed_init``)."""
        return self.computed_init or name in self._initial[0]

    @cached
    def _initial(self) -> tuple[dict[str, Value], dict[str, Value]]:
        """The initial values of the memory locations and symbolic registers, by name."""
        return dict(self.memory), dict(self.symbolic)

    def has(self, *kinds: type) -> bool:
        """Whether some thread has an operation of one of these classes."""
        classes = self._classes
        key = (classes, kinds)
        got = _HAS.get(key)
        if got is None:
            if len(_HAS) >= 1 << 12:
                _HAS.clear()
            got = _HAS[key] = any(issubclass(cls, kinds) for cls in classes)
        return got

    @cached
    def _classes(self) -> frozenset[type]:
        """The classes of the threads' operations."""
        return frozenset().union(*[_op_classes(th) for th in self.threads])


#: :meth:`Program.has`'s answers, per set of classes of a program's operations and
#: classes asked for (programs share their sets of classes).
_HAS: dict[tuple[frozenset[type], tuple[type, ...]], bool] = {}


@by_identity(maxsize=1 << 14)
def _op_classes(thread: Thread) -> frozenset[type]:
    """The classes of ``thread``'s operations (remembered: programs share threads)."""
    return frozenset(map(type, thread.code))
