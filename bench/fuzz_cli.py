"""Command-line fuzzing of every ``herdsman`` command: random option sets with good and
hostile values (numbers out of range or not numbers, ``nan``, huge, empty, very long,
outputs aimed at ``/dev/full``, a directory or a missing folder, inputs that are not
there) and good or hostile inputs must give a result or clean error lines with an exit
status the README documents, never a traceback, an internal error, a hang or a run over
2 GB (:mod:`fuzz_harness`).

    python bench/fuzz_cli.py --count 2000 --seed 1 --jobs 2

Each case runs in a folder of its own (the working directory, where relative outputs go,
with an ``@index`` file and a ``-conf`` file).  Every command is drawn: ``parse``, ``cat
check``, ``run``, ``herd7``, ``validate``, ``diff``, ``verify``, ``fences``, ``explain``
and ``serve`` (whose server is replaced by a recorder: only its command line is fuzzed).
Each failing case is listed with its command line; the exit status is 1 when any failed.
"""

from __future__ import annotations

import os
import random
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"
EX = ROOT / "litmus" / "examples"

sys.path.insert(0, str(HERE))  # fuzz_harness, when run from elsewhere
from fuzz_harness import Work, arguments, judge, run_all, run_case  # noqa: E402

from herdsman.herd_compat.serve import app  # noqa: E402

#: Values no option should take silently.
HOSTILE = (
    "",
    "-1",
    "0",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "99999999999999999999",
    "9" * 5000,
    "0x10",
    "1.5",
    "abc",
    "x" * 300,
    "/dev/full",
    "/",
    "no/such/dir/f",
    "--",
    "-",
    "é☃",
    "a b",
    "%s%n",
    "@",
    "=",
    ",",
)

LITMUS = (
    EX / "ppc" / "MP.litmus",
    EX / "x86" / "SB.litmus",
    EX / "c" / "MP+rel+acq.litmus",
    ROOT / "tests" / "data" / "aarch64" / "e1.litmus",
    ROOT / "tests" / "data" / "x86_64" / "SB.litmus",
    SHARED / "riscv" / "tests" / "BASIC_2_THREAD" / "MP.litmus",
    SHARED / "arm" / "tests" / "SB.litmus",
)
PROGRAMS = (
    EX / "programs" / "counter.c",
    EX / "programs" / "tas_lock.c",
    EX / "programs" / "peterson.c",
    EX / "programs" / "ticket_lock_fenced.c",
)
MODELS = ("power", "tso", "sc", "arm", "aarch64", "riscv", "rc11", "ra", "x86tso", "pso", "tso64")

#: Good values of each kind of option value (paths are strings; ``@`` is the case folder).
GOOD: dict[str, tuple[str, ...]] = {
    "int": ("1", "2", "3"),
    "seconds": ("5", "2.5", "10"),
    "mb": ("512", "1024", "2048"),
    "model": (*MODELS, str(ROOT / "cat" / "models" / "sc.cat")),
    "dir": (str(ROOT / "cat" / "models"), "@"),
    "variant": ("mixed", "SwitchDepScWrite", "nope"),
    "engine": ("auto", "reference", "trust", "rsmc", "operational"),
    "out_dir": ("@/out", "@"),
    "out_file": ("@/out.json", "@/report"),
    "db": ("@/c.sqlite",),
    "bell": (str(SHARED / "linux" / "cats" / "linux-kernel.bell"),),
    "macros": (str(SHARED / "linux" / "cats" / "linux-kernel.def"),),
    "conf": ("@/k.cfg",),
    "expect": (str(SHARED / "x86" / "herd7-tests-x86tso.log"), "@/expect.txt"),
    "state": ("1:r0=1; 1:r1=0;", "0:EAX=0; 1:EAX=0;", "x=1"),
    "define": ("N=2", "N", "N=99999999999999999999"),
    "host": ("127.0.0.1", "localhost", "::1"),
    "show": ("prop", "neg", "all", "none"),
    "through": ("all", "invalid", "none"),
    "format": ("dot", "svg", "png"),
    "bool": ("true", "false"),
    "scheduler": ("tcp://127.0.0.1:1", "nowhere:0"),
    "unroll": ("0", "1", "2", "5", "64"),
    "reduction": ("dpor", "none"),
    "speedcheck": ("false", "true", "fast"),
    "target": ("tso", "pso", "power", "c"),
    "none": (),
}


@dataclass(frozen=True)
class Command:
    """A command: its words, options (name, value kind) and positional inputs' kinds."""

    words: tuple[str, ...]
    options: tuple[tuple[str, str], ...]
    inputs: tuple[str, ...]


_LIMITS = (("--timeout", "seconds"), ("--max-memory", "mb"))
_CAT = (("-I", "dir"), ("--variant", "variant"), ("--bell", "bell"), ("--macros", "macros"))
_CAMPAIGN = (
    ("--db", "db"),
    ("--resume", "none"),
    ("--engine", "engine"),
    ("--jobs", "int"),
    ("--progress", "none"),
    ("--no-progress", "none"),
    ("--scheduler", "scheduler"),
    ("--connect-timeout", "seconds"),
    ("--conf", "conf"),
)

