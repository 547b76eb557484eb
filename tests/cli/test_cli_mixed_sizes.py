"""herd's mixed-size rejections (``litmus.sizes``) end to end, on the small tests of
``tests/data/aarch64/mixed``; ``herd7-rejects.txt`` there is what herd7 7.57 prints for the
``M*`` tests (on stderr: no block, exit status 0), the ``.expected`` files its blocks.

- ``M1``, ``M2``, ``M5``: one location stored and loaded with two sizes (``X``/``W``,
  ``W``/``B``, ``W``/``X``): "Illegal mixed-size test";
- ``M3``: a load of ``[x+4]``, ``x`` no array: "mixed-size test rejected (symbol [x+4])";
- ``M4``: the two sizes through addresses computed with herd's false dependency
  (``EOR W3,W2,W2``) and moves;
- ``M6``: PPC, which accepts mixed sizes, still rejects a load of ``[x+4]`` no store feeds;
- ``M7``, ``M8``: a second size on a path some execution takes (one thread, two threads);
- ``S1``-``S5``: accepted (one size per location; byte accesses on both sides; an ``int``
  location accessed as ``X``; an array's cell at ``[x+4]``; a second size on a path no
  execution takes: herd judges executions, ``engine.mixed``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from herdsman.herd_compat.cli.herd7opts import parse_herd7_args
from herdsman.herd_compat.cli.run import run_tests
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file
from herdsman.litmus.sizes import accesses

DATA = Path(__file__).resolve().parents[1] / "data" / "aarch64" / "mixed"


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    cfg, _ = parse_herd7_args(list(args))
    status = run_tests(cfg, out, err)
    return status, out.getvalue(), err.getvalue()


def _herd_rejection(name: str) -> str:
    """herd7's message for test ``name`` (without its ``Warning: File ...:`` and the
    ``(User error)`` tail)."""
    for line in (DATA / "herd7-rejects.txt").read_text().splitlines():
        head = f'Warning: File "{name}.litmus": '
        if line.startswith(head):
            return line[len(head) :].removesuffix(" (User error)")
    raise AssertionError(f"no herd7 line for {name}")


@pytest.mark.parametrize("name", ["M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8"])
def test_herd_rejects_are_refused(name: str) -> None:
    path = DATA / f"{name}.litmus"
    status, out, err = _run(str(path))
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:0:0: error: "), lines
    message = lines[0].split(": error: ", 1)[1]
    herd = _herd_rejection(name)
    if herd == "Illegal mixed-size test":
        assert message.startswith(herd + " (x accessed as "), message
    else:
        assert message == herd


@pytest.mark.parametrize("name", ["S1", "S2", "S3", "S4", "S5"])
def test_accepted_tests_print_herds_blocks(name: str) -> None:
    status, out, err = _run(str(DATA / f"{name}.litmus"))
    assert status in (0, 1), err
    ours = "".join(x + "\n" for x in out.split("\n") if not x.startswith("Time "))
    assert ours.rstrip("\n") == (DATA / f"{name}.expected").read_text().rstrip("\n")


def test_dontcheckmixed_runs_the_test_as_herd() -> None:
    status, out, err = _run("-variant", "dontcheckmixed", str(DATA / "M1.litmus"))
    assert status in (0, 1), err
    ours = "".join(x + "\n" for x in out.split("\n") if not x.startswith("Time "))
    assert ours.rstrip("\n") == (DATA / "M1.dontcheckmixed.expected").read_text().rstrip("\n")


def test_variant_mixed_is_refused_as_unsupported() -> None:
    """herd7 runs mixed-size semantics under ``-variant mixed``; herdsman has none."""
    status, out, err = _run("-variant", "mixed", str(DATA / "M1.litmus"))
    assert status == 2 and out == ""
    assert "mixed-size accesses (-variant mixed) are not supported" in err


def test_other_tests_of_the_run_go_on() -> None:
    status, out, err = _run(str(DATA / "M1.litmus"), str(DATA / "S1.litmus"))
    assert status == 2 and out.startswith("Test S1 ") and len(err.splitlines()) == 1


def test_addresses_followed_through_moves_and_false_dependencies() -> None:
    program = lower(parse_file(str(DATA / "M4.litmus")))
    found = [(a.tid, a.kind, a.size, str(a.addr)) for a in accesses(program)]
    assert found == [
        (0, "W", 8, "x"),
        (0, "W", 8, "x"),
        (1, "R", 4, "y"),
        (1, "R", 8, "x"),
        (1, "R", 4, "x"),
    ]


def test_an_address_not_known_statically_is_not_judged(tmp_path: Path) -> None:
    """An index loaded from memory: herd judges the location it resolves to, herdsman's
    static reading does not know it and lets the test run."""
    test = tmp_path / "U.litmus"
    test.write_text(
        "AArch64 U\n{\n0:X1=x; 0:X5=y;\n}\n P0 ;\n LDR X2,[X5] ;\n LDR W3,[X1,X2] ;\n"
        " STR X2,[X1] ;\nexists (0:X3=0)\n"
    )
    program = lower(parse_file(str(test)))
    assert [a.addr for a in accesses(program)][1] is None


def test_variant_mixed_refuses_an_access_wider_than_its_cell(tmp_path: Path) -> None:
    """A word stored into a ``uint8_t`` array's cell: herd's mixed-size semantics writes
    the next cells too (its M001), which herdsman's has not: refused, not answered."""
    test = tmp_path / "W.litmus"
    test.write_text(
        "AArch64 W\nVariant=mixed\n{\nuint8_t t[4]; 0:X2=t;\n}\n P0 ;\n MOV W0,#1 ;\n"
        " STR W0,[X2] ;\nlocations [t;]\n"
    )
    status, out, err = _run(str(test))
    assert status == 2 and out == ""
    assert err.splitlines() == [
        f"{test}:0:0: error: mixed-size accesses (-variant mixed) are not supported "
        "(t of byte accessed as word)"
    ]
    status, out, err = _run(str(DATA / "S4.litmus"), "-variant", "mixed")
    assert status == 0 and out.startswith("Test S4 "), err  # accesses of the cells' size
