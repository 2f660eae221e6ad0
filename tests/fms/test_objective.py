"""Tests of make_objective: validation, failures, attrs, metrics, subsampling, seeds."""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.datasets import load_iris

from optuna_psms.fms import Component
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_objective
from optuna_psms.fms import pi_svm
from optuna_psms.fms import TabularEncoder
from optuna_psms.fms.metrics import balanced_error_rate


optuna.logging.set_verbosity(optuna.logging.ERROR)

FAST = FullModelSpace(
    classifiers=["naive_bayes", "mean_variance", "logistic"],
    selectors=["none", "ftest", "mask"],
    preprocessors=["standardize", "shift_scale"],
)


@pytest.fixture(scope="module")
def cancer() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.choice(len(y), 200, replace=False)
    return X[idx], y[idx]


# ------------------------------------------------------------------------ validation
@pytest.mark.parametrize(
    ("X", "y", "match"),
    [
        (np.zeros((5, 2)), np.zeros(4), "different lengths: 5 samples in X, 4 in y"),
        (np.ones((6, 2)), np.array(["a"] * 6), "single class"),
        (np.zeros((0, 3)), np.zeros(0), "must not be empty"),
        (np.zeros((6, 0)), np.array([0, 1] * 3), "X is empty"),
        (np.array([[1.0, np.inf]] * 6), np.array([0, 1] * 3), "infinite values"),
        (np.arange(8.0).reshape(8, 1), np.array([0] * 7 + [1]), "class 1 has only 1 sample"),
        (np.arange(8.0), np.array([0, 1] * 4), "2-dimensional"),
    ],
)
def test_invalid_data_raises_clear_value_error(X: Any, y: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_objective(X, y, cv=2)


def test_fewer_samples_per_class_than_folds() -> None:
    X = np.arange(12.0).reshape(6, 2)
    y = ["a", "a", "a", "b", "b", "b"]
    make_objective(X, y, cv=3)
    with pytest.raises(ValueError, match=r"class 'a' has only 3 sample\(s\), fewer than the 4"):
        make_objective(X, y, cv=4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metric": "nope"}, "unknown metric 'nope'"),
        ({"subsample": 0.0}, "subsample"),
        ({"subsample": 1.5}, "subsample"),
        ({"cv": 1}, "cv must be an integer >= 2"),
        ({"space": "svc"}, "space must be a FullModelSpace"),
    ],
)
def test_invalid_arguments(cancer: Any, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_objective(*cancer, **kwargs)


def test_dataframe_with_categories_missing_values_and_string_labels() -> None:
    rng = np.random.default_rng(0)
    n = 60
    y = np.where(rng.random(n) < 0.5, "yes", "no")
    frame = pd.DataFrame(
        {
            "num": np.where(y == "yes", 2.0, 0.0) + rng.normal(size=n),
            "city": rng.choice(np.array(["paris", "lima", None], dtype=object), size=n),
            "flag": rng.random(n) < 0.5,
            "cat": pd.Categorical(rng.choice(["a", "b"], size=n)),
        }
    )
    frame.loc[::7, "num"] = np.nan
    objective = make_objective(frame, pd.Series(y), space=FAST, random_state=0)
    assert objective.X.shape == (60, 2 + 3 + 2)  # num, flag, city x3, cat x2
    assert not np.isnan(objective.X).any()
    assert list(objective.classes) == ["no", "yes"]
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(objective, n_trials=5)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    # Unknown categories at prediction time encode to zeros instead of failing.
    new = frame.head(2).assign(city=["tokyo", "rome"])
    assert TabularEncoder().fit(frame).transform(new).shape == (2, 7)


def test_numeric_object_array_is_numeric() -> None:
    X = np.array([["1.5", "2"], ["3", None], ["4", "5"], ["0", "1"]], dtype=object)
    enc = TabularEncoder().fit(X)
    assert enc.numeric_columns_ == [0, 1] and enc.transform(X)[1, 1] == 2.0


# ---------------------------------------------------------------- trials and failures
def _broken_build(params: Any) -> Any:
    class Broken:
        def fit(self, X: Any, y: Any) -> Any:
            raise RuntimeError("deliberately broken")

        def get_params(self, deep: bool = True) -> dict[str, Any]:
            return {}

        def set_params(self, **kw: Any) -> Any:
            return self

    return Broken()


def _no_params(trial: Any) -> dict[str, Any]:
    return {}


def test_failing_pipeline_fails_only_its_trial(cancer: Any) -> None:
    space = FullModelSpace(classifiers=["naive_bayes"], selectors=[], preprocessors=[])
    space.register(Component("broken", "classifier", _no_params, _broken_build))
    objective = make_objective(*cancer, space=space, random_state=0)
    study = optuna.create_study()
    for method in ["broken", "naive_bayes", "broken", "naive_bayes"]:
        study.enqueue_trial({"clf:method": method})
    study.optimize(objective, n_trials=4)
    states = [t.state for t in study.trials]
    TS = optuna.trial.TrialState
    assert states == [TS.FAIL, TS.COMPLETE, TS.FAIL, TS.COMPLETE]
    failed = study.trials[0]
    assert "RuntimeError: deliberately broken" in failed.user_attrs["fms:error"]
    assert failed.user_attrs["fms:pipeline"].startswith("broken()")
    assert "fms:error" not in study.trials[1].user_attrs


def test_trial_user_attrs(cancer: Any) -> None:
    objective = make_objective(*cancer, space=FAST, cv=3, random_state=0)
    study = optuna.create_study()
    study.enqueue_trial(
        {"fs:method": "ftest", "fs:ftest:fmax_frac": 0.2, "clf:method": "logistic"}
    )
    study.enqueue_trial({"fs:method": "mask"})
    study.optimize(objective, n_trials=2)
    first, second = study.trials
    attrs = first.user_attrs
    assert "ftest(fmax_frac=0.2)" in attrs["fms:pipeline"] and "logistic(" in attrs["fms:pipeline"]
    assert len(attrs["fms:fold_scores"]) == 3
    assert first.value == pytest.approx(np.mean(attrs["fms:fold_scores"]), abs=1e-5)
    assert attrs["fms:n_features"] == 6  # round(0.2 * 30)
    assert attrs["fms:fit_time"] > 0
    assert "fms:n_samples" not in attrs and "fms:model_size" not in attrs  # see below
    # The mask's rule is the study's, once, not one more attr of every mask trial.
    assert study.user_attrs["fms:mask_rule"].startswith("per-feature: 30 parameters")
    assert set(second.user_attrs) == set(attrs)
    n_kept = sum(v for k, v in second.params.items() if k.startswith("fs:mask:"))
    assert second.user_attrs["fms:n_features"] == n_kept


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_high_dimensional_mask_works_with_tpe() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 10_000))
    y = np.repeat([0, 1], 20)
    X[:, :50] += y[:, None]
    space = FullModelSpace(classifiers=["mean_variance"], selectors=["mask"], preprocessors=[])
    objective = make_objective(X, y, space=space, random_state=0)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0, n_startup_trials=2))
    study.optimize(objective, n_trials=4)
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    trial = study.trials[-1]
    assert len([p for p in trial.params if p.startswith("fs:mask:")]) == 100
    assert "100 contiguous blocks" in study.user_attrs["fms:mask_rule"]


