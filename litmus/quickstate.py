"""The usual init sections and conditions, read without the grammar.

Most tests' init sections are ``N:reg=value``, ``x=value`` and ``TYPE x`` items, and
their conditions a quantifier over a proposition of ``loc=value`` atoms, ``true`` and
``false`` with ``/\\``, ``\\/``, ``~`` and parentheses, after ``locations [...]`` and
``filter`` when the test has them.  :func:`quick_init` and :func:`quick_condition` read exactly
those, with the grammar's results (``litmus/state.lark``: the same items, positions,
flattened conjunctions and disjunctions), several times faster than the LALR parser;
anything else — another construct, a comment, an error to report — returns None and the
grammar reads the section.  A campaign reads thousands of distinct sections.
"""

from __future__ import annotations

import re
from functools import lru_cache

from herdsman.litmus.base.arch import ARCHS
from herdsman.litmus.base.ir import (
    And,
    Atom,
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
    Value,
)
from herdsman.litmus.test import InitItem

_NAME = r"[A-Za-z_.$][A-Za-z0-9_/.\-$]*"
_NUM = r"0[xX][0-9a-fA-F]+|-?\d+"
_NUM_END = r"(?![A-Za-z_.$/\-])"  # a number token is not followed by a name's character
_TOKENS = (
    rf"(?P<num>{_NUM}){_NUM_END}|(?P<sreg>%[A-Za-z_.$][A-Za-z0-9_/.\-]*)"
    rf"|(?P<name>{_NAME})|(?P<op>/\\|\\/|=|~|\(|\)|\[|\]|:|;)"
)
_TOKEN = re.compile(rf"\s*(?:{_TOKENS})")
#: A condition's atom ``N:reg=value`` or ``x=value`` (value a number or a name) is read as
#: one token: the tokens it stands for, in a row (:func:`_atom` reads them as
#: :meth:`_Reader.location` and :meth:`_Reader.value` do).  Atoms repeat across a
#: campaign's conditions: each is read once.
_ATOM = (
    rf"(?:(?P<tid>\d+){_NUM_END}\s*:\s*(?P<reg>{_NAME})|(?P<mem>{_NAME}))"
    rf"\s*=\s*(?:(?P<num>{_NUM}){_NUM_END}|(?P<sym>{_NAME}))"
)
_ATOM_PARTS = re.compile(_ATOM)
_COND_TOKEN = re.compile(rf"\s*(?:(?P<atom>{re.sub(r'[(][?]P<[a-z]+>', '(?:', _ATOM)})|{_TOKENS})")
#: words the grammar gives a meaning of their own (the grammar reads sections using them)
_KEYWORDS = frozenset(
    ("locations", "filter", "with", "observed", "Observed", "true", "false", "_Atomic")
    + ("ATOMIC_INIT", "and", "exists", "forall", "final", "not")
)
_QUANT = {"exists": ("exists", "exists"), "forall": ("forall", "forall")}
_QUANT |= {"final": ("exists", "final")}

Token = tuple[str, str, int]

#: The deepest parentheses and the longest run of negations read here (an explicit stack:
#: no recursion); a proposition nested deeper than the caller's bound (``max_depth``,
#: counted as the grammar counts: each ``~``, flattened ``/\\`` and ``\\/`` one level) is
#: the grammar's, which reports it with a clean error (``MAX_CONDITION_DEPTH``).
_QUICK_DEPTH = 64
#: The longest number read here (well within herdsman's bound on integers,
#: ``litmus.base.numbers``); longer ones are the grammar's.
_QUICK_DIGITS = 15


def _tokens(text: str, pattern: re.Pattern[str] = _TOKEN) -> list[Token] | None:
    """The tokens of ``text`` (kind, text, offset), or None at anything unusual
    (``pattern``: :data:`_COND_TOKEN` reads a condition's atoms as tokens)."""
    out: list[Token] = []
    pos, n = 0, len(text)
    match = pattern.match
    while True:
        m = match(text, pos)
        if m is None:
            return out if not text[pos:].strip() else None
        kind = m.lastgroup
        assert kind is not None
        if kind == "num" and len(m.group(kind)) > _QUICK_DIGITS:
            return None  # maybe beyond the bound: the grammar says so
        out.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()
        if pos >= n:
            return out


