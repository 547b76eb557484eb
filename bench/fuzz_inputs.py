"""Malformed-input fuzzing of ``herdsman run``: mutated litmus tests must give a result or
``FILE:LINE:COL: error: ...`` lines with exit status 2, never a traceback or an internal
error.

    python bench/fuzz_inputs.py --count 2000 --seed 1

Mutations (one to three per test): delete a few characters, insert a token, duplicate a
line, truncate, replace a word by another of the test. Each failing input is kept in
``--keep`` and listed; the exit status is 1 when any failed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import sys
import tempfile
from pathlib import Path

from herdsman.herd_compat.cli.main import main as herdsman_main

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"

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
)

#: What a line on stderr may look like when the exit status is 2.
ERROR_LINE = re.compile(r"^(\S+:\d+:\d+: (error|warning): |herdsman run: (error|warning): )")


def corpus() -> list[Path]:
    """The bundled examples, every 40th shared POWER test and every 5th shared X86 test."""
    files = sorted((HERE.parent / "litmus" / "examples").rglob("*.litmus"))
    if SHARED.is_dir():
        files += sorted((SHARED / "power").rglob("*.litmus"))[::40]
        files += sorted((SHARED / "x86").rglob("*.litmus"))[::5]
    return files


def mutate(src: str, rnd: random.Random) -> str:
    for _ in range(rnd.randint(1, 3)):
        k = rnd.random()
        p = rnd.randrange(len(src) + 1)
        if k < 0.3:
            src = src[:p] + src[p + rnd.randint(1, 8) :]
        elif k < 0.6:
            src = src[:p] + rnd.choice(TOKENS) + src[p:]
        elif k < 0.75:
            lines = src.split("\n")
            lines.insert(rnd.randrange(len(lines)), rnd.choice(lines))
            src = "\n".join(lines)
        elif k < 0.85:
            src = src[:p]
        else:
            words = re.findall(r"\w+", src)
            if words:
                src = src.replace(rnd.choice(words), rnd.choice(words), 1)
    return src


def problem(rc: int, err: str) -> str | None:
    """Why this run's exit status and stderr break the bad-input rules, if they do."""
    lines = [line for line in err.splitlines() if line.strip()]
    if "internal error" in err or "Traceback" in err:
        return "internal error"
    if rc not in (0, 1, 2):
        return f"exit status {rc}"
    if rc == 2 and not lines:
        return "exit status 2 without a message"
    if rc == 2 and not all(ERROR_LINE.match(line) for line in lines):
        return "a message not in FILE:LINE:COL: error: form"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "herdsman-fuzz")
    args = ap.parse_args(argv)
    rnd = random.Random(args.seed)
    files = corpus()
    args.keep.mkdir(parents=True, exist_ok=True)
    statuses: dict[int, int] = {}
    failed = 0
    for i in range(args.count):
        path = args.keep / f"case-{args.seed}-{i}.litmus"
        path.write_text(mutate(rnd.choice(files).read_text(), rnd))
        model = rnd.choice(("power", "tso", "sc", "pso"))
        engine = rnd.choice(("reference", "trust"))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = herdsman_main(
                ["run", "--model", model, "--engine", engine, "--timeout", "10", str(path)]
            )
        statuses[rc] = statuses.get(rc, 0) + 1
        why = problem(rc, err.getvalue())
        if why is None:
            path.unlink()
            continue
        failed += 1
        print(f"{path}: {why} (--model {model} --engine {engine}): {err.getvalue()[:300]!r}")
    shown = ", ".join(f"{n} with status {rc}" for rc, n in sorted(statuses.items()))
    print(f"{args.count} mutated tests from {len(files)}: {shown}; {failed} broke the rules")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
