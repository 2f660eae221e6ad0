"""Rows as a fidelity (``rows_fidelity``): a first rung on a share of the rows, reported to the
pruner as step 0; a trial the pruner stops there is PRUNED (issue 32, item 2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import optuna
import pytest

from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms._fidelity import check_rows_fidelity
from optuna_psms.fms._fidelity import first_rung_split
from optuna_psms.fms._fidelity import PRUNED_AT
from optuna_psms.fms._fidelity import RUNG_MIN_ROWS


def _data(n: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4))
    return X, (X[:, 0] + rng.normal(size=n) > 0).astype(int)


def _model(**kwargs: Any) -> FullModelSelector:
    return FullModelSelector(
        space=FullModelSpace(classifiers=["naive_bayes", "mean_variance"], selectors=["none"]),
        sampler="random",
        n_trials=14,
        random_state=0,
        final_check=None,
        ensemble_top=1,
        initial_pipelines=None,
        **kwargs,
    )


@pytest.mark.slow
def test_a_first_rung_prunes_trials_above_ten_thousand_rows_only() -> None:
    X, y = _data(10_000)
    model = _model(rows_fidelity=0.25).fit(X, y)
    trials = model.study_.trials
    pruned = [t for t in trials if t.state == optuna.trial.TrialState.PRUNED]
    assert pruned and all(t.user_attrs[PRUNED_AT] == RUNG_MIN_ROWS for t in pruned)
    complete = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert complete and all(set(t.intermediate_values) == {0} for t in complete)
    small = _model(rows_fidelity=0.25).fit(*_data(2_000))  # below 10,000 rows: no rung
    assert all(not t.intermediate_values for t in small.study_.trials)


def test_the_rung_keeps_a_share_of_the_training_rows_and_all_validation_rows() -> None:
    train, test = np.arange(0, 20_000, 2), np.arange(1, 20_000, 2)
    small_train, same_test = first_rung_split((train, test), 0.25, 0, 3)
    assert small_train.size == 2_500 and set(small_train) <= set(train)
    assert same_test is test
    again, _ = first_rung_split((train, test), 0.25, 0, 3)
    assert np.array_equal(again, small_train)  # from (seed, trial number)
    for bad in (0, 1, 1.5, -0.1, "0.2", True):
        with pytest.raises(ValueError, match="rows_fidelity must be a share"):
            check_rows_fidelity(bad)