COMMANDS = (
    Command(("parse",), (("--json", "none"), *_LIMITS), ("litmus", "litmus")),
    Command(
        ("cat", "check"),
        (("-I", "dir"), ("--variant", "variant"), ("--arch", "arch"), ("--bell", "bell"), *_LIMITS),
        ("model", "model"),
    ),
    Command(
        ("run",),
        (
            ("--model", "model"),
            *_CAT,
            ("--conf", "conf"),
            ("--skipchecks", "int"),
            ("--through", "none"),
            ("--engine", "engine"),
            ("--unroll", "unroll"),
            ("--buffer-bound", "int"),
            ("--stateful", "none"),
            ("--reduction", "reduction"),
            ("--show", "show"),
            ("--nshow", "int"),
            ("--candidates", "none"),
            ("--preemption-bound", "int"),
            ("--print-executions", "none"),
            ("--speedcheck", "speedcheck"),
            ("--progress", "none"),
            ("-o", "out_dir"),
            ("--format", "format"),
            ("--json", "none"),
            *_LIMITS,
        ),
        ("litmus", "litmus"),
    ),
    Command(
        ("herd7",),
        (
            ("-model", "model"),
            ("-I", "dir"),
            ("-bell", "bell"),
            ("-macros", "macros"),
            ("-variant", "variant"),
            ("-show", "show"),
            ("-nshow", "int"),
            ("-showone", "bool"),
            ("-o", "out_dir"),
            ("-suffix", "variant"),
            ("-through", "through"),
            ("-skipchecks", "variant"),
            ("-conf", "conf"),
            ("-conds", "expect"),
            ("-speedcheck", "bool"),
            ("-candidates", "bool"),
            ("-unroll", "unroll"),
            ("-timeout", "seconds"),
            ("-max-memory", "mb"),
            ("-graph", "variant"),
            ("-squished", "bool"),
            ("-fontsize", "int"),
            ("-xscale", "seconds"),
            ("-dotmode", "variant"),
            ("-format", "format"),
            ("-q", "none"),
            ("-version", "none"),
        ),
        ("litmus", "litmus"),
    ),
    Command(
        ("validate",),
        (
            ("--model", "model"),
            *_CAT,
            *_CAMPAIGN,
            *_LIMITS,
            ("--expect", "expect"),
            ("--expect-column", "int"),
            ("--json", "out_file"),
            ("--junit", "out_file"),
            ("--show-mismatches", "int"),
        ),
        ("litmus", "index"),
    ),
    Command(
        ("diff",),
        (
            ("-o", "out_dir"),
            ("--json", "out_file"),
            *_CAT,
            *_CAMPAIGN,
            *_LIMITS,
            ("--show", "int"),
            ("-1", "none"),
        ),
        ("model", "model", "litmus", "index"),
    ),
    Command(
        ("verify",),
        (
            ("--model", "model"),
            ("--cat-include", "dir"),
            ("--variant", "variant"),
            ("--skipchecks", "int"),
            ("--through", "none"),
            ("--engine", "engine"),
            ("--buffer-bound", "int"),
            ("--stateful", "none"),
            ("--reduction", "reduction"),
            ("--unroll", "unroll"),
            ("--no-unroll", "variant"),
            ("--disable-sr", "none"),
            ("--no-genmc-variants", "none"),
            ("--disable-race-detection", "none"),
            ("--target", "target"),
            ("--progress", "none"),
            ("-D", "define"),
            ("-I", "dir"),
            ("-o", "out_dir"),
            ("--format", "format"),
            ("--json", "none"),
            ("--keep-going", "none"),
            ("--max-bound", "int"),
            ("--max-states", "int"),
            *_LIMITS,
        ),
        ("program", "program"),
    ),
    Command(
        ("fences",),
        (
            ("--model", "model"),
            ("-o", "out_file"),
            ("--json", "none"),
            ("--max-bound", "int"),
            ("--max-states", "int"),
            ("--engine", "engine"),
            ("--unroll", "unroll"),
            ("-D", "define"),
            ("-I", "dir"),
            *_LIMITS,
        ),
        ("program",),
    ),
    Command(
        ("explain",),
        (
            ("--state", "state"),
            ("-o", "out_dir"),
            ("--json", "none"),
            ("--max", "int"),
            *_CAT,
            ("--conf", "conf"),
            *_LIMITS,
        ),
        ("model", "litmus"),
    ),
    Command(("serve",), (("--host", "host"), ("--port", "int")), ()),
)

GOOD["arch"] = ("PPC", "X86", "AArch64", "C", "MIPS")


