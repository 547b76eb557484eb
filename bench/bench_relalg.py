"""Which relation representation is fastest for herd-sized graphs?

Compares, on random relations over 2..200 events, three encodings of a relation:

* ``int``  -- the product's :class:`graphs.relalg.Universe`: one Python int holding the
  whole n x n matrix (row stride ``cap``);
* ``rows`` -- a list of n Python ints, one bitset per row;
* ``numpy`` -- an n x n boolean matrix (``seq`` by a float32 matmul, closure by Warshall
  with outer products for small n and by repeated squaring for larger n).

Operations: union, seq, inverse, transitive closure, acyclicity, and a composite workload
that evaluates a Power-like model (po-loc, fences, a ppo fixpoint, hb, propagation and
observation checks) on a random candidate.  Prints microseconds per operation and the
ratios to ``int``; all three representations are checked to agree before timing.

    python bench/bench_relalg.py            # full run (about a minute)
    python bench/bench_relalg.py --quick    # sizes 2, 5, 10, tiny repeat counts (tests)
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

# One BLAS thread: the machines this runs on have 2 cores shared with other work, and a
# multi-threaded matmul on 100x100 matrices only measures the contention.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402 - after the BLAS thread settings

from herdsman.graphs.relalg import Universe, bits  # noqa: E402

SIZES = (2, 5, 10, 20, 40, 100, 200)


# ------------------------------------------------------------------------- (b) row bitsets
class Rows:
    """Relations as lists of row bitsets; event sets as ints."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.ALL = (1 << n) - 1
        self.ID = [1 << i for i in range(n)]
        self.EMPTY = [0] * n

    def from_pairs(self, pairs) -> list[int]:
        r = [0] * self.n
        for i, j in pairs:
            r[i] |= 1 << j
        return r

    def pairs(self, r: list[int]) -> set[tuple[int, int]]:
        return {(i, j) for i, row in enumerate(r) for j in bits(row)}

    def union(self, a, b):
        return [x | y for x, y in zip(a, b, strict=True)]

    def inter(self, a, b):
        return [x & y for x, y in zip(a, b, strict=True)]

    def diff(self, a, b):
        return [x & ~y for x, y in zip(a, b, strict=True)]

    def seq(self, a, b):
        out = []
        for row in a:
            acc = 0
            while row:
                low = row & -row
                acc |= b[low.bit_length() - 1]
                row ^= low
            out.append(acc)
        return out

    def inverse(self, a):
        out = [0] * self.n
        for i, row in enumerate(a):
            bit = 1 << i
            while row:
                low = row & -row
                out[low.bit_length() - 1] |= bit
                row ^= low
        return out

    def plus(self, a):
        r = list(a)
        n = self.n
        for k in range(n):
            rk = r[k]
            if not rk:
                continue
            kb = 1 << k
            for i in range(n):
                if r[i] & kb:
                    r[i] |= rk
        return r

    def acyclic(self, a) -> bool:
        # Kahn's algorithm: repeatedly remove events without predecessors.
        indeg_src = self.inverse(a)
        alive = self.ALL
        changed = True
        while changed and alive:
            changed = False
            for i in bits(alive):
                if not (indeg_src[i] & alive):
                    alive &= ~(1 << i)
                    changed = True
        return alive == 0

    def irreflexive(self, a) -> bool:
        return all(not (row >> i) & 1 for i, row in enumerate(a))

    def is_empty(self, a) -> bool:
        return not any(a)

    @staticmethod
    def eq(a, b) -> bool:
        return a == b

    def product(self, s1: int, s2: int):
        return [s2 if (s1 >> i) & 1 else 0 for i in range(self.n)]

    def ident(self, s: int):
        return [(1 << i) & s for i in range(self.n)]

    def restrict(self, a, s1: int, s2: int):
        return [row & s2 if (s1 >> i) & 1 else 0 for i, row in enumerate(a)]

    def domain(self, a) -> int:
        return sum(1 << i for i, row in enumerate(a) if row)

    def range(self, a) -> int:
        s = 0
        for row in a:
            s |= row
        return s

    def star(self, a):
        p = self.plus(a)
        return [row | (1 << i) for i, row in enumerate(p)]


