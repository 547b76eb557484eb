"""Comparing our result for a test with herd's: verdict, final states, counts, hash.

Both sides are :class:`~herd_compat.output.HerdBlock`: ours made from the engine's outcome,
herd's read from its log.  A verdict-table expectation has only the verdict to compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from herdsman.herd_compat.formats.herd_block import HerdBlock
from herdsman.herd_compat.formats.herdlog import Expectation
from herdsman.herd_compat.formats.results import judge, observation_line

#: Categories of a campaign result, in the order of the summary table.
CATEGORIES = ("identical", "verdict", "states", "counts", "hash", "missing", "error", "timeout")

LABELS = {
    "identical": "identical",
    "verdict": "verdict mismatch",
    "states": "states mismatch",
    "counts": "counts mismatch",
    "hash": "hash mismatch",
    "missing": "missing expectation",
    "error": "error",
    "timeout": "timeout",
}


@dataclass
class Comparison:
    category: str
    details: dict[str, Any] = field(default_factory=dict)


def compare(ours: HerdBlock, exp: Expectation | None) -> Comparison:
    """Classify our block against herd's expectation.  The category is the first
    difference among verdict, states, counts and hash; ``details`` lists them all."""
    if exp is None:
        return Comparison("missing", {"our_verdict": ours.verdict_line})
    if exp.result is not None:  # a kernel test's Result: line, judged as judgelitmus.sh
        j = judge(ours, exp)
        if j.ok:
            return Comparison("identical", {"note": j.why} if j.why else {})
        words = exp.result + (" DATARACE" if exp.datarace else "")
        obs = observation_line(ours) + (" (Flag data-race)" if "data-race" in ours.flags else "")
        return Comparison(
            "verdict",
            {"herd_verdict": f"Result: {words}", "our_verdict": obs, "error": j.why},
        )
    details: dict[str, Any] = {}
    differs = []
    theirs = exp.record
    their_verdict = theirs.verdict_line if theirs is not None else exp.verdict
    if ours.verdict_line != their_verdict:
        differs.append("verdict")
        details["herd_verdict"] = their_verdict
        details["our_verdict"] = ours.verdict_line
    if theirs is not None:
        herd_states, our_states = set(theirs.states), set(ours.states)
        if herd_states != our_states:
            differs.append("states")
            details["herd_only"] = sorted(herd_states - our_states, key=theirs.states.index)
            details["ours_only"] = sorted(our_states - herd_states, key=ours.states.index)
        if (theirs.positive, theirs.negative) != (ours.positive, ours.negative):
            differs.append("counts")
            details["herd_counts"] = [theirs.positive, theirs.negative]
            details["our_counts"] = [ours.positive, ours.negative]
        if (theirs.hash or "") != (ours.hash or ""):
            differs.append("hash")
            details["herd_hash"] = theirs.hash
            details["our_hash"] = ours.hash
    if not differs:
        return Comparison("identical", {})
    details["differs"] = differs
    return Comparison(differs[0], details)


def describe(name: str, path: str, category: str, details: dict[str, Any]) -> list[str]:
    """Human-readable lines for one non-identical result."""
    head = f"{LABELS[category].upper()}: {name} ({path})"
    lines = [head]
    if "herd_verdict" in details:
        lines.append(f"  verdict: herd {details['herd_verdict']}, ours {details['our_verdict']}")
    elif category == "missing":
        lines.append(f"  no expectation for this test; ours {details.get('our_verdict', '?')}")
    for line in details.get("herd_only", []):
        lines.append(f"  herd only: {line}")
    for line in details.get("ours_only", []):
        lines.append(f"  ours only: {line}")
    if "herd_counts" in details:
        hp, hn = details["herd_counts"]
        op, on = details["our_counts"]
        lines.append(f"  Positive/Negative: herd {hp}/{hn}, ours {op}/{on}")
    if "herd_hash" in details:
        lines.append(f"  hash: herd {details['herd_hash']}, ours {details['our_hash']}")
    if "error" in details:
        lines.append("  " + details["error"])
    return lines
