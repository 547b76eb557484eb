"""herdsman's TruSt beside GenMC and Nidhugg on the peers' benchmark families (issue 15).

Rows: SB+NW with fences under sc, tso and rc11 (N = 0..10), the RSMC paper's Fig. 11
family without fences under tso and rc11 (N = 0..10; relaxed atomics: under rc11 C11's
own semantics, GenMC's default), the counter family (N threads ``r = c;
c = r + 1``, N = 2..6) under sc, and GenMC's own small programs (``--families genmc``:
``tests/correct/litmus`` of GenMC v0.11, from ``../shared/anchors/src``, extracted as
``bench/genmc_suite.py`` does) under rc11.  The families' programs are the peers' own,
written in GenMC's C dialect by ``../shared/anchors/gen_families.py``; herdsman reads
them as they are, and checks rc11 as ``verify`` does (GenMC's variants of the model).

For each row: herdsman's complete executions, CPU time of the exploration (the program
is read first, outside the timing, as the peers' checkers are timed on compiled IR) and
peak memory (each row runs in a fresh subprocess: its own peak RSS); then each peer's
count, time and the ratio herdsman / peer.  A peer runs when its binary is found
(``GENMC`` / ``NIDHUGG`` environment variables or PATH: ``genmc``, ``nidhuggc``);
otherwise its figure recorded on this machine kind in ``../shared/anchors/README.md`` is
printed, marked ``(recorded)``, where the README has one.

    python bench/bench_peers.py [--max-n 10] [--families sbnw,fig11,counter,genmc]
                                [--models sc,tso,rc11] [--timeout S]

Exit status 1 when a count differs from a peer's (run or recorded).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANCHORS = HERE.parent.parent / "shared" / "anchors"


#: GenMC's own small programs (``tests/correct/litmus/NAME/variants/*.c``), run as rows.
GENMC_PROGRAMS = (
    "viktor-relseq",
    "IRIWish",
    "WWmerge1",
    "IRIW-acq-sc",
    "rel-B-cumul-acq",
    "LB+incMPs",
    "MPU2+rel+acq",
    "MPU2+relf+acqf",
    "MP2",
    "cumul-release",
    "isa2",
    "peterZ",
)


@dataclass(frozen=True)
class Row:
    family: str  # sbnw | fig11 | counter | genmc
    model: str  # sc | tso | rc11
    n: int  # N, or the index of a GenMC program

    @property
    def program(self) -> str:
        """The generator's file name for this row (GenMC's dialect), or a GenMC
        program's folder under its ``tests/correct/litmus``."""
        if self.family == "genmc":
            return GENMC_PROGRAMS[self.n]
        stem = {"sbnw": "sbnw_f_genmc", "fig11": "fig11_nf_genmc", "counter": "inc_genmc"}
        return f"{stem[self.family]}_N{self.n:02d}.c"

    @property
    def title(self) -> str:
        if self.family == "genmc":
            return f"GenMC {self.program} {self.model}"
        name = {"sbnw": "SB+NW+fences", "fig11": "Fig. 11 (no fences)", "counter": "counter"}
        return f"{name[self.family]} {self.model} N={self.n}"


def rows(families: list[str], max_n: int) -> list[Row]:
    out: list[Row] = []
    if "sbnw" in families:
        out += [Row("sbnw", m, n) for m in ("sc", "tso", "rc11") for n in range(max_n + 1)]
    if "fig11" in families:
        out += [Row("fig11", m, n) for m in ("tso", "rc11") for n in range(max_n + 1)]
    if "counter" in families:
        out += [Row("counter", "sc", n) for n in range(2, min(max_n, 6) + 1)]
    if "genmc" in families:
        out += [Row("genmc", "rc11", i) for i in range(len(GENMC_PROGRAMS))]
    return out


# ----------------------------------------------------------------------------- herdsman


def one(path: str, model: str) -> dict[str, float]:
    """Explore one program with TruSt in this process: executions, CPU s, peak RSS MB."""
    from herdsman.cat.api import GENMC_VARIANTS, load_model
    from herdsman.engine.run import RunOptions, run_program
    from herdsman.litmus.c import load_c_program

    m = load_model(model, variants=GENMC_VARIANTS)  # as verify: GenMC's rc11 and ra
    program = load_c_program(path, m.identity.target, {}, [])
    assert m.axioms is not None  # compiled before the timing
    t0 = time.process_time()
    out = run_program(program, m, RunOptions(engine="trust"))
    cpu = time.process_time() - t0
    count = sum(c.executions for c in out.states.values())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"count": count, "cpu": cpu, "peak_mb": peak}


def herdsman_row(path: Path, model: str, timeout: float) -> dict[str, float] | None:
    cmd = [sys.executable, __file__, "--one", str(path), model]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- peers


def peer_binary(env: str, name: str) -> str | None:
    return os.environ.get(env) or shutil.which(name)


