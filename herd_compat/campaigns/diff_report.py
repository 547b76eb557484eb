"""``herdsman diff``'s reports: the summary table and the groups (text), the witnesses'
pictures (DOT) and everything as JSON."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Protocol

from herdsman.herd_compat.analyses.diff import DIFFERENT, GROUPS, labels
from herdsman.herd_compat.campaigns.diff_db import DiffRow
from herdsman.herd_compat.campaigns.journal_rows import readable
from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.formats.dots import dot_base, write_file
from herdsman.herd_compat.formats.outfiles import write_output_file


class ReportConfig(Protocol):
    """What the reports need of ``herdsman diff``'s options (``diff.DiffConfig``)."""

    a: str
    b: str
    json_out: str | None
    show: int
    workers: Workers


def write_pictures(outdir: str, rows: Sequence[DiffRow]) -> dict[str, str]:
    """``DIR/<test>-diff.dot`` for each difference with a witness: test key -> file."""
    files = {}
    for r in rows:
        w = r.details.get("witness") or {}
        if "dot" in w:
            target = os.path.join(outdir, f"{dot_base(r.path)}-diff.dot")
            write_file(target, w["dot"])
            files[r.key] = target
    return files


# ----------------------------------------------------------------------------- reports


def _heading(group: str, la: str, lb: str) -> str:
    return GROUPS[group].format(A=la, B=lb)


def report_lines(
    cfg: ReportConfig, rows: Sequence[DiffRow], wall: float, db_path: str, files: dict[str, str]
) -> list[str]:
    """The summary table, then the differing tests by group with their witnesses."""
    la, lb = labels(cfg.a, cfg.b)
    counts = {g: 0 for g in GROUPS}
    for r in rows:
        counts[r.group] = counts.get(r.group, 0) + 1
    lines = [f"herdsman diff: A = {cfg.a}, B = {cfg.b}; {len(rows)} tests"]
    width = max(len(_heading(g, la, lb)) for g in GROUPS) + 2
    lines.append(f"{'group':<{width}}{'tests':>7}")
    for g in GROUPS:
        lines.append(f"{_heading(g, la, lb):<{width}}{counts.get(g, 0):>7}")
    lines.append(f"{'total':<{width}}{len(rows):>7}")
    cpu = sum(r.cpu or 0.0 for r in rows)
    on = cfg.workers.describe()
    lines.append(f"CPU time {cpu:.2f} s; wall {wall:.1f} s with {on}; journal {db_path}")
    limit = cfg.show
    for g in (*DIFFERENT, "error", "noresult"):
        members = [r for r in rows if r.group == g]
        if not members:
            continue
        lines.append("")
        lines.append(f"{_heading(g, la, lb)} ({len(members)}):")
        for r in members if limit < 0 else members[:limit]:
            lines += _test_lines(r, la, lb, files)
        if 0 <= limit < len(members):
            lines.append(f"  ... and {len(members) - limit} more (--show {limit}; --json has all)")
    return lines


def _test_lines(r: DiffRow, la: str, lb: str, files: dict[str, str]) -> list[str]:
    d = r.details
    out = [f"  {readable(r.name)} ({readable(r.path)})"]
    if "errors" in d:
        for who, msg in d["errors"].items():
            label = {"a": la, "b": lb}.get(who, "")
            out.append(f"    {label + ': ' if label else ''}{readable(msg)}")
        return out
    a, b = d["a"], d["b"]
    out[0] += f": {la} {a['verdict']} ({a['positive']}+{a['negative']}), "
    out[0] += f"{lb} {b['verdict']} ({b['positive']}+{b['negative']})"
    for who, mine, other in (("a", a, b), ("b", b, a)):
        extra = [s for s in mine["states"] if s not in other["states"]]
        if extra:
            label = la if who == "a" else lb
            out.append(f"    only {label}: " + "  ".join(extra))
    w = d.get("witness")
    if w is None:
        return out
    if "none" in w:
        out.append(f"    ({w['none']})")
        return out
    out.append(
        f"    witness: {w['state']} allowed by {w['allowing']}, rejected by "
        f"{w['rejecting']} (check {w['axiom']}):"
    )
    out += w["text"]
    if r.key in files:
        out.append(f"    picture: {files[r.key]}")
    return out


def write_json(
    cfg: ReportConfig, rows: Sequence[DiffRow], wall: float, db_path: str, files: dict[str, str]
) -> None:
    counts = {g: sum(1 for r in rows if r.group == g) for g in GROUPS}
    doc = {
        "a": cfg.a,
        "b": cfg.b,
        "journal": db_path,
        "summary": counts,
        "tests_total": len(rows),
        "cpu": round(sum(r.cpu or 0.0 for r in rows), 4),
        "wall": round(wall, 3),
        "jobs": cfg.workers.jobs,
        "workers": cfg.workers.describe(),
        "tests": [
            {
                "name": readable(r.name),
                "path": readable(r.path),
                "status": r.status,
                "group": r.group,
                "cpu": r.cpu,
                **r.details,
                **({"picture": files[r.key]} if r.key in files else {}),
            }
            for r in rows
        ],
    }
    write_output_file(cfg.json_out or "", (json.dumps(doc, indent=1) + "\n").encode(), "--json")


# ----------------------------------------------------------------------------- command line
