"""``herdsman verify``: GenMC's report, the violating execution as a trace and a DOT file,
JSON, ``--keep-going``, the loop bound, and bad input as one line with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from herdsman.herd_compat.cli.main import main

PROGRAMS = Path(__file__).resolve().parents[2] / "litmus" / "examples" / "programs"

# main waits for two threads that each add 1 to x without atomicity
RACY = """#include <pthread.h>
#include <assert.h>
int x;
void *inc(void *arg) { int r = x; x = r + 1; return 0; }
int main() {
  pthread_t a, b;
  pthread_create(&a, 0, inc, 0);
  pthread_create(&b, 0, inc, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(x == 2);
  return 0;
}
"""

# a loop that needs more iterations than the bound whenever y stays 0
LOOPING = """#include <pthread.h>
int y; int n;
void *w(void *arg) { y = 1; return 0; }
int main() {
  pthread_t t;
  pthread_create(&t, 0, w, 0);
  while (y == 0) { n = n + 1; }
  pthread_join(t, 0);
  return 0;
}
"""


def _verify(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(["verify", *argv])
    got = capsys.readouterr()
    return rc, got.out, got.err


def test_error_report_trace_and_picture(capsys, tmp_path) -> None:
    prog = tmp_path / "racy.c"
    prog.write_text(RACY)
    rc, out, err = _verify(capsys, str(prog), "-o", str(tmp_path))
    assert rc == 42, err
    lines = out.splitlines()
    assert lines[0] == "Error: Safety violation!"
    assert lines[1].startswith("Assertion violation: x == 2  (thread 0, line 11)")
    assert "Thread 1:" in lines and "Coherence order:" in lines
    assert any(line.startswith("Number of complete executions explored: ") for line in lines)
    assert any(line.startswith("Number of blocked executions seen: ") for line in lines)
    dot = (tmp_path / "racy.dot").read_text()
    assert dot.startswith("digraph") and "rf" in dot


def test_keep_going_counts_every_execution(capsys, tmp_path) -> None:
    prog = tmp_path / "racy.c"
    prog.write_text(RACY)
    rc, out, _ = _verify(capsys, str(prog), "--keep-going", "--disable-sr")
    assert rc == 42
    # (2!)^2 = 4 executions under SC; in two of them an update is lost
    assert "Number of complete executions explored: 4" in out
    assert "Executions violating an assertion: 2" in out
    # GenMC's symmetry reduction (the default): the two threads run the same function
    # with the same argument, so each execution is explored once up to their order
    rc, out, _ = _verify(capsys, str(prog), "--keep-going")
    assert rc == 42 and "Number of complete executions explored: 2" in out


DECLARED = """#include <pthread.h>
#include <stdatomic.h>
#include <genmc.h>
atomic_int x;
void *inc(void *unused) {
  atomic_fetch_add_explicit(&x, 1, memory_order_relaxed);
  return NULL;
}
int main() {
  pthread_t t[3];
  t[0] = __VERIFIER_spawn(inc, NULL);
  for (int i = 1; i < 3; i++)
    t[i] = SPAWN;
  return 0;
}
"""


@pytest.mark.parametrize(
    ("spawn", "complete"),
    [("__VERIFIER_spawn_symmetric(inc, NULL, t[i - 1])", 1), ("__VERIFIER_spawn(inc, NULL)", 6)],
)
def test_declared_symmetry(capsys, tmp_path, spawn: str, complete: int) -> None:
    """GenMC's ``__VERIFIER_spawn_symmetric``: the program says the new thread is
    symmetric to an earlier one, which its stores of thread handles between the spawns
    would hide (GenMC 0.11's sr/ainc: 1 execution; without it, 3! orders of the adds)."""
    prog = tmp_path / "ainc.c"
    prog.write_text(DECLARED.replace("SPAWN", spawn))
    rc, out, _ = _verify(capsys, str(prog))
    assert rc == 0 and f"Number of complete executions explored: {complete}" in out


def test_json_gives_the_outcome(capsys, tmp_path) -> None:
    prog = tmp_path / "racy.c"
    prog.write_text(RACY)
    rc, out, _ = _verify(capsys, str(prog), "--json", "--keep-going", "--engine", "reference")
    data = json.loads(out)
    assert rc == 42 and data["verdict"] == "unsafe"
    assert data["outcome"]["errors"][0]["message"] == "x == 2"
    assert sum(s["executions"] for s in data["outcome"]["states"]) == 4


def test_loop_bound_ends_the_thread(capsys, tmp_path) -> None:
    """At GenMC's bound main is killed: it never joins, and the execution is complete
    (GenMC 0.11 -disable-race-detection: 2 with -unroll=1, 4 with -unroll=3)."""
    prog = tmp_path / "loop.c"
    prog.write_text(LOOPING)
    for bound, complete in (("1", 2), ("3", 4)):
        rc, out, _ = _verify(capsys, str(prog), "--unroll", bound)
        assert rc == 0
        assert _complete(out) == complete, out
        assert "Number of blocked executions seen: 0\n" in out, out


def _complete(report: str) -> int:
    line = next(x for x in report.splitlines() if x.startswith("Number of complete"))
    return int(line.rsplit(": ", 1)[1])


def test_bad_input_is_one_line(capsys, tmp_path) -> None:
    prog = tmp_path / "bad.c"
    prog.write_text("int main() { double d = 0.5; return 0; }\n")
    rc, out, err = _verify(capsys, str(prog))
    assert rc == 2 and not out
    assert err.count("\n") == 1 and err.startswith(f"{prog}:1:") and "double" in err
    rc, _, err = _verify(capsys, str(tmp_path / "missing.c"))
    assert rc == 2 and "no such file" in err
    rc, _, err = _verify(capsys, str(PROGRAMS / "counter.c"), "--model", "nosuchmodel")
    assert rc == 2 and err.count("\n") == 1
    litmus = PROGRAMS.parent / "c" / "SB.litmus"
    rc, _, err = _verify(capsys, str(litmus))
    assert rc == 2 and "'herdsman run' runs it" in err
    assert main(["run", "--model", "sc", str(PROGRAMS / "counter.c")]) == 2
    assert "'herdsman verify' checks it" in capsys.readouterr().err


# two threads filling 300 cells each: the reference engine's enumeration needs memory
HUNGRY = """#include <pthread.h>
int a[400];
void *w(void *arg) { for (int i = 0; i < 300; i++) a[i] = i; return 0; }
int main() { pthread_t t; pthread_create(&t, 0, w, 0); pthread_create(&t, 0, w, 0); return 0; }
"""


def test_limits_give_up_cleanly(tmp_path) -> None:
    """``--memory`` and ``--timeout``: one warning line, exit status 3 (run in a child
    process: an address-space limit stays with the process that set it)."""
    prog = tmp_path / "hungry.c"
    prog.write_text(HUNGRY)
    for limit in (["--memory", "200"], ["--timeout", "0.5"]):
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "herdsman.herd_compat.cli.main",
                "verify",
                "--engine",
                "reference",
            ]
            + limit
            + [str(prog)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert r.returncode == 3, (limit, r.stderr)
        assert r.stderr.count("\n") == 1 and ": warning: " in r.stderr and "exceeded" in r.stderr
        assert "Traceback" not in r.stderr


def test_c_division_by_zero_is_an_error(capsys, tmp_path) -> None:
    """C's division (or remainder) by zero is an error of the execution, not herd's 0."""
    for expr, bad in (("1 / s", True), ("7 % s", True), ("8 / 4", False), ("1 / 0", True)):
        prog = tmp_path / "div.c"
        prog.write_text(f"int x;\nint main() {{\n  int s = 0;\n  x = {expr};\n  return 0;\n}}\n")
        rc, out, _ = _verify(capsys, str(prog))
        assert rc == (42 if bad else 0), expr
        assert ("division by zero" in out) == bad, expr


def test_c_memory_errors_without_asserts(capsys, tmp_path) -> None:
    """A store outside its allocation and a double free are errors, as GenMC reports
    them, also in a program with no assert; an access inside its allocation is none."""
    cases = (
        (
            "int a[2];\nint main() {\n  int i = 2;\n  a[i] = 1;\n  return 0;\n}\n",
            "Error: Attempt to access non-allocated memory!",
        ),
        ("int a[2];\nint main() {\n  int i = 1;\n  a[i] = 1;\n  return 0;\n}\n", None),
        (
            "#include <stdlib.h>\nint main() {\n  int *p = malloc(4);\n  free(p);\n"
            "  free(p);\n  return 0;\n}\n",
            "Error: Double-free error!",
        ),
    )
    for text, error in cases:
        prog = tmp_path / "mem.c"
        prog.write_text(text)
        rc, out, _ = _verify(capsys, str(prog))
        assert rc == (0 if error is None else 42), text
        if error is not None:
            assert error in out, text