def run_peer(cmd: list[str], count: str, timeout: float) -> tuple[int, float, float] | None:
    """Run a peer's checker: the count its output gives (regex ``count``), its CPU time
    (user + system) and its peak memory (MB)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        out = proc.stdout.read()
        _, status, ru = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    m = re.search(count, out)
    if m is None:
        return None
    return int(m.group(1)), ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def genmc_bitcode(binary: str, path: Path) -> Path | None:
    """``path`` compiled to LLVM IR as GenMC's driver compiles it (its ``main.cpp``), by
    ``CLANG`` or ``clang-14``/``clang`` on PATH: GenMC's checker is then timed alone
    (``-input-from-bitcode-file``), as the anchors README measures it."""
    clang = os.environ.get("CLANG") or shutil.which("clang-14") or shutil.which("clang")
    include = Path(binary).resolve().parent.parent / "include" / "genmc" / "include"
    if clang is None or not include.is_dir():
        return None
    out = path.with_suffix(".ll")
    cmd = [clang, "-fno-discard-value-names", "-Xclang", "-disable-O0-optnone", "-g"]
    cmd += [f"-I{include}", "-D__CONFIG_GENMC_INODE_DATA_SIZE=64", "-S", "-emit-llvm"]
    done = subprocess.run([*cmd, "-o", str(out), str(path)], capture_output=True)
    return out if done.returncode == 0 else None


def peer_command(peer: str, binary: str, path: Path, model: str) -> tuple[list[str], str]:
    """How the peers' drivers run a program (anchors README), and where the count is."""
    if peer == "GenMC":
        ll = genmc_bitcode(binary, path)
        src = ["-input-from-bitcode-file", str(ll)] if ll is not None else [str(path)]
        cmd = [binary, f"-{model}", "-disable-estimation", *src]
        return cmd, r"Number of complete executions explored: (\d+)"
    return [binary, "--", f"--{model}", str(path)], r"Trace count: (\d+)"


#: The README's table for each family, by the bold title that opens it.
TABLES = {"fig11": "RSMC paper Fig. 11", "sbnw": "SB+NW with fences", "counter": "Counter"}


def recorded() -> dict[tuple[str, str, int], tuple[int, float]]:
    """The anchors README's figures: (family, column, N) -> (count, seconds)."""
    readme = ANCHORS / "README.md"
    if not readme.is_file():
        return {}
    figures: dict[tuple[str, str, int], tuple[int, float]] = {}
    family: str | None = None
    header: list[str] = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        for fam, title in TABLES.items():
            if line.startswith(f"**{title}"):
                family, header = fam, []
        if family is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not header:
            header = cells
            continue
        if not cells[0].isdigit():
            continue
        n = int(cells[0])
        for col, cell in zip(header[1:], cells[1:], strict=False):
            m = re.match(r"(\d+) / ([\d.]+)", cell)
            if m:
                figures[(family, col, n)] = (int(m.group(1)), float(m.group(2)))
    return figures


def peer_columns(row: Row) -> list[tuple[str, str]]:
    """(peer, README column) compared on this row (Nidhugg has no RC11)."""
    peers = ("GenMC",) if row.model == "rc11" else ("GenMC", "Nidhugg")
    return [(p, f"{p} {row.model}") for p in peers]


def genmc_sources() -> Path | None:
    """GenMC's ``tests/correct/litmus`` (extracted as ``bench/genmc_suite.py`` does)."""
    sys.path.insert(0, str(HERE))
    from genmc_suite import DEFAULT_SRC, extract

    return DEFAULT_SRC / "tests" / "correct" / "litmus" if extract(DEFAULT_SRC) else None


# ----------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-n", type=int, default=10)
    ap.add_argument("--families", default="sbnw,fig11,counter")
    ap.add_argument("--models", default="sc,tso,rc11", help="rows of these models only")
    ap.add_argument("--timeout", type=float, default=600.0, help="per row and tool (s)")
    ap.add_argument("--one", nargs=2, metavar=("PROGRAM", "MODEL"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one[0], a.one[1])))
        return 0
    generator = ANCHORS / "gen_families.py"
    if not generator.is_file():
        print(f"skipped: {generator} is absent (../shared/anchors is needed)")
        return 0
    figures = recorded()
    genmc = peer_binary("GENMC", "genmc")
    nidhugg = peer_binary("NIDHUGG", "nidhuggc")
    print(f"peers: GenMC {genmc or '(recorded)'}, Nidhugg {nidhugg or '(recorded)'}")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(generator), tmp], check=True, capture_output=True)
        print(f"{'row':32} {'herdsman':>24} | peers (count / s, ratio)")
        models = a.models.split(",")
        todo = [r for r in rows(a.families.split(","), a.max_n) if r.model in models]
        src = genmc_sources() if any(r.family == "genmc" for r in todo) else None
        for row in todo:
            if row.family == "genmc":
                if src is None:
                    print(f"{row.title:32} {'skipped: no GenMC sources':>24}")
                    continue
                path = next((src / row.program / "variants").glob("*.c"))
            else:
                path = Path(tmp) / row.program
            got = herdsman_row(path, row.model, a.timeout)
            if got is None:
                print(f"{row.title:32} {'timeout or error':>24}")
                continue
            mine = f"{int(got['count'])} / {got['cpu']:.2f} s {got['peak_mb']:.0f} MB"
            cells = []
            for peer, col in peer_columns(row):
                binary = genmc if peer == "GenMC" else nidhugg
                mem = ""
                if binary:
                    cmd, count = peer_command(peer, binary, path, row.model)
                    ran = run_peer(cmd, count, a.timeout)
                    if ran is None:
                        cells.append(f"{peer} timeout or error")
                        continue
                    theirs, secs, peak = ran
                    mark, mem = "", f" {peak:.0f} MB"
                else:
                    rec = figures.get((row.family, col, row.n))
                    if rec is None:
                        continue
                    (theirs, secs), mark = rec, " (recorded)"
                if theirs != int(got["count"]):
                    bad += 1
                    mark += " COUNT DIFFERS"
                ratio = got["cpu"] / secs if secs > 0 else float("inf")
                cells.append(f"{peer} {theirs} / {secs:.2f} s{mem}, {ratio:.1f}x{mark}")
            print(f"{row.title:32} {mine:>24} | " + "; ".join(cells))
    print(f"counts differing from a peer: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
