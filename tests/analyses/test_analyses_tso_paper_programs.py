"""The benchmarks of Narayan, Sharma and Arun-Kumar (ATVA 2016, Fig. 8) in
``litmus/examples/tso``: every claim of their headers and of the directory's README.

Each program opens with ``herdsman: expect sc=V tso=V`` and ``herdsman: paper-fences N``
(Fig. 8's #F).  Checked here: the files, the headers against the paper's #P and #F, the
fenced versions (exactly #F fences, each a statement of its own, and otherwise the
unfenced program) — C11 validity is checked in tests/engine/test_engine_c_examples.py — and with
``herdsman verify --engine operational --stateful``: SC safe; the unfenced programs
unsafe under TSO from the README's bound K (at most 3) on; the fenced programs and the
alternating-bit protocol safe under TSO with buffer bounds 1 and 2, and for every buffer
size by ``verify --max-bound`` (TSO_k to the fixpoint).  The stateful search's verdicts
are also checked without reduction, and every assertion is shown reachable under SC
(replaced by ``assert(0)``, it fails).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import header_lines

from herdsman.herd_compat.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
TSO = ROOT / "litmus" / "examples" / "tso"
FENCE = "atomic_thread_fence(memory_order_seq_cst);"
ATOMIC = "#include <stdatomic.h>"

#: Fig. 8: program -> (#P, #F)
PAPER = {
    "peterson": (2, 2),
    "dekker": (2, 2),
    "lamport": (2, 4),
    "szymanski": (2, 4),
    "abp": (2, 0),
    "dijkstra": (2, 2),
    "pgsql": (2, 2),
    "rwlock": (3, 2),
    "simple_dekker": (3, 3),
}
#: the bounds at which the TSO claims are checked
BUG_BOUNDS = (1, 2, 3)
SAFE_OUT = "No errors were detected."
UNSAFE_OUT = "Error: Safety violation!"


@dataclass(frozen=True)
class Header:
    sc: str
    tso: str
    fences: int


def header(path: Path) -> Header:
    """The ``herdsman:`` lines of the comment that opens ``path``."""
    claims: dict[str, str] = {}
    fences = None
    for key, words in header_lines(path):
        if key == "expect":
            claims.update(w.split("=", 1) for w in words)
        elif key == "paper-fences":
            (n,) = words
            fences = int(n)
        else:
            raise AssertionError(f"{path.name}: unknown header line {key!r}")
    assert set(claims) == {"sc", "tso"}, f"{path.name}: {claims}"
    assert set(claims.values()) <= {"safe", "unsafe"}, f"{path.name}: {claims}"
    assert fences is not None, f"{path.name}: no paper-fences line"
    return Header(claims["sc"], claims["tso"], fences)


def base(path: Path) -> str:
    return path.stem.removesuffix("_fenced")


def files() -> list[Path]:
    return sorted(TSO.glob("*.c"))


def by_claim(tso: str) -> list[Path]:
    return [p for p in files() if header(p).tso == tso]


def code(path: Path) -> str:
    """The file after its header comment."""
    text = path.read_text(encoding="utf-8")
    return text[text.index("*/") + 2 :]


def assert_lines(path: Path) -> list[int]:
    return [
        i
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bassert\(", line)
    ]


def readme_rows() -> dict[str, list[str]]:
    rows = {}
    for line in (TSO / "README.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `(\w+)\.c` \|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


def bug_bound(path: Path) -> int:
    """The README's "TSO bug at K" of an unsafe program."""
    return int(readme_rows()[path.stem][5])


def verify(capsys, path: Path, *args: str) -> tuple[int, str]:
    """``herdsman verify PATH --engine operational --stateful ARGS``: exit status, output."""
    argv = ["verify", str(path), "--engine", "operational", "--stateful", "--timeout", "120"]
    rc = main([*argv, *args])
    got = capsys.readouterr()
    assert rc in (0, 42), f"{path.name} {args}: exit {rc}\n{got.err}"
    return rc, got.out


def tso(k: int) -> tuple[str, ...]:
    return ("--model", "tso", "--buffer-bound", str(k))


def ids(p: Path) -> str:
    return p.stem


# ----------------------------------------------------------------------------- the files


def test_every_benchmark_is_there():
    names = {p.stem for p in files()}
    want = set(PAPER) | {f"{n}_fenced" for n, (_, f) in PAPER.items() if f > 0}
    assert names == want


@pytest.mark.parametrize("path", files(), ids=ids)
def test_header_claims(path):
    """SC safe; #F is the paper's; a program the paper fences is unsafe under TSO and
    its fenced version safe; ABP (#F = 0) is safe unfenced."""
    h = header(path)
    _, paper_f = PAPER[base(path)]
    assert h.sc == "safe"
    assert h.fences == paper_f
    if path.stem.endswith("_fenced"):
        assert h.tso == "safe"
    else:
        assert h.tso == ("unsafe" if paper_f > 0 else "safe")


