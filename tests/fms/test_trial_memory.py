"""A per-trial memory ceiling (``trial_memory``): a trial that allocates past it fails with its
reason and the study goes on (issue 32, item 4)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.base import BaseEstimator
from sklearn.base import ClassifierMixin

from optuna_psms.fms import Component
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_objective
from optuna_psms.fms._memory import check_trial_memory
from optuna_psms.fms._memory import MEMORY_MARK


class Hungry(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Allocates (and touches) ``mib`` MiB in ``fit``, then predicts the majority class."""

    def __init__(self, mib: int = 0) -> None:
        self.mib = mib

    def fit(self, X: Any, y: Any) -> Hungry:
        block = np.ones(self.mib * 2**17) if self.mib else np.ones(1)  # 8 bytes each
        self.total_ = float(block.sum())
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.majority_)


def _suggest(trial: Any) -> dict[str, Any]:
    return {"mib": trial.suggest_categorical("mib", [0, 4096])}


def _build(p: Any) -> Any:
    return Hungry(mib=int(p["mib"]))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
@pytest.mark.slow
def test_a_trial_past_the_ceiling_fails_with_its_reason_and_the_study_goes_on() -> None:
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), np.repeat([0, 1], 20)
    space = FullModelSpace(
        classifiers=[Component("hungry", "classifier", _suggest, _build)],
        selectors=[],
        preprocessors=[],
        bias=False,
    )
    objective = make_objective(X, y, space=space, random_state=0, trial_memory=512)
    study = optuna.create_study()
    for mib in (4096, 0, 4096, 0):  # 4 GiB past a 512 MiB ceiling, then a small one
        study.enqueue_trial({"clf:hungry:mib": mib})
    study.optimize(objective, n_trials=4)
    states = [t.state for t in study.trials]
    assert states == [optuna.trial.TrialState.FAIL, optuna.trial.TrialState.COMPLETE] * 2
    reason = study.trials[0].user_attrs["fms:error"]
    assert reason.startswith(f"{MEMORY_MARK}=512 MiB (MemoryError"), reason


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan"), "1G", True])
def test_a_bad_ceiling_is_one_clear_error(bad: Any) -> None:
    with pytest.raises(ValueError, match="trial_memory must be"):
        check_trial_memory(bad)
