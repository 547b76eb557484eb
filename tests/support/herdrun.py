"""``herdsman herd7`` on one test, in this process: its blocks without herd's ``Time``
lines (what the ``.expected`` files beside herd's tests hold)."""

from __future__ import annotations

import io
from pathlib import Path

from herdsman.herd_compat.cli.herd7opts import parse_herd7_args
from herdsman.herd_compat.cli.run import run_tests


def herd7_block(path: Path, *options: str) -> str:
    """The output of ``herdsman herd7 OPTIONS PATH`` without its ``Time`` lines (the run
    must give a result: exit status 0 or 1)."""
    out, err = io.StringIO(), io.StringIO()
    cfg, _ = parse_herd7_args([*options, str(path)])
    assert run_tests(cfg, out, err) in (0, 1), err.getvalue()
    return "".join(x + "\n" for x in out.getvalue().split("\n") if not x.startswith("Time "))
