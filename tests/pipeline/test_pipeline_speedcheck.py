"""herd's ``-speedcheck true|fast`` in every engine, and the progress of a long run.

Speedcheck counts only the executions that settle the condition (herd's ``worth_going``),
and ``fast`` stops at the first: herd's verdicts, with shorter state lists and herd's
``Observation`` rule for them (``tests/data/speedcheck/README.md``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from herdsman.cat.api import load_model
from herdsman.engine.options import RunOptions
from herdsman.engine.outcome import Outcome
from herdsman.engine.progress import TreeEstimate
from herdsman.engine.run import run_program
from herdsman.herd_compat.cli.herd7opts import OptionError, parse_herd7_args, read_conf_file
from herdsman.herd_compat.cli.herd7opts import State as OptState
from herdsman.herd_compat.cli.main import main
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.lower import lower
from herdsman.litmus.parser import parse_file, parse_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "litmus" / "examples"
DATA = ROOT / "tests" / "data" / "speedcheck"
#: (examples, model, engines that run them)
CASES = [
    ("ppc", "power", ("reference",)),
    ("x86", "tso", ("reference", "trust", "operational")),
]


def _settling(full: Outcome) -> dict:
    """The states of a full run that settle its condition, with their counts."""
    forall = full.quantifier == "forall"
    return {st: c for st, c in full.states.items() if c.satisfies != forall}


@pytest.mark.parametrize("arch,model,engines", CASES)
def test_verdicts_equal_full_runs(arch: str, model: str, engines: tuple[str, ...]) -> None:
    """On every example, each engine: the same verdict as the full run; with ``true`` the
    full run's settling states and counts exactly, with ``fast`` one execution of one of
    them (none when there is none)."""
    m = load_model(model)
    tests = sorted((EXAMPLES / arch).glob("*.litmus"))
    assert len(tests) > 10
    for path in tests:
        test = parse_file(str(path))
        for engine in engines:
            full = run_program(lower(test), m, RunOptions(engine=engine))
            settling = _settling(full)
            true = run_program(lower(test), m, RunOptions(engine=engine, speedcheck="true"))
            fast = run_program(lower(test), m, RunOptions(engine=engine, speedcheck="fast"))
            where = f"{path.name} ({engine})"
            assert true.condition_holds == full.condition_holds, where
            assert fast.condition_holds == full.condition_holds, where
            assert true.states == settling, where
            assert set(fast.states) <= set(settling), where
            counted = sum(c.executions for c in fast.states.values())
            assert counted == (1 if settling else 0), where
            assert true.speedcheck == "true" and fast.speedcheck == "fast"


def _blocks(capsys, argv: list[str]) -> str:
    assert main(argv) == 0
    out = capsys.readouterr().out
    return "".join(line + "\n" for line in out.split("\n")[:-1] if not line.startswith("Time "))


@pytest.mark.parametrize("mode", ["true", "fast"])
def test_block_format_is_herds(capsys, mode: str) -> None:
    """The blocks, byte for byte but ``Time``, as herd's ``pp_stats`` prints them under
    speedcheck (the fixtures' derivation: tests/data/speedcheck/README.md); exists,
    ~exists and forall, settled or not."""
    names = ["MP", "MPs", "MPna", "MPfa", "MPsfa", "MPr1"]
    tests = [str(DATA / f"{n}.litmus") for n in names]
    got = _blocks(capsys, ["herd7", "-model", "ppc.cat", "-speedcheck", mode, *tests])
    assert got == (DATA / f"power-{mode}.expected").read_text()
    # herd's spelling in any case, every engine
    for engine in ("reference", "trust", "operational"):
        argv = ["herd7", "-model", "x86tso.cat", "-engine", engine, "-speedcheck", mode.upper()]
        got = _blocks(capsys, [*argv, str(DATA / "SB.litmus")])
        assert got == (DATA / "SB-tso.expected").read_text(), engine


def test_full_run_block_unchanged(capsys) -> None:
    """Without speedcheck the Observation word is herd's usual one."""
    out = _blocks(capsys, ["herd7", "-model", "ppc.cat", str(DATA / "MP.litmus")])
    assert "States 4\n" in out and "Observation MP Sometimes 1 3\n" in out


#: Many executions (196 under tso), 18 of them settling the condition.
WIDE = """X86 WIDE
{ }
 P0          | P1          | P2          | P3          ;
 MOV [x],$1  | MOV [x],$2  | MOV EAX,[x] | MOV EAX,[y] ;
 MOV [y],$1  | MOV [y],$2  | MOV EBX,[y] | MOV EBX,[x] ;
exists (3:EAX=1 /\\ 3:EBX=2)
"""


@pytest.mark.parametrize(
    "engine,measure",
    [("reference", "candidates"), ("trust", "complete"), ("operational", "complete")],
)
def test_fewer_executions_explored(engine: str, measure: str) -> None:
    """Speedcheck explores less: ``true`` skips the model on the executions settling
    nothing (reference: it also drops thread executions with other final registers),
    ``fast`` stops at the first settling one."""
    test = parse_text(WIDE, "WIDE.litmus")
    model = load_model("tso")
    runs = {
        mode: run_program(lower(test), model, RunOptions(engine=engine, speedcheck=mode))
        for mode in ("false", "true", "fast")
    }
    full, true, fast = runs["false"], runs["true"], runs["fast"]
    assert full.condition_holds and true.condition_holds and fast.condition_holds

    def explored(o: Outcome) -> float:
        return o.stats.candidates if measure == "candidates" else o.stats.complete

    assert full.positive + full.negative > 100
    assert explored(fast) * 10 < explored(full), (explored(fast), explored(full))
    assert fast.stats.extra["settled"] == 1 and "settled" not in full.stats.extra
    if engine == "reference":
        assert explored(true) * 2 < explored(full)
    else:  # every execution is still reached, the settling ones only are judged and counted
        assert true.stats.extra["irrelevant"] == full.negative
    assert true.positive == full.positive and true.negative == 0


def test_bad_speedcheck_is_a_usage_error(capsys, tmp_path: Path) -> None:
    test = str(DATA / "MP.litmus")
    for argv, fragment in [
        (["herd7", "-speedcheck", "bogus", test], "'bogus' is not one of false, true, fast"),
        (["run", "--speedcheck", "bogus", test], "invalid choice: 'bogus'"),
    ]:
        assert main(argv) == 2
        cap = capsys.readouterr()
        assert cap.out == "" and cap.err.count("\n") == 1 and fragment in cap.err
        assert "Traceback" not in cap.err
    with pytest.raises(OptionError):
        parse_herd7_args(["-speedcheck", "maybe", test])
    conf = tmp_path / "bad.cfg"
    conf.write_text("# herd\nspeedcheck often\n")
    cfg, _ = parse_herd7_args([test])
    with pytest.raises(InputError) as e:
        read_conf_file(str(conf), cfg, OptState())
    assert e.value.render().startswith(f"{conf}:2:1: error: option -speedcheck: 'often'")
    conf.write_text("speedcheck fast\n")
    read_conf_file(str(conf), cfg, OptState())
    assert cfg.speedcheck == "fast"
    with pytest.raises(InputError):
        run_program(lower(parse_file(test)), load_model("power"), RunOptions(speedcheck="often"))


def _cli(*args: str) -> subprocess.CompletedProcess:
    """``herdsman`` in a subprocess, stderr a pipe."""
    code = (
        "import sys; from herdsman.herd_compat.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )


def test_progress_off_on_a_pipe_on_when_asked(tmp_path: Path) -> None:
    wide = tmp_path / "WIDE.litmus"
    wide.write_text(WIDE)
    quiet = _cli("run", "--model", "tso", "--engine", "reference", str(wide))
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    for argv in (
        ["run", "--progress", "--model", "tso", "--engine", "reference"],
        ["run", "--progress", "--model", "tso", "--engine", "trust"],
        ["run", "--progress", "--model", "tso", "--engine", "operational"],
        ["herd7", "-progress", "true", "-model", "x86tso.cat"],
    ):
        loud = _cli(*argv, str(wide))
        assert loud.returncode == 0, loud.stderr
        assert loud.stdout.startswith("Test WIDE Allowed") and "\r" not in loud.stderr
        lines = loud.stderr.splitlines()
        # a line a second (the first poll comes at once off a terminal), one at the end
        assert lines and lines[-1].startswith("WIDE: done in 0:0"), loud.stderr
        assert all(line.startswith("WIDE: ") for line in lines)
        assert any(" executions, " in line for line in lines), (argv, loud.stderr)
    assert _cli("herd7", "-progress", "false", "-model", "x86tso.cat", str(wide)).stderr == ""


def test_tree_estimate() -> None:
    """The estimate of a depth-first search's tree is exact on a regular tree at every
    leaf, and learns that the last options of the nodes at a depth are empty."""
    count = [0]
    tree = TreeEstimate(lambda: count[0])
    seen: list[float | None] = []

    def dfs(depth: int, width: int, empty_last: bool) -> None:
        if depth == 0:
            count[0] += 1
            seen.append(tree.total())
            return
        tree.enter(width)
        for i in range(width):
            tree.child()
            if not (empty_last and i == width - 1):
                dfs(depth - 1, width, empty_last)
        tree.leave()

    dfs(5, 3, False)
    assert count[0] == 243 and all(round(e or 0) == 243 for e in seen)
    count[0] = 0
    seen.clear()
    tree = TreeEstimate(lambda: count[0])
    dfs(4, 3, True)  # 2**4 leaves, each node's last child empty
    assert count[0] == 16 and seen[0] == 81  # at first, three children everywhere
    assert all(a >= b for a, b in zip(seen, seen[1:], strict=False))
    # at the last leaf only the root's last child is still guessed (8, its mean)
    assert seen[-1] == 24


def test_bench_on_a_sample(shared: Path) -> None:
    """bench/bench_speedcheck.py on a few POWER tests: herd's verdicts in every mode,
    exactly herd's settling states with ``true``."""
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_speedcheck.py"), "--sample", "12"]
        + ["--jobs", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "-speedcheck false: 12/12 blocks identical to herd's" in r.stdout
    assert "-speedcheck true : 12/12 verdicts = herd's" in r.stdout
    assert "-speedcheck fast : 12/12 verdicts = herd's" in r.stdout
