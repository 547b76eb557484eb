"""Parse the init section and the final condition into IR (grammar in ``state.lark``).

One LALR parser, built once with an inline transformer (no parse tree is ever built);
registers are checked against the architecture and the thread count as they are read, so
a bad register or thread points at its token.  Sections repeat across a campaign's tests,
so their IR is cached by text.  Lark's exceptions never
leave this module: they become :class:`InputError` at the offending token.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from herdsman.litmus.base.arch import ARCHS
from herdsman.litmus.base.casts import c_cast
from herdsman.litmus.base.ir import (
    And,
    Atom,
    Condition,
    Implies,
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
from herdsman.litmus.base.numbers import ValueOutOfRange, parse_literal, small_index
from herdsman.litmus.base.source import Source
from herdsman.litmus.plainstate import plain_condition, plain_init
from herdsman.litmus.quickstate import quick_condition, quick_init
from herdsman.litmus.test import InitItem

_GRAMMAR = (Path(__file__).with_name("state.lark")).read_text(encoding="utf-8")


class TokenError(Exception):
    """A semantic error at a token of the state grammar (turned into InputError)."""

    def __init__(self, token: Token, message: str) -> None:
        super().__init__(message)
        self.token = token
        self.message = message


def check_register(arch: str, name: str) -> str | None:
    """The canonical name of register ``name`` of ``arch``, or None if it is not one
    (symbolic registers ``%x`` are accepted everywhere); see :mod:`litmus.arch`."""
    return ARCHS[arch].register(name)


def register_hint(arch: str) -> str:
    return ARCHS[arch].register_hint


def _num(tok: Token) -> int:
    try:
        return parse_literal(str(tok))
    except ValueOutOfRange as e:
        raise TokenError(tok, str(e)) from None


#: The deepest a condition's proposition may nest (``~`` inside ``~``, ``/\\`` inside
#: ``\\/``, ``=>``...; a chain of one connective is flat, parentheses around one atom add
#: nothing): every consumer of a proposition (evaluation, printing, hashing, JSON) may
#: then recurse on it.  herd's tests nest a few levels.
MAX_CONDITION_DEPTH = 100
#: The most cells an array of the init section may have (herdsman's bound).
MAX_ARRAY = 4096


class _TooDeep(Exception):
    """A proposition nested beyond :data:`MAX_CONDITION_DEPTH`, near ``offset``."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


