"""Shared fixtures: where ../shared is, and skipping cleanly when it is absent."""

from __future__ import annotations

import os
import re
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from support.serve import Server

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HERDSMAN_SHARED", ROOT.parent / "shared")).resolve()


def pytest_configure(config: pytest.Config) -> None:
    """At most two malloc arenas in this process's test workers (they start after this
    runs, with its environment): glibc reserves 64 MB of address space for each thread's
    arena, and the in-process commands' memory bound (2048 MB by default) counts address
    space: a worker that has run thousands of tests, with threads, must stay under it.
    No parse cache (``cat.parsecache``) unless a test asks for one: every test parses the
    cat files it names, whatever ran before."""
    os.environ.setdefault("MALLOC_ARENA_MAX", "2")
    os.environ.setdefault("HERDSMAN_CACHE", "off")


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test with the reason."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"needs {p} (the shared ground-truth folder is absent)")
    return p


@pytest.fixture(autouse=True)
def _address_space_restored() -> Iterator[None]:
    """A test that runs a campaign worker in this process (``limit_memory``) leaves the
    process's address-space limit as it found it: later tests are not run under it."""
    before = resource.getrlimit(resource.RLIMIT_AS)
    yield
    if resource.getrlimit(resource.RLIMIT_AS) != before:
        resource.setrlimit(resource.RLIMIT_AS, before)


@pytest.fixture
def shared() -> Path:
    """The ../shared folder (herd's tests, logs and cat files); skips when absent."""
    return shared_path()


def header_lines(path: Path) -> list[tuple[str, list[str]]]:
    """The ``herdsman: KEY WORDS...`` lines of the comment that opens an example program,
    as (KEY, WORDS)."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("/*"), f"{path.name}: no header comment"
    out = []
    for line in text[2 : text.index("*/")].splitlines():
        line = line.strip()
        if line.startswith("herdsman:"):
            key, *words = line.removeprefix("herdsman:").split()
            out.append((key, words))
    return out


def warm_model(spec: str) -> None:
    """Load the cat model ``spec`` once in this process, so that a test with a tight time
    limit measures its tests, not the first compilation of the model (which depends on
    what ran before in the same worker)."""
    from herdsman.cat.api import load_model

    load_model(spec)


#: One clean error line: ``FILE:LINE:COL: error: ...`` or a command's usage error.
ONE_LINE = re.compile(r"^(\S+:\d+:\d+: error: .+|herdsman( \w+)?: error: .+)$")


def one_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: re.Pattern = ONE_LINE
) -> str:
    """Run ``herdsman ARGV`` in process: exit status 2 and exactly one error line matching
    ``line`` on stderr, no traceback; that line."""
    from herdsman.herd_compat.cli.main import main

    rc = main(argv)
    cap = capsys.readouterr()
    err = cap.err.rstrip("\n")
    assert rc == 2, (argv, cap.out, cap.err)
    assert "\n" not in err and line.match(err), repr(cap.err)
    assert "Traceback" not in cap.err + cap.out
    return err


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """The workbench server the serve tests talk to (one per test process, started when a
    test first asks for it)."""
    from support.serve import start_server, stop_server

    s = start_server()
    yield s
    stop_server(s)


def many_stores(n: int) -> str:
    """A PPC test (SLOWCO) whose two threads each store ``n`` times to ``x`` and read it
    back: with ``n`` = 5, about 12 s of CPU, a test certain to exceed a short limit."""
    code = [f" li r1,{i + 1} | li r1,{i + 11} ;\n stw r1,0(r2) | stw r1,0(r2) ;" for i in range(n)]
    code += [f" lwz r{3 + i},0(r2) | lwz r{3 + i},0(r2) ;" for i in range(n)]
    body = "\n".join(code)
    return f"PPC SLOWCO\n{{\n0:r2=x; 1:r2=x;\n}}\n P0 | P1 ;\n{body}\nexists (0:r3=1)\n"
