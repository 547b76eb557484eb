"""herd's primitive functions (``lib/interpreter.ml`` ``add_primitives``).

Each takes the evaluator, the (possibly symbolic) argument and the call position.  Those
whose result is a set or relation of a known argument compile to nodes (``domain``,
``range``, ``fromto``); those that need the skeleton or produce value sets are applied at
run time (``classes-loc``, ``linearisations``, ...), in ``prepare`` when their argument
depends on the skeleton only.
"""

from __future__ import annotations

from collections.abc import Callable

from herdsman.cat.backend import Backend
from herdsman.cat.errors import CatError
from herdsman.cat.ir import Node
from herdsman.cat.symbolic import vtype
from herdsman.cat.types import ANY, CLASSREL, REL, SET, valset_t
from herdsman.cat.values import (
    EMPTY,
    UNV,
    Prim,
    VClassRel,
    VRel,
    VSet,
    VTag,
    VTuple,
    VValSet,
    pp_value,
)
from herdsman.graphs.relalg import bits

PRIM_NAMES = (
    "at-least-one-writable",
    "oa-changes",
    "same-oa",
    "different-values",
    "fromto",
    "classes-loc",
    "classes",
    "lift",
    "delift",
    "deliftinter",
    "linearisations",
    "bisimulation",
    "tag2scope",
    "tag2level",
    "tag2events",
    "tag2fenced",
    "loc2events",
    "domain",
    "range",
    "fail",
    "as_transitive",
)

PRIMS: dict[str, Prim] = {name: Prim(name) for name in PRIM_NAMES}


def mismatch(name: str, pos):
    return CatError(pos, f"primitive {name}: argument mismatch")


def later(ev: Backend, name: str, arg, pos, rtype=ANY) -> Node:
    """Apply primitive ``name`` at run time."""
    return ev.defer("apply", (PRIMS[name], arg), pos, rtype)


def _pair(a, name: str, pos, t1: type | None = None, t2: type | None = None) -> tuple:
    """The two items of the pair argument of primitive ``name`` (of classes t1 and t2 when
    given), else an argument mismatch."""
    if type(a) is not VTuple or len(a.items) != 2:
        raise mismatch(name, pos)
    x, y = a.items
    if t1 is not None and (type(x) is not t1 or type(y) is not t2):
        raise mismatch(name, pos)
    return x, y


def _has_node(v) -> bool:
    if type(v) is Node:
        return True
    if type(v) is VTuple:
        return any(_has_node(x) for x in v.items)
    return False


# ----------------------------------------------------------------------------- primitives


def p_domain(ev: Backend, a, pos, rng: bool = False):
    if a is EMPTY or a is UNV:
        return a
    t = vtype(a)
    if t == REL or (type(a) is Node and t == ANY):
        r = ev.raw(a, REL, pos)
        return ev.wrap(ev.r_range(r) if rng else ev.r_domain(r), SET)
    raise mismatch("range" if rng else "domain", pos)


def p_range(ev: Backend, a, pos):
    return p_domain(ev, a, pos, rng=True)


def p_fromto(ev: Backend, a, pos):
    if vtype(a) not in (SET, ANY) and a is not EMPTY:
        raise mismatch("fromto", pos)
    s = ev.raw(a, SET, pos)
    po = ev.raw(ev.predef["po"], REL, pos)
    before = ev.r_inter([po, ev.r_prod(ev.r_top(SET), s)], REL)
    return ev.wrap(ev.r_seq([before, po]), REL)


def _groups(ev: Backend, s: int, key: Callable) -> list[int]:
    out: dict = {}
    for i, e in enumerate(ev.skeleton.events):
        if (s >> i) & 1:
            k = key(e)
            if k is not None:
                out[k] = out.get(k, 0) | (1 << i)
    return list(out.values())


def p_classes_loc(ev: Backend, a, pos):
    if _has_node(a):
        if vtype(a) not in (SET, ANY):
            raise mismatch("classes-loc", pos)
        return later(ev, "classes-loc", a, pos, valset_t(SET))
    if type(a) is not VSet:
        raise mismatch("classes-loc", pos)
    return VValSet(SET, frozenset(VSet(s) for s in _groups(ev, a.bits, lambda e: e.loc)))


def p_classes(ev: Backend, a, pos):
    if _has_node(a):
        return later(ev, "classes", a, pos, valset_t(SET))
    if type(a) is not VRel:
        raise mismatch("classes", pos)
    U = ev.universe
    r = a.bits
    nodes = U.domain(r) | U.range(r)
    out = set()
    while nodes:
        low = nodes & -nodes
        e = low.bit_length() - 1
        cls = U.row(r, e) | U.col(r, e) | low
        out.add(VSet(cls))
        nodes &= ~cls
    return VValSet(SET, frozenset(out))


