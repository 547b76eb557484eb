"""Malformed variants of real tests: one error line at the right place, exit status 2.

Every variant is run through ``litmus.cli.main`` (what ``herdsman parse`` runs).  Each
mutation decides what it expects: an error (often at an exact line and column, with the
message it must contain) or, when the mutation leaves a valid test (a deleted info line, a
duplicated init item, ``=`` written ``==``), a successful parse with a stated relation to
the original.  Never a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.herd_compat.cli.parse import main
from herdsman.litmus.base.ir import Branch, Label, Not
from herdsman.litmus.parser import parse_file, parse_text
from herdsman.litmus.test import LitmusTest

ERROR_LINE = re.compile(r"^[^:]+:\d+:\d+: error: .+$")

BASES = [
    ("power", "tests", "MP.litmus"),
    ("power", "tests", "MP+lwsync+ctrlisync.litmus"),
    ("power", "tests", "CoWR2.litmus"),
    ("power", "tests", "isa2v2.litmus"),
    ("power", "tests", "CoRR5.litmus"),
    ("power", "tests", "rich1.litmus"),
    ("power", "tests", "b5.litmus"),
    ("power", "tests", "ppc-cookbook6.4.noloop.litmus"),
    ("power", "tests", "LB+ctrls.litmus"),
    ("x86", "tests", "SB.litmus"),
    ("x86", "generated", "X300.litmus"),
]


@dataclass
class Variant:
    name: str
    data: bytes
    error: bool
    at: tuple[int, int] | None = None  # expected (line, col) of the error
    contains: str = ""  # expected part of the error message
    check: Callable[[LitmusTest, LitmusTest], bool] | None = None  # valid: (orig, new) -> ok
    notes: list[str] = field(default_factory=list)


def pos_of(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def err(
    name: str, text: str | bytes, at: tuple[int, int] | None = None, contains: str = ""
) -> Variant:
    data = text.encode() if isinstance(text, str) else text
    return Variant(name, data, True, at, contains)


def ok(name: str, text: str, check: Callable[[LitmusTest, LitmusTest], bool]) -> Variant:
    return Variant(name, text.encode(), False, check=check)


def same(o: LitmusTest, n: LitmusTest) -> bool:
    return o == n


def same_but_info(o: LitmusTest, n: LitmusTest) -> bool:
    return (o.threads, o.init, o.condition) == (n.threads, n.init, n.condition)


def ninstr(t: LitmusTest) -> int:
    return sum(1 for th in t.threads for i in th if not isinstance(i, Label))


class Shape:
    """Where things are in a test's text (found by plain text search, not by the parser)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.brace_open = text.index("{")
        self.brace_close = text.index("}", self.brace_open)
        self.header_idx = next(
            i
            for i, ln in enumerate(self.lines)
            if re.match(r"\s*P0\s*\|", ln) or re.fullmatch(r"\s*P0\s*;", ln)
        )
        cond = re.search(r"^\s*(exists|final|locations|forall|~exists)", text, re.M)
        assert cond is not None
        self.cond_start = cond.start(1)
        self.cond_idx = text[: self.cond_start].count("\n")
        self.rows = [
            i
            for i in range(self.header_idx + 1, self.cond_idx)
            if self.lines[i].rstrip().endswith(";")
            and "|" in self.lines[i]
            and "(*" not in self.lines[i]
        ]
        code = "\n".join(self.lines[self.header_idx + 1 : self.cond_idx])
        self.has_branch = bool(re.search(r"\b(b|beq|bne|blt|bgt|ble|bge|JMP|JE|JNE)\b", code))

    def lines_text(self, lines: list[str]) -> str:
        return "\n".join(lines)


