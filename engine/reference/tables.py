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
from typing import Any

from herdsman.engine.conditions import needed_locations
from herdsman.engine.reference.skeletons import BuiltSkeleton
from herdsman.engine.semantics.enumerate import ThreadExec, ThreadsResult
from herdsman.graphs.relalg import bits
from herdsman.litmus.base.ir import Loc, MemLoc, Prop, RegLoc, Value


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
        self.tid_of = [e.tid for e in events]
        self.wconst: dict[int, Value | None] = {}
        self.wvals: dict[int, list[Value]] = {}
        self.rmask: dict[int, dict[Value, int]] = {}
        self.rvals: dict[int, list[Value]] = {}
        wconst, wvals, rmask, rvals = self.wconst, self.wvals, self.rmask, self.rvals
        known: Any  # a value of an enumerated thread's event (known)
        for eid in lay.init_eid.values():
            wconst[eid] = events[eid].known_value
        for t, vs in enumerate(variants):
            b = lay.base[t]
            if len(vs) == 1:  # one execution: every value is known and constant
                for i, e in enumerate(vs[0].events):
                    kind = e.kind
                    if kind == "W":
                        known = e.value
                        wconst[b + i] = known
                    elif kind == "R":
                        known = e.value
                        rmask[b + i] = {known: 1}
                        rvals[b + i] = [known]
                continue
            # per position, its event in each variant (an enumerated thread's values are
            # known)
            for i, col in enumerate(zip(*[v.events for v in vs], strict=True)):
                kind = col[0].kind
                if kind == "W":
                    vals: list = [e.value for e in col]
                    first = vals[0]
                    if vals.count(first) == len(vals):
                        wconst[b + i] = first
                    else:
                        wconst[b + i] = None
                        wvals[b + i] = vals
                elif kind == "R":
                    m: dict[Value, int] = {}
                    rv: list = [e.value for e in col]
                    for k, val in enumerate(rv):
                        m[val] = m.get(val, 0) | (1 << k)
                    rmask[b + i] = m
                    rvals[b + i] = rv
        # locations and their events
        self.loc_names = sorted(lay.init_eid)  # sk.locations: each has its initial write
        self.loc_index = {x: i for i, x in enumerate(self.loc_names)}
        cap = self.U.cap
        self.loc_writes: list[list[int]] = []
        self.loc_reads: list[list[int]] = []
        self.loc_init: list[int] = []
        by_loc = sk.by_loc
        plain_w = sk.W & ~sk.R & ~sk.IW  # the threads' writes (not read-modify-writes)
        plain_r = sk.R & ~sk.W
        for x in self.loc_names:
            self.loc_init.append(lay.init_eid[x])
            s = by_loc.get(x, 0)
            self.loc_writes.append(list(bits(s & plain_w)))
            self.loc_reads.append(list(bits(s & plain_r)))
        # rf candidates of each read: (write, rf bit, constant value or None, writer thread)
        # rf candidates of each read: (write, rf bit, mask of the read's thread executions
        # reading its value if it is a constant, else None, writer thread); constant
        # writes of a value the read never takes are left out
        # a read never reads from the write of its own instruction (herd's default
        # ``-optace iico``: no rf against intra-instruction order)
        self.cands: dict[int, list[tuple[int, int, int | None, int]]] = {}
        cands, tid_of = self.cands, self.tid_of
        program = self.threads.program
        for li in range(len(self.loc_names)):
            srcs = [self.loc_init[li], *self.loc_writes[li]]
            if not program.initially_written(self.loc_names[li]):
                del srcs[0]  # herd's test: no initial write to read from
            for r in self.loc_reads[li]:
                rm = rmask[r]
                out = []
                er = events[r]
                tid, poi = er.tid, er.poi
                for w in srcs:
                    ew = events[w]
                    if ew.tid == tid and ew.poi == poi:
                        continue
                    cw = wconst[w]
                    mk = None if cw is None else rm.get(cw, 0)
                    if mk != 0:
                        out.append((w, 1 << (w * cap + r), mk, tid_of[w]))
                cands[r] = out
        self.valdep = sk.valdep
        self.vd_rng = self.U.range(sk.valdep) if sk.valdep else 0
        # observed locations (and those of the filter) -> how to get their final value
        needed = self.needed = needed_locations(self.observed, self.filter)
        self.nobs = len(self.observed)
        self.getters: list[tuple[str, int, Any]] = []
        regtabs: list[list[tuple[Value, ...]]] = []
        regnames: list[list[str]] = [[] for _ in variants]
        for loc in needed:
            if isinstance(loc, RegLoc) and 0 <= loc.tid < len(variants):
                names = regnames[loc.tid]
                if loc.reg not in names:
                    names.append(loc.reg)
                self.getters.append(("r", loc.tid, names.index(loc.reg)))
            elif isinstance(loc, MemLoc) and loc.name in self.loc_index:
                self.getters.append(("m", self.loc_index[loc.name], None))
            else:
                self.getters.append(("c", 0, self.threads.initial_value(loc)))
        for t, vs in enumerate(variants):
            names = regnames[t]
            regtabs.append([v.regs_of(names) for v in vs] if names else [()] * len(vs))
        self.regtabs = regtabs
        # observed memory locations (generic mode: the only ones with a final-write choice)
        self.observed_locs = {
            self.loc_index[loc.name]
            for loc in self.observed
            if isinstance(loc, MemLoc) and loc.name in self.loc_index
        }
        self.loop_variant = [[v.loop for v in vs] for vs in variants]
        #: some thread execution hit the unrolling bound
        self.loops = any(map(any, self.loop_variant))
        #: herd's bound marks Loop; GenMC's ends a thread, the execution counts
        self.loop_marks = self.threads.program.loop_bound == "cut"
        self.final_locs = sorted({a for kind, a, _ in self.getters if kind == "m"})
        # the final state in one go: the registers of each thread's execution, then the
        # final writes' values, then the constants, picked in the getters' order
        offsets = [0]
        for names in regnames:
            offsets.append(offsets[-1] + len(names))
        consts = [b for kind, _, b in self.getters if kind == "c"]
        self.consts: tuple[Value, ...] = tuple(consts)
        picks = []
        nconst = 0
        for kind, a, b in self.getters:
            if kind == "r":
                picks.append(offsets[a] + b)
            elif kind == "m":
                picks.append(offsets[-1] + self.final_locs.index(a))
            else:
                picks.append(offsets[-1] + len(self.final_locs) + nconst)
                nconst += 1
        self.pick: Callable[[list[Value]], tuple[Value, ...]] = _picker(picks)
        # without writes whose value varies, every read pins its thread's execution
        self.simple = not self.wvals


def _picker(positions: list[int]) -> Callable[[list[Value]], tuple[Value, ...]]:
    """The tuple of the items at ``positions`` of a list."""
    if len(positions) > 1:
        return itemgetter(*positions)
    if positions:
        i = positions[0]
        return lambda values: (values[i],)
    return lambda values: ()
