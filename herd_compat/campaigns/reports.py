"""Campaign reports: the summary table, mismatch listings, JSON and JUnit files.

Names and paths are shown with :func:`~herd_compat.campaign_db.readable` (a file name that
is not UTF-8 shows its odd bytes as ``\\xff``), so that every report can be written.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from herdsman.herd_compat.campaigns.campaign_db import Row, readable
from herdsman.herd_compat.formats.compare import CATEGORIES, LABELS, describe
from herdsman.herd_compat.formats.outfiles import write_output_file


@dataclass
class Totals:
    """Figures of a finished campaign (over the tests of this run's input list)."""

    counts: Counter[str]
    tests: int
    our_cpu: float
    herd_cpu: float | None  # herd's Time for the same tests (log expectations only)
    herd_cpu_tests: int
    wall: float
    jobs: int
    lost: int = 0  # tests without an answer: their worker died (counted among the errors)


def totals(rows: Sequence[Row], wall: float, jobs: int) -> Totals:
    counts: Counter[str] = Counter(r.category for r in rows)
    our = sum(r.cpu or 0.0 for r in rows if r.status == "done")
    timed = [r for r in rows if r.status == "done" and r.herd_time is not None]
    herd = sum(r.herd_time or 0.0 for r in timed) if timed else None
    lost = sum(1 for r in rows if r.status == "lost")
    return Totals(counts, len(rows), our, herd, len(timed), wall, jobs, lost)


def summary_lines(t: Totals, header: str) -> list[str]:
    lines = [header, f"{'result':<22}{'tests':>8}"]
    for cat in CATEGORIES:
        lines.append(f"{LABELS[cat]:<22}{t.counts.get(cat, 0):>8}")
    lines.append(f"{'total':<22}{t.tests:>8}")
    if t.lost:
        lines.append(f"{'of which lost':<22}{t.lost:>8}  (worker died; --resume runs them again)")
    cpu = f"CPU time: ours {t.our_cpu:.2f} s"
    if t.herd_cpu is not None:
        plural = "s" if t.herd_cpu_tests != 1 else ""
        cpu += f", herd {t.herd_cpu:.2f} s on the same {t.herd_cpu_tests} test{plural}"
        if t.herd_cpu > 0:
            cpu += f" (ratio {t.our_cpu / t.herd_cpu:.3f})"
    lines.append(cpu + f"; wall {t.wall:.1f} s with {t.jobs} job{'s' if t.jobs > 1 else ''}")
    return lines


def mismatch_lines(rows: Sequence[Row]) -> list[str]:
    out = []
    for r in rows:
        if r.category == "identical":
            continue
        details = dict(r.details)
        if r.status != "done":
            details["error"] = readable(r.result_text)
        out += describe(readable(r.name), readable(r.path), r.category, details)
    return out


def write_json(path: str, rows: Sequence[Row], t: Totals, meta: dict[str, Any]) -> None:
    doc = {
        **meta,
        "summary": {cat: t.counts.get(cat, 0) for cat in CATEGORIES},
        "tests_total": t.tests,
        "tests_lost": t.lost,
        "our_cpu": round(t.our_cpu, 4),
        "herd_cpu": None if t.herd_cpu is None else round(t.herd_cpu, 4),
        "wall": round(t.wall, 3),
        "jobs": t.jobs,
        "tests": [
            {
                "name": readable(r.name),
                "path": readable(r.path),
                "category": r.category,
                "status": r.status,
                "cpu": r.cpu,
                "herd_time": r.herd_time,
                "details": r.details,
                **({"error": readable(r.result_text)} if r.status != "done" else {}),
            }
            for r in rows
        ],
    }
    text = json.dumps(doc, indent=1, sort_keys=False) + "\n"
    write_output_file(path, text.encode("utf-8"), "--json")


def write_junit(path: str, rows: Sequence[Row], t: Totals, suite: str) -> None:
    """JUnit XML: one testcase per test; mismatches are failures, errors and timeouts are
    errors."""
    failures = sum(1 for r in rows if r.category not in ("identical", "error", "timeout"))
    errors = sum(1 for r in rows if r.category in ("error", "timeout"))
    ts = ET.Element(
        "testsuite",
        name=suite,
        tests=str(len(rows)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{t.our_cpu:.3f}",
    )
    for r in rows:
        tc = ET.SubElement(
            ts,
            "testcase",
            classname=suite,
            name=readable(r.name),
            file=readable(r.path),
            time=f"{r.cpu or 0.0:.3f}",
        )
        if r.category == "identical":
            continue
        details = dict(r.details)
        if r.status != "done":
            details["error"] = readable(r.result_text)
        text = "\n".join(describe(readable(r.name), readable(r.path), r.category, details))
        tag = "error" if r.category in ("error", "timeout") else "failure"
        el = ET.SubElement(tc, tag, message=LABELS[r.category], type=r.category)
        el.text = text
    ET.indent(ts)
    write_output_file(path, ET.tostring(ts, encoding="utf-8", xml_declaration=True), "--junit")
