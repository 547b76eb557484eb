"""Integers of every size wherever a number is read or computed (issue 29, class 2):
values within herdsman's bound (magnitude below 2^64, ``litmus.base.numbers``) run, and
beyond it give one clean error at the number (never Python's 4,300-digit conversion
error, an internal error or a campaign that stops).  Sizes are swept, not single files."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.hostile import Answer, check, one_error, run

from herdsman.litmus.base.numbers import (
    VALUE_LIMIT,
    ValueOutOfRange,
    int_op,
    parse_c_literal,
    parse_literal,
)

#: Decimal literals of these many nines: 19 fit below 2^64, 20 and more do not.
DIGITS = [1, 19, 20, 21, 65, 4301, 100_000]


def _fits(n: int) -> bool:
    return n <= 19


def _x86(init: str = "x=0;", code: str = "MOV [x],$1", cond: str = "x=1") -> str:
    return f"X86 T\n{{ {init} }}\n P0 ;\n {code} ;\nexists ({cond})\n"


def _ppc(code: list[str], cond: str = "0:r1=0", init: str = "0:r2=x;") -> str:
    lines = "".join(f" {c} ;\n" for c in code)
    return f"PPC T\n{{\n{init}\n}}\n P0 ;\n{lines}exists ({cond})\n"


#: Where a literal goes in a test: slot name -> the test with the literal ``v``.
SLOTS = {
    "x86 init": lambda v: _x86(init=f"x={v};"),
    "x86 negative init": lambda v: _x86(init=f"x=-{v};"),
    "x86 condition": lambda v: _x86(cond=f"x={v}"),
    "x86 immediate": lambda v: _x86(code=f"MOV [x],${v}"),
    "ppc li": lambda v: _ppc([f"li r1,{v}", "stw r1,0(r2)"]),
    "ppc register init": lambda v: _ppc(["stw r1,0(r2)"], init=f"0:r2=x; 0:r1={v};"),
    "ppc filter": lambda v: _ppc(["stw r1,0(r2)"]).replace("exists", f"filter (0:r1={v})\nexists"),
}


def _where(text: str, v: str) -> tuple[int, int]:
    """Line and column of the literal ``v`` in ``text``."""
    i = text.index(v)
    line = text.count("\n", 0, i) + 1
    return line, i - text.rfind("\n", 0, i)


@pytest.mark.parametrize("digits", DIGITS)
@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_literals_in_litmus_tests(
    slot: str, digits: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v = "9" * digits
    text = SLOTS[slot](v)
    f = tmp_path / "t.litmus"
    f.write_text(text)
    for cmd in (["run"], ["parse"], ["herd7"]):
        a = run(capsys, [*cmd, str(f)])
        what = f"{cmd[0]} {slot} {digits}"
        if _fits(digits):
            check(a, what)
            assert a.rc == 0, (what, a.err)
        else:
            line, col = _where(text, v)
            got = one_error(a, "herdsman's integers are below 2^64 in magnitude", what)
            assert got.startswith(f"{f}:{line}:{col - (slot == 'x86 negative init')}: error:")


@pytest.mark.parametrize("digits", [15, 16, 17, 5000])
def test_hexadecimal_literals(digits: int, tmp_path: Path, capsys) -> None:
    f = tmp_path / "h.litmus"
    f.write_text(_x86(init=f"x=0x{'f' * digits};"))
    a = run(capsys, ["run", str(f)])
    if digits <= 16:
        check(a)
        assert a.rc == 0
    else:
        one_error(a, "below 2^64", f"{digits} hex digits")


@pytest.mark.parametrize("digits", [2, 9, 10, 400, 5000])
def test_thread_and_register_numbers(digits: int, tmp_path: Path, capsys) -> None:
    n = "9" * digits
    cases = {
        "thread in condition": _x86(cond=f"{n}:EAX=0"),
        "P-thread in condition": _x86(cond=f"P{n}:EAX=0"),
        "register in init": _ppc(["stw r1,0(r2)"], init=f"0:r2=x; 0:r{n}=1;"),
        "register in code": _ppc([f"li r{n},1"]),
        "thread column": _x86().replace(" P0 ;", f" P{n} ;"),
    }
    for what, text in cases.items():
        f = tmp_path / "r.litmus"
        f.write_text(text)
        a = run(capsys, ["run", str(f)])
        check(a, what)
        assert a.rc == 2, (what, a.err)


@pytest.mark.parametrize(
    "value, fits",
    [("4294967295", True), ("4294967296", False), ("3037000499", True), ("3037000500", True)],
)
def test_computed_values(value: str, fits: bool, tmp_path: Path, capsys) -> None:
    """``mullw`` of a register by itself: the square of 2^32 leaves the bound; a square
    within it prints as herd's ``int`` ([x] has no declared type: herd7 7.57 prints
    3037000499 squared as -1633559511)."""
    f = tmp_path / "m.litmus"
    f.write_text(_ppc([f"li r1,{value}", "mullw r3,r1,r1", "stw r3,0(r2)"], cond="x=0"))
    a = run(capsys, ["run", str(f)])
    check(a)
    if fits:
        square = (int(value) ** 2 + 2**31) % 2**32 - 2**31
        assert a.rc == 0 and f"[x]={square};" in a.out
    else:
        assert a.rc == 2 and "'mul' gives a value beyond the bound" in a.err
        assert "mullw r3,r1,r1" in a.err


def test_squaring_loop_in_c(tmp_path: Path, capsys) -> None:
    """``r = r * r`` in a counted loop: an error at the statement, whatever the count."""
    for n in (1, 5, 6, 20):
        f = tmp_path / "sq.c"
        f.write_text(
            "int x;\nint main() {\n  long r = 3;\n"
            f"  for (int i = 0; i < {n}; i++)\n    r = r * r;\n  x = r;\n  return 0;\n}}\n"
        )
        a = run(capsys, ["verify", str(f)])
        check(a, f"{n} squarings")
        if 3 ** (2**n) < VALUE_LIMIT:
            assert a.rc == 0, a.err
        else:
            assert a.rc == 2 and "sq.c:5:9: error: 'r * r'" in a.err and "beyond the bound" in a.err


@pytest.mark.parametrize("shift", [0, 63, 64, 20000])
def test_shifts_mean_the_same_folded_or_run(shift: int, tmp_path: Path, capsys) -> None:
    """``1 << k`` folded at compile time and ``s << k`` computed at run time agree: the
    value, or the same error."""
    answers = []
    for expr in (f"1 << {shift}", f"s << {shift}"):
        f = tmp_path / "sh.c"
        f.write_text(
            "#include <assert.h>\nint x;\nint main() {\n  int s = 1;\n"
            f"  x = {expr};\n  assert(x != 1);\n  return 0;\n}}\n"
        )
        a = run(capsys, ["verify", str(f)])
        check(a, expr)
        answers.append((a.rc, a.err.split("error: ")[-1].split(": ")[-1]))
    assert answers[0] == answers[1]
    assert answers[0][0] == (42 if shift == 0 else 0 if shift < 64 else 2)  # 1 << 0 == 1


@pytest.mark.parametrize("digits", [19, 20, 4301, 100_000])
def test_c_constants(digits: int, tmp_path: Path, capsys) -> None:
    v = "9" * digits
    for program in (
        f"int x;\nint main() {{\n  x = {v};\n  return 0;\n}}\n",
        f"int x = {v};\nint main() {{\n  return 0;\n}}\n",
    ):
        f = tmp_path / "k.c"
        f.write_text(program)
        if digits > 10_000:  # in a process of its own: no state left by earlier tests
            cmd = [sys.executable, "-m", "herdsman.herd_compat.cli.main", "verify", str(f)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            a = Answer(p.returncode, p.stdout, p.stderr)
        else:
            a = run(capsys, ["verify", str(f)])
        if _fits(digits):
            check(a)
            assert a.rc == 0, a.err
        else:
            one_error(a, "below 2^64", f"C constant of {digits} digits")


@pytest.mark.parametrize("digits", [19, 20, 100_000])
def test_state_and_conds_options(digits: int, tmp_path: Path, capsys) -> None:
    sb = Path(__file__).resolve().parents[2] / "litmus" / "examples" / "x86" / "SB.litmus"
    v = "9" * digits
    conds = tmp_path / "conds"
    conds.write_text(f'SB "exists (0:EAX={v})"\n')
    for argv in (
        ["explain", "sc", str(sb), "--state", f"0:EAX={v}"],
        ["herd7", "-conds", str(conds), str(sb)],
    ):
        a = run(capsys, argv)
        check(a, argv[0])
        assert (a.rc == 2) == (not _fits(digits)), (argv[0], a.err)


def test_campaign_records_the_test_and_goes_on(tmp_path: Path, capsys) -> None:
    """A test with a huge literal is one error row of a campaign; the others still run."""
    x86 = Path(__file__).resolve().parents[2] / "litmus" / "examples" / "x86"
    big = tmp_path / "big.litmus"
    big.write_text(_x86(init=f"x={'7' * 100_000};"))
    log = tmp_path / "expect.log"
    assert run(capsys, ["herd7", "-model", "tso", str(x86 / "SB.litmus")]).rc == 0
    log.write_text(run(capsys, ["herd7", "-model", "tso", str(x86 / "SB.litmus")]).out)
    a = run(
        capsys,
        [
            "validate",
            str(x86 / "SB.litmus"),
            str(big),
            "--model",
            "tso",
            "--expect",
            str(log),
            "--db",
            str(tmp_path / "c.sqlite"),
            "--no-progress",
            "--jobs",
            "1",
        ],
    )
    check(a)
    assert re.search(r"^identical +1$", a.out, re.M) and re.search(r"^error +1$", a.out, re.M)
    assert "big.litmus:2:5: error: integer literal of 100000 digits" in a.out


def test_a_herd_log_with_huge_values(tmp_path: Path, capsys) -> None:
    """A herd log whose states or counts hold huge numbers compares, never crashes."""
    sb = Path(__file__).resolve().parents[2] / "litmus" / "examples" / "x86" / "SB.litmus"
    good = run(capsys, ["herd7", "-model", "tso", str(sb)]).out
    for old, new in (("0:EAX=0", "0:EAX=" + "9" * 5000), ("States 4", "States " + "9" * 5000)):
        log = tmp_path / "huge.log"
        log.write_text(good.replace(old, new, 1))
        a = run(
            capsys,
            [
                "validate",
                str(sb),
                "--model",
                "tso",
                "--expect",
                str(log),
                "--db",
                str(tmp_path / f"{len(new)}.sqlite"),
                "--no-progress",
            ],
        )
        check(a, old)


def test_int_op_is_the_one_definition() -> None:
    assert int_op("add", VALUE_LIMIT - 2, 1) == VALUE_LIMIT - 1
    for fn, a, b in (("add", VALUE_LIMIT - 1, 1), ("mul", 1 << 32, 1 << 32), ("shl", 1, 64)):
        with pytest.raises(ValueOutOfRange):
            int_op(fn, a, b)
    assert int_op("div", 7, 0) == 0 and int_op("div", -7, 2) == -3 and int_op("mod", -7, 2) == -1
    assert int_op("shr", -1, 60) == 15 and int_op("sra", -16, 2) == -4
    assert parse_literal("0xffffffffffffffff") == VALUE_LIMIT - 1
    assert parse_literal("-18446744073709551615") == -(VALUE_LIMIT - 1)
    assert parse_c_literal("0777") == 511 and parse_c_literal("0b101UL") == 5
    with pytest.raises(ValueOutOfRange):
        parse_literal("1" + "0" * 64)
