"""The cat grammar: lexical details, herd's precedences, every construct, herd's files."""

from __future__ import annotations

import pytest
from conftest import shared_path

from herdsman.cat import ast as A
from herdsman.cat.parser import parse_file, parse_text, strip_comments
from herdsman.cat.pretty import sexp
from herdsman.litmus.base.errors import InputError


def expr(src: str) -> str:
    m = parse_text("let e = " + src)
    return sexp(m.instrs[0].bindings[0].exp)


@pytest.mark.parametrize(
    "src, tree",
    [
        ("a | b ; c", "(union a (seq b c))"),
        ("a ; b | c", "(union (seq a b) c)"),
        ("a \\ b & c", "(diff a (inter b c))"),
        ("a & b \\ c", "(diff (inter a b) c)"),
        ("a \\ b \\ c", "(diff (diff a b) c)"),
        ("a & b & c", "(inter a (inter b c))"),
        ("a ++ b ++ c", "(add a (add b c))"),
        ("a | b ++ c", "(union a (add b c))"),
        ("a ++ b ; c", "(add a (seq b c))"),
        ("a ; b \\ c", "(seq a (diff b c))"),
        ("ii & R*R | ic & R*W", "(union (inter ii (cartesian R R)) (inter ic (cartesian R W)))"),
        ("~A | B", "(union (comp A) B)"),
        ("~A & B", "(inter (comp A) B)"),
        ("R * W", "(cartesian R W)"),
        ("r*", "(star r)"),
        ("r* | s", "(union (star r) s)"),
        ("(po;rf)* ; x", "(seq (star (seq po rf)) x)"),
        ("A+ * B", "(cartesian (plus A) B)"),
        ("A * ~B", "(cartesian A (comp B))"),
        ("_ * B", "(cartesian _ B)"),
        ("r^-1 ; s", "(seq (inv r) s)"),
        ("r* ^-1", "(inv (star r))"),
        ("r^-1*", "(star (inv r))"),
        ("~~A", "(comp (comp A))"),
        ("f x y", "(app (app f x) y)"),
        ("f r+", "(plus (app f r))"),
        ("f(x, y)", "(app f (tuple x y))"),
        ("domain(rmw)", "(app domain rmw)"),
        ("[W];po;[R]", "(seq (toid W) po (toid R))"),
        ("po & (_ * B) ; po", "(seq (inter po (cartesian _ B)) po)"),
        ("a, b", "(tuple a b)"),
        ("()", "(tuple )"),
        ("{}", "{}"),
        ("{a, b}", "{a b}"),
        ("0", "0"),
        ("'tag", "'tag"),
        ("begin a | b end", "(union a b)"),
        ("fun x -> x", "(fun x x)"),
        ("fun (x, _) -> x", "(fun (x,_) x)"),
        ("let x = a in x | y", "(let [x a] (union x y))"),
        ("let rec x = x | a in x", "(letrec [x (union x a)] x)"),
        ("let f(x) = x and g y = y in f", "(let [f (fun x x)] [g (fun y y)] f)"),
        ("try fencerel(SYNC) with 0", "(try (app fencerel SYNC) 0)"),
        ('if "x" then a else b', "(if (variant 'x') a b)"),
        (
            'if not "x" && ("y" || variant "z") then a else b',
            "(if (variant (and (not 'x') (or 'y' 'z'))) a b)",
        ),
        ("if x = y then a else b", "(if (= x y) a b)"),
        ("if x subset y then a else b", "(if (subset x y) a b)"),
        ("if e in S then a else b", "(if (in e S) a b)"),
        ("match x with 'a -> b || _ -> c end", "(match x ['a b] c)"),
        ("match x with || 'a -> b || 'c -> d end", "(match x ['a b] ['c d] -)"),
        ("match S with {} -> {} || x ++ r -> x end", "(matchset S {} [x r x])"),
        ("match S with || x ++ r -> x || {} -> y end", "(matchset S y [x r x])"),
        ("match S with {} -> y || s1 | x ++ s2 -> x end", "(matchset S y [s1 x s2 x])"),
    ],
)
def test_precedence_and_forms(src: str, tree: str) -> None:
    assert expr(src) == tree


