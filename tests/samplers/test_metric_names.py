"""The objective's name of a full-model study (the dashboard's axes): the loss minimised.

A regression's study was named "CV -rmse" (a negated RMSE, over positive values) in the
dashboard's history and generations plots (usertrial7, 26 Nov 2026).
"""

from __future__ import annotations

import numpy as np
import optuna
import pytest

from optuna_psms import FullModelRegressor
from optuna_psms.samplers._study_info import metric_label


optuna.logging.set_verbosity(optuna.logging.WARNING)


@pytest.mark.parametrize(
    ("metric", "label"),
    [
        ("rmse", "CV RMSE"),
        ("mae", "CV MAE"),
        ("mse", "CV MSE"),
        ("r2", "CV 1 - R^2"),
        ("ber", "CV BER"),
        # A scikit-learn scorer is minimised negated, and named so.
        ("accuracy", "CV -accuracy"),
    ],
)
def test_metric_label(metric: str, label: str) -> None:
    assert metric_label(metric) == label


def test_a_regression_study_is_named_after_its_rmse() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    model = FullModelRegressor(n_trials=2, random_state=0, sampler="random").fit(X, y)
    assert model.study_.metric_names == ["CV RMSE"]
