"""``herdsman serve``: the workbench in a browser (the app is :mod:`herd_compat.serve`)."""

from __future__ import annotations

from herdsman.herd_compat.cli import COMMANDS
from herdsman.herd_compat.cli.args import Parser, UsageError


def parser() -> Parser:
    """``herdsman serve``'s command line."""
    p = Parser(
        prog="herdsman serve",
        description=COMMANDS["serve"] + ". Listens on 127.0.0.1 (this machine only) unless "
        "--host says otherwise; runs herdsman's engines only, each job in a process it can "
        "kill, within a time and a memory limit.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    return p


def main(argv: list[str]) -> int:
    """``herdsman serve``'s entry point: serves until interrupted."""
    from herdsman.herd_compat.serve.app import serve

    a = parser().parse_args(argv)
    if not 0 < a.port < 65536:
        raise UsageError(f"--port {a.port}: not a port number (1-65535)")
    serve(a.host, a.port)
    return 0
