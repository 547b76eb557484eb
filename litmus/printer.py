"""Write a test back in herd's litmus format, and conditions as herd prints them.

``print_test(t)`` gives a normalised test that parses back to ``t`` (every instruction in
herd's canonical text with its mnemonic as written, threads as aligned columns, labels on
rows of their own).  ``herd_condition_text(cond)`` is the condition exactly as herd prints
it after ``Condition `` (``ConstrGen.pp_prop``: ``/\\`` inside ``\\/`` unparenthesised,
``\\/`` or ``=>`` inside ``/\\`` parenthesised, negation as ``not (...)``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from herdsman.litmus.base.ir import (
    And,
    Atom,
    Condition,
    Implies,
    Label,
    Loc,
    MemLoc,
    Not,
    Or,
    PFalse,
    Prop,
    PTrue,
    RegLoc,
    Sym,
    SymRegLoc,
    Value,
    Vector,
)
from herdsman.litmus.base.memo import by_identity
from herdsman.litmus.jsonir import to_json
from herdsman.litmus.table import ASSEMBLERS
from herdsman.litmus.test import InitItem, LitmusTest

__all__ = ["print_test", "herd_condition_text", "prop_text", "to_json"]

# ----------------------------------------------------------------------------- conditions


def loc_text(loc: Loc) -> str:
    """A location as herd prints it in conditions and states (``1:r1``, ``[x]``, ``%x0``)."""
    if isinstance(loc, RegLoc):
        return f"{loc.tid}:{loc.reg}"
    if isinstance(loc, SymRegLoc):
        return f"%{loc.name}"
    if loc.name.endswith("]"):  # an array's cell, v[1]: herd prints no brackets
        return loc.name
    return f"[{loc.name}]"


def value_text(v: Value | Loc | Vector) -> str:
    if isinstance(v, bool):  # not a litmus value, but never print True as 1
        raise TypeError(f"bad value {v!r}")
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Sym):
        return str(v)
    if isinstance(v, Vector):
        return "{" + ",".join([value_text(k) for k in v.cells]) + "}"
    return loc_text(v)


def atom_loc_text(a: Atom) -> str:
    """An atom's location as herd prints it there: an array compared whole without
    brackets (``x={1,2}``), a memory location otherwise with them (``[x]=1``)."""
    if isinstance(a.value, Vector) and isinstance(a.loc, MemLoc):
        return a.loc.name
    return loc_text(a.loc)


_TOP, _AND, _OR, _IMPLIES = range(4)


def _needs_paren(above: int, here: int, safe: bool, left: bool) -> bool:
    if above == _TOP:
        return False
    if above == _IMPLIES:
        # herd never parenthesises => inside =>; the round-trip printer does on the left,
        # since => associates to the right
        return here != _IMPLIES or (safe and left)
    if above == _AND:
        return here != _AND
    return here == _IMPLIES  # above is \/


def hexa_text(v: Value | Loc | Vector, bits: int = 64) -> str:
    """A value as herd's ``-hexa true`` prints it: an integer in hexadecimal, as an
    unsigned word of ``bits`` bits (a vector's cells each so)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return f"0x{v & ((1 << bits) - 1):x}"
    if isinstance(v, Vector):
        return "{" + ",".join([hexa_text(k, bits) for k in v.cells]) + "}"
    return value_text(v)


def prop_text(p: Prop, safe: bool = False, hexa: Mapping[Loc, int] | None = None) -> str:
    """``p`` in herd's syntax; ``safe`` adds the parentheses herd omits around the left
    operand of a nested ``=>`` (so that the text parses back to ``p``); with ``hexa``,
    integers in hexadecimal (herd's ``-hexa true``), as words of the bits it gives their
    location (64 for one it does not name)."""

    atoms: dict[int, str] = {}  # per atom's id, its text (the atoms of p repeat)

    # ``go`` is passed along rather than named: a function that names itself makes a
    # reference cycle, left for the collector to find
    def go(q: Prop, above: int, again: Callable[..., str], left: bool = False) -> str:
        if isinstance(q, Atom):
            if hexa is None:
                return _atom_text(q)
            text = atoms.get(id(q))
            if text is None:
                v = hexa_text(q.value, hexa.get(q.loc, 64))
                text = atoms[id(q)] = f"{atom_loc_text(q)}={v}"
            return text
        if isinstance(q, Not):
            return f"not ({again(q.prop, _TOP, again)})"
        if isinstance(q, PTrue):
            return "true"
        if isinstance(q, PFalse):
            return "false"
        if isinstance(q, (And, Or)):
            if not q.props:
                return "true" if isinstance(q, And) else "false"
            here = _AND if isinstance(q, And) else _OR
            sep = " /\\ " if here == _AND else " \\/ "
            s = sep.join([again(r, here, again) for r in q.props])
        elif isinstance(q, Implies):
            here = _IMPLIES
            s = again(q.left, _IMPLIES, again, True) + " => " + again(q.right, _IMPLIES, again)
        else:
            raise TypeError(f"not a proposition: {q!r}")
        return f"({s})" if _needs_paren(above, here, safe, left) else s

    return go(p, _TOP, go)


@by_identity(maxsize=1 << 14)
def _atom_text(q: Atom) -> str:
    """An atom's text in herd's syntax (remembered: conditions share their atoms, one
    object per text)."""
    return f"{atom_loc_text(q)}={value_text(q.value)}"


@by_identity(maxsize=4096)
def herd_condition_text(cond: Condition) -> str:
    """The condition as herd prints it after ``Condition ``: ``exists (1:r1=1 /\\ ...)``."""
    return f"{cond.quant} ({prop_text(cond.prop)})"


def hexa_condition_text(cond: Condition, bits: Mapping[Loc, int] | None = None) -> str:
    """:func:`herd_condition_text` under herd's ``-hexa true``: integers as words of the
    bits ``bits`` gives their location (a C test's types), else 64 (an assembly test's)."""
    return f"{cond.quant} ({prop_text(cond.prop, hexa=bits or {})})"


# ----------------------------------------------------------------------------- tests


def _init_text(it: InitItem) -> str:
    if isinstance(it.loc, RegLoc):
        loc = f"{it.loc.tid}:{it.loc.reg}"
    elif isinstance(it.loc, SymRegLoc):
        loc = f"%{it.loc.name}"
    else:
        loc = it.loc.name
    if it.pointer:
        loc = "*" + loc
    if it.ctype:
        loc = f"{it.ctype} {loc}"
    if it.cells is not None:
        return f"{loc}[{len(it.cells)}]={{{','.join(value_text(v) for v in it.cells)}}}"
    if it.value is None:
        return loc
    return f"{loc}={it.text or value_text(it.value)}"


def _table(t: LitmusTest) -> list[str]:
    arch = ASSEMBLERS[t.arch]
    cols: list[list[str]] = []
    for thread in t.threads:
        col: list[str] = []
        for ins in thread:
            col.append(f"{ins.name}:" if isinstance(ins, Label) else arch.source_text(ins))
        cols.append(col)
    header = [f"P{i}" for i in range(len(cols))]
    widths = [max([len(h), *(len(x) for x in c)]) for h, c in zip(header, cols, strict=True)]
    nrows = max((len(c) for c in cols), default=0)
    rows = [header] + [[c[i] if i < len(c) else "" for c in cols] for i in range(nrows)]
    return [
        "|".join(f" {cell.ljust(w)} " for cell, w in zip(row, widths, strict=True)) + ";"
        for row in rows
    ]


def _observed_text(p: Prop) -> str:
    """``observed`` syntax for an Or of Ands of atoms (what the parser builds from it):
    ``p`` is of :func:`_is_observed_shape`."""
    assert isinstance(p, Or)
    groups = []
    for g in p.props:
        assert isinstance(g, And)
        atoms = []
        for a in g.props:
            if isinstance(a, Not):
                assert isinstance(a.prop, Atom)
                atoms.append(f"{atom_loc_text(a.prop)}<>{value_text(a.prop.value)};")
            else:
                atoms.append(f"{prop_text(a)};")
        groups.append(" ".join(atoms))
    return " and ".join(groups)


def _condition_lines(t: LitmusTest) -> list[str]:
    out: list[str] = []
    c = t.condition
    if t.locations or (c.written in ("not exists", "()") and t.filter is None):
        # herd's splitter finds the condition by its keyword; `not exists` and `(p)` have
        # none, so they need a (possibly empty) `locations` before them
        locs = " ".join(
            f"{loc_text(x) if not isinstance(x, MemLoc) else x.name};" for x in t.locations
        )
        out.append(f"locations [{locs}]")
    if t.filter is not None:
        out.append(f"filter {prop_text(t.filter, safe=True)}")
    body = prop_text(c.prop, safe=True)
    if c.written == "":
        if (c.quant, c.prop) != ("forall", PTrue()):
            out.append(f"{c.quant} ({body})")
    elif c.written == "()":
        out.append(f"({body})")
    elif c.written == "observed" and _is_observed_shape(c.prop):
        out.append(f"observed {_observed_text(c.prop)}")
    elif c.written in ("exists", "~exists", "not exists", "forall", "final"):
        out.append(f"{c.written} ({body})")
    else:
        out.append(f"{c.quant} ({body})")
    if t.kinds:
        out.append("with " + " ".join(f"{name}: {q};" for name, q in t.kinds))
    return out


def _is_observed_shape(p: Prop) -> bool:
    return isinstance(p, Or) and all(
        isinstance(g, And)
        and all(
            isinstance(a, Atom) or (isinstance(a, Not) and isinstance(a.prop, Atom))
            for a in g.props
        )
        for g in p.props
    )


def print_test(t: LitmusTest) -> str:
    """``t`` in herd's litmus format; ``parse_text(print_test(t)) == t``."""
    head = f"{t.arch} {t.name}"
    if t.texname:
        head += f" ({t.texname})"
    lines = [head]
    if t.doc is not None:
        lines.append(f'"{t.doc}"')
    lines.extend(f"{k}={v}" for k, v in t.info)
    lines.append("{")
    lines.extend(f"{_init_text(it)};" for it in t.init)
    lines.append("}")
    lines.extend(_table(t))
    lines.extend(_condition_lines(t))
    return "\n".join(lines) + "\n"
