"""Fold pruning (trial.report per fold) with every sampler, and the per-trial time limit."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.base import BaseEstimator
from sklearn.base import ClassifierMixin
from sklearn.datasets import load_breast_cancer
from sklearn.dummy import DummyClassifier

from optuna_psms import FullModelSelector
from optuna_psms.fms import Component
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_objective
from tests.samplers import SAMPLERS


optuna.logging.set_verbosity(optuna.logging.WARNING)


def _data() -> tuple[Any, Any]:
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(y), 150, replace=False)
    return X[idx], y[idx]


class PruneOddTrials(optuna.pruners.BasePruner):
    """Deterministic pruner: odd-numbered trials are pruned at their first report."""

    def prune(self, study: optuna.Study, trial: optuna.trial.FrozenTrial) -> bool:
        return trial.number % 2 == 1


CHEAP = FullModelSpace(
    classifiers=["naive_bayes", "mean_variance"], selectors=["none", "ftest"], bias=False
)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_every_sampler_survives_pruned_trials(name: str) -> None:
    X, y = _data()
    objective = make_objective(X, y, space=CHEAP, cv=3, random_state=0)
    study = optuna.create_study(sampler=SAMPLERS[name](0), pruner=PruneOddTrials())
    study.optimize(objective, n_trials=12)
    states = [t.state for t in study.trials]
    assert len(states) == 12
    assert states.count(optuna.trial.TrialState.PRUNED) == 6
    assert states.count(optuna.trial.TrialState.COMPLETE) == 6
    for t in study.trials:
        if t.state == optuna.trial.TrialState.PRUNED:
            # Stopped after the first fold: one report, one fold score, the rest skipped.
            assert list(t.intermediate_values) == [0]
            assert t.user_attrs["fms:pruned_after_fold"] == 1
            assert t.user_attrs["fms:fold_scores"] == [
                pytest.approx(t.intermediate_values[0], abs=1e-6)
            ]
        else:
            assert list(t.intermediate_values) == [0, 1, 2]
            assert np.mean(t.user_attrs["fms:fold_scores"]) == pytest.approx(t.value, abs=1e-5)
    assert study.best_trial.state == optuna.trial.TrialState.COMPLETE


def test_wilcoxon_pruner_stops_a_hopeless_pipeline() -> None:
    X, y = _data()
    dummy = Component(
        "dummy", "classifier", lambda t: {}, lambda p: DummyClassifier(strategy="uniform")
    )
    space = FullModelSpace(
        classifiers=["mean_variance"], selectors=[], preprocessors=[], bias=False
    ).register(dummy)
    objective = make_objective(X, y, space=space, cv=10, random_state=0)
    study = optuna.create_study(
        sampler=optuna.samplers.RandomSampler(seed=0),
        pruner=optuna.pruners.WilcoxonPruner(p_threshold=0.1),
    )
    study.enqueue_trial({"clf:method": "mean_variance"})
    study.enqueue_trial({"clf:method": "dummy"})
    study.optimize(objective, n_trials=2)
    good, bad = study.trials
    assert good.state == optuna.trial.TrialState.COMPLETE
    assert bad.state == optuna.trial.TrialState.PRUNED
    assert bad.user_attrs["fms:pruned_after_fold"] < 10


def test_estimator_does_not_prune_unless_asked() -> None:
    X, y = _data()
    plain = FullModelSelector(space=CHEAP, sampler="random", n_trials=6, cv=3, random_state=0)
    plain.fit(X, y)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in plain.study_.trials)
    pruned = FullModelSelector(
        space=CHEAP, sampler="random", n_trials=6, cv=3, random_state=0, pruner=PruneOddTrials()
    ).fit(X, y)
    states = [t.state.name for t in pruned.study_.trials]
    assert states.count("PRUNED") == 3
    assert pruned.cv_results_["state"] == states


def test_multi_objective_study_gets_no_reports() -> None:
    X, y = _data()
    objective = make_objective(X, y, space=CHEAP, cv=3, random_state=0, complexity="features")
    study = optuna.create_study(directions=objective.directions)
    study.optimize(objective, n_trials=3)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert all(len(t.values) == 2 and not t.intermediate_values for t in study.trials)


# --------------------------------------------------------------------------- time limit
class SlowClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Touches ``marker + '.started'``, sleeps, then touches ``marker + '.finished'``."""

    def __init__(self, marker: str = "", seconds: float = 60.0) -> None:
        self.marker = marker
        self.seconds = seconds

    def fit(self, X: Any, y: Any) -> SlowClassifier:
        with open(self.marker + ".started", "w"):
            pass
        time.sleep(self.seconds)
        with open(self.marker + ".finished", "w"):
            pass
        self.classes_ = np.unique(y)
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.classes_[0])