class _Build(Transformer):
    """Inline callbacks of the state grammar: build IR values directly."""

    def __init__(self) -> None:
        super().__init__()
        self.arch = ""
        self.nthreads = 0
        self.pos = 0
        self.spelled: dict[RegLoc, str] = {}  # registers written otherwise than canonically
        #: the nesting depth of each proposition built by this parse, by its id (atoms: 0)
        self.depths: dict[int, int] = {}

    def _nested(self, p: Prop, parts: list | tuple) -> Prop:
        """``p`` (built from ``parts``), its depth recorded: :class:`_TooDeep` beyond the
        limit, at the last location read (the innermost part reduced last)."""
        depth = 1 + max((self.depths.get(id(q), 0) for q in parts), default=0)
        if depth > MAX_CONDITION_DEPTH:
            raise _TooDeep(self.pos)
        self.depths[id(p)] = depth
        return p

    def _flat(self, cls: type[And] | type[Or], items: list) -> Prop:
        out: list[Prop] = []
        for p in items:
            if isinstance(p, cls):
                out.extend(p.props)
            else:
                out.append(p)
        return self._nested(cls(tuple(out)), out)

    # ---- locations and values
    def thread_reg(self, c: list) -> RegLoc:
        tid_tok, reg_tok = c
        digits = str(tid_tok)[1:] if tid_tok.type == "PROC" else str(tid_tok)
        tid = small_index(digits, self.nthreads) if digits.isdigit() else None
        if tid is None:
            raise TokenError(
                tid_tok, f"thread {digits} does not exist (the test has {self.nthreads} threads)"
            )
        reg = check_register(self.arch, str(reg_tok))
        if reg is None:
            raise TokenError(
                reg_tok,
                f"bad {self.arch} register '{reg_tok}' (expected {register_hint(self.arch)})",
            )
        self.pos = tid_tok.start_pos or 0
        loc = RegLoc(tid, reg)
        if reg != str(reg_tok):
            self.spelled.setdefault(loc, str(reg_tok))
        return loc

    def symb_reg(self, c: list) -> SymRegLoc:
        self.pos = c[0].start_pos or 0
        return SymRegLoc(str(c[0])[1:])

    def global_loc(self, c: list) -> MemLoc:
        self.pos = c[0].start_pos or 0
        return MemLoc(str(c[0]))

    def array_loc(self, c: list) -> MemLoc:
        """``v[i]``: cell ``i`` of the array ``v`` (herd's name for it)."""
        self.pos = c[0].start_pos or 0
        return MemLoc(f"{c[0]}[{_num(c[1])}]")

    def left_loc(self, c: list) -> tuple[Loc, int]:
        # reduced right after its location: ``self.pos`` is that location's offset
        return c[0], self.pos

    def location(self, c: list) -> Loc:
        return c[0]

    def location_deref(self, c: list) -> Loc:
        return c[0]

    def int_value(self, c: list) -> tuple[Value, str]:
        return _num(c[0]), str(c[0])

    def sym_value(self, c: list) -> tuple[Value, str]:
        return Sym(str(c[0])), str(c[0])

    # ---- init
    def init_start(self, c: list) -> list[tuple[InitItem, int]]:
        return [x for x in c if x is not None]

    def semi(self, c: list) -> None:
        return None

    def amper(self, c: list) -> None:
        return None

    def init_bare(self, c: list) -> tuple[InitItem, int]:
        return InitItem(c[0][0], None, ""), c[0][1]

    def init_value(self, c: list) -> tuple[InitItem, int]:
        (v, text) = c[1]
        return InitItem(c[0][0], v, text), c[0][1]

    def init_typed_bare(self, c: list) -> tuple[InitItem, int]:
        return InitItem(c[1][0], None, "", ctype=str(c[0])), c[1][1]

    def init_typed(self, c: list) -> tuple[InitItem, int]:
        (v, text) = c[2]
        return InitItem(c[1][0], v, text, ctype=str(c[0])), c[1][1]

    def init_atomic_bare(self, c: list) -> tuple[InitItem, int]:
        return InitItem(c[2][0], None, "", ctype=f"_Atomic {c[1]}"), c[2][1]

    def init_atomic(self, c: list) -> tuple[InitItem, int]:
        (v, text) = c[3]
        return InitItem(c[2][0], v, text, ctype=f"_Atomic {c[1]}"), c[2][1]

    def init_tptr_bare(self, c: list) -> tuple[InitItem, int]:
        return InitItem(c[1][0], None, "", ctype=str(c[0]), pointer=True), c[1][1]

    def init_tptr(self, c: list) -> tuple[InitItem, int]:
        (v, text) = c[3]
        return InitItem(c[1][0], v, text, ctype=str(c[0]), pointer=True), c[1][1]

    def init_ptr_bare(self, c: list) -> tuple[InitItem, int]:
        return InitItem(c[0][0], None, "", pointer=True), c[0][1]

    def init_ptr(self, c: list) -> tuple[InitItem, int]:
        (v, text) = c[2]
        return InitItem(c[0][0], v, text, pointer=True), c[0][1]

    def init_array(self, c: list) -> tuple[InitItem, int]:
        """``TYPE v[N] = {k0,...,kN-1}``, or ``TYPE v[N]`` (cells 0): an array of ``N`` cells."""
        ctype, name, count = str(c[0]), c[1], c[2]
        if c_cast(ctype) is None:
            raise TokenError(c[0], f"arrays of '{ctype}' are not supported (not a sized type)")
        n = _num(count)
        if not 0 < n <= MAX_ARRAY:
            raise TokenError(count, f"an array has 1 to {MAX_ARRAY} cells")
        values = [x[0] for x in c[3:] if x is not None]
        if values and len(values) != n:  # herd's rule; without values, the cells hold 0
            raise TokenError(count, f"array '{name}' of {n} cells has {len(values)} values")
        cells = tuple(values) if values else (0,) * n
        return InitItem(MemLoc(str(name)), None, "", ctype=ctype, cells=cells), name.start_pos or 0

    # ---- propositions
    def a_value(self, c: list) -> Prop:
        return Atom(c[0], c[1][0])

    def a_loc(self, c: list) -> Prop:
        return Atom(c[0], c[1])

    def vector(self, c: list) -> Vector:
        return Vector(tuple(v for v, _ in c))

    def a_vector(self, c: list) -> Prop:
        """``loc={k0,...}``: herd's array observed whole (a register or a scalar never
        holds a vector: the atom is false then); an array's cell is no whole array."""
        loc = c[0]
        if isinstance(loc, MemLoc) and loc.name.endswith("]"):
            raise _RelError(self.pos, f"the cell '{loc.name}' is compared with a vector")
        return Atom(loc, c[1])

    def a_not_vector(self, c: list) -> Prop:
        atom = self.a_vector([c[0], c[2]])
        assert isinstance(atom, Atom)
        return Not(atom)

    def a_not_value(self, c: list) -> Prop:
        return Not(Atom(c[0], c[2][0]))

    def a_not_loc(self, c: list) -> Prop:
        return Not(Atom(c[0], c[2]))

    def not_(self, c: list) -> str:
        return str(c[0])

    def p_or(self, c: list) -> Prop:
        return self._flat(Or, c)

    def p_and(self, c: list) -> Prop:
        return self._flat(And, c)

    def p_implies(self, c: list) -> Prop:
        return self._nested(Implies(c[0], c[1]), c)

    def p_not(self, c: list) -> Prop:
        return self._nested(Not(c[1]), c[1:])

    def p_true(self, c: list) -> Prop:
        return PTrue()

    def p_false(self, c: list) -> Prop:
        return PFalse()

    # ---- condition
    def c_exists(self, c: list) -> Condition:
        return Condition("exists", c[0], "exists")

    def c_not_exists(self, c: list) -> Condition:
        return Condition("~exists", c[1], "~exists" if c[0] == "~" else "not exists")

    def c_forall(self, c: list) -> Condition:
        return Condition("forall", c[0], "forall")

    def c_final(self, c: list) -> Condition:
        return Condition("exists", c[0], "final")

    def c_paren(self, c: list) -> Condition:
        return Condition("exists", c[0], "()")

    def c_observed(self, c: list) -> Condition:
        return Condition("exists", c[1], "observed")

    def c_empty(self, c: list) -> Condition:
        return Condition("forall", PTrue(), "")

    def obs(self, c: list) -> Prop:
        return self._nested(Or(tuple(c)), c)

    def obs_group(self, c: list) -> Prop:
        return self._nested(And(tuple(c)), c)

    def loc_item(self, c: list) -> Loc:
        return c[0]

    def locations(self, c: list) -> tuple[Loc, ...]:
        return tuple(x for x in c if x is not None)

    def filter(self, c: list) -> Prop:
        return c[0]

    def kind_exists(self, c: list) -> tuple[str, str]:
        return (str(c[0]), "exists")

    def kind_not_exists(self, c: list) -> tuple[str, str]:
        return (str(c[0]), "~exists")

    def kind_forall(self, c: list) -> tuple[str, str]:
        return (str(c[0]), "forall")

    def kinds(self, c: list) -> tuple[tuple[str, str], ...]:
        return tuple(x for x in c if x is not None)

    def cond_start(self, c: list) -> ConditionPart:
        # children: [locations] [filter] constr [kinds], absent ones as None
        locs: tuple[Loc, ...] = ()
        filt = None
        kinds: tuple[tuple[str, str], ...] = ()
        cond = Condition("forall", PTrue(), "")
        for i, x in enumerate(c):
            if x is None:
                continue
            if isinstance(x, Condition):
                cond = x
            elif i == 0:
                locs = x
            elif i == 1:
                filt = x
            else:
                kinds = x
        return ConditionPart(cond, locs, filt, kinds)