def variants(text: str, arch: str) -> list[Variant]:
    s = Shape(text)
    L = s.lines
    out: list[Variant] = []
    n_threads = L[s.header_idx].count("|") + 1
    end_pos = pos_of(text, len(text))

    # ---- truncations
    out.append(err("empty", "", (1, 1), "empty file"))
    out.append(err("blank", "  \n\n", (1, 1), "empty file"))
    out.append(err("arch-only", text[: len(arch)], (1, 1), "first line"))
    if s.brace_close - s.brace_open > 3:
        out.append(
            err("cut-in-init", text[: s.brace_open + 3], pos_of(text, s.brace_open), "missing '}'")
        )
    out.append(err("cut-after-init", text[: s.brace_close + 1], None, "thread header"))
    header_line_start = sum(len(x) + 1 for x in L[: s.header_idx])
    bar = text.index("|", header_line_start) if n_threads > 1 else None
    if bar is not None:
        out.append(err("cut-in-header", text[: bar + 1], None, ""))
    first_row = s.rows[0]
    row_start = sum(len(x) + 1 for x in L[:first_row])
    row_text = L[first_row]
    cut = row_start + len(row_text) // 2
    out.append(err("cut-in-row", text[:cut], None, "not terminated by ';'"))
    paren = text.index("(", s.cond_start)
    out.append(
        err(
            "cut-in-condition",
            text[: paren + 1],
            pos_of(text[: paren + 1], paren + 1),
            "unexpected end of the condition",
        )
    )
    if not s.has_branch:
        kept = text[: row_start + len(row_text)]
        out.append(
            ok(
                "cut-after-row",
                kept + "\n",
                lambda o, n: (
                    n.condition.quant == "forall"
                    and all(
                        o.threads[i][: len(n.threads[i])] == n.threads[i]
                        for i in range(len(o.threads))
                    )
                ),
            )
        )

    # ---- deleted lines
    def without(i: int) -> str:
        return s.lines_text(L[:i] + L[i + 1 :])

    out.append(err("del-first-line", without(0), (1, 1), ""))
    for i, ln in enumerate(L[: s.header_idx]):
        if ln.strip() == "{":
            out.append(err(f"del-open-brace-{i}", without(i), None, ""))
        elif ln.strip() == "}":
            out.append(err(f"del-close-brace-{i}", without(i), None, ""))
        elif re.match(r"[A-Za-z][\w/.\-]*=", ln) and i < text[: s.brace_open].count("\n"):
            out.append(
                ok(
                    f"del-info-{i}",
                    without(i),
                    lambda o, n: same_but_info(o, n) and len(n.info) == len(o.info) - 1,
                )
            )
        elif ln.strip().startswith("(*") and ln.strip().endswith("*)"):
            out.append(ok(f"del-comment-{i}", without(i), same))
        elif s.brace_open < sum(len(x) + 1 for x in L[:i]) < s.brace_close and "=" in ln:
            out.append(
                ok(
                    f"del-init-{i}",
                    without(i),
                    lambda o, n: len(n.init) < len(o.init) and n.threads == o.threads,
                )
            )
    out.append(
        err(
            "del-thread-header",
            without(s.header_idx),
            (s.header_idx + 1, 1 + len(L[s.header_idx + 1]) - len(L[s.header_idx + 1].lstrip())),
            "thread header",
        )
    )
    for i in s.rows:
        defines_label = re.search(r"\w+:", L[i]) is not None
        cells = [c.strip() for c in L[i].rstrip().rstrip(";").split("|")]
        if defines_label and s.has_branch:
            out.append(err(f"del-row-{i}", without(i), None, "branch to label"))
        elif not defines_label:
            k = sum(1 for c in cells if c)
            out.append(ok(f"del-row-{i}", without(i), lambda o, n, k=k: ninstr(n) == ninstr(o) - k))
    cond_line = L[s.cond_idx]
    if cond_line.strip() in ("exists", "final"):
        out.append(err("del-quantifier", without(s.cond_idx), None, "not terminated"))
        out.append(
            err("del-proposition", without(s.cond_idx + 1), None, "unexpected end of the condition")
        )

    # ---- duplicated lines
    def doubled(i: int) -> str:
        return s.lines_text(L[: i + 1] + L[i:])

    hdr = L[s.header_idx]
    out.append(
        err(
            "dup-thread-header",
            doubled(s.header_idx),
            (s.header_idx + 2, hdr.index("P0") + 1),
            f"unknown {arch} instruction 'P0'",
        )
    )
    for i in s.rows:
        if re.search(r"\w+:", L[i]):
            out.append(err(f"dup-row-{i}", doubled(i), None, "defined twice"))
        else:
            cells = [c.strip() for c in L[i].rstrip().rstrip(";").split("|")]
            k = sum(1 for c in cells if c)
            out.append(ok(f"dup-row-{i}", doubled(i), lambda o, n, k=k: ninstr(n) == ninstr(o) + k))
    for i, ln in enumerate(L[: s.header_idx]):
        if ln.strip() == "{":  # braces nest in the init section (herd's splitter)
            at = (i + 1, ln.index("{") + 1)
            out.append(err(f"dup-open-brace-{i}", doubled(i), at, "unterminated init section"))
        if (
            s.brace_open < sum(len(x) + 1 for x in L[:i]) < s.brace_close
            and "=" in ln
            and "{" not in ln
            and "}" not in ln
        ):
            out.append(
                ok(
                    f"dup-init-{i}",
                    doubled(i),
                    lambda o, n: n.threads == o.threads and set(n.init) == set(o.init),
                )
            )
    if cond_line.strip() in ("exists", "final"):
        out.append(err("dup-proposition", doubled(s.cond_idx + 1), None, "syntax error"))

    # ---- unknown mnemonics, garbled operands (exact positions)
    seen: set[str] = set()
    for i in s.rows:
        ln = L[i]
        for m in re.finditer(r"(?:(?<=^)|(?<=[|:]))\s*([A-Za-z][\w.]*)(?=[ \t])", ln):
            mn = m.group(1)
            if mn in seen or mn.startswith(("LC", "L")) and mn.endswith(":"):
                continue
            seen.add(mn)
            bad = mn + ("Z" if mn.isupper() else "z")
            new = ln[: m.start(1)] + bad + ln[m.end(1) :]
            out.append(
                err(
                    f"unknown-{mn}",
                    s.lines_text(L[:i] + [new] + L[i + 1 :]),
                    (i + 1, m.start(1) + 1),
                    f"unknown {arch} instruction '{bad}'",
                )
            )
    for i in s.rows:
        ln = L[i]
        if arch == "PPC":
            m = re.search(r"(?<=[ ,])r(\d+)(?=,)", ln)
            if m:
                new = ln[: m.start()] + "r77" + ln[m.end() :]
                out.append(
                    err(
                        "bad-register",
                        s.lines_text(L[:i] + [new] + L[i + 1 :]),
                        (i + 1, m.start() + 1),
                        "bad PPC register 'r77'",
                    )
                )
            m = re.search(r"\d\((r\d+|%\w+)\)", ln)
            if m:
                new = ln[: m.end() - 1] + ln[m.end() :]
                out.append(
                    err(
                        "unclosed-paren",
                        s.lines_text(L[:i] + [new] + L[i + 1 :]),
                        None,
                        "malformed memory operand",
                    )
                )
                new = ln[: m.end()] + ")" + ln[m.end() :]
                out.append(
                    err(
                        "extra-paren",
                        s.lines_text(L[:i] + [new] + L[i + 1 :]),
                        (i + 1, m.end() + 1),
                        "expected ','",
                    )
                )
        else:
            m = re.search(r"E[A-D]X", ln)
            if m:
                new = ln[: m.start()] + m.group().lower() + ln[m.end() :]
                out.append(
                    err(
                        "lower-register",
                        s.lines_text(L[:i] + [new] + L[i + 1 :]),
                        (i + 1, m.start() + 1),
                        f"bad X86 register '{m.group().lower()}'",
                    )
                )
            m = re.search(r"\[(\w+)\]", ln)
            if m:
                new = ln[: m.end() - 1] + ln[m.end() :]
                out.append(
                    err(
                        "unclosed-bracket",
                        s.lines_text(L[:i] + [new] + L[i + 1 :]),
                        None,
                        "malformed memory operand",
                    )
                )
            m = re.search(r"\$(\d+)", ln)
            if m:
                new = ln[: m.start() + 1] + "z" + ln[m.end() :]
                out.append(
                    err(
                        "bad-immediate",
                        s.lines_text(L[:i] + [new] + L[i + 1 :]),
                        (i + 1, m.start() + 1),
                        "unexpected character '$'",
                    )
                )
        m = re.search(r",", ln)
        if m:
            new = ln[: m.end()] + "," + ln[m.end() :]
            out.append(
                err(
                    "double-comma",
                    s.lines_text(L[:i] + [new] + L[i + 1 :]),
                    (i + 1, m.end() + 1),
                    "found ','",
                )
            )
        break  # garble the first row only

    # ---- table structure
    row = L[first_row]
    if n_threads > 1:
        b = row.index("|")
        out.append(
            err(
                "missing-bar",
                s.lines_text(L[:first_row] + [row[:b] + " " + row[b + 1 :]] + L[first_row + 1 :]),
                None,
                "cell",
            )
        )
    b = row.rindex(";")
    out.append(
        err(
            "extra-bar",
            s.lines_text(L[:first_row] + [row[:b] + "| ;"] + L[first_row + 1 :]),
            None,
            "cell",
        )
    )
    if n_threads > 1 and len(s.rows) > 1:
        out.append(
            err(
                "missing-semicolon",
                s.lines_text(L[:first_row] + [row[:b] + " "] + L[first_row + 1 :]),
                None,
                "cell",
            )
        )
        p1 = hdr.index("P1")
        p0 = hdr.index("P0")
        swapped = hdr[:p0] + "P1" + hdr[p0 + 2 : p1] + "P0" + hdr[p1 + 2 :]
        out.append(
            err(
                "swapped-threads",
                s.lines_text(L[: s.header_idx] + [swapped] + L[s.header_idx + 1 :]),
                (s.header_idx + 1, hdr.index("P0") + 1),
                "expected P0",
            )
        )
    out.append(
        err(
            "unterminated-comment-in-code",
            s.lines_text(L[:first_row] + ["(*"] + L[first_row:]),
            (first_row + 1, 1),
            "unterminated comment",
        )
    )
    out.append(
        ok("comment-in-code", s.lines_text(L[:first_row] + ["(* note *)"] + L[first_row:]), same)
    )
    if text.count('"') % 2 == 0:
        out.append(
            err(
                "unterminated-string",
                s.lines_text(L[:first_row] + ['"'] + L[first_row:]),
                (first_row + 1, 1),
                "unterminated string",
            )
        )
    else:  # an unterminated doc string: herd's doc pattern runs to the added quote
        out.append(
            err(
                "unterminated-string",
                s.lines_text(L[:first_row] + ['"'] + L[first_row:]),
                None,
                "missing init section",
            )
        )

    # ---- condition
    ct = text[s.cond_start :]
    kw = re.search(r"exists|final|forall", ct)
    assert kw is not None
    p = s.cond_start + ct.index("(", kw.end())
    out.append(err("extra-open-paren", text[:p] + "(" + text[p:], None, "condition"))
    out.append(err("missing-open-paren", text[:p] + text[p + 1 :], None, "condition"))
    atom = re.search(r"\b(\d):(r\d+|E[A-D]X)\b", text[s.cond_start :])
    if atom:
        a = s.cond_start + atom.start()
        bad_reg = "q1" if arch == "PPC" else "EQX"
        out.append(
            err(
                "condition-bad-register",
                text[: atom.start(2) + s.cond_start] + bad_reg + text[atom.end(2) + s.cond_start :],
                pos_of(text, atom.start(2) + s.cond_start),
                f"bad {arch} register",
            )
        )
        out.append(
            err(
                "condition-bad-thread",
                text[:a] + "9" + text[a + 1 :],
                pos_of(text, a),
                "thread 9 does not exist",
            )
        )
    eq = text.index("=", kw.end() + s.cond_start)
    out.append(ok("condition-eqeq", text[:eq] + "==" + text[eq + 1 :], same))
    out.append(
        ok(
            "condition-neq",
            text[:eq] + "!=" + text[eq + 1 :],
            lambda o, n: n.condition != o.condition and _has_not(n),
        )
    )
    out.append(
        err(
            "condition-keyword-typo",
            text[: s.cond_start + kw.start()] + "exist" + text[s.cond_start + kw.end() :],
            None,
            "",
        )
    )
    conj = text.find("/\\", s.cond_start)
    if conj > 0:
        out.append(
            err(
                "condition-bad-operator",
                text[:conj] + "/" + text[conj + 2 :],
                pos_of(text, conj),
                "unexpected character '/'",
            )
        )

    # ---- init
    im = re.search(r"(?<![\w%])(\d):(r\d+|E[A-D]X)\s*=", text[s.brace_open : s.brace_close])
    if im:
        a = s.brace_open + im.start()
        r = s.brace_open + im.start(2)
        out.append(
            err(
                "init-bad-thread",
                text[:a] + "7" + text[a + 1 :],
                pos_of(text, a),
                "thread 7 does not exist",
            )
        )
        bad_reg = "r99" if arch == "PPC" else "EZX"
        out.append(
            err(
                "init-bad-register",
                text[:r] + bad_reg + text[im.end(2) + s.brace_open :],
                pos_of(text, r),
                f"bad {arch} register",
            )
        )
        v = text.index("=", r) + 1
        semi = text.find(";", v)
        if 0 < semi < s.brace_close:
            out.append(err("init-missing-value", text[:v] + text[semi:], None, "init section"))
        dup = f" {im.group(1)}:{im.group(2)}=12345;"
        out.append(
            err(
                "init-conflict",
                text[: s.brace_close] + dup + text[s.brace_close :],
                pos_of(text, s.brace_close + 1),
                "initialised twice",
            )
        )
    else:  # no N:reg= item to garble: add one
        reg = "EAX" if arch == "X86" else "r9"
        out.append(
            ok(
                "init-add",
                text[: s.brace_open + 1] + f"0:{reg}=1;" + text[s.brace_open + 1 :],
                lambda o, n: len(n.init) == len(o.init) + 1 and n.threads == o.threads,
            )
        )
        garbled = text[: s.brace_open + 1] + f"0:{reg}=;" + text[s.brace_open + 1 :]
        out.append(
            err(
                "init-garbage",
                garbled,
                pos_of(garbled, s.brace_open + 1 + len(f"0:{reg}=")),
                "init section",
            )
        )

    # ---- architecture, bytes
    out.append(err("arch-mips", "MIPS" + text[len(arch) :], (1, 1), "not supported"))
    out.append(err("arch-unknown", "FOO" + text[len(arch) :], (1, 1), "not an implemented"))
    raw = text.encode()
    for label, off in (
        ("header", len(arch) + 1),
        ("init", s.brace_open + 1),
        ("code", row_start + 1),
        ("condition", s.cond_start + 1),
    ):
        bad = raw[:off] + b"\xff" + raw[off:]
        out.append(err(f"non-utf8-{label}", bad, pos_of(text, off), "invalid UTF-8 byte 0xff"))
    bad = raw[:row_start] + b"\xc3\x28" + raw[row_start:]
    out.append(err("non-utf8-sequence", bad, pos_of(text, row_start), "invalid UTF-8 byte 0xc3"))
    if end_pos:
        out.append(ok("trailing-blank-lines", text + "\n\n\n", same))
    return out