class _BuildSlow:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __call__(self, params: Any) -> Any:
        return SlowClassifier(marker=self.marker)


def _slow_space(marker: str) -> FullModelSpace:
    slow = Component("slow", "classifier", lambda t: {}, _BuildSlow(marker))
    return FullModelSpace(
        classifiers=["naive_bayes"], selectors=[], preprocessors=[], bias=False
    ).register(slow)


def test_trial_timeout_fails_only_the_slow_trial(tmp_path: Any) -> None:
    X, y = _data()
    marker = str(tmp_path / "slow")
    objective = make_objective(X, y, space=_slow_space(marker), random_state=0, trial_timeout=3)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial({"clf:method": "slow"})
    study.enqueue_trial({"clf:method": "naive_bayes"})
    study.optimize(objective, n_trials=2)
    slow, fast = study.trials
    assert slow.state == optuna.trial.TrialState.FAIL
    assert slow.user_attrs["fms:timeout"] is True
    assert "exceeded trial_timeout=3s (0 of 2 folds done)" in slow.user_attrs["fms:error"]
    assert fast.state == optuna.trial.TrialState.COMPLETE
    assert len(fast.user_attrs["fms:fold_scores"]) == 2
    # The slow fit started in the child and was killed before it could finish.
    assert os.path.exists(marker + ".started")
    assert not os.path.exists(marker + ".finished")


def test_timed_trials_equal_untimed_ones_and_errors_travel() -> None:
    X, y = _data()
    kwargs: dict[str, Any] = {"space": CHEAP, "cv": 3, "random_state": 0}
    timed = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    timed.optimize(make_objective(X, y, trial_timeout=60, **kwargs), n_trials=3)
    plain = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    plain.optimize(make_objective(X, y, **kwargs), n_trials=3)
    assert [t.value for t in timed.trials] == [t.value for t in plain.trials]
    # An error raised in the child fails the trial with the child's message.
    bad = Component("bad", "classifier", lambda t: {}, lambda p: DummyClassifier(strategy="x"))
    space = FullModelSpace(
        classifiers=["naive_bayes"], selectors=[], preprocessors=[], bias=False
    ).register(bad)
    study = optuna.create_study()
    study.enqueue_trial({"clf:method": "bad"})
    study.optimize(make_objective(X, y, space=space, trial_timeout=60), n_trials=1)
    assert study.trials[0].state == optuna.trial.TrialState.FAIL
    assert study.trials[0].user_attrs["fms:error"].startswith("InvalidParameterError")


REGRESSION_TIMED = """
import numpy as np
import optuna
from optuna_psms.fms import RegressionSpace, make_objective

class PruneOddTrials(optuna.pruners.BasePruner):
    def prune(self, study, trial):
        return trial.number % 2 == 1

optuna.logging.set_verbosity(optuna.logging.ERROR)
rng = np.random.default_rng(0)
X = rng.normal(size=(90, 4))
y = X[:, 0] + 0.1 * rng.normal(size=90)
space = RegressionSpace(regressors=["linear", "knn"], selectors=[], preprocessors=[])
objective = make_objective(X, y, space=space, cv=3, random_state=0, trial_timeout=60)
study = optuna.create_study(pruner=PruneOddTrials())
study.optimize(objective, n_trials=4)
print(",".join(t.state.name for t in study.trials))
"""


def test_regression_with_timeout_and_pruning() -> None:
    # In a fresh, single-threaded process, as a user's script runs. Forking from this test
    # process, which keeps threads of earlier tests, can leave a lock held in the timed
    # trial's child (the limitation the fms._folds docstring states): in one CI run a knn
    # child hung there and its trial failed at the limit.
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run(
        [sys.executable, "-c", REGRESSION_TIMED],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "COMPLETE,PRUNED,COMPLETE,PRUNED"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork start method: Linux")
def test_timed_trials_work_from_a_script_without_a_main_guard(tmp_path: Any) -> None:
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import optuna\n"
        "from sklearn.datasets import load_iris\n"
        "from optuna_psms.fms import FullModelSpace, make_objective\n"
        "X, y = load_iris(return_X_y=True)\n"
        "space = FullModelSpace(classifiers=['naive_bayes'], selectors=[], preprocessors=[])\n"
        "objective = make_objective(X, y, space=space, random_state=0, trial_timeout=60)\n"
        "study = optuna.create_study()\n"
        "study.optimize(objective, n_trials=2)\n"
        "print([t.state.name for t in study.trials])\n"
    )
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "['COMPLETE', 'COMPLETE']"
