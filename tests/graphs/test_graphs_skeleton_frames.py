"""Skeletons of one frame (their events' threads and instruction instances) share po, int,
ext, same-instance and iico: the shared values are those each skeleton computes alone."""

from __future__ import annotations

from herdsman.graphs import skeleton as skeleton_module
from herdsman.graphs.events import Event, init_write
from herdsman.graphs.skeleton import Skeleton
from herdsman.litmus.base.memo import cached

FRAMED = ("po", "int_", "ext", "same_instance", "iico")


def _alone(events: tuple[Event, ...], nthreads: int) -> dict[str, int]:
    """The framed relations of a skeleton computed with no frame remembered."""
    saved = dict(skeleton_module._FRAMES)
    skeleton_module._FRAMES.clear()
    try:
        sk = Skeleton(events, nthreads)
        return {name: getattr(sk, name) for name in FRAMED}
    finally:
        skeleton_module._FRAMES.clear()
        skeleton_module._FRAMES.update(saved)


def _mp(a: str, b: str, rmw: bool) -> tuple[Event, ...]:
    """A message-passing shape on locations ``a``, ``b`` (thread 1's read and write one
    instruction instance when ``rmw``)."""
    return (
        init_write(a, 0),
        init_write(b, 0),
        Event("W", 0, 0, 0, loc=a, value=1),
        Event("W", 0, 1, 1, loc=b, value=1),
        Event("R", 1, 0, 0, loc=b, value=1),
        Event("W" if rmw else "R", 1, 1, 0 if rmw else 1, loc=a if rmw else b, value=0),
    )


def test_one_frame_shares_its_relations_with_the_same_values() -> None:
    first = _mp("x", "y", rmw=False)
    other = _mp("y", "x", rmw=False)  # the same frame, other locations
    a, b = Skeleton(first, 2), Skeleton(other, 2)
    assert a._frame is b._frame
    for events, sk in ((first, a), (other, b)):
        alone = _alone(events, 2)
        assert {name: getattr(sk, name) for name in FRAMED} == alone


def test_another_frame_is_not_confused_with_it() -> None:
    plain, fused = _mp("x", "y", rmw=False), _mp("x", "y", rmw=True)
    a, b = Skeleton(plain, 2), Skeleton(fused, 2)
    assert a._frame is not b._frame
    assert b.iico != a.iico  # the read-modify-write's read is iico-before its write
    assert {name: getattr(b, name) for name in FRAMED} == _alone(fused, 2)


def test_spawns_keep_their_own_frame() -> None:
    events = (Event("S", 0, 0, 0, value=1), Event("W", 1, 0, 0, loc="x", value=1))
    a, b = Skeleton(events, 2), Skeleton(events, 2)
    assert a._frame is not b._frame
    assert a.po == b.po == _alone(events, 2)["po"] != 0


def test_cached_computes_once_and_reads_back() -> None:
    calls = []

    class Box:
        @cached
        def value(self) -> int:
            calls.append(1)
            return 41 + len(calls)

    box = Box()
    assert (box.value, box.value) == (42, 42)
    assert len(calls) == 1
    assert isinstance(Box.__dict__["value"], cached)


def _each_alone(sk: Skeleton) -> dict[str, int]:
    """The framed relations of ``sk`` each computed on its own (as for spawns)."""
    return {
        "po": sk._po_of_frame(),
        "int_": sk._int_of_frame(),
        "ext": sk._ext_of_frame(),
        "same_instance": sk._same_instance_of_frame(),
        "iico": sk._iico_of_frame(),
    }


def test_a_frame_made_at_once_equals_its_relations_made_one_by_one() -> None:
    # thread 0: instances 0, 1, 1, 2 (consecutive); thread 1: instances 0, 1, 0 (a gap)
    events = (
        init_write("x", 0),
        init_write("y", 0),
        Event("R", 0, 0, 0, loc="x"),
        Event("R", 0, 1, 1, loc="y"),
        Event("W", 0, 2, 1, loc="y"),
        Event("F", 0, 3, 2, fence="Fence.rw.rw"),
        Event("W", 1, 0, 0, loc="y"),
        Event("W", 1, 1, 1, loc="x"),
        Event("R", 1, 2, 0, loc="x"),
    )
    for cap in (None, 9, 12, 64):
        for shown in (events, events[:6]):
            sk = Skeleton(shown, 2, cap=cap)
            assert sk.frame_relations() == _each_alone(sk)
