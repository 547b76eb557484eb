"""Helpers for the campaign tests (no tests here): watching a campaign run by another
process through its database, to stop it part way."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from pathlib import Path


def db_rows(db: Path, columns: str = "key, name, category, result_text") -> list[tuple]:
    """The results a campaign has committed so far ([] before its database or its table
    exists: the campaign may not have got that far)."""
    if not db.exists():
        return []
    conn = sqlite3.connect(db, timeout=30)
    try:
        return conn.execute(f"SELECT {columns} FROM results").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def stop_after(
    proc: subprocess.Popen,
    db: Path,
    rows: int,
    timeout: float,
    poll: float,
    sig: signal.Signals = signal.SIGKILL,
) -> None:
    """Send ``sig`` to the campaign ``proc`` once ``db`` holds ``rows`` results (or the
    campaign ended, or ``timeout`` seconds passed), checking every ``poll`` seconds."""
    deadline = time.monotonic() + timeout
    while len(db_rows(db)) < rows and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(poll)
    proc.send_signal(sig)
