"""GenMC's ``-unroll``: a loop's head reached once more than the bound ends its thread
there (GenMC 0.11 kills it: no finish event).  The execution is complete unless another
thread joins the killed one: that join never happens and the execution is blocked.  An
assertion another thread fails in an execution with a killed thread is still an error.

The counts are GenMC 0.11's (``genmc -unroll=2 FILE``, under SC, checked by hand); every
engine that runs C programs gives them, and the compiled TruSt core the Python
explorer's."""

from __future__ import annotations

import pytest
from support.engine import c_target

from herdsman.cat.api import load_model
from herdsman.engine.run import RunOptions, run_program
from herdsman.engine.trust import core
from herdsman.engine.trust.run import explore_program
from herdsman.litmus.c import c_program_from_text

#: thread a spins on x, storing to y in its body (no spin-assume): at most 2 heads
LOOPER = """#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
atomic_int x, y;
void *looper(void *arg) {
  while (atomic_load(&x) == 0)
    atomic_store(&y, 1);
  return NULL;
}
void *setter(void *arg) { atomic_store(&x, 1); %s return NULL; }
int main() {
  pthread_t a, b;
  pthread_create(&a, NULL, looper, NULL);
  pthread_create(&b, NULL, setter, NULL);
  %s
  return 0;
}
"""

#: main itself loops: killed, it never joins (nor needs to)
MAIN_LOOPS = """#include <pthread.h>
#include <stdatomic.h>
atomic_int x, y;
void *setter(void *arg) { atomic_store(&x, 1); return NULL; }
int main() {
  pthread_t b;
  pthread_create(&b, NULL, setter, NULL);
  while (atomic_load(&x) == 0)
    atomic_store(&y, 1);
  pthread_join(b, NULL);
  return 0;
}
"""

# (program, complete, blocked, an assertion fails): GenMC 0.11, -unroll=2
CASES = {
    "killed-not-joined": (LOOPER % ("", ""), 3, 0, False),
    "killed-and-joined": (LOOPER % ("", "pthread_join(a, NULL);"), 2, 1, False),
    "main-killed": (MAIN_LOOPS, 3, 0, False),
    "error-beside-a-killed-thread": (
        LOOPER % ("assert(atomic_load(&y) == 0);", ""),
        None,
        None,
        True,
    ),
}


def _program(text: str):
    return c_program_from_text(text, path="unroll.c", target=c_target("sc"), unroll=2)


def _counts(text: str, engine: str, compiled: bool, monkeypatch) -> tuple[int, int, bool]:
    monkeypatch.setattr(core, "CORE", compiled and core.CORE)
    opts = RunOptions(engine=engine, unroll=2, stop_on_error=False)
    out = run_program(_program(text), load_model("sc"), opts)
    return out.stats.complete, out.stats.blocked, bool(out.errors)


@pytest.mark.parametrize("name", sorted(CASES))
def test_trust_counts_as_genmc(name, monkeypatch) -> None:
    text, complete, blocked, fails = CASES[name]
    for compiled in (True, False):
        got = _counts(text, "trust", compiled, monkeypatch)
        assert got[2] == fails, (name, compiled)
        if complete is not None:
            assert got[:2] == (complete, blocked), (name, compiled)


@pytest.mark.parametrize("engine", ["reference", "rsmc", "operational"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_engine_completes_a_killed_thread(name, engine, monkeypatch) -> None:
    text, complete, _, fails = CASES[name]
    got = _counts(text, engine, True, monkeypatch)
    assert got[2] == fails, (name, engine)
    if complete is not None:
        assert got[0] == complete, (name, engine)


def test_the_core_and_the_python_explorer_agree(monkeypatch) -> None:
    for text, *_ in CASES.values():
        program = _program(text)
        model = load_model("sc")
        runs = []
        for compiled in (True, False):
            monkeypatch.setattr(core, "CORE", compiled and core.CORE)
            run = explore_program(program, model, RunOptions(engine="trust", unroll=2))
            stats = run.stats.as_dict()
            del stats["time"]
            runs.append((run.result.states, stats))
        assert runs[0] == runs[1]


def test_a_thread_ended_by_the_bound_marks_the_exploration_bounded(monkeypatch) -> None:
    """Safe only up to the bound (``fences`` says so): the executions where the bound
    ended a thread are counted, complete or blocked (TruSt; the reference engine
    counts the complete ones)."""
    for engine in ("trust",):
        for compiled in (True, False):
            monkeypatch.setattr(core, "CORE", compiled and core.CORE)
            opts = RunOptions(engine=engine, unroll=2)
            for name, hits in (("killed-not-joined", 1), ("killed-and-joined", 1)):
                out = run_program(_program(CASES[name][0]), load_model("sc"), opts)
                assert out.stats.loop_bound_hits() >= hits, (engine, compiled, name)
