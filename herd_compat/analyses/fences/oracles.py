"""Litmus tests as the programs fences are synthesised for (:class:`synth.Oracle`).

:class:`LitmusOracle`: a litmus test under a cat model.  Its property is its condition:
an execution the model allows that witnesses it (satisfies an ``exists`` or ``~exists``
proposition, falsifies a ``forall`` one) violates it.  Sites are positions in a thread's
code (before item ``i``; not where a branch may jump over it); X86 gets MFENCE, PPC sync,
lwsync and, after a load, a control dependency (``ctrl``: orders later writes) or one with
isync (``ctrlisync``: orders later reads too).  The fenced test is written in herd's
format (:mod:`litmus.fencing`), read back and run, so every answer is checked on the text
a user gets.  (C programs: :mod:`programs`.)
"""

from __future__ import annotations

from herdsman.cat.api import PreparedModel
from herdsman.engine.options import RunOptions
from herdsman.engine.run import run_program
from herdsman.graphs.events import Event
from herdsman.graphs.execution import ExecutionGraph
from herdsman.herd_compat.analyses.fences.cycles import Cycle, Delay, po_edges
from herdsman.herd_compat.analyses.fences.models import (
    depends,
    fence_level,
    has_isync,
    lwsync_orders,
    relaxed_by,
)
from herdsman.herd_compat.analyses.fences.solve import Candidate
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import CAS, RMW, Branch, Label, Load, Lock, Store, Unlock
from herdsman.litmus.fencing import FencePlacement, fenced_test
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_text
from herdsman.litmus.test import Instruction, LitmusTest

__all__ = ["MEMORY_OPS", "LitmusOracle", "OracleGaveUp"]

#: The IR operations that access memory (a fence between them may order them).
MEMORY_OPS = (Load, Store, RMW, CAS, Lock, Unlock)


class OracleGaveUp(Exception):
    """The oracle could not judge a fenced program (time or state limit)."""


# ----------------------------------------------------------------------------- litmus


