"""The workbench server the serve tests talk to (one per test process)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.serve import Server, start_server, stop_server


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    s = start_server()
    yield s
    stop_server(s)
