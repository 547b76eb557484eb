"""Python expressions for a compiled model's nodes, as :mod:`cat.codegen` writes them.

:class:`NodeCode` makes a node available in a :class:`Scope` of generated code: its
arguments first, a constant, a call of a relalg kernel, a memo table around the expensive
dynamic ops (keyed on their input values), a fixpoint as a loop until its values are
stable (``r = b | r;r`` as one transitive closure of ``b``).  Nodes on the skeleton only
go to the static scope, computed once per skeleton.
"""

from __future__ import annotations

from dataclasses import dataclass

from herdsman.cat.backend import Backend
from herdsman.cat.checks import operand
from herdsman.cat.ir import Graph, Node
from herdsman.cat.values import EMPTY, REL, SET, VRel, VSet
from herdsman.graphs.relalg import KERNEL

MEMO_LIMIT = 50_000
#: Operands of an n-ary node written as one nested expression at most: Python's parser
#: refuses an expression nested 200 deep, so a longer sequence is composed by a call
#: over a flat tuple (``RT.seqs``) and a longer union or intersection in groups.
NEST_MAX = 32
#: Dynamic ops worth a memo table (a dict lookup costs far less than the op).  Compiled
#: (``graphs.relalg.KERNEL``), sequence and closure cost about as much as a lookup keyed on
#: their operands: not memoised then (the POWER campaign is 7 % faster without).
MEMO_OPS = frozenset() if KERNEL else frozenset({"seq", "plus", "inv"})
#: Whether acyclicity tests get a memo table (compiled, the test costs about a lookup).
MEMO_ACYCLIC = not KERNEL

#: Ops computed by a constant, and ops computed by a call: the names ``_PRELUDE`` binds.
_CONSTS = {"all": "ALL", "id": "ID", "full": "FULL"}
_CALLS = {
    "inv": "inverse",
    "plus": "plus",
    "domain": "domain",
    "range": "range_",
    "prod": "product",
    "toid": "ident",
}

#: Ops whose value is empty when an operand is (None: any operand; k: one of the first k).
_EMPTIED: dict[str, int | None] = {"seq": None, "inter": None, "prod": None, "diff": 1}
#: Plain relational operations: code computing them may be skipped (nothing can fail).
_PLAIN = frozenset(
    {"input", "union", "inter", "diff", "seq", "inv", "plus", "domain", "range", "prod", "toid"}
)
#: ... and the leaves of static code (names, constants), cheap and sure to succeed.
_LEAVES = frozenset({"name", "const", "all", "id", "full"})
#: Variables of the generated code that are never empty.
_NONEMPTY = frozenset({"ALL", "ID", "FULL"})

#: First lines of the generated ``statics`` and ``make``: the relalg kernels as locals.
_PRELUDE = [
    "    seq = U.seq; inverse = U.inverse; plus = U.plus; domain = U.domain",
    "    range_ = U.range; product = U.product; ident = U.ident",
    "    acyclic = RT.acyclic; ALL = U.ALL; ID = U.ID; FULL = U.FULL; NN = U.n * U.cap",
    "    COL0 = U.COL0",
]


@dataclass
class Scope:
    avail: dict[int, str]
    lines: list[str]
    ind: int
    fails: str = "fails"
    in_fix: bool = False  # inside a fixpoint loop: no memo tables (the fixpoint has one)


