"""A trial that another worker popped and finished too does not end this worker's search.

SQLite ignores Optuna's row lock, so two workers starting together on one SQLite file can
both pop the same enqueued initial pipeline; the second to tell it got ``ValueError: Cannot
tell a COMPLETE trial.`` and ``optuna-psms select`` stopped with that as its error (a new
user's trial, 26 Nov 2026: two workers on one SQLite file, one of three runs). The race is
made deterministic here: the objective completes its trial in the storage, as the other
worker would, before Optuna tells it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer

from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms.objective import FullModelObjective


optuna.logging.set_verbosity(optuna.logging.ERROR)


def _taken_by_another_worker(monkeypatch: pytest.MonkeyPatch, numbers: set[int]) -> None:
    original = FullModelObjective.__call__

    def racing(self: FullModelObjective, trial: optuna.trial.BaseTrial) -> Any:
        value = original(self, trial)
        if isinstance(trial, optuna.Trial) and trial.number in numbers:
            assert isinstance(value, float)
            trial.study._storage.set_trial_state_values(
                trial._trial_id, optuna.trial.TrialState.COMPLETE, [value]
            )
        return value

    monkeypatch.setattr(FullModelObjective, "__call__", racing)


def test_search_goes_on_past_a_trial_another_worker_told(monkeypatch: pytest.MonkeyPatch) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.r_[0:40, 300:360]
    _taken_by_another_worker(monkeypatch, {0, 2})
    model = FullModelSelector(
        final_check=None,
        space=FullModelSpace(classifiers=["naive_bayes", "logistic"]),
        n_trials=6,
        random_state=0,
    ).fit(X[rows, :6], y[rows])
    states = [t.state for t in model.study_.trials]
    # The two taken trials count as this worker's (it ran them): 6 trials in all.
    assert states == [optuna.trial.TrialState.COMPLETE] * 6


def test_other_value_errors_still_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: FullModelObjective, trial: optuna.trial.BaseTrial) -> Any:
        raise ValueError("Cannot read this")

    monkeypatch.setattr(FullModelObjective, "__call__", broken)
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="Cannot read this"):
        FullModelSelector(final_check=None, n_trials=2, random_state=0).fit(X[:80], y[:80])
