"""herd's own instruction regression tests (herdtools7's ``herd/tests/instructions``) run
through ``herdsman herd7``, compared with the output herd7 expects.

    python bench/herd_instruction_tests.py [--herdtools7 DIR] [--archs AArch64,ARM,...]
                                           [--jobs 2] [--timeout 30] [--show [same|differ|
                                           refused|all]] [--filter GLOB]

Each folder ``<ARCH>`` holds ``*.litmus`` tests, each with a ``.litmus.expected`` file
(herd7's output without its ``Time`` line) or a ``.litmus.expected-failure`` file (herd7
rejects the test).  herd's Makefile (``internal/herd_regression_test.ml``) runs herd7
with its default model and no other option, except ``C`` with ``-conf
herd/tests/instructions/C/c.cfg``; so does this script, from the tree's root (the
configuration names its model relative to it), each test in-process
(``herdsman.herd_compat.cli.main``) in one of ``--jobs`` worker processes.

A test is *same* when herdsman's output without its ``Time`` line is the expected
text, *differ* when herdsman answers otherwise, *refused* when herdsman rejects it (one
error line, or no output).  A test herd7 rejects is *both refuse* when herdsman does too,
else *answers*.  The table gives the tallies per architecture, then the most frequent
reasons of refusal; ``--show`` lists the tests of a kind with herdsman's first error line
(``refused``) or the first differing line (``differ``).

The tree is ``--herdtools7``, else ``$HERDTOOLS7``; without it the script says so and
exits 0.  Exit status 0.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import io
import os
import re
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from herdsman.herd_compat.cli.main import main as herdsman_main

#: the folders herd's Makefile runs with herd7's defaults, and their extra options
ARCHS: dict[str, tuple[str, ...]] = {
    "AArch64": (),
    "ARM": (),
    "RISCV": (),
    "X86_64": (),
    "PPC": (),
    "C": ("-conf", "herd/tests/instructions/C/c.cfg"),
}
KINDS = ("same", "differ", "refused", "both refuse", "answers")


@dataclass(frozen=True)
class Case:
    arch: str
    litmus: Path
    options: tuple[str, ...]


@dataclass(frozen=True)
class Result:
    arch: str
    name: str
    kind: str
    detail: str


def _stable(text: str) -> list[str]:
    """The lines of an output without herd's unstable ``Time`` line."""
    return [x for x in text.split("\n") if not x.startswith("Time ")]


def _run(case: Case, timeout: float) -> Result:
    """Run one test in this process and classify its output."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["herd7", "-timeout", str(timeout), *case.options, str(case.litmus)]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = herdsman_main(argv)
    expected = case.litmus.with_name(case.litmus.name + ".expected")
    name = case.litmus.stem
    first_err = next((x for x in err.getvalue().splitlines() if x.strip()), "")
    answered = status in (0, 1) and out.getvalue() != ""
    if not expected.exists():
        return Result(case.arch, name, "answers" if answered else "both refuse", first_err)
    if not answered:
        return Result(case.arch, name, "refused", first_err or f"exit status {status}")
    got, want = _stable(out.getvalue()), _stable(expected.read_text())
    if got == want:
        return Result(case.arch, name, "same", "")
    at = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None)
    if at is None:
        at = min(len(got), len(want))
    ours = got[at] if at < len(got) else "<end>"
    herds = want[at] if at < len(want) else "<end>"
    return Result(case.arch, name, "differ", f"line {at + 1}: ours {ours!r}, herd {herds!r}")


def _init_worker(root: str) -> None:
    os.chdir(root)


def _cases(root: Path, archs: list[str], pattern: str) -> list[Case]:
    cases = []
    for arch in archs:
        folder = root / "herd" / "tests" / "instructions" / arch
        for litmus in sorted(folder.glob("*.litmus")):
            has_answer = any(
                litmus.with_name(litmus.name + s).exists()
                for s in (".expected", ".expected-failure")
            )
            if has_answer and fnmatch.fnmatch(litmus.stem, pattern):
                cases.append(Case(arch, litmus.relative_to(root), ARCHS[arch]))
    return cases


def _reason(detail: str) -> str:
    """An error line without its file position and with quoted words kept, numbers not."""
    msg = re.sub(r"^.*?:\d+:\d+: error: ", "", detail)
    return re.sub(r"\b\d+\b", "N", msg)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--herdtools7", default=os.environ.get("HERDTOOLS7"), help="the tree")
    ap.add_argument("--archs", default=",".join(ARCHS), help="folders, comma-separated")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per test")
    ap.add_argument("--filter", default="*", help="test names matching this glob")
    ap.add_argument("--show", nargs="?", const="differ,refused", default="", help="kinds")
    ap.add_argument("--reasons", type=int, default=12, help="most frequent refusals shown")
    a = ap.parse_args(argv)
    if not a.herdtools7 or not (Path(a.herdtools7) / "herd" / "tests").is_dir():
        print("herdtools7's tree not found (--herdtools7 or $HERDTOOLS7): nothing to do")
        return 0
    root = Path(a.herdtools7).resolve()
    archs = [x for x in a.archs.split(",") if x]
    unknown = [x for x in archs if x not in ARCHS]
    if unknown:
        ap.error(f"unknown architecture folder(s) {', '.join(unknown)} (from {', '.join(ARCHS)})")
    cases = _cases(root, archs, a.filter)
    if a.jobs <= 1:  # in this process, from the tree's root
        with contextlib.chdir(root):
            results = [_run(c, a.timeout) for c in cases]
    else:
        with ProcessPoolExecutor(
            max_workers=a.jobs, initializer=_init_worker, initargs=(str(root),)
        ) as pool:
            results = list(pool.map(_run, cases, [a.timeout] * len(cases), chunksize=4))
    _report(results, archs, a)
    return 0


def _report(results: list[Result], archs: list[str], a: argparse.Namespace) -> None:
    show = set(KINDS) if a.show == "all" else {x.strip() for x in a.show.split(",") if x}
    for r in results:
        if r.kind in show:
            print(f"{r.kind:11} {r.arch}/{r.name}  {r.detail}")
    if show:
        print()
    head = f"{'arch':8} {'tests':>5} " + " ".join(f"{k:>11}" for k in KINDS)
    print(head)
    total: Counter[str] = Counter()
    for arch in archs:
        mine = Counter(r.kind for r in results if r.arch == arch)
        total.update(mine)
        n = sum(mine.values())
        print(f"{arch:8} {n:5} " + " ".join(f"{mine[k]:11}" for k in KINDS))
    print(f"{'all':8} {sum(total.values()):5} " + " ".join(f"{total[k]:11}" for k in KINDS))
    reasons = Counter(f"{r.arch}: {_reason(r.detail)}" for r in results if r.kind == "refused")
    if reasons and a.reasons:
        print("\nmost frequent refusals:")
        for why, k in reasons.most_common(a.reasons):
            print(f"{k:5}  {why}")


if __name__ == "__main__":
    sys.exit(main())