class Bitwise:
    """Union, intersection and difference as Python's ``|``, ``&`` and ``~``: the same
    code for ints and numpy boolean arrays."""

    @staticmethod
    def union(a, b):
        return a | b

    @staticmethod
    def inter(a, b):
        return a & b

    @staticmethod
    def diff(a, b):
        return a & ~b


# ------------------------------------------------------------------------- (c) numpy
class Numpy(Bitwise):
    """Relations as n x n boolean numpy arrays; event sets as boolean vectors."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.ALL = np.ones(n, dtype=bool)
        self.ID = np.eye(n, dtype=bool)

    def from_pairs(self, pairs):
        m = np.zeros((self.n, self.n), dtype=bool)
        for i, j in pairs:
            m[i, j] = True
        return m

    def set_from_int(self, s: int):
        return np.array([(s >> i) & 1 == 1 for i in range(self.n)], dtype=bool)

    def pairs(self, m) -> set[tuple[int, int]]:
        return {(int(i), int(j)) for i, j in zip(*np.nonzero(m), strict=True)}

    def seq(self, a, b):
        return (a.astype(np.float32) @ b.astype(np.float32)) > 0

    def inverse(self, a):
        return a.T.copy()

    def plus(self, a):
        if self.n <= 48:
            r = a.copy()
            for k in range(self.n):
                col = r[:, k]
                if col.any():
                    r |= np.outer(col, r[k])
            return r
        f = a.astype(np.float32)
        while True:
            g = (f + f @ f) > 0
            g = g.astype(np.float32)
            if np.array_equal(g, f):
                return g > 0
            f = g

    def acyclic(self, a) -> bool:
        return not np.diagonal(self.plus(a)).any()

    def irreflexive(self, a) -> bool:
        return not np.diagonal(a).any()

    def is_empty(self, a) -> bool:
        return not a.any()

    @staticmethod
    def eq(a, b) -> bool:
        return bool(np.array_equal(a, b))

    def product(self, s1, s2):
        return np.outer(s1, s2)

    def ident(self, s):
        return np.diag(s)

    def restrict(self, a, s1, s2):
        return a & np.outer(s1, s2)

    def domain(self, a):
        return a.any(axis=1)

    def range(self, a):
        return a.any(axis=0)

    def star(self, a):
        return self.plus(a) | self.ID


# ------------------------------------------------------------------------- (a) adapter
class Ints(Bitwise):
    """The product's Universe, behind the same method names as the others."""

    def __init__(self, n: int) -> None:
        self.U = U = Universe(n)
        self.n = n
        self.ALL = U.ALL
        self.ID = U.ID
        self.seq = U.seq
        self.inverse = U.inverse
        self.plus = U.plus
        self.star = U.star
        self.acyclic = U.acyclic
        self.irreflexive = U.irreflexive
        self.product = U.product
        self.ident = U.ident
        self.restrict = U.restrict
        self.domain = U.domain
        self.range = U.range

    def from_pairs(self, pairs) -> int:
        return self.U.from_pairs(pairs)

    def pairs(self, r: int) -> set[tuple[int, int]]:
        return set(self.U.pairs(r))

    @staticmethod
    def is_empty(a) -> bool:
        return not a

    @staticmethod
    def eq(a, b) -> bool:
        return a == b


# ------------------------------------------------------------------------- random inputs
def random_pairs(rng: random.Random, n: int, per_row: float) -> list[tuple[int, int]]:
    """About ``per_row`` random successors per event."""
    k = max(1, int(per_row * n))
    return [(rng.randrange(n), rng.randrange(n)) for _ in range(k)]


def random_dag_pairs(rng: random.Random, n: int, per_row: float) -> list[tuple[int, int]]:
    k = max(1, int(per_row * n))
    out = []
    for _ in range(k):
        i, j = rng.randrange(n), rng.randrange(n)
        if i != j:
            out.append((min(i, j), max(i, j)))
    return out


def random_inputs(rng: random.Random, n: int) -> tuple[list, list, list]:
    """Two random relations and a random acyclic one, as pairs."""
    return random_pairs(rng, n, 2.0), random_pairs(rng, n, 2.0), random_dag_pairs(rng, n, 2.0)