class LitmusOracle:
    """A litmus test under a model (see the module docstring)."""

    def __init__(self, test: LitmusTest, model: PreparedModel, mode: str, opts: RunOptions) -> None:
        if test.arch not in ("X86", "PPC"):
            raise InputError(
                test.path or test.name,
                0,
                0,
                f"fences: {test.arch} litmus tests are not supported (X86 and PPC tests, "
                f"and C programs, are)",
            )
        self.test = test
        self.model = model
        self.mode = mode
        self.opts = RunOptions(
            engine=opts.engine, time_limit=opts.time_limit, unroll=opts.unroll, show="wit"
        )
        self._relaxed = relaxed_by(mode)
        self.origin: list[list[int | None]] = []
        self.fenced: LitmusTest = test
        self.text = ""
        self._cands = self._candidates()

    def candidates(self) -> tuple[Candidate, ...]:
        return self._cands

    def _candidates(self) -> tuple[Candidate, ...]:
        out = []
        for t, code in enumerate(self.test.threads):
            mem = [
                i
                for i, it in enumerate(code)
                if isinstance(it, Instruction) and isinstance(it.op, MEMORY_OPS)
            ]
            if len(mem) < 2:
                continue
            skipped = _jumped_over(code)
            for p in range(mem[0] + 1, mem[-1] + 1):
                if p in skipped:
                    continue
                if self.test.arch == "X86":
                    out.append(Candidate((t, p), "MFENCE"))
                    continue
                out += [Candidate((t, p), "sync"), Candidate((t, p), "lwsync")]
                prev = code[p - 1]
                if isinstance(prev, Instruction) and isinstance(prev.op, Load):
                    out += [Candidate((t, p), "ctrlisync"), Candidate((t, p), "ctrl")]
        return tuple(out)

    def placements(self, chosen: frozenset[Candidate]) -> list[FencePlacement]:
        return sorted(FencePlacement(c.site[0], c.site[1], c.kind) for c in chosen)  # type: ignore[index]

    def violations(self, chosen: frozenset[Candidate]) -> list[ExecutionGraph]:
        text, origin = fenced_test(self.test, self.placements(chosen))
        self.text, self.origin = text, origin
        self.fenced = parse_text(text, self.test.path or "<fenced>")
        out = run_program(lower(self.fenced), self.model, self.opts)  # type: ignore[arg-type]
        return [w.graph for w in out.witnesses if w.graph is not None]

    def item(self, e: Event) -> int | None:
        """The original code item of an event of the fenced test (None: inserted)."""
        code = self.fenced.threads[e.tid]
        instrs = [i for i, it in enumerate(code) if isinstance(it, Instruction)]
        k = instrs[e.poi] if e.poi < len(instrs) else None
        if k is None or code[k].text != e.instr:  # type: ignore[union-attr]
            start = k if k is not None else 0
            k = next(
                (i for i in instrs if i >= start and code[i].text == e.instr),  # type: ignore[union-attr]
                None,
            )
        return None if k is None else self.origin[e.tid][k]

    def _has_sync(self, g: ExecutionGraph, c: Cycle) -> bool:
        """Whether the test has a sync on one of the cycle's po edges."""
        for i, a in enumerate(c.events):
            b = c.events[(i + 1) % len(c.events)]
            if g.tid[a] != g.tid[b]:
                continue
            base = g.base[g.tid[a]]
            for j in range(g.idx[a] + 1, g.idx[b]):
                e = g.event(base + j)
                if e.kind == "F" and e.fence == "SYNC" and self.item(e) is not None:
                    return True
        return False

    def strengthen(
        self, g: ExecutionGraph, cycles: list[Cycle], chosen: frozenset[Candidate]
    ) -> tuple[Candidate, ...]:
        """Per po edge of the cycles, the candidates stronger than its ordering now (the
        test's fences and dependencies and ``chosen``)."""
        known = set(self._cands)
        out: set[Candidate] = set()
        for a, b in po_edges(g, cycles):
            out |= self._stronger(g, a, b, chosen) & known
        return tuple(sorted(out, key=repr))

    def _stronger(
        self, g: ExecutionGraph, a: int, b: int, chosen: frozenset[Candidate]
    ) -> set[Candidate]:
        ea, eb = g.event(a), g.event(b)
        ia, ib = self.item(ea), self.item(eb)
        if ia is None or ib is None:
            return set()
        t = g.tid[a]
        wr = ea.kind == "W" and eb.kind == "R"
        base = g.base[t]
        between = [g.event(base + j) for j in range(g.idx[a] + 1, g.idx[b])]
        kept = [e for e in between if self.item(e) is not None]
        have = fence_level(kept, wr)  # 4 sync, 3 lwsync, 2 a dependency, 0 none
        if ea.kind == "R" and depends(ea, eb):
            have = max(have, 2)
        sites = [(t, p) for p in range(ia + 1, ib + 1)]
        for x in chosen:
            if x.site in sites and x.kind in ("sync", "MFENCE"):
                have = 4
            elif x.site in sites and x.kind == "lwsync" and not wr:
                have = max(have, 3)
            if x.site == (t, ia + 1) and x.kind in ("ctrl", "ctrlisync") and ea.kind == "R":
                have = max(have, 2)
        kinds = ["MFENCE"] if self.test.arch == "X86" else ["sync", "lwsync"]
        out = set()
        for site in sites:
            for k in kinds:
                level = 4 if k in ("sync", "MFENCE") else 3
                if level > have and not (k == "lwsync" and wr):
                    out.add(Candidate(site, k))
        if self.test.arch == "PPC" and ea.kind == "R" and have < 2:
            out.add(Candidate((t, ia + 1), "ctrlisync"))
            if eb.kind == "W" or has_isync(kept):
                out.add(Candidate((t, ia + 1), "ctrl"))
        return out

    def relaxed(self, a: Event, b: Event, between: list[Event]) -> bool:
        if a.loc == b.loc:
            return False
        kept = [e for e in between if self.item(e) is not None]
        return self._relaxed(a, b, kept)

    def cover(self, g: ExecutionGraph, c: Cycle, d: Delay) -> tuple[Candidate, ...] | None:
        """MFENCE between the delay's ends (X86); on POWER sync, lwsync (not for a
        write-read delay), a dependency from a read — but only sync on a cycle with two
        from-reads or more and no sync to come (no write-read delay, none in the test):
        lwsync propagates writes to writes only (herd's ``prop``), so without a sync,
        observation needs one fre and propagation none (IRIW needs syncs)."""
        ia, ib = self.item(d.a), self.item(d.b)
        if ia is None or ib is None:
            return ()
        wr = d.a.kind == "W" and d.b.kind == "R"
        weak = lwsync_orders(c, self._has_sync(g, c))
        if not wr and weak:
            kept = [e for e in d.between if self.item(e) is not None]
            if any(e.kind == "F" and e.fence == "LWSYNC" for e in kept):
                return None
        t = d.thread
        out = []
        for p in range(ia + 1, ib + 1):
            if self.test.arch == "X86":
                out.append(Candidate((t, p), "MFENCE"))
                continue
            out.append(Candidate((t, p), "sync"))
            if not wr and weak:
                out.append(Candidate((t, p), "lwsync"))
        if self.test.arch == "PPC" and d.a.kind == "R" and weak:
            out.append(Candidate((t, ia + 1), "ctrlisync"))
            kept = [e for e in d.between if self.item(e) is not None]
            if d.b.kind == "W" or has_isync(kept):  # a ctrl before the test's isync
                out.append(Candidate((t, ia + 1), "ctrl"))
        known = set(self._cands)
        return tuple(c for c in out if c in known)


def _jumped_over(code: tuple) -> set[int]:
    """The positions of a thread's code a forward branch may jump over (a fence there
    might not run): after the branch, up to and including its target label."""
    labels = {it.name: i for i, it in enumerate(code) if isinstance(it, Label)}
    out: set[int] = set()
    for i, it in enumerate(code):
        if isinstance(it, Instruction) and isinstance(it.op, Branch):
            j = labels.get(it.op.target, -1)
            out.update(range(i + 1, j + 1))
    return out
