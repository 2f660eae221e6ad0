"""A Ctrl-C during an MLP's training stops the search.

scikit-learn's ``MLPClassifier``/``MLPRegressor`` catch ``KeyboardInterrupt`` in their
stochastic training loop, warn "Training interrupted by user." and return the half-trained
model; the fold's warnings are silenced, so the trial completed and the search went on: 2 of
12 ``kill -INT`` during ``optuna-psms select --dataset keel:car-good`` were lost (exit 0,
all 300 trials; usertrial7, 26 Nov 2026). The Ctrl-C is made to land in the training loop
by patching the optimiser's step, not by timing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sklearn.neural_network import _stochastic_optimizers
from sklearn.neural_network import MLPClassifier
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import Pipeline

from optuna_psms.fms._folds import evaluate_fold
from optuna_psms.fms._folds import FoldTask


_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(40, 3))
_Y = (_X[:, 0] > 0).astype(np.int64)
_SPLITS = [(np.arange(20), np.arange(20, 40))]


def _ctrl_c(self: Any, params: Any, grads: Any) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("model", "metric", "n_classes"),
    [(MLPClassifier(max_iter=5), "ber", 2), (MLPRegressor(max_iter=5), "rmse", 0)],
)
def test_a_ctrl_c_in_the_training_loop_is_raised(
    monkeypatch: pytest.MonkeyPatch, model: Any, metric: str, n_classes: int
) -> None:
    monkeypatch.setattr(_stochastic_optimizers.BaseOptimizer, "update_params", _ctrl_c)
    task = FoldTask(Pipeline([("model", model)]), _SPLITS, metric, n_classes)
    y = _Y if n_classes else _X[:, 0]
    with pytest.raises(KeyboardInterrupt):
        evaluate_fold(task, _X, y, 0)


def test_other_warnings_stay_silent() -> None:
    # max_iter=1 warns ConvergenceWarning: ignored as before, the fold scored.
    task = FoldTask(Pipeline([("model", MLPClassifier(max_iter=1))]), _SPLITS, "ber", 2)
    loss, n_used, _, _ = evaluate_fold(task, _X, _Y, 0)
    assert 0.0 <= loss <= 1.0 and n_used == 3


def test_the_refits_and_the_final_check_raise_it_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # The refit of the chosen pipeline (fit_pipeline) and the final check's fits (_fit, which
    # takes a failing member as abstaining) swallowed it the same way.
    from optuna_psms.fms import FullModelSpace
    from optuna_psms.fms import make_objective
    from optuna_psms.fms._final_check import _fit
    from optuna_psms.fms._search import fit_pipeline

    space = FullModelSpace(classifiers=["mlp"], selectors=[], preprocessors=[], bias=False)
    objective = make_objective(_X, _Y, space=space, cv=2, random_state=0)
    params = {"clf:mlp:units": 3, "clf:mlp:alpha": 1e-4, "clf:mlp:learning_rate_init": 1e-3}
    params["clf:mlp:max_iter"] = 5
    monkeypatch.setattr(_stochastic_optimizers.BaseOptimizer, "update_params", _ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        fit_pipeline(objective, params)
    with pytest.raises(KeyboardInterrupt):
        _fit(Pipeline([("model", MLPClassifier(max_iter=5))]), _X, _Y)