# -------------------------------------------------------------------------- metrics
def _value(objective: Any, params: dict[str, Any]) -> float:
    study = optuna.create_study()
    study.enqueue_trial(params)
    study.optimize(objective, n_trials=1)
    return float(study.trials[0].value) if study.trials[0].value is not None else float("nan")


def test_metrics(cancer: Any) -> None:
    space = FullModelSpace(classifiers=["svc", "naive_bayes"], selectors=[], preprocessors=[])
    params = {
        "clf:method": "naive_bayes",
        "clf:naive_bayes:var_smoothing": 1e-9,
        "post:bias": False,
    }
    values = {}
    for metric in ["ber", "error", "auc", "accuracy", "neg_log_loss"]:
        objective = make_objective(*cancer, space=space, metric=metric, random_state=0)
        values[metric] = _value(objective, params)
    assert 0 < values["ber"] < 0.2 and 0 < values["error"] < 0.2
    assert values["accuracy"] == pytest.approx(-(1 - values["error"]))
    assert 0 < values["auc"] < 0.1
    assert values["neg_log_loss"] > 0

    svc = {"clf:method": "svc", "clf:svc:C": 1.0, "clf:svc:kernel": "linear", "post:bias": True}
    pi = make_objective(*cancer, space=space, metric="pi_svm", random_state=0)
    assert 0 < _value(pi, svc) < 1
    study = optuna.create_study()
    study.enqueue_trial(params)
    study.optimize(pi, n_trials=1)
    assert study.trials[0].state == optuna.trial.TrialState.FAIL
    assert "pi_svm" in study.trials[0].user_attrs["fms:error"]


def test_metric_functions() -> None:
    assert balanced_error_rate([0, 0, 1, 1, 2, 2], [0, 0, 1, 0, 2, 0]) == pytest.approx(1 / 3)
    assert pi_svm(100.0, 0.0) == pytest.approx(1.0)
    # Eq. 6 by hand: exp(-0.1 * (30 + 100) / (200 - 30 - 90))
    assert pi_svm(90.0, 30.0) == pytest.approx(np.exp(-0.1 * 130 / 80))
    assert pi_svm(90.0, 10.0) > pi_svm(90.0, 30.0) > pi_svm(80.0, 30.0)