@pytest.mark.parametrize("path", files(), ids=ids)
def test_fences(path):
    """Unfenced: no fence.  Fenced: exactly #F fences, each a statement on its own line,
    and without them (and the stdatomic include they need) the unfenced program."""
    lines = code(path).splitlines()
    fences = [line for line in lines if "atomic_thread_fence" in line]
    if not path.stem.endswith("_fenced"):
        assert fences == []
        return
    assert len(fences) == header(path).fences
    assert all(line.strip() == FENCE for line in fences)
    plain = path.with_name(f"{base(path)}.c")
    keep = [line for line in lines if line.strip() != FENCE]
    if ATOMIC not in code(plain):
        keep.remove(ATOMIC)
    assert keep == code(plain).splitlines()


@pytest.mark.parametrize("path", files(), ids=ids)
def test_processes(path):
    """#P processes, each its own function looping forever, created and joined by main."""
    text = code(path)
    funcs = re.findall(r"pthread_create\(&\w+, 0, (\w+), 0\);", text)
    n, _ = PAPER[base(path)]
    assert len(funcs) == len(set(funcs)) == n
    assert len(re.findall(r"pthread_join\(", text)) == n
    for f in funcs:
        body = text.split(f"void *{f}(void *arg)\n{{", 1)[1].split("\n}\n", 1)[0]
        assert "while (1) {" in body, f
    assert assert_lines(path)


def test_readme_lists_every_program_with_its_claims():
    rows = readme_rows()
    assert set(rows) == {p.stem for p in files()}
    for p in files():
        h = header(p)
        n, paper_f = PAPER[base(p)]
        cells = rows[p.stem]
        assert cells[1:5] == [str(n), str(paper_f), h.sc, h.tso], p.name
        if h.tso == "safe":
            assert cells[5] == "—", p.name
        else:
            assert int(cells[5]) in BUG_BOUNDS, p.name


# ----------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize("path", files(), ids=ids)
def test_sc_safe(capsys, path):
    rc, out = verify(capsys, path, "--model", "sc")
    assert rc == 0 and out.startswith(SAFE_OUT), out[:500]


@pytest.mark.parametrize("path", by_claim("unsafe"), ids=ids)
def test_tso_bug_from_the_readmes_bound(capsys, path):
    """Safe with buffers smaller than the README's K, unsafe from K to 3, each time at
    one of the file's assertions."""
    k0 = bug_bound(path)
    asserts = assert_lines(path)
    for k in BUG_BOUNDS:
        rc, out = verify(capsys, path, *tso(k))
        if k < k0:
            assert rc == 0 and out.startswith(SAFE_OUT), f"K={k}: {out[:500]}"
            continue
        assert rc == 42 and out.startswith(UNSAFE_OUT), f"K={k}: {out[:300]}"
        m = re.search(r"^Assertion violation: .*\(thread \d+, line (\d+)\)", out, re.M)
        assert m and int(m.group(1)) in asserts, f"K={k}: {out[:300]}"


@pytest.mark.parametrize("path", by_claim("safe"), ids=lambda p: p.stem)
def test_tso_safe(capsys, path):
    """Safe for every buffer size: TSO_k to the fixpoint (``--max-bound``), an exact
    search, so it does not share the stateful DPOR search's gaps on cyclic state spaces."""
    rc = main(["verify", str(path), "--model", "tso", "--max-bound", "12", "--timeout", "120"])
    out = capsys.readouterr().out
    assert rc == 0 and "Verdict: safe: " in out and "Theorem 1" in out, out[-500:]


@pytest.mark.parametrize(("path", "k"), [(p, k) for p in by_claim("safe") for k in (1, 2)])
def test_tso_safe_stateful(capsys, path, k):
    rc, out = verify(capsys, path, *tso(k))
    assert rc == 0 and out.startswith(SAFE_OUT), out[:500]


# ------------------------------------------------- cross-checks of the stateful DPOR search


def exhaustive_cases() -> list:
    out = [pytest.param(p, "sc", id=f"{p.stem}-sc") for p in files()]
    out += [pytest.param(p, "1", id=f"{p.stem}-K1") for p in by_claim("safe")]
    return out


@pytest.mark.parametrize(("path", "bound"), exhaustive_cases())
def test_safe_without_reduction(capsys, path, bound):
    """Every state (``--reduction none``): SC, and TSO with one-place buffers."""
    model = ("--model", "sc") if bound == "sc" else tso(int(bound))
    rc, out = verify(capsys, path, *model, "--reduction", "none")
    assert rc == 0 and out.startswith(SAFE_OUT), out[:500]


def reach_cases() -> list:
    return [
        pytest.param(p, line, id=f"{p.stem}-line{line}")
        for p in files()
        if not p.stem.endswith("_fenced")
        for line in assert_lines(p)
    ]


@pytest.mark.parametrize(("path", "line"), reach_cases())
def test_every_assertion_is_reached(capsys, tmp_path, path, line):
    """Under SC each process gets to its check: with that assert made assert(0), the
    search (without reduction) reports it failing there."""
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[line - 1] = re.sub(r"\bassert\(.*\);", "assert(0);", lines[line - 1])
    mutant = tmp_path / path.name
    mutant.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc, out = verify(capsys, mutant, "--model", "sc", "--reduction", "none")
    assert rc == 42, out[:500]
    assert re.search(rf"^Assertion violation: 0  \(thread \d+, line {line}\)", out, re.M), out[:300]
