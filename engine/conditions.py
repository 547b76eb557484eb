"""Conditions compiled to closures over a state tuple (evaluated once per final state).

``compile_prop(prop, index)`` turns a proposition of ``litmus.ir`` into a function of a
tuple of values, ``index`` giving the position of each location in the tuple; it means
what :func:`litmus.ir.eval_prop` means on the corresponding state (a location absent from
``index`` holds 0).  ``needed_locations(observed, filter)`` is what such a state holds;
``wanted_values(prop)`` the values a conjunction of atoms pins (herd's
``wanted_final_value``, which ``-speedcheck`` prunes with).  ``compiled_condition(prop,
filter, needed)``: both compiled once per condition and tuple of locations, with room
for their values per state (tests of a campaign share conditions and final states).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

from herdsman.litmus.base.ir import (
    And,
    Atom,
    Implies,
    Loc,
    MemLoc,
    Not,
    Or,
    PFalse,
    Prop,
    PTrue,
    RegLoc,
    SymRegLoc,
    Value,
    Vector,
    prop_locations,
    same_word,
)
from herdsman.litmus.base.memo import by_identity

State = tuple[Value, ...]


def needed_locations(observed: list[Loc], filter: Prop | None) -> list[Loc]:
    """The locations a final state must hold: the observed ones (in their order), then
    those only the filter reads."""
    needed = list(observed)
    if filter is not None:
        for loc in prop_locations(filter):
            if loc not in needed:
                needed.append(loc)
    return needed


def wanted_values(p: Prop) -> dict[Loc, Atom]:
    """The atom ``loc = constant`` each location must satisfy for ``p`` to hold (see
    :func:`~litmus.base.ir.atom_holds`), when ``p`` is a conjunction of such atoms
    (herd's ``wanted_final_value``: ``And``, a one-element ``Or``, atoms); any other part
    pins nothing.  Two different atoms for one location pin nothing either: the caller's
    full check decides then."""
    out: dict[Loc, Atom] = {}
    clash = False

    def walk(q: Prop) -> None:
        nonlocal clash
        if isinstance(q, Atom) and not isinstance(q.value, (RegLoc, MemLoc, SymRegLoc)):
            old = out.setdefault(q.loc, q)
            clash = clash or old != q
        elif isinstance(q, And):
            for part in q.props:
                walk(part)
        elif isinstance(q, Or) and len(q.props) == 1:
            walk(q.props[0])

    walk(p)
    return {} if clash else out


def compile_prop(p: Prop, index: dict[Loc, int]) -> Callable[[State], bool]:
    if isinstance(p, Atom):
        i = index.get(p.loc)
        w = p.value
        if isinstance(w, (RegLoc, MemLoc, SymRegLoc)):
            j = index.get(w)
            if j is None:
                if i is None:
                    return lambda s: True  # 0 == 0
                return lambda s: s[i] == 0
            if i is None:
                return lambda s: s[j] == 0
            return lambda s: s[i] == s[j]
        bits = p.bits
        if i is None:
            res = same_word(0, w, bits)
            return lambda s: res
        if bits:
            return lambda s: s[i] == w or same_word(s[i], w, bits)
        return lambda s: s[i] == w
    if isinstance(p, And):
        return _conjunction(_flat(p, And), index)
    if isinstance(p, Or):
        return _disjunction(_flat(p, Or), index)
    if isinstance(p, Not):
        f = compile_prop(p.prop, index)
        return lambda s: not f(s)
    if isinstance(p, Implies):
        f, g = compile_prop(p.left, index), compile_prop(p.right, index)
        return lambda s: (not f(s)) or g(s)
    if isinstance(p, PFalse):
        return lambda s: False
    if isinstance(p, PTrue):
        return lambda s: True
    raise TypeError(f"not a proposition: {p!r}")


def _flat(p: And | Or, kind: type[And] | type[Or]) -> list[Prop]:
    r"""The parts of ``p``, nested ``kind`` parts opened (``a /\ (b /\ c)`` is
    ``a /\ b /\ c``: the conditions of herd's RISC-V tests nest so), in order."""
    out: list[Prop] = []
    todo: list[Prop] = [p]
    while todo:
        q = todo.pop()
        if isinstance(q, kind):
            todo.extend(reversed(q.props))
        else:
            out.append(q)
    return out


#: An atom ``loc = constant`` of a state's location: its position, the constant and the
#: bits it is compared on (:attr:`~litmus.base.ir.Atom.bits`).
Pin = tuple[int, Value | Vector, int]


def _pinned(q: Prop, index: dict[Loc, int]) -> Pin | None:
    """The pin of an atom ``loc = constant`` whose location the state holds."""
    if not isinstance(q, Atom) or isinstance(q.value, (RegLoc, MemLoc, SymRegLoc)):
        return None
    i = index.get(q.loc)
    return None if i is None else (i, q.value, q.bits)


def _pins_hold(pins: list[Pin], s: State) -> bool:
    """Whether every pin holds in ``s``, compared on its bits."""
    for i, w, bits in pins:
        if not same_word(s[i], w, bits):
            return False
    return True


def _split(
    props: list[Prop], index: dict[Loc, int]
) -> tuple[list[Pin], list[Callable[[State], bool]]]:
    """The atoms ``loc = constant`` of ``props`` as pins, the others compiled."""
    pins: list[Pin] = []
    rest: list[Callable[[State], bool]] = []
    for q in props:
        pin = _pinned(q, index)
        if pin is None:
            rest.append(compile_prop(q, index))
        else:
            pins.append(pin)
    return pins, rest


def _conjunction(props: list[Prop], index: dict[Loc, int]) -> Callable[[State], bool]:
    """All of ``props`` (pure, so the atoms ``loc = constant`` are compared first, at once)."""
    pins, rest = _split(props, index)
    if not pins:

        def every(s: State) -> bool:
            for f in rest:
                if not f(s):
                    return False
            return True

        return every
    get = itemgetter(*(i for i, _, _ in pins))
    want = tuple(w for _, w, _ in pins) if len(pins) > 1 else pins[0][1]
    # equal values first; atoms compared on bits may hold for other values too
    masked = any(bits for _, _, bits in pins)
    if not rest:
        if masked:
            return lambda s: get(s) == want or _pins_hold(pins, s)
        return lambda s: get(s) == want

    def pinned_then_every(s: State) -> bool:
        if not get(s) == want and not (masked and _pins_hold(pins, s)):
            return False
        for f in rest:
            if not f(s):
                return False
        return True

    return pinned_then_every


def _disjunction(props: list[Prop], index: dict[Loc, int]) -> Callable[[State], bool]:
    """Any of ``props`` (pure, so the atoms ``loc = constant`` are compared first; a
    decision on one location's value, see :func:`_decision`, looked up)."""
    if len(props) > 1:
        decision = _decision(props, index)
        if decision is not None:
            return decision
    pins, rest = _split(props, index)
    masked = any(bits for _, _, bits in pins)
    if pins and not rest and not masked and len({i for i, _, _ in pins}) == 1:
        i = pins[0][0]  # one location's values
        values = tuple(w for _, w, _ in pins)
        return lambda s: s[i] in values

    def some(s: State) -> bool:
        for i, w, bits in pins:
            if s[i] == w or bits and same_word(s[i], w, bits):
                return True
        for f in rest:
            if f(s):
                return True
        return False

    return some


def _word(v: Value | Vector, bits: int) -> object:
    """What :func:`~litmus.base.ir.same_word` compares of ``v`` on ``bits`` (two values
    are the same word iff these are equal)."""
    return v & ((1 << bits) - 1) if bits and type(v) is int else v


def _decision(props: list[Prop], index: dict[Loc, int]) -> Callable[[State], bool] | None:
    r"""Any of ``props`` when each is a conjunction whose first part is an atom ``loc =
    constant``, all of one location (compared on the same bits): herd's conditions listing
    states, factorised (``a=0 /\ (b=0 \/ ...) \/ a=1 /\ (...)``).
    The location's value picks the parts to evaluate, and the rest of each is compiled
    when first evaluated (a state takes one branch: the others are never compiled).
    None for other disjunctions."""
    branches: dict[object, list[list[Prop]]] = {}
    at = bits = -1
    for q in props:
        if not isinstance(q, And):
            return None
        parts = _flat(q, And)
        pin = _pinned(parts[0], index)
        if pin is None or isinstance(pin[1], Vector) or at >= 0 and pin[::2] != (at, bits):
            return None
        at, _, bits = pin
        branches.setdefault(_word(pin[1], bits), []).append(parts[1:])
    compiled: dict[object, list[Callable[[State], bool]]] = {}

    def some(s: State) -> bool:
        w = _word(s[at], bits)
        fs = compiled.get(w)
        if fs is None:
            rests = branches.get(w)
            if rests is None:
                return False
            fs = compiled[w] = [
                compile_prop(rest[0], index) if len(rest) == 1 else _conjunction(rest, index)
                for rest in rests
            ]
        for f in fs:
            if f(s):
                return True
        return False

    return some


#: The most final states whose proposition and filter values one condition keeps.
MAX_JUDGED = 4096


#: The tables of :func:`_compilations` by the value of their proposition and filter
#: (at most :data:`MAX_TABLES`): conditions written differently, or parsed from different
#: texts, are often equal (and a compiled condition depends only on its value).
_BY_VALUE: dict[tuple[Prop, Prop | None], dict[tuple[Loc, ...], tuple]] = {}
MAX_TABLES = 1024


@by_identity(maxsize=MAX_TABLES)
def _compilations(prop: Prop, filter: Prop | None) -> dict[tuple[Loc, ...], tuple]:
    """The proposition and the filter compiled, per tuple of locations the states hold
    (tests of a campaign share conditions: one table per condition)."""
    key = (prop, filter)
    table = _BY_VALUE.get(key)
    if table is None:
        if len(_BY_VALUE) >= MAX_TABLES:
            _BY_VALUE.clear()
        table = _BY_VALUE[key] = {}
    return table


def compiled_condition(prop: Prop, filter: Prop | None, needed: tuple[Loc, ...]) -> tuple:
    """The proposition and the filter (None: none) compiled for states holding
    ``needed``, and a table for their values per state met (at most :data:`MAX_JUDGED`)."""
    table = _compilations(prop, filter)
    got = table.get(needed)
    if got is None:
        index = {loc: i for i, loc in enumerate(needed)}
        keep = None if filter is None else compile_prop(filter, index)
        judged: dict[tuple[Value, ...], tuple[bool, bool]] = {}
        got = table[needed] = (compile_prop(prop, index), keep, judged)
    return got
