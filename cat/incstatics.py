"""The skeleton-only values the incremental checker reads: per skeleton, and per skeleton
and events present, in caches bounded in entries and in bytes.

Skeleton-only relations are evaluated per skeleton with herd's predefined names
(:func:`graphs.herdnames.static_names`) and renumbered to the graph's event ids; when all
are restriction stable (``Form.stable``), once per complete path of the threads, then
restricted to the events present.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from herdsman.cat.form import Form, eval_static
from herdsman.cat.renumber import blocks_of, renumber
from herdsman.graphs import widerel
from herdsman.graphs.execution import ExecutionGraph, Layout
from herdsman.graphs.herdnames import static_names
from herdsman.graphs.relalg import Universe

#: Cached static values: per skeleton, and per (skeleton, events present); both caches are
#: emptied when full (this many entries, or :data:`CACHE_BYTES` of values), which keeps
#: memory flat over long explorations and long threads.
MAX_SKELETONS = 1024
MAX_RESTRICTED = 4096
CACHE_BYTES = 64 << 20

#: The static nodes' values by their ``id``, and memos of the checks by tuple keys.
Statics = dict[int | tuple, int]


class StaticValues:
    """The values of a form's static nodes on the graphs of one layout, cached."""

    def __init__(self, form: Form, arch: str, lay: Layout, U: Universe) -> None:
        self.form = form
        self.arch = arch
        self.lay = lay
        self.U = U
        self._statics: dict[tuple, Statics] = {}
        self._statics_bytes = 0  # the size of the values in _statics
        self._pp: dict[tuple, Statics] = {}
        self._pp_bytes = 0  # ... and in _pp
        self._inverses: dict[tuple, bytes] = {}  # (skeleton key, step): see inverse_rows
        self._inverse_bytes = 0

    def key(self, g: ExecutionGraph) -> tuple:
        """Which skeleton the statics come from: the complete paths extending each
        thread's prefix (stable statics) or the prefixes themselves."""
        if self.form.stable:
            done = g.completion_key()
            if done is not None:
                return ("c", *done)
        return ("p", *g.shape_key())

    def full(self, key: tuple) -> Statics:
        """The static values on the whole skeleton ``key``, renumbered to graph ids."""
        got = self._statics.get(key)
        if got is not None:
            return got
        if len(self._statics) > MAX_SKELETONS or self._statics_bytes > CACHE_BYTES:
            self._statics.clear()
            self._statics_bytes = 0
        lay = self.lay
        sk = lay.shapes.skeleton(key[1:])
        N = static_names(sk, self.arch, self.form.tag_sets).bits()
        memo: dict[int, int] = {}
        vals = {id(n): eval_static(n, sk.U, N, memo) for n in self.form.statics}
        blocks = blocks_of(lay, key[1:])  # skeleton (init, then each thread) -> graph ids
        out: Statics = {
            k: renumber(vals[k], sk.U, self.U, blocks, rel) for k, rel in self.form.kinds
        }
        self._statics[key] = out
        self._statics_bytes += _bytes(out)
        return out

    def restricted(self, g: ExecutionGraph, present: int, key: tuple | None = None) -> Statics:
        """The static values of ``g``'s skeleton restricted to the events ``present``
        (stable statics; the others are those of the prefixes themselves)."""
        if key is None:
            key = self.key(g)
        if not self.form.stable:
            return self.full(key)
        ck = (key, present)
        got = self._pp.get(ck)
        if got is not None:
            return got
        full = self.full(key)
        if len(self._pp) > MAX_RESTRICTED or self._pp_bytes > CACHE_BYTES:
            self._pp.clear()
            self._pp_bytes = 0
        pp = self.U.product(present, present)
        out: Statics = {k: full[k] & (pp if rel else present) for k, rel in self.form.kinds}
        self._pp[ck] = out
        self._pp_bytes += _bytes(out)
        return out

    def inverse_rows(self, g: ExecutionGraph, i: int) -> bytes:
        """The bytes of the inverse of the union of step ``i``'s static terms, on the
        whole skeleton of ``g`` (restricting a relation to some events and inverting it
        commute: a search restricts its rows as it goes)."""
        key = (self.key(g), i)
        got = self._inverses.get(key)
        if got is None:
            full = self.full(key[0])
            s = 0
            for t in self.form.steps[i].terms or ():
                if t.base is None:
                    s |= full[id(t.inters[0])]
            U = self.U
            if len(self._inverses) > MAX_SKELETONS or self._inverse_bytes > CACHE_BYTES:
                self._inverses.clear()
                self._inverse_bytes = 0
            got = self._inverses[key] = widerel.rows(U.inverse(s), U.n, U.cap)
            self._inverse_bytes += len(got)
        return got


def static_union(ids: Iterable[int], key: tuple[str, int], st: dict) -> int:
    """The union of the statics ``ids`` (a step's static terms), cached in the statics
    ``st`` under ``key``."""
    v = st.get(key)
    if v is None:
        v = 0
        for k in ids:
            v |= st[k]
        st[key] = v
    return v


def meet(n: Any, st: dict) -> int:
    """The meet of the static operands of the ``inter`` node ``n``, cached in the statics
    ``st`` (-1 when it has none)."""
    key = ("meet", id(n))
    v = st.get(key)
    if v is None:
        v = -1
        for a in n.args:
            if not a.deps:
                v &= st[id(a)]
        st[key] = v
    return v


def _bytes(values: Statics) -> int:
    """About how much memory the values of ``values`` take."""
    return sum(v.bit_length() for v in values.values()) // 8 + 64 * len(values)
