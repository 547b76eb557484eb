"""``herdsman explain MODEL TEST [--state STATE] [-o DIR] [--json]``: why a model allows or
forbids a final state.

For a state the model forbids: every candidate execution giving it (herd's enumeration,
:mod:`engine.reference.explain`), each with the first check of the model that rejects it
and that check's witness, a cycle whose edges are named by the model's relations
(:mod:`engine.reference.witness`); for a state it allows, one execution it allows.  With
``-o DIR`` each execution is drawn in herd's style (``graphs.dot``), the witness cycle in
thick red edges labelled with the check's name: ``DIR/<test>-candidate-<n>.dot``, and
``DIR/<test>-allowed.dot`` for an allowed execution.

Without ``--state`` the state is the one the test's condition witnesses (its ``exists`` or
``~exists`` clause, which must then be a conjunction of equalities).  ``STATE`` is written
as in herd's conditions (``0:r1=0 /\\ 1:r1=0``) or as herd prints states
(``0:EAX=0; 1:EAX=0;``).  Exit status: 0 (explained, or no candidate gives the state: a
message says so), 2 (bad input: one ``FILE:LINE:COL: error: ...`` line), 3 (``--timeout`` or
``--max-memory`` ran out: one warning line).

The helpers that print an execution, its witness and its picture are shared with
``herdsman diff`` (:mod:`herd_compat.diff`).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import IO, Any

import pydot

from herdsman.cat.api import Model
from herdsman.graphs.dot import PictureOptions, display_numbers, event_action, event_letter, to_dot
from herdsman.graphs.execution import Relations
from herdsman.graphs.layout import spread_flat_labels
from herdsman.herd_compat.analyses.explain.candidates import (
    Candidate,
    Explanation,
    Judgement,
    StateAtoms,
    explain_state,
)
from herdsman.herd_compat.analyses.explain.witness import RelationLens, Witness, step_label
from herdsman.herd_compat.formats.dots import check_outdir, dot_base, write_file
from herdsman.herd_compat.formats.herd_block import state_lines
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import Limits, MemoryLimit
from herdsman.herd_compat.pipeline.load import Loaded, load_program
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Failed, Naming, within_limits
from herdsman.herd_compat.pipeline.status import failure_status
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    And,
    Atom,
    Condition,
    Loc,
    MemLoc,
    Or,
    Prop,
    RegLoc,
    SymRegLoc,
    Value,
)
from herdsman.litmus.base.source import Source
from herdsman.litmus.printer import loc_text, value_text
from herdsman.litmus.state import parse_condition

__all__ = [
    "ExplainConfig",
    "condition_state",
    "execution_json",
    "execution_lines",
    "explain",
    "parse_state",
    "witness_dot",
    "witness_json",
    "witness_lines",
]

#: Where a bad ``--state`` is reported.
STATE_WHERE = "--state"


# ----------------------------------------------------------------------------- inputs


def parse_state(text: str, arch: str, nthreads: int) -> StateAtoms:
    """A state written as herd's conditions (``0:r1=0 /\\ 1:r1=0``) or states
    (``0:EAX=0; 1:EAX=0;``), for a test of architecture ``arch`` with ``nthreads``
    threads; an InputError about ``--state`` if it is not a conjunction of equalities."""
    body = text.strip()
    if not body:
        raise InputError(STATE_WHERE, 1, 1, "empty state")
    if ";" in body and "/\\" not in body and "\\/" not in body:
        prefix, suffix = "observed ", "" if body.endswith(";") else ";"
    else:
        prefix, suffix = "exists (", ")"
    src = Source(prefix + body + suffix, STATE_WHERE)
    try:
        part = parse_condition(src, arch, (0, len(src.text)), nthreads)
    except InputError as e:
        col = max(1, min(e.col - len(prefix), len(body) + 1)) if e.line == 1 else e.col
        raise InputError(STATE_WHERE, e.line, col, e.message) from None
    atoms = _conjunction(part.condition.prop)
    if atoms is None:
        raise InputError(
            STATE_WHERE, 1, 1, "a state is a conjunction of equalities LOC=VALUE (/\\ or ;)"
        )
    return atoms


def _conjunction(prop: Prop) -> StateAtoms | None:
    """The equalities of ``prop`` when it is a conjunction of ``loc = constant`` (each
    location once), else None."""
    while isinstance(prop, (Or, And)) and len(prop.props) == 1:  # ``observed`` gives Or(And)
        prop = prop.props[0]
    parts = prop.props if isinstance(prop, And) else (prop,)
    out: dict[Loc, Any] = {}
    for p in parts:
        if not isinstance(p, Atom) or isinstance(p.value, (RegLoc, MemLoc, SymRegLoc)):
            return None
        if out.setdefault(p.loc, p.value) != p.value:
            return None
    return tuple(out.items()) if out else None


def condition_state(condition: Condition, path: str) -> StateAtoms:
    """The state a test's condition witnesses: its ``exists``/``~exists`` proposition when
    that is a conjunction of equalities (else an InputError asking for ``--state``)."""
    atoms = _conjunction(condition.prop) if condition.quant in ("exists", "~exists") else None
    if atoms is None:
        raise InputError(
            path,
            0,
            0,
            "the test's final condition is not an exists (or ~exists) of a single conjunction "
            "of equalities: give the state to explain with --state",
        )
    return atoms


# ----------------------------------------------------------------------------- text


def _letters(rels: Relations) -> dict[int, str]:
    num = display_numbers(rels)
    return {i: event_letter(k) for i, k in num.items()}


def _event(rels: Relations, letters: dict[int, str], i: int) -> str:
    return f"{letters[i]}: {event_action(rels.events[i])}"


def execution_lines(rels: Relations, indent: str = "  ") -> list[str]:
    """An execution as text: each thread's events in program order (herd's letters, as in
    the pictures), the initial writes, rf and co."""
    letters = _letters(rels)
    evs = rels.events
    out = []
    threads: dict[int, list[int]] = {}
    for i, e in enumerate(evs):
        if e.tid >= 0:
            threads.setdefault(e.tid, []).append(i)
    for t in sorted(threads):
        out.append(f"{indent}P{t}: " + "; ".join(_event(rels, letters, i) for i in threads[t]))
    inits = [i for i, e in enumerate(evs) if e.tid < 0]
    if inits:
        out.append(f"{indent}init: " + "; ".join(_event(rels, letters, i) for i in inits))
    U = rels.U
    rf = [f"{letters[w]}->{letters[r]}" for w, r in U.pairs(rels.rf)]
    out.append(f"{indent}rf: " + (", ".join(rf) if rf else "(none)"))
    co = []
    for loc in rels.sk.locations:
        order = rels.co_order(loc)
        if len(order) > 1:
            co.append(f"{loc}: " + " -> ".join(letters[w] for w in order))
    out.append(f"{indent}co: " + ("; ".join(co) if co else "(no location written twice)"))
    return out


def witness_lines(w: Witness, rels: Relations, indent: str = "  ") -> list[str]:
    """The witness of a rejecting check as text: the cycle with its edges named, or the
    pairs of an ``empty`` check."""
    letters = _letters(rels)

    def ev(i: int) -> str:
        return _event(rels, letters, i)

    what = f"{w.kind} {w.expression}" if w.expression else w.kind
    if not w.steps:
        return [f"{indent}({w.axiom}: {what}; no witness to show)"]
    note = "" if w.evaluated else "  (the model's relations could not be evaluated)"
    if w.kind == "empty":
        pairs = ", ".join(f"({ev(s.src)}, {ev(s.dst)})" for s in w.steps)
        return [f"{indent}{w.axiom}: {what} holds {pairs}{note}"]
    chain = " ".join(f"{ev(s.src)} -{step_label(s)}->" for s in w.steps)
    return [
        f"{indent}cycle of {w.axiom} ({what}):{note}",
        f"{indent}  {chain} {ev(w.steps[0].src)}",
    ]


def state_text(state: StateAtoms, arch: str) -> str:
    """A state as herd prints states (``0:r1=0; 1:r1=0;``)."""
    return state_lines([loc for loc, _ in state], [tuple(v for _, v in state)], arch)[0]


# ----------------------------------------------------------------------------- pictures

#: How a witness's edges are drawn: thick red, labelled with the check's name.
HIGHLIGHT: dict[str, Any] = {"color": "red", "fontcolor": "red", "penwidth": "3"}


def witness_dot(
    rels: Relations,
    test_name: str,
    model_name: str,
    caption: str,
    witness: Witness | None = None,
) -> str:
    """The execution drawn in herd's style with ``graphs.dot`` (co and fr shown), the
    witness cycle highlighted: a drawn edge it follows turns thick and red, labelled
    ``AXIOM: relation``; the others are added so."""
    text = to_dot(
        rels, test_name=test_name, model_name=model_name, options=PictureOptions(caption=caption)
    )
    if witness is None or not witness.steps:
        return text if text.endswith("\n") else text + "\n"
    with warnings.catch_warnings():  # pydot's parser uses pyparsing's older names
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = pydot.graph_from_dot_data(text)
    if not parsed:
        raise ValueError("graphs.dot produced DOT text pydot cannot read")
    g = parsed[0]
    num = display_numbers(rels)
    for s in witness.steps:
        a, b = f"eiid{num[s.src]}", f"eiid{num[s.dst]}"
        label = f'"{witness.axiom}: {step_label(s)}"'
        names = {s.relation, s.base}
        names.add(s.base[:2] if s.base[:2] in ("rf", "co", "fr") else "po" if s.base else "")
        same = [e for e in g.get_edge(a, b) if (e.get("label") or "").strip('"') in names]
        if same:
            edge = same[0]
            for k, v in HIGHLIGHT.items():
                edge.set(k, v)
            edge.set("label", label)
        else:
            # a cycle's edge orders no rank: the threads' rows stay (graphs.layout)
            g.add_edge(pydot.Edge(a, b, label=label, constraint="false", **HIGHLIGHT))
    spread_flat_labels(g)  # room for the cycle's labels within a row
    out = g.to_string()
    return out if out.endswith("\n") else out + "\n"


# ----------------------------------------------------------------------------- JSON


def execution_json(rels: Relations) -> dict[str, Any]:
    """An execution as JSON: events (letter, thread, action, instruction), rf, co."""
    letters = _letters(rels)
    U = rels.U
    return {
        "events": [
            {
                "id": letters[i],
                "thread": e.tid if e.tid >= 0 else None,
                "action": event_action(e),
                "instruction": e.instr,
            }
            for i, e in enumerate(rels.events)
        ],
        "rf": [[letters[w], letters[r]] for w, r in U.pairs(rels.rf)],
        "co": {
            loc: [letters[w] for w in rels.co_order(loc)]
            for loc in rels.sk.locations
            if len(rels.co_order(loc)) > 1
        },
    }


def witness_json(w: Witness, rels: Relations) -> dict[str, Any]:
    letters = _letters(rels)
    return {
        "axiom": w.axiom,
        "name": w.name,
        "kind": w.kind,
        "expression": w.expression,
        "evaluated": w.evaluated,
        "cycle": [letters[i] for i in w.cycle],
        "edges": [
            {
                "from": letters[s.src],
                "to": letters[s.dst],
                "relation": s.relation,
                "base": s.base,
                "label": step_label(s),
            }
            for s in w.steps
        ],
    }


def _judgement_json(j: Judgement, rels: Relations) -> dict[str, Any]:
    out: dict[str, Any] = {"allowed": j.allowed}
    if j.witness is not None:
        out["witness"] = witness_json(j.witness, rels)
    elif j.failure is not None:
        out["check"] = j.failure.name
    return out


def _candidate_json(c: Candidate) -> dict[str, Any]:
    return {
        "number": c.number,
        **_judgement_json(c.judgement, c.rels),
        "execution": execution_json(c.rels),
    }


# ----------------------------------------------------------------------------- explain


@dataclass
class ExplainConfig:
    """``herdsman explain``'s options."""

    model: str
    test: str
    state: str | None = None
    outdir: str | None = None
    json: bool = False
    include_dirs: list[str] = field(default_factory=list)
    variants: set[str] = field(default_factory=set)
    bell: str | None = None  # herd's -bell
    macros: str | None = None  # herd's -macros
    limits: Limits = field(default_factory=Limits)
    limit: int | None = None