def p_linearisations(ev: Backend, a, pos):
    if _has_node(a):
        return later(ev, "linearisations", a, pos, valset_t(REL))
    s, r = _pair(a, "linearisations", pos)
    if type(s) is VSet or s is EMPTY:
        if type(r) is not VRel and r is not EMPTY:
            raise mismatch("linearisations", pos)
        nodes = list(bits(s.bits)) if type(s) is VSet else []  # else EMPTY
        rb = r.bits if type(r) is VRel else 0  # else EMPTY
        U = ev.universe
        succ = {x: U.row(rb, x) for x in nodes}
        orders = all_topological_orders(nodes, succ)
        return VValSet(REL, frozenset(VRel(U.total_order(o)) for o in orders))
    if type(s) is VValSet and (type(r) is VClassRel or r is EMPTY):
        classes = [x.bits if type(x) is VSet else 0 for x in s.items]
        pairs = r.pairs if type(r) is VClassRel else frozenset()  # else EMPTY
        succ_c = {c: 0 for c in classes}
        index = {c: i for i, c in enumerate(classes)}
        for x, y in pairs:
            if x in index and y in index:
                succ_c[x] |= 1 << index[y]
        idx_succ = {index[c]: succ_c[c] for c in classes}
        orders = all_topological_orders(list(range(len(classes))), idx_succ)
        out = set()
        for o in orders:
            seq = [classes[i] for i in o]
            out.add(
                VClassRel(
                    frozenset(
                        (seq[i], seq[j]) for i in range(len(seq)) for j in range(i + 1, len(seq))
                    )
                )
            )
        return VValSet(CLASSREL, frozenset(out))
    raise mismatch("linearisations", pos)


#: The most orders ``linearisations`` makes (8 unordered events have 40,320; 9 have
#: 362,880): beyond, the evaluation runs out of memory at once, cleanly (a limit, exit
#: status 3), instead of filling the memory first.
MAX_LINEARISATIONS = 100_000


def all_topological_orders(nodes: list[int], succ: dict[int, int]) -> list[list[int]]:
    """Every linear order of ``nodes`` extending the edges ``succ`` (bitsets) among them;
    none when those edges have a cycle.  Enumerated without recursion; more than
    :data:`MAX_LINEARISATIONS` orders is a :class:`MemoryError`."""
    mask = 0
    for x in nodes:
        mask |= 1 << x
    preds = {x: 0 for x in nodes}
    for x in nodes:
        s = succ.get(x, 0) & mask & ~(1 << x)
        if succ.get(x, 0) & (1 << x):
            return []
        for y in bits(s):
            preds[y] |= 1 << x
    out: list[list[int]] = []
    prefix: list[int] = []
    # one frame per placed node: (events placed before it, index in ``nodes`` to try next)
    frames: list[tuple[int, int]] = [(0, 0)]
    while frames:
        placed, k = frames.pop()
        if placed == mask:
            if len(out) >= MAX_LINEARISATIONS:
                raise MemoryError(
                    f"linearisations of {len(nodes)} events: more than {MAX_LINEARISATIONS} orders"
                )
            out.append(list(prefix))
            if prefix:
                prefix.pop()
            continue
        while k < len(nodes):
            x = nodes[k]
            k += 1
            if not (placed >> x) & 1 and not (preds[x] & ~placed):
                frames.append((placed, k))  # come back for the next candidate
                frames.append((placed | (1 << x), 0))
                prefix.append(x)
                break
        else:
            if prefix:
                prefix.pop()
    return out


def p_lift(ev: Backend, a, pos):
    if _has_node(a):
        return later(ev, "lift", a, pos, CLASSREL)
    cls, r = _pair(a, "lift", pos, VValSet, VRel)
    owner = {}
    for c in cls.items:
        for e in bits(c.bits):
            owner[e] = c.bits
    out = set()
    for i, j in ev.universe.pairs(r.bits):
        if i in owner and j in owner:
            out.add((owner[i], owner[j]))
    return VClassRel(frozenset(out))


def p_delift(ev: Backend, a, pos):
    if _has_node(a):
        return later(ev, "delift", a, pos, REL)
    if type(a) is not VClassRel:
        raise mismatch("delift", pos)
    U = ev.universe
    r = 0
    for c1, c2 in a.pairs:
        r |= U.product(c1, c2)
    return VRel(r)


