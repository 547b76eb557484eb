"""Nesting of every kind, at swept depths, through every command that reads it (issue 29
class 3, issue 32 item 7): a result, or one clean "nested too deeply" error at a
documented limit — never a RecursionError, an internal error or a crash.

Conditions nest at most ``MAX_CONDITION_DEPTH`` deep; C programs nest as deep as the
deep thread allows (``litmus.base.deep``: thousands of levels); chains of ``@index`` files
are read without recursion, chains of ``-conf`` files up to ``MAX_CONF_DEPTH``; cat
models nest as deep as their own clean limit (``cat.errors.TOO_DEEP``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.hostile import check, one_error, run

from herdsman.herd_compat.cli.herd7opts import MAX_CONF_DEPTH
from herdsman.litmus.state import MAX_CONDITION_DEPTH

ROOT = Path(__file__).resolve().parents[2]
SB = str(ROOT / "litmus" / "examples" / "x86" / "SB.litmus")
TOO_DEEP = "nests more than"


# ----------------------------------------------------------------------------- conditions


def _negations(n: int) -> str:
    return "~" * n + "(x=1)"


def _alternations(n: int) -> str:
    p = "x=1"
    for i in range(n - 1):
        p = f"(x=1 /\\ {p})" if i % 2 else f"(x=1 \\/ {p})"
    return p


def _implications(n: int) -> str:
    return "(x=1 => " * (n - 1) + "x=1" + ")" * (n - 1)


SHAPES = {"negations": _negations, "alternations": _alternations, "implications": _implications}
DEPTHS = [1, MAX_CONDITION_DEPTH, MAX_CONDITION_DEPTH + 1, 1000, 10_000]


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_conditions(shape: str, depth: int, tmp_path: Path, capsys) -> None:
    prop = SHAPES[shape](depth)
    deep = (depth if shape == "negations" else depth - 1) > MAX_CONDITION_DEPTH
    tests = {
        "exists": f"X86 T\n{{ x=0; }}\n P0 ;\n MOV [x],$1 ;\nexists ({prop})\n",
        "filter": f"X86 T\n{{ x=0; }}\n P0 ;\n MOV [x],$1 ;\nfilter ({prop})\nexists (x=1)\n",
        "C": f"C T\n{{ x=0; }}\nP0(int *x) {{ WRITE_ONCE(*x, 1); }}\nexists ({prop})\n",
    }
    for kind, text in tests.items():
        f = tmp_path / "t.litmus"
        f.write_text(text)
        cmds = [["parse"], ["run", "--model", "sc"], ["herd7", "-model", "sc"]]
        if kind == "exists":
            cmds += [["explain", "sc"]]
        for cmd in cmds:
            if kind == "C" and cmd[0] == "parse":
                continue  # parse reads PPC and X86 tests
            a = run(capsys, [*cmd, str(f)])
            what = f"{shape} {depth} {kind} {cmd[0]}"
            if deep:
                one_error(a, TOO_DEEP, what)
            else:  # explain takes a conjunction of equalities: clean refusals otherwise
                check(a, what)
                assert a.rc in (0, 1) or cmd[0] == "explain", (what, a.err)


@pytest.mark.parametrize("depth", [10, MAX_CONDITION_DEPTH + 1, 5000])
def test_conditions_given_on_the_command_line(depth: int, tmp_path: Path, capsys) -> None:
    """``--state`` (explain) and ``-conds`` files are conditions too."""
    conds = tmp_path / "conds"
    conds.write_text(f'SB "exists ({"~" * depth}(0:EAX=0))"\n')
    for argv in (
        ["explain", "sc", SB, "--state", "~" * depth + "(0:EAX=0)"],
        ["herd7", "-conds", str(conds), SB],
    ):
        a = run(capsys, argv)
        check(a, argv[0])
        if depth > MAX_CONDITION_DEPTH:
            assert a.rc == 2 and TOO_DEEP in a.err, (argv[0], a.err)


# ----------------------------------------------------------------------------- C

_HEAD = "#include <assert.h>\nint x, y;\n"


def _main(body: str, before: str = "") -> str:
    return f"{_HEAD}{before}int main() {{\n{body}\n  return 0;\n}}\n"


def _calls(n: int) -> str:
    fs = "int f0(int a) { return a; }\n" + "".join(
        f"int f{i}(int a) {{ return f{i - 1}(a) + 1; }}\n" for i in range(1, n)
    )
    return _main(f"  x = f{n - 1}(1);", fs)


def _structs(n: int) -> str:
    ss = "struct s0 { int v; };\n" + "".join(
        f"struct s{i} {{ struct s{i - 1} a; }};\n" for i in range(1, n)
    )
    return _main("  x = 1;", ss + f"struct s{n - 1} g;\n")


def _typedefs(n: int) -> str:
    ts = "typedef int t0;\n" + "".join(f"typedef t{i - 1} t{i};\n" for i in range(1, n))
    return _main(f"  t{n - 1} z = 1;\n  x = z;", ts)


#: Generated C of each nesting kind at depth n (code generators reach these).
C_SHAPES = {
    "sum of constants": lambda n: _main("  x = " + " + ".join(["1"] * n) + ";"),
    "parentheses": lambda n: _main("  x = " + "(" * n + "1" + ")" * n + ";"),
    "casts": lambda n: _main("  x = " + "(int)" * n + "1;"),
    "unary minus": lambda n: _main("  x = " + "- " * n + "1;"),
    "logical not": lambda n: _main("  x = " + "!" * n + "1;"),
    "ternaries": lambda n: _main("  x = " + "1 ? 1 : " * n + "0;"),
    "blocks": lambda n: _main("{" * n + " x = 1; " + "}" * n),
    "nested ifs": lambda n: _main("  int z = 0;\n" + "  if (z == 0) " * n + "x = 1;"),
    "sequential ifs": lambda n: _main(
        "  int z = 7;\n" + "".join(f"  if (z == {i}) x = {i};\n" for i in range(n))
    ),
    "calls": _calls,
    "structs": _structs,
    "typedefs": _typedefs,
}


@pytest.mark.parametrize("depth", [300, 1000, 2000, 50_000])
@pytest.mark.parametrize("shape", sorted(C_SHAPES))
def test_c_nesting(shape: str, depth: int, tmp_path: Path, capsys) -> None:
    """Up to 2,000 levels every kind is read and run; far deeper ones (50,000) are one
    "nested too deeply" error (or, for kinds that do not nest in Python, a result)."""
    if shape in ("calls", "structs", "typedefs", "sequential ifs") and depth > 2000:
        pytest.skip("beyond the 1 MB source limit or the 20,000 operations of a thread")
    f = tmp_path / "deep.c"
    f.write_text(C_SHAPES[shape](depth))
    a = run(capsys, ["verify", "--timeout", "60", str(f)])
    what = f"{shape} at {depth}"
    check(a, what)
    if depth <= 2000:
        assert a.rc in (0, 3), (what, a.err[:300])
    elif a.rc == 2:
        assert "nested too deeply" in a.err or "more than" in a.err, (what, a.err[:300])


@pytest.mark.parametrize("terms", [10, 400, 2000])
def test_c_litmus_long_expressions(terms: int, tmp_path: Path, capsys) -> None:
    f = tmp_path / "cl.litmus"
    sum_ = " + ".join(["1"] * terms)
    f.write_text(
        "C T\n{ x=0; }\nP0(int *x) {\n"
        f"  int r0 = {sum_};\n  WRITE_ONCE(*x, r0);\n}}\nexists (x={terms})\n"
    )
    for argv in (["run", "--model", "sc", str(f)], ["herd7", "-model", "sc", str(f)]):
        a = run(capsys, argv)
        check(a, argv[0])
        assert a.rc == 0 and "Ok" in a.out, a.err


def test_c_self_including_file(tmp_path: Path, capsys) -> None:
    f = tmp_path / "self.c"
    f.write_text('#include "self.c"\nint main() { return 0; }\n')
    one_error(run(capsys, ["verify", str(f)]), "#include nested more than 200 deep")
    a, b = tmp_path / "a.h", tmp_path / "b.h"
    a.write_text('#include "b.h"\n')
    b.write_text('#include "a.h"\n')
    g = tmp_path / "pair.c"
    g.write_text('#include "a.h"\nint main() { return 0; }\n')
    one_error(run(capsys, ["verify", str(g)]), "#include nested more than 200 deep")


# ----------------------------------------------------------------------------- files


@pytest.mark.parametrize("length", [2, 1000, 3000])
def test_index_chains(length: int, tmp_path: Path, capsys) -> None:
    """@index files each naming the next: read without recursion, every test found."""
    for i in range(length):
        nxt = f"@i{i + 1}" if i + 1 < length else SB
        (tmp_path / f"i{i}").write_text(nxt + "\n")
    for argv in (["run", "--model", "sc"], ["herd7", "-model", "sc"]):
        a = run(capsys, [*argv, f"@{tmp_path / 'i0'}"])
        check(a)
        assert a.rc == 0 and a.out.startswith("Test SB Allowed"), a.err[:300]


@pytest.mark.parametrize("length", [2, MAX_CONF_DEPTH, MAX_CONF_DEPTH + 1, 3000])
def test_conf_chains(length: int, tmp_path: Path, capsys) -> None:
    for i in range(length):
        line = f"conf {tmp_path / f'c{i + 1}.cfg'}" if i + 1 < length else "model sc"
        (tmp_path / f"c{i}.cfg").write_text(line + "\n")
    a = run(capsys, ["herd7", "-conf", str(tmp_path / "c0.cfg"), SB])
    if length <= MAX_CONF_DEPTH:
        check(a)
        assert a.rc == 0, a.err
    else:
        one_error(a, f"-conf files nested more than {MAX_CONF_DEPTH} deep")


# ----------------------------------------------------------------------------- cat


CAT_SHAPES = {
    "parentheses": lambda n: "(" * n + "po" + ")" * n,
    "complements": lambda n: "~" * n + "po",
    "sequences": lambda n: " ; ".join(["po"] * n),
    "unions": lambda n: " | ".join(["po"] * n),
    "nested sequences": lambda n: "(po ; " * n + "po" + ")" * n,
    "lets": lambda n: "".join(f"let a{i} = po in " for i in range(n)) + "po",
}


@pytest.mark.parametrize("depth", [100, 3000, 30_000])
@pytest.mark.parametrize("shape", sorted(CAT_SHAPES))
def test_cat_nesting(shape: str, depth: int, tmp_path: Path, capsys) -> None:
    m = tmp_path / "deep.cat"
    m.write_text(f'"deep"\nlet x = {CAT_SHAPES[shape](depth)}\nacyclic x as deep\n')
    commands = [["cat", "check", str(m)], ["run", "--model", str(m), SB]]
    for argv in commands[: 1 if depth > 3000 else 2]:
        a = run(capsys, argv)
        what = f"{shape} {depth} {argv[0]}"
        check(a, what)
        assert a.rc in (0, 2), what
        if a.rc == 2:
            assert "too deeply nested" in a.err, (what, a.err[:300])
