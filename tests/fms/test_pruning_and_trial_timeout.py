"""Fold pruning (trial.report per fold) with every sampler, and the per-trial time limit."""

from __future__ import annotations

import os
from pathlib import Path
import subprocess
import sys
import threading
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
from optuna_psms.fms import FullModelObjective
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_objective
from optuna_psms.fms import RegressionSpace
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
    objective = make_objective(X, y, space=CHEAP, cv=3, random_state=0, enable_pruning=True)
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
    objective = make_objective(X, y, space=space, cv=10, random_state=0, enable_pruning=True)
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
    plain = FullModelSelector(
        final_check=None, space=CHEAP, sampler="random", n_trials=6, cv=3, random_state=0
    )
    plain.fit(X, y)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in plain.study_.trials)
    pruned = FullModelSelector(
        final_check=None,
        space=CHEAP,
        sampler="random",
        n_trials=6,
        cv=3,
        random_state=0,
        pruner=PruneOddTrials(),
    ).fit(X, y)
    states = [t.state.name for t in pruned.study_.trials]
    assert states.count("PRUNED") == 3
    assert pruned.cv_results_["state"] == states


def test_multi_objective_study_gets_no_reports() -> None:
    X, y = _data()
    objective = make_objective(
        X, y, space=CHEAP, cv=3, random_state=0, complexity="features", enable_pruning=True
    )
    study = optuna.create_study(directions=objective.directions)
    study.optimize(objective, n_trials=3)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert all(len(t.values) == 2 and not t.intermediate_values for t in study.trials)


def test_no_pruning_unless_enabled() -> None:
    # optuna.create_study's default pruner is a MedianPruner: with fold reports it would
    # prune trials of a user who never asked for pruning (checked below, so the test can
    # fail), so the objective reports nothing unless enable_pruning=True.
    X, y = _data()
    default = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    assert isinstance(default.pruner, optuna.pruners.MedianPruner)
    default.optimize(make_objective(X, y, space=CHEAP, cv=3, random_state=0), n_trials=12)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in default.trials)
    assert not any(t.intermediate_values for t in default.trials)
    enabled = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    objective = make_objective(X, y, space=CHEAP, cv=3, random_state=0, enable_pruning=True)
    enabled.optimize(objective, n_trials=12)
    assert any(t.state == optuna.trial.TrialState.PRUNED for t in enabled.trials)
    with pytest.raises(ValueError, match="enable_pruning must be True or False"):
        make_objective(X, y, space=CHEAP, enable_pruning=1)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- time limit
# trial_timeout is one limit for every trial of a search. A test that gave the slow trial and
# the fast ones the same few seconds failed whenever a loaded machine made a fast trial (a
# fresh worker importing scikit-learn and this module, then its folds) take longer. So each
# trial here runs with its own limit (the objective reads ``trial_timeout`` at every trial):
# SHORT for the slow pipeline, whose fit sleeps far past it, and LONG, beyond any plausible
# time, for the others. The slow trial follows a trial that started the worker and imported
# this module in it: within SHORT only a small task is unpickled before the slow fit starts.
SHORT, LONG = 3.0, 60.0


class SlowClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Writes its process id to ``marker + '.started'``, sleeps ``seconds``, then touches
    ``marker + '.finished'``."""

    def __init__(self, marker: str = "", seconds: float = 60.0) -> None:
        self.marker = marker
        self.seconds = seconds

    def fit(self, X: Any, y: Any) -> SlowClassifier:
        with open(self.marker + ".started", "w") as f:
            f.write(str(os.getpid()))
        time.sleep(self.seconds)
        with open(self.marker + ".finished", "w"):
            pass
        self.classes_ = np.unique(y)
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.classes_[0])


class _BuildSlow:
    def __init__(self, marker: str, seconds: float = 60.0) -> None:
        self.marker = marker
        self.seconds = seconds

    def __call__(self, params: Any) -> Any:
        return SlowClassifier(marker=self.marker, seconds=self.seconds)


def _slow_space(marker: str) -> FullModelSpace:
    """naive_bayes, ``slow`` (a fit of 60 s) and ``instant`` (the same class, no sleep)."""
    slow = Component("slow", "classifier", lambda t: {}, _BuildSlow(marker))
    instant = Component("instant", "classifier", lambda t: {}, _BuildSlow(marker + "-0", 0.0))
    return (
        FullModelSpace(classifiers=["naive_bayes"], selectors=[], preprocessors=[], bias=False)
        .register(slow)
        .register(instant)
    )


def _one_trial(
    study: optuna.Study, objective: FullModelObjective, method: str
) -> optuna.trial.FrozenTrial:
    """One trial of classifier ``method``: SHORT for ``slow``, LONG for every other."""
    objective.trial_timeout = SHORT if method == "slow" else LONG
    study.enqueue_trial({"clf:method": method})
    study.optimize(objective, n_trials=1)
    return study.trials[-1]


@pytest.mark.slow  # a real worker process and a 3 s timeout: ~7 s
def test_trial_timeout_fails_only_the_slow_trial(tmp_path: Any) -> None:
    X, y = _data()
    marker = str(tmp_path / "slow")
    objective = make_objective(X, y, space=_slow_space(marker), random_state=0, trial_timeout=LONG)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    methods = ("instant", "slow", "naive_bayes")  # instant: starts the worker (see SHORT)
    before, slow, fast = [_one_trial(study, objective, method) for method in methods]
    assert before.state == optuna.trial.TrialState.COMPLETE
    assert slow.state == optuna.trial.TrialState.FAIL
    assert slow.user_attrs["fms:timeout"] is True
    assert "exceeded trial_timeout=3s (0 of 2 folds done)" in slow.user_attrs["fms:error"]
    assert fast.state == optuna.trial.TrialState.COMPLETE
    assert len(fast.user_attrs["fms:fold_scores"]) == 2
    # The slow trial went to the worker process that ran "instant" (its fit wrote that
    # process's id), which was killed before the slow fit could finish. Whether the slow fit
    # had started by then is up to the scheduler (a worker paused for SHORT seconds never
    # starts it), so it is not required; if it did, it was in that process.
    pid = int(Path(marker + "-0.started").read_text())
    assert pid != os.getpid()
    if os.path.exists(marker + ".started"):
        assert int(Path(marker + ".started").read_text()) == pid
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # no such process: killed, and reaped by the search
    assert not os.path.exists(marker + ".finished")


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
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


def test_regression_with_timeout_and_pruning() -> None:
    # In this test process, which keeps threads of earlier tests: the worker is a fresh
    # interpreter, not a fork, so no lock those threads hold can reach it.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 4))
    y = X[:, 0] + 0.1 * rng.normal(size=90)
    space = RegressionSpace(regressors=["linear", "knn"], selectors=[], preprocessors=[])
    objective = make_objective(
        X, y, space=space, cv=3, random_state=0, trial_timeout=60, enable_pruning=True
    )
    study = optuna.create_study(pruner=PruneOddTrials())
    study.optimize(objective, n_trials=4)
    states = [t.state.name for t in study.trials]
    assert states == ["COMPLETE", "PRUNED", "COMPLETE", "PRUNED"]


#: Taken by ``LockingClassifier.fit``; a test holds it from another thread of this process.
SHARED_LOCK = threading.Lock()


class LockingClassifier(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
    """Takes ``SHARED_LOCK`` in ``fit``, prints, and appends its process id to ``log``."""

    def __init__(self, log: str = "") -> None:
        self.log = log

    def fit(self, X: Any, y: Any) -> LockingClassifier:
        with SHARED_LOCK:  # a copy of a held lock (fork) would block here for ever
            pass
        print("a pipeline that prints must not disturb the worker's replies")
        with open(self.log, "a") as f:
            f.write(f"{os.getpid()}\n")
        self.classes_ = np.unique(y)
        return self

    def predict(self, X: Any) -> Any:
        return np.full(len(X), self.classes_[0])


class _BuildLocking:
    def __init__(self, log: str) -> None:
        self.log = log

    def __call__(self, params: Any) -> Any:
        return LockingClassifier(log=self.log)


def test_a_lock_held_by_another_thread_does_not_hang_the_timed_fit(tmp_path: Any) -> None:
    # The old design forked the searching process; a lock held by another thread at that
    # moment (logging, BLAS, OpenMP, here SHARED_LOCK) stayed held in the child, whose fit
    # then hung until the limit and failed a healthy trial.
    X, y = _data()
    log = str(tmp_path / "pids")
    locking = Component("locking", "classifier", lambda t: {}, _BuildLocking(log))
    space = FullModelSpace(
        classifiers=["naive_bayes"], selectors=[], preprocessors=[], bias=False
    ).register(locking)
    taken, finished = threading.Event(), threading.Event()

    def hold() -> None:
        with SHARED_LOCK:
            taken.set()
            finished.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        taken.wait()  # no limit: a late holder thread must not fail the test
        objective = make_objective(X, y, space=space, random_state=0, trial_timeout=60)
        study = optuna.create_study()
        for _ in range(2):
            study.enqueue_trial({"clf:method": "locking"})
        study.optimize(objective, n_trials=2)
    finally:
        finished.set()
        holder.join()
    assert [t.state.name for t in study.trials] == ["COMPLETE", "COMPLETE"]
    pids = open(log).read().split()
    # Two trials of two folds each, all in one worker process, which is not this one.
    assert len(pids) == 4 and len(set(pids)) == 1 and pids[0] != str(os.getpid())


@pytest.mark.slow  # a real 3 s timeout and a worker restart: with the slow tests
def test_the_worker_is_reused_and_replaced_after_a_timeout(tmp_path: Any) -> None:
    X, y = _data()
    log = str(tmp_path / "pids")
    marker = str(tmp_path / "slow")
    locking = Component("locking", "classifier", lambda t: {}, _BuildLocking(log))
    space = _slow_space(marker).register(locking)
    objective = make_objective(X, y, space=space, random_state=0, trial_timeout=LONG)
    study = optuna.create_study()
    for method in ("locking", "slow", "locking", "naive_bayes", "locking"):
        _one_trial(study, objective, method)  # SHORT for the slow one (see SHORT)
    states = [t.state.name for t in study.trials]
    assert states == ["COMPLETE", "FAIL", "COMPLETE", "COMPLETE", "COMPLETE"]
    assert study.trials[1].user_attrs["fms:timeout"] is True
    pids = open(log).read().split()
    assert len(pids) == 6
    before, after = set(pids[:2]), set(pids[2:])
    # One process before the timeout, one new process for every trial after it.
    assert len(before) == 1 and len(after) == 1 and before != after


@pytest.mark.slow  # a fresh interpreter running a script: with the slow tests
def test_timed_trials_work_from_a_script_without_a_main_guard(tmp_path: Any) -> None:
    # The worker never re-imports the script (unlike spawn/forkserver), and a classifier
    # defined in the script reaches it by value (cloudpickle).
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import numpy as np, optuna\n"
        "from sklearn.base import BaseEstimator, ClassifierMixin\n"
        "from sklearn.datasets import load_iris\n"
        "from optuna_psms.fms import Component, FullModelSpace, make_objective\n"
        "class Majority(ClassifierMixin, BaseEstimator):\n"
        "    def fit(self, X, y):\n"
        "        self.classes_, counts = np.unique(y, return_counts=True)\n"
        "        self.label_ = self.classes_[np.argmax(counts)]\n"
        "        return self\n"
        "    def predict(self, X):\n"
        "        return np.full(len(X), self.label_)\n"
        "X, y = load_iris(return_X_y=True)\n"
        "space = FullModelSpace(classifiers=['naive_bayes'], selectors=[], preprocessors=[])\n"
        "space.register(Component('majority', 'classifier', lambda t: {}, "
        "lambda p: Majority()))\n"
        "objective = make_objective(X, y, space=space, random_state=0, trial_timeout=60)\n"
        "study = optuna.create_study()\n"
        "study.enqueue_trial({'clf:method': 'majority'})\n"
        "study.enqueue_trial({'clf:method': 'naive_bayes'})\n"
        "study.optimize(objective, n_trials=2)\n"
        "print([t.state.name for t in study.trials], round(study.trials[0].value, 4))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, check=True
    )
    # The majority class of balanced iris: balanced error 2/3.
    assert out.stdout.strip() == "['COMPLETE', 'COMPLETE'] 0.6667"
