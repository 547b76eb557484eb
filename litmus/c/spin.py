"""GenMC's spin-assume transformation, on a loop's IR (its manual and Kokologiannakis,
Ren and Vafeiadis, FMCAD 2021).

A loop's *latches* are its branches back to its head.  A latch is *effect-free* when no
path from the head to it has a side effect: a write to memory other than the thread's
own stack or a heap cell it allocated and has not published yet, a read-modify-write, a
lock, a thread's start or join, an allocation or a release — a compare-and-swap is
allowed when the latch is reached only if it failed.  Reaching an effect-free latch
blocks the thread (a further iteration would change nothing).  When some latch has side
effects, the loop is checked as it runs: arriving at the head again without an
effectful write since the last arrival blocks the thread.  Neither applies to a loop
carrying a register value from one iteration to the next (an induction variable), unless
that value is always read from memory (or is a compare-and-swap's old value, or 0), nor
to a loop keeping such a value in a heap cell of its own (LLVM holds it in a register).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Branch,
    Free,
    Imm,
    Instr,
    Join,
    Kill,
    Label,
    Load,
    Lock,
    Op,
    Operand,
    Reg,
    Spawn,
    Store,
    Unlock,
)
from herdsman.litmus.base.numbers import ValueOutOfRange, convert_code
from herdsman.litmus.base.regflow import defines, uses
from herdsman.litmus.c.fold import fold

#: the most paths from a loop's head to a latch examined for compare-and-swaps
MAX_PATHS = 256


@dataclass
class Verdict:
    """What the transformation does to a loop: the latches that block instead of going
    back, the unlocks before which the thread blocks (a lock taken and released with
    nothing else done: GenMC's lock zero-net-effect loops), whether the head checks for
    effects as the loop runs, and the writes that count as effects there (indices in
    the code)."""

    blocking: list[int] = field(default_factory=list)
    unlocks: list[int] = field(default_factory=list)
    zne: list[int] = field(default_factory=list)  # fetch-and-adds undoing another
    dynamic: bool = False
    writes: list[int] = field(default_factory=list)


class LoopView:
    """A loop's code ``code[start:end]`` (its head label at ``start``, ``head``),
    its control flow, and what counts as a local write (``local(op, index)``)."""

    def __init__(
        self, code: list[Instr], start: int, head: str, local: Callable[[Instr, int], bool]
    ) -> None:
        self.code = code
        self.start = start
        self.end = len(code)
        self.head = head
        self.local = local
        self.labels = {
            ins.name: i for i in range(start, self.end) if isinstance(ins := code[i], Label)
        }
        self.latches = [
            i
            for i in range(start, self.end)
            if isinstance(ins := code[i], Branch) and ins.target == head
        ]

    def succ(self, i: int) -> list[int]:
        """The successors of operation ``i`` inside the loop (a latch has none)."""
        ins = self.code[i]
        if isinstance(ins, Kill):
            return []
        if isinstance(ins, Branch):
            if ins.target == self.head:
                return []
            out = [] if ins.cond is None else [i + 1]
            t = self.labels.get(ins.target)
            if t is not None:
                out.append(t)
            return [j for j in out if j < self.end]
        return [i + 1] if i + 1 < self.end else []

    def exits(self, i: int) -> bool:
        """Whether operation ``i`` may leave the loop."""
        ins = self.code[i]
        if isinstance(ins, Kill):
            return False
        if isinstance(ins, Branch):
            if ins.target == self.head:
                return False
            if ins.target not in self.labels:
                return True
            return ins.cond is not None and i + 1 >= self.end
        return i + 1 >= self.end

    def on_paths_to(self, latch: int) -> set[int]:
        """The operations on some path from the head to ``latch``."""
        fwd: set[int] = set()
        stack = [self.start]
        while stack:
            i = stack.pop()
            if i in fwd:
                continue
            fwd.add(i)
            stack.extend(self.succ(i))
        if latch not in fwd:
            return set()
        preds: dict[int, list[int]] = {}
        for i in fwd:
            for j in self.succ(i):
                preds.setdefault(j, []).append(i)
        back: set[int] = set()
        stack = [latch]
        while stack:
            i = stack.pop()
            if i in back:
                continue
            back.add(i)
            stack.extend(preds.get(i, []))
        return fwd & back

    def paths_to(self, latch: int) -> Iterator[list[int]]:
        """Paths from the head to ``latch`` (each inner cycle taken at most once)."""
        stack: list[tuple[int, list[int]]] = [(self.start, [self.start])]
        while stack:
            i, path = stack.pop()
            if i == latch:
                yield path
                continue
            for j in self.succ(i):
                if j not in path:
                    stack.append((j, [*path, j]))


def effect(ins: Instr) -> bool:
    """Whether an operation has a side effect (a compare-and-swap: examined apart)."""
    if isinstance(ins, (Store, RMW, Lock, Unlock, Spawn, Join, Free)):
        return True
    return isinstance(ins, Op) and ins.fn == "alloc"


def analyse(view: LoopView, hidden: frozenset[str], carried: set[str]) -> Verdict:
    """GenMC's spin-assume verdict on the loop ``view`` (see the module docstring);
    ``carried``: the registers whose values flow from an iteration to the next (as
    LLVM's phi nodes at the head), ``hidden``: registers of the lowering's own."""
    out = Verdict()
    carried = {r for r in carried - hidden if not _constant_at_head(view, r)}
    if not view.latches or not phi_clean(view, carried) or carried_in_heap(view):
        return out
    code = view.code
    for latch in view.latches:
        ops = view.on_paths_to(latch)
        effects = sorted(i for i in ops if effect(code[i]) and not view.local(code[i], i))
        unlock = _lock_zne(code, effects)
        if unlock >= 0:
            out.unlocks.append(unlock)
            out.dynamic = True
            continue
        undo = _fai_zne(code, effects, ops)
        if undo >= 0:
            out.zne.append(undo)
            out.dynamic = True
            continue
        if effects:
            out.dynamic = True
            continue
        if any(isinstance(code[i], CAS) for i in ops) and not cas_fail_to_latch(view, latch):
            out.dynamic = True
            continue
        out.blocking.append(latch)
    if out.dynamic:
        out.writes = [
            i
            for i in range(view.start, view.end)
            if isinstance(code[i], (Store, RMW, CAS, Lock, Unlock)) and not view.local(code[i], i)
        ]
    return out


def _lock_zne(code: list[Instr], effects: list[int]) -> int:
    """The unlock of a path whose only effects are a lock and then its unlock (GenMC's
    lock zero-net-effect), else -1."""
    if len(effects) != 2:
        return -1
    a, b = code[effects[0]], code[effects[1]]
    if isinstance(a, Lock) and isinstance(b, Unlock) and a.addr == b.addr:
        return effects[1]
    return -1


def _fai_zne(code: list[Instr], effects: list[int], ops: set[int]) -> int:
    """The second of two fetch-and-adds of a path that cancel (``+k`` then ``-k``: GenMC's
    fetch-and-add zero-net-effect loops; compare-and-swaps only before it), else -1."""
    if len(effects) != 2:
        return -1
    a, b = code[effects[0]], code[effects[1]]
    if not (isinstance(a, RMW) and isinstance(b, RMW) and a.addr == b.addr):
        return -1
    ka, kb = _step_of(a), _step_of(b)
    if ka is None or kb is None or ka + kb != 0 or ka == 0:
        return -1
    if any(isinstance(code[i], CAS) and i > effects[1] for i in ops):
        return -1
    return effects[1]


def _step_of(op: RMW) -> int | None:
    """What a fetch-and-add adds, when it is a constant."""
    if not isinstance(op.src, Imm) or not isinstance(op.src.value, int):
        return None
    return {"add": op.src.value, "sub": -op.src.value}.get(op.fn)


def cas_fail_to_latch(view: LoopView, latch: int) -> bool:
    """Whether ``latch`` is reached only when every compare-and-swap on the way failed
    (GenMC's condition for an effect-free path through compare-and-swaps)."""
    for n, path in enumerate(view.paths_to(latch)):
        if n >= MAX_PATHS or not _path_fails_cas(view, path):
            return False
    return True


def _path_fails_cas(view: LoopView, path: list[int]) -> bool:
    """Whether the branches along ``path`` imply that its compare-and-swaps failed (or
    make the path impossible).  A register's value is followed as a function of one
    compare-and-swap's success: (its index, value if it succeeded, value if it failed)."""
    code = view.code
    facts: dict[str, tuple[int, int, int]] = {}
    olds: dict[str, tuple[int, Operand]] = {}  # CAS old value -> (CAS index, expected)
    known: dict[int, bool] = {}
    cases: list[int] = []
    for k, i in enumerate(path):
        ins = code[i]
        nxt = path[k + 1] if k + 1 < len(path) else None
        if isinstance(ins, CAS):
            cases.append(i)
            if ins.dst:
                olds[ins.dst] = (i, ins.expected)
                facts.pop(ins.dst, None)
            continue
        if isinstance(ins, Op):
            _track(ins, facts, olds)
            continue
        if isinstance(ins, Branch) and ins.cond is not None:
            fact = facts.get(ins.creg)
            if fact is None:
                continue
            cas, vs, vf = fact
            taken = (nxt != i + 1) if nxt is not None else True
            ok_s, ok_f = (_holds(ins.cond, v) == taken for v in (vs, vf))
            if ok_s == ok_f:
                if not ok_s:
                    return True  # an impossible path
                continue
            if known.get(cas, ok_s) != ok_s:
                return True  # an impossible path
            known[cas] = ok_s
            continue
        for r in defines(ins):
            facts.pop(r, None)
            olds.pop(r, None)
    return all(known.get(c) is False for c in cases)


_TESTS = {"eq": lambda v: v == 0, "ne": lambda v: v != 0, "lt": lambda v: v < 0}
_TESTS.update({"le": lambda v: v <= 0, "gt": lambda v: v > 0, "ge": lambda v: v >= 0})


def _holds(cond: str, v: int) -> bool:
    return _TESTS[cond](v)


def _track(
    op: Op, facts: dict[str, tuple[int, int, int]], olds: dict[str, tuple[int, Operand]]
) -> None:
    """What ``op`` makes of the registers that are functions of a CAS's success."""
    dst, fn, args = op.dst, op.fn, op.args
    got: tuple[int, int, int] | None = None
    if fn in ("eq", "ne") and len(args) == 2:
        for x, y in (args, args[::-1]):
            if isinstance(x, Reg) and x.name in olds and olds[x.name][1] == y:
                cas = olds[x.name][0]
                got = (cas, 1, 0) if fn == "eq" else (cas, 0, 1)
    if got is None:
        regs = [a for a in args if isinstance(a, Reg) and a.name in facts]
        consts = [a for a in args if isinstance(a, Imm) and isinstance(a.value, int)]
        if len(regs) == 1 and len(regs) + len(consts) == len(args):
            cas, vs, vf = facts[regs[0].name]
            s_, f_ = _apply(op, vs), _apply(op, vf)
            got = (cas, s_, f_) if s_ is not None and f_ is not None else None
    facts.pop(dst, None)
    olds.pop(dst, None)
    if got is not None:
        facts[dst] = got


def _apply(op: Op, v: int) -> int | None:
    """``op`` computed with its one register holding ``v``."""
    vals: list[int] = []
    for a in op.args:
        x = v if isinstance(a, Reg) else a.value if isinstance(a, Imm) else None
        if not isinstance(x, int):
            return None
        vals.append(x)
    if op.fn in ("mov", "conv"):
        return convert_code(vals[0], vals[1]) if op.fn == "conv" else vals[0]
    if op.fn == "not":
        return int(vals[0] == 0)
    if op.fn == "neg":
        return -vals[0]
    if op.fn in _FOLDS and len(vals) == 2:
        try:
            return fold(op.fn, vals[0], vals[1])
        except ValueOutOfRange:  # not a value the analysis can use: the run reports it
            return None
    return None


_FOLDS = frozenset(
    {"add", "sub", "mul", "div", "mod", "and", "or", "xor", "shl", "sra"}
    | {"eq", "ne", "lt", "le", "gt", "ge"}
)


def _constant_at_head(view: LoopView, r: str) -> bool:
    """Whether register ``r`` holds one constant at the head however it is reached: set
    to it before the loop and again last on every path to every latch (LLVM folds a phi
    of one constant: the loop carries nothing in ``r``)."""
    code = view.code

    def const(i: int) -> Operand | None:
        ins = code[i] if i >= 0 else None
        if isinstance(ins, Op) and ins.fn == "mov" and isinstance(ins.args[0], Imm):
            return ins.args[0]
        return None

    entry = const(_last_def(code, view.start, r))
    if entry is None:
        return False
    for latch in view.latches:
        for n, path in enumerate(view.paths_to(latch)):
            last = next((i for i in reversed(path) if r in defines(code[i])), -1)
            if n >= MAX_PATHS or last < 0 or const(last) != entry:
                return False
    return True


def carried_in_heap(view: LoopView) -> bool:
    """Whether the loop keeps a value in a heap cell of its own from one iteration to
    the next: it writes the cell (a local write, through a pointer) and reads it.  LLVM
    keeps such a cell in a register in the loop (a phi at the head), so GenMC sees an
    induction variable, not a spin loop."""
    code = view.code
    stored = {
        ins.addr
        for i in range(view.start, view.end)
        if isinstance(ins := code[i], Store)
        and any(isinstance(a, Reg) for a in ins.addr)
        and view.local(ins, i)
    }
    return bool(stored) and any(
        isinstance(ins := code[i], Load) and ins.addr in stored for i in range(view.start, view.end)
    )


def phi_clean(view: LoopView, carried: set[str]) -> bool:
    """Whether the registers carried around the loop all come from memory (LLVM's phi
    nodes GenMC accepts at a spin loop's head)."""
    if not carried:
        return True
    code = view.code
    cas_addrs = [ins.addr for i in range(view.start, view.end) if isinstance(ins := code[i], CAS)]
    for r in carried:
        kinds = {_def_kind(code, i, cas_addrs) for i in _defs(code, view.start, view.end, r)}
        kinds.add(_def_kind(code, _last_def(code, view.start, r), cas_addrs))
        loads = {k for k in kinds if k.startswith("load:")}
        if len(loads) == 1 and kinds == loads:
            continue
        if cas_addrs and kinds <= {"zero", "casres"}:
            continue
        if cas_addrs and all(k == "casold" or k.startswith("load:cas") for k in kinds):
            continue
        return False
    return True


def _defs(code: list[Instr], start: int, end: int, r: str) -> list[int]:
    return [i for i in range(start, end) if r in defines(code[i])]


def _last_def(code: list[Instr], before: int, r: str) -> int:
    for i in range(before - 1, -1, -1):
        if r in defines(code[i]):
            return i
    return -1


def _def_kind(code: list[Instr], i: int, cas_addrs: list[tuple[Operand, ...]]) -> str:
    if i < 0:
        return "undefined"
    ins = code[i]
    if isinstance(ins, Load):
        return ("load:cas:" if ins.addr in cas_addrs else "load:") + repr(ins.addr)
    if isinstance(ins, CAS):
        return "casold"
    if isinstance(ins, Op):
        if ins.fn == "mov" and ins.args == (Imm(0),):
            return "zero"
        if ins.fn == "eq" and any(isinstance(a, Reg) for a in ins.args):
            return "casres" if cas_addrs else "other"
        if ins.fn == "mov" and isinstance(ins.args[0], Reg):
            return _def_kind(code, _last_def(code, i, ins.args[0].name), cas_addrs)
    return "other"


def carried_registers(
    view: LoopView, live_after: set[str], returns: tuple[str, set[str]] | None = None
) -> set[str]:
    """Registers whose value at the head may come from an earlier iteration (LLVM's phi
    nodes there): written in the loop and read on some path from the head before being
    written, in the loop or after it (``live_after``: those the code after the loop may
    read; ``returns``: a function's end label and what is read after it)."""
    code = view.code
    written = {r for i in range(view.start, view.end) for r in defines(code[i])}
    if not written:
        return set()
    return written & _live_at_head(view, frozenset(live_after), returns)


def _live_at_head(
    view: LoopView, live_after: frozenset[str], returns: tuple[str, set[str]] | None
) -> set[str]:
    """Registers read before written on some path from the head (a latch leads back to
    the head, where the path ends; a path leaving the loop goes on with ``live_after``,
    or what is read after its function returns)."""
    code = view.code
    idx = list(range(view.start, view.end))
    live: dict[int, frozenset[str]] = {i: frozenset() for i in idx}
    changed = True
    while changed:
        changed = False
        for i in reversed(idx):
            out: set[str] = set()
            if view.exits(i):
                ins = code[i]
                ret = returns is not None and isinstance(ins, Branch) and ins.target == returns[0]
                out = set(returns[1]) if ret and returns is not None else set(live_after)
            for j in view.succ(i):
                out |= live[j]
            ins = code[i]
            new = frozenset((out - set(defines(ins))) | set(uses(ins)))
            if new != live[i]:
                live[i] = new
                changed = True
    return set(live[view.start])
