"""What a workbench job does, in its own worker process (:mod:`.processes` starts and can
kill it): the source and model written into a fresh directory, the job run through the
pipeline, ``explain`` or ``diff`` as the command line runs them, and what it finds sent
to the server as events (JSON-able dicts), as it finds it.

Events: ``progress`` (the engine's progress lines, as ``--progress`` prints them),
``warning``, ``error`` (the command line's one error line, with the file, line and
column it points at), ``block`` (herd's block), ``states``, ``report`` (GenMC's report
for a C program, ``explain``'s or ``diff``'s text), ``pictures`` (how many will come),
``picture`` (one SVG), ``diffrow`` (one test of a diff), and ``done`` last.

Files are named as a person running the command line would name them: an example keeps
its path under ``litmus/examples`` (``ppc/MP.litmus``), a pasted test is ``NAME.litmus``
after the name in its header, a pasted program ``program.c``, an edited model
``model.cat`` (``model_b.cat`` for a diff's second model); so errors read the same.
"""

from __future__ import annotations

import io
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from herdsman.graphs.dot import to_dot
from herdsman.graphs.render import RenderError, render_all
from herdsman.herd_compat.analyses.diff import GROUPS, DiffWorkerConfig, diff_worker, labels
from herdsman.herd_compat.analyses.explain.report import ExplainConfig, explain
from herdsman.herd_compat.campaigns.diff import make_row
from herdsman.herd_compat.campaigns.diff_db import DiffRow
from herdsman.herd_compat.campaigns.diff_report import report_lines
from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.formats.genmc import verify_report
from herdsman.herd_compat.formats.herd_block import format_result, state_lines
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import Limits, limit_memory
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, Failed, run_file
from herdsman.herd_compat.serve.examples import resolve_example
from herdsman.herd_compat.serve.request import JobRequest, ModelChoice
from herdsman.litmus.base.errors import InputError, UsageError

Send = Callable[[dict[str, Any]], None]

#: Pictures drawn by one run of the renderer (the first alone, so it shows at once).
BATCH = 16
#: A line of the command line that points into a file: ``FILE:LINE:COL: error: ...``.
_WHERE = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): (?P<what>error|warning):")


def where(message: str) -> dict[str, Any]:
    """The file, line and column an error or warning line points at (none: empty)."""
    m = _WHERE.match(message)
    if m is None:
        return {}
    return {"file": m["file"], "line": int(m["line"]), "col": int(m["col"])}


def problem(message: str) -> dict[str, Any]:
    """An ``error`` (or ``warning``) event for a line the command line prints."""
    m = _WHERE.match(message)
    kind = m["what"] if m else "error"
    return {"type": kind, "message": message, **where(message)}


class _Lines(io.TextIOBase):
    """What the job writes on stderr (the engine's progress, a warning), a line at a
    time, as events."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.partial = ""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        self.partial += text
        while "\n" in self.partial:
            line, self.partial = self.partial.split("\n", 1)
            if _WHERE.match(line):
                self.send(problem(line))
            elif line.strip():
                self.send({"type": "progress", "text": line})
        return len(text)


@dataclass(frozen=True)
class Files:
    """Where a job's source and models are, relative to its directory."""

    source: str
    model: str  # "": herd's default
    model_b: str = ""


def _source_name(req: JobRequest) -> str:
    if req.kind == "program":
        return "program.c"
    m = re.match(r"\s*\S+\s+([A-Za-z0-9_.+-]{1,64})", req.text or "")
    name = m.group(1) if m else "test"
    return f"{name.removesuffix('.litmus')}.litmus"


def _model_file(choice: ModelChoice, name: str) -> str:
    if choice.cat is None:
        return choice.name
    with open(name, "w", encoding="utf-8") as f:
        f.write(choice.cat)
    return name


