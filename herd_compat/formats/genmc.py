"""GenMC's words: the summary of an exploration, printed after herd's block by TruSt's own
options, and ``herdsman verify``'s report on a C program (:func:`verify_report`).

``Number of complete executions explored: N`` and (when some were) ``Number of blocked
executions seen: M`` read as GenMC prints them; the other lines say what GenMC does not
(revisits, the preemption bound) and the listing of executions (``--print-executions``).
"""

from __future__ import annotations

from herdsman.engine.outcome import Outcome
from herdsman.engine.semantics.events import MEMORY_ERRORS
from herdsman.herd_compat.formats.opsummary import operational_lines
from herdsman.herd_compat.formats.rsmcsummary import rsmc_lines
from herdsman.herd_compat.formats.trace import position, trace
from herdsman.litmus.printer import loc_text, value_text


def summary(outcome: Outcome, executions: bool = False) -> str:
    """GenMC's summary of ``outcome`` (and, with ``executions``, one line per execution)."""
    st = outcome.stats
    x = st.extra
    lines = []
    if executions:
        for i, ex in enumerate(outcome.executions, 1):
            extra = ""
            if ex.preemptions is not None:
                extra = f"  (preemptions {ex.preemptions}"
                extra += ", beyond the bound)" if ex.beyond_bound else ")"
            text = " ".join(
                f"{loc_text(loc)}={value_text(v)};"
                for loc, v in zip(outcome.observed, ex.state, strict=True)
            )
            lines.append(f"Execution {i}: {text}{extra}")
    lines.append(f"Number of complete executions explored: {st.complete}")
    if st.blocked:
        lines.append(f"Number of blocked executions seen: {st.blocked}")
    lines.append(
        f"Backward revisits: {int(x.get('revisits', 0))} (inconsistent: "
        f"{int(x.get('revisits_inconsistent', 0))} built, {int(x.get('revisits_doomed', 0))} "
        f"foreseen; not maximal: {int(x.get('refused', 0))}); "
        f"options the model rejected: {int(x.get('pruned', 0))}"
    )
    k = x.get("bound")
    if k is not None:
        lines.append(
            f"Preemption bound {int(k)}: {int(x.get('within_bound', 0))} executions within it, "
            f"{int(x.get('beyond_bound', 0))} beyond it (visited for the slack), "
            f"{int(x.get('bound_blocked', 0))} explorations cut by the bound"
        )
        if x.get("decisive_beyond_bound") and not x.get("decisive_within_bound"):
            lines.append("The condition's outcome is reached only beyond the preemption bound")
    lines.append(f"Total CPU time: {st.time:.2f}s")
    return "\n".join(lines) + "\n"


def verify_report(out: Outcome, unroll: int, wall: float) -> str:
    """``herdsman verify``'s report of a C program's outcome, as GenMC's reads: the
    violating execution or ``No errors were detected.``, the counts, the time (lines end
    with a newline)."""
    lines = []
    x = out.stats.extra
    if out.errors and out.errors[0].race is not None:
        err = out.errors[0]
        lines.append("Error: Non-atomic race!")
        if err.race:
            a, b = (position(t, i) for t, i in err.race)
            lines.append(f"Event {a} conflicts with event {b} in graph:")
        if err.graph is not None:
            lines.append(trace(err.graph).rstrip("\n"))
        if x.get("stopped_at_error"):
            lines.append("(exploration stopped at the first error; --keep-going explores on)")
        else:
            lines.append(f"Executions with an error: {int(x.get('errors', 0))}")
    elif out.errors:
        err = out.errors[0]
        if err.message in MEMORY_ERRORS:
            lines.append(f"Error: {err.message}!")
            lines.append(f"In thread {err.thread}, line {err.origin}")
        else:
            lines.append("Error: Safety violation!")
            where = f"line {err.origin.split(':', 1)[0]}" if ":" in err.origin else err.origin
            lines.append(f"Assertion violation: {err.message}  (thread {err.thread}, {where})")
        if not err.complete:
            lines.append("(another thread is blocked in this execution)")
        if err.graph is not None:
            lines.append("The violating execution:")
            lines.append(trace(err.graph).rstrip("\n"))
        if x.get("stopped_at_error"):
            lines.append("(exploration stopped at the first error; --keep-going explores on)")
        else:
            what = "with an error" if err.message in MEMORY_ERRORS else "violating an assertion"
            lines.append(f"Executions {what}: {int(x.get('errors', 0))}")
    else:
        lines.append("No errors were detected.")
    lines.append(f"Number of complete executions explored: {out.stats.complete}")
    lines.append(f"Number of blocked executions seen: {out.stats.blocked}")
    cut = out.stats.loop_bound_hits()
    if cut:
        lines.append(f"Executions where the loop bound (--unroll {unroll}) stopped a thread: {cut}")
    if out.engine == "operational":
        lines.extend(operational_lines(out))
    elif out.engine == "rsmc":
        lines.extend(rsmc_lines(out))
    lines.append(f"Total wall-clock time: {wall:.2f}s")
    return "\n".join(lines) + "\n"
