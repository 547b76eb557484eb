"""What TruSt guesses about a thread before running it: the complete path its prefix
extends to (a read takes the value the thread last wrote there), the room of a thread
whose loops are not bounded (an estimate that stays cheap with many loops), and the
cells that join the layout with a location found at run time."""

from __future__ import annotations

from support.engine import c_target

from herdsman.engine.semantics.paths import PathTree
from herdsman.engine.semantics.state import Read
from herdsman.engine.semantics.step import UNBOUNDED, Semantics
from herdsman.engine.trust.run import Neighbours
from herdsman.litmus.c import c_program_from_text

OWN = """#include <pthread.h>
#include <stdatomic.h>
atomic_int x;
void *t(void *a) {
  for (int i = 1; i < 4; i++) {
    atomic_store(&x, i);
    atomic_load(&x);
  }
  return 0;
}
int main() { pthread_t a; pthread_create(&a, 0, t, 0); return 0; }
"""


def _sem(text: str) -> Semantics:
    return Semantics(c_program_from_text(text, target=c_target("sc")), UNBOUNDED)


def test_a_completion_reads_the_threads_own_writes() -> None:
    sem = _sem(OWN)
    root = PathTree(sem.threads[1], None, {"x": 0}).root()
    root.completion()
    node, read = root, []
    while True:  # the path the completion walked
        s = node.step
        if isinstance(s, Read):
            assert node._children is not None and len(node._children) == 1
            (value, node), *_ = node._children.items()
            read.append(value)
        elif node._next is not None:
            node = node._next
        else:
            break
    assert read == [1, 2, 3]


MANY_LOOPS = (
    """#include <pthread.h>
#include <stdatomic.h>
atomic_int x, go;
void *t(void *a) {
  while (atomic_load(&go) == 0) {
"""
    + "".join(f"    while (atomic_load(&x) == {k}) atomic_store(&x, {k + 1});\n" for k in range(12))
    + """  }
  return 0;
}
int main() { pthread_t a; pthread_create(&a, 0, t, 0); return 0; }
"""
)


def test_the_room_of_a_thread_with_many_loops_is_an_estimate() -> None:
    th = _sem(MANY_LOOPS).threads[1]
    assert len(th.back) == 13
    # 13 loop counters of 0..4 at each operation: far more states than the budget
    assert th._longest(th.events_at, 4, 10_000) is None
    room = th.max_events(4)  # fewer turns of the loops instead
    assert th.max_events(0) <= room < (4 + 1) ** 2 * th.max_events(0)


def test_sequential_loops_forget_the_counters_of_loops_left() -> None:
    text = MANY_LOOPS.replace("while (atomic_load(&go) == 0) {", "{")
    th = _sem(text).threads[1]
    live = th._live_loops()
    assert live[0] is None  # at the start every loop is ahead
    assert live[-1] == (0,) * len(th.back)  # after the last loop: none is consulted
    assert th.max_events(2) == th._longest(th.events_at, 2)


def test_a_new_location_brings_its_neighbours() -> None:
    cells = Neighbours({"a": 0, "a+4": 0, "a+8": 0, "a+64": 0, "b": 0})
    assert cells.near("a+8") == ["a+8", "a", "a+4"]
    assert cells.near("b") == ["b"]
    assert cells.near("heap@t1#0(8)+4") == ["heap@t1#0(8)+4"]
