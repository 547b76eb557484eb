"""The C front-end: preprocessing, parsing, lowering C programs and C litmus tests to the
IR (shapes, per-target mappings, static unrolling, spin loops, errors with positions)."""

from __future__ import annotations

import pytest
from support.engine import c_target

from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import (
    CAS,
    RMW,
    Assert,
    Assume,
    Branch,
    Fence,
    Imm,
    Join,
    Kill,
    Label,
    Load,
    Lock,
    MemLoc,
    Op,
    Reg,
    RegLoc,
    Spawn,
    Store,
    Sym,
    Unlock,
)
from herdsman.litmus.c import (
    TARGETS,
    c_program_from_text,
    load_c_program,
    lower_c_litmus,
    parse_c_litmus,
)

HEAD = "#include <pthread.h>\n#include <stdatomic.h>\n#include <assert.h>\n"


def prog(body: str, target: str = "tso", **kw):
    return c_program_from_text(HEAD + body, "t.c", target, **kw)


def kinds(th) -> list[str]:
    return [type(op).__name__ for op in th.code]


def error_of(body: str, target: str = "tso") -> InputError:
    with pytest.raises(InputError) as exc:
        prog(body, target)
    return exc.value


# ----------------------------------------------------------------------------- programs


def test_globals_memory_and_observed():
    p = prog(
        "int x = 3, a[3] = {1, 2}, *p = &a[1];\nstruct s { int f; int g; } st = {4, 5};\n"
        "int main() { return 0; }"
    )
    assert dict(p.memory) == {
        "x": 3,
        "a": 1,
        "a+4": 2,  # byte offsets: int is 4 bytes (x86-64)
        "a+8": 0,
        "p": Sym("a", 4),
        "st": 4,
        "st+4": 5,
    }
    assert [name for name, _ in p.memory] == sorted(name for name, _ in p.memory)
    assert p.observed == tuple(MemLoc(n) for n, _ in p.memory)
    assert p.condition.quant == "forall" and p.name == "t" and p.arch == "X86"


def test_locals_are_registers_and_origins():
    p = prog("int x;\nint main() {\n  int r = x;\n  x = r + 1;\n  return 0;\n}")
    th = p.threads[0]
    assert th.code == (
        Load("r", (Imm(Sym("x")),)),
        Op("t.1", "add", (Reg("r"), Imm(1))),
        Store(Reg("t.1"), (Imm(Sym("x")),)),
    )
    assert th.origins[0] == "6: int r = x" and th.origins[2] == "7: x = r + 1"


def test_threads_unrolled_spawn_join_and_arguments():
    p = prog(
        "int a[2];\nvoid *w(void *arg) { int i = (long) arg; a[i] = 1; return NULL; }\n"
        "int main() { pthread_t t[2];\n"
        "  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, w, (void *) i);\n"
        "  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);\n  return 0; }"
    )
    assert len(p.threads) == 3
    main = p.threads[0].code
    spawns = [op for op in main if isinstance(op, Spawn)]
    assert spawns == [Spawn(1), Spawn(2)]
    # a pthread_t array is memory on main's stack (as in GenMC): the handles are written
    # there (8 bytes each), and each join waits for the thread whose number it reads
    t0 = Imm(Sym("main.t@t0"))
    assert Store(Imm(1), (t0,)) in main and Store(Imm(2), (Imm(Sym("main.t@t0", 8)),)) in main
    joins = [op for op in main if isinstance(op, Join)]
    assert [j.reg is not None for j in joins] == [True, True]
    assert main[0] == Fence("MFENCE")
    assert p.registers[1] == (("arg", 0),) and p.registers[2] == (("arg", 1),)
    assert not any(isinstance(op, Branch) for op in main)  # fully unrolled
    q = prog(
        "void *w(void *arg) { return NULL; }\nint main() { pthread_t a, b;\n"
        "  pthread_create(&a, NULL, w, NULL); pthread_create(&b, NULL, w, NULL);\n"
        "  pthread_join(a, NULL); pthread_join(b, NULL); return 0; }"
    )
    # scalar handles are registers whose values are known: static joins
    assert [op for op in q.threads[0].code if isinstance(op, Join)] == [Join(1), Join(2)]
    assert q.symmetric == (-1, -1, 1)  # same function, same argument: symmetric