def _has_not(t: LitmusTest) -> bool:
    def walk(p) -> bool:
        if isinstance(p, Not):
            return True
        return any(walk(q) for q in getattr(p, "props", ()))

    return walk(t.condition.prop)


def run(path: Path, capsys) -> tuple[int, str, str]:
    code = main([str(path)])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("base", BASES, ids=["/".join(b[1:]) for b in BASES])
def test_malformed_variants(base, tmp_path, capsys):
    src = shared_path(*base)
    text = src.read_text()
    arch = text.split()[0]
    original = parse_file(src)
    problems: list[str] = []
    vs = variants(text, arch)
    assert len(vs) >= 30
    for i, v in enumerate(vs):
        path = tmp_path / f"v{i:03d}-{re.sub(r'[^A-Za-z0-9+.-]', '_', v.name)}.litmus"
        path.write_bytes(v.data)
        code, out, errtext = run(path, capsys)
        where = f"{base[-1]} [{v.name}]"
        if "Traceback" in errtext or "internal error" in errtext:
            problems.append(f"{where}: crashed: {errtext}")
            continue
        if v.error:
            lines = errtext.splitlines()
            if code != 2 or len(lines) != 1 or not ERROR_LINE.match(lines[0]) or out:
                problems.append(
                    f"{where}: expected one error line and status 2, got {code} "
                    f"{errtext!r} (stdout {out[:60]!r})"
                )
                continue
            if not lines[0].startswith(str(path) + ":"):
                problems.append(f"{where}: error names another file: {lines[0]}")
            if v.at is not None and f":{v.at[0]}:{v.at[1]}: error: " not in lines[0]:
                problems.append(f"{where}: expected the error at {v.at}, got {lines[0]}")
            if v.contains and v.contains not in lines[0]:
                problems.append(f"{where}: expected {v.contains!r} in {lines[0]}")
        else:
            if code != 0 or errtext:
                problems.append(f"{where}: expected a valid test, got {code} {errtext!r}")
                continue
            new = parse_file(path)
            assert v.check is not None
            if not v.check(original, new):
                problems.append(f"{where}: parsed, but not as expected")
            if parse_text(out, "printed") != new:
                problems.append(f"{where}: printed form does not parse back")
    assert not problems, "\n".join(problems)


