"""Helpers for the campaign and output tests (no tests here): watching a campaign run by
another process through its database, to stop it part way; outcomes made from herd's own
blocks; and the *oracle*, a campaign worker answering with herd's blocks (altered, slow,
hung or crashing on request) to test the campaign machinery without the engine.

``python tests/support/campaigns.py VALIDATE-ARGS...`` runs ``herdsman validate`` with
the oracle of ``$HERDSMAN_TEST_ORACLE``."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from herdsman.engine.outcome import Outcome, StateCount
from herdsman.herd_compat.cli.main import guarded, validate
from herdsman.herd_compat.formats.herd_block import HerdBlock, state_lines
from herdsman.herd_compat.formats.herdlog import parse_location, parse_state_line, read_herd_log
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.run_file import Done, Failed, HeaderFacts
from herdsman.litmus.base.errors import InputError
from herdsman.litmus.base.ir import Loc


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


# ----------------------------------------------------------------------------- herd's answers


def outcome_from_block(block: HerdBlock, rng: random.Random | None = None) -> Outcome:
    """An outcome whose herd block is ``block``: its states (the observed locations are the
    condition's, then the others of the state lines; shuffled with ``rng``, so that the
    printer must restore herd's orders), its counts, flags, Undef and Loop.  herd's block
    does not say which states satisfy the proposition nor how many executions reach each,
    so the satisfying ones are taken first, and each state gets at least one execution."""
    rows = [dict(parse_state_line(line)) for line in block.states]
    observed = _condition_locations(block.condition)
    for row in rows[:1]:
        observed += [loc for loc in row if loc not in observed]
    if rng is not None:
        rng.shuffle(observed)
    states = [tuple(row[loc] for loc in observed) for row in rows]
    assert len(set(states)) == len(states), block.name
    pos, neg, n = block.obs_positive, block.obs_negative, len(states)
    sat = n if neg == 0 else 0 if pos == 0 else max(1, n - neg)  # satisfying states
    assert sat <= pos and n - sat <= neg and (n == 0 or pos + neg > 0), block.name
    counts = {}
    for i, st in enumerate(states):
        if i < sat:
            counts[st] = StateCount(pos - (sat - 1) if i == 0 else 1, True)
        else:
            counts[st] = StateCount(neg - (n - sat - 1) if i == sat else 1, False)
    return Outcome(
        program=block.name,
        engine="herd7 log",
        observed=tuple(observed),
        quantifier=block.quant,
        states=counts,
        flags=frozenset(block.flags),
        undefined=block.verdict == "Undef",
        unroll_cut=block.loop,
    )


def _condition_locations(cond: str) -> list[Loc]:
    out: list[Loc] = []
    for m in re.finditer(r"(\d+:[A-Za-z0-9_%]+|\[[^\]]+\])=", cond):
        loc = parse_location(m.group(1))
        if loc not in out:
            out.append(loc)
    return out


def name_and_arch(path: str) -> tuple[str, str]:
    """A test file's name and architecture, from its first line."""
    with open(path, encoding="utf-8") as f:
        words = f.readline().split()
    if len(words) < 2:
        raise InputError(path, 1, 1, "no test name")
    return words[1].removesuffix(".litmus"), words[0]


@dataclass
class OracleWorker:
    """A campaign worker factory answering with herd's own blocks from ``log`` (read once
    per worker, like a model), as pipeline records: ``actions`` alters the answer for some
    tests (``verdict``, ``states``, ``counts``, ``hash``) or fails them (``input``,
    ``internal``: the task function raises; ``hang``; ``crash``: the worker dies);
    ``sleep`` delays every test; ``trace`` is a file where each test's name is appended;
    ``fail_start`` makes the worker fail to start, as a bad model does."""

    log: str
    actions: dict[str, str] = field(default_factory=dict)
    sleep: float = 0.0
    trace: str | None = None
    fail_start: bool = False

    @staticmethod
    def from_env() -> OracleWorker:
        """The oracle described by ``$HERDSMAN_TEST_ORACLE`` (JSON), for subprocesses."""
        return OracleWorker(**json.loads(os.environ["HERDSMAN_TEST_ORACLE"]))

    def __call__(self, cfg: RunConfig) -> Callable[[str], Done | Failed]:
        if self.fail_start:
            raise InputError("model.cat", 3, 1, "cannot load this model")
        blocks = {b.name: b for b in read_herd_log(self.log)}

        def work(path: str) -> Done | Failed:
            name, arch = name_and_arch(path)
            if self.trace:
                with open(self.trace, "a", encoding="utf-8") as f:
                    f.write(name + "\n")
            act = self.actions.get(name, "")
            time.sleep(self.sleep)
            if act == "hang":
                time.sleep(3600)
            if act == "crash":
                os._exit(3)
            if act == "input":
                raise InputError(path, 4, 2, "unknown PPC instruction 'lwzz'")
            if act == "internal":
                raise RuntimeError("boom")
            block = blocks[name]
            outcome = outcome_from_block(block)
            digest = block.hash or ""
            if act == "verdict":  # Undef instead of Ok or No
                outcome.undefined = True
            elif act == "states":  # another value in herd's last state line
                (last,) = [
                    st
                    for st in outcome.states
                    if state_lines(outcome.observed, [st], arch) == block.states[-1:]
                ]
                count = outcome.states.pop(last)
                outcome.states[(*last[:-1], 999)] = count
            elif act == "counts":  # one more execution
                st, count = next(iter(outcome.states.items()))
                outcome.states[st] = StateCount(count.executions + 1, count.satisfies)
            elif act == "hash":
                digest = "0" + digest
            facts = HeaderFacts(name, arch, digest, block.condition)
            return Done(path, facts, "oracle", outcome, 0.01)

        return work


def validate_with_oracle(argv: list[str]) -> int:
    """``herdsman validate ARGV`` with the oracle of ``$HERDSMAN_TEST_ORACLE`` as worker,
    as the command line runs it (for tests that interrupt or kill a campaign)."""
    return guarded("herdsman validate", lambda: validate(argv, OracleWorker.from_env()))


if __name__ == "__main__":
    sys.exit(validate_with_oracle(sys.argv[1:]))