def good_input(kind: str, rnd: random.Random) -> str:
    if kind == "litmus":
        return str(rnd.choice(LITMUS))
    if kind == "program":
        return str(rnd.choice(PROGRAMS + LITMUS[:2]))
    if kind == "index":
        return rnd.choice(("@@/index", str(rnd.choice(LITMUS)), str(EX / "x86")))
    return rnd.choice(GOOD["model"])


def hostile_input(rnd: random.Random) -> str:
    """A hostile value as an input file.  A directory is an input too (its ``*.litmus``
    files, recursively, each run within ``--timeout``): ``/`` would run every test on the
    machine, work asked for and not a hang, so the root directory is ``/dev`` here (devices,
    FIFOs and links, no test)."""
    v = rnd.choice(HOSTILE)
    return "/dev" if v == "/" else v


def value(kind: str, rnd: random.Random, hostile: float) -> str:
    good = GOOD.get(kind, ())
    return rnd.choice(good) if good and rnd.random() >= hostile else rnd.choice(HOSTILE)


#: Options a command needs to get past its command line (added when not drawn).
NEEDED = {"fences": ("--model", "model"), "validate": ("--expect", "expect")}


def argv_of(rnd: random.Random) -> list[str]:
    """A random command line (``@`` in a value: the case's folder); one in three has only
    good values, so that the runs get past the command line too."""
    cmd = rnd.choice(COMMANDS)
    hostile = rnd.choice((0.0, 0.25, 0.5))
    argv = list(cmd.words)
    chosen = rnd.sample(cmd.options, k=min(len(cmd.options), rnd.randint(0, 4)))
    need = NEEDED.get(cmd.words[0])
    if need is not None and all(o != need[0] for o, _ in chosen):
        chosen.append(need)
    for opt, kind in chosen:
        if kind == "none":
            argv.append(opt)
        elif rnd.random() < hostile / 5:
            argv.append(opt)  # a missing value
        else:
            argv += [opt, value(kind, rnd, hostile)]
    names = {o for o, _ in chosen}
    if "--timeout" not in names and "-timeout" not in names and cmd.words[0] != "serve":
        argv += ["-timeout" if cmd.words[0] == "herd7" else "--timeout", "10"]
    for k, kind in enumerate(cmd.inputs):
        if k > 0 and kind == cmd.inputs[k - 1] and rnd.random() < 0.5:
            continue  # one input of a kind, or two
        argv.append(good_input(kind, rnd) if rnd.random() >= hostile / 2 else hostile_input(rnd))
    if rnd.random() < hostile / 10:
        argv.insert(rnd.randrange(1, len(argv) + 1), rnd.choice(("--bogus", "-h", "--help")))
    return argv


def cases(count: int, seed: int) -> list[list[str]]:
    """``count`` command lines, the same for the same seed."""
    rnd = random.Random(seed)
    return [argv_of(rnd) for _ in range(count)]


def _recorded_serve(host: str, port: int) -> None:
    """Stands for the server in the fuzzer: the command line got as far as serving."""


def prepare(folder: Path) -> None:
    """A case's folder: an index of tests, a ``-conf`` file, a verdict table."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index").write_text("\n".join(str(p) for p in LITMUS[:3]) + "\n")
    (folder / "k.cfg").write_text("model tso\nspeedcheck true\n")
    (folder / "expect.txt").write_text("MP Allowed\nSB Allowed\n")


def _here(arg: str, folder: Path) -> str:
    """``arg`` with a leading ``@`` (``@@``: an index) read as the case's folder."""
    if arg.startswith("@@"):
        return "@" + str(folder) + arg[2:]
    return str(folder) + arg[1:] if arg.startswith("@") and len(arg) > 1 else arg


class CliWork(Work[list[str]]):
    """Run case ``i`` in a worker, in its own folder (removed when nothing failed)."""

    def run(self, i: int, case: list[str]) -> tuple[str, str | None]:
        folder = self.keep / f"case-{self.seed}-{i}"
        shutil.rmtree(folder, ignore_errors=True)
        prepare(folder)
        argv = [_here(a, folder) for a in case]
        here = Path.cwd()
        os.chdir(folder)
        try:
            result = run_case(argv, self.guard)
        finally:
            os.chdir(here)
        why = judge(argv[0], result)
        label = f"{' '.join(case[: 2 if argv[0] == 'cat' else 1])} status {result.rc}"
        if why is None:
            shutil.rmtree(folder, ignore_errors=True)
            return label, None
        return label, f"{why}: herdsman {shlex.join(argv)[:400]}: {result.err[:300]!r}"


def main(argv: list[str] | None = None) -> int:
    args = arguments(__doc__, "herdsman-fuzz-cli").parse_args(argv)
    serve, app.serve = app.serve, _recorded_serve
    try:
        shown, failed = run_all(CliWork(cases(args.count, args.seed), args), args)
    finally:
        app.serve = serve
    print(f"{args.count} command lines: {shown}; {failed} broke the rules")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
