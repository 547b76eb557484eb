"""Why a model rejects an execution: the failing check's witness cycle, each edge named.

For a failed check (cat's ``Failure``: a bare cycle, event or pair), :class:`RelationLens`
reads the check's operand and the model's definitions as terms (``cat.api.check_view``:
herdsman's own records of relation expressions, with their cat text), has the model
evaluate every sub-expression right after the check (``cat.api.probe``), and decomposes
each edge along the expression: a union edge by its first member holding it, a sequence
through intermediate events, a closure by a shortest path, a name by its definition (not a
recursive one; an intersection or difference keeps its name for a single base edge). Each
step is labelled with the model's relation (the innermost name) and the execution's base
relation (``rfe``, ``fre``, ``lwsync``, ``addr``, ``po``...). When the check cannot be
read or evaluated (inside a procedure, say), the witness is cat's cycle with edges named
by base relations only (``evaluated`` False).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from herdsman.cat.api import (
    AxiomInfo,
    CheckView,
    Definition,
    Failure,
    Model,
    Probe,
    Term,
    check_view,
    probe,
)
from herdsman.graphs.execution import Relations
from herdsman.graphs.herdnames import static_names
from herdsman.graphs.relalg import Universe

__all__ = ["RelationLens", "Step", "Witness", "base_relation", "step_label"]


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Step:
    """One edge of a witness: ``src`` -> ``dst`` (skeleton event numbers), in the model's
    relation ``relation`` (a name of the model, or a sub-expression's text), which is the
    execution's base relation ``base`` (``rfe``, ``fre``, ``lwsync``, ``addr``, ``po``...;
    empty when the edge is no single base edge)."""

    src: int
    dst: int
    relation: str
    base: str


@dataclass(frozen=True, slots=True)
class Witness:
    """Why check ``axiom`` (its ``name``, None if unnamed, and ``kind``) rejects an
    execution.  ``expression``: the check's operand as read from the model ('' when it
    could not be read); ``cycle``: cat's witness (a cycle of the operand for ``acyclic``,
    the event ``e`` with ``(e, e)`` in it for ``irreflexive``, one pair or event for
    ``empty``); ``steps``: for ``acyclic`` and ``irreflexive`` a closed walk through the
    cycle's events, each edge named, for ``empty`` the operand's pairs; ``evaluated``:
    whether the relations were evaluated with the model (else only the base relations
    name the edges)."""

    axiom: str
    name: str | None
    kind: str
    expression: str
    cycle: tuple[int, ...]
    steps: tuple[Step, ...]
    evaluated: bool


def step_label(step: Step) -> str:
    """How a step is printed: the model's relation, with the base relation when it says
    more (``prop(lwsync)``, ``ppo(addr)``; ``fre`` for an edge of ``fr``)."""
    rel, base = step.relation, step.base
    if not base or base == rel or base == "po":
        return rel
    if rel in ("rf", "co", "fr") and base.startswith(rel):
        return base
    return f"{rel}({base})"


# ----------------------------------------------------------------------------- base names


def base_names(rels: Relations, arch: str) -> list[tuple[str, int]]:
    """The execution's base relations, most specific first: communications (internal or
    external), ``rmw``, fences (``po; [F]; po`` per fence kind), dependencies, ``po``."""
    sk = rels.sk
    U = sk.U
    ext = sk.ext
    out = [
        ("rfe", rels.rf & ext),
        ("rfi", rels.rf & ~ext),
        ("coe", rels.co & ext),
        ("coi", rels.co & ~ext),
        ("fre", rels.fr & ext),
        ("fri", rels.fr & ~ext),
    ]
    names = static_names(sk, arch)
    rmw = names.get("rmw")
    if rmw is not None and rmw[0] == "rel":
        out.append(("rmw", rmw[1]))
    po = sk.po
    fenced = {
        kind.lower(): U.seq(U.restrict_range(po, fences), po) for kind, fences in sk.fences.items()
    }
    if "isync" in fenced:  # a control dependency to a read beyond an isync (herd's name)
        out.append(("ctrlisync", sk.deps.get("ctrl", 0) & fenced["isync"]))
    out += fenced.items()
    for dep in ("addr", "data", "ctrl"):
        out.append((dep, sk.deps.get(dep, 0)))
    out.append(("po", po))
    return out


def base_relation(names: Sequence[tuple[str, int]], U: Universe, a: int, b: int) -> str:
    """The first of ``names`` (see :func:`base_names`) holding the edge ``a`` -> ``b``."""
    for name, r in names:
        if U.has(r, a, b):
            return name
    return ""


# ----------------------------------------------------------------------------- the lens


class _View:
    """One check of the model, readable: its operand and the definitions in force there
    (terms, ``cat.api.check_view``), and the sub-expressions a witness may need,
    evaluated by the model right after the check."""

    MAX_DEPTH = 8

    def __init__(self, model: Model, info: AxiomInfo) -> None:
        self.view: CheckView | None = check_view(model, info)
        self.expression = "" if self.view is None else self.view.operand.text
        self.defs: Mapping[str, Definition] = {} if self.view is None else self.view.definitions
        self.shown: dict[str, Term] = {}  # expression text -> term
        self.probe: Probe | None = None
        if self.view is not None:
            self._collect(self.view.operand, (), 0)
            self.probe = probe(model, self.view, list(self.shown.values()))

    def _collect(self, e: Term, stack: tuple[str, ...], depth: int) -> None:
        """Every sub-expression that :meth:`_Walk.path` may evaluate."""
        self.shown.setdefault(e.text, e)
        if e.op in ("union", "seq"):
            for a in e.args:
                self._collect(a, stack, depth)
        elif e.op in ("star", "plus", "opt"):
            self._collect(e.args[0], stack, depth)
        elif e.op in ("inter", "diff"):
            main = _main_operand(e)
            if main is not None:
                self._collect(main, stack, depth)
        elif e.op == "name":
            d = self._expandable(e.text, stack, depth)
            if d is not None:
                self._collect(d, (*stack, e.text), depth + 1)

    def _expandable(self, name: str, stack: tuple[str, ...], depth: int) -> Term | None:
        d = self.defs.get(name)
        if d is None or d.rec or name in stack or depth >= self.MAX_DEPTH:
            return None
        return d.term

    def values(self, rels: Relations, arch: str) -> dict[str, int] | None:
        """Every shown sub-expression's value on the execution ``rels`` (by text)."""
        assert self.probe is not None
        got = self.probe.values(rels, arch)
        if got is None:
            return None
        return {t: v for t, v in zip(self.shown, got, strict=True) if v is not None}


