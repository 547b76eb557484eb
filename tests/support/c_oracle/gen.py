"""A hypothesis strategy writing small concurrent C programs (as text) in the subset the
C front-end supports: ``main`` creates 2-3 threads with ``pthread_create`` and joins
them, then maybe asserts over the globals ``x``, ``y``, ``z`` (each a plain ``int`` or
an ``atomic_int``); each thread does 1-4 statements: loads into locals, stores of
constants or locals, atomic read-modify-writes (``atomic_fetch_add``,
``atomic_exchange``, ``atomic_compare_exchange_strong`` with a local expected value),
``atomic_thread_fence(memory_order_seq_cst)``, ``if``/``else`` on a local, a counted
``for`` loop (unrolled statically) and ``while`` loops reading a global in their
condition (spin loops, or rotated loops bounded by ``--unroll``)."""

from __future__ import annotations

from hypothesis import strategies as st

GLOBALS = ("x", "y", "z")
LOCALS = ("r0", "r1", "r2")
LOAD_ORDERS = ("memory_order_relaxed", "memory_order_acquire", "memory_order_seq_cst")
STORE_ORDERS = ("memory_order_relaxed", "memory_order_release", "memory_order_seq_cst")
RMW_ORDERS = LOAD_ORDERS + ("memory_order_release", "memory_order_acq_rel")

Atomics = tuple[bool, ...]  # per global: whether it is an atomic_int

consts = st.integers(0, 2)


@st.composite
def read_expr(draw: st.DrawFn, atomics: Atomics) -> str:
    """An expression reading a global (plain, or an atomic load)."""
    return draw(read_of(atomics, draw(st.integers(0, len(GLOBALS) - 1))))


@st.composite
def read_of(draw: st.DrawFn, atomics: Atomics, i: int) -> str:
    """An expression reading global number ``i``."""
    g = GLOBALS[i]
    if not atomics[i]:
        return g
    how = draw(st.sampled_from(("plain", "load", "explicit")))
    if how == "plain":
        return g
    if how == "load":
        return f"atomic_load(&{g})"
    return f"atomic_load_explicit(&{g}, {draw(st.sampled_from(LOAD_ORDERS))})"


@st.composite
def value(draw: st.DrawFn, extra: tuple[str, ...] = ()) -> str:
    """A constant or a local (``extra``: more names in scope)."""
    names = LOCALS + extra
    return draw(consts.map(str) | st.sampled_from(names))


@st.composite
def load(draw: st.DrawFn, atomics: Atomics, extra: tuple[str, ...] = ()) -> str:
    return f"{draw(st.sampled_from(LOCALS))} = {draw(read_expr(atomics))};"


@st.composite
def store(draw: st.DrawFn, atomics: Atomics, extra: tuple[str, ...] = ()) -> str:
    i = draw(st.integers(0, len(GLOBALS) - 1))
    g = GLOBALS[i]
    v = draw(value(extra))
    how = draw(st.sampled_from(("plain", "store", "explicit"))) if atomics[i] else "plain"
    if how == "plain":
        return f"{g} = {v};"
    if how == "store":
        return f"atomic_store(&{g}, {v});"
    return f"atomic_store_explicit(&{g}, {v}, {draw(st.sampled_from(STORE_ORDERS))});"


@st.composite
def rmw(draw: st.DrawFn, atomics: Atomics, extra: tuple[str, ...] = ()) -> str:
    """An atomic read-modify-write of an atomic global (a store when there is none)."""
    choices = [g for g, a in zip(GLOBALS, atomics, strict=True) if a]
    if not choices:
        return draw(store(atomics, extra))
    g = draw(st.sampled_from(choices))
    r = draw(st.sampled_from(LOCALS))
    v = draw(value(extra))
    kind = draw(st.sampled_from(("add", "add_explicit", "xchg", "cas", "cas_result")))
    keep = draw(st.booleans())
    lhs = f"{r} = " if keep else ""
    if kind == "add":
        return f"{lhs}atomic_fetch_add(&{g}, {v});"
    if kind == "add_explicit":
        mo = draw(st.sampled_from(RMW_ORDERS))
        return f"{lhs}atomic_fetch_add_explicit(&{g}, {v}, {mo});"
    if kind == "xchg":
        return f"{lhs}atomic_exchange(&{g}, {v});"
    expected = draw(st.sampled_from([x for x in LOCALS if x != r]))
    desired = draw(consts)
    call = f"atomic_compare_exchange_strong(&{g}, &{expected}, {desired})"
    return f"{r} = {call};" if kind == "cas_result" else f"{call};"


def fence(draw: st.DrawFn, atomics: Atomics, extra: tuple[str, ...] = ()) -> str:
    return "atomic_thread_fence(memory_order_seq_cst);"