def _copy_example(path: str) -> str:
    _, file = resolve_example(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    shutil.copyfile(file, path)
    return path


def write_files(req: JobRequest) -> Files:
    """The job's source and models, written into the current directory."""
    if req.task == "diff":
        for t in req.tests:
            _copy_example(t)
        return Files(
            "", _model_file(req.model, "model.cat"), _model_file(req.model_b, "model_b.cat")
        )
    if req.example is not None:
        source = _copy_example(req.example)
    else:
        source = _source_name(req)
        with open(source, "w", encoding="utf-8") as f:
            f.write(req.text or "")
    return Files(source, _model_file(req.model, "model.cat"))


# ----------------------------------------------------------------------------- pictures


def send_pictures(texts: Sequence[str], metas: Sequence[dict[str, Any]], send: Send) -> None:
    """Each DOT text drawn as SVG and sent (``picture`` events, in order), with its
    ``metas`` entry; the first alone, then in batches."""
    send({"type": "pictures", "total": len(texts)})
    start = 0
    while start < len(texts):
        end = min(len(texts), start + (1 if start == 0 else BATCH))
        try:
            images = render_all(texts[start:end], "svg")
        except RenderError as e:
            send({"type": "warning", "message": f"pictures: cannot draw: {e}"})
            return
        for i, svg in enumerate(images, start):
            send({"type": "picture", "index": i, "svg": svg.decode("utf-8"), **metas[i]})
        start = end


# ----------------------------------------------------------------------------- tasks


def run_litmus(req: JobRequest, files: Files, send: Send) -> None:
    """``herdsman herd7`` on the test: herd's block, the final states, every execution
    drawn (up to ``req.pictures``)."""
    cfg = RunConfig(
        model=files.model or None,
        engine=req.engine,
        show="all" if req.pictures else None,
        nshow=req.pictures,
        outdir="." if req.pictures else None,
        limits=Limits(req.time_limit),
        progress=True,
        herd_only=True,
    )
    rec = run_file(files.source, cfg, ModelCache(cfg))
    if isinstance(rec, Failed):
        send(problem(rec.message))
        return
    assert isinstance(rec, Done)  # Skipped: never, a lone test is always selected
    out, arch = rec.outcome, rec.test.arch
    send({"type": "block", "text": format_result(rec.herd_block()), "engine": out.engine})
    lines = {st: state_lines(out.observed, [st], arch)[0] for st in out.states}
    states = [
        {"state": lines[st], "count": c.executions, "satisfies": c.satisfies}
        for st, c in sorted(out.states.items(), key=lambda kv: lines[kv[0]])
    ]
    send({"type": "states", "states": states, "condition": rec.test.condition})
    metas = [
        {"state": state_lines(out.observed, [w.state], arch)[0] if out.observed else ""}
        for w in out.witnesses
    ]
    send_pictures(rec.pictures, metas, send)


def verify_program(req: JobRequest, files: Files, send: Send) -> None:
    """``herdsman verify`` on the C program: GenMC's report and the violating execution
    drawn."""
    spec = files.model or "sc"
    cfg = RunConfig(
        model=spec,
        engine=req.engine,
        unroll=req.unroll,
        limits=Limits(req.time_limit),
        inputs="programs",
        stop_on_error=True,
        progress=True,
    )
    rec = run_file(files.source, cfg, ModelCache(cfg))
    if isinstance(rec, Failed):
        send(problem(rec.message))
        return
    assert isinstance(rec, Done)  # a program is always admitted
    out = rec.outcome
    text = verify_report(out, req.unroll, rec.wall)
    send({"type": "report", "text": text, "engine": out.engine, "unsafe": bool(out.errors)})
    graph = out.errors[0].graph if out.errors else None
    if graph is not None:
        dot = to_dot(graph, test_name=rec.name, model_name=req.model.label())
        send_pictures([dot], [{"state": "the violating execution"}], send)


def explain_state(req: JobRequest, files: Files, send: Send) -> None:
    """``herdsman explain`` on the test: its text, and each candidate drawn with the
    violated check's cycle (or the allowed execution)."""
    os.mkdir("pictures")
    cfg = ExplainConfig(
        model=files.model,
        test=files.source,
        state=req.state,
        outdir="pictures",
        limits=Limits(req.time_limit),
        limit=req.pictures,
    )
    text = io.StringIO()
    if explain(cfg, text) != 0:  # over the time limit: its warning line is sent
        return
    # the pictures are drawn beside the text: not the files it names
    lines = [x for x in text.getvalue().splitlines() if not x.startswith("  picture: pictures/")]
    send({"type": "report", "text": "\n".join(lines) + "\n"})
    names = sorted(os.listdir("pictures"), key=_picture_order)
    texts = []
    for name in names:
        with open(os.path.join("pictures", name), encoding="utf-8") as f:
            texts.append(f.read())
    send_pictures(texts, [{"state": _picture_title(name)} for name in names], send)


def _picture_order(name: str) -> tuple[int, int]:
    m = re.search(r"-candidate-(\d+)\.dot$", name)
    return (0, int(m.group(1))) if m else (1, 0)


def _picture_title(name: str) -> str:
    m = re.search(r"-candidate-(\d+)\.dot$", name)
    return f"candidate {m.group(1)}" if m else "an allowed execution"


@dataclass
class _DiffReport:
    """What ``diff``'s report needs of its options (``campaigns.diff_report``)."""

    a: str
    b: str
    json_out: str | None = None
    show: int = -1
    workers: Workers = field(default_factory=Workers)


def diff_models(req: JobRequest, files: Files, send: Send) -> None:
    """``herdsman diff`` of the two models on the tests, each test's row sent as it
    finishes, then the report and the witnesses drawn."""
    wcfg = DiffWorkerConfig(
        a=files.model, b=files.model_b, engine=req.engine, limits=Limits(req.time_limit)
    )
    work = diff_worker(wcfg)
    la, lb = labels(files.model, files.model_b)
    rows: list[DiffRow] = []
    wall = time.monotonic()
    for n, path in enumerate(req.tests, 1):
        row = make_row(path, path, work(path))
        rows.append(row)
        heading = GROUPS.get(row.group, row.group).format(A=la, B=lb)
        send(
            {"type": "diffrow", "n": n, "total": len(req.tests), "test": row.name}
            | {"path": path, "group": row.group, "heading": heading}
            | {"verdicts": _verdicts(row, la, lb)}
        )
    wall = time.monotonic() - wall
    lines = report_lines(_DiffReport(files.model, files.model_b), rows, wall, "none", {})
    send({"type": "report", "text": "\n".join(lines) + "\n"})
    drawn = [r for r in rows if "dot" in (r.details.get("witness") or {})]
    texts = [r.details["witness"]["dot"] for r in drawn]
    send_pictures(
        texts, [{"state": f"{r.name}: {r.details['witness']['state']}"} for r in drawn], send
    )


def _verdicts(row: DiffRow, la: str, lb: str) -> str:
    d = row.details
    if "errors" in d:
        return "; ".join(str(m) for m in d["errors"].values())
    return f"{la} {d['a']['verdict']}, {lb} {d['b']['verdict']}"


TASKS: dict[str, Callable[[JobRequest, Files, Send], None]] = {
    "run": run_litmus,
    "explain": explain_state,
    "diff": diff_models,
}


# ----------------------------------------------------------------------------- the process


def run_job(req: JobRequest, conn: Connection, cpu_seconds: int) -> None:
    """The worker process's entry: the job in a fresh directory, within ``cpu_seconds``
    of CPU and the request's memory, its events sent on ``conn``, ``done`` last.  The
    process leads its own process group, so the server kills the renderer with it."""
    os.setpgrp()
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))

    def send(event: dict[str, Any]) -> None:
        conn.send(event)

    sys.stderr = _Lines(send)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="herdsman-job-") as tmp:
        os.chdir(tmp)
        try:
            limit_memory(req.memory_limit)
            files = write_files(req)
            task = (
                verify_program if req.kind == "program" and req.task == "run" else TASKS[req.task]
            )
            task(req, files, send)
        except InputError as e:
            send(problem(e.render()))
        except UsageError as e:
            send(problem(str(e)))
        except MemoryError:
            send(
                {
                    "type": "error",
                    "message": f"memory limit of {req.memory_limit} MB exceeded, no result",
                }
            )
        except Exception as e:  # a bug: one line to the person, never a dead stream
            msg = " ".join(str(e).split()) or type(e).__name__
            send({"type": "error", "message": f"internal error ({type(e).__name__}: {msg})"})
        finally:
            os.chdir("/")
    send({"type": "done", "seconds": round(time.monotonic() - started, 3)})
    conn.close()
