"""Environments of the cat evaluator: lazy ``let`` bindings, failed bindings, scopes.

herd's bindings are lazy: a :class:`Lazy` is evaluated on first use (and remembers an
error it raised), an :class:`ErrorValue` stands for a binding whose evaluation failed,
and :func:`force` turns either into its value.  An :class:`Env` maps names to them or to
values, with the model's tags and enums beside.

An environment is persistent: :meth:`Env.bind` makes a new one and leaves the old one as
it was (``let`` bindings and closures keep the environment of their definition).  So that
a binding costs little however many there are, an environment is a short stack of
*layers* (dicts, newest first, shared between environments and never changed once
shared), merged like a binary counter: a new layer is merged into the one below while
that one is no larger, so there are at most about log2(n) layers for n names and each
name is copied O(log n) times over all bindings (a model of 20,000 ``let`` s binds in
linear time and memory, where copying the whole environment per ``let`` was quadratic).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from herdsman.cat.errors import CatError

#: What a missing name looks up to (bindings may hold any value, even None).
_MISSING: Any = object()


def _spent() -> Any:  # pragma: no cover - a Lazy once evaluated answers from its state
    """What a :class:`Lazy` keeps once evaluated, letting go of its closure."""
    raise AssertionError("a Lazy evaluated twice")


class Lazy:
    """A ``let`` binding evaluated on first use (herd's bindings are lazy)."""

    __slots__ = ("fn", "state", "value")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.state = 0
        self.value: Any = None

    def force(self) -> Any:
        st = self.state
        if st == 2:
            return self.value
        if st == 3:
            raise self.value
        if st == 1:
            raise CatError(None, "a definition refers to itself (use let rec)")
        self.state = 1
        try:
            v = self.fn()
        except CatError as e:
            self.state = 3
            self.value = e
            self.fn = _spent
            raise
        except BaseException:
            self.state = 0
            raise
        self.state = 2
        self.value = v
        self.fn = _spent
        return v


class ErrorValue:
    """A binding whose evaluation failed; raises when used."""

    __slots__ = ("error",)

    def __init__(self, error: CatError) -> None:
        self.error = error


class Env:
    """Bindings (name -> value or :class:`Lazy`) in layers (see the module docstring),
    tags (tag -> enum), enums (enum -> tags).

    ``Env(vals)`` takes ``vals`` as its one layer: the environment owns it, and
    :meth:`set_local` may add to it (closures' environments are made so)."""

    __slots__ = ("layers", "tags", "enums")

    def __init__(
        self,
        vals: dict[str, Any] | None = None,
        tags: dict[str, str] | None = None,
        enums: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        self.layers: tuple[dict[str, Any], ...] = (vals if vals is not None else {},)
        self.tags = tags if tags is not None else {}
        self.enums = enums if enums is not None else {}

    @classmethod
    def _of(
        cls,
        layers: tuple[dict[str, Any], ...],
        tags: dict[str, str],
        enums: dict[str, tuple[str, ...]],
    ) -> Env:
        env = cls.__new__(cls)
        env.layers = layers
        env.tags = tags
        env.enums = enums
        return env

    # ------------------------------------------------------------------ reading
    def get(self, name: str, default: Any = None) -> Any:
        """The binding of ``name`` (a value or a :class:`Lazy`), else ``default``."""
        for d in self.layers:
            v = d.get(name, _MISSING)
            if v is not _MISSING:
                return v
        return default

    def __contains__(self, name: str) -> bool:
        return any(name in d for d in self.layers)

    def names(self) -> Iterator[str]:
        """Every name bound, each once."""
        if len(self.layers) == 1:
            yield from self.layers[0]
            return
        seen: set[str] = set()
        for d in self.layers:
            for k in d:
                if k not in seen:
                    seen.add(k)
                    yield k

    @property
    def vals(self) -> dict[str, Any]:
        """Every binding as one dict (O(n): for tests and debugging; the evaluator reads
        with :meth:`get`).  An environment of several layers is first flattened into one
        of its own."""
        if len(self.layers) > 1:
            self.layers = (dict(self.items()),)
        return self.layers[0]

    def items(self) -> list[tuple[str, Any]]:
        """Every (name, binding) visible, each name once."""
        if len(self.layers) == 1:
            return list(self.layers[0].items())
        out: dict[str, Any] = {}
        for d in reversed(self.layers):
            out.update(d)
        return list(out.items())

    # ------------------------------------------------------------------ new environments
    def bind(self, updates: dict[str, Any]) -> Env:
        """This environment with ``updates`` added (shadowing): amortised O(len(updates)
        * log n) whatever the number n of names."""
        if not updates:
            return self
        top = dict(updates)
        layers = self.layers
        i = 0
        while i < len(layers) and len(layers[i]) <= len(top):
            merged = layers[i].copy()
            merged.update(top)
            top = merged
            i += 1
        return Env._of((top, *layers[i:]), self.tags, self.enums)

    def retag(self, tags: dict[str, str], enums: dict[str, tuple[str, ...]]) -> Env:
        """The same bindings with other tags and enums."""
        return Env._of(self.layers, tags, enums)

    def restrict(self, names: Iterable[str]) -> Env:
        """A one-layer environment of the bindings of ``names`` (those bound)."""
        out: dict[str, Any] = {}
        for k in names:
            v = self.get(k, _MISSING)
            if v is not _MISSING:
                out[k] = v
        return Env(out, self.tags, self.enums)

    # ------------------------------------------------------------------ changes
    def set_local(self, name: str, value: Any) -> None:
        """Bind ``name`` in this environment's own layer (one made by ``Env(vals)``, not
        shared: closures' environments, being built)."""
        self.layers[0][name] = value

    def settle(self, name: str, value: Any) -> None:
        """Replace the binding of ``name`` by ``value``, the value it stands for (a forced
        :class:`Lazy`): the same binding to every environment sharing its layer."""
        for d in self.layers:
            if name in d:
                d[name] = value
                return
        raise KeyError(name)


def force(v: Any) -> Any:
    """The value of a binding (evaluating a :class:`Lazy`, raising an :class:`ErrorValue`)."""
    t = type(v)
    if t is Lazy:
        return v.force()
    if t is ErrorValue:
        raise v.error
    return v
