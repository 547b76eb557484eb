"""herd's mixed-size rules: the tests herd7 rejects as mixed-size without ``-variant mixed``.

herd7 (``herd/mem.ml``, facts only) refuses, with a user error and no result:

- an access to a symbol with an offset that is no cell of an array (``[x+4]`` of an
  ``int x``): "mixed-size test rejected (symbol [x+4]), consider option -variant mixed".
  On every architecture for a load no write of the test feeds (such a location has no
  initial write); on the architectures whose ``Arch.reject_mixed`` is set (AArch64), for
  any access;
- on those architectures, two accesses of different sizes to one location (a ``STR X``
  and a ``LDR W`` of ``x``): "Illegal mixed-size test" (herd also prints the two events'
  sizes, ``word vs. quad``);

unless the run (or the test's ``Variant=`` line) has ``mixed`` (or ``memtag``,
``morello``) or ``dontcheckmixed``.  herdsman has no mixed-size semantics: with ``mixed``
such a test is refused as unsupported, and so is one with an access whose size is not its
location's declared type's (a word stored into a ``uint8_t`` array's cell).

The locations of the accesses are found statically (:func:`accesses`): each thread's
registers are followed from their initial values through moves, additions and
subtractions of constants and ``r xor r`` (herd's false dependencies); an access whose
address is not known so is not judged, and neither is a load at an offset when some
store's address is not known.  herd judges sizes per execution: a location the code
accesses with two sizes is refused only when executions do (the caller's ``together``,
``engine.mixed``: not on a path no execution takes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from herdsman.litmus.base.arch import arch, is_arch
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    RMW,
    Imm,
    Label,
    Load,
    Op,
    Operand,
    Program,
    Reg,
    Store,
    StoreCond,
    Sym,
    Thread,
    Value,
)
from herdsman.litmus.base.memo import by_identity
from herdsman.litmus.base.regflow import defines

__all__ = ["Access", "accesses", "check_sizes", "size_name"]

#: herd's names of access sizes (MachSize.pp)
_SIZE_NAMES = {1: "byte", 2: "short", 4: "word", 8: "quad"}

#: the variants under which herd does not reject mixed-size tests (its own semantics)
_MIXED = frozenset({"mixed", "memtag", "morello"})


def size_name(size: int) -> str:
    return _SIZE_NAMES.get(size, f"{size} bytes")


class Access(NamedTuple):
    """A memory access found statically: thread, position in its code, kind (``R``,
    ``W``), size in bytes and address (None: not known statically)."""

    tid: int
    pos: int
    kind: str
    size: int
    addr: Sym | None


#: For a location, two sizes its accesses have in one execution (None: none do).
Together = Callable[[str], "tuple[int, int] | None"]


def check_sizes(
    program: Program,
    variants: frozenset[str],
    path: str,
    declared: Mapping[str, int] = MappingProxyType({}),
    together: Together | None = None,
) -> None:
    """An InputError when herd7 rejects ``program`` as a mixed-size test (see the module
    docstring), or when it needs ``-variant mixed``, which herdsman has not (also for an
    access whose size is not the bytes ``declared`` for its location: under ``mixed``
    herd writes the bytes beyond it, an array's next cells).  ``together``: for a location
    the code accesses with two sizes, whether its executions do (herd judges executions:
    ``engine.mixed``); None: the code's paths are taken to be executions."""
    if "dontcheckmixed" in variants or program.arch == "C":
        return
    found = accesses(program)
    if not found:
        return
    mixed = bool(variants & _MIXED)
    if mixed:
        for a in found:
            size = None if a.addr is None else declared.get(str(a.addr))
            if size is not None and size != a.size:
                what = f"{a.addr} of {size_name(size)} accessed as {size_name(a.size)}"
                _refuse(path, mixed, what)
    strict = is_arch(program.arch) and arch(program.arch).reject_mixed
    if not strict and not any(a.addr is not None and a.addr.offset for a in found):
        return  # only an access at an offset is judged: the usual test has none
    cells = {x for x, _ in program.memory}
    stores_known = all(a.addr is not None for a in found if a.kind == "W")
    stored = {str(a.addr) for a in found if a.kind == "W"}
    sizes: dict[str, int] = {}
    for a in found:
        if a.addr is None:
            continue
        loc = str(a.addr)
        if a.addr.offset and loc not in cells:
            if strict or a.kind == "R" and stores_known and loc not in stored:
                _refuse(path, mixed, f"symbol [{loc}]")
        if not strict:
            continue
        first = sizes.setdefault(loc, a.size)
        if first == a.size:
            continue
        pair = (first, a.size) if mixed or together is None else together(loc)
        if pair is not None:
            _refuse(path, mixed, f"{loc} accessed as {size_name(pair[0])} and {size_name(pair[1])}")


def _refuse(path: str, mixed: bool, what: str) -> None:
    """herd's rejection (``what``: the symbol at an offset, or the location and its two
    sizes); under ``-variant mixed``, herdsman's refusal."""
    if mixed:
        message = f"mixed-size accesses (-variant mixed) are not supported ({what})"
    elif what.startswith("symbol"):
        message = f"mixed-size test rejected ({what}), consider option -variant mixed"
    else:
        message = f"Illegal mixed-size test ({what})"
    raise InputError(path, 0, 0, message)


def accesses(program: Program) -> tuple[Access, ...]:
    """The memory accesses of ``program``'s threads, with their addresses where known."""
    out: list[Access] = []
    for tid, thread in enumerate(program.threads):
        regs = program.registers[tid] if tid < len(program.registers) else ()
        out += _thread_accesses(thread, regs, tid)
    return tuple(out)


@by_identity(4096)
def _thread_accesses(
    thread: Thread, regs: tuple[tuple[str, Value], ...], tid: int
) -> tuple[Access, ...]:
    code = thread.code
    written: set[str] | None = None
    env: dict[str, Value] = dict(regs)
    out: list[Access] = []
    for pos, ins in enumerate(code):
        if isinstance(ins, Label):  # a join of paths: what the code writes is not known
            if written is None:
                written = {r for x in code for r in defines(x)}
            for r in written:
                env.pop(r, None)
            continue
        if isinstance(ins, Load):
            out.append(Access(tid, pos, "R", ins.size, _address(ins.addr, env)))
        elif isinstance(ins, Store) or isinstance(ins, StoreCond):
            out.append(Access(tid, pos, "W", ins.size, _address(ins.addr, env)))
        elif isinstance(ins, RMW):
            at = _address(ins.addr, env)
            out.append(Access(tid, pos, "R", ins.size, at))
            out.append(Access(tid, pos, "W", ins.size, at))
        value = _value(ins, env) if isinstance(ins, Op) else None
        for r in defines(ins):
            env.pop(r, None)
        if value is not None and isinstance(ins, Op):
            env[ins.dst] = value
    return tuple(out)


def _operand(o: Operand, env: dict[str, Value]) -> Value | None:
    if isinstance(o, Imm):
        return o.value
    if isinstance(o, Reg):
        v = env.get(o.name)
        if o.shift:  # a scaled index register (an address of a symbol scaled is none)
            return v << o.shift if isinstance(v, int) else None
        return v
    return None


def _value(op: Op, env: dict[str, Value]) -> Value | None:
    """The value ``op`` computes when it is known statically (None otherwise)."""
    if op.fn == "xor" and len(op.args) == 2 and op.args[0] == op.args[1]:
        return 0  # herd's false dependency: the value is 0 whatever the register holds
    if op.fn not in ("mov", "add", "sub"):
        return None
    args = [_operand(a, env) for a in op.args]
    if any(a is None for a in args):
        return None
    if op.fn == "mov":
        return args[0]
    return _add(args[0], args[1] if op.fn == "add" else _neg(args[1]))


def _neg(v: Value | None) -> Value | None:
    return -v if isinstance(v, int) else None


def _add(a: Value | None, b: Value | None) -> Value | None:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(a, Sym) and isinstance(b, int):
        return Sym(a.name, a.offset + b)
    if isinstance(a, int) and isinstance(b, Sym):
        return Sym(b.name, b.offset + a)
    return None


def _address(addr: tuple[Operand, ...], env: dict[str, Value]) -> Sym | None:
    total: Value | None = 0
    for o in addr:
        total = _add(total, _operand(o, env))
        if total is None:
            return None
    return total if isinstance(total, Sym) else None
