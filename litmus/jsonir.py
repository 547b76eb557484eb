"""The JSON form of a parsed test (``herdsman parse --json``), and back.

Every IR dataclass becomes an object with its class name under ``"type"`` and its fields;
tuples become lists, frozensets sorted lists.  ``from_json(to_json(t)) == t``, so the JSON
is a complete, tool-friendly image of the IR.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from herdsman.litmus import test as lt
from herdsman.litmus.base import ir

_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        ir.Sym,
        ir.RegLoc,
        ir.MemLoc,
        ir.SymRegLoc,
        ir.Reg,
        ir.Imm,
        ir.Label,
        ir.Nop,
        ir.Op,
        ir.Select,
        ir.Load,
        ir.Store,
        ir.StoreCond,
        ir.RMW,
        ir.CAS,
        ir.Fence,
        ir.Branch,
        ir.Assume,
        ir.Assert,
        ir.Lock,
        ir.Unlock,
        ir.Spawn,
        ir.Join,
        ir.Exit,
        ir.PTrue,
        ir.PFalse,
        ir.Atom,
        ir.Vector,
        ir.Not,
        ir.And,
        ir.Or,
        ir.Implies,
        ir.Condition,
        lt.Instruction,
        lt.InitItem,
        lt.LitmusTest,
    )
}
_SETS = {"annots"}  # frozenset fields


def _enc(x: Any) -> Any:
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        out: dict[str, Any] = {"type": type(x).__name__}
        for f in dataclasses.fields(x):
            if f.name == "path":
                continue
            out[f.name] = _enc(getattr(x, f.name))
        return out
    if isinstance(x, frozenset):
        return sorted(x)
    if isinstance(x, (tuple, list)):
        return [_enc(y) for y in x]
    return x


def to_json(t: lt.LitmusTest) -> dict[str, Any]:
    """The test as JSON-ready data (plus herd's hash, for convenience)."""
    from herdsman.litmus.hash import herd_hash

    data = _enc(t)
    data["hash"] = herd_hash(t)
    return data


def _dec(x: Any, field: str = "") -> Any:
    if isinstance(x, dict):
        cls = _TYPES[x["type"]]
        kwargs = {k: _dec(v, k) for k, v in x.items() if k not in ("type", "hash")}
        return cls(**kwargs)
    if isinstance(x, list):
        items = [_dec(y) for y in x]
        if field in _SETS:
            return frozenset(items)
        if field in ("info", "kinds"):
            return tuple(tuple(p) for p in items)
        return tuple(items)
    return x


def from_json(data: dict[str, Any]) -> lt.LitmusTest:
    """The test back from :func:`to_json`'s data."""
    return _dec(data)
