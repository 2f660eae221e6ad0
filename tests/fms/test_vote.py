"""Tests of predicting by a vote of the best distinct pipelines (``ensemble_top``)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import optuna
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.datasets import load_iris
from sklearn.metrics import balanced_accuracy_score

from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms._ensemble import check_ensemble_top
from optuna_psms.fms._ensemble import pipeline_proba
from optuna_psms.fms._ensemble import vote_codes
from optuna_psms.fms._ensemble import vote_proba
from optuna_psms.fms.export import export_python


optuna.logging.set_verbosity(optuna.logging.ERROR)

SPACE = FullModelSpace(
    classifiers=["naive_bayes", "logistic", "svc"],
    selectors=["none", "ftest"],
    preprocessors=["standardize"],
)


@pytest.fixture(scope="module")
def binary() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.r_[0:60, 300:400]
    return X[rows, :8], np.array(["no", "yes"])[y[rows]]


def _key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True, default=str)


def _fit(X: Any, y: Any, top: int | None, n_trials: int = 12) -> FullModelSelector:
    model = FullModelSelector(  # the vote itself: no final check (tests/fms/test_final_check)
        space=SPACE,
        sampler="random",
        n_trials=n_trials,
        random_state=1,
        ensemble_top=top,
        final_check=None,
    )
    return model.fit(X, y)


def _centred(pipe: Any, X: Any) -> np.ndarray[Any, Any]:
    """Each member's own decision, as a score with 0.5 at its threshold (by hand)."""
    last = pipe.steps[-1][1]
    if hasattr(pipe, "decision_function"):
        return np.asarray(1.0 / (1.0 + np.exp(-pipe.decision_function(X))))
    threshold = getattr(last, "threshold_", None)
    threshold = 0.5 if threshold is None else threshold
    return np.asarray(pipe.predict_proba(X)[:, 1] - threshold + 0.5)


def test_one_member_is_the_single_best(binary: Any) -> None:
    X, y = binary
    off, one, three = _fit(X, y, None), _fit(X, y, 1), _fit(X, y, 3)
    for model in (off, one):
        assert len(model.ensemble_) == 1 and model.ensemble_[0] is model.best_pipeline_
        np.testing.assert_array_equal(
            model.predict(X), model.classes_[model.best_pipeline_.predict(X)]
        )
        np.testing.assert_array_equal(model.predict_proba(X), off.predict_proba(X))
    # The vote does not change the search nor the single best pipeline.
    assert three.best_params_ == off.best_params_
    assert [t.value for t in three.study_.trials] == [t.value for t in off.study_.trials]
    np.testing.assert_array_equal(three.best_pipeline_.predict(X), off.best_pipeline_.predict(X))


def test_three_members_vote_by_centred_scores(binary: Any) -> None:
    X, y = binary
    model = _fit(X, y, 3)
    members, trials = model.ensemble_, model.ensemble_trials_
    assert len(members) == 3 and members[0] is model.best_pipeline_
    assert trials[0].number == model.best_trial_.number
    assert len({_key(t.params) for t in trials}) == 3
    # The members are the best distinct complete trials, best first.
    done = sorted(
        (t for t in model.study_.trials if t.state == optuna.trial.TrialState.COMPLETE),
        key=lambda t: (t.value, t.number),
    )
    distinct = list(dict.fromkeys(_key(t.params) for t in done))[:3]
    assert [_key(t.params) for t in trials] == distinct
    mean = np.mean([_centred(m, X) for m in members], axis=0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[(mean >= 0.5).astype(int)])
    proba = np.mean([pipeline_proba(m, X, 2) for m in members], axis=0)
    np.testing.assert_allclose(model.predict_proba(X), proba)
    # Where every member predicts the same class, so does the vote.
    own = np.array([m.predict(X) for m in members])
    agree = (own == own[0]).all(axis=0)
    assert agree.any()
    np.testing.assert_array_equal(model.predict(X)[agree], model.classes_[own[0][agree]])
    # score is the metric's (ber: balanced accuracy) of the vote's predictions.
    assert model.score(X, y) == pytest.approx(balanced_accuracy_score(y, model.predict(X)))
    assert "predicts by a vote of 3 pipelines (trials " in model.describe()
    with pytest.warns(UserWarning, match="the estimator predicts by a vote of 3 pipelines"):
        assert "the estimator predicts by a vote of 3 pipelines" in export_python(model)


