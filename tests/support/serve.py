"""A workbench server for tests: ``herdsman serve`` in its own process on a free port of
127.0.0.1, and a small client for its API (JSON, and a job's stream of events)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A running workbench (``url`` ends without a slash)."""

    url: str
    proc: subprocess.Popen[bytes]

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(self.url + path, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def post(self, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
        req = urllib.request.Request(
            self.url + path, data=body, headers={"Content-Type": content_type}, method="POST"
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def delete(self, path: str) -> int:
        req = urllib.request.Request(self.url + path, method="DELETE")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return int(r.status)
        except urllib.error.HTTPError as e:
            return int(e.code)

    def stream(self, job: dict[str, Any], timeout: float = 120) -> Iterator[dict[str, Any]]:
        """The events of a job, as they come."""
        req = urllib.request.Request(
            self.url + "/api/jobs",
            data=json.dumps(job).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=timeout) as r:
            for line in r:
                if line.strip():
                    yield json.loads(line)

    def job(self, job: dict[str, Any], timeout: float = 120) -> list[dict[str, Any]]:
        """All the events of a job (``progress`` left out)."""
        return [e for e in self.stream(job, timeout) if e["type"] != "progress"]


def start_server() -> Server:
    """``herdsman serve`` on a free port, once it answers."""
    port = free_port()
    code = f"from herdsman.herd_compat.cli.main import main; main(['serve', '--port', '{port}'])"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL)
    server = Server(f"http://127.0.0.1:{port}", proc)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"herdsman serve exited with status {proc.returncode}")
        try:
            if server.get("/api/catalog")[0] == 200:
                return server
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("herdsman serve did not answer within 60 s")


def stop_server(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(20)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait(5)