def _report_text(
    ex: Explanation, t: Loaded, model: Model, files: dict[int, str], limit: int | None
) -> list[str]:
    st = state_text(ex.state, t.arch)
    lines = [f"Test {t.name} ({t.arch}), model {model.spec} ({model.path})"]
    lines.append(f"State: {st}")
    n = ex.total
    plural = "s" if n != 1 else ""
    if ex.verdict == "unreachable":
        lines.append(
            "No candidate execution gives this state: no thread execution (with values its "
            "reads can see) and no rf and co choice produces it, whatever the model."
        )
        if ex.cyclic_values:
            lines.append(
                "(Candidates reading these values would make a value depend on itself, "
                "out of thin air: herd's enumeration builds none of them.)"
            )
        return lines
    if ex.verdict == "allowed":
        assert ex.witness is not None
        lines.append(
            f"Allowed: {n} candidate execution{plural} give{'s' if n == 1 else ''} this state; "
            f"the model allows {ex.allowed}. An allowed one (candidate {ex.witness.number}):"
        )
        lines += execution_lines(ex.witness.rels)
        if 0 in files:
            lines.append(f"  picture: {files[0]}")
        return lines
    rejected = ex.rejected or []
    lines.append(
        f"Forbidden: {n} candidate execution{plural} give{'s' if n == 1 else ''} this state; "
        f"the model rejects {'it' if n == 1 else 'every one'}."
    )
    for c in rejected:
        j = c.judgement
        lines.append("")
        axiom = j.axiom or "a co or with choice of the model"
        lines.append(f"Candidate {c.number} of {n}: rejected by {axiom}")
        lines += execution_lines(c.rels)
        if j.witness is not None:
            lines += witness_lines(j.witness, c.rels)
        if c.number in files:
            lines.append(f"  picture: {files[c.number]}")
    if limit is not None and len(rejected) < n:
        lines.append("")
        lines.append(f"... and {n - len(rejected)} more candidates (--max {limit})")
    return lines


