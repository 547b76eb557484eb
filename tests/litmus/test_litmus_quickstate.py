"""The usual init sections and conditions read without the grammar give exactly the
grammar's results (items, offsets, propositions as flattened), and leave it the rest."""

from __future__ import annotations

import pytest
from conftest import shared_path

from herdsman.litmus import state
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.source import read_source
from herdsman.litmus.plainstate import plain_condition, plain_init
from herdsman.litmus.quickstate import quick_condition, quick_init
from herdsman.litmus.splitter import split
from herdsman.litmus.table import parse_program


def _both(arch: str, nthreads: int, start: str, text: str):
    if start == "init_start":
        quick = quick_init(text, arch, nthreads)
    else:
        c = quick_condition(text, arch, nthreads, state.MAX_CONDITION_DEPTH)
        quick = None if c is None else (state.ConditionPart(*c[:3]), c[3])
    if quick is None:
        return None, None
    return quick, state._grammar(arch, start, nthreads, text, "section")


@pytest.mark.parametrize("suite", ["power", "arm", "riscv"])
def test_same_as_the_grammar_on_the_shared_suites(suite: str) -> None:
    tests = shared_path(suite, "tests")
    quick = 0
    for f in (tests / "@all").read_text().split()[::5]:
        src = read_source(tests / f)
        try:
            sp = split(src)
            n = len(parse_program(src, sp.arch, sp.prog))
        except InputError:  # tests herd rejects too: not this test's matter
            continue
        for start, span in (("init_start", sp.init), ("cond_start", sp.cond)):
            got, want = _both(sp.arch, n, start, src.text[span[0] : span[1]])
            if got is not None:
                quick += 1
                assert got == want, f
    assert quick > 0


@pytest.mark.parametrize(
    "text",
    [
        "exists (0:r1=1 /\\ (1:r2=0 \\/ ~x=1) /\\ [y]=2)",
        "~exists (not (a=1 \\/ b=2) /\\ c=3);",
        "forall (x=1 \\/ y=2 \\/ (z=3 \\/ t=4))",
        "not exists x=1",
        "final 0:r1=0x10",
        "locations [x;1:r1;] exists (x=1)",
        "locations[0:r7;1:r7;]\nfilter 0:r8=0 /\\ 1:r8=0\nforall\n(x=1 /\\ 1:r7=0)",
        "locations [x;1:r7;]\n",
        "filter (0:r1=0 /\\ true)",
        "forall true",
        "exists (false \\/ x=1)",
        "exists (not " + "(x=1 /\\ " * 30 + "y=2" + ")" * 31,
    ],
)
def test_conditions(text: str) -> None:
    got, want = _both("PPC", 2, "cond_start", text)
    assert got is not None and got == want


@pytest.mark.parametrize(
    "text",
    [
        "exists (x=1 => y=2)",
        "locations [x int;] exists (x=1)",
        "exists (x=1 (* c *))",
        "(x=1)",
        "exists " + "~" * 101 + "x=1",
        "exists " + "(" * 70 + "x=1" + ")" * 70,
    ],
)
def test_other_forms_go_to_the_grammar(text: str) -> None:
    assert quick_condition(text, "PPC", 2, state.MAX_CONDITION_DEPTH) is None


@pytest.mark.parametrize(
    "text",
    [
        "exists (0:a0=1 /\\ 1 : x5 = -2 /\\ x=y /\\ 0:x6=0X1f)",  # atoms read as one token
        "exists (0:x5=1 /\\ 0:x5=1 /\\ 1:a0=0 /\\ 1:x10=0)",  # repeated, spelled
        "locations [0:a1;] exists (x.y=$z /\\ ~0:s1=3)",
    ],
)
def test_atoms(text: str) -> None:
    got, want = _both("RISCV", 2, "cond_start", text)
    assert got is not None and got == want


@pytest.mark.parametrize(
    "text",
    [
        "exists (2:x5=1)",  # no such thread
        "exists (0:q5=1)",  # no such register
        "exists (true=1)",  # a keyword is no location
        "exists (P1=1)",  # nor a thread's name
        "exists (x=exists)",  # nor a value
        "exists (x=1:x5)",  # a value followed by ':'
        "exists (0:x5=1234567890123456789)",  # beyond the quick reader's digits
        "exists (0:x5=1a)",
    ],
)
def test_atoms_the_grammar_reads(text: str) -> None:
    assert quick_condition(text, "RISCV", 2, state.MAX_CONDITION_DEPTH) is None


def test_init() -> None:
    text = " 0:r1=x; 1:r2=0x10; uint64_t y; int z=2; %a=b; [w]=3; "
    got, want = _both("PPC", 2, "init_start", text)
    assert got is not None and got == want
    assert quick_init("int *p=x;", "PPC", 1) is None  # pointers: the grammar


@pytest.mark.parametrize("suite", ["power", "arm", "riscv", "aarch64"])
def test_plain_readers_same_as_the_tokens(suite: str) -> None:
    """The plain init sections and conditions, read by cutting the text at ``;`` and at
    the connectives, give what the tokens give (and leave them the other texts)."""
    tests = shared_path(suite, "tests")
    sections = []
    for f in (tests / "@all").read_text().split()[::7]:
        src = read_source(tests / f)
        try:
            sp = split(src)
            n = len(parse_program(src, sp.arch, sp.prog))
        except InputError:
            continue
        init, cond = (src.text[a:b] for a, b in (sp.init, sp.cond))
        # and variants the plain readers must refuse or read alike
        for text in (init, init.replace(";", ";;", 1), "int " + init, init + "; ;"):
            sections.append(("init", sp.arch, n, text))
        for text in (cond, cond.replace(" /\\ ", "/\\", 1), cond + ";", cond.replace("(", "~(", 1)):
            sections.append(("cond", sp.arch, n, text))
    plain = 0
    for kind, arch, n, text in sections:
        if kind == "init":
            got = plain_init(text, arch, n)
            want = quick_init(text, arch, n)
        else:
            got = plain_condition(text, arch, n, state.MAX_CONDITION_DEPTH)
            want = quick_condition(text, arch, n, state.MAX_CONDITION_DEPTH)
        if got is not None:
            plain += 1
            assert got == want, text
            if kind == "init":  # and the registers as written (not compared by ==)
                assert [i.written for i, _ in got[0]] == [i.written for i, _ in want[0]]
    assert plain > len(sections) // 3


@pytest.mark.parametrize(
    "text",
    [
        "exists (x=y/\\z=1)",  # the name takes the '/': the tokens read 'y/'
        "exists (0:r1=1/\\ x=2)",  # a number followed by '/'
        "exists ((x=1)",
        "exists (x=1))",
        "exists x=1 ~ y=2",
        "exists (x=1) ;;",
        "exists ()",
    ],
)
def test_plain_conditions_left_to_the_tokens(text: str) -> None:
    assert plain_condition(text, "PPC", 2, state.MAX_CONDITION_DEPTH) is None
