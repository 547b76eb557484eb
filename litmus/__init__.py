"""Litmus tests: parsers (PPC, X86), the program IR, printer, hash, examples.

``parse_file(path)`` and ``parse_text(text, path)`` return a :class:`litmus.ir.LitmusTest`.
They are loaded on first use, so that importing :mod:`litmus.ir` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from herdsman.litmus.parser import parse_file, parse_text

__all__ = ["parse_file", "parse_text"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from herdsman.litmus import parser

        return getattr(parser, name)
    raise AttributeError(f"module 'litmus' has no attribute {name!r}")
