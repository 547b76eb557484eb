"""Shared fixtures: where ../shared is, and skipping cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HERDSMAN_SHARED", ROOT.parent / "shared")).resolve()


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test with the reason."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"needs {p} (the shared ground-truth folder is absent)")
    return p


@pytest.fixture
def shared() -> Path:
    """The ../shared folder (herd's tests, logs and cat files); skips when absent."""
    return shared_path()
