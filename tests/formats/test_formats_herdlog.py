"""Readers of herd7 logs and verdict tables, on herd's own files and on broken inputs."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from herdsman.herd_compat.formats.herd_block import format_result
from herdsman.herd_compat.formats.herdlog import (
    detect_format,
    log_blocks,
    parse_herd_log,
    parse_state_line,
    parse_verdict_table,
    read_expectations,
    read_herd_log,
    read_verdict_table,
)
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import MemLoc, RegLoc, Sym

MP_BLOCK = """Test MP Allowed
States 4
1:r1=0; 1:r3=0;
1:r1=0; 1:r3=1;
1:r1=1; 1:r3=0;
1:r1=1; 1:r3=1;
Ok
Witnesses
Positive: 1 Negative: 3
Condition exists (1:r1=1 /\\ 1:r3=0)
Observation MP Sometimes 1 3
Time MP 0.00
Hash=237fae775d3e8c7efd484ad95ba9d32b

"""


def test_power_log_and_table(shared: Path) -> None:
    recs = read_herd_log(shared / "power" / "herd7-ppc.log")
    assert len(recs) == 8141
    assert len({r.name for r in recs}) == 8141
    assert collections.Counter(r.verdict for r in recs) == {"Ok": 4133, "No": 4008}
    assert round(sum(r.time or 0 for r in recs)) == 952  # README: 953 s of herd CPU
    slowest = max(recs, key=lambda r: r.time or 0)
    assert (slowest.name, slowest.time) == ("MOREDETOUR0956", 18.42)
    assert all(r.hash and len(r.hash) == 32 for r in recs)
    table = read_verdict_table(shared / "power" / "ppc.allowed")
    assert table.columns == ["Power-Model.txt", "Power-Hardware.txt"]
    assert len(table.rows) == 8141
    assert collections.Counter(table.rows.values()) == {
        ("Ok", "Ok"): 3131,
        ("Ok", "No"): 1002,
        ("No", "No"): 4008,
    }
    # herd's log agrees with column 1 of the table on every test
    assert {r.name: r.verdict for r in recs} == {n: v[0] for n, v in table.rows.items()}


def test_x86_logs(shared: Path) -> None:
    counts = {}
    for log in sorted((shared / "x86").rglob("herd7-*.log")):
        recs = read_herd_log(log)
        counts[log.relative_to(shared).as_posix()] = (
            len(recs),
            sum(r.verdict == "Ok" for r in recs),
        )
    assert counts == {
        "x86/generated/herd7-sc.log": (452, 0),
        "x86/generated/herd7-x86tso.log": (452, 99),
        "x86/herd7-tests-sc.log": (23, 0),
        "x86/herd7-tests-x86tso.log": (23, 6),
    }


def test_expectations_autodetect(shared: Path) -> None:
    log = read_expectations(shared / "power" / "herd7-ppc.log")
    table = read_expectations(shared / "power" / "ppc.allowed")
    hw = read_expectations(shared / "power" / "ppc.allowed", column=1)
    assert len(log) == len(table) == len(hw) == 8141
    assert log["MP"].record is not None and table["MP"].record is None
    assert log["MP"].verdict == table["MP"].verdict == "Ok"
    assert sum(e.verdict == "Ok" for e in hw.values()) == 3131
    assert sum(e.verdict == "Ok" for e in table.values()) == 4133


def test_block_fields() -> None:
    ((line, r),) = log_blocks(MP_BLOCK, "x.log")
    assert (r.name, r.kind, r.verdict, r.positive, r.negative) == ("MP", "Allowed", "Ok", 1, 3)
    assert r.states[2] == "1:r1=1; 1:r3=0;"
    assert r.condition == "exists (1:r1=1 /\\ 1:r3=0)" and r.quant == "exists"
    assert (r.observation, r.obs_positive, r.obs_negative) == ("Sometimes", 1, 3)
    assert r.time == 0.0 and r.hash == "237fae775d3e8c7efd484ad95ba9d32b" and line == 1
    assert r.verdict_line == "Ok" and r.candidates is None
    assert format_result(r) == MP_BLOCK


def test_block_variants() -> None:
    text = (
        MP_BLOCK.replace("Ok\n", "Loop Undef\n")
        .replace("Negative: 3\n", "Negative: 3\nFlag *undef*\nFlag Dr\n")
        .replace("Hash=", "Candidates MP 12\nHash=")
    )
    text = "Warning: something herd said\n" + text + text.replace("Test MP", "Test MP2")
    (la, a), (lb, b) = log_blocks(text)
    assert a.loop and a.verdict == "Undef" and a.flags == ["*undef*", "Dr"]
    assert a.verdict_line == "Loop Undef"
    assert a.candidates == 12 and b.name == "MP2" and (la, lb) == (2, 19)
    assert text.split("\n", 1)[1].startswith(format_result(a))


@pytest.mark.parametrize(
    "mutate,line",
    [
        (lambda t: t.replace("States 4", "States 5"), 7),
        (lambda t: t.replace("Witnesses\n", ""), 8),
        (lambda t: t.replace("Positive: 1", "Positive: x"), 9),
        (lambda t: t.replace("Observation MP Sometimes", "Observation MP Often"), 11),
        (lambda t: t.replace("Hash=237fae775d3e8c7efd484ad95ba9d32b\n", "Hash=1\nbogus\n"), 14),
        (lambda t: t[: t.index("Condition")], 9),  # truncated: at the last line
    ],
)
def test_broken_logs(mutate, line: int) -> None:
    with pytest.raises(InputError) as e:
        parse_herd_log(mutate(MP_BLOCK), "bad.log")
    assert e.value.path == "bad.log" and e.value.line == line
    assert e.value.render().startswith(f"bad.log:{line}:")


def test_table_parsing_and_errors() -> None:
    t = parse_verdict_table(
        "*Revalidation*\n" + " " * 10 + "| A B\n" + "-" * 30 + "\nT1   | Ok  No\n" + "-" * 30 + "\n"
    )
    assert t.columns == ["A", "B"] and t.rows == {"T1": ("Ok", "No")}
    for bad in ("T1 Ok No\n", "T1 |\n", "T1 | Ok\nT1 | No\n"):
        with pytest.raises(InputError):
            parse_verdict_table(bad, "t.allowed")


def test_detect_and_missing(tmp_path: Path) -> None:
    assert detect_format(MP_BLOCK) == "log"
    assert detect_format("\n*Revalidation*\n") == "table"
    assert detect_format("hello\n") == "unknown"
    f = tmp_path / "x.txt"
    f.write_text("hello\n")
    with pytest.raises(InputError, match="not a herd7 log"):
        read_expectations(f)
    with pytest.raises(InputError) as e:
        read_expectations(tmp_path / "absent.log")
    assert e.value.header() == f"{tmp_path / 'absent.log'}:0:0: error: no such file"
    with pytest.raises(InputError, match="directory"):
        read_expectations(tmp_path)
    (tmp_path / "bin.log").write_bytes(b"Test \xff\xfe\n")
    with pytest.raises(InputError, match="UTF-8"):
        read_expectations(tmp_path / "bin.log")


def test_state_line() -> None:
    assert parse_state_line("0:r1=x; 1:EAX=-2; [y]=0x10;") == [
        (RegLoc(0, "r1"), Sym("x")),
        (RegLoc(1, "EAX"), -2),
        (MemLoc("y"), 16),
    ]
