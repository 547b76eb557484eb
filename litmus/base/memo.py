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

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, Self, TypeVar, cast, overload

P = ParamSpec("P")
R = TypeVar("R")


def by_identity(maxsize: int) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: remember the function's results per identity of its (positional,
    immutable) arguments."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        # per key (the arguments' ids) the arguments, kept alive so that their ids are
        # not reused while remembered (a key found is the same objects), and the result
        kept: dict[object, tuple[object, R]] = {}
        call = cast("Callable[..., R]", fn)
        lock = threading.Lock()

        def keep(key: object, args: object, out: R) -> R:
            with lock:
                if len(kept) >= maxsize:
                    kept.clear()
                kept[key] = (args, out)
            return out

        # positional arguments only (no dict of keywords per call); functions of one, two
        # and three arguments, the usual, have a wrapper of their own (no key built by a
        # loop)
        arity = len(inspect.signature(fn).parameters)

        def remembered1(arg: Any) -> R:
            got = kept.get(id(arg))
            if got is not None:
                return got[1]
            return keep(id(arg), arg, call(arg))

        def remembered2(arg: Any, other: Any) -> R:
            key = (id(arg), id(other))
            got = kept.get(key)
            if got is not None:
                return got[1]
            return keep(key, (arg, other), call(arg, other))

        def remembered3(arg: Any, other: Any, third: Any) -> R:
            key = (id(arg), id(other), id(third))
            got = kept.get(key)
            if got is not None:
                return got[1]
            return keep(key, (arg, other, third), call(arg, other, third))

        def remembered(*args: Any) -> R:
            key = tuple(map(id, args))
            got = kept.get(key)
            if got is not None:
                return got[1]
            return keep(key, args, call(*args))

        chosen: Callable[..., R] = remembered
        if arity == 1:
            chosen = remembered1
        elif arity == 2:
            chosen = remembered2
        elif arity == 3:
            chosen = remembered3
        return cast("Callable[P, R]", functools.update_wrapper(chosen, fn))

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
