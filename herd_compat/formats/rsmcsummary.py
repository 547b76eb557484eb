"""RSMC's statistics, as lines after herd's block or GenMC's report.

Nidhugg's ``Trace count: N (also B blocked)`` (complete traces, each allowed one
explored exactly once; runs that stopped before completing), then what Nidhugg does not
say: the commit-before order, the run templates races queued and explored, and the
model's checks of partial traces.
"""

from __future__ import annotations

from herdsman.engine.outcome import Outcome
from herdsman.engine.rsmc.cb import CB_ORDERS

#: How the commit-before orders (``Stats.extra["cb"]``: an index into ``CB_ORDERS``) read.
CB_NAMES = {"power": "cb^power", "po": "po"}


def rsmc_lines(outcome: Outcome) -> list[str]:
    """The statistics of an RSMC outcome, one per line (no newlines)."""
    st = outcome.stats
    x = st.extra
    runs = int(x.get("runs", 0))
    share = f"{100 * st.blocked / runs:.1f} %" if runs else "0 %"
    lines = [f"Trace count: {st.complete} (also {st.blocked} blocked: {share} of {runs} runs)"]
    other = int(x.get("rejected", 0)) + int(x.get("blocked_assume", 0))
    if other:
        lines.append(
            f"Complete runs not counted: {other} (rejected at the end, or a thread blocked)"
        )
    order = list(CB_ORDERS)[int(x.get("cb", 0))]
    lines.append(
        f"Commit-before order: {CB_NAMES.get(order, order)}; run templates "
        f"queued by races: {int(x.get('templates', 0))}, explored: "
        f"{int(x.get('traversals', 0))}; model checks: {int(x.get('checks', 0))}"
    )
    return lines


def rsmc_summary(outcome: Outcome) -> str:
    """:func:`rsmc_lines` with the CPU time, as text after herd's block."""
    lines = rsmc_lines(outcome)
    lines.append(f"Total CPU time: {outcome.stats.time:.2f}s")
    return "\n".join(lines) + "\n"
