"""``herdsman serve``: the workbench in a browser (the app is :mod:`herd_compat.serve`)."""

from __future__ import annotations

import socket

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
    _check_listen(a.host, a.port)
    serve(a.host, a.port)
    return 0


def _check_listen(host: str, port: int) -> None:
    """Refuse, as a bad command line, an address the server could not listen on (a port in
    use, an address not of this machine, a name that does not resolve): the server itself
    would log its own message and exit with its own status."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (OSError, UnicodeError) as e:
        raise UsageError(f"--host {host}: {_reason(e)}") from None
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        try:
            s.bind(address)
        except OSError as e:
            raise UsageError(f"cannot listen on {host} port {port}: {_reason(e)}") from None


def _reason(e: BaseException) -> str:
    return e.strerror if isinstance(e, OSError) and e.strerror else str(e) or type(e).__name__