@dataclass(frozen=True, slots=True)
class ConditionPart:
    """What follows the program: the condition, ``locations``, ``filter``, kinds."""

    condition: Condition
    locations: tuple[Loc, ...] = ()
    filter: Prop | None = None
    kinds: tuple[tuple[str, str], ...] = ()
    #: registers written otherwise than canonically (RISC-V's ``a0`` is ``x10``), as
    #: written: herd's hash digests them so
    spelled: tuple[tuple[RegLoc, str], ...] = ()


_LOCK = threading.Lock()  # the transformer carries the arch and thread count of one parse


@cache
def _parser() -> tuple[Lark, _Build]:
    build = _Build()
    lark = Lark(
        _GRAMMAR,
        parser="lalr",
        start=["init_start", "cond_start"],
        transformer=build,
        maybe_placeholders=True,
        cache=True,  # the LALR tables, in the temporary directory (keyed by grammar)
    )
    return lark, build


def _describe(tok: Token) -> str:
    if tok.type == "$END":
        return "end of section"
    return f"'{tok}'"


class _RelError(Exception):
    """A parse error at ``offset`` of the parsed section (made absolute by the caller)."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


@lru_cache(maxsize=1 << 14)
def _parse_section(arch: str, start: str, nthreads: int, text: str, what: str):
    """Parse one section's text (cached: sections repeat across a campaign's tests); the
    usual forms are read without the grammar (:mod:`litmus.plainstate`, the plainest, then
    :mod:`litmus.quickstate`)."""
    if start == "init_start":
        got = plain_init(text, arch, nthreads) or quick_init(text, arch, nthreads)
        if got is not None:
            return got
    else:
        quick = plain_condition(text, arch, nthreads, MAX_CONDITION_DEPTH) or quick_condition(
            text, arch, nthreads, MAX_CONDITION_DEPTH
        )
        if quick is not None:
            cond, locs, filt, spelled = quick
            return ConditionPart(cond, locs, filt), spelled
    return _grammar(arch, start, nthreads, text, what)


def _grammar(arch: str, start: str, nthreads: int, text: str, what: str):
    """Parse one section's text with the grammar."""
    lark, build = _parser()
    try:
        with _LOCK:
            build.arch = arch
            build.nthreads = nthreads
            build.depths = {}
            build.spelled = {}
            try:
                result = lark.parse(text, start=start)
            finally:
                build.depths = {}
            spelled = tuple(build.spelled.items())
    except TokenError as exc:
        raise _RelError(exc.token.start_pos or 0, exc.message) from None
    except _TooDeep as exc:
        raise _RelError(
            exc.offset,
            f"the {what} nests more than {MAX_CONDITION_DEPTH} deep (~, /\\ inside \\/, "
            "=>...): herdsman's limit",
        ) from None
    except UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            raise _RelError(len(text), f"unexpected end of the {what}") from None
        raise _RelError(
            tok.start_pos or 0, f"syntax error in the {what}: unexpected {_describe(tok)}"
        ) from None
    except UnexpectedCharacters as exc:
        pos = exc.pos_in_stream
        ch = text[pos] if pos is not None and pos < len(text) else ""
        raise _RelError(
            pos or 0, f"syntax error in the {what}: unexpected character {ch!r}"
        ) from None
    except UnexpectedEOF:
        raise _RelError(len(text), f"unexpected end of the {what}") from None
    except UnexpectedInput as exc:  # any other lark input error
        at = getattr(exc, "pos_in_stream", 0) or 0
        raise _RelError(at, f"syntax error in the {what}") from None
    return (tuple(result) if isinstance(result, list) else result), spelled


