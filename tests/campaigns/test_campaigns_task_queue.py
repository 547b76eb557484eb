"""The local pool's task order: one contiguous run per worker, stealing halves, tasks
given back first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from herdsman.herd_compat.campaigns.task_queue import TaskQueue


def test_each_slot_starts_on_its_own_run_of_neighbours() -> None:
    q = TaskQueue([f"t{i}" for i in range(10)], 3)
    assert [q.take(0), q.take(1), q.take(2)] == ["t0", "t3", "t6"]
    assert [q.take(0), q.take(0), q.take(1)] == ["t1", "t2", "t4"]


def test_a_slot_whose_run_is_done_takes_the_back_half_of_the_longest() -> None:
    q = TaskQueue([f"t{i}" for i in range(8)], 2)  # runs t0-t3 and t4-t7
    assert [q.take(1) for _ in range(4)] == ["t4", "t5", "t6", "t7"]
    assert q.take(1) == "t2"  # slot 0's run t0-t3: its back half is t2, t3
    assert q.take(0) == "t0"
    assert q.take(1) == "t3"
    assert q.take(0) == "t1"
    assert q.take(0) is None and q.take(1) is None and not q


def test_tasks_given_back_go_first_to_any_slot() -> None:
    q = TaskQueue(["a", "b", "c", "d"], 2)
    assert q.take(0) == "a"
    q.give_back(["x", "y"])
    assert len(q) == 5
    assert [q.take(1), q.take(0), q.take(1)] == ["x", "y", "c"]


@given(
    st.integers(0, 40),
    st.integers(1, 5),
    st.lists(st.tuples(st.integers(0, 4), st.booleans()), max_size=80),
)
def test_every_task_is_taken_exactly_once(
    n: int, slots: int, moves: list[tuple[int, bool]]
) -> None:
    tasks = [f"t{i}" for i in range(n)]
    q = TaskQueue(tasks, slots)
    taken: list[str] = []
    for slot, give_back in moves:
        t = q.take(slot % slots)
        if t is None:
            assert not q and len(q) == 0
            continue
        if give_back:  # a replaced worker's task comes back once, and is taken again
            q.give_back([t])
            assert q.take(slot % slots) == t
        taken.append(t)
    while (t := q.take(0)) is not None:
        taken.append(t)
    assert sorted(taken) == sorted(tasks)
