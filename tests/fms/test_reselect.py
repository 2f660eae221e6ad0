"""Tests of the final choice by re-evaluation (``reselect_top`` / ``reselect_cv``)."""

from __future__ import annotations

import math
from typing import Any
from typing import cast

import numpy as np
import optuna
import pytest
from sklearn.datasets import load_breast_cancer

from optuna_psms.fms import FullModelRegressor
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_objective
from optuna_psms.fms._reselect import candidates
from optuna_psms.fms._reselect import reselect
from optuna_psms.fms._reselect import RESELECT_KEY
from optuna_psms.fms._reselect import stored_choice
from optuna_psms.fms.objective import FullModelObjective


optuna.logging.set_verbosity(optuna.logging.ERROR)

SPACE = FullModelSpace(
    classifiers=["naive_bayes", "logistic", "kridge"],
    selectors=["none", "ftest"],
    preprocessors=["standardize"],
)


def _study(values: list[tuple[float, float]]) -> optuna.Study:
    """A study whose trial i has parameter ``x`` and value as given."""
    study = optuna.create_study()
    for x, value in values:
        study.add_trial(
            optuna.trial.create_trial(
                params={"x": x},
                distributions={"x": optuna.distributions.FloatDistribution(0, 10)},
                value=value,
            )
        )
    return study


class _Rescore:
    """A stand-in for the re-evaluating objective: loss looked up by ``x``; counts calls."""

    cv = 5

    def __init__(self, losses: dict[float, float]) -> None:
        self.losses = losses
        self.calls: list[float] = []

    def __call__(self, trial: optuna.trial.FixedTrial) -> float:
        x = trial.suggest_float("x", 0, 10)
        self.calls.append(x)
        return self.losses[x]


def test_reselect_refits_the_lowest_re_evaluated_loss_not_the_best_search_value() -> None:
    # Search values rank x = 1, 2, 3, 4, 5; a repeated pipeline (x = 1 again) counts once.
    study = _study([(1.0, 0.10), (2.0, 0.11), (1.0, 0.12), (3.0, 0.13), (4.0, 0.14), (5.0, 0.5)])
    assert [t.params["x"] for t in candidates(study, 3)] == [1.0, 2.0, 3.0]
    rescore = _Rescore({1.0: 0.30, 2.0: float("nan"), 3.0: 0.20, 4.0: 0.05, 5.0: 0.0})
    made: list[int] = []

    def make() -> Any:
        made.append(1)
        return rescore

    chosen, loss = reselect(study, make, cv=5, seed=0, top=3)
    # x = 4 and 5 are outside the top 3; the failed x = 2 (nan) loses to any number.
    assert chosen.params == {"x": 3.0} and chosen.number == 3 and loss == 0.20
    assert rescore.calls == [1.0, 2.0, 3.0] and made == [1]
    record = study.user_attrs[RESELECT_KEY]
    assert record["trial"] == 3 and record["cv"] == 5 and record["seed"] == 0
    assert (stored := stored_choice(study, 3)) is not None and stored.number == 3
    # A second choice reuses the stored losses: nothing is refitted.
    assert reselect(study, make, cv=5, seed=0, top=3)[0].number == 3 and made == [1]
    # Other folds or seed: evaluated again. A wider top reuses what it can.
    reselect(study, make, cv=5, seed=0, top=4)
    assert rescore.calls == [1.0, 2.0, 3.0, 4.0] and study.user_attrs[RESELECT_KEY]["trial"] == 4
    reselect(study, make, cv=4, seed=0, top=2)
    assert rescore.calls[-2:] == [1.0, 2.0]
    # A new trial among the best makes the stored choice stale.
    study.add_trial(
        optuna.trial.create_trial(
            params={"x": 6.0},
            distributions={"x": optuna.distributions.FloatDistribution(0, 10)},
            value=0.01,
        )
    )
    assert stored_choice(study, 2) is None


def test_ties_go_to_the_better_search_value() -> None:
    study = _study([(1.0, 0.2), (2.0, 0.1)])
    # The stand-in poses as the objective (it has what reselect uses: cv and __call__).
    chosen, _ = reselect(
        study, lambda: cast(FullModelObjective, _Rescore({1.0: 0.3, 2.0: 0.3})), 5, 0, 10
    )
    assert chosen.params == {"x": 2.0}