class Candidate:
    """A random Power-like candidate: threads, locations, po, rf, co, fences, deps."""

    def __init__(self, rng: random.Random, n: int) -> None:
        nthreads = max(1, min(4, n // 3))
        nlocs = max(1, min(4, n // 4))
        kinds = []  # per event: R, W or F
        tid = []
        loc = []
        for e in range(n):
            tid.append(e % nthreads)
            k = rng.choice("RRWWWF") if e >= nlocs else "W"
            if e < nlocs:  # initial writes, one per location
                tid[-1] = -1
            kinds.append(k)
            loc.append(rng.randrange(nlocs) if k != "F" else -1)
        for x in range(nlocs):
            loc[x] = x
        self.n = n
        self.sets = {
            "R": sum(1 << e for e in range(n) if kinds[e] == "R"),
            "W": sum(1 << e for e in range(n) if kinds[e] == "W"),
            "F": sum(1 << e for e in range(n) if kinds[e] == "F"),
        }
        self.sets["M"] = self.sets["R"] | self.sets["W"]
        self.sets["SYNC"] = sum(1 << e for e in range(n) if kinds[e] == "F" and e % 2 == 0)
        self.sets["LWSYNC"] = self.sets["F"] & ~self.sets["SYNC"]
        po = [(a, b) for a in range(n) for b in range(a + 1, n) if tid[a] == tid[b] and tid[a] >= 0]
        same_loc = [(a, b) for a in range(n) for b in range(n) if loc[a] == loc[b] and loc[a] >= 0]
        ext = [(a, b) for a in range(n) for b in range(n) if tid[a] != tid[b]]
        writes = {x: [e for e in range(n) if kinds[e] == "W" and loc[e] == x] for x in range(nlocs)}
        rf = []
        for e in range(n):
            if kinds[e] == "R":
                rf.append((rng.choice(writes[loc[e]]), e))
        co = []
        for ws in writes.values():
            order = [ws[0]] + rng.sample(ws[1:], len(ws) - 1)
            co += [
                (order[i], order[j]) for i in range(len(order)) for j in range(i + 1, len(order))
            ]
        mem = [e for e in range(n) if kinds[e] in "RW"]
        reads = [e for e in range(n) if kinds[e] == "R"]
        addr = [(a, b) for (a, b) in po if a in reads and b in mem and rng.random() < 0.2]
        data = [(a, b) for (a, b) in po if a in reads and kinds[b] == "W" and rng.random() < 0.2]
        self.rels = {
            "po": po,
            "loc": same_loc,
            "ext": ext,
            "rf": rf,
            "co": co,
            "addr": addr,
            "data": data,
        }


def ppc_like(R, c: dict) -> bool:
    """A Power-like model over representation ``R``; ``c`` holds the encoded inputs."""
    po, loc, ext, rf, co = c["po"], c["loc"], c["ext"], c["rf"], c["co"]
    W, Rd, SYNC, LWSYNC = c["W"], c["R"], c["SYNC"], c["LWSYNC"]
    union, inter, diff, seq = R.union, R.inter, R.diff, R.seq
    fr = diff(seq(R.inverse(rf), co), R.ident(R.ALL))
    po_loc = inter(po, loc)
    rfe, coe, fre = inter(rf, ext), inter(co, ext), inter(fr, ext)
    rfi = diff(rf, rfe)
    uniproc = R.acyclic(union(union(po_loc, rf), union(co, fr)))
    sync = seq(R.restrict(po, R.ALL, SYNC), po)
    lwsync = diff(seq(R.restrict(po, R.ALL, LWSYNC), po), R.product(W, Rd))
    dp = union(c["addr"], c["data"])
    rdw = inter(po_loc, seq(fre, rfe))
    ii0 = union(union(dp, rdw), rfi)
    cc0 = union(dp, po_loc)
    # ppo: least fixpoint of ii = ii0 | ii;ii, cc = cc0 | ii | cc;cc (simplified)
    ii = ii0
    cc = cc0
    while True:
        ii2 = union(ii0, seq(ii, ii))
        cc2 = union(union(cc0, ii2), seq(cc, cc))
        if R.eq(ii2, ii) and R.eq(cc2, cc):
            break
        ii, cc = ii2, cc2
    ppo = union(R.restrict(ii, Rd, Rd), R.restrict(cc, Rd, W))
    fence = union(sync, lwsync)
    hb = union(union(ppo, fence), rfe)
    thin_air = R.acyclic(hb)
    prop_base = seq(union(fence, seq(rfe, fence)), R.star(hb))
    chapo = union(union(rfe, fre), union(coe, seq(fre, rfe)))
    prop = union(
        inter(prop_base, R.product(W, W)),
        seq(seq(R.star(chapo), R.star(prop_base)), seq(sync, R.star(hb))),
    )
    observation = R.irreflexive(seq(seq(fre, prop), R.star(hb)))
    propagation = R.acyclic(union(co, prop))
    return uniproc and thin_air and observation and propagation


def encode(R, cand: Candidate) -> dict:
    c = {k: R.from_pairs(v) for k, v in cand.rels.items()}
    for k, s in cand.sets.items():
        c[k] = R.set_from_int(s) if isinstance(R, Numpy) else s
    if isinstance(R, Numpy):
        R.ALL = np.ones(cand.n, dtype=bool)
    return c


# ------------------------------------------------------------------------- timing
def timeit(fn: Callable[[], object], budget: float) -> float:
    """Seconds per call of ``fn`` (best of 3 batches filling about ``budget`` seconds)."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt > budget / 10 or n > 1 << 20:
            break
        n *= 4
    best = dt / n
    for _ in range(2):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def check_agree(impls: dict, n: int, rng: random.Random) -> None:
    """All representations compute the same pairs (so the timings compare like with like)."""
    a, b, d = random_inputs(rng, n)
    ref = None
    for name, R in impls.items():
        ra, rb, rd = R.from_pairs(a), R.from_pairs(b), R.from_pairs(d)
        got = (
            R.pairs(R.union(ra, rb)),
            R.pairs(R.seq(ra, rb)),
            R.pairs(R.inverse(ra)),
            R.pairs(R.plus(ra)),
            bool(R.acyclic(rd)),
            bool(R.acyclic(ra)),
        )
        if ref is None:
            ref = got
        elif got != ref:
            raise AssertionError(f"{name} disagrees with int on n={n}")
    cand = Candidate(rng, n)
    verdicts = {name: ppc_like(R, encode(R, cand)) for name, R in impls.items()}
    if len(set(verdicts.values())) != 1:
        raise AssertionError(f"composite verdicts differ on n={n}: {verdicts}")


def run(sizes, budget: float, seed: int = 1) -> list[tuple[str, int, dict[str, float]]]:
    rng = random.Random(seed)
    rows_out = []
    for n in sizes:
        impls = {"int": Ints(n), "rows": Rows(n), "numpy": Numpy(n)}
        check_agree(impls, n, rng)
        a, b, d = random_inputs(rng, n)
        cand = Candidate(rng, n)
        results: dict[str, dict[str, float]] = {}
        for name, R in impls.items():
            ra, rb, rd = R.from_pairs(a), R.from_pairs(b), R.from_pairs(d)
            enc = encode(R, cand)
            results[name] = {
                "union": timeit(lambda R=R, ra=ra, rb=rb: R.union(ra, rb), budget),
                "seq": timeit(lambda R=R, ra=ra, rb=rb: R.seq(ra, rb), budget),
                "inverse": timeit(lambda R=R, ra=ra: R.inverse(ra), budget),
                "closure": timeit(lambda R=R, ra=ra: R.plus(ra), budget),
                "acyclic": timeit(lambda R=R, rd=rd: R.acyclic(rd), budget),
                "ppc-like": timeit(lambda R=R, enc=enc: ppc_like(R, enc), budget),
            }
        for op in results["int"]:
            rows_out.append((op, n, {k: v[op] for k, v in results.items()}))
    return rows_out


def report(rows_out) -> str:
    lines = [
        f"{'operation':<10}{'n':>5}{'int µs':>12}{'rows µs':>12}{'numpy µs':>12}"
        f"{'rows/int':>10}{'numpy/int':>11}"
    ]
    for op in ("union", "seq", "inverse", "closure", "acyclic", "ppc-like"):
        for name, n, t in rows_out:
            if name != op:
                continue
            a, b, c = t["int"] * 1e6, t["rows"] * 1e6, t["numpy"] * 1e6
            lines.append(
                f"{op:<10}{n:>5}{a:>12.2f}{b:>12.2f}{c:>12.2f}{b / a:>10.2f}{c / a:>11.2f}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, tiny budget")
    ap.add_argument("--budget", type=float, default=0.05, help="seconds per measurement")
    args = ap.parse_args(argv)
    sizes = (2, 5, 10) if args.quick else SIZES
    budget = 0.002 if args.quick else args.budget
    print(report(run(sizes, budget)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