class _Walk:
    """Decomposing edges of a check's operand along its expression (see the module
    docstring), on one execution."""

    def __init__(
        self, view: _View, vals: dict[str, int], U: Universe, names: list[tuple[str, int]]
    ) -> None:
        self.view = view
        self.vals = vals
        self.U = U
        self.names = names

    def leaf(self, a: int, b: int, label: str) -> list[Step]:
        return [Step(a, b, label, base_relation(self.names, self.U, a, b))]

    def path(
        self, e: Term, a: int, b: int, ctx: str | None, stack: tuple[str, ...], depth: int
    ) -> list[Step] | None:
        """Steps from ``a`` to ``b`` through relations of ``e`` (None: ``(a, b)`` is not
        in ``e``'s value, or it is unknown)."""
        U = self.U
        text = e.text
        v = self.vals.get(text)
        if v is None or not U.has(v, a, b):
            return None
        label = ctx if ctx is not None else text
        if e.op == "union":
            for sub in e.args:
                got = self.path(sub, a, b, ctx, stack, depth)
                if got is not None:
                    return got
            return self.leaf(a, b, label)
        if e.op == "seq":
            subs = e.args
            rels = [self.vals.get(s.text) for s in subs]
            known = [r for r in rels if r is not None]
            chain = _chain(U, a, b, known) if len(known) == len(rels) else None
            if chain is None:
                return self.leaf(a, b, label)
            steps: list[Step] = []
            for sub, x, y in zip(subs, chain, chain[1:], strict=False):
                if x != y:
                    steps += self.path(sub, x, y, ctx, stack, depth) or self.leaf(x, y, label)
            return steps
        if e.op in ("star", "plus", "opt"):
            if a == b and e.op != "plus":
                return []
            arg = e.args[0]
            r = self.vals.get(arg.text)
            route = None if r is None else U.route(r, a, b)
            if route is None:
                return self.leaf(a, b, label)
            steps = []
            for x, y in zip(route, route[1:], strict=False):
                steps += self.path(arg, x, y, ctx, stack, depth) or self.leaf(x, y, label)
            return steps
        if e.op == "toid" and a == b:
            return []
        if e.op in ("inter", "diff"):
            # one base edge keeps the name (``prop(lwsync)``); a composite edge is
            # decomposed along the operand that the others only restrict
            main = _main_operand(e)
            if main is not None and not base_relation(self.names, U, a, b):
                got = self.path(main, a, b, ctx, stack, depth)
                if got is not None:
                    return got
            return self.leaf(a, b, label)
        if e.op == "name":
            name = e.text
            d = self.view._expandable(name, stack, depth)
            if d is not None:
                got = self.path(d, a, b, name, (*stack, name), depth + 1)
                if got is not None:
                    return got
            rec = self.view.defs.get(name)
            if rec is not None and rec.rec and ctx is not None:
                return self.leaf(a, b, ctx)
            return self.leaf(a, b, name)
        return self.leaf(a, b, label)


def _main_operand(e: Term) -> Term | None:
    """The operand of an intersection or difference that the others restrict: the first
    one of a difference, the first of an intersection that is no product of sets, no
    ``[S]``, no application, tag, set or universe (those filter)."""
    if e.op == "diff":
        return e.args[0]
    return next((a for a in e.args if not _filters(a)), None)


#: The operators of terms with several operands, and with one (see ``cat.api.Term``).
_NARY = ("union", "seq", "inter", "diff", "cartesian", "add")
_UNARY = ("star", "plus", "opt", "inv", "toid", "comp")