def test_multiclass_ber_objective() -> None:
    X, y = load_iris(return_X_y=True)
    objective = make_objective(X, y, space=FAST, random_state=0)
    value = _value(
        objective,
        {
            "clf:method": "naive_bayes",
            "fs:method": "none",
            "pre:standardize": False,
            "pre:shift_scale": False,
        },
    )
    assert 0 <= value < 0.15


# ------------------------------------------------------------ subsampling and seeds
def test_subsample_is_stratified_and_deterministic(cancer: Any) -> None:
    objective = make_objective(*cancer, space=FAST, subsample=0.3, cv=2, random_state=7)
    again = make_objective(*cancer, space=FAST, subsample=0.3, cv=2, random_state=7)
    other = make_objective(*cancer, space=FAST, subsample=0.3, cv=2, random_state=8)

    def used(obj: Any, number: int) -> np.ndarray[Any, Any]:
        return np.sort(np.concatenate([te for _, te in obj.splits(number)]))

    a0, a1 = used(objective, 0), used(objective, 1)
    assert np.array_equal(a0, used(again, 0))
    assert not np.array_equal(a0, a1)
    assert not np.array_equal(a0, used(other, 0))
    y = cancer[1]
    assert a0.size == pytest.approx(60, abs=2)
    assert np.mean(y[a0]) == pytest.approx(np.mean(y), abs=0.03)
    full = make_objective(*cancer, space=FAST, random_state=7)
    assert used(full, 0).size == 200 and used(full, 5).size == 200


def test_reproducible_with_random_state(cancer: Any) -> None:
    space = FullModelSpace(
        classifiers=["random_forest", "mlp", "logistic"], selectors=["none", "rf", "pca"]
    )

    def run() -> list[tuple[Any, ...]]:
        objective = make_objective(*cancer, space=space, subsample=0.7, random_state=3)
        study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=3))
        study.optimize(objective, n_trials=6)
        return [(t.value, tuple(sorted(t.params.items()))) for t in study.trials]

    assert run() == run()


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_parallel_folds_match_serial(cancer: Any) -> None:
    params = {"clf:method": "logistic", "fs:method": "ftest"}
    serial = make_objective(*cancer, space=FAST, cv=2, random_state=0)
    parallel = make_objective(*cancer, space=FAST, cv=2, random_state=0, n_jobs=2)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial(params)
    trial = study.ask()
    value = serial(trial)
    replay = optuna.trial.FixedTrial(trial.params)
    assert parallel(replay) == pytest.approx(value)


def test_build_pipeline_replays_params(cancer: Any) -> None:
    objective = make_objective(*cancer, space=FAST, random_state=0)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=4))
    study.optimize(objective, n_trials=3)
    best = study.best_trial
    assert objective.describe(best.params) == best.user_attrs["fms:pipeline"]
    pipe = objective.build_pipeline(best.params).fit(objective.X, objective.y)
    assert pipe.predict(objective.X).shape == (200,)


def test_a_plain_or_mask_trial_shows_its_pipeline_and_psms_attrs_in_the_dashboard_box(
    cancer: Any, tmp_path: Any
) -> None:
    # optuna-dashboard lists a trial's user attrs in the storage's order, in a box six lines
    # high; an SQLite storage returns them by key. Eight attrs hid fms:pipeline,
    # psms:iteration and psms:particle below fms:model_size and fms:n_samples (usertrial3).
    from optuna_psms import PSOSampler

    url = f"sqlite:///{tmp_path / 'attrs.db'}"
    space = FullModelSpace(
        classifiers=["naive_bayes", "logistic"], selectors=["none", "ftest", "mask"]
    )
    objective = make_objective(*cancer, space=space, random_state=0)
    study = optuna.create_study(storage=url, sampler=PSOSampler(seed=0))
    study.optimize(objective, n_trials=6)
    loaded = optuna.load_study(study_name=study.study_name, storage=url)
    trials = loaded.trials
    plain = [t for t in trials if t.params["fs:method"] != "mask"]
    assert plain and len(plain) < len(trials)
    for trial in trials:
        keys = list(trial.user_attrs)
        assert keys == sorted(keys)  # the order the dashboard gets from SQLite
        # A mask trial too: its rule is a study attr (it sorted before psms:particle).
        assert keys == [
            "fms:fit_time",
            "fms:fold_scores",
            "fms:n_features",
            "fms:pipeline",
            "psms:iteration",
            "psms:particle",
        ]
    assert loaded.user_attrs["fms:mask_rule"].startswith("per-feature: 30 parameters")
    # With complexity= the model size is kept: it is what the complexity term measures.
    objective = make_objective(*cancer, space=FAST, random_state=0, complexity="model")
    study = optuna.create_study(directions=["minimize", "minimize"])
    study.optimize(objective, n_trials=1)
    assert {"fms:model_size", "fms:complexity"} <= set(study.trials[0].user_attrs)