class _Reader:
    """A cursor over tokens, reading locations and values as the grammar does."""

    def __init__(self, toks: list[Token], arch: str, nthreads: int) -> None:
        self.toks = toks
        self.i = 0
        self.arch = arch
        self.register = ARCHS[arch].register
        self.nthreads = nthreads
        self.spelled: dict[RegLoc, str] = {}

    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def is_op(self, text: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t[0] == "op" and t[1] == text

    def location(self) -> tuple[Loc, int] | None:
        """``N:reg``, ``%sym``, ``x`` or ``[x]`` and its offset (None: not one of them)."""
        t = self.peek()
        if t is None:
            return None
        kind, text, pos = t
        if kind == "num" and self.is_op(":", 1):
            r = self.peek(2)
            if r is None or r[0] not in ("name", "sreg") or not text.isdigit():
                return None
            tid = int(text)
            reg = self.register(r[1])
            if reg is None or not 0 <= tid < self.nthreads:
                return None  # the grammar reports it
            self.i += 3
            loc = RegLoc(tid, reg)
            if reg != r[1]:
                self.spelled.setdefault(loc, r[1])
            return loc, pos
        if kind == "sreg":
            self.i += 1
            return SymRegLoc(text[1:]), pos
        if kind == "name" and text not in _KEYWORDS and not _proc(text):
            self.i += 1
            return MemLoc(text), pos
        if kind == "op" and text == "[":
            n = self.peek(1)
            if n is None or n[0] != "name" or n[1] in _KEYWORDS or not self.is_op("]", 2):
                return None
            self.i += 3
            return MemLoc(n[1]), n[2]
        return None

    def atom(self, text: str) -> Atom | None:
        """The atom token ``text`` (:data:`_COND_TOKEN`), as :meth:`location` and
        :meth:`value` read its tokens (None: the grammar reads it)."""
        got = _atom(text, self.arch, self.nthreads)
        if got is None:
            return None
        a, spelled = got
        if spelled is not None:
            self.spelled.setdefault(*spelled)
        self.i += 1
        return None if self.is_op(":") else a

    def value(self) -> tuple[Value, str] | None:
        t = self.peek()
        if t is None or self.is_op(":", 1):
            return None
        kind, text, _ = t
        if kind == "num":
            self.i += 1
            return (int(text, 16) if text[:2] in ("0x", "0X") else int(text)), text
        if kind == "name" and text not in _KEYWORDS:
            self.i += 1
            return Sym(text), text
        return None


@lru_cache(maxsize=1 << 14)
def _atom(text: str, arch: str, nthreads: int) -> tuple[Atom, tuple[RegLoc, str] | None] | None:
    """The atom token ``text`` and its register with the name written when that is not
    the canonical one; None where :meth:`_Reader.location` or :meth:`_Reader.value` would
    refuse its tokens."""
    m = _ATOM_PARTS.fullmatch(text)
    if m is None:
        return None
    tid, reg, mem, num, sym = m.group("tid", "reg", "mem", "num", "sym")
    loc: Loc
    spelled = None
    if tid is not None:
        canonical = ARCHS[arch].register(reg)
        if len(tid) > _QUICK_DIGITS or canonical is None or not 0 <= int(tid) < nthreads:
            return None
        loc = RegLoc(int(tid), canonical)
        spelled = (loc, reg) if canonical != reg else None
    elif mem in _KEYWORDS or _proc(mem):
        return None
    else:
        loc = MemLoc(mem)
    if num is not None:
        if len(num) > _QUICK_DIGITS:
            return None
        return Atom(loc, int(num, 16) if num[:2] in ("0x", "0X") else int(num)), spelled
    if sym in _KEYWORDS:
        return None
    return Atom(loc, Sym(sym)), spelled


def _proc(text: str) -> bool:
    return len(text) > 1 and text[0] == "P" and text[1:].isdigit()


def quick_init(
    text: str, arch: str, nthreads: int
) -> tuple[tuple[tuple[InitItem, int], ...], tuple[tuple[RegLoc, str], ...]] | None:
    """The init items of ``text`` with their offsets, and the registers written otherwise
    than canonically, as the grammar gives them; None when it must read them."""
    toks = _tokens(text)
    if toks is None:
        return None
    rd = _Reader(toks, arch, nthreads)
    items: list[tuple[InitItem, int]] = []
    while rd.i < len(toks):
        if rd.is_op(";"):  # only a last, empty item
            if rd.i != len(toks) - 1 or not items:
                return None
            break
        ctype = None
        t = rd.peek()
        n = rd.peek(1)
        if t is not None and n is not None and t[0] == "name" and n[0] != "op":
            if t[1] in _KEYWORDS:
                return None
            ctype = t[1]
            rd.i += 1
        loc = rd.location()
        if loc is None:
            return None
        where, pos = loc
        if rd.is_op("="):
            rd.i += 1
            v = rd.value()
            if v is None:
                return None
            items.append((InitItem(where, v[0], v[1], ctype=ctype), pos))
        else:
            items.append((InitItem(where, None, "", ctype=ctype), pos))
        if rd.i == len(toks):
            break
        if not rd.is_op(";"):
            return None
        rd.i += 1
    return tuple(items), tuple(rd.spelled.items())


def _flat(cls: type[And] | type[Or], items: list[Prop]) -> Prop:
    out: list[Prop] = []
    for p in items:
        if isinstance(p, (And, Or)) and type(p) is cls:
            out.extend(p.props)
        else:
            out.append(p)
    return cls(tuple(out))


def _prop(rd: _Reader) -> Prop | None:
    """A proposition of atoms, ``~`` or ``not``, ``/\\``, ``\\/`` and parentheses (no ``=>``): the
    grammar's precedences, read with an explicit stack (no recursion)."""
    # operands and operators of the current parenthesis level, one frame per level
    frames: list[tuple[list[Prop], list[str], int]] = [([], [], 0)]
    expect_operand = True
    while True:
        vals, ops, nots = frames[-1]
        if expect_operand:
            t = rd.peek()
            if t is not None and (t[1] == "~" and t[0] == "op" or t[1] == "not" and t[0] == "name"):
                rd.i += 1
                if nots >= _QUICK_DEPTH:
                    return None
                frames[-1] = (vals, ops, nots + 1)
                continue
            if rd.is_op("("):
                rd.i += 1
                if len(frames) > _QUICK_DEPTH:
                    return None
                frames.append(([], [], 0))
                continue
            p: Prop
            if t is not None and t[0] == "name" and t[1] in ("true", "false"):
                rd.i += 1
                p = PTrue() if t[1] == "true" else PFalse()
            elif t is not None and t[0] == "atom":
                a = rd.atom(t[1])
                if a is None:
                    return None
                p = a
            else:
                loc = rd.location()
                if loc is None or not rd.is_op("="):
                    return None
                rd.i += 1
                v = rd.value()
                if v is None:
                    return None
                p = Atom(loc[0], v[0])
            for _ in range(nots):
                p = Not(p)
            frames[-1] = (vals, ops, 0)
            vals.append(p)
            expect_operand = False
            continue
        if rd.is_op("/\\") or rd.is_op("\\/"):
            op = rd.toks[rd.i][1]
            rd.i += 1
            if op == "\\/":
                _reduce(vals, ops, "/\\")
                _reduce(vals, ops, "\\/")
            else:
                _reduce(vals, ops, "/\\")
            ops.append(op)
            expect_operand = True
            continue
        _reduce(vals, ops, "/\\")
        _reduce(vals, ops, "\\/")
        if len(frames) > 1 and rd.is_op(")"):
            rd.i += 1
            inner = vals[0]
            frames.pop()
            outer, oops, onots = frames[-1]
            for _ in range(onots):
                inner = Not(inner)
            frames[-1] = (outer, oops, 0)
            outer.append(inner)
            continue
        if len(frames) > 1:
            return None
        return vals[0]


def _reduce(vals: list[Prop], ops: list[str], op: str) -> None:
    """Combine the trailing operands joined by ``op`` (left to right, as the grammar)."""
    while ops and ops[-1] == op:
        ops.pop()
        right = vals.pop()
        left = vals.pop()
        vals.append(_flat(And if op == "/\\" else Or, [left, right]))


def _depth(p: Prop) -> int:
    """How deep ``p`` nests, as the grammar counts (atoms, ``true``, ``false``: 0)."""
    deepest = 0
    stack = [(p, 0)]
    while stack:
        q, d = stack.pop()
        if isinstance(q, Not):
            stack.append((q.prop, d + 1))
        elif isinstance(q, (And, Or)):
            stack.extend((r, d + 1) for r in q.props)
        elif d > deepest:
            deepest = d
    return deepest


def _locations(rd: _Reader) -> tuple[Loc, ...] | None:
    """``locations [loc; loc; ...]`` (the items bare locations, an optional last ``;``)."""
    rd.i += 1
    if not rd.is_op("["):
        return None
    rd.i += 1
    out: list[Loc] = []
    while not rd.is_op("]"):
        loc = rd.location()
        if loc is None:
            return None
        out.append(loc[0])
        if rd.is_op(";"):
            rd.i += 1
        elif not rd.is_op("]"):
            return None
    rd.i += 1
    return tuple(out)


QuickCondition = tuple[Condition, tuple[Loc, ...], Prop | None, tuple[tuple[RegLoc, str], ...]]


def quick_condition(text: str, arch: str, nthreads: int, max_depth: int) -> QuickCondition | None:
    """The condition part ``text`` (``locations [...]`` and ``filter`` when there, then a
    quantifier and a proposition, then an optional ``;``): the condition, the locations,
    the filter and the registers written otherwise than canonically; None when the grammar
    must read it (another form, or a proposition deeper than ``max_depth``)."""
    toks = _tokens(text, _COND_TOKEN)
    if not toks:
        return None
    rd = _Reader(toks, arch, nthreads)
    locs: tuple[Loc, ...] = ()
    if toks[0][:2] == ("name", "locations"):
        got = _locations(rd)
        if got is None:
            return None
        locs = got
    filt = None
    if rd.peek() is not None and rd.toks[rd.i][:2] == ("name", "filter"):
        rd.i += 1
        filt = _prop(rd)
        if filt is None or _depth(filt) > max_depth:
            return None
    if rd.i == len(toks) and (locs or filt is not None):  # no quantifier: herd's empty one
        return Condition("forall", PTrue(), ""), locs, filt, tuple(rd.spelled.items())
    kind, word, _ = toks[rd.i] if rd.i < len(toks) else ("", "", 0)
    nxt = toks[rd.i + 1][1] if rd.i + 1 < len(toks) else ""
    if kind == "name" and word in _QUANT:
        quant, written = _QUANT[word]
        rd.i += 1
    elif kind == "op" and word == "~" and nxt == "exists":
        quant, written = "~exists", "~exists"
        rd.i += 2
    elif kind == "name" and word == "not" and nxt == "exists":
        quant, written = "~exists", "not exists"
        rd.i += 2
    else:
        return None
    p = _prop(rd)
    if p is None or _depth(p) > max_depth:
        return None
    if rd.is_op(";"):
        rd.i += 1
    if rd.i != len(toks):
        return None
    return Condition(quant, p, written), locs, filt, tuple(rd.spelled.items())


__all__ = ["QuickCondition", "quick_condition", "quick_init"]
