"""herdsman's own command lines (``run``, ``validate``, ``verify``...): argparse that raises
:class:`UsageError` instead of printing usage and exiting, and refuses an option given
twice (``--model sc --model tso`` would silently keep the last one)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, NoReturn

from herdsman.litmus.base.errors import UsageError

__all__ = ["Parser", "UsageError"]


class _StoreOnce(argparse.Action):
    """argparse's ``store``, refusing a second occurrence of the same option."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if isinstance(parser, Parser) and option_string is not None:
            parser.note_given(self.dest, option_string)
        setattr(namespace, self.dest, values)


class Parser(argparse.ArgumentParser):
    """argparse for herdsman's commands (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        self._given: dict[str, str] = {}

    def note_given(self, dest: str, option: str) -> None:
        """Record that ``option`` set ``dest``; a second time is an error."""
        first = self._given.get(dest)
        if first is not None:
            also = "" if first == option else f" (as {first}, then {option})"
            raise UsageError(f"option {option} given twice{also}: give it once")
        self._given[dest] = option

    def parse_known_args(  # type: ignore[override]  # typeshed overloads it on the namespace type
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = {}
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)
