"""A run of many tests over a journal (:mod:`journal`), as ``herdsman validate`` and
``herdsman diff`` make it: its tests by key, the start (resumed or afresh, with a line
saying so) and the notes on a journal that the run left incomplete.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO

from herdsman.herd_compat.campaigns.journal import Journal
from herdsman.herd_compat.campaigns.journal_rows import JournalRow, R, readable
from herdsman.herd_compat.pipeline.inputs import expand_test_args
from herdsman.litmus.base.errors import InputError

__all__ = ["begin", "incomplete_notes", "tests_by_key"]


def tests_by_key(inputs: list[str]) -> dict[str, str]:
    """The test files of ``inputs`` (files, directories, herd's ``@index`` files) in order,
    by real path (a journal's key), each with the first path given for it: a test given
    twice runs once."""
    tests = expand_test_args(inputs, allow_dirs=True)
    if not tests:
        raise InputError(" ".join(inputs) or "<inputs>", 0, 0, "no test files given")
    given: dict[str, str] = {}
    for path in tests:
        given.setdefault(os.path.realpath(path), path)
    return given


def begin(
    journal: Journal[R], fingerprint: str, resume: bool, keys: Sequence[str], err: IO[str]
) -> list[str]:
    """Start a run of the tests ``keys`` over ``journal`` (:meth:`Journal.start`), saying
    on ``err`` what it keeps (``resume``) or drops: the keys still to run, in order."""
    dropped = 0 if resume else journal.count()  # counted before start() drops them
    journal.start(fingerprint, resume)
    done = journal.done_keys() if resume else set()
    todo = [k for k in keys if k not in done]
    shown = readable(journal.path)
    if resume:
        err.write(f"resuming {shown}: {len(keys) - len(todo)} tests done, {len(todo)} to run\n")
    elif dropped:
        err.write(f"note: {shown} had {dropped} results; starting afresh\n")
    return todo


def incomplete_notes(rows: Sequence[JournalRow], total: int, path: str) -> list[str]:
    """What is missing from a run's ``rows`` of ``total`` tests in the journal ``path``:
    tests lost to dead workers, tests without a row (both for ``--resume`` to run)."""
    notes = []
    lost = sum(1 for r in rows if r.status == "lost")
    if lost:
        notes.append(
            f"note: {lost} tests were lost to dead worker processes; "
            "run again with --resume to retry them"
        )
    if len(rows) < total:  # never a clean exit on a partial report
        notes.append(
            f"note: {total - len(rows)} of {total} tests have no result in "
            f"{readable(path)}; run again with --resume to complete it"
        )
    return notes
