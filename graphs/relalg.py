"""Relation algebra over the events of one execution graph, on Python ints.

Events are numbered 0..n-1.  An *event set* is an int whose bit i is event i.  A
*relation* is an int holding an n x n boolean matrix row-major with a row stride
``cap >= n``: pair (i, j) is bit ``i * cap + j``.  Union, intersection and difference are
single int operations; sequence and closure take one big-int multiply per event (the
"column times row" broadcast: no carries can occur since every product bit lands on a
distinct position).  ``bench/bench_relalg.py`` measures this against per-row bitsets and
numpy matrices: it is the fastest of the three on a Power-like model up to about 100
events (litmus tests have 2..40), numpy wins beyond.

Everything is a plain int, hence immutable and hashable: evaluators can memoise on them.
All the operators live on a :class:`Universe`, which holds the constants for one size.

Sequence and closure, the hot operators of herd's POWER campaign (a third of its time),
have a compiled kernel, ``graphs/_relalg.c``, built by ``setup.py`` when a C compiler is
there (9 times faster per call on 20 events); without it, or with
``HERDSMAN_PURE_PYTHON=1`` in the environment, the pure-Python operators below run, with
identical answers (``tests/test_relalg_kernel.py``).  :data:`KERNEL` says which.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

from herdsman.graphs import widerel

try:  # the optional compiled operators (setup.py builds them when it can)
    from herdsman.graphs import _relalg as _kernel
except ImportError:
    _kernel = None  # type: ignore[assignment]  # the optional extension is absent

__all__ = ["Universe", "members", "bits", "KERNEL"]

#: Whether sequence and closure run compiled (see the module docstring).
KERNEL = _kernel is not None and not os.environ.get("HERDSMAN_PURE_PYTHON")

#: Up to this many events, ``domain`` uses one multiplication instead of a row loop.
_MAGIC_DOMAIN_MAX = 48
#: Relations of more bits than this are built by conversions of their text or bytes.
_SMALL_BITS = 1 << 12
#: The most spread sets kept (only for relations of at most 2^16 bits: larger ones would
#: make the cache's memory grow with the square of the graph's size).
_SPREAD_CACHED = 4096


#: The indices of small ints' set bits (event sets of up to 64 events), by value: the
#: same sets come back all through a test, and iterating a tuple costs less than resuming
#: a generator.  Emptied when it reaches ``_BITS_KEPT`` entries.
_BITS: dict[int, tuple[int, ...]] = {}
_BITS_KEPT = 4096


def bits(x: int) -> Iterator[int]:
    """Indices of the set bits of x, increasing."""
    got = _BITS.get(x)
    if got is None:
        if x >> 64:  # (negative or large: a lazy walk, which a caller may stop early)
            return _walk_bits(x)
        got = tuple(_walk_bits(x))
        if len(_BITS) >= _BITS_KEPT:
            _BITS.clear()
        _BITS[x] = got
    return iter(got)


def _walk_bits(x: int) -> Iterator[int]:
    """:func:`bits`, as a generator."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def members(s: int) -> list[int]:
    """The events of an event set, increasing."""
    return list(bits(s))


