"""One rule for limits and exit statuses in every command (README, "Limits and exit
statuses"), swept over the values and the commands.

``--timeout`` values outside 0 (no limit) .. 1000000 seconds — ``nan``, ``inf``, ``-1``,
``1e308``... — and ``--max-memory`` values outside 0 (no bound) or 64 .. 16777216 MB, and
loop bounds beyond 1000000, are one usage error naming the option (exit 2), the same in
every command; 0 means no limit everywhere.  Running out of time or memory is one warning
line and exit status 3 in every command, naming the limit ("memory limit of N MB", never
"of None MB").  A model whose ``let rec`` grows without end ends at the limit (``cat
check``'s default: 60 s).

Whatever may fill the memory runs in a child process (an address-space limit stays with
the process that set it) with a time limit of its own, so that a regression fails the
test instead of stopping the suite."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from conftest import shared_path
from support.hostile import herdsman as _herdsman
from support.hostile import x86_test as _x86

from herdsman.herd_compat.cli.main import main
from herdsman.herd_compat.cli.options import limits_of, memory_limit_value, time_limit_value
from herdsman.herd_compat.pipeline.limits import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIME_LIMIT,
    READ_LIMITS,
    READ_TIME_LIMIT,
    RUN_LIMITS,
    Limits,
)
from herdsman.litmus.base.errors import UsageError

EXAMPLES = Path(__file__).resolve().parents[2] / "litmus" / "examples"
SB = str(EXAMPLES / "x86" / "SB.litmus")
PROGRAM = str(EXAMPLES / "programs" / "counter.c")
#: A model whose ``let rec`` grows a set of sets without end (no fixpoint).
GROWING = '"grows"\nlet rec s = {s} | s\nacyclic po as x\n'

#: Every command that takes the limits, as a cheap run that succeeds: argv with ``{db}``
#: for a campaign's journal; herd7 spells the options with one dash.
COMMANDS: dict[str, list[str]] = {
    "parse": ["parse", SB],
    "cat check": ["cat", "check", "sc"],
    "run": ["run", SB],
    "herd7": ["herd7", SB],
    "verify": ["verify", PROGRAM],
    "fences": ["fences", PROGRAM, "--model", "tso"],
    "explain": ["explain", "sc", SB],
    "diff": ["diff", "tso", "sc", SB, "--db", "{db}", "--no-progress"],
    "validate": ["validate", SB, "--expect", "{log}", "--db", "{db}", "--no-progress"],
}
#: What each command exits with on its cheap run (diff: tso allows SB's state, sc not).
STATUS = {"diff": 1}

BAD_TIMEOUTS = ["nan", "NaN", "inf", "-inf", "-1", "-0.5", "1e308", "1000001", "ten", ""]
BAD_MEMORIES = ["1", "10", "63", "-1", "nan", "1.5", "16777217", "99999999999999999999", "x"]
BAD_UNROLLS = ["-1", "1000001", "99999999999999999999"]


def _argv(command: str, tmp_path: Path, *extra: str) -> list[str]:
    log = shared_path("x86", "herd7-tests-x86tso.log")
    fill = {"{db}": str(tmp_path / "j.sqlite"), "{log}": str(log)}
    argv = [fill.get(a, a) for a in COMMANDS[command]]
    if command == "herd7":  # herd's spelling (-option value), before the tests
        words = [w for x in extra for w in x.replace("--", "-", 1).split("=", 1)]
        return [argv[0], *words, *argv[1:]]
    return [*argv, *extra]


def _one_line(err: str, fragment: str) -> str:
    assert "Traceback" not in err and "internal error" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert fragment in lines[0], err
    return lines[0]


# ----------------------------------------------------------------------------- values


@pytest.mark.parametrize("value", BAD_TIMEOUTS)
def test_time_limits_beyond_the_rule_are_refused(value: str) -> None:
    with pytest.raises(UsageError, match="must be positive seconds, at most 1000000, or 0"):
        time_limit_value(value, "--timeout")


def test_time_and_memory_values_that_are_taken() -> None:
    assert time_limit_value("0", "--timeout") is None  # no limit, as herd7's -timeout 0
    assert time_limit_value("0.25", "--timeout") == 0.25
    assert time_limit_value("1e6", "--timeout") == 1_000_000
    assert memory_limit_value("0", "--max-memory") is None  # no bound
    assert memory_limit_value("64", "--max-memory") == 64
    assert memory_limit_value("16777216", "--max-memory") == 16_777_216
    assert RUN_LIMITS == Limits(DEFAULT_TIME_LIMIT, DEFAULT_MEMORY_MB) == Limits(3600, 2048)
    assert READ_LIMITS == Limits(READ_TIME_LIMIT, DEFAULT_MEMORY_MB) == Limits(60, 2048)


#: Each limit's option, its values beyond the rule, and the start of the one error line.
BAD_VALUES = {
    "timeout": (BAD_TIMEOUTS, "must be positive seconds, at most 1000000, or 0 for no limit"),
    "max-memory": (BAD_MEMORIES, "must be at least 64 (MB), at most 16777216, or 0"),
}


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [
        (command, option, value)
        for command in sorted(COMMANDS)
        for option, (values, _) in BAD_VALUES.items()
        for value in values
    ],
)
def test_every_command_refuses_the_same_limits(
    command: str, option: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_argv(command, tmp_path, f"--{option}={value}")) == 2
    out, err = capsys.readouterr()
    dashes = "-" if command == "herd7" else "--"
    line = _one_line(err, f"{dashes}{option} {BAD_VALUES[option][1]}")
    assert line.startswith(f"herdsman {COMMANDS[command][0]}: error: ") and not out


@pytest.mark.parametrize(
    ("argv", "value"),
    list(
        itertools.product(
            [["run", SB], ["verify", PROGRAM], ["fences", PROGRAM, "-m", "power"]], BAD_UNROLLS
        )
    )
    + [(["herd7", SB], v) for v in BAD_UNROLLS],
)
def test_loop_bounds_beyond_the_rule_are_refused(
    argv: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    option = "-unroll" if argv[0] == "herd7" else "--unroll"
    assert main([*argv, option, value]) == 2
    err = capsys.readouterr().err
    least, most = f"{option} must be >= 0", f"{option} must be at most 1000000"
    _one_line(err, least if value == "-1" else most)


def test_verify_keeps_its_memory_alias(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--memory", "10", PROGRAM]) == 2
    _one_line(capsys.readouterr().err, "--max-memory must be at least 64 (MB)")


def test_the_defaults_and_no_limit(tmp_path: Path) -> None:
    """Without the options, the documented defaults; 0 is no limit, in every command."""
    from herdsman.herd_compat.cli import cat_check, run

    a = run.parser().parse_args([SB])
    assert limits_of(a, RUN_LIMITS) == Limits(3600, 2048)
    a = cat_check.check_parser().parse_args(["sc"])
    assert limits_of(a, READ_LIMITS) == Limits(60, 2048)
    a = run.parser().parse_args([SB, "--timeout", "0", "--max-memory", "0"])
    assert limits_of(a, RUN_LIMITS) == Limits(None, None)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_zero_means_no_limit_in_every_command(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = _argv(command, tmp_path, "--timeout", "0", "--max-memory", "0")
    assert main(argv) == STATUS.get(command, 0), capsys.readouterr().err
    assert capsys.readouterr().out


# ----------------------------------------------------------------------------- time


def test_every_command_that_evaluates_a_model_ends_on_a_growing_let_rec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """A model whose ``let rec`` never converges: one warning line and exit 3 at the time
    limit, in every command that loads a model (before any test: once)."""
    monkeypatch.chdir(tmp_path)
    cat = tmp_path / "grows.cat"
    cat.write_text(GROWING)
    log = str(shared_path("x86", "herd7-tests-x86tso.log"))
    db = str(tmp_path / "j.sqlite")
    loading = f"{cat}:0:0: warning: loading the model took more than the time limit of 0.5 s"
    for argv, line in (
        (["cat", "check", str(cat)], f"{cat}:0:0: warning: time limit of 0.5 s exceeded"),
        (["run", "--model", str(cat), SB], loading),
        (["herd7", "-model", str(cat), SB], loading),
        (["verify", "--model", str(cat), PROGRAM], loading),
        (["explain", str(cat), SB], f"{SB}:0:0: warning: time limit of 0.5 s exceeded"),
        (["diff", "sc", str(cat), SB, "--db", db], loading),
        (["validate", SB, "--model", str(cat), "--expect", log, "--db", db], loading),
    ):
        # the time limit alone (this test process's address space is large already)
        dash = "-" if argv[0] == "herd7" else "--"
        limits = [f"{dash}timeout", "0.5", f"{dash}max-memory", "0"]
        assert main([*argv, *limits]) == 3, argv
        out, err = capsys.readouterr()
        _one_line(err, line)
        assert "Test " not in out


def test_cat_check_ends_on_a_growing_let_rec_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """Without ``--timeout``, ``cat check``'s default time limit (60 s of CPU; shortened
    here) ends it on such a model: one line, exit 3."""
    from herdsman.herd_compat.cli import cat_check

    assert cat_check.READ_LIMITS == Limits(60, 2048)
    monkeypatch.setattr(cat_check, "READ_LIMITS", Limits(0.5, None))
    cat = tmp_path / "grows.cat"
    cat.write_text(GROWING)
    assert main(["cat", "check", str(cat)]) == 3
    _one_line(capsys.readouterr().err, f"{cat}:0:0: warning: time limit of 0.5 s exceeded")


def test_parse_ends_at_its_time_limit(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A file the parser would never finish: one warning line, exit 3, the next file
    still parsed."""
    import herdsman.litmus.parser as parser

    real = parser.parse_file

    def stuck(path: str) -> object:
        if path != SB:
            return real(path)
        while True:
            pass

    monkeypatch.setattr(parser, "parse_file", stuck)
    other = str(EXAMPLES / "x86" / "MP.litmus")
    assert main(["parse", "--timeout", "0.3", "--max-memory", "0", SB, other]) == 3
    out, err = capsys.readouterr()
    _one_line(err, f"{SB}:0:0: warning: time limit of 0.3 s exceeded, no result")
    assert out.startswith("X86 MP")