@pytest.fixture(scope="module")
def cancer() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    X, y = load_breast_cancer(return_X_y=True)
    return X[::3, :8], y[::3]


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_reselect_top_10_re_evaluates_the_ten_best_by_5_fold_cv(cancer: Any) -> None:
    X, y = cancer
    model = FullModelSelector(
        final_check=None,
        space=SPACE,
        sampler="random",
        n_trials=14,
        random_state=0,
        reselect_top=10,
    )
    assert model.reselect_cv == 5
    model.fit(X, y)
    study = model.study_
    record = study.user_attrs[RESELECT_KEY]
    assert record["cv"] == 5 and record["seed"] == 0
    top = candidates(study, 10)
    assert len(top) == 10 and sorted(record["losses"]) == sorted(str(t.number) for t in top)
    # Each stored loss is the pipeline's 5-fold CV BER on the fit data, seeded by random_state.
    five = make_objective(X, y, space=SPACE, cv=5, random_state=0)
    for t in top[:3]:
        loss = five(optuna.trial.FixedTrial(dict(t.params)))
        assert record["losses"][str(t.number)] == pytest.approx(loss)
    lowest = min(top, key=lambda t: (record["losses"][str(t.number)], top.index(t)))
    assert model.best_trial_.number == lowest.number == record["trial"]
    assert model.best_params_ == lowest.params
    assert model.reselect_loss_ == pytest.approx(record["losses"][str(lowest.number)])
    # best_loss_ stays the chosen trial's value in the search (2-fold).
    assert model.best_loss_ == lowest.value
    # fit_trial without a trial, with the same setting, refits that same stored choice
    # (nothing is fitted again); with the default (off) it refits the best search value.
    again = FullModelSelector(final_check=None, space=SPACE, reselect_top=10).fit_trial(
        X, y, study
    )
    assert again.best_trial_.number == lowest.number
    assert again.reselect_loss_ == model.reselect_loss_
    plain = FullModelSelector(final_check=None, space=SPACE).fit_trial(X, y, study)
    assert plain.best_trial_.number == study.best_trial.number


@pytest.mark.parametrize("top", [None, 0, 1])
def test_default_and_reselect_top_0_refit_the_best_search_value(cancer: Any, top: Any) -> None:
    X, y = cancer
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=6, random_state=0
    )
    assert model.reselect_top is None  # off by default: measured, it did not help
    model.set_params(reselect_top=top).fit(X, y)
    assert model.best_trial_.number == model.study_.best_trial.number
    assert RESELECT_KEY not in model.study_.user_attrs and math.isnan(model.reselect_loss_)


def test_two_objective_studies_keep_the_pareto_pick(cancer: Any) -> None:
    X, y = cancer
    model = FullModelSelector(
        final_check=None,
        space=SPACE,
        sampler="tpe",
        n_trials=6,
        random_state=0,
        complexity="features",
        reselect_top=5,
    ).fit(X, y)
    assert RESELECT_KEY not in model.study_.user_attrs and math.isnan(model.reselect_loss_)


def test_folds_are_capped_by_the_smallest_class() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.array([0] * 37 + [1] * 3)
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=5, random_state=0, reselect_top=3
    )
    model.fit(X, y)
    assert model.study_.user_attrs[RESELECT_KEY]["cv"] == 3


def test_regressor_default_is_off() -> None:
    assert FullModelRegressor().reselect_top is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reselect_top": -1}, "reselect_top must be an int >= 0 or None"),
        ({"reselect_top": 2.5}, "reselect_top must be an int >= 0 or None"),
        ({"reselect_cv": 1}, "reselect_cv must be an int >= 2"),
    ],
)
def test_bad_reselect_arguments_fail_before_the_search(
    cancer: Any, kwargs: dict[str, Any], match: str
) -> None:
    model = FullModelSelector(final_check=None, space=SPACE, n_trials=2, **kwargs)
    with pytest.raises(ValueError, match=match):
        model.fit(*cancer)
    assert not hasattr(model, "study_")


@pytest.mark.parametrize(
    "record",
    [
        "garbage",
        {"trial": "0", "losses": {"0": 0.1}},
        {"trial": True, "losses": {"0": 0.1}},
        {"trial": 0, "losses": [0.1]},
        {"trial": 0, "losses": 7},
    ],
)
def test_a_malformed_stored_choice_is_ignored(record: Any) -> None:
    study = optuna.create_study()
    study.add_trial(optuna.trial.create_trial(params={}, distributions={}, value=0.1))
    study.set_user_attr(RESELECT_KEY, record)
    assert stored_choice(study, 3) is None
    study.set_user_attr(RESELECT_KEY, {"trial": 0, "losses": {"0": 0.1}})
    assert stored_choice(study, 3) is not None  # a well-formed record is followed
