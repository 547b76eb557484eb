"""Workers forked from a parent that has loaded the model: the factory that carries it,
when the pool may fork, and the same results either way."""

from __future__ import annotations

import io
import multiprocessing
import pickle
import threading
from pathlib import Path

import pytest
from conftest import shared_path

from herdsman.herd_compat.campaigns.campaign_db import CampaignDB
from herdsman.herd_compat.campaigns.pools import Workers
from herdsman.herd_compat.campaigns.validate import CampaignConfig, run_campaign
from herdsman.herd_compat.campaigns.worker import EngineWorker, engine_worker, forked_from_here
from herdsman.herd_compat.campaigns.workers import start_method_now
from herdsman.herd_compat.pipeline.config import RunConfig
from herdsman.herd_compat.pipeline.limits import CpuTimeLimit, threads_a_fork_would_cut
from herdsman.herd_compat.pipeline.progress import ProgressBar
from herdsman.litmus.base.errors import InputError


def _oracle_like(cfg: RunConfig):  # any other factory: never loaded in the parent
    return len


def test_engine_worker_loaded_here_carries_the_model_but_not_when_pickled() -> None:
    cfg = RunConfig(model="sc")
    loaded = engine_worker.loaded_here(cfg)
    assert engine_worker.models is None  # the shared factory stays empty
    assert loaded.models is not None and loaded.models.cfg is cfg
    assert loaded.models.get("sc") is loaded.models.get("sc")  # loaded once, kept
    # (the factory itself is called in the worker only: it bounds the process's memory)
    clone = pickle.loads(pickle.dumps(loaded))  # a spawned or dask worker loads its own
    assert isinstance(clone, EngineWorker) and clone.models is None


def test_forked_from_here_loads_only_for_forked_engine_workers(tmp_path: Path) -> None:
    cfg = RunConfig(model="tso")
    forked = forked_from_here(engine_worker, cfg, "fork")
    assert isinstance(forked, EngineWorker) and forked.models is not None
    assert forked_from_here(engine_worker, cfg, "spawn") is engine_worker
    assert forked_from_here(_oracle_like, cfg, "fork") is _oracle_like
    bad = tmp_path / "bad.cat"
    bad.write_text("let x =\n")
    # a model that does not load is left to the workers, which report it as ever
    assert forked_from_here(engine_worker, RunConfig(model=str(bad)), "fork") is engine_worker


def test_the_cpu_watchdog_does_not_stop_forking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HERDSMAN_MP_START", raising=False)
    before = threads_a_fork_would_cut()
    with CpuTimeLimit(60.0):  # starts this process's watchdog thread
        pass
    assert threads_a_fork_would_cut() == before
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert threads_a_fork_would_cut() == before + 1
        assert start_method_now() == "spawn"
    finally:
        stop.set()
        other.join()
    assert start_method_now("spawn") == "spawn"
    monkeypatch.setenv("HERDSMAN_MP_START", "forkserver")
    assert start_method_now() == "forkserver"


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_campaign_same_rows_forked_from_a_loaded_parent_or_spawned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    tests = shared_path("power", "tests")
    names = sorted(p.name for p in tests.glob("*.litmus"))[:6]
    monkeypatch.setenv("HERDSMAN_MP_START", method)
    cfg = CampaignConfig(
        inputs=[str(tests / n) for n in names],
        expect=str(shared_path("power", "herd7-ppc.log")),
        model="power",
        db=str(tmp_path / "c.sqlite"),
        progress=False,
        workers=Workers(jobs=2),
    )
    outcome = run_campaign(cfg, out=io.StringIO(), err=io.StringIO())
    assert [r.category for r in outcome.rows] == ["identical"] * 6


def test_progress_bar_draws_from_its_thread_only_after_a_first_test() -> None:
    before = threads_a_fork_would_cut()
    bar = ProgressBar("validate", True, 3, 0)
    try:
        assert threads_a_fork_would_cut() == before  # the workers start now: forked
        bar.advance("0 not identical")
        assert threads_a_fork_would_cut() == before + 1  # rich's refresh thread
    finally:
        bar.stop()
    ProgressBar("validate", True, 3, 0).stop()  # no test done: nothing to stop


def _wait_for(conn) -> None:
    conn.send("running")  # the fork's hooks have run by now
    conn.recv()


def test_a_forked_worker_does_not_keep_the_journal_locked(tmp_path: Path) -> None:
    """A ``flock`` belongs to the open file, which a fork shares: a worker that outlives
    its killed parent must not hold the journal against the ``--resume`` after it."""
    path = str(tmp_path / "j.sqlite")
    db = CampaignDB(path)
    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe()
    child = ctx.Process(target=_wait_for, args=(there,))
    child.start()
    try:
        assert here.recv() == "running"
        db.close()  # the parent lets go; the child is still alive
        again = CampaignDB(path)  # not "in use by pid <child>"
        again.close()
    finally:
        here.send(None)
        child.join(10)
    with pytest.raises(InputError, match="in use"):  # within one process, as before
        first = CampaignDB(path)
        try:
            CampaignDB(path)
        finally:
            first.close()
