"""Work whose Python recursion the input's nesting controls, on a thread with room for it.

Parsing and lowering C (pycparser's recursive descent, herdsman's lowering of nested
expressions, blocks, calls, types) recurse about once per level of the program's
nesting, and generated code nests deep: a 300-term sum, 1,000 casts, 2,000 ``if``\\ s.
:func:`run_deep` runs such work on a thread of its own with a big stack
(:data:`STACK_BYTES`) and Python's recursion limit raised to :data:`RECURSION_LIMIT` for
the time of the work (given back after), so that these nest as deep as that allows; a
program nested deeper still is one :class:`~litmus.base.errors.InputError` ("nested too
deeply"), never a ``RecursionError`` or a crash.

The caller's thread waits for the work; an exception raised in it meanwhile (the CPU-time
limit's alarm, Ctrl-C) is passed on to the work, which stops at once, and then raised in
the caller: the work is under the caller's limits as if it ran there.
"""

from __future__ import annotations

import ctypes
import resource
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from herdsman.litmus.base.errors import InputError

T = TypeVar("T")

#: The stack of the thread that runs deep work (virtual memory, used as it is touched).
STACK_BYTES = 32 << 20
#: Python's recursion limit while deep work runs: about 1,000 levels of C nesting in the
#: worst constructs (parentheses, casts), far more in most (a sum of 10,000 terms).
RECURSION_LIMIT = 20_000
#: Address space the thread needs beyond its stack under a bound (``RLIMIT_AS``): its
#: first frames and the work's data.
HEADROOM_BYTES = 64 << 20

#: What a too deeply nested program is told.
TOO_DEEP = (
    "nested too deeply for herdsman (expressions, parentheses, blocks, calls or types "
    "nested thousands of levels deep)"
)


def run_deep(path: str, work: Callable[[], T], too_deep: str = TOO_DEEP) -> T:
    """``work()``, run with room for deep recursion (see the module docstring); a
    ``RecursionError`` is an :class:`InputError` about ``path`` saying ``too_deep``.
    Where no such thread can start (an address space too small for its stack), it runs
    here, with Python's usual limit."""
    box: list[T] = []
    failure: list[BaseException] = []

    def body() -> None:
        try:
            box.append(work())
        except BaseException as e:  # handed to the caller's thread, re-raised there
            failure.append(e)

    old_limit = sys.getrecursionlimit()
    if not _room_for_a_thread():
        return _here(path, work, too_deep)
    try:
        old_stack = threading.stack_size(STACK_BYTES)
    except (ValueError, RuntimeError):
        return _here(path, work, too_deep)
    thread = threading.Thread(target=body, name="herdsman-deep", daemon=True)
    try:
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        try:
            thread.start()
        except RuntimeError:  # "can't start new thread": no room for the stack
            sys.setrecursionlimit(old_limit)
            return _here(path, work, too_deep)
        finally:
            threading.stack_size(old_stack)
        _wait(thread)
    finally:
        sys.setrecursionlimit(old_limit)
    if failure:
        e = failure[0]
        if isinstance(e, RecursionError):
            raise InputError(path, 0, 0, too_deep) from None
        raise e
    return box[0]


def _room_for_a_thread() -> bool:
    """Whether the address space's bound leaves room for the thread: its stack and
    :data:`HEADROOM_BYTES`.  Without room a thread may still start (glibc reuses the stack
    of a finished one) and then die allocating its first frame, before ``Thread.start``
    returns, which then waits for ever."""
    room = address_space_room()
    return room is None or room >= STACK_BYTES + HEADROOM_BYTES


def address_space_room(bound: int | None = None) -> int | None:
    """Bytes this process may still map under ``bound`` (bytes; by default its
    address-space bound, ``RLIMIT_AS``): negative when it is over it already; None
    without a bound, or without ``/proc``."""
    soft = bound if bound is not None else resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):  # no /proc: only a failed start is seen
        return None
    return soft - size


def _here(path: str, work: Callable[[], T], too_deep: str) -> T:
    try:
        return work()
    except RecursionError:
        raise InputError(path, 0, 0, too_deep) from None


def _wait(thread: threading.Thread) -> None:
    """Join ``thread``; an exception raised here meanwhile is raised in the thread too
    (so that it stops), then here once it has."""
    try:
        thread.join()
    except BaseException as e:
        ident = thread.ident
        if ident is not None and thread.is_alive():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(ident), ctypes.py_object(type(e))
            )
        thread.join()
        raise
