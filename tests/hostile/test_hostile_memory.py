"""Long threads in linear memory (issue 29 class 5): thousands of straight-line stores or
reads, in C and in litmus tests, through every explorer that takes them, each in a child
process of at most 2 GB of address space — a result or the time limit's warning, never a
MemoryError, a crash or a RecursionError (the reference engine's search keeps its choices
on lists, not Python frames: two threads of 2,000 stores each place 4,000 writes in co).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.hostile import check, run_child

SIZES = [300, 2000]

#: A model whose co the reference engine enumerates itself (``with co`` from cos.cat) and
#: which forbids nothing: the search reaches its leaves at once, as deep as co goes.
NATIVE_CO = '"native co"\ninclude "cos.cat"\nacyclic po as ok\n'


def _two_threads(n: int) -> str:
    rows = "".join(f" MOV [x],${i + 1} | MOV [x],${n + i + 1} ;\n" for i in range(n))
    return f"X86 T\n{{ x=0; }}\n P0 | P1 ;\n{rows}exists (x=1)\n"


def _one_thread(n: int) -> str:
    rows = "".join(f" MOV [x],${i + 1} ;\n" for i in range(n))
    return f"X86 T\n{{ x=0; }}\n P0 ;\n{rows}exists (x=1)\n"


def _c_stores(n: int) -> str:
    return "int x;\nint main() {\n" + "  x = 1;\n" * n + "  return 0;\n}\n"


def _c_comma(n: int) -> str:
    return "int x, y;\nint main() {\n  y = (" + ", ".join(["x"] * n) + ");\n  return 0;\n}\n"


def _runs(tmp_path: Path, n: int) -> dict[str, list[str]]:
    """What to run, by name: a command line each."""
    files = {
        "two.litmus": _two_threads(n),
        "one.litmus": _one_thread(n),
        "native.cat": NATIVE_CO,
        "stores.c": _c_stores(n),
        "comma.c": _c_comma(n),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    two, one, cat = (str(tmp_path / f) for f in ("two.litmus", "one.litmus", "native.cat"))
    limit = ["--timeout", "5"]
    return {
        "reference, native co, two threads": [
            "run",
            "--engine",
            "reference",
            "-m",
            cat,
            *limit,
            two,
        ],
        "reference, sc, two threads": ["run", "--engine", "reference", "-m", "sc", *limit, two],
        "trust, sc, one thread": ["run", "--engine", "trust", "-m", "sc", *limit, one],
        "verify sc, C stores": ["verify", "--model", "sc", *limit, str(tmp_path / "stores.c")],
        "verify sc, C comma": ["verify", "--model", "sc", *limit, str(tmp_path / "comma.c")],
    }


@pytest.mark.parametrize("n", SIZES)
def test_long_threads_in_bounded_memory(n: int, tmp_path: Path) -> None:
    for what, argv in _runs(tmp_path, n).items():
        a = run_child(argv, limit=240, memory_mb=2048)
        where = f"{what} ({n})"
        check(a, where)
        assert "MemoryError" not in a.err and "out of memory" not in a.err, (where, a.err[:300])
        assert a.rc in (0, 3), (where, a.rc, a.err[:300])
        assert a.out or "time limit" in a.err, (where, a.err[:300])