class Universe:
    """Constants and operators for relations over ``n`` events (row stride ``cap``)."""

    __slots__ = (
        "n",
        "cap",
        "ALL",
        "ROW",
        "COL0",
        "ID",
        "FULL",
        "_spread_cache",
        "_range_steps",
        "_row_fold",
        "_magic",
        "_magic_shift",
        "_upper",
        "wide",
        "seq",
        "plus",
        "inverse",
        "acyclic",
        "domain",
        "range",
        "product",
    )

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
        self._upper: int | None = None
        # range: fold the rows onto row 0, halving the number of rows at each step.
        steps = []
        m = n
        while m > 1:
            h = (m + 1) // 2
            steps.append(((1 << (h * cap)) - 1, h * cap))
            m = h
        self._range_steps = tuple(steps)
        # domain: OR each row onto its column 0 (shifts whose spans add up to n-1) ...
        folds = []
        span = 0
        while span < n - 1:
            step = min(span + 1, n - 1 - span)
            folds.append(step)
            span += step
        self._row_fold = tuple(folds)
        # ... then move bit i*cap to bit i with one multiplication: the product of bit
        # i*cap by the term 2**((n-1-j)*(cap-1)) lands at (n-1)*(cap-1) + (i-j)*cap + j;
        # those positions are pairwise distinct (no carries) and in the window of width n
        # only i == j lands, at offset i.
        self._magic = sum(1 << ((n - 1 - j) * (cap - 1)) for j in range(n))
        self._magic_shift = max(0, (n - 1) * (cap - 1))  # no events: _magic is 0
        #: many events and byte-aligned rows: conversions by bytes (graphs/widerel.py)
        self.wide = n > _MAGIC_DOMAIN_MAX and widerel.wide(n, cap)
        # sequence r ; s, closure r+, inverse and acyclicity: compiled (a C call, no
        # Python frame) or Python
        self.seq: Callable[[int, int], int]
        self.plus: Callable[[int], int]
        self.inverse: Callable[[int], int]
        self.acyclic: Callable[[int], bool]
        self.domain: Callable[[int], int]  # events with a successor in r
        self.range: Callable[[int], int]  # events with a predecessor in r
        #: the cartesian product s1 * s2 of two sets
        self.product: Callable[[int, int], int] = self.product_py
        if KERNEL:  # the kernel's methods, bound to this universe
            k = _kernel.Kernel(n, cap)
            if not self.wide:
                self.product = k.product
            self.seq = k.seq
            self.plus = k.plus
            self.inverse = k.inverse
            self.acyclic = k.acyclic
            self.domain = k.domain
            self.range = k.range
        else:
            self.seq = self.seq_py
            self.plus = self.plus_py
            self.inverse = self.inverse_py
            self.acyclic = self.acyclic_py
            self.domain = self.domain_py
            self.range = self.range_py

    def __getstate__(self) -> tuple[int, int]:
        return (self.n, self.cap)

    def __setstate__(self, state: tuple[int, int]) -> None:
        Universe.__init__(self, *state)

    # ----------------------------------------------------------------- conversions
    def spread(self, s: int) -> int:
        """Column indicator of a set: bit ``i*cap`` for each i in s (rows i, column 0)."""
        if self.wide:
            return widerel.spread(s, self.n, self.cap)
        c = self._spread_cache.get(s)
        if c is None:
            cap = self.cap
            if self.n > _MAGIC_DOMAIN_MAX:  # each bit i as binary digit i * cap, made in C
                digits = format(s, "b")
                return int(("0" * (cap - 1)).join(digits), 2) if s > 0 else 0
            c = 0
            x = s
            while x:
                low = x & -x
                c |= 1 << ((low.bit_length() - 1) * cap)
                x ^= low
            if len(self._spread_cache) < _SPREAD_CACHED and self.n * self.cap <= 1 << 16:
                self._spread_cache[s] = c
        return c

    def pair(self, i: int, j: int) -> int:
        """The relation {(i, j)}."""
        return 1 << (i * self.cap + j)

    def from_pairs(self, pairs: Iterable[tuple[int, int]]) -> int:
        cap = self.cap
        r = 0
        for i, j in pairs:
            r |= 1 << (i * cap + j)
        return r

    def pairs(self, r: int) -> list[tuple[int, int]]:
        """The pairs of r, in increasing (i, j) order."""
        cap = self.cap
        return [divmod(b, cap) for b in bits(r)]

    def from_rows(self, rows: Sequence[int]) -> int:
        """The relation whose row i is the event set ``rows[i]``: one conversion for a large
        universe (a row at a time would cost the relation's size per row)."""
        cap = self.cap
        if self.n * cap <= _SMALL_BITS:
            r = 0
            for i, row in enumerate(rows):
                if row:
                    r |= row << (i * cap)
            return r
        if cap % 8 == 0:
            step = cap >> 3
            return int.from_bytes(b"".join(x.to_bytes(step, "little") for x in rows), "little")
        return int("".join(format(x, "b").zfill(cap) for x in reversed(rows)) or "0", 2)

    def from_columns(self, cols: Sequence[int]) -> int:
        """The relation whose column j is the event set ``cols[j]``."""
        return self.inverse(self.from_rows(cols))

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
        if self.wide:
            return widerel.column(r, j, self.n, self.cap)
        return self.unspread((r >> j) & self.COL0)

    def unspread(self, c: int) -> int:
        """Inverse of :meth:`spread`: the set {i | bit i*cap of c}, c within column 0."""
        if self.n <= _MAGIC_DOMAIN_MAX:
            return ((c * self._magic) >> self._magic_shift) & self.ALL
        if not c:
            return 0
        if self.wide:
            return widerel.unspread(c, self.n, self.cap)
        # large universes: every cap-th binary digit, picked in C (linear in the size of c,
        # where a loop over its bits would cost that size once per bit)
        digits = format(c, "b")[::-1][:: self.cap]
        return int(digits[::-1], 2)

    def has(self, r: int, i: int, j: int) -> bool:
        return (r >> (i * self.cap + j)) & 1 == 1

    def count(self, r: int) -> int:
        """Number of pairs of r (or of events of a set)."""
        return r.bit_count()

    # ----------------------------------------------------------------- sets -> relations
    def product_py(self, s1: int, s2: int) -> int:
        """Cartesian product s1 * s2, in Python (:attr:`product`: compiled when it can)."""
        if self.wide:
            return widerel.product(s1, s2, self.n, self.cap)
        if s1 == self.ALL:
            return self.COL0 * s2
        return self.spread(s1) * s2

    def upper(self) -> int:
        """The pairs (i, j) of events with i < j (made on first use)."""
        got = self._upper
        if got is None:
            cap, everything = self.cap, self.ALL
            got = 0
            for i in range(self.n):
                got |= (everything >> (i + 1)) << (i * cap + i + 1)
            self._upper = got
        return got

    def ident(self, s: int) -> int:
        """Identity restricted to s: [s]."""
        return self.ID & (self.COL0 * s) if s != self.ALL else self.ID

    def domain_py(self, r: int) -> int:
        """Events with a successor in r, in Python."""
        if not r:
            return 0
        for k in self._row_fold:  # OR each row onto its column 0, then read column 0
            r |= r >> k
        return self.unspread(r & self.COL0)

    def range_py(self, r: int) -> int:
        """Events with a predecessor in r, in Python."""
        for mask, shift in self._range_steps:
            r = (r & mask) | (r >> shift)
        return r & self.ROW

    def field(self, r: int) -> int:
        """Events related by r at all: domain | range."""
        return self.domain(r) | self.range(r)

    # ----------------------------------------------------------------- relation operators
    def seq_py(self, r: int, s: int) -> int:
        """Sequence (composition) r ; s, in Python."""
        if not r or not s:
            return 0
        cap, col0, row = self.cap, self.COL0, self.ROW
        out = 0
        mids = self.range(r)
        while mids:
            low = mids & -mids
            j = low.bit_length() - 1
            mids ^= low
            sj = (s >> (j * cap)) & row
            if sj:
                out |= ((r >> j) & col0) * sj
        return out

    def inverse_py(self, r: int) -> int:
        """The inverse r^-1, in Python."""
        cap, row = self.cap, self.ROW
        if self.n * cap > _SMALL_BITS:  # transposed as text: one pass, not one per row
            n = self.n
            text = format(r, "b").zfill(n * cap)  # row n - 1 first, each from column cap - 1
            rows = [text[(n - 1 - i) * cap : (n - i) * cap] for i in range(n)]
            columns = list(zip(*rows, strict=True))  # columns[cap - 1 - j]: column j by row
            return self.from_rows(
                [int("".join(reversed(columns[cap - 1 - j])), 2) for j in range(n)]
            )
        out = 0
        i = 0
        while r:
            rw = r & row
            if rw:
                out |= self.spread(rw) << i
            r >>= cap
            i += 1
        return out

    def plus_py(self, r: int) -> int:
        """Transitive closure r+ (Warshall, one column broadcast per event), in Python.

        Only events both in the range and the domain of r can be intermediate, and
        closing never changes the domain or the range, so the others are skipped."""
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
        """r & (dom * rng), herd's fast path for ``r & (S1 * S2)``."""
        if dom == self.ALL:
            return r & (self.COL0 * rng) if rng != self.ALL else r
        return r & (self.spread(dom) * rng)

    def restrict_domain(self, r: int, s: int) -> int:
        """[s] ; r."""
        return r & (self.spread(s) * self.ROW)

    def restrict_range(self, r: int, s: int) -> int:
        """r ; [s]."""
        return r & (self.COL0 * s)

    # ----------------------------------------------------------------- tests
    def irreflexive(self, r: int) -> bool:
        return not (r & self.ID)

    def acyclic_py(self, r: int) -> bool:
        """Whether r has no cycle, in Python."""
        return not (self.plus_py(r) & self.ID)

    def is_transitive(self, r: int) -> bool:
        return self.seq(r, r) & ~r == 0

    def find_cycle(self, r: int, through: int | None = None) -> list[int] | None:
        """A shortest cycle of r as [e0, e1, ..., ek] (e_i r e_{i+1} and e_k r e0), or None.

        With ``through``, a shortest cycle through that event (None if it is on none);
        otherwise through the lowest-numbered event that lies on a cycle."""
        if through is None:
            on_cycle = self.plus(r) & self.ID
            if not on_cycle:
                return None
            start = (on_cycle & -on_cycle).bit_length() // (self.cap + 1)
        else:
            start = through
        path = self.route(r, start, start)
        return None if path is None else path[:-1]

    def route(self, r: int, a: int, b: int) -> list[int] | None:
        """A shortest non-empty path of r from a to b as [a, ..., b] (a cycle when a == b:
        [a, ..., a]), or None (breadth-first)."""
        prev: dict[int, int] = {}
        frontier = [a]
        seen = 1 << a
        while frontier:
            nxt = []
            for u in frontier:
                succ = self.row(r, u)
                if (succ >> b) & 1:
                    path = [b]
                    while u != a:
                        path.append(u)
                        u = prev[u]
                    path.append(a)
                    path.reverse()
                    return path
                for v in bits(succ & ~seen):
                    seen |= 1 << v
                    prev[v] = u
                    nxt.append(v)
            frontier = nxt
        return None

    def reflexive_witness(self, r: int) -> int | None:
        """An event e with (e, e) in r, or None."""
        d = r & self.ID
        if not d:
            return None
        return (d & -d).bit_length() // (self.cap + 1)

    # ----------------------------------------------------------------- drawing
    def transitive_reduction(self, r: int) -> int:
        """Drop the pairs implied by the others, as herd does before drawing a relation.

        Pairs are visited in increasing (i, j) order and one is removed when a path of the
        remaining pairs still joins i to j; the closure is unchanged, and for an acyclic r
        the result is its unique transitive reduction.  Drawing only: O(pairs * BFS)."""
        cap = self.cap
        for b in list(bits(r)):
            i, j = divmod(b, cap)
            rest = r & ~(1 << b)
            # is j reachable from i in ``rest`` by a path of length >= 1?
            seen = 0
            frontier = self.row(rest, i)
            while frontier and not (frontier >> j) & 1:
                seen |= frontier
                nxt = 0
                for v in bits(frontier):
                    nxt |= self.row(rest, v)
                frontier = nxt & ~seen
            if frontier:
                r = rest
        return r

    # ----------------------------------------------------------------- orders
    def total_order(self, seq: Iterable[int]) -> int:
        """The strict total order listing ``seq`` first to last."""
        r = 0
        before = 0
        for e in seq:
            if before:
                r |= self.spread(before) << e
            before |= 1 << e
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


#: Universes of at most this many bits (``n * cap``) are shared (:func:`universe`).
_SHARED_BITS = 1 << 16


def universe(n: int, cap: int | None = None) -> Universe:
    """A :class:`Universe` of ``n`` events (row stride ``cap``): for small sizes one object
    per size, shared by every skeleton of that size, so that its constants and its cache
    of spread sets are made once per process, not once per skeleton."""
    stride = max(n, 1) if cap is None else cap
    if n * stride <= _SHARED_BITS:
        return _shared_universe(n, stride)
    return Universe(n, cap)


@lru_cache(maxsize=256)
def _shared_universe(n: int, cap: int) -> Universe:
    return Universe(n, cap)
