"""The pool at scale: histogram gradient boosting in both pools and in the initial pipelines,
components left out above their declared size, and a regression's initial pipelines
(issue 32, item 1)."""

from __future__ import annotations

import numpy as np
import optuna
import pytest

from optuna_psms.fms import FullModelRegressor
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import RegressionSpace
from optuna_psms.fms._cost import COSTS
from optuna_psms.fms._cost import fit_pool
from optuna_psms.fms._cost import refit_seconds
from optuna_psms.fms._initial import default_pipelines
from optuna_psms.fms._initial import HGB_FIRST_ROWS


def test_hist_gradient_boosting_is_in_both_pools_and_builds() -> None:
    for space in (FullModelSpace(), RegressionSpace()):
        assert "hist_gradient_boosting" in space.classifier_names
        ctx = space.context(4, 0 if space.task == "regression" else 2, 100)
        prefix = space.model_prefix
        study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
        study.enqueue_trial({f"{prefix}:method": "hist_gradient_boosting", "fs:method": "none"})
        spec = space.suggest(study.ask(), ctx)
        assert spec.classifier[0].name == "hist_gradient_boosting"
        pipe = space.build(spec)
        X = np.random.default_rng(0).normal(size=(60, 4))
        y = (X[:, 0] > 0).astype(int) if space.task == "classification" else X[:, 0]
        assert pipe.fit(X, y).predict(X).shape == (60,)


def test_small_data_keeps_the_pool_and_the_four_initial_pipelines() -> None:
    space = FullModelSpace()
    assert fit_pool(space, 5_000, chosen=False) == (space, None)
    small = default_pipelines(space, space.context(8, 2, HGB_FIRST_ROWS - 1), "ber")
    assert [p["clf:method"] for p in small] == [
        "svc",
        "logistic",
        "random_forest",
        "gradient_boosting",
    ]


def test_large_data_starts_from_histogram_gradient_boosting() -> None:
    space = FullModelSpace()
    large = default_pipelines(space, space.context(8, 2, HGB_FIRST_ROWS), "ber")
    assert large[0]["clf:method"] == "hist_gradient_boosting"
    assert large[0]["clf:hist_gradient_boosting:learning_rate"] == 0.1
    assert len(large) == 5


@pytest.mark.parametrize(
    ("space", "rows", "gone"),
    [
        (FullModelSpace(), 5_001, {"kridge"}),
        (FullModelSpace(), 20_000, {"kridge", "svc"}),
        (RegressionSpace(), 20_000, {"kridge", "svr"}),
        (RegressionSpace(), 300_000, {"kridge", "svr", "knn", "gradient_boosting", "rf"}),
    ],
)
def test_components_above_their_size_leave_the_default_pool_with_a_line(
    space: FullModelSpace, rows: int, gone: set[str]
) -> None:
    scaled, line = fit_pool(space, rows, chosen=False)
    kept = set(scaled.classifier_names) | set(scaled.selector_names)
    before = set(space.classifier_names) | set(space.selector_names)
    assert before - kept >= gone - {"rf"} and not (kept & gone)
    assert line is not None and f"{rows:,} rows: left out of the default pool" in line
    assert all(name in line for name in gone)
    assert "hist_gradient_boosting" in scaled.classifier_names
    # A pool the user chose is kept; the line says what may not finish.
    same, said = fit_pool(space, rows, chosen=True)
    assert same is space and said is not None and "may not finish" in said


def test_every_limited_component_says_why_and_refit_estimates_grow_with_rows() -> None:
    assert all(c.why for c in COSTS.values() if c.max_rows is not None)
    linear = refit_seconds(1.0, 1_000, 2_000, "classifier", "xgboost")
    cubic = refit_seconds(1.0, 1_000, 2_000, "classifier", "kridge")
    assert (linear, cubic) == (2.0, 8.0)


def test_a_regression_starts_from_three_textbook_pipelines() -> None:
    space = RegressionSpace()
    pipes = default_pipelines(space, space.context(5, 0, 50), "rmse")
    expected = ["hist_gradient_boosting", "linear", "random_forest"]
    assert [p["reg:method"] for p in pipes] == expected
    assert pipes[1]["pre:standardize"] and pipes[1]["reg:linear:penalty"] == "ridge"
    X = np.random.default_rng(0).normal(size=(40, 5))
    y = X @ np.arange(5.0)
    model = FullModelRegressor(n_trials=4, cv=2, random_state=0).fit(X, y)
    names = [t.params["reg:method"] for t in model.study_.trials[:3]]
    assert names == ["hist_gradient_boosting", "linear", "random_forest"]
