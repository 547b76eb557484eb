"""herd's macro files (``.def``): reading them and expanding them in C litmus tests onto
herd's primitives (``litmus/c/macros.py``), and the events the primitives make
(``litmus/c/kernel.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path
from pycparser import c_generator

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import CAS, RMW, Choose, Effect, Fence, Load, Store
from herdsman.litmus.c import lower_c_litmus, parse_c_litmus
from herdsman.litmus.c.macros import PRIMITIVES, parse_macros, read_macros

DEF = """// a few of linux-kernel.def's kind
READ_ONCE(X) __load{ONCE}(X)
WRITE_ONCE(X,V) { __store{ONCE}(X,V); }
smp_mb() { __fence{MB}; }
rcu_read_lock() { __fence{rcu-lock}; }
xchg_acquire(X,V) __xchg{ACQUIRE}(X,V)
cmpxchg(X,V,W) __cmpxchg{MB}(X,V,W)
atomic_read(X) READ_ONCE(*X)
atomic_andnot(V,X) { __atomic_op{NORETURN}(X,&~,V); }
atomic_dec_and_test(X)  __atomic_op_return{MB}(X,-,1) == 0
spin_lock(X) { __lock(X); }
spin_trylock(X) __trylock(X)
atomic_add_unless(X,V,W) __atomic_add_unless{MB}(X,V,W)
"""


def _c(node) -> str:
    return " ".join(c_generator.CGenerator().visit(node).split())


def test_the_def_format() -> None:
    m = parse_macros(DEF, "k.def")
    t = m.table
    assert _c(t["READ_ONCE"].body) == '__load("ONCE", X)' and not t["READ_ONCE"].statement
    assert t["WRITE_ONCE"].params == ("X", "V") and t["WRITE_ONCE"].statement
    assert _c(t["rcu_read_lock"].body) == '{ __fence("rcu-lock"); }'
    assert _c(t["atomic_andnot"].body) == '{ __atomic_op("NORETURN", X, "&~", V); }'
    assert _c(t["atomic_dec_and_test"].body) == '__atomic_op_return("MB", X, "-", 1) == 0'
    assert _c(t["spin_lock"].body) == "{ __lock(X); }"
    assert t["atomic_add_unless"].line == 13


def test_the_shared_def_reads_whole() -> None:
    m = read_macros(str(shared_path("linux", "cats", "linux-kernel.def")))
    assert len(m.table) == 114
    assert {"READ_ONCE", "srcu_read_lock", "atomic_fetch_andnot_release"} <= set(m.table)
    assert not set(m.table) & PRIMITIVES


LITMUS = """C t
{}
P0(int *x, int *y, spinlock_t *l, atomic_t *z)
{
	int r0;
	r0 = READ_ONCE(*x);
	WRITE_ONCE(*y, r0);
	smp_mb();
	rcu_read_lock();
	r1 = xchg_acquire(y, 2);
	r2 = cmpxchg(x, 1, 2);
	atomic_andnot(4, z);
	r3 = atomic_dec_and_test(z);
	spin_lock(l);
	r4 = spin_trylock(l);
	r5 = atomic_add_unless(z, 1, 3);
	r6 = atomic_read(z);
}
exists (0:r0=0)
"""


def _program(text: str, defs: str = DEF, v2: bool = True):
    test = parse_c_litmus(text, "t.litmus")
    return lower_c_litmus(test, "c", parse_macros(defs, "k.def"), kernel_v2=v2)


def test_expansion_gives_herds_events() -> None:
    code = _program(LITMUS).threads[0].code
    loads = [i for i in code if isinstance(i, Load)]
    assert loads[0].annots == frozenset({"ONCE"})
    assert [i.annots for i in code if isinstance(i, Store)] == [frozenset({"ONCE"})]
    fences = [i.kind for i in code if isinstance(i, Fence)]
    assert fences == ["F.MB", "F.rcu-lock"]
    rmws = [i for i in code if isinstance(i, RMW)]
    assert rmws[0].annots == frozenset({"ACQUIRE", "X", "RMW"})  # xchg_acquire: both
    assert rmws[0].write_annots == frozenset({"ACQUIRE", "X", "RMW"})
    assert rmws[1].fn == "and" and rmws[1].annots == frozenset({"NORETURN", "X", "RMW"})
    assert any(isinstance(i, CAS) and i.annots == {"MB", "X", "RMW"} for i in code)
    kinds = [i.kind for i in code if isinstance(i, Effect)]
    assert kinds == ["LKR", "LKW", "LKR", "LKW", "LF"]  # lock, then trylock's two ways
    assert sum(isinstance(i, Choose) for i in code) == 2  # trylock, add_unless


def test_lkmmv1_fences_fully_ordered_rmws() -> None:
    """Without lkmmv2 herd wraps an ``mb`` RMW in two F[mb] and makes its accesses
    ``once`` (the kernel's older macro files spell annotations in lower case)."""
    defs = "xchg(X,V) __xchg{mb}(X,V)\nxchg_acquire(X,V) __xchg{acquire}(X,V)\n"
    text = "C t\n{}\nP0(int *x)\n{\n\tr0 = xchg(x, 1);\n\tr1 = xchg_acquire(x, 2);\n}\n"
    text += "exists (0:r0=0)\n"
    code = _program(text, defs, v2=False).threads[0].code
    assert [i.kind for i in code if isinstance(i, Fence)] == ["F.mb", "F.mb"]
    a, b = [i for i in code if isinstance(i, RMW)]
    assert a.annots == {"once", "X", "RMW"} == a.write_annots
    assert b.annots == {"acquire", "X", "RMW"} and b.write_annots == {"once", "X", "RMW"}


def test_atomic_add_unless_without_a_macro_is_herds_legacy_one() -> None:
    """A macro file of no ``atomic_add_unless`` (herd 7.57's): herd's own, fully ordered
    (lkmmv1: two ``F[mb]`` around the adding way), its accesses ``once``."""
    text = "C t\n{}\nP0(atomic_t *z)\n{\n\tr0 = atomic_add_unless(z, 1, 3);\n}\n"
    code = _program(text + "exists (0:r0=0)\n", "xchg(X,V) __xchg{mb}(X,V)\n", v2=False)
    instrs = code.threads[0].code
    assert sum(isinstance(i, Choose) for i in instrs) == 1
    assert [i.kind for i in instrs if isinstance(i, Fence)] == ["F.mb", "F.mb"]
    assert all(i.annots == {"once", "X", "RMW"} for i in instrs if isinstance(i, RMW))
    with pytest.raises(InputError, match="unknown macro atomic_add_unless"):
        _program(text.replace("1, 3", "1") + "exists (0:r0=0)\n", "xchg(X,V) __xchg{mb}(X,V)\n")


def test_undeclared_names_are_herds_registers() -> None:
    text = "C t\n{ int *p = &y; }\nP0(int **p, int *y)\n{\n\tr0 = READ_ONCE(*p);\n"
    text += "\tr1 = READ_ONCE(*r0);\n}\nexists (0:r1=0)\n"
    prog = _program(text)
    assert prog.threads[0].code  # r0 (a pointer, dereferenced) and r1 declared


@pytest.mark.parametrize(
    ("defs", "message"),
    [
        ("READ_ONCE(X __load{ONCE}(X)\n", "expected ')' after the parameters"),
        ("READ_ONCE(X)\n", "has no body"),
        ("f(X,X) { __lock(X); }\n", "parameter X given twice"),
        ("f(X) { __lock{ONCE}(X); }\n", "__lock takes no annotation"),
        ("f(X) { __atomic_op{A}(X,%,1); }\n", "'%' is not one of"),
        ("f(X) { __load(X); }\n", "__load needs annotations"),
        ("__load(X) { __lock(X); }\n", "cannot redefine herd's primitive"),
        ("f(X) { __lock(X) }\n", "bad body"),
        ("f(X) { __fence{rcu-}; }\n", "bad annotation"),
        ("f(X) { /* never closed }\n", "unterminated comment"),
    ],
)
def test_malformed_def_files(defs: str, message: str) -> None:
    with pytest.raises(InputError) as e:
        parse_macros(defs, "k.def")
    assert e.value.path == "k.def" and e.value.line >= 1 and message in e.value.message


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("\tr0 = READ_TWICE(*x);", "unknown macro READ_TWICE"),
        ("\tr0 = READ_ONCE(*x, 1);", "READ_ONCE takes 1 argument, not 2"),
        ("\tr0 = spin_lock(x);", "macro spin_lock is a statement"),
        ("\tr0 = LOOP(x);", "nested more than"),
        ("\tr0 = READ_ONCE(x);", "bad __load argument"),
    ],
)
def test_bad_calls(body: str, message: str) -> None:
    defs = DEF + "LOOP(X) LOOP(X)\n"
    text = f"C t\n{{}}\nP0(int *x)\n{{\n{body}\n}}\nexists (0:r0=0)\n"
    with pytest.raises(InputError) as e:
        _program(text, defs)
    assert e.value.path == "t.litmus" and e.value.line == 5 and message in e.value.message


def test_macros_need_herds_c_target(tmp_path: Path) -> None:
    test = parse_c_litmus(LITMUS, "t.litmus")
    with pytest.raises(InputError, match="need a cat model of C"):
        lower_c_litmus(test, "tso", parse_macros(DEF, "k.def"))