def test_mutex_and_atomics_per_target():
    body = (
        "pthread_mutex_t m; atomic_int x; int y;\nint main() {\n"
        "  pthread_mutex_lock(&m); y = 1; pthread_mutex_unlock(&m);\n"
        "  atomic_store_explicit(&x, 1, memory_order_release);\n"
        "  int r = atomic_load_explicit(&x, memory_order_acquire);\n"
        "  x = 2;\n  return 0; }"
    )
    addr_m, addr_x = (Imm(Sym("m")),), (Imm(Sym("x")),)
    tso = prog(body).threads[0].code
    assert tso[0] == Lock(addr_m, frozenset({"X", "LK"})) and tso[2] == Unlock(addr_m)
    assert tso[3] == Store(Imm(1), addr_x) and tso[4] == Load("r", addr_x)
    assert tso[5:] == (Store(Imm(2), addr_x), Fence("MFENCE"))  # seq_cst plain store
    pso = prog(body, "pso").threads[0].code
    assert kinds(prog(body, "pso").threads[0])[2:4] == ["Fence", "Unlock"]
    assert pso[4:6] == (Fence("SFENCE"), Store(Imm(1), addr_x))
    ppc = prog(body, "power")
    assert ppc.arch == "PPC"
    k = kinds(ppc.threads[0])
    # the lock: a compare-and-swap of 0 by 1 that must succeed, then cmp; bc; isync
    assert k[:7] == ["CAS", "Op", "Assume", "Op", "Branch", "Label", "Fence"]
    assert ppc.threads[0].code[6] == Fence("ISYNC")
    i = k.index("Load")
    assert k[i : i + 5] == ["Load", "Op", "Branch", "Label", "Fence"]  # ld; cmp; bc; isync
    assert ppc.threads[0].code[-2:] == (Fence("SYNC"), Store(Imm(2), addr_x))
    c = prog(body, "c")
    assert c.arch == "C"
    code = c.threads[0].code
    assert Store(Imm(1), addr_x, annots=frozenset({"A", "REL"})) in code
    assert Load("r", addr_x, annots=frozenset({"A", "ACQ"})) in code
    assert Store(Imm(1), (Imm(Sym("y")),), annots=frozenset({"NA"})) in code


def test_rmw_and_compare_exchange():
    p = prog(
        "atomic_int x;\nint main() {\n  int old = atomic_fetch_add(&x, 2);\n"
        "  int e = 0; int ok = atomic_compare_exchange_strong(&x, &e, 5);\n"
        "  x++;\n  return 0; }"
    )
    code = p.threads[0].code
    assert RMW("old", (Imm(Sym("x")),), "add", Imm(2)) in code
    cas = next(op for op in code if isinstance(op, CAS))
    assert cas.expected == Reg("e") and cas.desired == Imm(5)
    i = code.index(cas)
    assert code[i + 1] == Op("ok", "eq", (Reg(cas.dst), Reg("e")))
    assert code[i + 2] == Op("e", "mov", (Reg(cas.dst),))
    assert isinstance(code[-1], RMW) and code[-1].fn == "add"
    ppc = prog("atomic_int x;\nint main() { atomic_exchange(&x, 1); return 0; }", "power")
    # hwsync; the read-modify-write; cmp; bc; isync (its old value feeds the branch)
    assert kinds(ppc.threads[0]) == ["Fence", "RMW", "Op", "Branch", "Label", "Fence"]
    code = ppc.threads[0].code
    assert code[0] == Fence("SYNC") and code[-1] == Fence("ISYNC")
    assert code[1].dst is not None and code[2].args == (Reg(code[1].dst), Reg(code[1].dst))


def test_fences_per_target():
    body = "int main() { atomic_thread_fence(memory_order_seq_cst);\n"
    body += "atomic_thread_fence(memory_order_release); return 0; }"
    assert prog(body).threads[0].code == (Fence("MFENCE"),)
    assert prog(body, "pso").threads[0].code == (Fence("MFENCE"), Fence("SFENCE"))
    assert prog(body, "power").threads[0].code == (Fence("SYNC"), Fence("LWSYNC"))
    assert prog(body, "c").threads[0].code == (Fence("F.SC"), Fence("F.REL"))


def test_a_signal_fence_is_a_fence_as_genmc_runs_it():
    """GenMC runs ``atomic_signal_fence`` as a thread fence (the Linux kernel's
    ``barrier()`` in its tests is one: qspinlock synchronises through it)."""
    body = "int main() { atomic_signal_fence(memory_order_acq_rel); return 0; }"
    assert prog(body, "c").threads[0].code == (Fence("F.ACQ_REL"),)
    assert prog(body, "power").threads[0].code == (Fence("LWSYNC"),)


