"""GenMC's loop transformations on the loops GenMC's data structures write (counts are
GenMC 0.11's on these programs, under SC): a backward ``goto`` closing a spin loop is
spin-assumed as any loop; a ``while (!done)`` loop whose body reads ``done`` again is
jump-threaded (the condition pins it to its entry value, so it carries nothing) and
then spin-assumed; a helping CAS does nothing (the helped CAS does the work); a loop
counting in a heap cell of its own carries a value (no spin loop); a register reset to
the constant it entered the loop with carries nothing."""

from __future__ import annotations

import pytest

from herdsman.herd_compat.cli.main import main


def _main(first: str, second: str) -> str:
    """C's main starting the two threads ``first`` and ``second``."""
    return (
        "int main() {\n  pthread_t a, b;\n"
        f"  pthread_create(&a, 0, {first}, 0);\n  pthread_create(&b, 0, {second}, 0);\n"
        "  return 0;\n}\n"
    )


# a seqlock reader: spins with a goto while the count is odd
GOTO_SPIN = """#include <pthread.h>
#include <stdatomic.h>
atomic_int seq;
atomic_int data;
void *reader(void *a) {
  int s, d;
repeat:
  s = atomic_load(&seq);
  if (s & 1)
    goto repeat;
  d = atomic_load(&data);
  return 0;
}
void *writer(void *a) {
  atomic_store(&seq, 1);
  atomic_store(&data, 7);
  atomic_store(&seq, 2);
  return 0;
}
""" + _main("reader", "writer")

# a helped CAS and the helping CAS that matches it
HELPING = """#include <pthread.h>
#include <stdatomic.h>
#include <genmc.h>
atomic_int x;
void *helped(void *a) {
  int r = 0;
  __VERIFIER_helped_CAS(atomic_compare_exchange_strong(&x, &r, 3););
  return 0;
}
void *helping(void *a) {
  int r = 0;
  __VERIFIER_helping_CAS(atomic_compare_exchange_strong(&x, &r, 3););
  return 0;
}
""" + _main("helped", "helping")

# Michael-Scott's enqueue loop: `success` read again in the body
PINNED = """#include <pthread.h>
#include <stdatomic.h>
atomic_int tail;
atomic_int next[4];
void *worker(void *a) {
  int success = 0;
  int t, n;
  while (!success) {
    t = atomic_load(&tail);
    n = atomic_load(&next[t]);
    if (t == atomic_load(&tail)) {
      if (n == 0)
        success = atomic_compare_exchange_strong(&next[t], &n, 1);
      if (!success)
        atomic_compare_exchange_strong(&tail, &t, t + 1);
    }
  }
  atomic_compare_exchange_strong(&tail, &t, t + 1);
  return 0;
}
""" + _main("worker", "worker")


# a loop counting in a heap cell of its own (saver/spin-counter): LLVM keeps the count
# in a register, so the loop carries a value and is no spin loop (GenMC 0.11: 6, none
# blocked)
HEAP_COUNTER = """#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
atomic_int x;
void *counter(void *a) {
  int *i = malloc(sizeof(int));
  int *l = malloc(sizeof(int));
  *l = 4;
  for (*i = 0; *i < *l; (*i)++) {
    if (atomic_load_explicit(&x, memory_order_relaxed) == 42)
      break;
  }
  int r = x;
  return 0;
}
void *writer(void *a) {
  x = 17;
  return 0;
}
""" + _main("counter", "writer")


# two CASes on one branch (saver/spin-2cas-samebranch): the expected values are reset to
# one constant before the latch, so LLVM folds their phis and the loop carries nothing:
# spin-assumed (GenMC 0.11: 4, none blocked)
CAS_PAIR = """#include <pthread.h>
#include <stdatomic.h>
atomic_int x;
atomic_int y;
void *writer(void *a) {
  for (int i = 1; i <= 3; i++) {
    x = i;
    y = i;
  }
  return 0;
}
void *casser(void *a) {
  int r_x = 3;
  int r_y = 3;
  while (!atomic_compare_exchange_strong(&x, &r_x, 17) &&
         !atomic_compare_exchange_strong(&y, &r_y, 17)) {
    r_x = 3;
    r_y = 3;
  }
  return 0;
}
""" + _main("writer", "casser")


@pytest.mark.parametrize(
    ("text", "flags", "complete", "blocked"),
    [
        (GOTO_SPIN, ["--unroll", "3"], 3, 0),
        (GOTO_SPIN, [], 3, 0),
        (HELPING, [], 1, 0),
        (PINNED, ["--unroll", "3", "--disable-sr"], 10, 8),
        (HEAP_COUNTER, [], 6, 0),
        (CAS_PAIR, [], 4, 0),
    ],
)
def test_genmc_loop_counts(capsys, tmp_path, text, flags, complete, blocked) -> None:
    prog = tmp_path / "loop.c"
    prog.write_text(text)
    assert main(["verify", "--model", "sc", "--timeout", "60", *flags, str(prog)]) == 0
    out = capsys.readouterr().out
    assert f"Number of complete executions explored: {complete}\n" in out, out
    assert f"Number of blocked executions seen: {blocked}\n" in out, out
