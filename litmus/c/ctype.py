"""C types as the lowering sees them: integers (atomic or not), pointers, arrays, structs,
mutexes and thread handles, with their size in memory cells (one cell per scalar).

``TypeTable`` resolves pycparser's type nodes, with the program's typedefs, struct tags
and enumerators.  Atomicity is the ``_Atomic`` qualifier, which pycparser keeps (herdsman's
``stdatomic.h`` declares ``typedef _Atomic int atomic_int;``).  ``pthread_t`` (and any
typedef of it) is a static thread handle, not a memory cell; ``pthread_mutex_t``,
``spinlock_t`` and ``mtx_t`` are lock cells.  Floating types are rejected.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from herdsman.litmus.c.parse import node_error

#: typedef names with a meaning of their own
HANDLE_TYPES = frozenset({"pthread_t", "thrd_t"})
LOCK_TYPES = frozenset({"pthread_mutex_t", "spinlock_t", "mtx_t"})
_INT_WORDS = frozenset(
    {"int", "char", "short", "long", "signed", "unsigned", "_Bool", "__int128", "size_t"}
)


@dataclass(frozen=True)
class CType:
    """``kind``: int, ptr, array, struct, lock, handle, void or func."""

    kind: str
    atomic: bool = False
    target: CType | None = None  # pointee / element
    length: int = 0  # arrays
    fields: tuple[tuple[str, CType], ...] = ()  # structs
    name: str = ""  # struct tag, for messages

    @property
    def size(self) -> int:
        """Memory cells of an object of this type."""
        if self.kind == "array":
            assert self.target is not None
            return self.length * self.target.size
        if self.kind == "struct":
            return sum(t.size for _, t in self.fields)
        if self.kind in ("handle", "void", "func"):
            return 0
        return 1

    def field(self, name: str) -> tuple[int, CType] | None:
        """Offset (in cells) and type of field ``name``."""
        off = 0
        for f, t in self.fields:
            if f == name:
                return off, t
            off += t.size
        return None

    @property
    def scalar(self) -> bool:
        return self.kind in ("int", "ptr", "lock")

    def show(self) -> str:
        if self.kind == "ptr":
            assert self.target is not None
            return self.target.show() + " *"
        if self.kind == "array":
            assert self.target is not None
            return f"{self.target.show()}[{self.length}]"
        if self.kind == "struct":
            return f"struct {self.name}"
        return ("_Atomic " if self.atomic else "") + self.kind


INT = CType("int")
VOID = CType("void")
HANDLE = CType("handle")
LOCK = CType("lock")


def pointer_to(t: CType) -> CType:
    return CType("ptr", target=t)


class TypeTable:
    """Typedefs, struct tags and enumerators of a program (filled as the file is read)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.typedefs: dict[str, c_ast.Node] = {}
        self.structs: dict[str, c_ast.Struct] = {}
        self.enums: dict[str, int] = {}
        self._resolving: set[str] = set()  # struct tags being resolved (self-reference)

    def error(self, node: c_ast.Node | None, message: str) -> Exception:
        return node_error(node, self.path, message)

    def declare_enum(self, enum: c_ast.Enum, value_of) -> None:  # noqa: ANN001
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

    def note_specifiers(self, t: c_ast.Node, value_of) -> None:  # noqa: ANN001
        """Record struct and enum definitions met inside a declaration's type."""
        while isinstance(t, c_ast.TypeDecl | c_ast.PtrDecl | c_ast.ArrayDecl):
            t = t.type
        if isinstance(t, c_ast.Struct) and t.name and t.decls is not None:
            self.structs[t.name] = t
        elif isinstance(t, c_ast.Enum):
            self.declare_enum(t, value_of)
        elif isinstance(t, c_ast.Union):
            raise self.error(t, "unsupported: union")

    def resolve(self, node: c_ast.Node, value_of, quals: tuple[str, ...] = ()) -> CType:  # noqa: ANN001
        """The :class:`CType` of a pycparser type node (``value_of`` evaluates array
        lengths)."""
        if isinstance(node, c_ast.Typename | c_ast.Decl | c_ast.Typedef):
            return self.resolve(node.type, value_of, tuple(node.quals or ()))
        if isinstance(node, c_ast.TypeDecl):
            inner = self.resolve(node.type, value_of)
            if "_Atomic" in (node.quals or ()) or "_Atomic" in quals:
                if inner.kind not in ("int", "ptr"):
                    raise self.error(node, f"unsupported: _Atomic {inner.show()}")
                return CType(inner.kind, True, inner.target)
            return inner
        if isinstance(node, c_ast.PtrDecl):
            target = self.resolve(node.type, value_of)
            atomic = "_Atomic" in (node.quals or ())
            return CType("ptr", atomic, target)
        if isinstance(node, c_ast.ArrayDecl):
            elem = self.resolve(node.type, value_of)
            if node.dim is None:
                raise self.error(node, "unsupported: array without a length")
            n = value_of(node.dim)
            if not isinstance(n, int) or n < 0:
                raise self.error(node.dim, "array length must be a non-negative constant")
            return CType("array", target=elem, length=n)
        if isinstance(node, c_ast.FuncDecl):
            return CType("func")
        if isinstance(node, c_ast.IdentifierType):
            return self._named(node)
        if isinstance(node, c_ast.Struct):
            return self._struct(node, value_of)
        if isinstance(node, c_ast.Enum):
            self.declare_enum(node, value_of)
            return INT
        if isinstance(node, c_ast.Union):
            raise self.error(node, "unsupported: union")
        raise self.error(node, f"unsupported type: {type(node).__name__}")

    def _named(self, node: c_ast.IdentifierType) -> CType:
        names = node.names
        if len(names) == 1:
            n = names[0]
            if n in HANDLE_TYPES:
                return HANDLE
            if n in LOCK_TYPES:
                return LOCK
            if n == "void":
                return VOID
            if n in self.typedefs:
                return self.resolve(self.typedefs[n], self._no_value)
        for n in names:
            if n in ("float", "double"):
                raise self.error(node, f"unsupported: {n}")
            if n not in _INT_WORDS:
                raise self.error(node, f"unknown type '{' '.join(names)}'")
        return INT

    def _no_value(self, node: c_ast.Node) -> int:
        raise self.error(node, "unsupported: array length in a typedef")

    def _struct(self, node: c_ast.Struct, value_of) -> CType:  # noqa: ANN001
        decl = node if node.decls is not None else self.structs.get(node.name or "")
        if decl is None:
            raise self.error(node, f"unknown struct '{node.name}'")
        if node.name and node.decls is not None:
            self.structs[node.name] = node
        tag = decl.name or ""
        if tag and tag in self._resolving:
            raise self.error(
                node, f"unsupported: struct {tag} refers to itself (linked data structures)"
            )
        if tag:
            self._resolving.add(tag)
        fields = []
        try:
            for d in decl.decls or ():
                if d.bitsize is not None:
                    raise self.error(d, "unsupported: bit field")
                t = self.resolve(d, value_of)
                if t.kind in ("handle", "func", "void"):
                    raise self.error(d, f"unsupported: struct field of type {t.show()}")
                fields.append((d.name, t))
        finally:
            self._resolving.discard(tag)
        return CType("struct", fields=tuple(fields), name=node.name or "")