def test_spin_loop_becomes_assume():
    # GenMC's spin-assume: an iteration with no side effect blocks where it would go
    # back to the head (the head: the condition of a while loop, the body of a do loop)
    p = prog("atomic_int f;\nint main() { while (atomic_load(&f) == 0) ; return 0; }")
    assert kinds(p.threads[0]) == ["Label", "Load", "Op", "Branch", "Op", "Assume", "Label"]
    p = prog(
        "int f;\nvoid *w(void *a) { f = 1; return 0; }\n"
        "int main() { int r; do { r = f; } while (r != 1); return 0; }"
    )
    assert kinds(p.threads[0]) == ["Label", "Load", "Op", "Assume"]
    # a loop with side effects on its way back checks as it runs: arriving at the head
    # again without an effect since the last time blocks
    p = prog("int x, y;\nint main() { while (x == 0) { if (y) x = 2; } return 0; }")
    k = kinds(p.threads[0])
    assert k[:3] == ["Op", "Label", "Assume"] and k.count("Store") == 1


def test_loops_keep_their_head():
    p = prog("int x;\nint main() { while (x < 3) { x = x + 1; } return 0; }")
    code = p.threads[0].code
    backward = [
        op
        for i, op in enumerate(code)
        if isinstance(op, Branch) and code.index(Label(op.target)) < i
    ]
    assert len(backward) == 1 and backward[0].cond is None  # the latch: back to the head
    # for(;;) with break: break is a forward branch
    p = prog("int x;\nint main() { for (;;) { if (x) break; } return 0; }")
    assert any(isinstance(op, Branch) and op.cond is None for op in p.threads[0].code)


def test_genmc_unroll_bound():
    # -unroll=N: a loop's head runs at most N times per entry; once more kills the thread
    body = "int x, n;\nint main() { for (int i = 0; i < n; i++) x = i; return 0; }"
    code = prog(body, unroll=2).threads[0].code
    assert Kill() in code
    assert Kill() not in prog(body).threads[0].code
    # a counted loop unrolled at compile time: N bodies, then the kill
    code = (
        prog("int x;\nint main() { for (int i = 0; i < 5; i++) x = i; return 0; }", unroll=2)
        .threads[0]
        .code
    )
    assert [type(op).__name__ for op in code] == ["Store", "Store", "Kill"]


def test_static_unrolling_is_exact():
    p = prog("int a[4];\nint main() { for (int i = 0; i < 4; i += 2) a[i] = i; return 0; }")
    assert p.threads[0].code == (
        Store(Imm(0), (Imm(Sym("a")),)),
        Store(Imm(2), (Imm(Sym("a", 8)),)),
    )


def test_logical_operators_branch_with_memory_on_the_right():
    p = prog("int x, y;\nint main() { x = y = 1; int r = x && y; return 0; }")
    k = kinds(p.threads[0])
    assert k.count("Load") == 2 and "Branch" in k  # y is read only when x != 0


def test_assert_and_assume():
    p = prog(
        "int x;\nvoid *w(void *a) { x = 1; return 0; }\n"
        "int main() { __VERIFIER_assume(x == 0); assert(x == 0); return 0; }"
    )
    code = p.threads[0].code
    assert any(isinstance(op, Assume) for op in code)
    a = next(op for op in code if isinstance(op, Assert))
    assert a.message == "x == 0" and a.cond == "ne"


def test_inlining_and_return():
    p = prog("int x;\nint twice(int v) { return v + v; }\nint main() { x = twice(3); return 0; }")
    assert p.threads[0].code == (
        Op("t.1", "mov", (Imm(6),)),  # the argument is a constant: folded
        Store(Reg("t.1"), (Imm(Sym("x")),)),
    )


def test_defines_and_include_dirs(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "mine.h").write_text("#define VAL 7\n")
    src = tmp_path / "prog.c"
    src.write_text('#include "mine.h"\nint x;\nint main() { x = VAL + N; return 0; }\n')
    p = load_c_program(str(src), defines={"N": "2"}, include_dirs=[str(tmp_path / "inc")])
    assert p.threads[0].code == (Store(Imm(9), (Imm(Sym("x")),)),)
    assert p.name == "prog" and p.path == str(src)