@st.composite
def simple(draw: st.DrawFn, atomics: Atomics, extra: tuple[str, ...] = ()) -> str:
    """One statement without control flow."""
    kind = draw(st.sampled_from(("load", "store", "rmw", "fence")))
    if kind == "fence":
        return fence(draw, atomics, extra)
    return draw({"load": load, "store": store, "rmw": rmw}[kind](atomics, extra))


@st.composite
def statement(draw: st.DrawFn, atomics: Atomics) -> list[str]:
    """One statement of a thread, as lines (without indentation of the thread body)."""
    kind = draw(st.sampled_from(("simple",) * 8 + ("if", "if", "for", "while", "while", "spin")))
    if kind == "simple":
        return [draw(simple(atomics))]
    if kind == "if":
        r = draw(st.sampled_from(LOCALS))
        lines = [f"if ({r} == {draw(consts)}) {{", "    " + draw(simple(atomics)), "}"]
        if draw(st.integers(0, 3)):  # mostly on a value just read
            lines.insert(0, f"{r} = {draw(read_expr(atomics))};")
        if draw(st.booleans()):
            lines[-1:] = ["} else {", "    " + draw(simple(atomics)), "}"]
        return lines
    if kind == "for":
        body = draw(simple(atomics, ("i",)))
        return ["for (int i = 0; i < 2; i++) {", "    " + body, "}"]
    i = draw(st.integers(0, len(GLOBALS) - 1))
    g = GLOBALS[i]
    cond = f"{draw(read_of(atomics, i))} {draw(st.sampled_from(('<', '!=', '==')))} "
    cond += "0" if "==" in cond else "2"
    if kind == "spin":  # a spin loop: the front-end makes it an assume
        return [f"while ({cond}) {{", "}"] if draw(st.booleans()) else [f"while ({cond});"]
    # a loop writing memory: rotated, bounded by the unrolling bound; its body mostly
    # makes progress towards its exit
    if not draw(st.integers(0, 2)):
        body = draw(draw(st.sampled_from((store, rmw)))(atomics))
    elif atomics[i] and draw(st.booleans()):
        body = f"atomic_fetch_add(&{g}, 1);"
    else:
        body = f"{g} = 2;"
    return [f"while ({cond}) {{", "    " + body, "}"]


@st.composite
def assertion(draw: st.DrawFn, atomics: Atomics) -> str:
    """An assertion over the globals (main, after the joins)."""
    a, b = draw(st.lists(st.sampled_from(GLOBALS), min_size=2, max_size=2, unique=True))
    if draw(st.booleans()):
        return f"assert({a} != {draw(consts)} || {b} != {draw(consts)});"
    return f"assert({a} + {b} != {draw(st.integers(1, 4))});"


@st.composite
def c_programs(
    draw: st.DrawFn, max_threads: int = 3, max_statements: int = 4, budget: int = 6
) -> str:
    """A whole C program (see the module docstring): 2 to ``max_threads`` threads of 1
    to ``max_statements`` statements each, ``budget`` statements in all at most."""
    atomics: Atomics = tuple(draw(st.booleans()) for _ in GLOBALS)
    n = draw(st.integers(2, max_threads))
    bodies: list[list[str]] = []
    for t in range(n):
        most = min(max_statements, budget - (n - t - 1))  # leave one for each next thread
        stmts = draw(st.lists(statement(atomics), min_size=1, max_size=most))
        budget -= len(stmts)
        bodies.append([line for s in stmts for line in s])
    check = draw(st.none() | assertion(atomics))
    return render(atomics, bodies, check)


def render(atomics: Atomics, bodies: list[list[str]], check: str | None) -> str:
    """The C text: globals, one function per thread, main spawning and joining them."""
    out = ["#include <assert.h>", "#include <pthread.h>", "#include <stdatomic.h>", ""]
    out += [f"{'atomic_int' if a else 'int'} {g};" for g, a in zip(GLOBALS, atomics, strict=True)]
    for t, body in enumerate(bodies):
        out += ["", f"void *thread{t}(void *arg)", "{"]
        out += [f"    int {r} = 0;" for r in LOCALS]
        out += ["    " + line for line in body]
        out += ["    return 0;", "}"]
    out += ["", "int main(void)", "{"]
    out += [f"    pthread_t t{t};" for t in range(len(bodies))]
    out += [f"    pthread_create(&t{t}, 0, thread{t}, 0);" for t in range(len(bodies))]
    out += [f"    pthread_join(t{t}, 0);" for t in range(len(bodies))]
    if check:
        out.append("    " + check)
    out += ["    return 0;", "}", ""]
    return "\n".join(out)
