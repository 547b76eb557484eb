"""Relation algebra over the events of one execution graph, on Python ints.

Events are numbered 0..n-1.  An *event set* is an int whose bit i is event i.  A
*relation* is an int holding an n x n boolean matrix row-major with a row stride
``cap >= n``: pair (i, j) is bit ``i * cap + j``.  Union, intersection and difference are
single int operations; sequence and closure take one big-int multiply per event (the
"column times row" broadcast), which is what makes this faster than per-row bitsets or
numpy matrices on graphs of 2..200 events (see ``bench/bench_relalg.py``).

Everything is a plain int, hence immutable and hashable: evaluators can memoise on them.
All the operators live on a :class:`Universe`, which holds the constants for one size.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = ["Universe", "members", "bits"]


def bits(x: int) -> Iterator[int]:
    """Indices of the set bits of x, increasing."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def members(s: int) -> list[int]:
    """The events of an event set, increasing."""
    return list(bits(s))


class Universe:
    """Constants and operators for relations over ``n`` events (row stride ``cap``)."""

    __slots__ = ("n", "cap", "ALL", "ROW", "COL0", "ID", "FULL", "_spread_cache")

    def __init__(self, n: int, cap: int | None = None) -> None:
        if cap is None:
            cap = max(n, 1)
        if cap < n:
            raise ValueError("cap must be >= n")
        self.n = n
        self.cap = cap
        self.ALL = (1 << n) - 1  # the set of all events
        self.ROW = self.ALL  # mask of one row (columns 0..n-1)
        self.COL0 = sum(1 << (i * cap) for i in range(n))  # bit 0 of every row
        self.ID = sum(1 << (i * cap + i) for i in range(n))
        self.FULL = self.COL0 * self.ALL
        self._spread_cache: dict[int, int] = {}

    # ----------------------------------------------------------------- conversions
    def spread(self, s: int) -> int:
        """Column indicator of a set: bit ``i*cap`` for each i in s (rows i, column 0)."""
        c = self._spread_cache.get(s)
        if c is None:
            cap = self.cap
            c = 0
            x = s
            while x:
                low = x & -x
                c |= 1 << ((low.bit_length() - 1) * cap)
                x ^= low
            if len(self._spread_cache) < 4096:
                self._spread_cache[s] = c
        return c

    def pair(self, i: int, j: int) -> int:
        return 1 << (i * self.cap + j)

    def from_pairs(self, pairs: Iterable[tuple[int, int]]) -> int:
        cap = self.cap
        r = 0
        for i, j in pairs:
            r |= 1 << (i * cap + j)
        return r

    def pairs(self, r: int) -> list[tuple[int, int]]:
        cap = self.cap
        return [divmod(b, cap) for b in bits(r)]

    def from_set(self, elems: Iterable[int]) -> int:
        s = 0
        for e in elems:
            s |= 1 << e
        return s

    def row(self, r: int, i: int) -> int:
        """Successors of i in r, as an event set."""
        return (r >> (i * self.cap)) & self.ROW

    def col(self, r: int, j: int) -> int:
        """Predecessors of j in r, as an event set."""
        cap = self.cap
        c = (r >> j) & self.COL0
        s = 0
        while c:
            low = c & -c
            s |= 1 << ((low.bit_length() - 1) // cap)
            c ^= low
        return s

    def has(self, r: int, i: int, j: int) -> bool:
        return (r >> (i * self.cap + j)) & 1 == 1

    # ----------------------------------------------------------------- sets -> relations
    def product(self, s1: int, s2: int) -> int:
        """Cartesian product s1 * s2."""
        return self.spread(s1) * s2

    def ident(self, s: int) -> int:
        """Identity restricted to s: [s]."""
        return self.ID & (self.spread(s) * s) if s != self.ALL else self.ID

    def domain(self, r: int) -> int:
        cap, row = self.cap, self.ROW
        s = 0
        i = 0
        while r:
            if r & row:
                s |= 1 << i
            r >>= cap
            i += 1
        return s

    def range(self, r: int) -> int:
        cap, row = self.cap, self.ROW
        s = 0
        while r:
            s |= r & row
            r >>= cap
        return s

    # ----------------------------------------------------------------- relation operators
    def seq(self, r: int, s: int) -> int:
        """Sequence (composition) r ; s."""
        if not r or not s:
            return 0
        cap, col0, row = self.cap, self.COL0, self.ROW
        out = 0
        mids = self.range(r) & self.domain(s)
        while mids:
            low = mids & -mids
            j = low.bit_length() - 1
            mids ^= low
            out |= ((r >> j) & col0) * ((s >> (j * cap)) & row)
        return out

    def inverse(self, r: int) -> int:
        cap, row = self.cap, self.ROW
        out = 0
        i = 0
        while r:
            rw = r & row
            if rw:
                out |= self.spread(rw) << i
            r >>= cap
            i += 1
        return out

    def plus(self, r: int) -> int:
        """Transitive closure r+ (Warshall, one column broadcast per event)."""
        if not r:
            return 0
        cap, col0, row = self.cap, self.COL0, self.ROW
        ks = self.range(r) & self.domain(r)
        while ks:
            low = ks & -ks
            k = low.bit_length() - 1
            ks ^= low
            c = (r >> k) & col0
            if c:
                r |= c * ((r >> (k * cap)) & row)
        return r

    def star(self, r: int) -> int:
        """Reflexive-transitive closure r* (reflexive on all events)."""
        return self.plus(r) | self.ID

    def opt(self, r: int) -> int:
        """r? = r | id."""
        return r | self.ID

    def complement(self, r: int) -> int:
        return self.FULL & ~r

    def set_complement(self, s: int) -> int:
        return self.ALL & ~s

    def restrict(self, r: int, dom: int, rng: int) -> int:
        """r & (dom * rng)."""
        return r & self.product(dom, rng)

    # ----------------------------------------------------------------- tests
    def irreflexive(self, r: int) -> bool:
        return not (r & self.ID)

    def acyclic(self, r: int) -> bool:
        return not (self.plus(r) & self.ID)

    def find_cycle(self, r: int) -> list[int] | None:
        """A cycle of r as a list of events [e0, e1, ..., ek] with e_k r e_0, or None."""
        tc = self.plus(r)
        on_cycle = tc & self.ID
        if not on_cycle:
            return None
        start = (on_cycle.bit_length() - 1) // self.cap
        for b in bits(on_cycle):  # the lowest-numbered event on a cycle
            start = b // self.cap
            break
        # BFS from start back to start along r
        prev: dict[int, int] = {}
        frontier = [start]
        seen = 0
        while frontier:
            nxt = []
            for u in frontier:
                for v in bits(self.row(r, u)):
                    if v == start:
                        path = [u]
                        while path[-1] != start:
                            path.append(prev[path[-1]])
                        path.reverse()
                        return path
                    if not (seen >> v) & 1:
                        seen |= 1 << v
                        prev[v] = u
                        nxt.append(v)
            frontier = nxt
        return None  # pragma: no cover - tc says there is a cycle

    def reflexive_witness(self, r: int) -> int | None:
        d = r & self.ID
        if not d:
            return None
        for b in bits(d):
            return b // self.cap
        return None

    # ----------------------------------------------------------------- orders
    def total_order(self, seq: Iterable[int]) -> int:
        """The strict total order listing ``seq`` first to last."""
        r = 0
        before = 0
        cap = self.cap
        for e in seq:
            r |= self.spread(before) << e if before else 0
            before |= 1 << e
        del cap
        return r

    def resize(self, r: int, other: Universe) -> int:
        """Re-encode relation r of this universe in universe ``other`` (events kept by index)."""
        if other.cap == self.cap:
            return r
        out = 0
        i = 0
        cap, row = self.cap, self.ROW
        while r:
            out |= (r & row) << (i * other.cap)
            r >>= cap
            i += 1
        return out
