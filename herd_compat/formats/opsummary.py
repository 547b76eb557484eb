"""The operational engine's statistics, as lines after herd's block or GenMC's report.

Nidhugg-like: runs explored (complete, blocked, cut by the sleep set), the executions
they give (distinct rf and co), the runs a naive exploration would take (when they could
be counted), the buffer bound, and for stateful DPOR the states stored and the runs cut
at a visited state, with the peak memory and the CPU time.
"""

from __future__ import annotations

from herdsman.engine.outcome import Outcome


def operational_lines(outcome: Outcome) -> list[str]:
    """The statistics of an operational outcome, one per line (no newlines)."""
    st = outcome.stats
    x = st.extra
    runs = int(x.get("runs", 0))
    lines = [
        f"Runs explored: {runs} ({st.complete} complete, {st.blocked} blocked; "
        f"{int(x.get('sleep_blocked', 0))} more cut by sleep sets)"
    ]
    if "states" in x:
        lines.append(
            f"Stateful: {int(x['states'])} states stored, {int(x.get('visited_cut', 0))} runs "
            "cut at a visited state; counts are final states reached"
        )
    else:
        lines.append(
            f"Distinct executions: {int(x.get('executions', 0))} "
            f"({int(x.get('duplicates', 0))} runs repeated one)"
        )
    naive = x.get("naive_runs")
    if naive is not None:
        lines.append(f"Runs of a naive exploration: {int(naive)}")
    k = x.get("buffer_bound")
    if k is not None:
        lines.append(f"Buffer bound: {int(k)} (runs needing larger buffers are not explored)")
    if x.get("timed_out"):
        lines.append("Time limit reached: the exploration is incomplete")
    lines.append(f"Peak memory: {int(x.get('peak_rss_kb', 0)) // 1024} MB")
    return lines


def operational_summary(outcome: Outcome) -> str:
    """:func:`operational_lines` with the CPU time, as text after herd's block."""
    lines = operational_lines(outcome)
    lines.append(f"Total CPU time: {outcome.stats.time:.2f}s")
    return "\n".join(lines) + "\n"
