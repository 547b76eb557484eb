"""``herdsman fences PROGRAM|TEST --model tso|pso|power|rc11``: the fewest (cheapest)
fences that make a program safe, found by :mod:`engine.fences` and checked on the fenced
text.

A C program (``.c``) is judged by TSO_k (PSO_k) to the fixpoint, so "safe" is safe for
every buffer size (or up to ``--max-bound`` when no fixpoint is reached, said so), or
under POWER by the reference engine (under RC11 by TruSt: release stores, acquire loads
and C11 fences, the weakest that do) with loops run at most ``--unroll`` times; a litmus
test is run under the model and is safe when no allowed execution witnesses its
condition.  The report: one line per round (placements tried, what the oracle found, the
first violating execution's critical cycles), then the placements with their source
lines and the final verdict.  ``-o FILE`` writes the fenced program in the input's own
format; ``--json`` prints one JSON object instead.  Exit status
(:mod:`herd_compat.pipeline.status`): 0 safe (with or without placements), 1 no placement
among the candidates makes it safe (e.g. it fails under SC), 2 bad input, 3 time, memory
or state limit.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field

from herdsman.cat.api import PreparedModel, load_model
from herdsman.engine.errors import TimeLimitExceeded
from herdsman.engine.options import DEFAULT_UNROLL, RunOptions
from herdsman.herd_compat.analyses.fences.oracles import LitmusOracle, OracleGaveUp
from herdsman.herd_compat.analyses.fences.orders import ORDER_KINDS
from herdsman.herd_compat.analyses.fences.programs import C_FENCES, ProgramOracle, c_loader
from herdsman.herd_compat.analyses.fences.solve import COSTS, Candidate
from herdsman.herd_compat.analyses.fences.synth import Round, Synthesis, synthesise
from herdsman.herd_compat.cli import COMMANDS
from herdsman.herd_compat.cli.args import Parser, UsageError
from herdsman.herd_compat.cli.options import (
    add_engine_options,
    add_limit_options,
    limits_of,
    unroll_of,
)
from herdsman.herd_compat.cli.verify import defines_of
from herdsman.herd_compat.formats.dots import write_file
from herdsman.herd_compat.pipeline.limits import (
    RUN_LIMITS,
    CpuTimeLimit,
    Limits,
    MemoryLimit,
    grace,
    memory_line,
    time_line,
)
from herdsman.herd_compat.pipeline.load import read_input
from herdsman.herd_compat.pipeline.status import LIMIT, NEGATIVE, OK
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import read_source
from herdsman.litmus.c import CLitmus
from herdsman.litmus.test import Instruction

__all__ = ["FencesConfig", "fences"]

DESCRIPTION = COMMANDS["fences"]
#: The models fences are placed for (the identities' families whose relaxations
#: ``analyses/fences/models.py`` knows).
MODELS = ("tso", "pso", "power", "rc11")
#: Exit statuses.
SAFE, NO_FIX, NO_VERDICT = OK, NEGATIVE, LIMIT


def parser() -> Parser:
    """``herdsman fences``'s command line."""
    p = Parser(
        prog="herdsman fences",
        description=DESCRIPTION + ". Exit 0: safe (with the placements printed), "
        "1: no placement helps, 2: bad input, 3: time, memory or state limit.",
    )
    p.add_argument("program", metavar="FILE.c|TEST.litmus")
    p.add_argument(
        "--model", "-m", required=True, help="tso, pso (C, X86), power (C, PPC) or rc11 (C)"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the fenced program to FILE")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument(
        "--max-bound",
        type=int,
        default=12,
        metavar="K",
        help="C programs: search store buffers up to K (to the fixpoint; default 12)",
    )
    p.add_argument("--max-states", type=int, metavar="N", help="C programs: states per bound")
    add_engine_options(p, "C programs under power: loops run at most N times", unroll=2)
    add_limit_options(p, "the search", RUN_LIMITS)
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    return p


def main(argv: list[str]) -> int:
    """``herdsman fences``'s entry point (errors are the caller's: ``cli.main.guarded``)."""
    a = parser().parse_args(argv)
    if model_name(a.model) is None:
        raise UsageError(
            f"--model {a.model}: fences are placed for {', '.join(MODELS)} "
            "(or herd's x86tso.cat, pso.cat, ppc.cat)"
        )
    if a.max_bound < 0:
        raise UsageError("--max-bound must be >= 0")
    if a.max_states is not None and a.max_states < 1:
        raise UsageError("--max-states must be >= 1")
    cfg = FencesConfig(
        program=a.program,
        model=a.model,
        output=a.output,
        json=a.json,
        max_bound=a.max_bound,
        max_states=a.max_states,
        limits=limits_of(a, RUN_LIMITS),
        engine=a.engine,
        unroll=unroll_of(a) or 0,
        defines=defines_of(a.defines),
        include_dirs=a.include,
    )
    return fences(cfg)


