"""Hostile and extreme models (issue 13, items 8-10): each ends with a correct answer or
one clean ``FILE:LINE:COL: error: ...`` (exit status 2 from ``herdsman cat check``, no
traceback, no "internal error"), quoting at most a short escaped excerpt of its input.

Time is bounded only by the subprocess timeouts; nothing here asserts on time or memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from herdsman.cat.api import load_model, load_model_text
from herdsman.cat.env import Env
from herdsman.cat.errors import QUOTE_MAX, source_excerpt
from herdsman.cat.shapes import candidates
from herdsman.graphs.build import R, W, build
from herdsman.herd_compat.cli.cat_check import _main as cat_main
from herdsman.herd_compat.cli.main import main as herdsman_main

ROOT = Path(__file__).resolve().parents[2]

#: Store buffering: a cycle of po and fr when both reads read the initial values.
SB = build([[W("x", 1), R("y", 0)], [W("y", 1), R("x", 0)]])

#: Room for an error's header (a temporary path, a message quoting an excerpt); the
#: source excerpt under it is at most QUOTE_MAX characters and two "...".
LINE_MAX = 400


def check_error(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """``herdsman cat check path``: exit status 2 and one clean error; its lines."""
    assert herdsman_main(["cat", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err[:500]
    lines = err.splitlines()
    assert 1 <= len(lines) <= 3, err[:500]
    assert len(lines[0]) <= LINE_MAX and all(len(x) <= QUOTE_MAX + 6 for x in lines[1:])
    assert all(x.isprintable() for x in lines), lines
    return lines


# ----------------------------------------------------------------------------- item 8


def test_bind_is_persistent_and_shallow() -> None:
    """Binding names one at a time leaves every earlier environment as it was, and keeps
    few layers (a binary counter: about log2 of the number of names)."""
    env = Env({"po": 1, "rf": 2})
    envs = [env]
    for i in range(20_000):
        env = env.bind({f"x{i}": i, "rf": -i})
        envs.append(env)
        assert len(env.layers) <= 16
    assert env.get("x19999") == 19_999 and env.get("x0") == 0 and env.get("po") == 1
    assert env.get("rf") == -19_999
    assert envs[0].get("rf") == 2 and "x0" not in envs[0]
    assert envs[10].get("rf") == -9 and envs[10].get("x9") == 9 and "x10" not in envs[10]
    assert sum(1 for _ in env.names()) == 20_002
    assert dict(envs[3].items()) == {"po": 1, "rf": -2, "x0": 0, "x1": 1, "x2": 2}


def _sc_allowed(model) -> list[bool]:
    sess = model.prepare(SB.sk, "PPC")
    return [any(v.allowed for v in sess.check(rf, co=co)) for rf, co in candidates(SB)]


def test_twenty_thousand_lets(tmp_path: Path) -> None:
    """20,000 ``let`` s, each naming the previous one: the model loads (no recursion
    error, bounded memory) and answers as the one-line model it amounts to."""
    n = 20_000
    p = tmp_path / "lets.cat"
    body = "".join(f"let a{i} = a{i - 1}\n" for i in range(1, n))
    p.write_text(
        f'"lets"\ninclude "cos.cat"\nlet a0 = po | rf | co | fr\n{body}acyclic a{n - 1} as sc\n'
    )
    m = load_model(p)
    assert [a.name for a in m.axioms] == ["sc"]
    assert m.lint() == []
    plain = load_model_text('"sc"\ninclude "cos.cat"\nacyclic po | rf | co | fr as sc\n')
    got, want = _sc_allowed(m), _sc_allowed(plain)
    assert got == want and True in want and False in want


# ----------------------------------------------------------------------------- item 9


def test_include_cycle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.cat").write_text('"a"\ninclude "b.cat"\n')
    (tmp_path / "b.cat").write_text('"b"\nlet x = po\ninclude "a.cat"\n')
    lines = check_error(tmp_path / "a.cat", capsys)
    assert lines[0] == f"{tmp_path / 'b.cat'}:3:1: error: include cycle: a.cat → b.cat → a.cat"
    (tmp_path / "self.cat").write_text('"s"\ninclude "self.cat"\n')
    lines = check_error(tmp_path / "self.cat", capsys)
    assert lines[0].endswith("self.cat:2:1: error: include cycle: self.cat → self.cat")


def test_include_twice_is_no_cycle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file included twice, one after the other or from two files, is no cycle."""
    (tmp_path / "c.cat").write_text('"c"\nlet y = po\n')
    (tmp_path / "d.cat").write_text('"d"\ninclude "c.cat"\n')
    (tmp_path / "m.cat").write_text('"m"\ninclude "c.cat"\ninclude "d.cat"\nacyclic y\n')
    assert herdsman_main(["cat", "check", str(tmp_path / "m.cat")]) == 0
    assert "acyclic" in capsys.readouterr().out


