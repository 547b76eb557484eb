"""The plainest init sections and conditions, read by cutting their text (in C).

Nearly every test's init section is ``[TYPE] loc[=value]`` items ended by ``;``, and its
condition a quantifier over atoms ``loc=value`` joined by ``/\\``, ``\\/``, ``~`` and
parentheses, the longest of them hundreds of atoms.  :func:`plain_init` cuts the section
at its ``;`` and reads each item once per text; :func:`plain_condition` cuts the
condition at its connectives with one ``re.split`` and builds the proposition without a
token list.  Both give exactly what :mod:`litmus.quickstate`'s tokens give (items,
offsets, propositions flattened, registers as written), several times faster; any other
text gives None, and the tokens (or the grammar) read it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from herdsman.litmus.base.arch import ARCHS
from herdsman.litmus.base.ir import (
    And,
    Condition,
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
)
from herdsman.litmus.quickstate import (
    _KEYWORDS,
    _NAME,
    _NUM,
    _NUM_END,
    _QUANT,
    _QUICK_DEPTH,
    _QUICK_DIGITS,
    QuickCondition,
    _atom,
    _flat,
    _proc,
)
from herdsman.litmus.test import InitItem


def plain_init(
    text: str, arch: str, nthreads: int
) -> tuple[tuple[tuple[InitItem, int], ...], tuple[tuple[RegLoc, str], ...]] | None:
    """``quick_init`` of the usual init section, items ``[TYPE] loc[=value]`` each ended
    by ``;`` (the last one may be not): the text cut at its ``;``, each item read once
    (:func:`_plain_item`); None for any other text (the tokens read it)."""
    pieces = text.split(";")
    last = len(pieces) - 1
    items: list[tuple[InitItem, int]] = []
    spelled: dict[RegLoc, str] = {}
    pos = 0
    for i, piece in enumerate(pieces):
        item = piece.strip()
        if item:
            got = _plain_item(item, arch, nthreads)
            if got is None:
                return None
            it, regs, at = got
            if regs is not None:
                spelled.setdefault(*regs)
            items.append((it, pos + len(piece) - len(piece.lstrip()) + at))
        elif i != last:  # an empty item but the last: the tokens read it
            return None
        pos += len(piece) + 1
    return tuple(items), tuple(spelled.items())


#: An init item ``[TYPE] loc[=value]``, its location ``N:reg``, ``%reg`` or ``x``, as the
#: tokens read it.
_INIT_ITEM = re.compile(
    rf"(?:(?P<ctype>{_NAME})\s+)?(?P<loc>(?P<tid>\d+){_NUM_END}\s*:\s*(?P<reg>{_NAME})"
    rf"|(?P<sreg>%[A-Za-z_.$][A-Za-z0-9_/.\-]*)|(?P<mem>{_NAME}))"
    rf"(?:\s*=\s*(?:(?P<num>{_NUM}){_NUM_END}|(?P<sym>{_NAME})))?"
)


@lru_cache(maxsize=1 << 14)
def _plain_item(
    text: str, arch: str, nthreads: int
) -> tuple[InitItem, tuple[RegLoc, str] | None, int] | None:
    """The init item ``text`` (:data:`_INIT_ITEM`), its register as written when that is
    not the canonical name, and the offset of its location in ``text``, as the tokens
    read them; None for any other item (the tokens read it)."""
    m = _INIT_ITEM.fullmatch(text)
    if m is None:
        return None
    ctype, tid, reg, sreg, mem, num, sym = m.group(
        "ctype", "tid", "reg", "sreg", "mem", "num", "sym"
    )
    if ctype in _KEYWORDS:
        return None
    loc: Loc
    spelled = None
    if tid is not None:
        canonical = ARCHS[arch].register(reg)
        if len(tid) > _QUICK_DIGITS or canonical is None or not 0 <= int(tid) < nthreads:
            return None
        loc = RegLoc(int(tid), canonical)
        spelled = (loc, reg) if canonical != reg else None
    elif sreg is not None:
        loc = SymRegLoc(sreg[1:])
    elif mem in _KEYWORDS or _proc(mem):
        return None
    else:
        loc = MemLoc(mem)
    at = m.start("loc")
    if num is not None:
        if len(num) > _QUICK_DIGITS:
            return None
        v = int(num, 16) if num[:2] in ("0x", "0X") else int(num)
        return InitItem(loc, v, num, ctype=ctype), spelled, at
    if sym is not None:
        if sym in _KEYWORDS:
            return None
        return InitItem(loc, Sym(sym), sym, ctype=ctype), spelled, at
    return InitItem(loc, None, "", ctype=ctype), spelled, at


#: The quantifier starting a plain condition (its word not followed by a name's character).
_PLAIN_QUANT = re.compile(
    r"\s*(?:(exists|forall|final)|(~)\s*exists|(not)\s+exists)(?![A-Za-z0-9_/.\-$])"
)
#: A proposition cut at its connectives and parentheses (``re.split`` keeps them).
_CONNECTIVE = re.compile(r"\s*(/\\|\\/|[()~])\s*")
#: The operands of a plain condition other than atoms.
_WORDS = frozenset(("~", "not", "(", "true", "false"))
#: ``/\\`` right after a name or a number: the tokens read it otherwise (a name takes its
#: ``/``, a number may not be followed by one).
_GLUED_AND = re.compile(r"[^\s)]/\\")


def plain_condition(text: str, arch: str, nthreads: int, max_depth: int) -> QuickCondition | None:
    """``quick_condition`` of the plainest conditions, the most common and the longest (a
    quantifier, then atoms ``loc=value``, ``true``, ``false``, ``~``, ``not``, ``/\\``,
    ``\\/`` and parentheses, then an optional ``;``): the text cut at its connectives in
    one ``re.split``, each atom read once (quickstate's ``_atom``), the proposition built
    as quickstate's ``_prop`` builds it (chains flattened) and its depth counted as its
    ``_depth`` counts it, without a token list; None for any other text (the tokens
    read it)."""
    m = _PLAIN_QUANT.match(text)
    if m is None:
        return None
    body = text[m.end() :].strip()
    if body.endswith(";"):
        body = body[:-1].rstrip()
    if _GLUED_AND.search(body) is not None:
        return None
    word, tilde, no = m.groups()
    quant, written = _QUANT[word] if word else ("~exists", "~exists" if tilde else "not exists")
    spelled: dict[RegLoc, str] = {}
    # the current parenthesis level: its finished conjunctions (ors) and the conjunction
    # being read (ands), each with the deepest of its members (a member flattened into
    # it counted one level less), and the negations before the next operand; outer
    # levels saved in ``frames``
    frames: list[tuple[list[Prop], int, list[Prop], int, int]] = []
    ors: list[Prop] = []
    ands: list[Prop] = []
    or_depth = and_depth = nots = 0
    operand = True  # an operand is expected (else a connective or ')')
    atom = _atom
    for part in _CONNECTIVE.split(body):
        if not part:
            continue
        if operand:
            p: Prop
            if part not in _WORDS:  # an atom, the usual operand
                got = atom(part, arch, nthreads)
                if got is None:
                    return None
                p, regs = got
                if regs is not None:
                    spelled.setdefault(*regs)
            elif part == "~" or part == "not":
                if nots >= _QUICK_DEPTH:
                    return None
                nots += 1
                continue
            elif part == "(":
                if len(frames) >= _QUICK_DEPTH:
                    return None
                frames.append((ors, or_depth, ands, and_depth, nots))
                ors, ands = [], []
                or_depth = and_depth = nots = 0
                continue
            else:
                p = PTrue() if part == "true" else PFalse()
            if nots:
                for _ in range(nots):
                    p = Not(p)
                if nots > and_depth:
                    and_depth = nots
                nots = 0
            ands.append(p)
            operand = False
            continue
        if part == "/\\":
            operand = True
            continue
        if part == "\\/":
            p, d = _chain(And, ands, and_depth)
            ors.append(p)
            if type(p) is Or:
                d -= 1  # flattened into the disjunction
            if d > or_depth:
                or_depth = d
            ands = []
            and_depth = 0
            operand = True
            continue
        if part != ")" or not frames:
            return None
        p, d = _level(ors, or_depth, ands, and_depth)
        ors, or_depth, ands, and_depth, nots = frames.pop()
        for _ in range(nots):
            p = Not(p)
        d += nots
        nots = 0
        ands.append(p)
        if type(p) is And:
            d -= 1  # flattened into the conjunction
        if d > and_depth:
            and_depth = d
    if operand or frames:
        return None
    p, d = _level(ors, or_depth, ands, and_depth)
    if d > max_depth:
        return None
    return Condition(quant, p, written), (), None, tuple(spelled.items())


def _chain(cls: type[And] | type[Or], members: list[Prop], deepest: int) -> tuple[Prop, int]:
    """The conjunction (disjunction) of ``members`` as quickstate's ``_reduce`` makes it
    (members of the same connective flattened into it; one member: itself) and its depth
    (``deepest``: its members' deepest, those flattened counted one level less)."""
    if len(members) == 1:
        p = members[0]
        return p, (deepest + 1 if type(p) is cls else deepest)
    return _flat(cls, members), deepest + 1


def _level(ors: list[Prop], or_depth: int, ands: list[Prop], and_depth: int) -> tuple[Prop, int]:
    """The proposition of a parenthesis level and its depth (see :func:`plain_condition`)."""
    p, d = _chain(And, ands, and_depth)
    if not ors:
        return p, d
    ors.append(p)
    return _chain(Or, ors, max(or_depth, d - 1 if type(p) is Or else d))


__all__ = ["plain_condition", "plain_init"]
