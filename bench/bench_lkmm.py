"""The Linux-kernel memory model against herd7, side by side: CPU time and its ratio.

Each test runs under herdsman (in this process, the model loaded once; the test's CPU
time is its ``Time`` line) and under herd7 (a process per test; its ``Time`` line), and
the script prints both times, their ratio (herd / ours: above 1, herdsman is faster) and
whether the two blocks are identical but for ``Time``.

Tests (``--set``): ``shared`` (the 79 of ``../shared/linux/tests``), ``big`` (generated
here, larger than the collection's: N-thread lock counters, RCU readers against a
grace period, rings of ``smp_mb()`` store buffering, SRCU readers, trylock contention,
xchg locks), or ``all``; or test files given on the command line.

Peers.  herd7 7.57 (``--herd``, default ``$HERD7``, else ``../anchors/herd7/herd7`` with its
``libdir``) cannot run ``linux-kernel.cfg`` as herd ships it now: it knows no variant
``lkmmv2`` and cannot parse the macro file's annotated ``__atomic_op{...}``,
``__atomic_add_unless{...}`` nor the ``&``/``|``/``^`` operators.  For it the script writes
a configuration it reads (``--conf757``, in a temporary directory): the same bell and cat
files, the macro file without the lines 7.57 cannot parse, no ``lkmmv2``; herdsman runs
that same configuration (herd's lkmmv1 events), so the two are compared on the same
model; tests using a dropped macro are left out for 7.57.  Given a newer herd7
(``--herd PATH --libdir DIR``, e.g. a 7.58 build), both run the configuration as shipped.
``--speedcheck true|fast`` runs both with herd's ``-speedcheck``.

    .venv/bin/python bench/bench_lkmm.py --set big
    .venv/bin/python bench/bench_lkmm.py --set all --herd /tmp/herd758/herd7 \\
        --libdir /tmp/herd758/libdir --timeout 300

Exit status: 0 when every block compared is identical, 1 otherwise, 2 without
``../shared/linux`` or herd7.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from herdsman.herd_compat.cli.herd7opts import parse_herd7_args
from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.pipeline.models import ModelCache
from herdsman.herd_compat.pipeline.run_file import Done, run_file

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HERDSMAN_SHARED", ROOT.parent / "shared")).resolve()
LINUX = SHARED / "linux"
HERD757 = Path(os.environ.get("HERD7") or "../anchors/herd7/herd7")

# ----------------------------------------------------------------------------- big tests


def _test(name: str, init: str, threads: list[str], cond: str) -> str:
    return f"C {name}\n\n{{{init}}}\n\n" + "\n".join(threads) + f"\n{cond}\n"


def lock_counter(n: int) -> tuple[str, str]:
    """N threads incrementing a counter in critical sections (lock.cat's co over LKW)."""
    body = "\tint r0;\n\n\tspin_lock(l);\n\tr0 = READ_ONCE(*x);\n\tWRITE_ONCE(*x, r0 + 1);\n"
    body += "\tspin_unlock(l);\n"
    ths = [f"P{t}(int *x, spinlock_t *l)\n{{\n{body}}}\n" for t in range(n)]
    name = f"Lock-counter-{n}"
    return name, _test(name, "", ths, f"exists (~x={n})")


def rcu_readers(n: int, srcu: bool = False) -> tuple[str, str]:
    """N readers, each reading x then y in an RCU (or SRCU) critical section; an updater
    writing y, waiting for a grace period, writing x."""
    s = ", struct srcu_struct *s" if srcu else ""
    gp, lock, unlock = ("synchronize_srcu(s)", "i = srcu_read_lock(s)", "srcu_read_unlock(s, i)")
    if not srcu:
        gp, lock, unlock = "synchronize_rcu()", "rcu_read_lock()", "rcu_read_unlock()"
    ths = [f"P0(int *x, int *y{s})\n{{\n\tWRITE_ONCE(*y, 1);\n\t{gp};\n\tWRITE_ONCE(*x, 1);\n}}\n"]
    body = "\tint r0;\n\tint r1;\n\tint i;\n\n" if srcu else "\tint r0;\n\tint r1;\n\n"
    body += f"\t{lock};\n\tr0 = READ_ONCE(*x);\n\tr1 = READ_ONCE(*y);\n\t{unlock};\n"
    ths += [f"P{t}(int *x, int *y{s})\n{{\n{body}}}\n" for t in range(1, n + 1)]
    cond = " \\/ ".join(f"({t}:r0=1 /\\ {t}:r1=0)" for t in range(1, n + 1))
    name = f"{'SRCU' if srcu else 'RCU'}-readers-{n}"
    return name, _test(name, "", ths, f"exists ({cond})")


def srcu_readers(n: int) -> tuple[str, str]:
    """As :func:`rcu_readers` with SRCU (the readers' values are compared)."""
    return rcu_readers(n, srcu=True)


def sb_ring(n: int) -> tuple[str, str]:
    """A ring of N threads, each writing its variable, smp_mb(), reading the next."""
    ths = []
    for t in range(n):
        a, b = f"x{t}", f"x{(t + 1) % n}"
        ths.append(
            f"P{t}(int *{a}, int *{b})\n{{\n\tint r0;\n\n\tWRITE_ONCE(*{a}, 1);\n"
            f"\tsmp_mb();\n\tr0 = READ_ONCE(*{b});\n}}\n"
        )
    cond = " /\\ ".join(f"{t}:r0=0" for t in range(n))
    name = f"SB-ring-{n}"
    return name, _test(name, "", ths, f"exists ({cond})")


def trylock(n: int) -> tuple[str, str]:
    """N threads trying to take one lock; the holders write their number."""
    ths = [
        f"P{t}(int *x, spinlock_t *l)\n{{\n\tint r0;\n\n\tr0 = spin_trylock(l);\n"
        f"\tif (r0) {{\n\t\tWRITE_ONCE(*x, {t + 1});\n\t\tspin_unlock(l);\n\t}}\n}}\n"
        for t in range(n)
    ]
    cond = " /\\ ".join(f"{t}:r0=1" for t in range(n))
    name = f"Trylock-{n}"
    return name, _test(name, "", ths, f"exists ({cond})")


def xchg_lock(n: int) -> tuple[str, str]:
    """N threads passing a message through xchg_acquire/smp_store_release."""
    ths = [
        f"P{t}(int *x, int *l)\n{{\n\tint r0;\n\tint r1;\n\n\tr0 = xchg_acquire(l, 1);\n"
        f"\tr1 = READ_ONCE(*x);\n\tWRITE_ONCE(*x, r1 + 1);\n\tsmp_store_release(l, 0);\n}}\n"
        for t in range(n)
    ]
    cond = " /\\ ".join(f"{t}:r0=0" for t in range(n)) + f" /\\ ~x={n}"
    name = f"Xchg-lock-{n}"
    return name, _test(name, "", ths, f"exists ({cond})")


#: The generated tests: (family, sizes).
BIG = (
    (lock_counter, (3, 4, 5)),
    (rcu_readers, (3, 4, 5)),
    (srcu_readers, (3, 4)),
    (sb_ring, (4, 5, 6)),
    (trylock, (3, 4)),
    (xchg_lock, (3, 4)),
)

# ----------------------------------------------------------------------------- 7.57


def conf_757(where: Path) -> Path:
    """The LKMM as herd7 7.57 reads it (see the module docstring), in ``where``."""
    cats = LINUX / "cats"
    for f in ("linux-kernel.bell", "linux-kernel.cat", "lock.cat"):
        shutil.copy(cats / f, where / f)
    drop = re.compile(r"__atomic_op\{|__atomic_add_unless\{|\(X,[&|^]")
    lines = (cats / "linux-kernel.def").read_text().splitlines()
    (where / "lk757.def").write_text("\n".join(x for x in lines if not drop.search(x)) + "\n")
    cfg = []
    for line in (LINUX / "cfgs" / "linux-kernel.cfg").read_text().splitlines():
        key = line.split(" ", 1)[0]
        if key in ("include", "variant"):
            continue
        cfg.append("macros lk757.def" if key == "macros" else line)
    (where / "lk757.cfg").write_text("\n".join(cfg) + "\n")
    return where / "lk757.cfg"


# ----------------------------------------------------------------------------- running


@dataclass
class Row:
    name: str
    ours: float | None
    herd: float | None
    same: bool | None  # None: not compared (a side has no result)
    note: str = ""


_TIME = re.compile(r"(?m)^Time \S+ (\S+)\n")


def run_herd(herd: list[str], conf: list[str], path: str, timeout: float) -> tuple[str, float]:
    """herd7's block (without Time) and its Time; ("", -1) when it failed or ran out of
    ``timeout`` CPU seconds (or of 20 times as many wall seconds, on a loaded machine)."""
    cpu = int(timeout) + 1

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))

    try:
        p = subprocess.run(
            [*herd, *conf, path],
            capture_output=True,
            text=True,
            timeout=20 * timeout,
            check=False,
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired:
        return "", -1.0
    m = _TIME.search(p.stdout)
    if p.returncode != 0 or m is None:
        return "", -1.0
    return _TIME.sub("", p.stdout).strip(), float(m.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tests", nargs="*", help="test files (default: --set)")
    ap.add_argument("--set", default="big", choices=("shared", "big", "all"))
    ap.add_argument("--herd", default=str(HERD757), help="herd7 to compare with")
    ap.add_argument("--libdir", help="its libdir (default: next to it)")
    ap.add_argument("--speedcheck", default="false", choices=("false", "true", "fast"))
    ap.add_argument("--timeout", type=float, default=600.0, help="CPU seconds a test (each)")
    ap.add_argument("--only", help="the tests whose name matches this regular expression")
    a = ap.parse_args()
    if not LINUX.is_dir() or not Path(a.herd).exists():
        print(f"needs {LINUX} and {a.herd}", file=sys.stderr)
        return 2
    libdir = a.libdir or str(Path(a.herd).parent / "libdir")
    herd = [a.herd, "-set-libdir", libdir]
    version = subprocess.run([*herd, "-version"], capture_output=True, text=True).stdout.split()
    tmp = Path(tempfile.mkdtemp(prefix="bench-lkmm-"))
    if version and version[0].rstrip(",") == "7.57":
        conf = ["-I", str(tmp), "-conf", str(conf_757(tmp))]
        which = "7.57, with the LKMM as it reads it (lkmmv1; see --help)"
    else:
        conf = ["-I", str(LINUX / "cats"), "-conf", str(LINUX / "cfgs" / "linux-kernel.cfg")]
        number = version[0].rstrip(",") if version else "?"
        which = f"{number}, with linux-kernel.cfg as shipped"
    extra = [] if a.speedcheck == "false" else ["-speedcheck", a.speedcheck]
    tests = list(a.tests)
    if not tests and a.set in ("shared", "all"):
        tests += sorted(str(p) for p in (LINUX / "tests").glob("*.litmus"))
    if not a.tests and a.set in ("big", "all"):
        for family, sizes in BIG:
            for n in sizes:
                name, text = family(n)
                p = tmp / f"{name}.litmus"
                p.write_text(text)
                tests.append(str(p))
    if a.only:
        tests = [t for t in tests if re.search(a.only, Path(t).name)]
    cfg, _ = parse_herd7_args([*conf, *extra, "-timeout", str(a.timeout)])
    models = ModelCache(cfg)
    print(f"herd7 {which}; speedcheck {a.speedcheck}; CPU seconds (herd's Time lines)")
    print(f"{'test':44s} {'herd7':>9s} {'herdsman':>9s} {'ratio':>7s}  same")
    rows = []
    for path in tests:
        rec = run_file(path, cfg, models)
        ours = format_result(rec.herd_block()) if isinstance(rec, Done) else ""
        ours = _TIME.sub("", ours).strip()
        t_ours = rec.cpu if isinstance(rec, Done) else None
        block, t_herd = run_herd(herd, [*conf, *extra], path, a.timeout)
        name = Path(path).name.removesuffix(".litmus")
        same = (block == ours) if block and ours else None
        rows.append(Row(name, t_ours, t_herd if t_herd >= 0 else None, same))
        h = f"{t_herd:9.2f}" if t_herd >= 0 else f"{'-':>9s}"
        o = f"{t_ours:9.2f}" if t_ours is not None else f"{'-':>9s}"
        ratio = ""
        if t_ours and t_herd >= 0:
            ratio = f"{max(t_herd, 0.005) / max(t_ours, 0.005):7.2f}"
        mark = {True: "yes", False: "NO", None: "-"}[same]
        print(f"{name:44s} {h} {o} {ratio:>7s}  {mark}", flush=True)
    both = [r for r in rows if r.ours is not None and r.herd is not None]
    th, to = sum(r.herd or 0 for r in both), sum(r.ours or 0 for r in both)
    print(
        f"total over {len(both)} tests run by both: herd7 {th:.2f} s, herdsman {to:.2f} s, "
        f"ratio {th / max(to, 1e-9):.2f}"
    )
    big = [r for r in both if (r.herd or 0) >= 1.0]
    if big:
        bh, bo = sum(r.herd or 0 for r in big), sum(r.ours or 0 for r in big)
        print(
            f"tests where herd7 takes over 1 s: {len(big)}; herd7 {bh:.2f} s, "
            f"herdsman {bo:.2f} s, ratio {bh / max(bo, 1e-9):.2f}"
        )
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if all(r.same is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
