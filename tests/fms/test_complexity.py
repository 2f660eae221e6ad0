"""Accuracy versus complexity: the size measure per model family, both objective forms,
the Pareto pick, and PI_SVM's smaller share of support vectors."""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.compose import TransformedTargetRegressor
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import Lasso
from sklearn.linear_model import Ridge
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsRegressor
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.svm import SVR

from optuna_psms import FullModelSelector
from optuna_psms.fms import BiasClassifier
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_objective
from optuna_psms.fms.metrics import complexity_value
from optuna_psms.fms.metrics import model_size
from optuna_psms.fms.pareto import pick_simplest


optuna.logging.set_verbosity(optuna.logging.WARNING)


def _data() -> tuple[Any, Any]:
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(y), 200, replace=False)
    return StandardScaler().fit_transform(X[idx]), y[idx]


def test_model_size_per_family() -> None:
    X, y = _data()
    n = len(y)
    svc = SVC(C=1.0).fit(X, y)
    assert model_size(svc, n) == pytest.approx(svc.support_.size / n)
    assert model_size(BiasClassifier(SVC(C=1.0)).fit(X, y), n) == model_size(svc, n)
    svr = TransformedTargetRegressor(regressor=SVR(epsilon=0.5), transformer=StandardScaler())
    svr.fit(X, X[:, 0])
    assert model_size(svr, n) == pytest.approx(svr.regressor_.support_.size / n)
    lasso = Lasso(alpha=0.1).fit(X, X[:, 0] + X[:, 1])
    assert model_size(lasso, n) == pytest.approx(np.count_nonzero(lasso.coef_) / X.shape[1])
    assert model_size(lasso, n) < 0.2 and model_size(Ridge().fit(X, y), n) == 1.0
    forest = RandomForestClassifier(n_estimators=5, min_samples_leaf=10, random_state=0).fit(X, y)
    leaves = np.mean([t.tree_.n_leaves for t in forest.estimators_])
    assert model_size(forest, n) == pytest.approx(leaves / n)
    assert model_size(KNeighborsRegressor().fit(X, y), n) == 1.0
    assert model_size(GaussianNB().fit(X, y), n) == pytest.approx(2 * 2 * X.shape[1] / n)
    mlp = MLPRegressor(hidden_layer_sizes=(2,), max_iter=5).fit(X, y)
    assert model_size(mlp, n) == pytest.approx((X.shape[1] * 2 + 2) / n)
    assert model_size(Pipeline([("s", StandardScaler()), ("m", svc)]), n) == model_size(svc, n)


def test_complexity_value() -> None:
    assert complexity_value("features", 3, 30, 0.9) == pytest.approx(0.1)
    assert complexity_value("model", 3, 30, 0.9) == pytest.approx(0.9)
    assert complexity_value("both", 3, 30, 0.9) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="complexity must be one of"):
        complexity_value("size", 3, 30, 0.9)


SPACE = FullModelSpace(
    classifiers=["naive_bayes", "svc"], selectors=["none", "ftest"], preprocessors=[], bias=False
)


def test_two_objective_and_scalarised_forms() -> None:
    X, y = _data()
    two = make_objective(X, y, space=SPACE, random_state=0, complexity="both")
    assert two.directions == ["minimize", "minimize"]
    study = optuna.create_study(
        directions=two.directions, sampler=optuna.samplers.TPESampler(seed=0)
    )
    study.optimize(two, n_trials=8)
    for t in study.trials:
        loss, complexity = t.values
        assert loss == pytest.approx(np.mean(t.user_attrs["fms:fold_scores"]), abs=1e-5)
        assert complexity == pytest.approx(t.user_attrs["fms:complexity"], abs=1e-5)
        assert 0.0 < complexity <= 1.0
    one = make_objective(
        X,
        y,
        space=SPACE,
        random_state=0,
        complexity="both",
        complexity_weight=0.5,
        enable_pruning=True,
    )
    assert one.directions == ["minimize"]
    single = optuna.create_study(pruner=optuna.pruners.NopPruner())
    for t in study.trials:
        single.enqueue_trial(t.params)
    single.optimize(one, n_trials=len(study.trials))
    for a, b in zip(study.trials, single.trials):
        assert b.value == pytest.approx(a.values[0] + 0.5 * a.values[1], abs=1e-5)
    # A pruner sees each fold's loss + 0.5 * that fold's complexity.
    b = single.trials[0]
    assert b.intermediate_values[0] == pytest.approx(
        b.user_attrs["fms:fold_scores"][0] + 0.5 * b.user_attrs["fms:complexity"], abs=0.05
    )
    with pytest.raises(ValueError, match="complexity_weight"):
        make_objective(X, y, space=SPACE, complexity_weight=0.5)
    with pytest.raises(ValueError, match="complexity must be one of"):
        make_objective(X, y, space=SPACE, complexity="size")


def test_estimator_picks_the_simplest_near_best_pareto_trial() -> None:
    X, y = _data()
    model = FullModelSelector(
        final_check=None,
        space=SPACE,
        sampler="tpe",
        n_trials=12,
        random_state=0,
        complexity="features",
    ).fit(X, y)
    front = model.study_.best_trials
    lowest = min(t.values[0] for t in front)
    near = [t for t in front if t.values[0] <= lowest + 0.01]
    chosen = min(near, key=lambda t: (t.values[1], t.values[0], t.number))
    assert model.best_params_ == chosen.params
    assert model.best_loss_ == pytest.approx(chosen.values[0])
    assert model.predict(X).shape == y.shape
    assert pick_simplest(model.study_, tolerance=1.0).values[1] == min(t.values[1] for t in front)
    with pytest.raises(ValueError, match="complexity_tolerance"):
        pick_simplest(model.study_, tolerance=-1)


@pytest.mark.slow
def test_pi_svm_lowers_support_vectors_at_nearly_equal_accuracy() -> None:
    """Rojas-Dominguez et al. (2018): PI_SVM instead of the error rate keeps the accuracy
    and selects SVMs with fewer support vectors (3 splits of breast cancer, 40 TPE trials)."""
    X, y = load_breast_cancer(return_X_y=True)
    space = FullModelSpace(
        classifiers=["svc"], selectors=[], preprocessors=["standardize"], bias=False
    )
    psv: dict[str, list[float]] = {"error": [], "pi_svm": []}
    acc: dict[str, list[float]] = {"error": [], "pi_svm": []}
    for seed in range(3):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, random_state=seed, stratify=y
        )
        for metric in psv:
            model = FullModelSelector(
                final_check=None,
                space=space,
                metric=metric,
                sampler="tpe",
                n_trials=40,
                random_state=seed,
            ).fit(X_tr, y_tr)
            psv[metric].append(model_size(model.best_pipeline_[-1], len(y_tr)))
            acc[metric].append(accuracy_score(y_te, model.predict(X_te)))
    print(f"\nPSV {psv}\nheld-out accuracy {acc}")
    assert np.mean(psv["pi_svm"]) < np.mean(psv["error"])
    assert np.mean(acc["pi_svm"]) >= np.mean(acc["error"]) - 0.01
