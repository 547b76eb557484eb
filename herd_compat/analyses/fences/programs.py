"""C programs as the programs fences are synthesised for (:class:`synth.Oracle`).

:class:`ProgramOracle`: a C program whose property is its assertions.

* Under TSO and PSO it is judged by TSO_k (PSO_k) to the fixpoint
  (:mod:`engine.operational.bounded`): "safe" holds for every buffer size (or up to the
  bound searched, said so).  A placement is ``atomic_thread_fence(memory_order_seq_cst)``
  (MFENCE).
* Under POWER it is judged by the reference engine with the built-in ``power`` model,
  loops unrolled ``unroll`` times (as ``verify`` does): "safe" holds up to that bound.
  A placement is ``atomic_thread_fence(memory_order_seq_cst)`` (sync, cost 8) or
  ``atomic_thread_fence(memory_order_acq_rel)`` (lwsync, cost 4); dependencies are not
  written into C.
* Under RC11 it is judged by TruSt with the built-in ``rc11`` model (GenMC's), loops
  unrolled ``unroll`` times, data races not counted (fences do not make accesses
  atomic).  A placement is, weakest first, a stronger order on a relaxed access (cost
  1: a store made release, a load acquire, :mod:`fences.orders`) or a C11 fence:
  ``release`` (2, write→write) or ``acquire`` (2, read→read), ``acq_rel`` (4),
  ``seq_cst`` (8, the only one ordering a write before a read), each effective with a
  fence or access of the other side (the model is asked again when the cycles' fences
  do not suffice).

Sites are the source lines of statements that access shared memory: a fence goes before
the statement (:mod:`litmus.c.fencing`), so a function run by several threads is fenced
for all of them.  The fenced source is read back and judged each round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from herdsman.cat.api import load_model
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.operational.bounded import BOUNDED, SAFE, UNSAFE, verify_bounded
from herdsman.engine.options import DEFAULT_UNROLL, RunOptions
from herdsman.engine.run import run_program
from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph
from herdsman.herd_compat.analyses.fences.cycles import Cycle, Delay, po_edges
from herdsman.herd_compat.analyses.fences.models import fence_level, lwsync_orders, relaxed_by
from herdsman.herd_compat.analyses.fences.oracles import MEMORY_OPS, OracleGaveUp
from herdsman.herd_compat.analyses.fences.orders import (
    ACQUIRE,
    ORDER_KINDS,
    RELEASE,
    ordered_c_text,
    orders_of_line,
    original,
)
from herdsman.herd_compat.analyses.fences.solve import Candidate
from herdsman.litmus.base.ir import Program
from herdsman.litmus.c import c_program_from_text
from herdsman.litmus.c.fencing import fenced_c_text

__all__ = ["C_FENCES", "ProgramOracle", "c_loader"]

#: The C statement written for each kind of placement.
C_FENCES = {
    "MFENCE": "atomic_thread_fence(memory_order_seq_cst);",
    "sync": "atomic_thread_fence(memory_order_seq_cst);",
    "lwsync": "atomic_thread_fence(memory_order_acq_rel);",
    "seq_cst": "atomic_thread_fence(memory_order_seq_cst);",
    "acq_rel": "atomic_thread_fence(memory_order_acq_rel);",
    "release": "atomic_thread_fence(memory_order_release);",
    "acquire": "atomic_thread_fence(memory_order_acquire);",
}
#: The kinds of placement per model.
KINDS = {
    "tso": ("MFENCE",),
    "pso": ("MFENCE",),
    "power": ("sync", "lwsync"),
    "rc11": ("seq_cst", "acq_rel", "release", "acquire"),
}
_LEVEL = {
    "MFENCE": 4,
    "sync": 4,
    "lwsync": 3,
    "seq_cst": 4,
    "acq_rel": 3,
    "release": 2,
    "acquire": 2,
}
#: The C11 fences that order a po edge, by the kinds of its two events.
C11_ORDERING = {
    ("W", "R"): ("seq_cst",),
    ("W", "W"): ("seq_cst", "acq_rel", "release"),
    ("R", "R"): ("seq_cst", "acq_rel", "acquire"),
    ("R", "W"): ("seq_cst", "acq_rel", "release", "acquire"),
}
#: The C11 orders of a fence as levels (seq_cst 4, acq_rel 3, release or acquire 2).
_C11_LEVEL = {"SC": 4, "ACQ_REL": 3, "REL": 2, "ACQ": 2}


class ProgramOracle:
    """A C program under TSO, PSO or POWER (see the module docstring)."""

    def __init__(
        self,
        text: str,
        path: str,
        load: Callable[[str], Program],
        mode: str,
        max_bound: int,
        time_limit: float | None = None,
        max_states: int | None = None,
        unroll: int = DEFAULT_UNROLL,
    ) -> None:
        self.source = text
        self.path = path
        self.load = load
        self.mode = mode
        self.max_bound = max_bound
        self.time_limit = time_limit
        self.max_states = max_states
        self.unroll = unroll
        self._relaxed = relaxed_by(mode)
        self.text = text
        self.chosen: frozenset[Candidate] = frozenset()
        self.verdict = ""
        self.reason = ""
        self.bound = 0
        self.added = 0  # the line of the fenced text an added #include is on (0: none)
        lines = set()
        for th in load(text).threads:
            for op, origin in zip(th.code, th.origins, strict=True):
                if isinstance(op, MEMORY_OPS) and _line(origin) > 0:
                    lines.add(_line(origin))
        cands = [Candidate(x, k) for x in sorted(lines) if self._fits(x) for k in KINDS[mode]]
        if mode == "rc11":  # stronger orders on relaxed accesses
            src = text.splitlines()
            for x in sorted(lines):
                if x <= len(src):
                    cands += [Candidate(x, k) for k in orders_of_line(src[x - 1])]
        self._cands = tuple(cands)
        #: the orders chosen, by line (:meth:`violations`)
        self._orders: dict[int, set[str]] = {}

    def _fits(self, line: int) -> bool:
        """Whether a statement starts on ``line`` (a fence can go before it)."""
        try:
            fenced_c_text(self.source, [line], path=self.path)
        except ValueError:
            return False
        return True

    def candidates(self) -> tuple[Candidate, ...]:
        return self._cands

    # ------------------------------------------------------------------ judging
    def violations(self, chosen: frozenset[Candidate]) -> list[ExecutionGraph]:
        self.chosen = chosen
        self._orders = {}
        for c in chosen:
            if c.kind in ORDER_KINDS:
                self._orders.setdefault(_site_line(c), set()).add(c.kind)
        self.text, self.added = self._fenced(chosen)
        program = self.load(self.text)
        if self.mode in ("power", "rc11"):
            return self._judged(program)
        res = verify_bounded(program, self.mode, self.max_bound, self.time_limit, self.max_states)
        self.verdict, self.reason, self.bound = res.verdict, res.reason, res.bound
        if res.verdict == UNSAFE:
            assert res.error is not None and res.error.graph is not None
            return [res.error.graph]
        if res.verdict in (SAFE, BOUNDED):
            return []
        raise OracleGaveUp(res.reason)

    def _judged(self, program: Program) -> list[ExecutionGraph]:
        """The first violation under POWER (the reference engine) or RC11 (TruSt)."""
        engine = "reference" if self.mode == "power" else "trust"
        opts = RunOptions(
            engine=engine, unroll=self.unroll, stop_on_error=True, time_limit=self.time_limit
        )
        try:
            out = run_program(program, load_model(self.mode), opts)
        except TimeLimitExceeded:
            raise OracleGaveUp("the time limit ran out") from None
        if out.errors:
            self.verdict, self.bound = UNSAFE, 0
            self.reason = f"an assertion fails under {self.mode}"
            graph = out.errors[0].graph
            assert graph is not None
            return [graph]
        cut = out.stats.loop_bound_hits()
        self.verdict = BOUNDED if cut else SAFE
        self.reason = f"no execution the {self.mode} model allows fails an assertion" + (
            f" with loops unrolled {self.unroll} times" if cut else ""
        )
        return []

    def _fenced(self, chosen: frozenset[Candidate]) -> tuple[str, int]:
        """The source with ``chosen`` inserted, and the line of the ``#include`` it
        added (0: none)."""
        orders = ((_site_line(c), c.kind) for c in chosen if c.kind in ORDER_KINDS)
        text, added = ordered_c_text(self.source, orders), 0  # (no line moves)
        for kind in KINDS[self.mode]:
            lines = sorted(_site_line(c) for c in chosen if c.kind == kind)
            if not lines:
                continue
            lines = [x + 1 if added and x >= added else x for x in lines]
            new = fenced_c_text(text, lines, C_FENCES[kind], path=self.path)
            old_lines, new_lines = text.splitlines(), new.splitlines()
            if len(new_lines) > len(old_lines):  # the #include <stdatomic.h> it added
                added = next(
                    (
                        i + 1
                        for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False))
                        if a != b
                    ),
                    len(old_lines) + 1,
                )
            text = new
        return text, added

    # ------------------------------------------------------------------ cycles
    def line(self, e: Event) -> int:
        """The line of the original program an event of the fenced one comes from."""
        n = _line(e.instr)
        return n - 1 if self.added and n > self.added else n

    def _inserted(self, e: Event) -> bool:
        return (
            e.kind == "F"
            and "fence" in e.instr
            and any(c.site == self.line(e) for c in self.chosen)
        )

    def _kept(self, events: Sequence[Event]) -> list[Event]:
        return [e for e in events if not self._inserted(e)]

    def _as_written(self, e: Event) -> Event:
        """The access ``e`` with the order the original program gives it."""
        return original(e, self.line(e), self._orders)

    def relaxed(self, a: Event, b: Event, between: list[Event]) -> bool:
        if a.loc == b.loc:
            return False
        return self._relaxed(self._as_written(a), self._as_written(b), self._kept(between))

    def _access_orders(self, a: Event, b: Event) -> tuple[Candidate, ...]:
        """The orders on ``a`` or ``b`` that order the po edge from ``a`` to ``b``: ``b``
        made release (a write), ``a`` made acquire (a read)."""
        out = []
        if b.kind == "W":
            out.append(Candidate(self.line(b), RELEASE))
        if a.kind == "R":
            out.append(Candidate(self.line(a), ACQUIRE))
        return tuple(out)

    def _sync_on(self, g: ExecutionGraph, c: Cycle) -> bool:
        for a, b in po_edges(g, [c]):
            base = g.base[g.tid[a]]
            between = [g.event(base + j) for j in range(g.idx[a] + 1, g.idx[b])]
            if any(e.kind == "F" and e.fence == "SYNC" for e in self._kept(between)):
                return True
        return False

    def cover(self, g: ExecutionGraph, c: Cycle, d: Delay) -> tuple[Candidate, ...] | None:
        """A fence before any statement from the delay's first access (excluded) to its
        second; under POWER sync, or lwsync where it orders (not write→read; on a cycle
        :func:`models.lwsync_orders` allows) — None when the program's own lwsync
        already does."""
        wr = d.a.kind == "W" and d.b.kind == "R"
        weak = self.mode == "power" and not wr and lwsync_orders(c, self._sync_on(g, c))
        if weak and any(e.kind == "F" and e.fence == "LWSYNC" for e in self._kept(d.between)):
            return None
        lines = {self.line(e) for e in (*d.between, d.b) if e.kind in ("R", "W")}
        lines.discard(self.line(d.a))  # before a's own statement is before a
        kinds = [k for k in KINDS[self.mode] if self._orders_edge(k, d.a, d.b, weak)]
        known = set(self._cands)
        fences = [c2 for x in sorted(lines) for k in kinds if (c2 := Candidate(x, k)) in known]
        return (*(c2 for c2 in self._access_orders(d.a, d.b) if c2 in known), *fences)

    def strengthen(
        self, g: ExecutionGraph, cycles: list[Cycle], chosen: frozenset[Candidate]
    ) -> tuple[Candidate, ...]:
        """A placement ordering a po edge of the cycles more strongly than now."""
        known = set(self._cands)
        out: set[Candidate] = set()
        for a, b in po_edges(g, cycles):
            ea, eb = g.event(a), g.event(b)
            wr = ea.kind == "W" and eb.kind == "R"
            base = g.base[g.tid[a]]
            between = [g.event(base + j) for j in range(g.idx[a] + 1, g.idx[b] + 1)]
            lines = {self.line(e) for e in between if e.kind in ("R", "W")} - {self.line(ea)}
            have = self._level(self._kept(between[:-1]), wr)
            for x in chosen:
                if x.site in lines and self._orders_edge(x.kind, ea, eb, True):
                    have = max(have, _LEVEL[x.kind])
            mine = self._access_orders(ea, eb)
            if any(x in chosen for x in mine):  # as a release or acquire fence would
                have = max(have, _LEVEL["release"])
            elif not have:
                out.update(mine)
            for line in lines:
                for k in KINDS[self.mode]:
                    if _LEVEL[k] > have and self._orders_edge(k, ea, eb, True):
                        out.add(Candidate(line, k))
        return tuple(sorted(out & known, key=repr))

    def _orders_edge(self, kind: str, a: Event, b: Event, weak: bool) -> bool:
        """Whether a placement of ``kind`` may order the po edge from ``a`` to ``b``
        (``weak``: POWER's lwsync orders on this cycle)."""
        if self.mode == "rc11":
            return kind in C11_ORDERING.get((a.kind, b.kind), ())
        return kind != "lwsync" or (weak and not (a.kind == "W" and b.kind == "R"))

    def _level(self, events: Sequence[Event], write_read: bool) -> int:
        """How strongly the program's own fences among ``events`` order a po edge."""
        if self.mode != "rc11":
            return fence_level(list(events), write_read)
        levels = [_C11_LEVEL.get(a, 0) for e in events if e.kind == "F" for a in e.annots]
        level = max(levels, default=0)
        return level if level == 4 or not write_read else 0


def _line(origin: str) -> int:
    head = origin.split(":", 1)[0]
    return int(head) if head.isdigit() else 0


def c_loader(
    path: str, target: str, defines: Mapping[str, str], include_dirs: Sequence[str]
) -> Callable[[str], Program]:
    """Read a C program's text as ``path`` would be read."""

    def load(text: str) -> Program:
        return c_program_from_text(text, path, target, defines, include_dirs)

    return load


def _site_line(c: Candidate) -> int:
    """The site of a placement in a C program: the line it goes before."""
    assert isinstance(c.site, int)
    return c.site