@pytest.mark.parametrize("n", [202, 2000])
def test_long_sequences(n: int) -> None:
    """A ``;`` chain of n terms compiles (static and dynamic parts) and equals the
    composition done one term at a time; so does a long union."""
    terms = ["hb", "sym", "hb", "[M]", "com"]
    chain = [terms[i % len(terms)] for i in range(n)]
    text = (
        '"long"\ninclude "cos.cat"\nlet com = rf | co | fr\nlet hb = po | com\n'
        f"let sym = po | po^-1\nlet r = {' ; '.join(chain)}\n"
        f"let s = {' ; '.join(['sym'] * n)}\n"
        f"let u = {' | '.join(f'([{t}] ; hb)' for t in ['W', 'R', 'M', 'IW'] * (n // 4))}\n"
        "show r, s, u\n"
    )
    rel, sk, U = SB.rel, SB.sk, SB.U
    (v,) = load_model_text(text).prepare(sk, "PPC").check(rel.rf, co=rel.co, want_shows=True)
    com = rel.rf | rel.co | rel.fr
    hb = sk.po | com
    val = {"hb": hb, "sym": sk.po | U.inverse(sk.po), "[M]": U.ident(sk.M), "com": com}
    want = val[chain[0]]
    for t in chain[1:]:
        want = U.seq(want, val[t])
    sym = val["sym"]
    want_s = sym
    for _ in range(n - 1):
        want_s = U.seq(want_s, sym)
    assert want and want_s  # not vacuous: the cycles of SB keep the chains non-empty
    assert v.shows["r"] == want
    assert v.shows["s"] == want_s
    assert v.shows["u"] == U.seq(U.ident(sk.M), hb)


def test_long_optional_sequence(tmp_path: Path) -> None:
    """``r? ; r? ; ...`` (2,000 terms) is r* on a small graph (no blow-up of the
    identity splitting of short sequences)."""
    n = 2000
    text = (
        f'"opt"\ninclude "cos.cat"\nlet hb = po | rf | fr\nlet r = {" ; ".join(["hb?"] * n)}\n'
        "show r\n"
    )
    rel, sk, U = SB.rel, SB.sk, SB.U
    (v,) = load_model_text(text).prepare(sk, "PPC").check(rel.rf, co=rel.co, want_shows=True)
    hb = sk.po | rel.rf | rel.fr
    assert v.shows["r"] == U.plus(hb) | U.ID


def test_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "latin1.cat"
    bad.write_bytes(b'"l"\nlet x = po (* caf\xe9 *)\nacyclic x\n')
    lines = check_error(bad, capsys)
    assert lines == [f"{bad}:2:18: error: cannot read model: not UTF-8 text (byte 0xe9)"]
    inc = tmp_path / "inc.cat"
    inc.write_text('"i"\ninclude "latin1.cat"\n')
    assert check_error(inc, capsys) == lines