@pytest.fixture(scope="module")
def hungry(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A test whose reference search fills hundreds of MB within a second."""
    path = tmp_path_factory.mktemp("hungry") / "hungry.litmus"
    path.write_text(_x86(64, 8, "HUNGRY"))
    return str(path)


def test_every_command_that_runs_tests_stops_at_the_time_limit(
    hungry: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """A test over its time limit: one warning line and exit 3, in every command that
    runs tests (``run`` and ``herd7`` too, where herd prints no block and exits 0).  Each
    in a child process: the search fills its memory fast, and a test process's own
    address space is large already."""
    monkeypatch.chdir(tmp_path)
    no_result = f"{hungry}:0:0: warning: time limit of 0.5 s exceeded, no "
    for argv in (
        ["run", hungry],
        ["herd7", hungry],
        ["explain", "sc", hungry],
        ["fences", hungry, "--model", "tso"],
    ):
        timeout = ["-timeout", "0.5"] if argv[0] == "herd7" else ["--timeout", "0.5"]
        r = _herdsman(*argv, *timeout, limit=180)
        assert r.returncode == 3, (argv, r.stderr)
        _one_line(r.stderr, no_result)
    log = str(shared_path("x86", "herd7-tests-x86tso.log"))
    db = str(tmp_path / "j.sqlite")
    for argv in (
        ["validate", hungry, "--expect", log, "--model", "tso", "--db", db],
        ["diff", "tso", "sc", hungry, "--db", db],
    ):  # the campaigns (their workers are processes): the test has no result; exit 3
        assert main([*argv, "--timeout", "0.5", "--no-progress"]) == 3, argv
        assert "time limit of " in capsys.readouterr().out  # the worker's, or its pool's


# ----------------------------------------------------------------------------- memory


def test_every_command_stops_at_the_memory_bound(hungry: str, tmp_path: Path) -> None:
    """Beyond ``--max-memory``: one warning line naming the bound, exit 3, in every
    command that runs tests or programs (each in a child process)."""
    prog = tmp_path / "hungry.c"
    prog.write_text(
        "#include <pthread.h>\nint a[400];\n"
        "void *w(void *arg) { for (int i = 0; i < 300; i++) a[i] = i; return 0; }\n"
        "int main() { pthread_t t; pthread_create(&t, 0, w, 0); "
        "pthread_create(&t, 0, w, 0); return 0; }\n"
    )
    bound = "memory limit of 200 MB exceeded, no "
    for argv, who in (
        (["run", "--engine", "reference", hungry], hungry),
        (["herd7", "-engine", "reference", hungry], hungry),
        (["verify", "--engine", "reference", str(prog)], str(prog)),
        (["explain", "sc", hungry], hungry),
        (["fences", hungry, "--model", "tso", "--engine", "reference"], hungry),
    ):
        memory = ["-max-memory", "200"] if argv[0] == "herd7" else ["--max-memory", "200"]
        r = _herdsman(*argv, *memory, limit=180)
        assert r.returncode == 3, (argv, r.stderr)
        line = _one_line(r.stderr, f"{who}:0:0: warning: {bound}")
        assert "None" not in line