@pytest.mark.parametrize(
    "body, line, message",
    [
        ("int main() {\n  int x = ;\n}", 5, "syntax error"),
        ("int f(int n) { return f(n); }\nint main() {\n  f(1);\n}", 4, "calls itself"),
        ("int main() {\n  float f = 1;\n}", 5, "float"),
        ("int main() {\n  foo(1);\n}", 5, "unknown function 'foo'"),
        (
            "int n;\nvoid *w(void *a) { n = 1; return NULL; }\nint main() { pthread_t t;\n"
            "  while (n) pthread_create(&t, NULL, w, NULL);\n}",
            7,
            "pthread_create in a loop whose bound is not a constant",
        ),
        ("int main() {\n  int x = __VERIFIER_nondet_int();\n}", 5, "unsupported"),
        ("struct s { int b : 3; };\nint main() {\n  struct s v;\n}", 4, "bit field"),
        ("int main() {\n  exit(1);\n}", 5, "exit"),
    ],
)
def test_errors_have_positions(body, line, message):
    e = error_of(body)
    assert e.path == "t.c" and e.line == line and e.col > 0
    assert message in e.message


def test_preprocessor_errors():
    with pytest.raises(InputError) as exc:
        c_program_from_text('#include "nope.h"\nint main() {}', "u.c")
    assert exc.value.line == 1 and "nope.h" in exc.value.message
    with pytest.raises(InputError) as exc:
        c_program_from_text("\n#error stop\nint main() {}", "u.c")
    assert exc.value.line == 2


def test_targets():
    assert TARGETS == ("tso", "pso", "power", "c")  # which model gets which: cat.identity


# ----------------------------------------------------------------------------- litmus

MP = """C MP
"message passing"
{ int x = 0; int y = 0; }

P0(int *x, int *y)
{
	WRITE_ONCE(*x, 1);
	smp_wmb();
	WRITE_ONCE(*y, 1);
}

P1(int *x, int *y)
{
	int r0;
	int r1;

	r0 = READ_ONCE(*y); // comment
	smp_rmb();
	r1 = READ_ONCE(*x);
}

locations [x]
exists (1:r0=1 /\\ 1:r1=0)
"""


def test_parse_c_litmus():
    t = parse_c_litmus(MP, "MP.litmus")
    assert t.name == "MP" and t.doc == "message passing"
    assert [it.loc for it in t.init] == [MemLoc("x"), MemLoc("y")]
    assert len(t.threads) == 2 and t.threads[1].text.startswith("P1(int *x, int *y)")
    assert t.threads[0].params == (("x", "int *x"), ("y", "int *y"))
    assert t.condition.quant == "exists" and t.locations == (MemLoc("x"),)


def test_lower_c_litmus_shapes():
    t = parse_c_litmus(MP, "MP.litmus")
    p = lower_c_litmus(t, "power")
    assert p.arch == "PPC" and dict(p.memory) == {"x": 0, "y": 0}
    assert p.observed == (RegLoc(1, "r0"), RegLoc(1, "r1"), MemLoc("x"))
    assert p.threads[0].code == (
        Store(Imm(1), (Imm(Sym("x")),)),
        Fence("LWSYNC"),
        Store(Imm(1), (Imm(Sym("y")),)),
    )
    assert p.threads[1].code[0] == Load("r0", (Imm(Sym("y")),))
    c = lower_c_litmus(t, "c")
    assert c.threads[0].code[1] == Fence("F.Wmb")
    assert c.threads[1].code[0].annots == frozenset({"ONCE"})
    assert len(lower_c_litmus(t, "tso").threads[0].code) == 2  # smp_wmb: nothing on TSO


def test_c_litmus_errors():
    with pytest.raises(InputError) as exc:
        parse_c_litmus(MP.replace("smp_rmb();", "smp_rmb(;"), "MP.litmus")
    assert exc.value.line == 18
    with pytest.raises(InputError) as exc:
        parse_c_litmus(MP.replace("1:r1=0", "2:r1=0"), "MP.litmus")
    assert "thread 2" in exc.value.message


def _states(text: str, model: str):
    from herdsman.cat.api import load_model
    from herdsman.engine.run import run_program

    t = parse_c_litmus(text, "t.litmus")
    p = lower_c_litmus(t, c_target(model))
    out = run_program(p, load_model(model))
    return {str(s) for s in out.states}


SB = """C SB
{}
P0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }
exists (0:r0=0 /\\ 1:r0=0)
"""


def test_end_to_end_sb_and_mp():
    assert "(0, 0)" in _states(SB, "tso")
    assert "(0, 0)" not in _states(SB, "sc")
    assert "(1, 0)" not in _states(MP, "tso")