def test_multiclass_vote_is_the_mean_probability() -> None:
    X, y = load_iris(return_X_y=True)
    model = FullModelSelector(
        space=SPACE, sampler="random", n_trials=8, random_state=0, ensemble_top=3, final_check=None
    ).fit(X, y)
    assert len(model.ensemble_) == 3
    proba = model.predict_proba(X)
    manual = np.mean([pipeline_proba(m, X, 3) for m in model.ensemble_], axis=0)
    np.testing.assert_allclose(proba, manual)
    np.testing.assert_array_equal(model.predict(X), np.argmax(manual, axis=1))


def test_fewer_distinct_trials_than_members(binary: Any) -> None:
    X, y = binary
    model = _fit(X, y, 10, n_trials=3)
    done = [t for t in model.study_.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert len(model.ensemble_) == len({_key(t.params) for t in done}) <= 3
    assert model.predict(X).shape == (len(y),)


def test_fit_trial_puts_the_given_trial_first(binary: Any) -> None:
    X, y = binary
    searched = _fit(X, y, None)
    worst = max(searched.study_.trials, key=lambda t: -1.0 if t.value is None else t.value)
    model = FullModelSelector(space=SPACE, random_state=1, ensemble_top=2, final_check=None)
    model.fit_trial(X, y, searched.study_, worst)
    assert [t.number for t in model.ensemble_trials_][0] == worst.number
    assert model.ensemble_trials_[1].number == searched.best_trial_.number


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_bad_values_raise_before_the_search(binary: Any, bad: Any) -> None:
    calls: list[int] = []
    model = FullModelSelector(
        final_check=None,
        space=SPACE,
        n_trials=2,
        ensemble_top=bad,
        callbacks=[lambda s, t: calls.append(1)],
    )
    with pytest.raises(ValueError, match=r"ensemble_top must be an int >= 1 or None; got "):
        model.fit(*binary)
    assert calls == []
    with pytest.raises(ValueError, match=r"ensemble_top must be an int >= 1 or None"):
        check_ensemble_top(bad)


def test_clone_and_old_pickles(binary: Any) -> None:
    X, y = binary
    model = _fit(X, y, 3)
    assert model.get_params()["ensemble_top"] == 3
    copy = clone(model)
    assert copy.ensemble_top == 3 and not hasattr(copy, "ensemble_")
    single = model.classes_[model.best_pipeline_.predict(X)]
    del model.ensemble_, model.ensemble_trials_  # a model saved before ensembles existed
    np.testing.assert_array_equal(model.predict(X), single)


class _Member:
    """A stand-in member: fixed ``predict`` codes and class probabilities."""

    def __init__(self, codes: list[int], proba: list[list[float]]) -> None:
        self.codes, self.proba = np.array(codes), np.array(proba, dtype=float)
        self.steps = [("clf", self)]

    def predict(self, X: Any) -> np.ndarray[Any, Any]:
        return self.codes

    def predict_proba(self, X: Any) -> np.ndarray[Any, Any]:
        return self.proba


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_member_with_nan_scores_abstains(n_classes: int) -> None:
    nan = [float("nan")] * n_classes
    first = [0.1, 0.8] + [0.1] * (n_classes - 2)
    second = [0.2, 0.7] + [0.1] * (n_classes - 2)
    members: list[Any] = [
        _Member([1, 1], [first, nan]),
        _Member([0, 0], [nan, nan]),
        _Member([1, 0], [second, nan]),
    ]
    codes = vote_codes(members, None, n_classes)
    # Row 0: the two finite members vote class 1 (a nan mean would give class 0);
    # row 1: no finite score, so the first member's prediction.
    np.testing.assert_array_equal(codes, [1, 1])
    proba = vote_proba(members, None, n_classes)
    np.testing.assert_allclose(proba[0], np.mean([first, second], axis=0))
    assert np.isnan(proba[1]).all()


def test_the_refit_after_the_progress_bar_is_announced(
    binary: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    # A slow pipeline's refits (ten of them with the vote) ran in silence after the bar's 100 %.
    X, y = binary
    FullModelSelector(final_check=None, space=SPACE, sampler="random", n_trials=4, random_state=0,
                      show_progress_bar=True, ensemble_top=3).fit(X, y)  # fmt: skip
    err = capsys.readouterr().err
    assert f"search done; refitting up to 3 best distinct pipelines on {len(y)} rows" in err
    FullModelSelector(final_check=None, space=SPACE, sampler="random", n_trials=4, random_state=0,
                      ensemble_top=1).fit(X, y)  # fmt: skip
    assert "refitting" not in capsys.readouterr().err  # no bar, no line
