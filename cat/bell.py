"""Bell files: the annotations their ``instructions`` declarations give events, as herd
reads them (``lib/BellModel.ml``, ``lib/BellName.ml``).

A bell file is written in cat.  herd runs it twice: once, alone, to collect its
declarations (``enum`` s, ``instructions R[...]``, ``default R[...]``), then as if
``include`` d between the standard library and the model, where its ``let`` s, ``flag`` s
and checks hold and its declarations are ignored.  The declarations of the event types
``R``, ``W``, ``F``, ``RMW``, ``B``, ``CALL`` (an old name of ``F``) and ``SRCU`` name the
annotations events may carry; each such annotation ``a`` becomes the predefined event set
named ``a`` with its first letter in upper case (``'once`` gives ``Once``, ``'MB`` gives
``MB``, ``'rcu-lock`` gives ``Rcu-lock``): the events carrying annotation ``a``.

:func:`read_bell` reads one (an :class:`~litmus.base.errors.InputError` on a malformed
one); :class:`Bell` is what it declares.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from herdsman.cat import ast as A
from herdsman.cat.errors import CatError
from herdsman.cat.parser import parse_file

#: The event types a bell file may annotate (herd's ``BellName.all_sets``).
EVENT_TYPES = ("B", "F", "R", "RMW", "SRCU", "W")
#: herd's old name of an event type (``BellName.tr_compat``).
_COMPAT = {"CALL": "F"}
#: enums herd gives a meaning of its own (GPU scopes and memory regions)
_SCOPE_ENUMS = ("scopes", "regions", "levels")


def tag_set_name(tag: str) -> str:
    """The event set of annotation ``tag``: its first letter in upper case."""
    return tag[:1].upper() + tag[1:]


@dataclass(frozen=True)
class Bell:
    """A bell file: its path, its AST (run before the model) and, per event type, the
    groups of annotations its ``instructions`` declare (one tuple per declaration)."""

    path: str
    ast: A.Model
    events: tuple[tuple[str, tuple[frozenset[str], ...]], ...]

    @property
    def annotations(self) -> frozenset[str]:
        """Every annotation an event may carry (herd's ``all_events``)."""
        out: set[str] = set()
        for _, groups in self.events:
            for g in groups:
                out |= g
        return frozenset(out)

    def tag_sets(self) -> dict[str, str]:
        """Each predefined event set the bell makes -> its annotation."""
        return {tag_set_name(a): a for a in sorted(self.annotations)}


def read_bell(path: str) -> Bell:
    """Read and check the bell file ``path`` (InputError when it is malformed)."""
    ast = parse_file(path)
    try:
        return Bell(os.path.abspath(path), ast, _declarations(ast))
    except CatError as e:
        raise e.to_input_error() from None


def _declarations(ast: A.Model) -> tuple[tuple[str, tuple[frozenset[str], ...]], ...]:
    """The ``instructions`` declarations of a bell file, per event type (in name order)."""
    enums: dict[str, tuple[str, ...]] = {}
    out: dict[str, list[frozenset[str]]] = {}
    defaults: set[str] = set()
    for ins in ast.instrs:
        if isinstance(ins, A.Enum):
            if ins.name in enums:
                raise CatError(ins.pos, f"second definition of bell enum {ins.name}")
            if ins.name in _SCOPE_ENUMS:
                raise CatError(
                    ins.pos, f"bell enum '{ins.name}' (scopes, regions, levels) is not supported"
                )
            enums[ins.name] = ins.tags
        elif isinstance(ins, A.Events):
            kind = _COMPAT.get(ins.name, ins.name)
            if kind not in EVENT_TYPES:
                legal = ",".join(sorted(EVENT_TYPES))
                raise CatError(ins.pos, f"event type {ins.name} is not part of legal {{{legal}}}")
            groups = [_tags(e, enums) for e in ins.args]
            if ins.default:
                if kind in defaults:
                    raise CatError(ins.pos, f"second definition of default for {ins.name}")
                defaults.add(kind)
                for e, g in zip(ins.args, groups, strict=True):
                    if len(g) != 1:
                        raise CatError(e.pos, "ambiguous default declaration")
            else:
                out.setdefault(kind, []).extend(groups)
    return tuple((k, tuple(v)) for k, v in sorted(out.items()))


def _tags(e: A.Expr, enums: dict[str, tuple[str, ...]]) -> frozenset[str]:
    """The annotations an argument of ``instructions X[...]`` stands for: a tag, a set of
    tags, or an enum's name (all its tags)."""
    if isinstance(e, A.TagLit):
        return frozenset([e.name])
    if isinstance(e, A.Var) and e.name in enums:
        return frozenset(enums[e.name])
    if isinstance(e, A.ExplicitSet) and all(isinstance(x, A.TagLit) for x in e.elems):
        return frozenset(x.name for x in e.elems if isinstance(x, A.TagLit))
    if isinstance(e, A.Konst) and e.kind == "empty":
        return frozenset()
    raise CatError(e.pos, "event declaration expected a set of tags (a tag, {'a,'b} or an enum)")


def resolve_bell(
    spec: str | os.PathLike[str], include_dirs: Iterable[str | os.PathLike[str]]
) -> str:
    """The bell file ``spec`` names: the file itself, else one of that name in an include
    directory (as herd looks for it), else ``spec`` unchanged (reading it says it is
    missing)."""
    s = str(spec)
    if os.path.exists(s) or os.path.isabs(s):
        return s
    for d in include_dirs:
        cand = os.path.join(str(d), s)
        if os.path.exists(cand):
            return cand
    return s
