"""Ctrl-C in ``FullModelSelector.fit`` (the Python API), as in ``optuna-psms select``.

With ``n_jobs=2`` the first Ctrl-C printed nothing while the threads' trials finished (a whole
CV each: it looked hung), and a second one left the trials they ran ``RUNNING`` in the
storage, as did (with any ``n_jobs``) a Ctrl-C landing in Optuna's own code (the sampler):
a rerun took them for another worker's. Now ``fit`` says the line ``select`` says and fails
its own ``RUNNING`` trials (``fms:interrupted``) before the ``KeyboardInterrupt`` propagates,
and the same estimator resumes the study.

As ``tests/fms/test_ctrl_c_threads_line.py``: both threads' CV is blocked until the test releases
it
(a Barrier, no timer; ``tests/_blocked_threads.py``) and SIGINT is delivered with
``signal.raise_signal``, which runs the handler before it returns, in the main thread's wait
for the threads (the first Ctrl-C) and in their join (the second).
"""

from __future__ import annotations

import signal
from typing import Any

import optuna
import pandas as pd
import pytest

from optuna_psms.cli._interrupt import finishing_line
from tests._blocked_threads import sigint_with_two_trials_running
from tests.cli.test_commands import _write_csv


LINE = finishing_line(2)

pytestmark = pytest.mark.usefixtures("default_ctrl_c")  # Python's own SIGINT handler


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
    X, y = _data(tmp_path)
    db = f"sqlite:///{tmp_path}/s.db"

    def look() -> tuple[str, list[str]]:  # stderr and the trials' states at the first Ctrl-C
        return capsys.readouterr().err, [t.state.name for t in _trials(db)]

    with (
        monkeypatch.context() as patch,
        sigint_with_two_trials_running(patch, second=second, look=look) as seen,
    ):
        with pytest.raises(KeyboardInterrupt):
            _selector(db, 50, 2).fit(X, y)
        states = [t.state.name for t in _trials(db)]  # before the blocked threads end
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