def test_enough_variants(shared):
    total = errors = valid = 0
    for base in BASES:
        text = shared_path(*base).read_text()
        for v in variants(text, text.split()[0]):
            total += 1
            errors += v.error
            valid += not v.error
    assert total >= 200 and errors >= 150 and valid >= 30, (total, errors, valid)


def test_missing_file_and_directory(tmp_path, capsys):
    code, out, errtext = run(tmp_path / "nope.litmus", capsys)
    assert code == 2 and ERROR_LINE.match(errtext.strip()) and "no such file" in errtext
    code, out, errtext = run(tmp_path, capsys)
    assert code == 2 and ERROR_LINE.match(errtext.strip())


def test_errors_do_not_stop_other_files(tmp_path, capsys):
    good = tmp_path / "good.litmus"
    good.write_text("X86 T\n{ }\n P0 ;\n MOV [x],$1 ;\nexists ([x]=1)\n")
    bad = tmp_path / "bad.litmus"
    bad.write_text("X86 T\n{ }\n P0 ;\n MOVE [x],$1 ;\n")
    code = main([str(bad), str(good)])
    cap = capsys.readouterr()
    assert code == 2
    assert cap.err == f"{bad}:4:2: error: unknown X86 instruction 'MOVE'\n"
    assert "MOV [x],$1" in cap.out


