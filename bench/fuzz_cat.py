"""Malformed-input fuzzing of cat models, bell files and macro (``.def``) files: each
mutant must give a result or ``FILE:LINE:COL: error: ...`` lines with exit status 2 (3 at
a limit), never a traceback, an internal error, a hang or a run over 2 GB
(:mod:`fuzz_harness`).

    python bench/fuzz_cat.py --count 2000 --seed 1 --jobs 2

Seeds: herdsman's built-in models (``cat/models``) and herd's model folders of the shared
ground truth when ``../shared`` is there (``herd-cat``, AArch64, ARM, RISC-V, C11, and the
Linux kernel's cat, bell and macro files).  A case copies one folder, mutates one of its
files in place (one to three mutations of :func:`fuzz_harness.mutate`) and either checks
the folder's main model (``cat check``, with its bell file) or runs a small test of the
model's architecture under it (``run --model``, with the bell and macro files), so that a
mutated library reaches the parser through ``include``.  Each failing case's folder is
kept in ``--keep`` and listed; the exit status is 1 when any failed.
"""

from __future__ import annotations

import random
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"

sys.path.insert(0, str(HERE))  # fuzz_harness, when run from elsewhere
from fuzz_harness import Work, arguments, judge, mutate, run_all, run_case  # noqa: E402

TOKENS = (
    "let ",
    "let rec ",
    " and ",
    "acyclic ",
    "irreflexive ",
    "empty ",
    " as ",
    "include ",
    '"stdlib.cat"',
    '"nothere.cat"',
    "|",
    "&",
    ";",
    "\\",
    "*",
    "+",
    "?",
    "^-1",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "fun ",
    "->",
    "procedure ",
    "call ",
    "match ",
    "with ",
    " from ",
    "enum ",
    "instructions ",
    "flag ",
    "~",
    "0",
    "_",
    "if ",
    "then ",
    "else ",
    "show ",
    "unshow ",
    "domain(",
    "linearisations(",
    "'a",
    "(*",
    "*)",
    '"',
    "\n",
    ",",
    "=",
    "po",
    "rf",
    "co",
    "fr",
    "W",
    "R",
    "M",
    "F",
    "id",
    "loc",
    "int",
    "ext",
    "99999999999999999999",
    "events ",
    "set ",
    "rel ",
    "end",
    "in ",
    "forall ",
    "do ",
    "undefined_unless ",
    "tag2level",
    "'",
)


@dataclass(frozen=True)
class Group:
    """A folder of model files: its main model, bell and macro files, and a test of its
    architecture (paths relative to ROOT, or to SHARED with ``shared:``)."""

    folder: str
    model: str
    test: str
    bell: str | None = None
    macros: str | None = None


GROUPS = (
    Group("cat/models", "power.cat", "litmus/examples/ppc/MP.litmus"),
    Group("cat/models", "tso.cat", "litmus/examples/x86/SB.litmus"),
    Group("cat/models", "arm.cat", "shared:arm/tests/MP+PPO001.litmus"),
    Group("cat/models", "aarch64.cat", "tests/data/aarch64/e1.litmus"),
    Group("cat/models", "riscv.cat", "shared:riscv/tests/BASIC_2_THREAD/MP+fence.rw.rws.litmus"),
    Group("cat/models", "rc11.cat", "litmus/examples/c/MP+rel+acq.litmus"),
    Group("cat/models", "tso64.cat", "tests/data/x86_64/SB.litmus"),
    Group("shared:herd-cat", "ppc.cat", "litmus/examples/ppc/MP.litmus"),
    Group("shared:herd-cat", "x86tso.cat", "litmus/examples/x86/SB.litmus"),
    Group("shared:herd-cat", "sc.cat", "litmus/examples/x86/SB.litmus"),
    Group("shared:aarch64/cat", "aarch64.cat", "tests/data/aarch64/e1.litmus"),
    Group("shared:arm/cat", "arm.cat", "shared:arm/tests/MP+PPO001.litmus"),
    Group(
        "shared:riscv/cat", "riscv.cat", "shared:riscv/tests/BASIC_2_THREAD/MP+fence.rw.rws.litmus"
    ),
    Group("shared:c11/cat", "rc11.cat", "litmus/examples/c/MP+rel+acq.litmus"),
    Group(
        "shared:linux/cats",
        "linux-kernel.cat",
        "shared:linux/tests/MP+poonceonces.litmus",
        "linux-kernel.bell",
        "linux-kernel.def",
    ),
)


def place(name: str) -> Path:
    return SHARED / name[7:] if name.startswith("shared:") else ROOT / name


def groups() -> list[Group]:
    """The groups whose folder and test are here."""
    return [g for g in GROUPS if place(g.folder).is_dir() and place(g.test).is_file()]


def files(group: Group) -> list[str]:
    """The model files of a group's folder."""
    folder = place(group.folder)
    return sorted(
        p.name for p in folder.iterdir() if p.suffix in (".cat", ".bell", ".def") and p.is_file()
    )


@dataclass(frozen=True)
class Case:
    """One mutant: its group, the file mutated, its text, and whether it runs a test."""

    group: Group
    name: str
    text: str
    run: bool


def cases(count: int, seed: int) -> list[Case]:
    """``count`` mutants, the same for the same seed."""
    rnd = random.Random(seed)
    pool = groups()
    out = []
    for _ in range(count):
        group = rnd.choices(pool, [4 if g.bell else 1 for g in pool])[0]
        names = files(group)
        main = [n for n in (group.model, group.bell, group.macros) if n]
        name = rnd.choice(main) if rnd.random() < 0.5 else rnd.choice(names)
        text = mutate((place(group.folder) / name).read_text(), rnd, TOKENS)
        out.append(Case(group, name, text, rnd.random() < 0.5 or name == group.macros))
    return out


def command(case: Case, folder: Path) -> list[str]:
    """The herdsman command line of a case whose folder copy is ``folder``."""
    g = case.group
    model = str(folder / g.model)
    bell = ["--bell", str(folder / g.bell)] if g.bell else []
    if not case.run:
        return ["cat", "check", *bell, "--timeout", "10", model]
    macros = ["--macros", str(folder / g.macros)] if g.macros else []
    test = str(place(g.test))
    return ["run", "--model", model, *bell, *macros, "--timeout", "10", test]


class CatWork(Work[Case]):
    """Run case ``i`` in a worker: copy its folder, mutate, run, keep it if it failed."""

    def run(self, i: int, case: Case) -> tuple[str, str | None]:
        folder = self.keep / f"case-{self.seed}-{i}"
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(place(case.group.folder), folder)
        (folder / case.name).write_text(case.text)
        argv = command(case, folder)
        result = run_case(argv, self.guard)
        why = judge(argv[0], result)
        label = f"{'run' if case.run else 'cat check'} status {result.rc}"
        if why is None:
            shutil.rmtree(folder)
            return label, None
        return label, f"{folder / case.name}: {why} ({' '.join(argv)}): {result.err[:300]!r}"


def main(argv: list[str] | None = None) -> int:
    args = arguments(__doc__, "herdsman-fuzz-cat").parse_args(argv)
    work = CatWork(cases(args.count, args.seed), args)
    shown, failed = run_all(work, args)
    kinds = ", ".join(sorted({Path(c.name).suffix for c in work.cases}))
    print(
        f"{args.count} mutated model files ({kinds}) of {len(groups())} folders: {shown}; "
        f"{failed} broke the rules"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
