"""Malformed-input fuzzing of the C front-end: mutated C programs and C litmus tests must
give a result or exactly one ``FILE:LINE:COL: error: ...`` line with exit status 2, never
a traceback or an internal error.

    python bench/fuzz_c.py --count 1000 --seed 1

Seeds: the example programs (``litmus/examples/programs/*.c``), a few small programs of
this file, and the C litmus examples (``litmus/examples/c/*.litmus``).  Each mutant gets
one to three mutations: token edits (delete, duplicate, swap two neighbours, an
unbalanced bracket, a name replaced by another or by an unknown one), a truncation, or an
inserted construct the front-end must refuse cleanly (a call to an unknown function,
recursion, a function pointer, a ``float``, a bad or misused ``memory_order``, a
variadic function, ``pthread_create`` in an unbounded loop...) or one it must take or
refuse cleanly (the heap: ``malloc``, double ``free``, use after ``free``, ``mem*``;
pointers out of their allocation, ``goto``, ``switch``, designated initialisers,
``typeof``, statement expressions, thread-locals, ``threads.h``, GCC's builtins...).
Programs are run as ``herdsman verify FILE`` under a drawn model (tso, sc, rc11, ra,
pso or verify's default) with some of ``--unroll N``, ``--no-genmc-variants``,
``--disable-race-detection``, ``--disable-sr``, ``--keep-going`` and ``--engine``; litmus
tests as ``herdsman run --model M FILE``, in-process.  A mutant that is still a valid
program may exit 0 (safe) or 42 (an assertion can fail); 3 is a time-out.  The harness
(:mod:`fuzz_harness`) also catches hangs and runs over 2 GB, and runs the mutants in
``--jobs`` processes.  Each failing input is kept in ``--keep`` and listed; the exit status
is 1 when any failed.  With
``--heavy``, one mutant in ten also declares a huge global array (see :data:`HEAVY`).
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

sys.path.insert(0, str(HERE))  # fuzz_harness, when run from elsewhere
from fuzz_harness import Work, arguments, judge, run_all, run_case  # noqa: E402

EXAMPLES = HERE.parent / "litmus" / "examples"

#: Small programs of our own, so that the fuzzer has seeds whatever the examples are.
SEEDS = {
    "seed_sb.c": """#include <pthread.h>
#include <assert.h>

int x, y;
int r0, r1;

void *t0(void *arg)
{
	x = 1;
	r0 = y;
	return 0;
}

void *t1(void *arg)
{
	y = 1;
	r1 = x;
	return 0;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, 0, t0, 0);
	pthread_create(&b, 0, t1, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	assert(r0 == 1 || r1 == 1);
	return 0;
}
""",
    "seed_counter.c": """#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

#define N 2

atomic_int count;
int data[N];

static int bump(int k)
{
	return atomic_fetch_add_explicit(&count, k, memory_order_acq_rel);
}

void *worker(void *arg)
{
	int me = (int)(long)arg;
	data[me] = me + 1;
	bump(1);
	return 0;
}

int main(void)
{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], 0, worker, (void *)(long)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], 0);
	assert(atomic_load_explicit(&count, memory_order_seq_cst) == N);
	return 0;
}
""",
    "seed_spin.c": """#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>

atomic_int flag;
int msg;

void *producer(void *arg)
{
	msg = 42;
	atomic_store_explicit(&flag, 1, memory_order_release);
	return 0;
}

void *consumer(void *arg)
{
	while (atomic_load_explicit(&flag, memory_order_acquire) == 0)
		;
	assert(msg == 42);
	return 0;
}

