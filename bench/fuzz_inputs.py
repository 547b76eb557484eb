"""Malformed-input fuzzing of litmus tests of every architecture herdsman reads (PPC, X86,
X86_64, ARM, AArch64, RISC-V, C): each mutant, run by ``herdsman run`` under its
architecture's model (or, one time in four, another built-in model) and one of the
engines, must give a result or ``FILE:LINE:COL: error: ...`` lines with exit status 2
(3 at a limit), never a traceback, an internal error, a hang or a run over 2 GB
(:mod:`fuzz_harness`).

    python bench/fuzz_inputs.py --count 2000 --seed 1 --jobs 2

Seeds: the bundled examples and a sample of the shared tests of each architecture (when
``../shared`` is there), so that every architecture has seeds; each architecture is drawn
as often as the others.  Mutations (one to three
per test): delete a few characters, insert a token (of any architecture), duplicate a
line, truncate, replace a word by another of the test.  Each failing input is kept in
``--keep`` and listed; the exit status is 1 when any failed.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"
ROOT = HERE.parent

sys.path.insert(0, str(HERE))  # fuzz_harness, when run from elsewhere
from fuzz_harness import Work, arguments, judge, mutate, run_all, run_case  # noqa: E402

TOKENS = (
    "(",
    ")",
    "{",
    "}",
    ";",
    "|",
    "[",
    "]",
    "=",
    ":",
    ",",
    "0x",
    "%",
    "exists",
    "forall",
    "~",
    "/\\",
    "\\/",
    "P0",
    "lwz",
    "MOV",
    "-1",
    "99999999999999999999",
    "\t",
    "\n",
    '"',
    "(*",
    "*)",
    "$",
    "EAX",
    "[x]",
    "MFENCE",
    "sync",
    "LC00",
    "beq",
    "cmpw",
    "LDR",
    "STR",
    "W0",
    "X1",
    "[X1]",
    "DMB",
    "ISH",
    "ld",
    "sd",
    "fence",
    "rw,rw",
    "x5",
    "0(x6)",
    "RAX",
    "MOVQ",
    "r0",
    "dmb",
    "READ_ONCE(*x)",
    "WRITE_ONCE(*y, 1)",
    "atomic_load_explicit(x, memory_order_acquire)",
    "int",
    "*",
    "P0(int *x)",
    "smp_mb();",
    "->",
    # AMOs, exclusives and addressing modes of the RISC-V, AArch64 and ARM assemblers
    "amoswap.w.aq.rl",
    "amoadd.d",
    "lr.w",
    "sc.w.rl",
    "fence.tso",
    "fence r,w",
    "LDAXR",
    "STLXR W5,W2,[X1]",
    "CAS W0,W1,[X2]",
    "SWPAL",
    "[X1,#8]",
    "[X1,W2,SXTW]",
    "CBNZ",
    "LSL #3",
    "ldrex",
    "strex r2,r1,[r0]",
    "dmb ish",
)

#: Seeds per architecture: (folders or files, every k-th file), and the built-in models
#: meant for it.
ARCHES: dict[str, tuple[tuple[str, ...], int, tuple[str, ...]]] = {
    "PPC": (("litmus/examples/ppc", "shared:power"), 40, ("power", "ppc")),
    "X86": (("litmus/examples/x86", "litmus/examples/tso", "shared:x86"), 5, ("tso", "x86tso")),
    "X86_64": (("tests/data/x86_64",), 1, ("tso64", "x86tso-mixed")),
    "ARM": (("shared:arm",), 60, ("arm",)),
    "AArch64": (("tests/data/aarch64", "shared:aarch64"), 30, ("aarch64",)),
    "RISCV": (("shared:riscv",), 50, ("riscv",)),
    "C": (("litmus/examples/c", "shared:c11", "shared:linux"), 1, ("rc11", "sc", "ra")),
}

#: Every built-in model, for the runs under a model not meant for the test.
MODELS = ("power", "tso", "sc", "pso", "arm", "aarch64", "riscv", "rc11", "ra", "tso64")
ENGINES = ("auto", "reference", "trust")


def corpus() -> list[tuple[str, Path]]:
    """(architecture, file) of every seed: the bundled examples and every k-th shared
    test of each architecture."""
    out = []
    for arch, (places, every, _) in ARCHES.items():
        for place in places:
            shared = place.startswith("shared:")
            folder = SHARED / place[7:] if shared else ROOT / place
            if folder.is_dir():
                files = sorted(folder.rglob("*.litmus"))
                out += [(arch, f) for f in (files[::every] if shared else files)]
    return out


@dataclass(frozen=True)
class Case:
    """One mutant: its text, architecture, seed file, model and engine."""

    text: str
    arch: str
    seed: str
    model: str
    engine: str


def cases(count: int, seed: int) -> list[Case]:
    """``count`` mutants, the same for the same seed."""
    rnd = random.Random(seed)
    files = corpus()
    out = []
    arches = sorted({arch for arch, _ in files})
    for _ in range(count):
        arch = rnd.choice(arches)  # each architecture as often, whatever its seeds
        arch, path = rnd.choice([(a, f) for a, f in files if a == arch])
        text = mutate(path.read_text(), rnd, TOKENS)
        meant = ARCHES[arch][2]
        model = rnd.choice(meant) if rnd.random() < 0.75 else rnd.choice(MODELS)
        out.append(Case(text, arch, path.name, model, rnd.choice(ENGINES)))
    return out


class LitmusWork(Work[Case]):
    """Run case ``i`` in a worker: write it, run it, keep it only when it failed."""

    def run(self, i: int, case: Case) -> tuple[str, str | None]:
        path = self.keep / f"case-{self.seed}-{i}.litmus"
        path.write_text(case.text)
        argv = ["run", "--model", case.model, "--engine", case.engine, "--timeout", "10"]
        result = run_case([*argv, str(path)], self.guard)
        why = judge("run", result)
        if why is None:
            path.unlink()
            return f"{case.arch} status {result.rc}", None
        text = (
            f"{path}: {why} ({case.arch} from {case.seed}, {' '.join(argv)}): {result.err[:300]!r}"
        )
        return f"{case.arch} status {result.rc}", text


def main(argv: list[str] | None = None) -> int:
    args = arguments(__doc__, "herdsman-fuzz").parse_args(argv)
    work = LitmusWork(cases(args.count, args.seed), args)
    shown, failed = run_all(work, args)
    arches = len({c.arch for c in work.cases})
    print(
        f"{args.count} mutated tests of {arches} architectures from {len(corpus())}: "
        f"{shown}; {failed} broke the rules"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