def test_crlf_still_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Reading bytes keeps universal newlines: a CRLF model reads as before."""
    p = tmp_path / "crlf.cat"
    p.write_bytes(b'"c"\r\nlet x = po\r\nlet y = rfx\r\n')
    lines = check_error(p, capsys)
    assert lines[0] == f"{p}:3:9: error: unknown relation 'rfx'; did you mean 'rf'?"
    assert lines[1:] == ["let y = rfx", " " * 8 + "^"]


def test_huge_integer_literal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """herd's cat has no number but 0 (lib/modelLexer.mll): a 100,000-digit literal is a
    lexical error at its first digit, as in herd, and only an excerpt of it is shown."""
    p = tmp_path / "big.cat"
    p.write_text('"b"\nlet x = ' + "7" * 100_000 + "\n")
    lines = check_error(p, capsys)
    assert lines[0] == f"{p}:2:9: error: lexical error: '7': the only number in cat is 0"
    assert lines[1] == "let x = " + "7" * (QUOTE_MAX - 8) + "..."
    assert lines[2] == " " * 8 + "^"


def test_too_deep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An expression nested deeper than Python's recursion allows: a clean error."""
    p = tmp_path / "deep.cat"
    p.write_text('"d"\nlet x = ' + "~" * 40_000 + "po\nacyclic x\n")
    lines = check_error(p, capsys)
    assert lines[0].startswith(f"{p}:") and "too deeply nested" in lines[0]


# ----------------------------------------------------------------------------- item 10


def test_include_absolute_path_quotes_little(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An included file that is not cat: the error shows at most a short escaped
    excerpt of the line, never the secret further along it."""
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"TOKEN=" + b"a" * 100 + b"\x00\x1b[31mSECRET-VALUE\n")
    p = tmp_path / "m.cat"
    p.write_text(f'"m"\ninclude "{secret}"\n')
    lines = check_error(p, capsys)
    assert lines[0].startswith(f"{secret}:1:")
    assert "SECRET" not in "\n".join(lines) and "\x1b" not in "\n".join(lines)
    # a long name in a message is cut too
    junk = tmp_path / "junk.cat"
    junk.write_text('"j"\nacyclic po as t ' + "q" * 50_000 + "\n")
    lines = check_error(junk, capsys)
    assert "unexpected 'qqqq" in lines[0] and "q" * (QUOTE_MAX + 1) not in lines[0]


@pytest.mark.skipif(not Path("/proc/self/environ").is_file(), reason="needs /proc")
def test_include_proc_self_environ(tmp_path: Path) -> None:
    p = tmp_path / "env.cat"
    p.write_text('"e"\ninclude "/proc/self/environ"\n')
    # the error is near the start (column 3): the marker is 200 characters further
    env = {"AA": "x", "BB_PAD": "b" * 200}
    env.update({k: os.environ[k] for k in ("PATH", "PYTHONPATH") if k in os.environ})
    env["ZZ_HOSTILE_MARKER"] = "do-not-echo"
    r = subprocess.run(
        [sys.executable, "-m", "herdsman.herd_compat.cli.main", "cat", "check", str(p)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert r.stderr.startswith("/proc/self/environ:1:")
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "do-not-echo" not in r.stderr and "\x00" not in r.stderr
    assert all(len(x) <= LINE_MAX for x in r.stderr.splitlines())


@pytest.mark.parametrize(
    "line, col, shown, caret",
    [
        ("let x = po", 9, "let x = po", 9),  # short lines are shown whole
        ("a" * 100, 50, "..." + "a" * 60 + "...", 34),
        ("a" * 100, 1, "a" * 60 + "...", 1),
        ("a" * 100, 100, "..." + "a" * 60, 63),
        ("x\x00y\tz", 3, "x\\x00y z", 6),  # escaped; a tab is one space, as before
    ],
)
def test_source_excerpt(line: str, col: int, shown: str, caret: int) -> None:
    assert source_excerpt(line, col) == (shown, caret)


# ----------------------------------------------------------------------------- help


def test_cat_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cat_main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "commands:" in out and "check" in out
    for option in ("-I DIR", "--variant V", "--arch ARCH", "MODEL"):
        assert option in out
    assert cat_main([]) == 2
    assert "commands:" in capsys.readouterr().err
    assert cat_main(["nosuch"]) == 2
    assert "unknown cat command 'nosuch'" in capsys.readouterr().err
