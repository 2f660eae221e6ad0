"""Ctrl-C in ``FullModelSelector.fit`` (the Python API), as in ``optuna-psms select``.

With ``n_jobs=2`` the first Ctrl-C printed nothing while the threads' trials finished (a whole
CV each: it looked hung), and a second one left the trials they ran ``RUNNING`` in the
storage, as did (with any ``n_jobs``) a Ctrl-C landing in Optuna's own code (the sampler):
a rerun took them for another worker's. Now ``fit`` says the line ``select`` says and fails
its own ``RUNNING`` trials (``fms:interrupted``) before the ``KeyboardInterrupt`` propagates,
and the same estimator resumes the study.

As ``tests/test_ctrl_c_jobs_line.py``: both threads' CV is blocked until the test releases it
(a Barrier, no timer) and SIGINT is delivered with ``signal.raise_signal``, which runs the
handler before it returns, in the main thread's wait for the threads (the first Ctrl-C) and
in their join (the second).
"""

from __future__ import annotations

from collections.abc import Iterator
import concurrent.futures
import signal
import threading
from typing import Any

import optuna
from optuna.study import _optimize
import pandas as pd
import pytest

from optuna_psms.cli._interrupt import finishing_line
from tests.test_cli import _write_csv


LINE = finishing_line(2)


@pytest.fixture(autouse=True)
def default_ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler (raise KeyboardInterrupt), as in a plain interpreter."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _data(tmp_path: Any) -> tuple[pd.DataFrame, pd.Series]:
    _write_csv(tmp_path / "data.csv")
    data = pd.read_csv(tmp_path / "data.csv")
    return data.drop(columns="label"), data["label"]


def _selector(db: str, n_trials: int, n_jobs: int) -> Any:
    from optuna_psms.fms import FullModelSelector
    from optuna_psms.fms import FullModelSpace

    return FullModelSelector(
        final_check=None,
        space=FullModelSpace(classifiers=["naive_bayes"], selectors=["none"]),
        sampler="random",
        initial_pipelines=None,
        ensemble_top=1,
        n_trials=n_trials,
        n_jobs=n_jobs,
        storage=db,
        study_name="cut",
        load_if_exists=True,
        random_state=0,
    )


def _trials(db: str) -> list[optuna.trial.FrozenTrial]:
    return optuna.load_study(study_name="cut", storage=db).trials


def _resumes(X: Any, y: Any, db: str, before: list[str]) -> None:
    """The same estimator continues the study: the trials keep their states, the numbering
    goes on, and it fits."""
    model = _selector(db, 2, 2).fit(X, y)
    assert [t.state.name for t in model.study_.trials] == [*before, "COMPLETE", "COMPLETE"]
    assert model.best_trial_.state.name == "COMPLETE"


@pytest.mark.parametrize("second", [False, True], ids=["one-ctrl-c", "two-ctrl-c"])
def test_fit_two_jobs_ctrl_c_says_so_and_leaves_no_trial_running(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch, second: bool
) -> None:
    from optuna_psms.fms import objective as objective_module
    from optuna_psms.fms._folds import run_folds as real_folds

    X, y = _data(tmp_path)
    db = f"sqlite:///{tmp_path}/s.db"
    release = threading.Event()
    both_blocked = threading.Barrier(3)  # the two threads' first trials and the main thread
    folds: list[int] = []
    lock = threading.Lock()

    def run_folds(*args: Any, **kwargs: Any) -> Any:
        with lock:
            folds.append(1)
            k = len(folds) - 1
        if k < 2:  # the first two trials run until the test releases them
            both_blocked.wait()
            release.wait()
        return real_folds(*args, **kwargs)

    seen: list[tuple[str, list[str]]] = []  # stderr and the trials' states at the Ctrl-C

    def wait(fs: Any, timeout: Any = None, return_when: Any = None) -> Any:
        # The first Ctrl-C, once both threads run a blocked trial. Until then the real wait,
        # in short steps: with both threads blocked it would never return.
        while True:
            if both_blocked.n_waiting == 2:
                both_blocked.wait()
                try:
                    signal.raise_signal(signal.SIGINT)
                finally:
                    seen.append((capsys.readouterr().err, [t.state.name for t in _trials(db)]))
                    if not second:
                        release.set()  # the trials in progress finish now
            done, not_done = concurrent.futures.wait(fs, 0.05, return_when)
            if done:
                return done, not_done

    executors: list[concurrent.futures.ThreadPoolExecutor] = []

    class Executor(concurrent.futures.ThreadPoolExecutor):
        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            if not second:
                super().shutdown(wait=wait, cancel_futures=cancel_futures)
                return
            executors.append(self)  # the second Ctrl-C, in the join of the threads
            super().shutdown(wait=False)
            signal.raise_signal(signal.SIGINT)

    with monkeypatch.context() as patch:
        patch.setattr(objective_module, "run_folds", run_folds)
        patch.setattr(_optimize, "wait", wait)
        patch.setattr(_optimize, "ThreadPoolExecutor", Executor)
        try:
            with pytest.raises(KeyboardInterrupt):
                _selector(db, 50, 2).fit(X, y)
            states = [t.state.name for t in _trials(db)]  # before the blocked threads end
        finally:
            release.set()
            for executor in executors:  # joins its threads
                concurrent.futures.ThreadPoolExecutor.shutdown(executor, wait=True)
    [(said, running)] = seen
    # Said at once, on stderr, while both trials were still running; and said once.
    assert said.splitlines() == [LINE]
    assert running == ["RUNNING", "RUNNING"]
    assert LINE not in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    trials = _trials(db)
    if second:  # failed by fit, as select does; the threads ending later cannot change them
        assert states == ["FAIL", "FAIL"]
        assert [t.state.name for t in trials] == ["FAIL", "FAIL"]
        assert all(t.user_attrs.get("fms:interrupted") for t in trials)
    else:  # they finished
        assert states == ["COMPLETE", "COMPLETE"]
    _resumes(X, y, db, states)


def test_fit_ctrl_c_in_the_sampler_fails_the_trial_it_left_running(
    tmp_path: Any, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # n_jobs=1: a Ctrl-C in the sampler, while study.ask prepares the 2nd trial (its
    # before_trial, outside the objective), left that trial RUNNING: Optuna fails only the
    # trial whose objective is cut. And nothing more is said (one job: it stops at once).
    X, y = _data(tmp_path)
    db = f"sqlite:///{tmp_path}/s.db"
    calls: list[int] = []

    def before_trial(self: Any, study: Any, trial: Any) -> None:
        calls.append(trial.number)
        if trial.number == 1:
            signal.raise_signal(signal.SIGINT)

    with monkeypatch.context() as patch:
        patch.setattr(optuna.samplers.RandomSampler, "before_trial", before_trial)
        with pytest.raises(KeyboardInterrupt):
            _selector(db, 50, 1).fit(X, y)
    assert 1 in calls
    trials = _trials(db)
    assert [t.state.name for t in trials] == ["COMPLETE", "FAIL"]
    assert trials[1].user_attrs.get("fms:interrupted") is True
    assert "Ctrl-C" not in capsys.readouterr().err
    _resumes(X, y, db, ["COMPLETE", "FAIL"])
