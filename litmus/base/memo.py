"""Results remembered per object identity, for immutable objects a campaign's tests share.

A parsed condition is one object for every test that writes it the same way (sections
are parsed once per text), but hashing it by value walks the whole proposition on every
lookup.  :func:`by_identity` remembers a function's result per identity of its arguments
(each kept alive with the result, so that an identity is never reused while remembered),
at most ``maxsize`` of them (then it starts afresh).

:class:`cached` is :func:`functools.cached_property` without its lock (Python 3.11's takes
one on every first access: a cost on skeletons, whose many properties are each asked once).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, Self, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")


class _ByIdentity(Generic[P, R]):
    def __init__(self, fn: Callable[P, R], maxsize: int) -> None:
        self.fn = fn
        self.maxsize = maxsize
        self._kept: dict[tuple[int, ...], tuple[tuple[object, ...], R]] = {}
        self._lock = threading.Lock()

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        assert not kwargs, "by_identity takes positional arguments"
        key = tuple(map(id, args))
        got = self._kept.get(key)
        if got is not None:  # the same objects: those of the key are kept alive with it
            return got[1]
        out = self.fn(*args, **kwargs)
        with self._lock:
            if len(self._kept) >= self.maxsize:
                self._kept.clear()
            self._kept[key] = (tuple(args), out)
        return out

    def cache_clear(self) -> None:
        with self._lock:
            self._kept.clear()


def by_identity(maxsize: int) -> Callable[[Callable[P, R]], _ByIdentity[P, R]]:
    """Decorator: remember the function's results per identity of its (positional,
    immutable) arguments."""

    def wrap(fn: Callable[P, R]) -> _ByIdentity[P, R]:
        return _ByIdentity(fn, maxsize)

    return wrap


class cached(Generic[R]):  # noqa: N801 - named like the property decorators
    """A property computed on first access and kept in the instance's ``__dict__``, which
    answers from then on (the instance needs one, as for :func:`functools.cached_property`)."""

    def __init__(self, fn: Callable[[Any], R]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> R: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> Self | R:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


__all__ = ["by_identity", "cached"]
