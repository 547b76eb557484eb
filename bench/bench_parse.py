"""Parse every POWER and X86 test of ../shared in one process; check and time it.

Checks, for every test: it parses, ``parse(print(t)) == t``, and herd's hash and condition
text equal the ones in herd7's logs.  Times (CPU, ``time.process_time``), per test:

- ``campaign``: one pass in a fresh process, caches filling as they go (what a campaign
  pays: sections and cells repeat across tests and are parsed once);
- ``warm``: a second pass (caches full);
- ``uncached``: caches cleared before every test (the cost of a test seen alone).

The target is about 1 ms per test; the ratios printed are measured time / target.

    python bench/bench_parse.py [--shared DIR] [--sample N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from herdsman.litmus.hash import herd_hash
from herdsman.litmus.parser import parse_file, parse_text
from herdsman.litmus.printer import herd_condition_text, print_test
from herdsman.litmus.quickstate import _atom
from herdsman.litmus.state import _parse_section
from herdsman.litmus.table import _column, _lower_cell

ROOT = Path(__file__).resolve().parent.parent

TARGET_MS = 1.0
# (test directory, its log): X86 and POWER test names overlap (MP, SB...), so per directory
LOGS = [
    (("power", "tests"), ("power", "herd7-ppc.log")),
    (("x86", "tests"), ("x86", "herd7-tests-x86tso.log")),
    (("x86", "generated"), ("x86", "generated", "herd7-x86tso.log")),
]


def clear_caches() -> None:
    _parse_section.cache_clear()
    _lower_cell.cache_clear()
    _column.cache_clear()
    _atom.cache_clear()


def log_records(path: Path) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    name = cond = ""
    for line in path.read_text().splitlines():
        if line.startswith("Test "):
            name = line.split()[1]
        elif line.startswith("Condition "):
            cond = line[len("Condition ") :]
        elif line.startswith("Hash="):
            out[name] = (line[len("Hash=") :], cond)
    return out


def timed(files: list[Path], clear_each: bool = False) -> float:
    """CPU seconds to parse ``files`` (caches cleared before each one if asked)."""
    total = 0.0
    for f in files:
        if clear_each:
            clear_caches()
        t0 = time.process_time()
        parse_file(f)
        total += time.process_time() - t0
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--sample", type=int, default=0, help="only about N tests (0: all)")
    args = ap.parse_args(argv)
    power = sorted((args.shared / "power" / "tests").glob("*.litmus"))
    x86 = sorted((args.shared / "x86" / "tests").glob("*.litmus"))
    x86 += sorted((args.shared / "x86" / "generated").glob("*.litmus"))
    if not power or not x86:
        print(f"no tests under {args.shared}", file=sys.stderr)
        return 2
    files = power + x86
    if args.sample:
        step = max(1, len(files) // args.sample)
        files = files[::step]
    records: dict[Path, dict[str, tuple[str, str]]] = {}
    for tests, log in LOGS:
        records[args.shared.joinpath(*tests)] = log_records(args.shared.joinpath(*log))

    clear_caches()
    campaign = timed(files)
    warm = timed(files)
    uncached = timed(files, clear_each=True)

    bad: list[str] = []
    for f in files:
        t = parse_file(f)
        if parse_text(print_test(t), "printed") != t:
            bad.append(f"{f.name}: print/parse round trip differs")
        rec = records[f.parent].get(t.name)
        if rec is None:
            bad.append(f"{f.name}: not in the logs")
        elif (herd_hash(t), herd_condition_text(t.condition)) != rec:
            bad.append(f"{f.name}: hash or condition differs from herd's log")

    n = len(files)
    print(
        f"tests: {n} ({sum(1 for f in files if f in set(power))} POWER, "
        f"{sum(1 for f in files if f not in set(power))} X86); round trip, hash and "
        f"condition text checked: {n - len(bad)} ok, {len(bad)} bad"
    )
    for what, secs in (("campaign", campaign), ("warm", warm), ("uncached", uncached)):
        ms = 1000 * secs / n
        print(
            f"{what:9s} {secs:7.2f} s CPU  {ms:6.3f} ms/test  ratio to {TARGET_MS:g} ms target: "
            f"{ms / TARGET_MS:5.2f}"
        )
    for line in bad[:20]:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