def _filters(e: Term) -> bool:
    """Whether ``e`` only restricts the operand it meets (a product of sets, ``[S]``, an
    application, tag, set, ``{}`` or ``_``)."""
    if e.op in _NARY:
        return e.op == "cartesian"
    if e.op in _UNARY:
        return e.op == "toid"
    if e.op in ("empty", "universe"):
        return True
    return e.op not in ("name", "zero")


def _chain(U: Universe, a: int, b: int, rels: Sequence[int]) -> list[int] | None:
    """Events ``a = x0, x1, ..., xk = b`` with ``(x[i], x[i+1])`` in ``rels[i]``, staying
    put where a relation allows it (identity steps vanish); None if there are none."""
    k = len(rels)
    back = [0] * (k + 1)
    back[k] = 1 << b
    for i in reversed(range(k)):
        back[i] = U.domain(U.restrict_range(rels[i], back[i + 1]))
    if not (back[0] >> a) & 1:
        return None
    xs = [a]
    x = a
    for i in range(k):
        succ = U.row(rels[i], x) & back[i + 1]
        x = x if (succ >> x) & 1 else (succ & -succ).bit_length() - 1
        xs.append(x)
    return xs


def _explain(
    view: _View,
    vals: dict[str, int],
    U: Universe,
    names: list[tuple[str, int]],
    kind: str,
    cycle: tuple[int, ...],
) -> tuple[tuple[int, ...], tuple[Step, ...]] | None:
    """cat's witness ``cycle`` of check ``view`` decomposed into named steps; None when
    the relations the copy of the model showed do not hold it."""
    assert view.view is not None
    root = view.view.operand
    top = vals.get(root.text)
    if top is None or not cycle:
        return None
    walk = _Walk(view, vals, U, names)
    if kind == "acyclic":
        steps: list[Step] = []
        for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            got = walk.path(root, a, b, None, (), 0)
            if got is None:
                return None
            steps += got
        return cycle, tuple(steps)
    if kind == "irreflexive":
        got = walk.path(root, cycle[0], cycle[0], None, (), 0)
        return None if got is None else (cycle, tuple(got))
    pairs = U.pairs(top)
    if len(cycle) == 2 and (cycle[0], cycle[1]) not in pairs:
        return None
    text = root.text
    return cycle, tuple(Step(a, b, text, base_relation(names, U, a, b)) for a, b in pairs)


def _unevaluated(
    kind: str, cycle: tuple[int, ...], U: Universe, names: list[tuple[str, int]], text: str
) -> tuple[Step, ...]:
    """cat's witness with edges named by the base relations only (or the check's text)."""
    if kind == "acyclic" and cycle:
        out = []
        for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            base = base_relation(names, U, a, b)
            out.append(Step(a, b, base or text, base))
        return tuple(out)
    if kind == "irreflexive" and cycle:
        return (Step(cycle[0], cycle[0], text, ""),)
    if kind == "empty" and len(cycle) == 2:
        return (Step(cycle[0], cycle[1], text, base_relation(names, U, cycle[0], cycle[1])),)
    return ()


class RelationLens:
    """A model's checks, readable on executions (see the module docstring): built once per
    model, each check read (and its showing copy of the model compiled) on first use."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._views: dict[int, _View] = {}

    def axiom_display(self, info: AxiomInfo | None, failure: Failure) -> str:
        """How a check is named: its name, or ``unnamed <kind> check at FILE:LINE``."""
        if failure.name is not None:
            return failure.name
        if info is None:
            return f"unnamed {failure.kind} check"
        return f"unnamed {info.kind} check at {os.path.basename(info.pos.file)}:{info.pos.line}"

    def candidates(self, failure: Failure) -> Iterator[tuple[int, AxiomInfo]]:
        """The model's checks that may have given ``failure`` (same name and kind)."""
        for k, info in enumerate(self.model.axioms):
            if info.mode == "check" and not info.skipped:
                if info.name == failure.name and info.kind == failure.kind:
                    yield k, info

    def _view(self, k: int, info: AxiomInfo) -> _View:
        view = self._views.get(k)
        if view is None:
            view = self._views[k] = _View(self.model, info)
        return view

    def witness(self, failure: Failure, rels: Relations, arch: str) -> Witness:
        """The witness of ``failure`` (a failed check of this model) on the execution
        ``rels`` (its skeleton, rf and co), edges named."""
        names = base_names(rels, arch)
        U = rels.U
        cycle = tuple(failure.witness or ())
        fallback: tuple[AxiomInfo | None, str] = (None, "")
        for k, info in self.candidates(failure):
            view = self._view(k, info)
            if fallback[0] is None:
                fallback = (info, view.expression)
            if view.probe is None or not cycle:
                continue
            vals = view.values(rels, arch)
            if vals is None:
                continue
            got = _explain(view, vals, U, names, failure.kind, cycle)
            if got is not None:
                display = self.axiom_display(info, failure)
                return Witness(display, failure.name, failure.kind, view.expression, *got, True)
        first, expression = fallback
        steps = _unevaluated(failure.kind, cycle, U, names, expression or failure.kind)
        display = self.axiom_display(first, failure)
        return Witness(display, failure.name, failure.kind, expression, cycle, steps, False)
