"""POSIX barriers in ``verify``, counted as GenMC 0.11 counts them (under SC, GenMC's
barrier-aware model checking): the arrivals at a barrier in one order, and a wait
reading the arrival that ended its generation — not a later state of the barrier, which
a thread that passed first may already have written at the next generation."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdsman.herd_compat.cli.main import main

# two threads running w(0) and w(1) on the barrier b of count 2, joined
MAIN = """int main() {
  pthread_t t[2];
  pthread_barrier_init(&b, 0, 2);
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, w, (void *)(long)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  return 0;
}
"""

ROUNDS = (
    """#include <pthread.h>
pthread_barrier_t b;
int c;
void *w(void *arg) {
  c = 1;
  pthread_barrier_wait(&b);
  c = 2;
  pthread_barrier_wait(&b);
  return 0;
}
"""
    + MAIN
)

# each thread publishes its slot, waits, then reads the other's: never 0 after the barrier
PUBLISH = (
    """#include <pthread.h>
#include <assert.h>
pthread_barrier_t b;
int slot[2];
void *w(void *arg) {
  long me = (long)arg;
  slot[me] = 1;
  BARRIER
  assert(slot[1 - me] == 1);
  return 0;
}
"""
    + MAIN
)


def _verify(tmp_path: Path, text: str, capsys, *args: str) -> tuple[int, list[str]]:
    f = tmp_path / "p.c"
    f.write_text(text)
    status = main(["verify", "--disable-race-detection", *args, str(f)])
    return status, capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_each_generation_orders_the_writes_before_it_freely(tmp_path, capsys, rounds) -> None:
    """Two writes to ``c`` per generation, in either order: 2^rounds executions
    (GenMC 0.11: 2, 4 and 8), the barrier reused by both threads."""
    body = "  c = 1;\n  pthread_barrier_wait(&b);\n" * rounds
    text = ROUNDS.replace(
        "  c = 1;\n  pthread_barrier_wait(&b);\n  c = 2;\n  pthread_barrier_wait(&b);\n", body
    )
    status, out = _verify(tmp_path, text, capsys, "--disable-sr")
    assert status == 0
    assert f"Number of complete executions explored: {2**rounds}" in out


def test_the_reused_barrier_in_a_loop(tmp_path, capsys) -> None:
    loop = ROUNDS.replace(
        "  c = 1;\n  pthread_barrier_wait(&b);\n  c = 2;\n  pthread_barrier_wait(&b);\n",
        "  for (int i = 0; i < 2; i++) {\n    c = i;\n    pthread_barrier_wait(&b);\n  }\n",
    )
    status, out = _verify(tmp_path, loop, capsys)
    assert status == 0
    assert "Number of complete executions explored: 4" in out  # GenMC 0.11's count


@pytest.mark.parametrize(("barrier", "safe"), [("pthread_barrier_wait(&b);", True), ("", False)])
def test_what_a_barrier_publishes(tmp_path, capsys, barrier: str, safe: bool) -> None:
    status, out = _verify(tmp_path, PUBLISH.replace("BARRIER", barrier), capsys)
    assert (status, out[0]) == (
        (0, "No errors were detected.") if safe else (42, "Error: Safety violation!")
    )