class NodeCode:
    """Code for nodes: the static scope, constants ``K``, memo tables and fixpoints."""

    def __init__(self, graph: Graph, sp=None, precomputed: frozenset[int] = frozenset()) -> None:
        self.g = graph
        self.consts: list = []
        self.static = Scope({}, [], 1)
        self.memos: list[str] = []
        self.sp = sp
        self.precomputed = precomputed
        self.made_hoisted: set[str] = set()  # static parts of unions and intersections
        #: per node, the nodes using it (those of the graph's first ``users_of`` nodes)
        self.users: dict[int, set[int]] = {}
        self.users_of = 0
        #: per code (its list of lines), the variables the tests around the line to come
        #: test for emptiness (a test nested in them need not test them again)
        self.tested: dict[int, list[str]] = {}
        #: the nodes the program reads itself (checks, shows...)
        self.read: set[int] = set()

    def const(self, v) -> str:
        self.consts.append(v)
        return f"K[{len(self.consts) - 1}]"

    def emit(self, sc: Scope, text: str) -> None:
        sc.lines.append("    " * sc.ind + text)

    def map(self, v):
        return self.sp.value(v) if self.sp is not None else v

    def value(self, v, sc: Scope, want_raw=None) -> str:
        """Python expression for an abstract value in scope sc."""
        if type(v) is Node:
            return self.ensure(v, sc)
        if type(v) is int:
            return str(v)
        if want_raw is not None:
            if v is EMPTY:
                return "0"
            if type(v) in (VSet, VRel):
                return str(v.bits)
        return self.const(v)

    def ensure(self, n: Node, sc: Scope) -> str:
        """Make node n available in scope sc (computing it and its arguments if needed)."""
        var = sc.avail.get(n.id)
        if var is not None:
            return var
        if not n.deps and sc is not self.static:
            var = self.ensure(n, self.static)
            sc.avail[n.id] = var
            return var
        var = f"v{n.id}"
        if not n.deps and n.id in self.precomputed:
            self.emit(sc, f"{var} = S[{n.id}]")
            sc.avail[n.id] = var
            return var
        op = n.op
        if op == "fix":
            return self.gen_fix(n, sc)
        if op == "const":
            sc.avail[n.id] = str(n.info)
            return str(n.info)
        hoist = self.hoists(n, sc)
        empty = self.empty_when(n, sc, hoist)
        if empty is not None:  # a static operand is empty: so is n, its operands unmade
            self.emit(sc, f"if {empty}:")
            self.emit(sc, f"    {var} = 0")
            self.emit(sc, "else:")
            made = set(sc.avail)
            sc.ind += 1
        args = [self.ensure(a, sc) for a in n.args if a.deps or not hoist]
        if hoist:  # its static operands in one, once per skeleton
            args.append(self.hoisted(n))
        expr = self.expr(n, args)
        if n.deps and op in MEMO_OPS and not sc.in_fix:
            key = args[0] if len(args) == 1 else f"({', '.join(args)})"
            self.emit_memoised(sc, var, self.memo_table(f"m{n.id}"), key, expr)
        else:
            self.emit(sc, f"{var} = {expr}")
        if empty is not None:  # what the branch made is not made on the other one
            sc.ind -= 1
            del self.tested[id(sc.lines)][-(empty.count(" and ") + 1) :]
            for k in [k for k in sc.avail if k not in made]:
                del sc.avail[k]
        sc.avail[n.id] = var
        return var

    def empty_when(self, n: Node, sc: Scope, hoist: bool) -> str | None:
        """For a set or relation ``n`` that is empty when one of its operands is (a
        sequence, intersection or product; a difference's first operand), and one of
        those is made already (a static operand of per-candidate code; an event set of
        herd's names, or what one empties, in the static code): the test of their
        emptiness (``not (s1 and s2)``), under which the code skips the call and the
        operands only ``n`` uses (a skeleton without fences, without read-modify-writes...);
        the operands others use too are made first, here.  None when that saves nothing,
        or when an operand to skip is not a plain relational operation (nothing skipped
        could fail)."""
        static = sc.lines is self.static.lines
        if (
            n.op not in _EMPTIED
            or sc.in_fix
            or not (static or n.deps)
            or (n.type != SET and n.type != REL)
        ):
            return None
        tests = [self.hoisted(n)] if hoist else self.empty_tests(n, sc, static, 3)
        tested = self.tested.get(id(sc.lines), ())  # by the tests around (code is nested)
        tests = list(
            dict.fromkeys(
                t for t in tests if t.isidentifier() and t not in _NONEMPTY and t not in tested
            )
        )
        if not tests:
            return None
        pending = self.pending(n, sc, static)
        if pending is None:
            return None
        own = self.own(n, pending)
        if not own and n.op != "seq" and n.op != "prod":
            return None
        for i in sorted(pending):  # made whatever the operands' emptiness (arguments first)
            if i not in own:
                self.ensure(pending[i], sc)
        tests = tests[:3]
        self.tested.setdefault(id(sc.lines), []).extend(tests)
        return f"not ({' and '.join(tests)})" if len(tests) > 1 else f"not {tests[0]}"

    def empty_tests(self, n: Node, sc: Scope, static: bool, depth: int) -> list[str]:
        """Variables made (or cheap to make: herd's names) whose emptiness empties ``n``:
        its operands' that empty it, or theirs (``depth`` levels down)."""
        k = _EMPTIED[n.op]
        out: list[str] = []
        for a in n.args if k is None else n.args[:k]:
            if a.type != SET and a.type != REL or a.op in _CONSTS:
                continue
            if a.id in sc.avail or not a.deps and not static or static and a.op == "name":
                out.append(self.ensure(a, sc))
            elif depth > 1 and a.op in _EMPTIED and (static or a.deps):
                out += self.empty_tests(a, sc, static, depth - 1)
        return out

    def pending(self, n: Node, sc: Scope, static: bool) -> dict[int, Node] | None:
        """The nodes computing ``n`` needs that ``sc`` has not made yet (per-candidate
        ones, in per-candidate code); None when one of them is not a plain relational
        operation."""
        out: dict[int, Node] = {}
        plain = _PLAIN | _LEAVES if static else _PLAIN
        stack = [a for a in n.args if static or a.deps]
        while stack:
            a = stack.pop()
            if a.id in out or a.id in sc.avail:
                continue
            if a.op not in plain:
                return None
            out[a.id] = a
            stack.extend(b for b in a.args if static or b.deps)
        return out

    def own(self, n: Node, pending: dict[int, Node]) -> set[int]:
        """The nodes of ``pending`` that only ``n`` and those nodes use (the program reads
        none of them itself)."""
        users = self.users
        nodes = self.g.nodes
        for m in nodes[self.users_of : len(nodes)]:  # the graph grows as code is made
            for a in m.args:
                if type(a) is Node:
                    users.setdefault(a.id, set()).add(m.id)
        self.users_of = len(nodes)
        inside = set(pending)
        changed = True
        while changed:
            changed = False
            for i in list(inside):
                if i in self.read or any(u != n.id and u not in inside for u in users.get(i, ())):
                    inside.discard(i)
                    changed = True
        return inside

    def hoists(self, n: Node, sc: Scope) -> bool:
        """Whether the union or intersection ``n``, computed in ``sc`` per candidate (or
        per round of a fixpoint), has static operands enough to combine once per skeleton
        (:meth:`hoisted`); not in code the static scope runs itself."""
        return (
            bool(n.deps)
            and sc.lines is not self.static.lines
            and (n.op == "union" or n.op == "inter")
            and (n.type == SET or n.type == REL)
            and sum(1 for a in n.args if not a.deps) >= 2
        )

    def hoisted(self, n: Node) -> str:
        """The variable holding the union or intersection of ``n``'s static operands,
        computed in the static scope (the same sets and relations for every candidate)."""
        var = f"h{n.id}"
        if var not in self.made_hoisted:
            parts = [self.ensure(a, self.static) for a in n.args if not a.deps]
            op = " | " if n.op == "union" else " & "
            self.emit(self.static, f"{var} = {_grouped(op, parts)}")
            self.made_hoisted.add(var)
        return var

    def memo_table(self, memo: str) -> str:
        """Declare memo table ``memo`` (a dict local to ``make``)."""
        if memo not in self.memos:
            self.memos.append(memo)
        return memo

    def emit_memoised(self, sc: Scope, var: str, memo: str, key: str, expr: str) -> None:
        """``var = expr``, looked up first in ``memo`` under ``key``."""
        self.emit_lookup(sc, var, memo, key)
        self.emit(sc, f"    {var} = {expr}")
        self.emit_store(sc, var, memo, key, "    ")

    def emit_lookup(self, sc: Scope, var: str, memo: str, key: str) -> None:
        """``var`` from ``memo``, then the head of the block computing it on a miss."""
        self.emit(sc, f"{var} = {memo}.get({key})")
        self.emit(sc, f"if {var} is None:")

    def emit_store(self, sc: Scope, var: str, memo: str, key: str, pad: str = "") -> None:
        """Store ``var`` in ``memo`` (emptied first when it outgrows MEMO_LIMIT)."""
        self.emit(sc, f"{pad}if len({memo}) > {MEMO_LIMIT}:")
        self.emit(sc, f"{pad}    {memo}.clear()")
        self.emit(sc, f"{pad}{memo}[{key}] = {var}")

    def expr(self, n: Node, a: list[str]) -> str:
        op = n.op
        if op == "name":
            return f"N[{n.info!r}]"
        if op in _CONSTS:
            return _CONSTS[op]
        if op == "prod" and n.args[0].op == "all" and a[1].isidentifier():
            return f"COL0 * {a[1]}"  # every row is the set: U.product without its call
        if op in _CALLS:
            return f"{_CALLS[op]}({', '.join(a)})"
        if op == "union":
            return _grouped(" | ", a)
        if op == "inter":
            return _grouped(" & ", a)
        if op == "diff":  # a ^ (a & b): two passes over the bits where a & ~b takes three
            return f"{a[0]} ^ ({a[0]} & {a[1]})" if a[0].isidentifier() else f"{a[0]} & ~{a[1]}"
        if op == "seq":
            if len(a) > NEST_MAX:
                return f"RT.seqs(({', '.join(a)}))"
            out = a[0]
            for x in a[1:]:
                out = f"seq({out}, {x})"
            return out
        if op == "proj":
            return f"{a[0]}[{n.info}]"
        if op == "fixvals":
            return f"({', '.join(a)}, True)"
        if op == "unbox":
            t, pos = n.info
            return f"EV.raw({a[0]}, {t!r}, {self.const(pos)})"
        if op in ("generic", "runtime"):
            f = self.const(n)
            boxed = [self.boxed(x, v) for x, v in zip(n.args, a, strict=True)]
            call = f"RT.call({f}, ({', '.join(boxed)}{',' if len(boxed) == 1 else ''}))"
            if n.type == SET or n.type == REL:  # the call gives a tagged value: its bits
                return f"RT.bits({call})"
            return call
        if op == "test":
            kind, negated, pos, t = n.info
            return self.test_expr(kind, negated, a[0], t)
        if op == "input":
            return n.info
        if op == "pco":
            return f"RT.pco({a[0]}, {a[1]})"
        if op == "select":
            cond = f"{a[0]} == {a[1]}" if n.info == "eq" else f"not ({a[0]} & ~{a[1]})"
            return f"({a[2]} if {cond} else {a[3]})"
        raise NotImplementedError(f"codegen: {op}")  # fixvar/withvar are bound by their scope

    @staticmethod
    def boxed(n: Node, var: str) -> str:
        if n.type == SET:
            return f"VSet({var})"
        if n.type == REL:
            return f"VRel({var})"
        return var

    def test_expr(self, kind: str, negated: bool, x: str, t) -> str:
        if t in (SET, REL):
            if kind == "empty":
                e = f"not {x}"
            elif kind == "irreflexive":
                e = f"not ({x} & ID)"
            else:
                e = f"acyclic({x})"
        else:
            e = f"RT.test({kind!r}, {x})"
        return f"not ({e})" if negated else e

    # ------------------------------------------------------------------ fixpoints
    def gen_fix(self, n: Node, sc: Scope) -> str:
        info = n.info
        # the memo lives per skeleton: only the dynamic inputs make the key
        for a in n.args:
            self.ensure(a, sc)
        ins = [sc.avail[a.id] for a in n.args if a.deps]
        memo = self.memo_table(f"m{n.id}")
        var = f"v{n.id}"
        kv = f"_k{n.id}"
        if ins:
            self.emit(sc, f"{kv} = ({', '.join(ins)}{',' if len(ins) == 1 else ''})")
        else:
            self.emit(sc, f"{kv} = None")
        self.emit_lookup(sc, var, memo, kv)
        inner = Scope(dict(sc.avail), sc.lines, sc.ind + 1)
        base = _closure_base(n)
        if base is not None:  # r = b | r;r: its least fixpoint is b+, one compiled call
            b = _grouped(" | ", [self.value(x, inner, want_raw=True) for x in base])
            self.emit(inner, f"{var} = (plus({b}), True)")
            self.emit_store(inner, var, memo, kv)
            sc.avail[n.id] = var
            return var
        fvs = [fv for fv in info.fvars if type(fv) is Node]
        for fv in fvs:
            init = "0" if fv.raw else self.const(EMPTY)
            self.emit(inner, f"v{fv.id} = {init}")
            inner.avail[fv.id] = f"v{fv.id}"
        nraw = sum(1 for fv in fvs if fv.raw)
        bound = f"{nraw} * NN + 3" if nraw == len(fvs) else "100000"
        self.emit(inner, f"for _it in range({bound}):")
        body = Scope(dict(inner.avail), sc.lines, inner.ind + 1, in_fix=True)
        res = []
        for r in info.results:
            res.append(self.value(r, body, want_raw=True) if r is not EMPTY else self.const(EMPTY))
        if info.test is not None:
            kind, negated, tv, pos = info.test
            x, t = operand(Backend(graph=self.g), kind, tv, pos)
            xe = self.value(x, body, want_raw=True)
            ok = self.test_expr(kind, negated, xe, t)
            self.emit(body, f"if not ({ok}):")
            self.emit(body, f"    {var} = ({', '.join('None' for _ in res)}, False)")
            self.emit(body, "    break")
        conds = []
        for fv, rv in zip(info.fvars, res, strict=True):
            if type(fv) is not Node:
                continue
            if fv.raw:  # (the new value not within the old one)
                conds.append(f"({rv} | v{fv.id}) != v{fv.id}")
            else:
                conds.append(f"not RT.stabilised(v{fv.id}, {rv})")
        stable = " or ".join(conds) if conds else "False"
        self.emit(body, f"if not ({stable}):")
        self.emit(body, f"    {var} = ({', '.join(res)}, True)")
        self.emit(body, "    break")
        for fv, rv in zip(info.fvars, res, strict=True):
            if type(fv) is Node:
                self.emit(body, f"v{fv.id} = {rv}")
        self.emit(inner, "else:")
        self.emit(inner, f"    RT.nonconvergence({self.const(info.pos)})")
        self.emit_store(inner, var, memo, kv)
        sc.avail[n.id] = var
        return var

    def head(self, signature: str, more: str = "") -> list[str]:
        """``def signature:``, the kernels as locals (``more`` after the last of them), the
        memo tables."""
        return [
            f"def {signature}:",
            *_PRELUDE,
            f"    VSet = RT.VSet; VRel = RT.VRel{more}",
            *(f"    {m} = {{}}" for m in self.memos),
        ]