int main(void)
{
	pthread_t p, c;
	pthread_create(&p, 0, producer, 0);
	pthread_create(&c, 0, consumer, 0);
	pthread_join(p, 0);
	pthread_join(c, 0);
	return 0;
}
""",
}

#: Statements to insert into a function body (most must be refused).
STATEMENTS = (
    "mystery_function(1);",
    "int *p = malloc(sizeof(int));",
    "free(0);",
    "float f = 1.5;",
    "double d = 2.0;",
    "int arr[3];",
    "struct { int a; } s;",
    "void (*fp)(void) = 0;",
    "goto nowhere;",
    "goto out; out: ;",
    "switch (1) { case 0: break; default: break; }",
    "atomic_store_explicit(&undeclared, 1, memory_order_relaxed);",
    "atomic_thread_fence(memory_order_bogus);",
    "atomic_thread_fence(42);",
    "atomic_load_explicit(0, memory_order_release);",
    "int q = atomic_load_explicit(&q, memory_order_relaxed);",
    "pthread_create(0, 0, 0, 0);",
    "while (1) { pthread_t t; pthread_create(&t, 0, 0, 0); }",
    'printf("%d\\n", 1);',
    "assert();",
    "assume(1, 2);",
    "__VERIFIER_assume(0);",
    "return;",
    "break;",
    "continue;",
    "x = ;",
    "int 3x = 1;",
    "unsigned long long z = 18446744073709551615ULL;",
    'char *s = "text";',
    "'a';",
    "x <<= 70;",
    "int v = 1 / 0;",
    "smp_mb();",
    "spin_lock(0);",
    "xchg(0, 1);",
    "WRITE_ONCE(*nowhere, 1);",
    "r0 = READ_ONCE(nowhere);",
    "int r9 = cmpxchg(x, 0);",
    # memory as allocations: the heap, pointers, GCC's C (issue 28)
    "int *h = malloc(8); free(h); free(h);",
    "int *h = malloc(8); free(h); *h = 1;",
    "int *h = calloc(2, sizeof(int)); h[5] = 1;",
    "free((int *) 12);",
    "int *h = malloc(-1);",
    "char *c = malloc(4); memset(c, 0, 4); memcpy(c, c + 1, 2);",
    "memset(0, 0, 100000000);",
    "int loc = 1; int *lp = &loc; *(lp + 1000) = 2;",
    "typeof(x) tx = 1;",
    "int se = ({ int q = 2; q + 1; });",
    "__auto_type at = 3;",
    "struct pt { int a, b; } sp = { .b = 2, .c = 3 };",
    "int da[3] = { [5] = 1 };",
    "int sw = 0; switch (sw) { case 1: sw++; case 1: break; }",
    "thrd_t th; thrd_create(&th, 0, 0);",
    "mtx_t mx; mtx_lock(&mx); mtx_unlock(&mx);",
    "pthread_t self = pthread_self(); pthread_join(self, 0);",
    "int ga = _Generic(1, int: 2, default: 3);",
    "__sync_fetch_and_umax(&x, 1);",
    "__atomic_fetch_max(&x, 1, 99);",
    "int (*fq)(int) = 0; fq(1);",
    "static __thread int tl;",
    "__VERIFIER_optional(x = 1;);",
    "__builtin_prefetch(&x);",
    "int ofs = offsetof(struct nothing, f);",
)

#: Definitions to insert at the top level.
DEFINITIONS = (
    "int rec(int n) { if (n) return rec(n - 1); return 0; }",
    "int ping(int n); int pong(int n) { return ping(n); } int ping(int n) { return pong(n); }",
    "int sum(int n, ...) { return n; }",
    "void helper(void) { }\nvoid (*hook)(void) = helper;",
    "float g;",
    "struct node { struct node *next; int v; } head;",
    "union u { int a; char b; } un;",
    "int main(void) { return 0; }",
    "P9(int *x) { WRITE_ONCE(*x, 1); }",
    "#include <nonexistent.h>",
    "#define BAD(",
    "#error fuzzed",
    "#if 1",
    "extern int elsewhere(void);",
    "typedef int myint; myint typed;",
    "int big[64];",
    "struct list { struct list *next; int v; }; struct list *lhead;",
    "_Thread_local int tls = 1;",
    "union bits { long l; char c[8]; } ub = { .c = { 1 } };",
    "int (*table[2])(int);",
    "typedef struct tree { struct tree *l, *r; } tree_t; tree_t root = { &root, 0 };",
    "#include <threads.h>",
    "#include <string.h>",
    "#include <sys/mman.h>",
    "int self(int n) { return n ? self(n - 1) : 0; } int deep = 0;",
    'const char *msg = "a" "b";',
)

#: Definitions that make a program too big for herdsman today (every array cell is a
#: memory location with its initial write): only with ``--heavy``.
HEAVY = (
    "int big[1000];",
    "int big[1000000000];",
)

#: Names that stand for unknown functions or variables.
UNKNOWN = ("frobnicate", "memory_order_bogus", "malloc", "longjmp", "undeclared_var", "P7")

_TOKEN = re.compile(
    r"(?P<ws>\s+)|(?P<comment>/\*.*?\*/|//[^\n]*|\(\*.*?\*\))"
    r"|(?P<str>\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<num>[0-9][0-9A-Za-z_.]*)"
    r"|(?P<op>->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=]=?|/\\\\|\\\\/)"
    r"|(?P<p>.)",
    re.S,
)


@dataclass(frozen=True, slots=True)
class Case:
    """One mutant: its text, its kind (``program`` or ``litmus``) and its mutations."""

    text: str
    kind: str
    seed: str
    mutations: tuple[str, ...]
    options: tuple[str, ...] = ("--model", "tso")


def tokens(text: str) -> list[str]:
    """``text`` cut into tokens (blanks and comments are tokens too: joining gives it back)."""
    return [m.group() for m in _TOKEN.finditer(text)]


def _solid(toks: list[str]) -> list[int]:
    return [i for i, t in enumerate(toks) if t.strip() and not t.startswith(("/*", "//", "(*"))]


def _body_points(text: str) -> list[int]:
    """Offsets just after a ``;`` or ``{`` inside braces (where a statement may go)."""
    out = []
    depth = 0
    for m in _TOKEN.finditer(text):
        t = m.group()
        if t == "{":
            depth += 1
            out.append(m.end())
        elif t == "}":
            depth = max(0, depth - 1)
        elif t == ";" and depth > 0:
            out.append(m.end())
    return out


def _top_points(text: str) -> list[int]:
    """Offsets at the top level (before a line at brace depth 0), or the end."""
    out = [len(text)]
    depth = 0
    start = 0
    for line in text.splitlines(keepends=True):
        if depth == 0 and line.strip() and not line.startswith((" ", "\t", "#", "}")):
            out.append(start)
        depth += line.count("{") - line.count("}")
        start += len(line)
    return out


def _m_delete(text: str, rnd: random.Random) -> str:
    toks = tokens(text)
    solid = _solid(toks)
    if solid:
        del toks[rnd.choice(solid)]
    return "".join(toks)


def _m_duplicate(text: str, rnd: random.Random) -> str:
    toks = tokens(text)
    solid = _solid(toks)
    if solid:
        i = rnd.choice(solid)
        toks.insert(i, toks[i] + " ")
    return "".join(toks)


def _m_swap(text: str, rnd: random.Random) -> str:
    toks = tokens(text)
    solid = _solid(toks)
    if len(solid) > 1:
        k = rnd.randrange(len(solid) - 1)
        i, j = solid[k], solid[k + 1]
        toks[i], toks[j] = toks[j], toks[i]
    return "".join(toks)


def _m_truncate(text: str, rnd: random.Random) -> str:
    return text[: rnd.randrange(len(text) + 1)]


def _m_unbalance(text: str, rnd: random.Random) -> str:
    toks = tokens(text)
    brackets = [i for i, t in enumerate(toks) if t in "{}()[]" and t]
    if brackets and rnd.random() < 0.5:
        del toks[rnd.choice(brackets)]
    else:
        toks.insert(rnd.randrange(len(toks) + 1), rnd.choice("{}()[]"))
    return "".join(toks)


def _m_rename(text: str, rnd: random.Random) -> str:
    toks = tokens(text)
    names = [i for i, t in enumerate(toks) if t[:1].isalpha() or t[:1] == "_"]
    if names:
        i = rnd.choice(names)
        pool = [toks[k] for k in names]
        toks[i] = rnd.choice(UNKNOWN) if rnd.random() < 0.4 else rnd.choice(pool)
    return "".join(toks)


def _m_statement(text: str, rnd: random.Random) -> str:
    points = _body_points(text)
    p = rnd.choice(points) if points else len(text)
    return text[:p] + "\n\t" + rnd.choice(STATEMENTS) + "\n" + text[p:]


def _m_definition(text: str, rnd: random.Random) -> str:
    p = rnd.choice(_top_points(text))
    return text[:p] + rnd.choice(DEFINITIONS) + "\n" + text[p:]


def _m_call_unknown(text: str, rnd: random.Random) -> str:
    """A call to a function turned into a call to an unknown one."""
    calls = [m for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text)]
    if not calls:
        return text
    m = rnd.choice(calls)
    return text[: m.start(1)] + rnd.choice(UNKNOWN) + text[m.end(1) :]


def _m_memory_order(text: str, rnd: random.Random) -> str:
    orders = [m for m in re.finditer(r"memory_order_\w+", text)]
    if not orders:
        return _m_statement(text, rnd)
    m = rnd.choice(orders)
    bad = rnd.choice(
        ("memory_order_bogus", "7", "memory_order_acquire", "memory_order_release", "x")
    )
    return text[: m.start()] + bad + text[m.end() :]


MUTATIONS: dict[str, Callable[[str, random.Random], str]] = {
    "delete": _m_delete,
    "duplicate": _m_duplicate,
    "swap": _m_swap,
    "truncate": _m_truncate,
    "unbalance": _m_unbalance,
    "rename": _m_rename,
    "statement": _m_statement,
    "definition": _m_definition,
    "unknown-call": _m_call_unknown,
    "memory-order": _m_memory_order,
}


def seeds() -> list[tuple[str, str, str]]:
    """(name, kind, text) of every seed."""
    out = [(name, "program", text) for name, text in sorted(SEEDS.items())]
    for p in sorted((EXAMPLES / "programs").glob("*.c")):
        out.append((p.name, "program", p.read_text()))
    for p in sorted((EXAMPLES / "c").glob("*.litmus")):
        out.append((p.name, "litmus", p.read_text()))
    return out


def cases(count: int, seed: int, heavy: bool = False) -> list[Case]:
    """``count`` mutants, the same for the same seed (``heavy``: one in ten gets a
    definition of :data:`HEAVY`)."""
    rnd = random.Random(seed)
    pool = seeds()
    names = sorted(MUTATIONS)
    out = []
    for _ in range(count):
        name, kind, text = rnd.choice(pool)
        applied = []
        for _ in range(rnd.randint(1, 3)):
            m = rnd.choice(names)
            text = MUTATIONS[m](text, rnd)
            applied.append(m)
        if heavy and rnd.random() < 0.1:
            text = rnd.choice(HEAVY) + "\n" + text
            applied.append("heavy")
        out.append(Case(text, kind, name, tuple(applied), options(kind, rnd)))
    return out


#: Models a mutant runs under; ``verify`` also draws from :data:`VERIFY_FLAGS`.
C_MODELS = ("tso", "sc", "rc11", "ra", "pso")
#: ``verify``'s options beside the model, each drawn with its chance.
VERIFY_FLAGS: tuple[tuple[float, tuple[str, ...]], ...] = (
    (0.3, ("--unroll", "0", "1", "2", "3", "8")),
    (0.25, ("--no-genmc-variants",)),
    (0.15, ("--disable-race-detection",)),
    (0.1, ("--disable-sr",)),
    (0.1, ("--keep-going",)),
    (0.15, ("--engine", "trust", "reference", "operational")),
)


def options(kind: str, rnd: random.Random) -> tuple[str, ...]:
    """A mutant's options: a model (none, one program in five: verify's default by the
    program) and, for programs, some of :data:`VERIFY_FLAGS` with a value each."""
    out: list[str] = []
    if kind == "litmus" or rnd.random() < 0.8:
        out += ["--model", rnd.choice(C_MODELS)]
    if kind == "program":
        for chance, (flag, *values) in VERIFY_FLAGS:
            if rnd.random() < chance:
                out += [flag, rnd.choice(values)] if values else [flag]
    return tuple(out)


def command(case: Case, path: Path) -> list[str]:
    """The herdsman command line for a mutant (``--timeout``: CPU seconds)."""
    if case.kind == "program":
        return ["verify", str(path), *case.options, "--timeout", "20"]
    return ["run", *case.options, "--timeout", "20", str(path)]


def problem(path: str, rc: int, out: str, err: str, valid: tuple[int, ...]) -> str | None:
    """Why a run's exit status and output break the bad-input rules, if they do: exit
    status 2 wants one error line at the mutant (``path``), or at the model an engine
    refuses (README: ``MODEL:0:0: error: ... (for PATH)``)."""
    if "Traceback" in out + err or "internal error" in out + err:
        return "internal error"
    lines = [line for line in err.splitlines() if line.strip()]
    if rc == 2:
        if len(lines) != 1:
            return f"exit status 2 with {len(lines)} lines on stderr (want exactly 1)"
        own = rf"^{re.escape(path)}:\d+:\d+: error: .+"
        # README: an engine's refusal of a model points at the model, naming the program
        model = rf"^({'|'.join(C_MODELS)}):0:0: error: .+ \(for {re.escape(path)}\)$"
        if not (re.match(own, lines[0]) or re.match(model, lines[0])):
            return "a message not in FILE:LINE:COL: error: form"
        return None
    if rc not in valid:
        return f"exit status {rc}"
    return None


class CWork(Work[Case]):
    """Run mutant ``i`` in a worker: write it, run it under the harness's guards, judge it
    (the harness's rules, then exactly one error line naming the mutant), keep it only
    when it failed."""

    def run(self, i: int, case: Case) -> tuple[str, str | None]:
        suffix = ".c" if case.kind == "program" else ".litmus"
        path = self.keep / f"case-{self.seed}-{i}{suffix}"
        path.write_text(case.text)
        argv = command(case, path)
        result = run_case(argv, self.guard)
        valid = (0, 3, 42) if case.kind == "program" else (0, 3)
        why = judge(argv[0], result, (*valid, 2)) or problem(
            str(path), result.rc or 0, result.out, result.err, valid
        )
        kind = "programs" if case.kind == "program" else "litmus tests"
        label = f"{kind} with status {result.rc}"
        if why is None:
            path.unlink()
            return label, None
        muts = "+".join(case.mutations)
        opts = " ".join(case.options)
        return label, f"{path}: {why} (from {case.seed} by {muts}, {opts}): {result.err[:300]!r}"


def main(argv: list[str] | None = None) -> int:
    ap = arguments(__doc__, "herdsman-fuzz-c")
    ap.add_argument("--heavy", action="store_true", help="also programs with huge arrays")
    args = ap.parse_args(argv)
    shown, failed = run_all(CWork(cases(args.count, args.seed, args.heavy), args), args)
    print(f"{args.count} mutated C files: {shown}; {failed} broke the rules")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
