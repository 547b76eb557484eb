"""Skeletons: the events of an execution and every relation that does not depend on rf/co.

A :class:`Skeleton` numbers its events: the initial writes first (one per location, in
location-name order), then each thread's events in program order, thread by thread (a
thread may be a prefix of a longer execution).  It derives po, loc, int/ext, the
instruction-instance relations, the event sets and the dependency relations (from the
events' own dependency masks, plus any ``deps`` given by pairs).  Many candidate
executions share one skeleton: a cat model prepares itself once per skeleton.  Relations
and sets are ints in the encoding of :mod:`graphs.relalg`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import NamedTuple

from herdsman.graphs.events import Event
from herdsman.graphs.relalg import bits, universe
from herdsman.litmus.base.memo import cached

#: Dependency relations an event declares (masks over earlier positions of its thread).
DEP_NAMES = ("addr", "data", "ctrl")

#: The events' dependency masks, read field by field (``map`` runs them without a frame).
_ADDR, _DATA, _CTRL, _VALDEP = (itemgetter(Event._fields.index(f)) for f in (*DEP_NAMES, "valdep"))
_TID = itemgetter(Event._fields.index("tid"))
_TID_DEPS = itemgetter(*(Event._fields.index(f) for f in ("tid", *DEP_NAMES)))
_REG = itemgetter(Event._fields.index("reg"))
_NO_REG = frozenset((None,))
_POI = itemgetter(Event._fields.index("poi"))
_TID_POI = itemgetter(Event._fields.index("tid"), Event._fields.index("poi"))

#: Beyond this many events, a dependency's columns are not spread one by one (the
#: universe spreads sets of more events through their text: see ``Universe.spread``).
_SPREAD_EVENTS = 48
_DEP_FIELDS = tuple((name, itemgetter(Event._fields.index(name))) for name in DEP_NAMES)

#: Frames kept (see :attr:`Skeleton._frame`); beyond, the table starts afresh.
MAX_FRAMES = 4096
_FRAMES: dict[tuple, dict[str, int]] = {}


class _Groups(NamedTuple):
    """A skeleton's events by kind, by thread, by location, by fence kind and by
    annotation (event sets)."""

    kinds: dict[str, int]
    threads: dict[int, int]
    locs: dict[str, int]  # memory events of each location
    fences: dict[str, int]  # fence events of each kind
    annotated: dict[str, int]  # events carrying each annotation


@dataclass
class Skeleton:
    """Events and their rf/co-independent relations (see the module docstring).

    ``deps`` holds dependency relations given as relations (added to those the events
    declare); ``extra_sets`` extra named event sets; ``cap`` the row stride of relations
    (at least the number of events)."""

    events: tuple[Event, ...]
    nthreads: int
    deps: dict[str, int] = field(default_factory=dict)
    extra_sets: dict[str, int] = field(default_factory=dict)
    cap: int | None = None

    def __post_init__(self) -> None:
        self.U = universe(len(self.events), self.cap)
        self._groups, base = self._scan()
        kinds = self._groups.kinds
        both = kinds.get("U", 0)  # an update is a read and a write
        #: the events of each kind (herd's R, W, M, F, B; IW: the initial writes)
        self.R: int = kinds.get("R", 0) | both
        self.W: int = kinds.get("W", 0) | both
        self.M: int = self.R | self.W
        self.F: int = kinds.get("F", 0)
        self.B: int = kinds.get("B", 0)
        self.IW: int = self._groups.threads.get(-1, 0)
        self.base = [len(self.events) if b is None else b for b in base]
        declared = self.declared_deps()
        for name, rel in self.deps.items():
            declared[name] = declared.get(name, 0) | rel
        self.deps = declared

    def declared_deps(self) -> dict[str, int]:
        """``addr``/``data``/``ctrl`` as the events declare them."""
        events = self.events
        if not (any(map(_ADDR, events)) or any(map(_DATA, events)) or any(map(_CTRL, events))):
            return {"addr": 0, "data": 0, "ctrl": 0}
        if self.U.n > _SPREAD_EVENTS:
            return {name: self._dep(list(map(get, events))) for name, get in _DEP_FIELDS}
        spread, everything, base = self.U.spread, self.U.ALL, self.base
        addr = data = ctrl = 0
        for j, (tid, a, d, c) in enumerate(map(_TID_DEPS, events)):
            if (a or d or c) and tid >= 0:  # column j: the events of a, d, c in j's thread
                b = base[tid]
                if a:
                    addr |= spread((a << b) & everything) << j
                if d:
                    data |= spread((d << b) & everything) << j
                if c:
                    ctrl |= spread((c << b) & everything) << j
        return {"addr": addr, "data": data, "ctrl": ctrl}

    def _dep(self, sources: list[int]) -> int:
        """A dependency the events declare (``sources[i]``: the events of event ``i``'s
        thread it depends on), as a relation (column ``i``: those events)."""
        spread, everything, base = self.U.spread, self.U.ALL, self.base
        if self.U.n > _SPREAD_EVENTS:  # columns put in place by one conversion
            cols = [0] * len(sources)
            for j, (s, tid) in enumerate(zip(sources, map(_TID, self.events), strict=True)):
                if s and tid >= 0:
                    cols[j] = (s << base[tid]) & everything
            return self.U.from_columns(cols)
        r = 0
        for j, (s, tid) in enumerate(zip(sources, map(_TID, self.events), strict=True)):
            if s and tid >= 0:
                r |= spread((s << base[tid]) & everything) << j
        return r

    @cached
    def valdep(self) -> int:
        """read -> write whose stored value is computed from it, whatever the port (not
        one of herd's names: explorers reject the candidates where rf closes a cycle with
        it, as herd does when it cannot solve their value equations)."""
        events = self.events
        return self._dep(list(map(_VALDEP, events))) if any(map(_VALDEP, events)) else 0

    @property
    def n(self) -> int:
        return len(self.events)

    # ---- event sets
    def _set(self, pred: Callable[[Event], bool]) -> int:
        s = 0
        for i, e in enumerate(self.events):
            if pred(e):
                s |= 1 << i
        return s

    def _scan(self) -> tuple[_Groups, list[int | None]]:
        """The events of each kind, thread (init events: thread -1), location, fence kind
        and annotation (the sets and relations below are made from them), and the
        position of each thread's first event (None: it has none), in one pass that
        checks each thread's events come in order."""
        base: list[int | None] = [None] * self.nthreads
        kinds: dict[str, int] = {}
        threads: dict[int, int] = {}
        locs: dict[str, int] = {}
        fences: dict[str, int] = {}
        annotated: dict[str, int] = {}
        bit = 1
        # (the fields by position: a named tuple's attributes cost more to read)
        for i, e in enumerate(self.events):
            kind, tid, index, _, loc, _, fence, annots = e[:8]
            kinds[kind] = kinds.get(kind, 0) | bit
            threads[tid] = threads.get(tid, 0) | bit
            if tid >= 0:
                b = base[tid]
                if b is None:
                    b = base[tid] = i
                if i != b + index:
                    raise ValueError(f"event {e} is at position {i}: a thread's events in order")
            if loc is not None and (kind == "R" or kind == "W" or kind == "U"):
                locs[loc] = locs.get(loc, 0) | bit
            elif kind == "F" and fence is not None:
                fences[fence] = fences.get(fence, 0) | bit
            if annots:
                for name in annots:
                    annotated[name] = annotated.get(name, 0) | bit
            bit <<= 1
        return _Groups(kinds, threads, locs, fences, annotated), base

    @cached
    def _instances(self) -> dict[tuple[int, int], int]:
        """The events of each instruction instance (thread, ``poi``) of a thread."""
        instances: dict[tuple[int, int], int] = {}
        bit = 1
        for key in map(_TID_POI, self.events):
            if key[0] >= 0:
                instances[key] = instances.get(key, 0) | bit
            bit <<= 1
        return instances

    def _kind(self, kind: str) -> int:
        return self._groups.kinds.get(kind, 0)

    @cached
    def BCC(self) -> int:
        """The commits of conditional branches (herd's ``bcc``), not those of a predicate
        (herd's ``pred``: an AArch64 CAS's comparison, its text in ``fence``)."""
        return self._set(lambda e: e.kind == "B" and e.fence is None)

    @cached
    def nops(self) -> int:
        """Events with no action (herd's NoAction: an AArch64 jump or nop)."""
        return self._kind("N")

    def fence_set(self, kind: str) -> int:
        return self.fences.get(kind, 0)

    def annot_set(self, name: str) -> int:
        return self.annotated.get(name, 0)

    @property
    def fences(self) -> dict[str, int]:
        """The fence events of each kind."""
        return self._groups.fences

    @property
    def annotated(self) -> dict[str, int]:
        """The events carrying each annotation."""
        return self._groups.annotated

    @cached
    def locations(self) -> list[str]:
        """Memory locations, sorted by name."""
        return sorted({e.loc for e in self.events if e.loc is not None})

    @cached
    def by_loc(self) -> dict[str, int]:
        """Memory events of each location, as event sets."""
        return self._groups.locs

    @cached
    def writes_by_loc(self) -> dict[str, int]:
        return {x: s & self.W for x, s in self.by_loc.items()}

    @cached
    def init_write(self) -> dict[str, int]:
        """The initial write event of each location."""
        return {e.loc: i for i, e in enumerate(self.events) if e.tid < 0 and e.loc is not None}

    # ---- static relations
    @cached
    def _frame(self) -> dict[str, int]:
        """The relations of this skeleton's frame computed so far: po, int, ext,
        same-instance and iico depend only on its events' threads and instruction
        instances (and the row stride), and skeletons of a campaign's tests repeat frames,
        so they share these (a skeleton with spawns or joins keeps its own)."""
        events = self.events
        kinds = self._groups.kinds
        if "S" in kinds or "J" in kinds:
            return {}
        key = (self.U.cap, tuple(map(_TID, events)), tuple(map(_POI, events)))
        got = _FRAMES.get(key)
        if got is None:
            if len(_FRAMES) >= MAX_FRAMES:
                _FRAMES.clear()
            got = _FRAMES[key] = self._whole_frame()
        return got

    def _whole_frame(self) -> dict[str, int]:
        """The relations of a frame without spawns or joins, all at once: ``int_`` and
        ``ext`` from the threads, ``same_instance`` from the instruction instances,
        ``iico`` its pairs in order and, when each instance's events are consecutive (an
        instance then ends where the next begins), ``po`` the pairs in order of one
        thread and different instances."""
        U = self.U
        product = U.product
        int_ = grouped = 0  # grouped: pairs of one thread, the init events one group
        for tid, s in self._groups.threads.items():
            p = product(s, s)
            grouped |= p
            if tid >= 0:
                int_ |= p
        same = alone = 0
        consecutive = True
        for s in self._instances.values():
            if s & (s - 1):
                same |= product(s, s)
                if (s + (s & -s)) & s:  # a gap between its events
                    consecutive = False
            else:
                alone |= s
        same |= U.ident(alone)
        upper = U.upper()
        po = int_ & upper & ~same if consecutive else self._po_of_frame()
        return {
            "po": po,
            "int_": int_,
            "ext": U.FULL & ~grouped,
            "same_instance": same,
            "iico": same & upper,
        }

    def frame_relations(self) -> dict[str, int]:
        """The relations of this skeleton's frame computed so far, by attribute name
        (``po``, ``int_``, ``ext``, ``same_instance``, ``iico``): read, never written."""
        return self._frame

    def _framed(self, name: str, make: Callable[[], int]) -> int:
        """Relation ``name`` of this skeleton's frame (``make()`` the first time)."""
        frame = self._frame
        got = frame.get(name)
        if got is None:
            got = frame[name] = make()
        return got

    @cached
    def po(self) -> int:
        """Program order: strict, per thread, between different instruction instances,
        and across threads along spawns and joins (as GenMC's ``po``).

        As herd's ``po``: the events of one instruction instance (one ``poi`` of a thread,
        e.g. the read and the write of an X86 ``XCHG``) are not po-related (see
        :attr:`iico`); init events are in no thread.  A spawn event comes po-before every
        event of the thread it starts, a join event po-after every event of the thread it
        waits for, transitively."""
        return self._framed("po", self._po_of_frame)

    def _po_of_frame(self) -> int:
        """:attr:`po`, computed."""
        r, spawns = self._thread_po
        if not spawns:
            return r
        U = self.U
        groups: dict[int, int] = {}
        for i, e in enumerate(self.events):
            if e.tid >= 0:
                groups[e.tid] = groups.get(e.tid, 0) | (1 << i)
        for i in spawns:
            e = self.events[i]
            other = groups.get(e.other, 0)
            if not other:
                continue
            if e.kind == "S":
                r |= U.product(1 << i, other)
            else:
                r |= U.product(other, 1 << i)
        return U.plus(r)

    @property
    def thread_po(self) -> int:
        """Program order inside each thread only (see :attr:`po`)."""
        return self._thread_po[0]

    @cached
    def _thread_po(self) -> tuple[int, list[int]]:
        """:attr:`thread_po`, and the spawn and join events (one pass)."""
        spawns = []
        cols = [0] * len(self.events)  # per event: its po-predecessors in its thread
        # per thread met: the events of its earlier instances, its current instance and
        # that instance's events so far (the thread at hand's in locals: threads' events
        # come one thread after the other)
        saved: dict[int, tuple[int, int, int]] = {}
        tid, before, inst, same = -1, 0, -1, 0
        for i, e in enumerate(self.events):
            if e.tid < 0:
                continue
            if e.tid != tid:
                if tid >= 0:
                    saved[tid] = (before, inst, same)
                tid = e.tid
                before, inst, same = saved.get(tid, (0, -1, 0))
            if e.kind == "S" or e.kind == "J":
                spawns.append(i)
            if e.poi != inst:
                before |= same
                inst = e.poi
                same = 0
            cols[i] = before
            same |= 1 << i
        return (self.U.from_columns(cols) if any(cols) else 0), spawns

    @cached
    def iico(self) -> int:
        """Order inside one instruction instance (herd's intra-instruction causality
        restricted to the events we keep): its events in order, e.g. the read before the
        write of a read-modify-write."""
        return self._framed("iico", self._iico_of_frame)

    def _iico_of_frame(self) -> int:
        """:attr:`iico`, computed."""
        cols = [0] * len(self.events)  # per event: the earlier events of its instance
        earlier: dict[tuple[int, int], int] = {}
        for i, e in enumerate(self.events):
            if e.tid < 0:
                continue
            key = (e.tid, e.poi)
            b = earlier.get(key, 0)
            cols[i] = b
            earlier[key] = b | (1 << i)
        return self.U.from_columns(cols) if any(cols) else 0

    @cached
    def iico_order(self) -> int:
        """herd's ``iico_order``: the two accesses of a pair its instruction orders, the
        first issued before the second (``M.seq_mem``: AArch64's ``LDIAPP`` reads, both
        ``Q``, and ``STILP`` writes, both ``L``; no other instruction has two such)."""
        cols = [0] * len(self.events)
        earlier: dict[tuple[int, int, str], int] = {}
        for i, e in enumerate(self.events):
            kind = "Q" if e.kind == "R" else "L" if e.kind == "W" else ""
            if e.tid < 0 or not kind or kind not in e.annots:
                continue
            key = (e.tid, e.poi, kind)
            cols[i] = earlier.get(key, 0)
            earlier[key] = cols[i] | (1 << i)
        return self.U.from_columns(cols) if any(cols) else 0

    @cached
    def po_iico(self) -> int:
        """po | iico: herd's ``po_iico``, the order its ``pco`` and ``pos`` are built on."""
        return self.po | self.iico

    @cached
    def same_instance(self) -> int:
        """Pairs of events of one instruction instance, reflexive (init events: none)."""
        return self._framed("same_instance", self._same_instance_of_frame)

    def _same_instance_of_frame(self) -> int:
        """:attr:`same_instance`, computed."""
        U = self.U
        r = 0
        alone = 0  # the events alone in their instance: their pairs are identity's
        for s in self._instances.values():
            if s & (s - 1):
                r |= U.product(s, s)
            else:
                alone |= s
        return r | U.ident(alone)

    @cached
    def loc(self) -> int:
        """Same location (reflexive on memory events, and on the events with a location
        that are no memory access: herd's lock and SRCU events, kind ``K``); register
        events of one register of one thread share a location too (herd's ``loc`` with
        register events)."""
        product = self.U.product
        groups = self._groups.locs
        others = self._groups.kinds.get("K", 0)
        if others:
            groups = dict(groups)
            for i in bits(others):
                e = self.events[i]
                if e.loc is not None:
                    groups[e.loc] = groups.get(e.loc, 0) | (1 << i)
        r = 0
        for s in groups.values():
            r |= product(s, s)
        if self.has_regs:
            for s in self.by_reg.values():
                r |= product(s, s)
        return r

    # ---- register events (herd's catdep view: engine.semantics.regevents)
    @cached
    def by_reg(self) -> dict[tuple[int, str], int]:
        """The register events of each (thread, register)."""
        out: dict[tuple[int, str], int] = {}
        if not self.has_regs:
            return out
        for i, e in enumerate(self.events):
            if e.reg is not None:
                key = (e.tid, e.reg)
                out[key] = out.get(key, 0) | (1 << i)
        return out

    @cached
    def rf_reg(self) -> int:
        """herd's ``rf-reg``: each register read from the last write of its register by
        an earlier instruction of its thread (none for a read of the initial value)."""
        U = self.U
        r = 0
        last: dict[tuple[int, str], int] = {}
        pending: list[tuple[tuple[int, str], int]] = []  # this instruction's writes
        inst = (-2, -2)
        for i, e in enumerate(self.events):
            if e.reg is None:
                continue
            if (e.tid, e.poi) != inst:
                for key, w in pending:
                    last[key] = w
                pending = []
                inst = (e.tid, e.poi)
            key = (e.tid, e.reg)
            if e.kind == "Rreg":
                src = last.get(key)
                if src is not None:
                    r |= U.pair(src, i)
            else:
                pending.append((key, i))
        return r

    def _iico(self, field: str) -> int:
        """The intra-instruction relation the events declare in ``field`` (masks of
        earlier positions of their thread, like the dependencies)."""
        return self._dep([getattr(e, field) for e in self.events])

    @cached
    def iico_data(self) -> int:
        """herd's ``iico_data``: as the events declare it when they do (register
        events), else the order inside each instruction instance (:attr:`iico`)."""
        if self.has_regs:
            return self._iico("iico")
        return self.iico

    @cached
    def iico_ctrl(self) -> int:
        """herd's ``iico_ctrl`` (as the events declare it; none without register
        events)."""
        return self._iico("iico_ctrl") if self.has_regs else 0

    @cached
    def reg_events(self) -> int:
        """herd's register events (``Rreg`` and ``Wreg``), as a set."""
        return self._set(lambda e: e.reg is not None)

    @cached
    def has_regs(self) -> bool:
        """Whether the events include herd's register events."""
        return not _NO_REG.issuperset(map(_REG, self.events))

    @cached
    def int_(self) -> int:
        """Same thread, reflexive on thread events; init events are in no thread, so they
        are related to nothing, not even themselves (herd's ``same_proc_not_init``)."""
        return self._framed("int_", self._int_of_frame)

    def _int_of_frame(self) -> int:
        """:attr:`int_`, computed."""
        product = self.U.product
        r = 0
        for tid, s in self._groups.threads.items():
            if tid >= 0:
                r |= product(s, s)
        return r

    @cached
    def ext(self) -> int:
        """Different threads; the init writes form one group of their own."""
        return self._framed("ext", self._ext_of_frame)

    def _ext_of_frame(self) -> int:
        """:attr:`ext`, computed."""
        U = self.U
        same = 0
        for s in self._groups.threads.values():
            same |= U.product(s, s)
        return U.FULL & ~same

    def thread_events(self, tid: int) -> list[int]:
        return [i for i, e in enumerate(self.events) if e.tid == tid]

    def co_order(self, co: int, loc: str) -> list[int]:
        """The writes of ``loc`` in the order of ``co`` (total on them)."""
        ws = list(bits(self.writes_by_loc.get(loc, 0)))
        U, W = self.U, self.W
        return sorted(ws, key=lambda w: bin(U.col(co, w) & W).count("1"))