@dataclass
class FencesConfig:
    """A ``herdsman fences`` command line."""

    program: str
    model: str
    output: str | None = None
    json: bool = False
    max_bound: int = 12
    max_states: int | None = None
    limits: Limits = field(default_factory=Limits)
    engine: str = "auto"
    unroll: int = DEFAULT_UNROLL
    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)


def _family(model: PreparedModel) -> str | None:
    """The model of :data:`MODELS` ``model`` is (its identity's family), or None."""
    family = model.identity.family
    return family if family in MODELS else None


def model_name(name: str) -> str | None:
    """The model of :data:`MODELS` ``--model NAME`` is (a built-in name, herd's name or
    a cat file, known by its text: ``cat.identity``), or None."""
    try:
        return _family(load_model(name))
    except InputError:
        return None


def fences(cfg: FencesConfig) -> int:
    """Run ``herdsman fences``; the exit status."""
    with MemoryLimit(cfg.limits.memory_limit):
        try:
            return _fences(cfg)
        except MemoryError:  # one line, once the search has let go of its data
            pass
    sys.stderr.write(memory_line(cfg.program, cfg.limits, "no verdict") + "\n")
    return NO_VERDICT


def _fences(cfg: FencesConfig) -> int:
    """:func:`fences` within its memory bound."""
    path = cfg.program
    loaded = load_model(cfg.model)
    model = _family(loaded)
    if model is None:
        raise ValueError(f"unknown model {cfg.model!r}")
    cfg.model = model
    if not os.path.exists(path):  # directories, FIFOs and devices: refused when read
        raise InputError(path, 0, 0, "no such file")
    time_limit = cfg.limits.time_limit
    deadline = None if time_limit is None else time.process_time() + time_limit
    progress_rounds: list[Round] = []
    oracle_c: ProgramOracle | None = None
    oracle_l: LitmusOracle | None = None

    def progress(rnd: Round) -> None:
        if not cfg.json:
            sys.stdout.write(_round_line(len(progress_rounds) + 1, rnd, oracle_c) + "\n")
            sys.stdout.flush()
        progress_rounds.append(rnd)

    backstop = None if time_limit is None else time_limit + grace(time_limit)
    try:  # the search stops itself at its limit first, and says how far it got
        with CpuTimeLimit(backstop):
            if path.endswith(".c"):
                oracle_c = _c_oracle(cfg, loaded)
            else:
                oracle_l = _litmus_oracle(cfg, loaded)
            oracle = oracle_c or oracle_l
            assert oracle is not None
            res = synthesise(oracle, on_round=progress, deadline=deadline)
    except OracleGaveUp as e:
        sys.stderr.write(f"{path}:0:0: warning: {e}, no verdict\n")
        return NO_VERDICT
    except TimeLimitExceeded:  # reading the input, or a phase outside the search's checks
        sys.stderr.write(time_line(path, cfg.limits, "no verdict") + "\n")
        return NO_VERDICT
    placements = [_placement(c, oracle_c, oracle_l) for c in sorted(res.chosen)]
    if res.safe and cfg.output:
        write_file(cfg.output, oracle.text)
    if cfg.json:
        sys.stdout.write(json.dumps(_json(cfg, res, placements, oracle_c)) + "\n")
    else:
        sys.stdout.write(_report(cfg, res, placements, oracle_c))
    if res.safe:
        return SAFE
    return NO_VERDICT if "time limit" in res.why else NO_FIX


# ----------------------------------------------------------------------------- oracles


def _c_oracle(cfg: FencesConfig, model: PreparedModel) -> ProgramOracle:
    target = model.identity.target
    load = c_loader(cfg.program, target, cfg.defines, cfg.include_dirs)
    text = read_source(cfg.program).text
    return ProgramOracle(
        text,
        cfg.program,
        load,
        cfg.model,
        cfg.max_bound,
        cfg.limits.time_limit,
        cfg.max_states,
        cfg.unroll,
    )