def _closure_base(n: Node) -> list[Node] | None:
    """The operands ``b1 ... bk`` of a fixpoint ``r = b1 | ... | bk | r;r`` (one relation,
    no ``when`` test, no ``bi`` reading ``r``): its least fixpoint, reached from the
    empty relation, is the transitive closure of their union (None: another fixpoint)."""
    info = n.info
    if info.test is not None or len(info.fvars) != 1 or len(info.results) != 1:
        return None
    fv, r = info.fvars[0], info.results[0]
    if type(fv) is not Node or fv.type != REL or type(r) is not Node or r.op != "union":
        return None
    (k,) = fv.deps
    squares = [a for a in r.args if a.op == "seq" and a.args == (fv, fv)]
    base = [a for a in r.args if k not in a.deps]
    if len(squares) != 1 or len(base) + 1 != len(r.args) or not base:
        return None
    return base


def _grouped(op: str, a: list[str]) -> str:
    """``a[0] op a[1] op ...``, in parenthesised groups of at most :data:`NEST_MAX`
    operands (so that no expression nests deeper than that many operators per level)."""
    if len(a) <= NEST_MAX:
        return op.join(a)
    groups = [f"({op.join(a[i : i + NEST_MAX])})" for i in range(0, len(a), NEST_MAX)]
    return _grouped(op, groups)