def p_deliftinter(ev: Backend, a, pos):
    if _has_node(a):
        return later(ev, "deliftinter", a, pos, REL)
    m, cr = _pair(a, "deliftinter", pos, VRel, VClassRel)
    U = ev.universe
    r = 0
    for c1, c2 in cr.pairs:
        r |= m.bits & U.product(c1, c2)
    return VRel(r)


def p_bisimulation(ev: Backend, a, pos):
    raise CatError(pos, "primitive bisimulation is not supported")


def p_tag2scope(ev: Backend, a, pos):
    if type(a) is not VTag:
        raise mismatch("tag2scope", pos)
    v = ev.predef.get(a.name)
    if v is None:
        raise CatError(
            pos,
            f"primitive tag2scope: cannot find scope instance {a.name} (the "
            "litmus test might be missing a scope tree declaration)",
        )
    return v


def tag2instrs_var(tag: str) -> str:
    """herd's BellName.tag2instrs_var: the set named after a tag, first letter capitalised."""
    return tag[:1].upper() + tag[1:]


def p_tag2events(ev: Backend, a, pos):
    if type(a) is Node:
        return later(ev, "tag2events", a, pos, SET)
    if type(a) is not VTag:
        raise mismatch("tag2events", pos)
    x = tag2instrs_var(a.name)
    v = ev.predef.get(x)
    if v is None:
        raise CatError(pos, f"primitive tag2events: cannot find event set {x}")
    if vtype(v) not in (SET,) and v is not EMPTY and v is not UNV:
        raise CatError(pos, f"primitive tag2events: value {x} is not a set of events")
    return v


def p_tag2fenced(ev: Backend, a, pos):
    return p_fromto(ev, p_tag2events(ev, a, pos), pos)


def p_loc2events(ev: Backend, a, pos):
    if type(a) is Node:
        return later(ev, "loc2events", a, pos, SET)
    if type(a) is not VTag:
        raise mismatch("loc2events", pos)
    sk = ev.sk
    if sk is None:
        return later(ev, "loc2events", a, pos, SET)
    s = 0
    for i, e in enumerate(sk.events):
        if e.loc == a.name:
            s |= 1 << i
    return VSet(s)


def p_different_values(ev: Backend, a, pos):
    ev.reads_values = True  # explorers must give skeletons the candidate's values
    if _has_node(a):
        return later(ev, "different-values", a, pos, REL)
    if type(a) is not VRel:
        raise mismatch("different-values", pos)
    evs = ev.skeleton.events
    U = ev.universe
    keep = [(i, j) for i, j in U.pairs(a.bits) if evs[i].value != evs[j].value]
    return VRel(U.from_pairs(keep))


def p_vmsa(name: str):
    """same-oa / at-least-one-writable / oa-changes: they select page-table (VMSA) events,
    which the architectures herdsman runs do not have, so nothing qualifies."""

    def f(ev: Backend, a, pos):
        t = vtype(a)
        if name == "same-oa" and t in (REL, ANY):
            return VRel(0)
        if name != "same-oa" and (type(a) is VTuple or t == ANY):
            return VSet(0)
        raise mismatch(name, pos)

    return f


def p_fail(ev: Backend, a, pos):
    raise CatError(pos, f"primitive fail: fail on {pp_value(a)}")


def p_as_transitive(ev: Backend, a, pos):
    if vtype(a) not in (REL, ANY):
        raise mismatch("as_transitive", pos)
    return a


_IMPL: dict[str, Callable] = {
    "domain": p_domain,
    "range": p_range,
    "fromto": p_fromto,
    "classes-loc": p_classes_loc,
    "classes": p_classes,
    "linearisations": p_linearisations,
    "lift": p_lift,
    "delift": p_delift,
    "deliftinter": p_deliftinter,
    "bisimulation": p_bisimulation,
    "tag2scope": p_tag2scope,
    "tag2level": p_tag2scope,
    "tag2events": p_tag2events,
    "tag2fenced": p_tag2fenced,
    "loc2events": p_loc2events,
    "different-values": p_different_values,
    "same-oa": p_vmsa("same-oa"),
    "at-least-one-writable": p_vmsa("at-least-one-writable"),
    "oa-changes": p_vmsa("oa-changes"),
    "fail": p_fail,
    "as_transitive": p_as_transitive,
}


def call_prim(ev: Backend, name: str, a, pos):
    return _IMPL[name](ev, a, pos)