def _parse(src: Source, arch: str, span: tuple[int, int], start: str, nthreads: int, what: str):
    try:
        return _parse_section(arch, start, nthreads, src.text[span[0] : span[1]], what)
    except _RelError as exc:
        raise src.error(span[0] + exc.offset, exc.message) from None


def parse_init(
    src: Source, arch: str, span: tuple[int, int], nthreads: int
) -> tuple[InitItem, ...]:
    """The init items between the braces at ``span`` (one tuple for every test whose init
    section reads the same: what is computed from it can be remembered per identity)."""
    items, problem = _init_items(_parse(src, arch, span, "init_start", nthreads, "init section"))
    if problem is not None:
        raise src.error(span[0] + problem[0], problem[1])
    return items


Parsed = tuple[tuple[tuple[InitItem, int], ...], tuple[tuple[RegLoc, str], ...]]


@by_identity(maxsize=1 << 14)
def _init_items(parsed: Parsed) -> tuple[tuple[InitItem, ...], tuple[int, str] | None]:
    """The items of a parsed init section (with their registers as written) and its
    problem, if any (an offset in the section and a message)."""
    items, spelled = parsed
    if spelled:
        written = dict(spelled)
        items = tuple(
            (replace(it, written=written.get(it.loc, "")), pos)  # type: ignore[arg-type]
            for it, pos in items
        )
    seen: dict[Loc, InitItem] = {}
    for it, pos in items:
        old = seen.get(it.loc)
        if old is not None and (old.value, old.ctype, old.pointer) != (
            it.value,
            it.ctype,
            it.pointer,
        ):
            return (), (pos, f"location {it.loc} is initialised twice, differently")
        seen[it.loc] = it
    return tuple(it for it, _ in items), None


def parse_condition(src: Source, arch: str, span: tuple[int, int], nthreads: int) -> ConditionPart:
    """The condition part at ``span`` (empty span: no condition, i.e. ``forall (true)``)."""
    if span[0] >= span[1]:
        return ConditionPart(Condition("forall", PTrue(), ""))
    part, spelled = _parse(src, arch, span, "cond_start", nthreads, "condition")
    return replace(part, spelled=spelled) if spelled else part