def _json_value(v: Value) -> int | str:
    return v if isinstance(v, int) else value_text(v)


def explain(cfg: ExplainConfig, out: IO[str] | None = None) -> int:
    """Run ``herdsman explain`` as ``cfg`` says; the exit status."""
    out = out or sys.stdout
    check_outdir(cfg.outdir)
    if cfg.outdir == "-":
        raise InputError("-", 0, 0, "explain writes pictures to a directory: give -o DIR")
    run_cfg = RunConfig(
        model=cfg.model,
        include_dirs=cfg.include_dirs,
        variants=cfg.variants,
        bell=cfg.bell,
        macros=cfg.macros,
    )
    models = ModelCache(run_cfg)

    def work(naming: Naming) -> tuple[Loaded, StateAtoms, Explanation]:
        t = load_program(cfg.test, models)
        assert isinstance(t, Loaded)  # every test admitted
        naming.name = t.name
        if cfg.state is not None:
            state = parse_state(cfg.state, t.arch, t.nthreads)
        else:
            state = condition_state(t.condition, t.path)
        return t, state, explain_state(t.program, t.model, state, RelationLens(t.model), cfg.limit)

    with MemoryLimit(cfg.limits.memory_limit):
        done = within_limits(cfg.test, cfg.limits, work)
    if isinstance(done, Failed):
        sys.stderr.write(done.message + "\n")
        return failure_status(done.kind)
    t, state, ex = done
    model = t.model
    model_name = model.name or os.path.basename(str(model.spec))
    files: dict[int, str] = {}
    if cfg.outdir:
        base = os.path.join(cfg.outdir, dot_base(t.path))
        st = state_text(state, t.arch)
        for c in ex.rejected or []:
            axiom = c.judgement.axiom or "the model"
            cap = f"candidate {c.number} of {ex.total}: {st} rejected by {axiom}"
            target = f"{base}-candidate-{c.number}.dot"
            write_file(target, witness_dot(c.rels, t.name, model_name, cap, c.judgement.witness))
            files[c.number] = target
        if ex.witness is not None:
            cap = f"candidate {ex.witness.number} of {ex.total}: {st} allowed"
            target = f"{base}-allowed.dot"
            write_file(target, witness_dot(ex.witness.rels, t.name, model_name, cap))
            files[0] = target
    if cfg.json:
        doc = {
            "test": t.name,
            "file": t.path,
            "arch": t.arch,
            "model": cfg.model,
            "model_file": model.path,
            "state": {loc_text(loc): _json_value(v) for loc, v in state},
            "verdict": ex.verdict,
            "candidates": ex.total,
            "allowed": ex.allowed,
            "rejected": [_candidate_json(c) for c in ex.rejected or []],
            "witness": None if ex.witness is None else _candidate_json(ex.witness),
            "pictures": {str(k): v for k, v in files.items()},
        }
        out.write(json.dumps(doc, indent=1) + "\n")
    else:
        out.write("\n".join(_report_text(ex, t, model, files, cfg.limit)) + "\n")
    return 0
