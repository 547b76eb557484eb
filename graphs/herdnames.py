"""The event sets and relations herd predefines before a cat model runs.

``static_names(sk, arch)`` gives every name that depends only on the skeleton (events, po,
dependencies); ``dynamic_names(g)`` the ones that depend on the rf/co choice (``rf``,
``FW``, ``pco``; ``g`` is a graph's relations, :class:`graphs.execution.Relations`).
Values are tagged ``("set", bits)`` or ``("rel", bits)``.

Which names exist, and what they hold, follows herd's ``herd/machModelChecker.ml``,
``herd/machAction.ml`` (``arch_sets``), ``herd/event.ml`` and the ``*Arch_herd.ml`` files
(herd-formats.md section 1.5), for PPC, X86 and X86_64 in herd's default (non-mixed) mode:

* the universe is every event but register events (we have none): memory events, the
  initial writes, fences and branch (commit) events;
* ``id`` is the identity on that universe; ``loc`` relates memory events of one location
  (reflexive on them, never on fences); ``int`` relates events of one thread, reflexive,
  init events in no thread (not even with themselves); ``ext`` relates events of different
  threads, the init events forming one group; ``po`` excludes pairs of one instruction
  instance; ``same-instance`` relates the events of one instruction instance (init events:
  none); ``sm = si`` is the identity on memory events (non-mixed mode);
* ``co``/``fr`` are not predefined (``cos.cat`` makes them).

Names herd defines with a meaning we do not model (``same-low-order-bits``, ``aligned``,
``instr``, bell scopes, VMSA sets) are left undefined rather than guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial

from herdsman.graphs.execution import Relations
from herdsman.graphs.relalg import bits
from herdsman.graphs.skeleton import DEP_NAMES, Skeleton
from herdsman.litmus.base.arch import ARCHS

Tagged = tuple[str, int]

#: Generic event sets of every architecture (``machAction.arch_sets`` and
#: ``machModelChecker``) that hold only events we never build (tags, TLBIs, faults,
#: unrolling cut-offs, speculation, register accesses, ports...).  They are computed from
#: ``Event.annots`` all the same, so an engine that does produce such events can mark them.
GENERIC_SETS = (
    "NExp",
    "SPEC",
    "SPURIOUS",
    "Rreg",
    "Wreg",
    "ADDR",
    "DATA",
    "PRED",
    "T",
    "GCS",
    "TLBI",
    "CutOff",
    "FAULT",
    "FAULT-RD",
    "FAULT-WR",
    "EXC-ENTRY",
    "EXC-RET",
)

#: Relations herd always defines that are empty for PPC/X86 programs unless the skeleton's
#: ``deps`` gives them (``iico_data``, ``iico_ctrl`` and ``rf-reg`` are set apart: see
#: :func:`static_names`).
EMPTY_RELS = (
    "tst",
    "depend",
    "success",
    "control",
    "equiv-spec",
    "membar.cta",
    "membar.gl",
    "membar.sys",
)


def static_names(sk: Skeleton, arch: str, tag_sets: Mapping[str, str] | None = None) -> StaticNames:
    """Names whose value is fixed by the skeleton (the cheap event sets at once, the
    others when first asked); ``tag_sets`` adds the event sets a bell file declares (set
    name -> the annotation its events carry)."""
    return StaticNames(sk, arch, tag_sets)


#: How a name is made: its tag (``set`` or ``rel``) and its bits from a skeleton.
Maker = tuple[str, Callable[[Skeleton], int]]


def _set(prop: Callable[[Skeleton], int]) -> Maker:
    return ("set", prop)


def _rel(prop: Callable[[Skeleton], int]) -> Maker:
    return ("rel", prop)


def _dep(name: str, sk: Skeleton) -> int:
    return sk.deps.get(name, 0)


def _annotation(name: str, sk: Skeleton) -> int:
    return sk.annotated.get(name, 0)


def _fence(name: str, sk: Skeleton) -> int:
    return sk.fences.get(name, 0)


def _annotated(name: str) -> Maker:
    return ("set", partial(_annotation, name))


def _fenced(name: str) -> Maker:
    return ("set", partial(_fence, name))


def _same(sk: Skeleton) -> int:
    # same-instr / same-static relate instances of one static instruction: without loop
    # unrolling every instruction has one instance, and they equal same-instance.
    return sk.same_instance


def _none(sk: Skeleton) -> int:
    return 0


_GENERAL: dict[str, Maker] = {
    "M": _set(lambda sk: sk.M),
    "R": _set(lambda sk: sk.R),
    "W": _set(lambda sk: sk.W),
    "IW": _set(lambda sk: sk.IW),
    "F": _set(lambda sk: sk.F),
    "B": _set(lambda sk: sk.B),
    "BCC": _set(lambda sk: sk.BCC),  # a branch's commit, not a CAS's predicate
    "Exp": _set(lambda sk: sk.M),  # every access is explicit (no page-table walks)
    "EXEC": _set(lambda sk: sk.M),  # nothing is speculated
    "no-loc": _set(lambda sk: sk.F | sk.B | sk.nops),  # events without a location
    "id": _rel(lambda sk: sk.U.ID),
    "loc": _rel(lambda sk: sk.loc),
    "int": _rel(lambda sk: sk.int_),
    "ext": _rel(lambda sk: sk.ext),
    "po": _rel(lambda sk: sk.po),
    "partial_po": _rel(lambda sk: sk.po),
    # herd's iico_data between the events we keep: the read of a read-modify-write feeds
    # its write (X86 XCHG / LOCK'd instructions); PPC instructions have one such event.
    # With register events (catdep models) the events declare it, iico_ctrl and rf-reg.
    "iico_data": _rel(lambda sk: sk.iico_data),
    "iico_ctrl": _rel(lambda sk: sk.iico_ctrl),
    "iico_order": _rel(lambda sk: sk.iico_order),  # LDIAPP's, STILP's pairs
    "rf-reg": _rel(lambda sk: sk.rf_reg),
    # the memory events whose addresses have the same low-order bits (their offsets)
    "same-low-order-bits": _rel(lambda sk: same_low_order_bits(sk)),
    **{name: _rel(partial(_dep, name)) for name in ("addr", "data", "ctrl")},
    "same-instance": _rel(_same),
    "same-instr": _rel(_same),
    "same-static": _rel(_same),
    "sm": _rel(lambda sk: sk.U.ident(sk.M)),
    "si": _rel(lambda sk: sk.U.ident(sk.M)),
    **{name: _annotated(name) for name in GENERIC_SETS},
    **{name: _rel(_none) for name in EMPTY_RELS},
}

#: Names made from the kinds of the events (cheap once the skeleton has grouped them).
_BY_KIND = ("M", "R", "W", "IW", "F", "B", "Exp", "EXEC")
#: Names that are relations of the skeleton's frame (:meth:`Skeleton.frame_relations`):
#: skeletons of one frame share them.
_FRAMED = {
    "po": "po",
    "partial_po": "po",
    "int": "int_",
    "ext": "ext",
    "same-instance": "same_instance",
    "same-instr": "same_instance",
    "same-static": "same_instance",
}


@dataclass(frozen=True)
class _Plan:
    """How each predefined name of an architecture is made: ``make`` (every name), and
    which of them a skeleton sets at once: the names always empty (``none``: each with
    its value, 0), those of
    an annotation (``by_annot``: annotation -> names) or fence kind (``by_fence``), those
    of event kinds (``kinds``), its dependencies (``deps``), the relations of its
    frame (``framed``: name -> the frame's name of the relation) its frame has made, and
    ``id`` (``ident``)."""

    make: dict[str, Maker]
    none: dict[str, int]
    by_annot: dict[str, tuple[str, ...]]
    by_fence: dict[str, tuple[str, ...]]
    kinds: tuple[str, ...]
    deps: tuple[str, ...]
    framed: tuple[tuple[str, str], ...]
    ident: bool  # ``id`` is the identity (set at once)


@lru_cache(maxsize=64)
def _plan(arch: str) -> _Plan:
    """How each predefined name of ``arch`` is computed from a skeleton."""
    make = dict(_GENERAL)
    rec = ARCHS.get(arch)
    for name in rec.fences if rec else ():  # herd's barrier_sets, by upper-case mnemonic
        make[name] = _fenced(name)
    for name in rec.annot_sets if rec else ():  # herd's annot_sets (litmus/arch.py)
        make[name] = _annotated(name)
    for name in rec.other_sets if rec else ():  # defined, empty: no event joins them
        make[name] = _annotated(name)
    if rec is not None and rec.exclusive_pairs:
        make["rmw"] = _rel(exclusive_pairs)
    if rec is not None and rec.amo_pairs:
        make["amo"] = _rel(amo_pairs)
    if arch == "C":
        make["NA"] = _set(_c_non_atomic)
        # herd's C (CMem's wide po): po also orders the events of one instruction
        # instance, the read of a read-modify-write before its write
        make["po"] = _rel(lambda sk: sk.po_iico)
    by_annot: dict[str, list[str]] = {}
    by_fence: dict[str, list[str]] = {}
    none = []
    for name, (_, fn) in make.items():
        if fn is _none:
            none.append(name)
        elif isinstance(fn, partial) and fn.func is _annotation:
            none.append(name)
            by_annot.setdefault(fn.args[0], []).append(name)
        elif isinstance(fn, partial) and fn.func is _fence:
            none.append(name)
            by_fence.setdefault(fn.args[0], []).append(name)
    return _Plan(
        make,
        dict.fromkeys(none, 0),
        {a: tuple(names) for a, names in by_annot.items()},
        {f: tuple(names) for f, names in by_fence.items()},
        tuple(name for name in _BY_KIND if make[name] is _GENERAL[name]),
        tuple(name for name in DEP_NAMES if make[name] is _GENERAL[name]),
        tuple((name, rel) for name, rel in _FRAMED.items() if make[name] is _GENERAL[name]),
        make["id"] is _GENERAL["id"],
    )


def _c_non_atomic(sk: Skeleton) -> int:
    """herd's C ``NA``: every event that is not atomic (``A``), initial writes and fences
    too (not our branch events, which herd's C has not)."""
    return sk.U.ALL & ~sk.annot_set("A") & ~sk.B


class _Bits(dict[str, int]):
    """The names' values without their tags (generated code reads those): the cheap
    ones set at once, the others made when first asked."""

    __slots__ = ("sk", "make")

    def __init__(self, sk: Skeleton, make: Mapping[str, Maker]) -> None:
        super().__init__()
        self.sk = sk
        self.make = make

    def __missing__(self, name: str) -> int:
        got = self[name] = self.make[name][1](self.sk)
        return got


class StaticNames(Mapping[str, Tagged]):
    """herd's predefined names of a skeleton (see the module docstring): the event sets
    of kinds, annotations and fences at once, the others when first asked (a model uses
    a few of them)."""

    def __init__(self, sk: Skeleton, arch: str, tag_sets: Mapping[str, str] | None = None) -> None:
        self.sk = sk
        plan = _plan(arch)
        make = plan.make
        b = _Bits(sk, make)
        b.update(plan.none)
        for a, s in sk.annotated.items():
            for name in plan.by_annot.get(a, ()):
                b[name] = s
        for f, s in sk.fences.items():
            for name in plan.by_fence.get(f, ()):
                b[name] = s
        if plan.kinds:
            by_kind = {
                "M": sk.M,
                "R": sk.R,
                "W": sk.W,
                "IW": sk.IW,
                "F": sk.F,
                "B": sk.B,
                "Exp": sk.M,
                "EXEC": sk.M,
            }
            for name in plan.kinds:
                b[name] = by_kind[name]
        if plan.ident:
            b["id"] = sk.U.ID
        deps = sk.deps
        for name in plan.deps:
            b[name] = deps.get(name, 0)
        frame = sk.frame_relations()
        if frame:
            for name, attr in plan.framed:
                got = frame.get(attr)
                if got is not None:
                    b[name] = got
        if tag_sets:
            make = b.make = dict(make)
            for name, annot in tag_sets.items():
                make[name] = _annotated(annot)
                b.pop(name, None)
        self._make = make
        # dependencies and sets the engine gave beside the events' own
        tags: dict[str, str] = {}
        for name, rel in deps.items():
            if name not in make:
                tags[name] = "rel"
                b[name] = rel
        for name, s in sk.extra_sets.items():
            tags[name] = "set"
            b[name] = s
        self._extra = tags
        self._bits = b

    def __getitem__(self, name: str) -> Tagged:
        tag = self._extra.get(name)
        if tag is None:
            tag = self._make[name][0]
        return (tag, self._bits[name])

    def __iter__(self) -> Iterator[str]:
        yield from self._make
        yield from (name for name in self._extra if name not in self._make)

    def __len__(self) -> int:
        return len(self._make) + sum(1 for name in self._extra if name not in self._make)

    def bits(self) -> Mapping[str, int]:
        """The names' values without their tags (generated code reads those)."""
        return self._bits


def exclusive_pairs(sk: Skeleton) -> int:
    """herd's ``rmw`` where it comes from the events (``mem.ml``, ``atomic_load_store``):
    an ``X`` read and an ``X`` write of one location, the read before the write in
    ``po | iico``, with no ``X`` access between them (of any location); an event that is
    both a read and a write (RISC-V's amo) is in no pair, but it stands between."""
    X = sk.annotated.get("X", 0) & sk.M
    if not X:
        return 0
    U = sk.U
    cap, row = U.cap, U.ROW
    both = sk.R & sk.W
    reads, writes = X & sk.R & ~both, X & sk.W & ~both
    before = sk.po_iico
    after_of = U.inverse(before)  # row w: the events before w
    out = 0
    for s in sk.by_loc.values():
        for r in bits(s & reads):
            after = (before >> (r * cap)) & row
            for w in bits(after & s & writes):
                if not after & (after_of >> (w * cap)) & X:
                    out |= 1 << (r * cap + w)
    return out


def same_low_order_bits(sk: Skeleton) -> int:
    """herd's ``same-low-order-bits``: memory events whose addresses have the same offset
    in their symbols (initial writes included)."""
    U = sk.U
    groups: dict[int, int] = {}
    for i, e in enumerate(sk.events):
        if e.loc is not None and e.is_mem:
            _, _, off = e.loc.partition("+")
            k = int(off) if off.isdigit() else 0
            groups[k] = groups.get(k, 0) | (1 << i)
    r = 0
    for s in groups.values():
        r |= U.product(s, s)
    return r


def amo_pairs(sk: Skeleton) -> int:
    """herd's ``amo`` (``mem.ml`` ``make_atomic_load_store``): the :func:`exclusive_pairs`
    whose read and write are of one instruction."""
    U = sk.U
    amo = 0
    for r, w in U.pairs(exclusive_pairs(sk)):
        if sk.events[r].poi == sk.events[w].poi:
            amo |= U.pair(r, w)
    return amo


def co0(g: Relations, fw: int) -> int:
    """stdlib's ``co0``: init writes before the other writes of their location, and every
    write before the final write ``fw`` of its location."""
    sk, U = g.sk, g.U
    W, IW = sk.W, sk.IW
    return sk.loc & (U.product(IW, W & ~IW) | U.product(W & ~fw, fw))


def obsco(g: Relations) -> int:
    """The coherence pairs herd infers from the program and rf alone (``U.compute_pco``
    on ``po_iico`` restricted to one location; all our accesses are explicit)."""
    sk, U = g.sk, g.U
    W, R = sk.W, sk.R
    po_loc = sk.po_iico & sk.loc
    rf = g.rf
    invrf = U.inverse(rf)
    ww = U.restrict(po_loc, W, W)
    rw = U.seq(rf, U.restrict(po_loc, R, W))
    wr = U.seq(U.restrict(po_loc, W, R), invrf) & ~U.ID
    rr = U.seq(U.seq(rf, U.restrict(po_loc, R, R)), invrf) & ~U.ID
    return ww | rw | wr | rr


def pco(g: Relations, fw: int | None = None, optace: bool = True) -> int:
    """herd's ``pco`` (used by ``cos-ok-opt.cat``): ``obsco | co0``.

    herd adds ``obsco`` only under ``-optace true`` (which is also what sets the variant
    ``cos-opt`` that makes ``cos.cat`` include ``cos-ok-opt.cat``); otherwise its ``pco``
    is ``co0`` alone.  A cyclic ``pco`` makes herd discard the candidate before the model
    runs (engines should do the same).  Where herd's ``compute_pco`` gives up on a read
    from the initial state ordered after a write, this gives a cyclic ``pco`` instead:
    the candidate is discarded either way."""
    fw = g.FW if fw is None else fw
    out = co0(g, fw)
    if optace:
        out |= obsco(g)
    return out


def dynamic_names(g: Relations, fw: int | None = None, optace: bool = True) -> dict[str, Tagged]:
    """Names that depend on rf (and on the final writes ``FW``): ``rf``, ``FW``, ``pco``.

    ``fw`` overrides the final writes (engines that enumerate them, as herd does);
    by default they are the co-maximal writes of ``g``.  ``optace`` as for :func:`pco`.
    """
    fw = g.FW if fw is None else fw
    return {
        "rf": ("rel", g.rf),
        "FW": ("set", fw),
        "pco": ("rel", pco(g, fw, optace)),
    }
