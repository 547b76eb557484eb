"""``herdsman verify --model rc11|ra``: C11 programs under GenMC's default models, a data
race on a non-atomic location reported as GenMC reports it (the two accesses, exit 42),
and GenMC's counts of complete executions on small programs."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdsman.herd_compat.cli.main import main

# message passing: data written plainly, then a flag; the reader reads data if it saw it
MP = """#include <pthread.h>
#include <assert.h>
#include <stdatomic.h>
atomic_int flag;
int data;
void *w(void *a) { data = 1; atomic_store_explicit(&flag, 1, memory_order_ORDW); return 0; }
void *r(void *a) {
  if (atomic_load_explicit(&flag, memory_order_ORDR)) { int d = data; assert(d == 1); }
  return 0;
}
int main() {
  pthread_t a, b;
  pthread_create(&a, 0, w, 0);
  pthread_create(&b, 0, r, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
"""

# store buffering with seq_cst accesses (RC11 forbids both reads 0; RA allows it)
SB = """#include <pthread.h>
#include <assert.h>
#include <stdatomic.h>
atomic_int x, y;
int a, b;
void *p(void *u) { atomic_store(&x, 1); a = atomic_load(&y); return 0; }
void *q(void *u) { atomic_store(&y, 1); b = atomic_load(&x); return 0; }
int main() {
  pthread_t s, t;
  pthread_create(&s, 0, p, 0);
  pthread_create(&t, 0, q, 0);
  pthread_join(s, 0);
  pthread_join(t, 0);
  assert(a == 1 || b == 1);
  return 0;
}
"""


def _verify(tmp_path: Path, text: str, *args: str) -> int:
    f = tmp_path / "p.c"
    f.write_text(text)
    return main(["verify", *args, str(f)])


def test_a_data_race_is_reported_with_its_two_accesses(capsys, tmp_path: Path) -> None:
    racy = MP.replace("ORDW", "relaxed").replace("ORDR", "relaxed")
    assert _verify(tmp_path, racy, "--model", "rc11") == 42
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Error: Non-atomic race!"
    # the reader's plain read of data (thread 2's second event, GenMC's (2, 2)) and the
    # writer's plain store
    assert (
        out[1] == "Event (2, 2) conflicts with event (1, 1) in graph:"
    )  # GenMC 0.11 prints this line
    assert "  (2, 2)   R data = 0  (from init)" in "\n".join(out)


@pytest.mark.parametrize("model", ["rc11", "ra"])
def test_release_acquire_makes_message_passing_safe(capsys, tmp_path: Path, model: str) -> None:
    safe = MP.replace("ORDW", "release").replace("ORDR", "acquire")
    assert _verify(tmp_path, safe, "--model", model) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "No errors were detected.",
        "Number of complete executions explored: 2",  # GenMC's count too
        "Number of blocked executions seen: 0",
    ]


def test_seq_cst_is_sc_under_rc11_not_under_ra(capsys, tmp_path: Path) -> None:
    assert _verify(tmp_path, SB, "--model", "rc11") == 0
    assert "Number of complete executions explored: 3" in capsys.readouterr().out
    assert _verify(tmp_path, SB, "--model", "ra") == 42
    assert capsys.readouterr().out.startswith("Error: Safety violation!")


def test_rc11_is_the_default_for_a_program_using_c11_atomics(capsys, tmp_path: Path) -> None:
    racy = MP.replace("ORDW", "relaxed").replace("ORDR", "relaxed")
    assert _verify(tmp_path, racy) == 42  # rc11: the race on data
    assert capsys.readouterr().out.startswith("Error: Non-atomic race!")
    plain = racy.replace("atomic_int flag;", "int flag;").replace("#include <stdatomic.h>", "")
    plain = plain.replace("atomic_store_explicit(&flag, 1, memory_order_relaxed)", "flag = 1")
    plain = plain.replace("atomic_load_explicit(&flag, memory_order_relaxed)", "flag")
    assert _verify(tmp_path, plain) == 0  # no atomics: sc, where message passing holds
    assert capsys.readouterr().out.startswith("No errors were detected.")


def test_disable_race_detection_counts_racy_executions(capsys, tmp_path: Path) -> None:
    """GenMC's ``-disable-race-detection``: the race is no error; the relaxed flag then
    lets the reader see the old data, and the assertion fails."""
    racy = MP.replace("ORDW", "relaxed").replace("ORDR", "relaxed")
    assert _verify(tmp_path, racy, "--model", "rc11", "--disable-race-detection") == 42
    assert capsys.readouterr().out.startswith("Error: Safety violation!")
    fixed = racy.replace("assert(d == 1);", "")
    assert _verify(tmp_path, fixed, "--model", "rc11", "--disable-race-detection") == 0
    assert "Number of complete executions explored: 3" in capsys.readouterr().out
