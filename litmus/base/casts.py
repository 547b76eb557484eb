"""herd's typed values: a location declared ``uint64_t``, ``int32_t``... holds values of
that type, and one of no declared type an ``int`` (``lib/testType.ml``): herd prints its
values wrapped to the type's bits and signedness; the constants of a condition are read
as the architecture's scalars."""

from __future__ import annotations

from herdsman.litmus.base.armops import word
from herdsman.litmus.base.ir import Atom, Condition, RegLoc, map_atoms
from herdsman.litmus.base.memo import by_identity
from herdsman.litmus.base.values import MemLoc, Value, Vector

#: A location's type as herd reads its values: its bits and whether it is signed.
Cast = tuple[int, bool]
_C_TYPES: dict[str, Cast] = {
    **dict.fromkeys(("char", "int8_t"), (8, True)),
    "uint8_t": (8, False),
    **dict.fromkeys(("short", "int16_t"), (16, True)),
    "uint16_t": (16, False),
    **dict.fromkeys(("int", "int32_t"), (32, True)),
    **dict.fromkeys(("uint32_t", "atomic_t"), (32, False)),
    **dict.fromkeys(("long", "int64_t", "intptr_t"), (64, True)),
    **dict.fromkeys(("uint64_t", "uintptr_t"), (64, False)),
}
#: A location of no declared type is an ``int`` to herd.
DEFAULT_CAST: Cast = (32, True)


def c_cast(ctype: str | None) -> Cast | None:
    """How herd reads the values of a location of type ``ctype`` (None: as they are, a
    pointer or a type herd does not size)."""
    if ctype is None:
        return DEFAULT_CAST
    return _C_TYPES.get(ctype.removeprefix("_Atomic").strip())


def cast_value(v: Value, cast: Cast | None) -> Value:
    """``v`` as herd reads it in a location of that type (symbols unchanged)."""
    if cast is None or type(v) is not int:
        return v
    return word(v, *cast)


#: The bits of herd's scalars per architecture, where its condition constants wrap to
#: them (ARM's are 32-bit words: ``0xBEEF0000`` is -1091633152; AArch64's 64-bit ones:
#: ``0xfffffffffffffffe`` is -2).
SCALAR_BITS = {"ARM": 32, "AArch64": 64, "RISCV": 64, "PPC": 64, "X86_64": 64}


def stored_init(v: Value, cast: Cast | None, scalar: int | None) -> Value:
    """An initial memory value as herd's initial write holds it (``eventsMonad.ml``'s
    ``initwrites_non_mixed``): its low bits of the location's size (``cast``: its type,
    :data:`DEFAULT_CAST` when undeclared; None: a pointer, kept) zero-extended to the
    architecture's ``scalar`` bits (read as herd's signed scalar).  ``int x = -1`` holds
    ``0xffffffff`` on a 64-bit architecture: ``lwz`` loads it so, ``lwa`` sign-extends it.
    ``scalar`` None (an architecture herdsman does not know the scalars of): cast as the
    type reads it."""
    if cast is None or type(v) is not int:
        return v
    if scalar is None:
        return cast_value(v, cast)
    return word(word(v, cast[0], False), scalar, True)


@by_identity(maxsize=1 << 14)
def typed_condition(cond: Condition, bits: int | None) -> Condition:
    """``cond`` with each constant a register or memory location is compared with read as
    herd reads it: a signed word of ``bits`` bits (None: as written); remembered per
    condition (tests that write it alike share it)."""
    if bits is None:
        return cond
    word: Cast = (bits, True)

    def scalar(v: Value) -> Value:
        if type(v) is not int or -1 <= v >> (bits - 1) <= 0:  # a signed word already
            return v
        return cast_value(v, word)

    def typed(a: Atom) -> Atom:
        v = a.value
        if type(v) is int and -1 <= v >> (bits - 1) <= 0 or not isinstance(a.loc, _TYPED):
            return a  # the usual atom: a signed word already
        if isinstance(v, Vector):  # an array observed whole: each cell's constant
            cells = tuple([scalar(k) for k in v.cells])
            return a if cells == v.cells else Atom(a.loc, Vector(cells), a.bits)
        if type(v) is not int:
            return a
        got = scalar(v)
        return a if got == v else Atom(a.loc, got)

    prop = map_atoms(cond.prop, typed)
    return cond if prop is cond.prop else Condition(cond.quant, prop, cond.written)


#: The locations whose values are typed (registers, memory).
_TYPED = (RegLoc, MemLoc)


__all__ = [
    "DEFAULT_CAST",
    "SCALAR_BITS",
    "Cast",
    "c_cast",
    "cast_value",
    "stored_init",
    "typed_condition",
]
