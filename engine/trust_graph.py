"""The execution graph TruSt grows and restricts: events in addition order, rf, co.

Events have fixed ids: the initial write of location ``l`` is ``l``; event ``i`` of thread
``t`` is ``base[t] + i`` (room is reserved for the longest execution of each thread), so
ids survive additions and deletions.  Per event the graph keeps its *stamp* (when it was
added: TruSt's "added before" order), where it reads from (reads), whether it was added
*maximally* (a read from the co-latest write, a write placed co-last: TruSt's maximality
condition) and whether it may still be deleted by a revisit (events of the porf-prefix of
a write that revisited a read may not: they become *stable*).  ``co`` lists, per
location, the writes after its initial write in coherence order.

Forward steps mutate the graph and undo themselves (``add_read``/``add_write``/
``add_other``, then ``pop``); a backward revisit builds a restricted copy (``revisit``),
in which the revisited read counts as added maximally when it reads from the co-latest
write.  Memory stays polynomial: a graph is a handful of lists of the program's size.
"""

from __future__ import annotations

from herdsman.engine.trust_program import Program, Segment, Step
from herdsman.litmus.ir import Value

INIT = -1  # thread id of initial writes


class TGraph:
    """A TruSt execution graph over the threads of ``prog`` (see the module docstring)."""

    __slots__ = (
        "prog",
        "T",
        "L",
        "base",
        "tid",
        "idx",
        "n",
        "path",
        "step",
        "stamp",
        "rf",
        "val",
        "addedmax",
        "revisitable",
        "co",
        "rl",
        "clock",
        "cstate",
    )

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.T = prog.nthreads
        self.L = len(prog.locations)
        base = []
        size = self.L
        for m in prog.max_len:
            base.append(size)
            size += m
        self.base = base
        self.tid = [INIT] * self.L
        self.idx = list(range(self.L))
        for t, m in enumerate(prog.max_len):
            self.tid += [t] * m
            self.idx += list(range(m))
        self.n = [0] * self.T
        self.path: list[list[Segment]] = [[root] for root in prog.roots]
        self.step: list[Step | None] = [None] * size
        self.stamp = [0] * size
        self.rf = [-1] * size
        self.val: list[Value | None] = [None] * size
        for li, x in enumerate(prog.locations):
            self.val[li] = prog.init_mem.get(x, 0)
        self.addedmax = [True] * size
        self.revisitable = [True] * size
        self.co: list[list[int]] = [[] for _ in range(self.L)]
        self.rl: list[list[int]] = [[] for _ in range(self.L)]  # reads of each location
        self.clock = 1
        self.cstate: object = None  # the consistency checker's state for this graph

    # ------------------------------------------------------------------ copying
    def copy(self) -> TGraph:
        g = TGraph.__new__(TGraph)
        g.prog, g.T, g.L, g.base, g.tid, g.idx = (
            self.prog,
            self.T,
            self.L,
            self.base,
            self.tid,
            self.idx,
        )
        g.n = self.n[:]
        g.path = [p[:] for p in self.path]
        g.step = self.step[:]
        g.stamp = self.stamp[:]
        g.rf = self.rf[:]
        g.val = self.val[:]
        g.addedmax = self.addedmax[:]
        g.revisitable = self.revisitable[:]
        g.co = [c[:] for c in self.co]
        g.rl = [c[:] for c in self.rl]
        g.clock = self.clock
        g.cstate = None
        return g

    # ------------------------------------------------------------------ threads
    def next_step(self, t: int) -> Step | None:
        """The next event of thread ``t``, or None when it is finished or blocked."""
        seg = self.path[t][-1]
        k = self.n[t] - seg.start
        if k < len(seg.steps):
            return seg.steps[k]
        return None

    def blocked(self, t: int) -> bool:
        return self.path[t][-1].blocked

    def next_thread(self) -> int:
        """The leftmost thread with a next event (TruSt's deterministic choice), or -1."""
        for t in range(self.T):
            if self.next_step(t) is not None:
                return t
        return -1

    def events(self) -> list[int]:
        """Ids of the thread events present, thread by thread."""
        out = []
        for t in range(self.T):
            b = self.base[t]
            out.extend(range(b, b + self.n[t]))
        return out

    def loc(self, e: int) -> int:
        """Location index of a memory event."""
        if e < self.L:
            return e
        return self.prog.loc_index[self.step[e].ev.loc]  # type: ignore[union-attr,index]

    # ------------------------------------------------------------------ adding
    def _append(self, t: int, step: Step, maximal: bool) -> int:
        """Give ``step`` the next event id of thread ``t``, stamped now; that id."""
        e = self.base[t] + self.n[t]
        self.n[t] += 1
        self.step[e] = step
        self.stamp[e] = self.clock
        self.clock += 1
        self.addedmax[e] = maximal
        self.revisitable[e] = True
        return e

    def add_read(self, t: int, step: Step, w: int, maximal: bool) -> None:
        """Add ``step`` (a read) to thread ``t``, reading from write ``w``."""
        e = self._append(t, step, maximal)
        self.rf[e] = w
        v = self.val[w]
        self.val[e] = v
        self.rl[self.prog.loc_index[step.ev.loc]].append(e)  # type: ignore[index]
        seg = self.path[t][-1]
        self.path[t].append(seg.child(v))  # type: ignore[arg-type]

    def add_write(self, t: int, step: Step, pos: int, li: int) -> None:
        """Add ``step`` (a write to location ``li``) to thread ``t`` at co position ``pos``
        (0: right after the initial write)."""
        co = self.co[li]
        e = self._append(t, step, pos == len(co))
        self.val[e] = step.ev.value
        co.insert(pos, e)

    def add_other(self, t: int, step: Step) -> None:
        """Add a fence or branch event."""
        self._append(t, step, True)

    def pop(self, t: int) -> None:
        """Undo the last addition, which was to thread ``t``."""
        e = self.base[t] + self.n[t] - 1
        st = self.step[e]
        assert st is not None
        kind = st.ev.kind
        if kind == "R":
            self.path[t].pop()
            self.rf[e] = -1
            self.rl[self.prog.loc_index[st.ev.loc]].pop()  # type: ignore[index]
        elif kind == "W":
            self.co[self.prog.loc_index[st.ev.loc]].remove(e)  # type: ignore[index]
        self.step[e] = None
        self.n[t] -= 1
        self.clock -= 1

    # ------------------------------------------------------------------ prefixes
    def porf_view(self, e: int) -> list[int]:
        """The porf-prefix of ``e`` (e included): per thread, how many of its first
        events belong to it."""
        view = [0] * self.T
        todo = [e]
        base, tid, idx, rf, L = self.base, self.tid, self.idx, self.rf, self.L
        while todo:
            x = todo.pop()
            if x < L:
                continue
            t = tid[x]
            upto = idx[x] + 1
            have = view[t]
            if upto <= have:
                continue
            b = base[t]
            for j in range(b + have, b + upto):
                r = rf[j]
                if r >= L:
                    todo.append(r)
            view[t] = upto
        return view

    def in_view(self, e: int, view: list[int]) -> bool:
        return e < self.L or self.idx[e] < view[self.tid[e]]

    # ------------------------------------------------------------------ revisits
    def kept_view(self, r: int, wview: list[int]) -> list[int]:
        """Events a backward revisit of read ``r`` keeps: those added no later than ``r``
        and the porf-prefix ``wview`` of the revisiting write (per thread, a count)."""
        s = self.stamp[r]
        out = []
        for t in range(self.T):
            b = self.base[t]
            k = self.n[t]
            while k and self.stamp[b + k - 1] > s:
                k -= 1
            out.append(max(k, wview[t]))
        return out

    def revisit(self, r: int, w: int, kept: list[int], wview: list[int]) -> TGraph:
        """The graph where read ``r`` reads from write ``w``, restricted to ``kept``;
        the porf-prefix ``wview`` of ``w`` becomes stable (no later revisit deletes it)."""
        g = self.copy()
        for t in range(g.T):
            m = kept[t]
            if m < g.n[t]:
                g.truncate(t, m)
        for li in range(g.L):
            co = g.co[li]
            if co:
                g.co[li] = [x for x in co if g.idx[x] < kept[g.tid[x]]]
            rl = g.rl[li]
            if rl:
                g.rl[li] = [x for x in rl if g.idx[x] < kept[g.tid[x]]]
        g.rf[r] = w
        v = g.val[w]
        g.val[r] = v
        # r now reads from a write of its past (in the graph's "added before" sense: all
        # that is left was added before r or is in w's prefix): maximal iff co-latest
        g.addedmax[r] = g.co[g.loc(w)][-1] == w
        t = g.tid[r]
        path = g.path[t]
        # r is the last event kept in its thread and the last of its segment
        path.pop()
        path.append(path[-1].child(v))  # type: ignore[arg-type]
        for t2 in range(g.T):
            b = g.base[t2]
            for j in range(b, b + wview[t2]):
                g.revisitable[j] = False
        return g

    def truncate(self, t: int, m: int) -> None:
        """Keep the first ``m`` events of thread ``t`` (rf/co entries of the others are
        left for the caller to drop)."""
        b = self.base[t]
        for j in range(b + m, b + self.n[t]):
            self.step[j] = None
            self.rf[j] = -1
        self.n[t] = m
        path = self.path[t]
        while path[-1].start > m:  # a segment starts once the read before it is kept
            path.pop()

    # ------------------------------------------------------------------ reading
    def reads_of(self, li: int) -> list[int]:
        """Reads of location ``li`` present, in the order they were added."""
        return self.rl[li]

    def shape_key(self) -> tuple[int, ...]:
        """Per thread, the shape id of its present prefix (see ``Program.skeleton``)."""
        out = []
        for t in range(self.T):
            k = self.n[t]
            out.append(self.step[self.base[t] + k - 1].shape if k else 0)  # type: ignore[union-attr]
        return tuple(out)

    def encode(self) -> tuple[tuple[int, ...], int, int, list[int], int]:
        """(shape key, rf, co, offsets, size): rf and co as relations of the skeleton of
        the shape key (``Program.skeleton``: initial writes, then thread by thread; event
        ``e`` of thread ``t`` is number ``e + offsets[t]``)."""
        L, T, n, base, tid, step = self.L, self.T, self.n, self.base, self.tid, self.step
        off = []
        key = []
        o = L
        for t in range(T):
            off.append(o - base[t])
            k = n[t]
            key.append(step[base[t] + k - 1].shape if k else 0)  # type: ignore[union-attr]
            o += k
        size = o
        rf = 0
        rfl = self.rf
        for t in range(T):
            b = base[t]
            ot = off[t]
            for j in range(b, b + n[t]):
                w = rfl[j]
                if w >= 0:
                    cw = w if w < L else w + off[tid[w]]
                    rf |= 1 << (cw * size + j + ot)
        co = 0
        for li in range(L):
            ws = self.co[li]
            if not ws:
                continue
            later = 0
            for w in reversed(ws):  # row of each write: the writes after it
                x = w + off[tid[w]]
                if later:
                    co |= later << (x * size)
                later |= 1 << x
            co |= later << (li * size)  # the initial write comes first
        return tuple(key), rf, co, off, size

    def final_execs(self) -> list:
        """The thread executions of a finished graph (None for a blocked thread)."""
        return [p[-1].final for p in self.path]