def test_branch_to_missing_label(capsys, tmp_path):
    p = tmp_path / "t.litmus"
    p.write_text(
        "PPC T\n{0:r2=x;}\n P0 ;\n lwz r1,0(r2) ;\n cmpw r1,r1 ;\n beq L9 ;\nexists (0:r1=0)\n"
    )
    assert main([str(p)]) == 2
    assert capsys.readouterr().err == (
        f"{p}:6:2: error: branch to label 'L9', which thread P0 does not define\n"
    )
    fixed = parse_text(p.read_text().replace("beq L9 ;", "beq L9 ;\n L9: ;"))
    assert isinstance(fixed.threads[0][2].op, Branch)


def test_random_mutations_never_crash(shared):
    """Random edits of real tests: each either parses (and prints back to itself) or is one
    InputError; nothing else escapes."""
    import random

    from herdsman.litmus.base.errors import InputError
    from herdsman.litmus.printer import print_test

    rng = random.Random(7)
    files = sorted((shared / "power" / "tests").glob("*.litmus"))[::401]
    files += sorted((shared / "x86" / "generated").glob("*.litmus"))[::90]
    texts = [f.read_text() for f in files]
    pieces = list('{}()[];|:,=~/\\*"$%&<>!-.019 \nPrEAXL') + [
        "exists",
        "final",
        "(*",
        "*)",
        "LOCK",
        "locations",
        "filter",
        "with",
        "not",
        "P0",
        "0:",
        "lwz",
        "MOV",
        "beq",
        "L0:",
        "<<",
    ]
    valid = errors = 0
    for _ in range(1500):
        t = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(t) + 1)
            if rng.random() < 0.5:
                t = t[:i] + t[i + rng.randint(1, 5) :]
            else:
                t = t[:i] + rng.choice(pieces) + t[i:]
        try:
            parsed = parse_text(t, "f")
        except InputError as exc:
            assert ERROR_LINE.match(exc.render())
            errors += 1
            continue
        assert parse_text(print_test(parsed)) == parsed
        valid += 1
    assert valid > 100 and errors > 500
