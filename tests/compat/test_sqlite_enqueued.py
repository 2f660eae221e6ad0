"""SQLite: two threads of one process never both take one enqueued trial (optuna#4002)."""

from __future__ import annotations

import pickle
import threading
from typing import Any

import optuna
from optuna.storages._rdb import models
from optuna.trial import TrialState
import pytest

from optuna_psms._compat._sqlite import SQLiteStorage
from optuna_psms.storages import open_storage


class _WatchedLock:
    """A lock that says when a thread had to wait for it."""

    def __init__(self, release: threading.Event) -> None:
        self._lock = threading.Lock()
        self.contended = threading.Event()
        self._release = release

    def __enter__(self) -> None:
        if not self._lock.acquire(blocking=False):
            self.contended.set()
            self._release.set()
            self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def test_two_threads_never_take_one_enqueued_trial(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first thread to read the WAITING trial waits, between its read and its write, until
    # the other thread waits for the lock. Without the lock, the other thread read the trial
    # WAITING too and both ran trial 0: `select --n-jobs 2` on SQLite stopped with "Trial#0
    # has already finished and can not be updated". Either event lets the first thread go on:
    # no time limit, so no scheduling delay can change the outcome (a limit of 30 s, expired
    # while the other thread was descheduled, failed the test with the lock in place).
    release = threading.Event()
    watched = _WatchedLock(release)
    monkeypatch.setattr(SQLiteStorage, "_taking", watched)
    real_find = models.TrialModel.find_or_raise_by_id
    reads: list[int] = []  # the threads' reads of the WAITING trial, before their writes

    def find(trial_id: int, session: Any, for_update: bool = False) -> Any:
        trial = real_find(trial_id, session, for_update)
        if trial.state == TrialState.WAITING:
            reads.append(trial_id)
            if len(reads) == 1:
                release.wait()
            else:  # the other thread read it WAITING too: no lock kept it out
                release.set()
        return trial

    storage = open_storage(f"sqlite:///{tmp_path}/s.db")
    assert isinstance(storage, SQLiteStorage)
    study = optuna.create_study(storage=storage)
    study.enqueue_trial({"x": 0.5})
    monkeypatch.setattr(models.TrialModel, "find_or_raise_by_id", staticmethod(find))
    taken: list[int] = []
    threads = [threading.Thread(target=lambda: taken.append(study.ask().number)) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(taken) == [0, 1]  # one took the enqueued trial, the other a new one
    assert watched.contended.is_set() and len(reads) == 1


def test_the_sqlite_storage_is_an_rdb_storage_that_pickles(tmp_path: Any) -> None:
    storage = open_storage(f"sqlite:///{tmp_path}/s.db")
    assert isinstance(storage, optuna.storages.RDBStorage)
    study = optuna.create_study(storage=storage)
    study.enqueue_trial({"x": 0.5})
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3, n_jobs=2)
    again = pickle.loads(pickle.dumps(storage))
    assert isinstance(again, SQLiteStorage)
    trials = optuna.load_study(study_name=study.study_name, storage=again).trials
    assert sorted(t.state.name for t in trials) == ["COMPLETE"] * 3
    assert [t.params["x"] for t in trials].count(0.5) == 1