def _litmus_oracle(cfg: FencesConfig, model: PreparedModel) -> LitmusOracle:
    test = read_input(cfg.program)
    if isinstance(test, CLitmus):
        raise InputError(cfg.program, 0, 0, "fences for a C litmus test: X86 and PPC tests only")
    want = {"X86": ("tso", "pso"), "PPC": ("power",)}.get(test.arch, ())
    if cfg.model not in want:
        raise InputError(
            cfg.program,
            0,
            0,
            f"fences for a {test.arch} test: --model "
            + (" or ".join(want) if want else "(none: X86 and PPC tests only)"),
        )
    opts = RunOptions(engine=cfg.engine, time_limit=cfg.limits.time_limit)
    return LitmusOracle(test, model, cfg.model, opts)


# ----------------------------------------------------------------------------- text


@dataclass
class Placement:
    """A chosen placement as the user reads it: where (line or thread and instruction)
    and what."""

    where: str
    before: str
    what: str
    cost: int
    how: str = "before"  # "on": an order written on the access of ``before``


def _placement(c: Candidate, oc: ProgramOracle | None, ol: LitmusOracle | None) -> Placement:
    if oc is not None:
        assert isinstance(c.site, int)  # a C program's sites are lines
        line = c.site
        src = oc.source.splitlines()
        stmt = src[line - 1].strip() if 0 < line <= len(src) else ""
        if c.kind in ORDER_KINDS:  # memory_order_release or _acquire on the access
            what = f"memory_order_{c.kind.split()[0]}"
            return Placement(f"line {line}", stmt, what, COSTS[c.kind], "on")
        return Placement(f"line {line}", stmt, C_FENCES[c.kind].rstrip(";"), COSTS[c.kind])
    assert ol is not None
    assert isinstance(c.site, tuple)  # a litmus test's sites: (thread, position)
    t, p = c.site
    code = ol.test.threads[t]
    nxt = next((it for it in code[p:] if isinstance(it, Instruction)), None)
    before = nxt.text if nxt is not None else "(end)"
    what = c.kind if c.kind in ("MFENCE", "sync", "lwsync") else _dep_text(c.kind)
    return Placement(f"P{t}:{p}", before, what, COSTS[c.kind])


def _dep_text(kind: str) -> str:
    return "control dependency + isync" if kind == "ctrlisync" else "control dependency"


def _round_line(n: int, rnd: Round, oc: ProgramOracle | None) -> str:
    tried = f"{len(rnd.chosen)} placement(s)" if rnd.chosen else "no placements"
    if rnd.violations == 0:
        found = "safe"
    elif oc is not None and oc.mode == "rc11":
        found = "unsafe (rc11)"
    elif oc is not None:
        found = f"unsafe ({oc.mode.upper()}_{oc.bound})"
    else:
        found = f"{rnd.violations} violating execution(s)"
    line = f"round {n}: {tried}: {found}"
    if rnd.cycles:
        line += f"; critical cycle: {rnd.cycles[0]}"
    if rnd.blocked:
        line += " (fenced as its cycles ask, still allowed: a stronger placement is needed)"
    return line


def _report(
    cfg: FencesConfig, res: Synthesis, placements: list[Placement], oc: ProgramOracle | None
) -> str:
    lines = []
    if res.safe:
        n = len(placements)
        lines.append(f"Placements ({n}, cost {sum(p.cost for p in placements)}):")
        lines += [f"  {p.where}: {p.what} {p.how} {p.before}" for p in placements]
        if not placements:
            lines.append("  none: the program is already safe")
        if oc is not None:
            lines.append(f"Verdict: safe: {oc.reason}")
        else:
            lines.append(f"Verdict: safe: no execution {cfg.model} allows witnesses the condition")
        if cfg.output:
            lines.append(f"Fenced program written to {cfg.output}")
    else:
        lines.append(f"No placement found: {res.why}")
        if (
            oc is not None
            and oc.mode in ("tso", "pso")
            and oc.verdict == "unsafe"
            and oc.bound == 0
        ):
            lines.append("The program fails under SC (no buffers): fences cannot help.")
    return "\n".join(lines) + "\n"


def _json(
    cfg: FencesConfig, res: Synthesis, placements: list[Placement], oc: ProgramOracle | None
) -> dict:
    return {
        "file": cfg.program,
        "model": cfg.model,
        "safe": res.safe,
        "why": res.why or (oc.reason if oc is not None else ""),
        "placements": [
            {"where": p.where, "before": p.before, "what": p.what, "cost": p.cost, "how": p.how}
            for p in placements
        ],
        "rounds": [
            {
                "placements": len(r.chosen),
                "violations": r.violations,
                "cycles": r.cycles,
                "blocked": r.blocked,
            }
            for r in res.rounds
        ],
        "time": round(res.time, 4),
    }