def test_names_tags_strings_and_comments() -> None:
    src = """X86 "my model" (* a (* nested *) comment *)
// line comment
# hash comment
let po-loc' = dmb.st | A-cumul | _RMW | co_locs (* ** *)
let t = 'rcu-lock
include "a b.cat"
"""
    m = parse_text(src)  # parsing does not resolve includes
    assert (m.arch, m.name) == ("X86", "my model")
    let = m.instrs[0]
    assert let.bindings[0].pat == A.PVar("po-loc'")
    assert sexp(let.bindings[0].exp) == "(union dmb.st A-cumul _RMW co_locs)"
    assert sexp(m.instrs[1].bindings[0].exp) == "'rcu-lock"
    assert isinstance(m.instrs[2], A.Include) and m.instrs[2].fname == "a b.cat"


def test_identity_forms() -> None:
    assert (lambda m: (m.arch, m.name))(parse_text("PPC\nlet x = 0")) == ("PPC", "PPC")
    assert (lambda m: (m.arch, m.name))(parse_text("X86 TSO\n")) == ("X86", "TSO")
    assert (lambda m: (m.arch, m.name))(parse_text('"Power"\n')) == ("Power", "Power")
    assert (lambda m: (m.arch, m.name))(parse_text("let x = 0")) == ("None", "Unknown")
    m = parse_text("AArch64 catdep\nlet x = 0")
    assert m.catdep and m.arch == "AArch64"


def test_strip_comments_keeps_positions() -> None:
    src = "let (* x\n y *) a = b // c\n# d\nlet e = f"
    out = strip_comments(src, "<s>")
    assert len(out) == len(src) and out.count("\n") == src.count("\n")
    assert out.split("\n")[3] == "let e = f"


def test_positions() -> None:
    m = parse_text("X\n\nlet a =\n   po | rf\nacyclic a as ok\n", "file.cat")
    let, test = m.instrs
    assert (let.pos.line, let.pos.col) == (3, 1)
    e = let.bindings[0].exp
    assert (e.pos.line, e.pos.col) == (4, 4)
    assert (test.pos.file, test.pos.line) == ("file.cat", 5)
    assert test.test.name == "ok" and test.mode == "check"


def test_every_instruction() -> None:
    src = """M
enum Scopes = || 'a || 'b
let f(x) = x and g = 0 in
let rec h x = h x
let rec r = r | po when acyclic r as t
match 'a with 'a -> let y = 0 || _ -> let z = 0 end
flag ~empty po as fl
undefined_unless irreflexive po as u
assert acyclic po
~empty po
show po as p
show po, rf
unshow po
procedure p(x, y) = acyclic x end
procedure rec q x = empty x end
call p(po, rf) as c
debug po
forall x in Scopes do empty 0 end
with w from {'a}
if "v" let v = 0 else let v = _ end
instructions R[{'a}]
default W['a]
"""
    kinds = [type(i).__name__ for i in parse_text(src).instrs]
    assert kinds == [
        "Enum",
        "Let",
        "Rec",
        "Rec",
        "InsMatch",
        "Test",
        "Test",
        "Test",
        "Test",
        "ShowAs",
        "Show",
        "UnShow",
        "Procedure",
        "Procedure",
        "Call",
        "Debug",
        "Forall",
        "WithFrom",
        "IfVariant",
        "Events",
        "Events",
    ]
    ins = parse_text(src).instrs
    assert [t.mode for t in ins[5:9]] == ["flag", "undefined_unless", "assert", "check"]
    assert ins[5].test.negated and ins[8].test.negated


@pytest.mark.parametrize(
    "src, where, what",
    [
        ("let x = 1", (1, 9), "only number"),
        ("let x = po |", (1, 13), "end of file"),
        ("let x = (po", (1, 12), "end of file"),
        ("acyclic po as", (1, 14), "end of file"),
        ("let = po", (1, 5), "unexpected '='"),
        ("let x = po $ rf", (1, 12), "unexpected character"),
        ("let x = (* open", (1, 9), "unterminated comment"),
        ("let x = A * B * C", (1, 15), "unexpected '*'"),
    ],
)
def test_syntax_errors(src: str, where, what: str) -> None:
    with pytest.raises(InputError) as ei:
        parse_text(src, "bad.cat")
    e = ei.value
    assert (e.line, e.col) == where
    assert what in e.message
    text = e.render()
    assert text.startswith(f"bad.cat:{where[0]}:{where[1]}: error: ")
    assert text.splitlines()[-1] == " " * (where[1] - 1) + "^"


def test_herd_files_parse() -> None:
    d = shared_path("herd-cat")
    files = sorted(d.glob("*.cat"))
    assert len(files) >= 17
    for f in files:
        m = parse_file(f)
        assert m.instrs, f
