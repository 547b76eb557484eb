"""C types as the lowering sees them: integers (with their width and signedness, atomic or
not), pointers, arrays, structs and unions, locks, functions and void, with their size and
alignment in bytes as on x86-64 (LP64): a scalar is a memory cell named by its
allocation and its byte offset (``a+4``), so ``sizeof``, ``offsetof``, pointer arithmetic
on ``char *`` and the sizes given to ``memcpy`` agree.  C litmus tests' integers and
pointers have no width: each is one byte, herd's cells ``a``, ``a+1``...

``TypeTable`` resolves pycparser's type nodes with the program's typedefs, struct and
union tags and enumerators.  A struct or union met through a pointer is resolved when it
is used (:meth:`TypeTable.complete`), so linked structures may refer to themselves.
Atomicity is the ``_Atomic`` qualifier (herdsman's ``stdatomic.h`` declares ``typedef
_Atomic int atomic_int;``).  ``pthread_mutex_t``, ``spinlock_t`` and ``mtx_t`` are lock
cells; ``pthread_t`` is an integer (a thread's number).  Floating types are rejected.
``typeof(expression)`` asks the lowering for the expression's type (``type_of``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from pycparser import c_ast

from herdsman.litmus.c.parse import node_error

#: typedef names with a meaning of their own
LOCK_TYPES = frozenset({"pthread_mutex_t", "spinlock_t", "mtx_t"})

#: the bits of C's integer type words (LP64), the narrowest first
_WIDTH = {"char": 8, "short": 16, "int": 32, "long": 64, "__int128": 128}


@dataclass(frozen=True)
class CType:
    """``kind``: int, ptr, array, struct, union, lock, void or func.  Integers have
    ``bits`` (0: unbounded, C litmus tests) and ``signed``; structs and unions their
    ``fields`` (empty until complete: see :meth:`TypeTable.complete`); functions their
    return type (``target``) and parameter types (``params``, None: unknown)."""

    kind: str
    atomic: bool = False
    target: CType | None = None  # pointee / element / return type
    length: int = 0  # arrays
    fields: tuple[tuple[str, CType], ...] = ()  # structs and unions
    name: str = ""  # struct or union tag (anonymous ones get one)
    bits: int = 0  # integers (0: no width), pointers (64, or 0 in C litmus tests)
    signed: bool = True
    params: tuple[CType, ...] | None = None  # functions
    complete: bool = True  # a struct or union known only by its tag so far

    @cached_property
    def size(self) -> int:
        """Bytes of an object of this type (``sizeof``; computed once per type, as are
        the alignment and layout: nested structs would otherwise cost 2^depth)."""
        if self.kind == "array":
            assert self.target is not None
            return max(self.length, 0) * self.target.size
        if self.kind in ("struct", "union"):
            end = max((off + t.size for _, off, t in self.layout()), default=0)
            a = self.align
            return (end + a - 1) // a * a
        if self.kind in ("void", "func"):
            return 0
        if self.kind == "lock":
            return 4
        return max(self.bits // 8, 1)

    @cached_property
    def align(self) -> int:
        """The alignment of an object of this type, in bytes."""
        if self.kind == "array":
            assert self.target is not None
            return self.target.align
        if self.kind in ("struct", "union"):
            return max((t.align for _, t in self.fields), default=1)
        return max(self.size, 1) if self.kind in ("int", "ptr", "lock") else 1

    def layout(self) -> list[tuple[str, int, CType]]:
        """The fields of a struct or union with their offsets (C's alignment rules)."""
        return list(self._layout)

    @cached_property
    def _layout(self) -> tuple[tuple[str, int, CType], ...]:
        out, off = [], 0
        for f, t in self.fields:
            if self.kind == "union":
                out.append((f, 0, t))
                continue
            a = t.align
            off = (off + a - 1) // a * a
            out.append((f, off, t))
            off += t.size
        return tuple(out)

    def field(self, name: str) -> tuple[int, CType] | None:
        """Offset (in bytes) and type of field ``name`` (of an anonymous member too)."""
        for f, off, t in self.layout():
            if f == name:
                return off, t
            if not f and t.kind in ("struct", "union"):
                inner = t.field(name)
                if inner is not None:
                    return off + inner[0], inner[1]
        return None

    @property
    def scalar(self) -> bool:
        return self.kind in ("int", "ptr", "lock")

    @property
    def aggregate(self) -> bool:
        return self.kind in ("array", "struct", "union")

    def show(self) -> str:
        if self.kind == "ptr":
            assert self.target is not None
            return self.target.show() + " *"
        if self.kind == "array":
            assert self.target is not None
            return f"{self.target.show()}[{self.length}]"
        if self.kind in ("struct", "union"):
            return f"{self.kind} {self.name}"
        if self.kind == "int" and self.bits:
            word = {1: "_Bool", 8: "char", 16: "short", 32: "int", 64: "long"}.get(self.bits)
            word = word or f"int{self.bits}"
            unsigned = "" if self.signed or self.bits == 1 else "unsigned "
            return ("_Atomic " if self.atomic else "") + unsigned + word
        return ("_Atomic " if self.atomic else "") + self.kind

    def plain(self) -> CType:
        """This type without ``_Atomic`` (the type of a value read from an object)."""
        if not self.atomic:
            return self
        return CType(
            self.kind, False, self.target, self.length, self.fields, self.name, self.bits,
            self.signed, self.params, self.complete,
        )  # fmt: skip


INT = CType("int", bits=32)
LONG = CType("int", bits=64)
ULONG = CType("int", bits=64, signed=False)
BOOL = CType("int", bits=1, signed=False)
CHAR = CType("int", bits=8)
VOID = CType("void")
LOCK = CType("lock")
#: a value with no width (C litmus tests' integers)
UNBOUNDED = CType("int")


def pointer_to(t: CType, bits: int = 64) -> CType:
    return CType("ptr", target=t, bits=bits)


def atomic(t: CType) -> CType:
    return CType(
        t.kind, True, t.target, t.length, t.fields, t.name, t.bits, t.signed, t.params,
        t.complete,
    )  # fmt: skip


def arithmetic(a: CType, b: CType) -> CType:
    """The type of ``a op b`` on integers (C's usual arithmetic conversions)."""
    if not a.bits or not b.bits:
        return UNBOUNDED
    bits = max(a.bits, b.bits, 32)
    if bits == a.bits == b.bits:
        return CType("int", bits=bits, signed=a.signed and b.signed)
    wide = a if a.bits >= b.bits else b
    return CType("int", bits=bits, signed=wide.signed if wide.bits == bits else True)


ValueOf = Callable[[c_ast.Node], object]


class TypeTable:
    """Typedefs, struct and union tags and enumerators of a program (filled as the file is
    read); ``widths`` False makes every integer unbounded (C litmus tests)."""

    def __init__(self, path: str, widths: bool = True) -> None:
        self.path = path
        self.widths = widths
        self.typedefs: dict[str, c_ast.Node] = {}
        self.tags: dict[str, c_ast.Struct | c_ast.Union] = {}
        self.enums: dict[str, int] = {}
        self._resolving: set[str] = set()  # tags being resolved (self-reference)
        self._anon: dict[int, str] = {}
        self._done: dict[str, CType] = {}
        #: the type of an expression (``typeof``) and a constant's value (array lengths
        #: in typedefs), set by the lowering
        self.type_of: Callable[[c_ast.Node], CType] | None = None
        self.value_of: ValueOf | None = None

    def error(self, node: c_ast.Node | None, message: str) -> Exception:
        return node_error(node, self.path, message)

    def declare_enum(self, enum: c_ast.Enum, value_of: ValueOf) -> None:
        """Record the enumerators of ``enum`` (``value_of`` evaluates constants)."""
        if enum.values is None:
            return
        nxt = 0
        for e in enum.values.enumerators:
            if e.value is not None:
                v = value_of(e.value)
                if not isinstance(v, int):
                    raise self.error(e.value, f"enumerator {e.name} needs an integer value")
                nxt = v
            self.enums[e.name] = nxt
            nxt += 1

    def note_specifiers(self, t: c_ast.Node, value_of: ValueOf) -> None:
        """Record struct, union and enum definitions met inside a declaration's type."""
        while isinstance(t, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
            t = t.type
        if isinstance(t, (c_ast.Struct, c_ast.Union)) and t.decls is not None:
            self.tags[self._tag(t)] = t
            self._done.pop(self._tag(t), None)
        elif isinstance(t, c_ast.Enum):
            self.declare_enum(t, value_of)

    def _tag(self, node: c_ast.Struct | c_ast.Union) -> str:
        if node.name:
            return node.name
        got = self._anon.get(id(node))
        if got is None:
            got = self._anon[id(node)] = f"<anonymous {len(self._anon) + 1}>"
        return got

    def resolve(self, node: c_ast.Node, value_of: ValueOf, quals: tuple[str, ...] = ()) -> CType:
        """The :class:`CType` of a pycparser type node (``value_of`` evaluates array
        lengths)."""
        if isinstance(node, (c_ast.Typename, c_ast.Decl, c_ast.Typedef)):
            return self.resolve(node.type, value_of, tuple(node.quals or ()))
        if isinstance(node, c_ast.TypeDecl):
            inner = self.resolve(node.type, value_of)
            if "_Atomic" in (node.quals or ()) or "_Atomic" in quals:
                if inner.kind not in ("int", "ptr", "struct", "lock"):
                    raise self.error(node, f"unsupported: _Atomic {inner.show()}")
                return atomic(inner)
            return inner
        if isinstance(node, c_ast.PtrDecl):
            target = self.resolve(node.type, value_of)
            t = pointer_to(target, 64 if self.widths else 0)
            return atomic(t) if "_Atomic" in (node.quals or ()) else t
        if isinstance(node, c_ast.ArrayDecl):
            elem = self.resolve(node.type, value_of)
            if node.dim is None:
                return CType("array", target=elem, length=-1)  # completed by its initialiser
            n = value_of(node.dim)
            if not isinstance(n, int) or n < 0:
                raise self.error(node.dim, "array length must be a non-negative constant")
            return CType("array", target=elem, length=n)
        if isinstance(node, c_ast.FuncDecl):
            return self._function(node, value_of)
        if isinstance(node, c_ast.IdentifierType):
            return self._named(node)
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            return self._aggregate(node, value_of)
        if isinstance(node, c_ast.Enum):
            self.declare_enum(node, value_of)
            return INT if self.widths else UNBOUNDED
        if isinstance(node, c_ast.TypeOf):
            if isinstance(node.expr, c_ast.Typename):
                return self.resolve(node.expr, value_of)
            if self.type_of is None:
                raise self.error(node, "unsupported: typeof here")
            return self.type_of(node.expr)
        raise self.error(node, f"unsupported type: {type(node).__name__}")

    def _function(self, node: c_ast.FuncDecl, value_of: ValueOf) -> CType:
        ret = self.resolve(node.type, value_of)
        params: list[CType] = []
        for p in node.args.params if node.args is not None else []:
            if isinstance(p, c_ast.EllipsisParam):
                return CType("func", target=ret)
            if isinstance(p, (c_ast.Typename, c_ast.Decl)):
                t = self.resolve(p, value_of)
                if t.kind == "void":
                    continue
                elem = pointer_to(t.target, 64 if self.widths else 0) if t.target else t
                params.append(elem if t.kind == "array" else t)
        return CType("func", target=ret, params=tuple(params))

    def _named(self, node: c_ast.IdentifierType) -> CType:
        names = node.names
        if len(names) == 1:
            n = names[0]
            if n in LOCK_TYPES:
                return LOCK if self.widths else UNBOUNDED
            if n == "void":
                return VOID
            if n in self.typedefs:
                return self.resolve(self.typedefs[n], self.value_of or self._no_value)
        for n in names:
            if n in ("float", "double"):
                raise self.error(node, f"unsupported: {n}")
        known = ("signed", "unsigned", "char", "short", "int", "long", "_Bool", "__int128")
        if not all(n in known for n in names):
            raise self.error(node, f"unknown type '{' '.join(names)}'")
        if not self.widths:
            return UNBOUNDED
        if "_Bool" in names:
            return BOOL
        bits = next((b for w, b in _WIDTH.items() if w in names and w != "int"), 32)
        return CType("int", bits=bits, signed="unsigned" not in names)

    def _no_value(self, node: c_ast.Node) -> int:
        raise self.error(node, "unsupported: array length in a typedef")

    def _aggregate(self, node: c_ast.Struct | c_ast.Union, value_of: ValueOf) -> CType:
        kind = "union" if isinstance(node, c_ast.Union) else "struct"
        if node.decls is not None:
            self.tags[self._tag(node)] = node
        tag = self._tag(node)
        done = self._done.get(tag)
        if done is not None:
            return done
        decl = self.tags.get(tag)
        if decl is None or tag in self._resolving:
            return CType(kind, name=tag, complete=False)  # met through a pointer
        self._resolving.add(tag)
        fields = []
        try:
            for d in decl.decls or ():
                if d.bitsize is not None:
                    raise self.error(d, "unsupported: bit field")
                self.note_specifiers(d.type, value_of)
                t = self.resolve(d, value_of)
                if t.kind in ("func", "void"):
                    raise self.error(d, f"unsupported: field of type {t.show()}")
                if t.kind == "array" and t.length < 0:
                    t = CType("array", target=t.target, length=0)  # a flexible array member
                fields.append((d.name or "", t))
        finally:
            self._resolving.discard(tag)
        out = CType(kind, fields=tuple(fields), name=tag)
        self._done[tag] = out
        return out

    def complete(self, t: CType) -> CType:
        """``t``, with its fields when it is a struct or union known so far only by its
        tag (met through a pointer)."""
        if t.complete:
            return t
        decl = self.tags.get(t.name)
        if decl is None:
            raise self.error(None, f"incomplete type {t.kind} {t.name}")
        full = self._aggregate(decl, self.value_of or self._no_value)
        return atomic(full) if t.atomic else full
