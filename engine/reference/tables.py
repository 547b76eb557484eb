"""Per-skeleton tables of the reference explorer: who may read from whom, with what value.

For one combination of thread-execution shapes (one skeleton), the thread executions of
each thread differ only by values.  :class:`Tables` numbers them per thread and records,
as bitmasks over those numbers, which executions give each read each value, which writes
have a constant value, the rf candidates of each read, and how to compute the observed
final state from the chosen executions and final writes.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any, NamedTuple

from herdsman.engine.conditions import needed_locations
from herdsman.engine.reference.skeletons import BuiltSkeleton
from herdsman.engine.semantics.enumerate import ThreadExec, ThreadsResult
from herdsman.graphs.events import Event
from herdsman.graphs.relalg import bits
from herdsman.litmus.base.ir import Loc, MemLoc, Program, Prop, RegLoc, Value

_TID, _POI, _VALUE = (itemgetter(Event._fields.index(f)) for f in ("tid", "poi", "value"))


class Tables:
    """Tables of one skeleton (``lay``) whose thread ``t`` may run ``variants[t]``."""

    def __init__(
        self,
        threads: ThreadsResult,
        variants: list[list[ThreadExec]],
        lay: BuiltSkeleton,
        observed: list[Loc],
        filter: Prop | None,
    ) -> None:
        self.threads = threads
        self.variants = variants
        self.lay = lay
        self.U = lay.sk.U
        self.observed = observed
        self.filter = filter
        self._tables(lay)

    def _tables(self, lay: BuiltSkeleton) -> None:
        """Value masks, rf candidates, and final-state getters."""
        sk = lay.sk
        events = sk.events
        variants = self.variants
        # (events' fields by position: a named tuple's attributes cost more to read)
        self.tid_of = tid_of = list(map(_TID, events))
        self.wconst: dict[int, Value | None] = {}
        self.wvals: dict[int, list[Value]] = {}
        self.rmask: dict[int, dict[Value, int]] = {}
        self.rvals: dict[int, list[Value]] = {}
        wconst, wvals, rmask, rvals = self.wconst, self.wvals, self.rmask, self.rvals
        known: Any  # a value of an enumerated thread's event (known)
        init_eid = lay.init_eid
        for eid in init_eid.values():  # (an initial write's value is known)
            known = events[eid][5]
            wconst[eid] = known
        base = lay.base
        # per thread, its executions' tables (by position in the thread), shared with
        # the tests that ran the same thread (see _thread_table)
        per_thread = [_thread_table(vs) for vs in variants]
        for b, tt in zip(base, per_thread, strict=True):
            for i, c, vals in tt.writes:
                wconst[b + i] = c
                if vals is not None:
                    wvals[b + i] = vals
            for i, m, rv in tt.reads:
                rmask[b + i] = m
                rvals[b + i] = rv
        # locations and their events
        self.loc_names = loc_names = sorted(init_eid)  # each has its initial write
        cap = self.U.cap
        self.loc_writes: list[list[int]] = []
        self.loc_reads: list[list[int]] = []
        self.loc_init: list[int] = [init_eid[x] for x in loc_names]
        loc_writes, loc_reads, loc_init = self.loc_writes, self.loc_reads, self.loc_init
        by_loc = sk.by_loc
        R, W = sk.R, sk.W
        plain_w = W & ~R & ~sk.IW  # the threads' writes (not read-modify-writes)
        plain_r = R & ~W
        for x in loc_names:
            s = by_loc.get(x, 0)
            sw = s & plain_w
            loc_writes.append(list(bits(sw)) if sw else [])
            sr = s & plain_r
            loc_reads.append(list(bits(sr)) if sr else [])
        # rf candidates of each read: (write, rf bit, mask of the read's thread executions
        # reading its value if it is a constant, else None, writer thread); constant
        # writes of a value the read never takes are left out
        # a read never reads from the write of its own instruction (herd's default
        # ``-optace iico``: no rf against intra-instruction order)
        self.cands: dict[int, list[tuple[int, int, int | None, int]]] = {}
        cands = self.cands
        program = self.threads.program
        poi_of = list(map(_POI, events))
        for li, reads in enumerate(loc_reads):
            if not reads:
                continue
            srcs = [loc_init[li], *loc_writes[li]]
            if not program.initially_written(loc_names[li]):
                del srcs[0]  # herd's test: no initial write to read from
            for r in reads:
                rm = rmask[r]
                out = []
                tid, poi = tid_of[r], poi_of[r]
                for w in srcs:
                    if tid_of[w] == tid and poi_of[w] == poi:
                        continue
                    cw = wconst[w]
                    mk = None if cw is None else rm.get(cw, 0)
                    if mk != 0:
                        out.append((w, 1 << (w * cap + r), mk, tid_of[w]))
                cands[r] = out
        self.valdep = sk.valdep
        self.vd_rng = self.U.range(sk.valdep) if sk.valdep else 0
        plan = _final_plan(program, self.observed, self.filter, len(variants), loc_names)
        self.needed = plan.needed
        self.nobs = len(self.observed)
        self.getters = plan.getters
        self.loc_index = plan.loc_index
        self.observed_locs = plan.observed_locs
        self.final_locs = plan.final_locs
        self.consts = plan.consts
        self.pick = plan.pick
        self.regtabs = [
            tt.regtab(names) if names else [()] * len(tt.execs)
            for tt, names in zip(per_thread, plan.regnames, strict=True)
        ]
        self.loop_variant = [tt.cut for tt in per_thread]  # (ThreadExec.loop of each)
        #: some thread execution hit the unrolling bound
        self.loops = any(tt.loops for tt in per_thread)
        #: herd's bound marks Loop; GenMC's ends a thread, the execution counts
        self.loop_marks = program.loop_bound == "cut"
        # without writes whose value varies, every read pins its thread's execution
        self.simple = not self.wvals


class _ThreadTable:
    """The tables of one thread's executions of one shape, by position in the thread:
    its writes (position, value if the same in every execution else None, and then the
    value in each), its reads (position, the mask of the executions giving each value,
    the value in each), whether each execution hit the unrolling bound, and the final
    values of registers (:meth:`regtab`)."""

    __slots__ = ("execs", "writes", "reads", "cut", "loops", "_regtabs")

    def __init__(self, vs: list[ThreadExec]) -> None:
        self.execs = vs  # (kept alive: the table is known by their identities)
        self.writes: list[tuple[int, Value | None, list[Value] | None]] = []
        self.reads: list[tuple[int, dict[Value, int], list[Value]]] = []
        writes, reads = self.writes, self.reads
        known: Any  # a value of an enumerated thread's event (known)
        if len(vs) == 1:  # one execution: every value is known and constant
            for i, e in enumerate(vs[0].events):
                kind = e[0]
                if kind == "W":
                    known = e[5]
                    writes.append((i, known, None))
                elif kind == "R":
                    known = e[5]
                    reads.append((i, {known: 1}, [known]))
        else:
            # per position, its event in each execution (an enumerated thread's values
            # are known)
            for i, col in enumerate(zip(*[v.events for v in vs], strict=True)):
                kind = col[0][0]
                if kind == "W":
                    vals: list = list(map(_VALUE, col))
                    first = vals[0]
                    if vals.count(first) == len(vals):
                        writes.append((i, first, None))
                    else:
                        writes.append((i, None, vals))
                elif kind == "R":
                    m: dict[Value, int] = {}
                    rv: list = list(map(_VALUE, col))
                    bit = 1
                    for val in rv:
                        m[val] = m.get(val, 0) | bit
                        bit <<= 1
                    reads.append((i, m, rv))
        self.cut = [v.done.cut for v in vs]
        self.loops = any(self.cut)
        self._regtabs: dict[tuple[str, ...], list[tuple[Value, ...]]] = {}

    def regtab(self, names: list[str]) -> list[tuple[Value, ...]]:
        """The final values of registers ``names`` in each execution (:func:`_regtab`)."""
        key = tuple(names)
        got = self._regtabs.get(key)
        if got is None:
            got = self._regtabs[key] = _regtab(self.execs, names)
        return got


#: The tables of a thread's executions of one shape, by the identities of the executions
#: (a campaign's tests share thread runs, see engine.semantics.runcache): at most
#: :data:`MAX_THREAD_TABLES`.
_THREAD_TABLES: dict[tuple[int, ...], _ThreadTable] = {}
MAX_THREAD_TABLES = 4096


def _thread_table(vs: list[ThreadExec]) -> _ThreadTable:
    """The :class:`_ThreadTable` of ``vs`` (remembered)."""
    key = tuple(map(id, vs))
    got = _THREAD_TABLES.get(key)
    if got is None:
        if len(_THREAD_TABLES) >= MAX_THREAD_TABLES:
            _THREAD_TABLES.clear()
        got = _THREAD_TABLES[key] = _ThreadTable(vs)
    return got


def _regtab(vs: list[ThreadExec], names: list[str]) -> list[tuple[Value, ...]]:
    """The final values of registers ``names`` in each execution of ``vs`` (one thread,
    one shape: :meth:`ThreadExec.regs_of` of each, its slots looked up once when the
    executions share them, as a thread's runs do)."""
    slots = vs[0].done.slots
    where: list[Any] = [slots.get(r) for r in names]
    if None in where:
        return [v.regs_of(names) for v in vs]
    out: list[Any] = []  # (enumerated threads: concrete values)
    x: Any
    if len(where) == 1:
        i = where[0]
        for v in vs:
            done = v.done
            if done.slots is not slots:
                return [v.regs_of(names) for v in vs]
            x = done.values[i]
            out.append((0,) if x is None else (x,))
        return out
    get = itemgetter(*where)
    for v in vs:
        done = v.done
        if done.slots is not slots:
            return [v.regs_of(names) for v in vs]
        row = get(done.values)
        out.append(tuple([0 if x is None else x for x in row]) if None in row else row)
    return out


class _FinalPlan(NamedTuple):
    """How to compute the observed final state (the same for every skeleton of a test):
    the locations needed (observed, then the filter's), where each comes from
    (``getters``: a register of a thread, a final write, a constant), the registers of
    each thread to read, and the picker of the final state's values (registers of each
    thread's execution, then the final writes' values, then the constants)."""

    needed: list[Loc]
    getters: list[tuple[str, int, Any]]
    regnames: list[list[str]]
    loc_index: dict[str, int]
    observed_locs: set[int]
    final_locs: list[int]
    consts: tuple[Value, ...]
    pick: Callable[[list[Value]], tuple[Value, ...]]


#: The plan of the test at hand, with what it was made from (its skeletons come one after
#: the other): (program, observed, filter, number of threads, locations), plan.
_LAST_PLAN: list[Any] = [None, None]
#: The plans without constants, by what they are made from but the program (observed,
#: filter, number of threads, locations: the program only gives the constants' values):
#: a campaign's tests share conditions and locations.  At most :data:`MAX_PLANS`.
_PLANS: dict[tuple, _FinalPlan] = {}
MAX_PLANS = 1024


def _final_plan(
    program: Program, observed: list[Loc], filter: Prop | None, nthreads: int, loc_names: list[str]
) -> _FinalPlan:
    """The :class:`_FinalPlan` of a test (the last one's again when its inputs are; one
    made for another program when the plan has no constant, see :data:`_PLANS`)."""
    key = (program, tuple(observed), filter, nthreads, tuple(loc_names))
    last = _LAST_PLAN[0]
    if (
        last is not None
        and last[0] is program
        and last[2] is filter
        and last[1:] == key[1:]  # (filter compared again: by identity first)
    ):
        plan: _FinalPlan = _LAST_PLAN[1]
        return plan
    shared = _PLANS.get(key[1:])
    if shared is not None:
        _LAST_PLAN[0], _LAST_PLAN[1] = key, shared
        return shared
    loc_index = {x: i for i, x in enumerate(loc_names)}
    needed = needed_locations(observed, filter)
    getters: list[tuple[str, int, Any]] = []
    regnames: list[list[str]] = [[] for _ in range(nthreads)]
    for loc in needed:
        if isinstance(loc, RegLoc) and 0 <= loc.tid < nthreads:
            names = regnames[loc.tid]
            if loc.reg not in names:
                names.append(loc.reg)
            getters.append(("r", loc.tid, names.index(loc.reg)))
        elif isinstance(loc, MemLoc) and loc.name in loc_index:
            getters.append(("m", loc_index[loc.name], None))
        else:
            getters.append(("c", 0, program.initial_value(loc)))
    # observed memory locations (generic mode: the only ones with a final-write choice)
    observed_locs = {
        loc_index[loc.name] for loc in observed if isinstance(loc, MemLoc) and loc.name in loc_index
    }
    final_locs = sorted({a for kind, a, _ in getters if kind == "m"})
    # the final state in one go: the registers of each thread's execution, then the
    # final writes' values, then the constants, picked in the getters' order
    offsets = [0]
    for names in regnames:
        offsets.append(offsets[-1] + len(names))
    consts = tuple(b for kind, _, b in getters if kind == "c")
    picks = []
    nconst = 0
    for kind, a, b in getters:
        if kind == "r":
            picks.append(offsets[a] + b)
        elif kind == "m":
            picks.append(offsets[-1] + final_locs.index(a))
        else:
            picks.append(offsets[-1] + len(final_locs) + nconst)
            nconst += 1
    plan = _FinalPlan(
        needed, getters, regnames, loc_index, observed_locs, final_locs, consts, _picker(picks)
    )
    _LAST_PLAN[0], _LAST_PLAN[1] = key, plan
    if not consts:
        if len(_PLANS) >= MAX_PLANS:
            _PLANS.clear()
        _PLANS[key[1:]] = plan
    return plan


def _picker(positions: list[int]) -> Callable[[list[Value]], tuple[Value, ...]]:
    """The tuple of the items at ``positions`` of a list."""
    if len(positions) > 1:
        return itemgetter(*positions)
    if positions:
        i = positions[0]
        return lambda values: (values[i],)
    return lambda values: ()
