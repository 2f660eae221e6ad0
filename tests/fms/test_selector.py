"""Tests of FullModelSelector: the estimator API, storage, samplers, pickling."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Any

import joblib
import numpy as np
import optuna
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.datasets import load_iris

from optuna_psms.fms import Component
from optuna_psms.fms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import make_sampler
from optuna_psms.fms.selector import default_sampler_name


optuna.logging.set_verbosity(optuna.logging.ERROR)

SPACE = FullModelSpace(
    classifiers=["naive_bayes", "logistic", "svc"],
    selectors=["none", "ftest"],
    preprocessors=["standardize"],
)


@pytest.fixture(scope="module")
def iris_text() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    X, y = load_iris(return_X_y=True)
    return X, np.array(["setosa", "versicolor", "virginica"])[y]


@pytest.fixture(scope="module")
def fitted(iris_text: Any) -> FullModelSelector:
    return FullModelSelector(
        final_check=None, space=SPACE, sampler="tpe", n_trials=8, random_state=0
    ).fit(*iris_text)


def test_estimator_api(fitted: FullModelSelector, iris_text: Any) -> None:
    X, y = iris_text
    assert list(fitted.classes_) == ["setosa", "versicolor", "virginica"]
    pred = fitted.predict(X)
    assert pred.dtype.kind == "U" and set(pred) <= set(y)
    proba = fitted.predict_proba(X)
    assert proba.shape == (150, 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert fitted.score(X, y) > 0.9
    assert len(fitted.study_.trials) == 8
    assert fitted.best_params_ == fitted.study_.best_params
    # scikit-learn's convention: best_score_ higher is better; the loss has its own name.
    assert fitted.best_loss_ == pytest.approx(fitted.study_.best_value)
    assert fitted.best_score_ == pytest.approx(1.0 - fitted.study_.best_value)
    assert fitted.best_pipeline_.steps[0][0] == "encoder"
    assert fitted.describe().startswith(fitted.study_.best_trial.user_attrs["fms:pipeline"])
    assert "[CV ber = " in fitted.describe()
    params = fitted.get_params()
    assert params["n_trials"] == 8 and params["sampler"] == "tpe"
    copy = clone(fitted).set_params(n_trials=3)
    assert copy.n_trials == 3 and not hasattr(copy, "best_pipeline_")


def test_describe_shows_a_scorer_as_itself(iris_text: Any) -> None:
    # "[CV accuracy = -0.9554 ...]" read as a negative accuracy (26 Nov 2026): the search still
    # minimises -accuracy (best_loss_), describe() shows the accuracy and its direction.
    model = FullModelSelector(
        final_check=None,
        space=FullModelSpace(classifiers=["naive_bayes"]),
        metric="accuracy",
        n_trials=2,
        random_state=0,
        ensemble_top=1,
    ).fit(*iris_text)
    assert model.best_loss_ < 0
    line = model.describe()
    assert f"[CV accuracy = {-model.best_loss_:.4f} on the search data, trial " in line
    assert line.endswith("; higher is better]")


def test_describe_names_the_auc_loss_it_shows(iris_text: Any) -> None:
    # "[CV auc = 0.0312 ...]" read as an AUC of 0.03: the value is 1 - ROC AUC, the loss the
    # search minimises, named "1-AUC" as optuna-psms select names it.
    model = FullModelSelector(
        final_check=None,
        space=FullModelSpace(classifiers=["naive_bayes"]),
        metric="auc",
        n_trials=2,
        random_state=0,
        ensemble_top=1,
    ).fit(*iris_text)
    line = model.describe()
    assert f"[CV 1-AUC = {model.best_loss_:.4f} on the search data, trial " in line
    assert "CV auc" not in line


def test_fit_trial_refits_without_searching(fitted: FullModelSelector, iris_text: Any) -> None:
    X, y = iris_text
    study = fitted.study_
    worst = max(study.trials, key=lambda t: t.value if t.value is not None else -1.0)
    # the vote's own description (the final check, its own tests, may choose the SVC)
    model = FullModelSelector(space=SPACE, final_check=None)
    model.fit_trial(X[::2], y[::2], study, worst)
    assert len(study.trials) == 8  # no trial added
    assert model.best_params_ == worst.params and model.best_loss_ == worst.value
    assert (
        f"[CV ber = {worst.value:.4f} on the search data, trial {worst.number}]; predicts by a "
        f"vote of 8 pipelines (trials {worst.number}, " in model.describe()
    )
    assert model.predict(X).shape == (150,) and list(model.classes_) == list(fitted.classes_)
    assert FullModelSelector(final_check=None, space=SPACE).fit_trial(
        X, y, study
    ).best_params_ == (fitted.best_params_)
    with pytest.raises(ValueError, match=r"minimised metric 'ber'; this estimator's metric is"):
        FullModelSelector(final_check=None, space=SPACE, metric="error").fit_trial(X, y, study)
    other = optuna.create_study()
    other.set_user_attr("fms:metric", "ber")
    other.ask()
    with pytest.raises(ValueError, match=r"trial 0 of study '.*' is RUNNING, not COMPLETE"):
        FullModelSelector(final_check=None, space=SPACE).fit_trial(X, y, other, other.trials[0])
    with pytest.raises(ValueError, match=r"was not searched by a full-model estimator"):
        FullModelSelector(final_check=None, space=SPACE).fit_trial(X, y, optuna.create_study())


def test_predict_proba_without_native_probabilities(iris_text: Any) -> None:
    space = FullModelSpace(classifiers=["kridge"], selectors=[], preprocessors=[])
    model = FullModelSelector(
        final_check=None, space=space, sampler="random", n_trials=2, random_state=0
    )
    proba = model.fit(*iris_text).predict_proba(iris_text[0][:5])
    assert proba.shape == (5, 3) and np.allclose(proba.sum(axis=1), 1.0)


def test_sqlite_storage_and_study_name(tmp_path: Any, iris_text: Any) -> None:
    url = f"sqlite:///{tmp_path / 'fms.db'}"
    model = FullModelSelector(
        final_check=None,
        space=SPACE,
        sampler="random",
        n_trials=3,
        storage=url,
        study_name="iris",
        random_state=1,
    ).fit(*iris_text)
    loaded = optuna.load_study(study_name="iris", storage=url)
    assert len(loaded.trials) == 3
    assert loaded.user_attrs["fms:metric"] == "ber"
    assert "fms:pipeline" in loaded.best_trial.user_attrs
    assert model.best_loss_ == pytest.approx(loaded.best_value)


def test_samplers_by_name() -> None:
    import optuna_psms

    assert isinstance(make_sampler("tpe", 0), optuna.samplers.TPESampler)
    assert isinstance(make_sampler("cmaes", 0), optuna.samplers.CmaEsSampler)
    assert isinstance(make_sampler("random", 0), optuna.samplers.RandomSampler)
    with pytest.raises(ValueError, match="unknown sampler 'nope'"):
        make_sampler("nope")
    assert default_sampler_name() == "pso"
    assert isinstance(make_sampler(None, 0), optuna_psms.PSOSampler)
    for name, cls in [
        ("pso", "PSOSampler"),
        ("PSO", "PSOSampler"),
        ("pattern", "PatternSearchSampler"),
        ("umda", "UMDASampler"),
        ("bumda", "BUMDASampler"),
        ("drs", "DynamicRandomSampler"),
        ("dfgs", "FocusedGridSampler"),
        ("afgs", "FocusedGridSampler"),
    ]:
        assert isinstance(make_sampler(name, 0), getattr(optuna_psms, cls))


def test_default_sampler_runs(iris_text: Any) -> None:
    model = FullModelSelector(final_check=None, space=SPACE, n_trials=4, random_state=0).fit(
        *iris_text
    )
    assert type(model.study_.sampler).__name__ == "PSOSampler"


def _always_fails(params: Any) -> Any:
    raise ValueError("cannot build")


def _nothing(trial: Any) -> dict[str, Any]:
    return {}


def test_every_trial_failing_raises_runtime_error(iris_text: Any) -> None:
    space = FullModelSpace(
        classifiers=[Component("bad", "classifier", _nothing, _always_fails)], selectors=[]
    )
    with pytest.raises(RuntimeError, match="no pipeline could be evaluated.*cannot build"):
        FullModelSelector(final_check=None, space=space, sampler="random", n_trials=2).fit(
            *iris_text
        )
    with pytest.raises(ValueError, match="n_trials or timeout"):
        FullModelSelector(final_check=None, n_trials=None).fit(*iris_text)


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_pickle_and_predict_in_fresh_process(
    tmp_path: Any, fitted: FullModelSelector, iris_text: Any
) -> None:
    path = tmp_path / "model.joblib"
    joblib.dump(fitted, path)
    X = iris_text[0]
    np.save(tmp_path / "X.npy", X)
    code = textwrap.dedent(
        f"""
        import joblib, numpy as np
        model = joblib.load({str(path)!r})
        pred = model.predict(np.load({str(tmp_path / "X.npy")!r}))
        print(",".join(pred[:5]), len(model.study_.trials))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    ).stdout.strip()
    assert out == ",".join(fitted.predict(X)[:5]) + " 8"


def test_pickle_with_package_sampler(iris_text: Any) -> None:
    import pickle

    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="pso", n_trials=3, random_state=0
    )
    model.fit(*iris_text)
    again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.predict(iris_text[0]), model.predict(iris_text[0]))
    assert len(again.study_.trials) == 3
    import optuna_psms

    assert isinstance(again.study_.sampler, optuna_psms.PSOSampler)  # not swapped out


def test_dataframe_input_end_to_end() -> None:
    import pandas as pd

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:120, :6].copy()
    X["group"] = np.where(X.iloc[:, 0] > X.iloc[:, 0].median(), "big", "small")
    X.iloc[::9, 1] = np.nan
    labels = pd.Series(np.where(y.iloc[:120] == 1, "benign", "malignant"))
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="tpe", n_trials=4, random_state=0
    )
    model.fit(X, labels)
    assert set(model.predict(X.head(10))) <= {"benign", "malignant"}


@pytest.mark.parametrize(
    ("metric", "score"),
    [
        ("ber", lambda loss: 1.0 - loss),  # balanced accuracy
        ("error", lambda loss: 1.0 - loss),  # accuracy
        ("f1_macro", lambda loss: -loss),  # the scorer itself: F1
        ("neg_log_loss", lambda loss: -loss),  # the scorer itself: minus the log loss
    ],
)
def test_best_score_is_higher_is_better(iris_text: Any, metric: str, score: Any) -> None:
    model = FullModelSelector(
        final_check=None, space=SPACE, sampler="random", n_trials=3, metric=metric, random_state=0
    ).fit(*iris_text)
    losses = [t.value for t in model.study_.trials if t.value is not None]
    assert model.best_loss_ == pytest.approx(min(losses))  # the study minimised the loss
    assert model.best_score_ == pytest.approx(score(model.best_loss_))
    # Higher is better whatever the metric: the best trial has the highest score.
    assert model.best_score_ == pytest.approx(max(score(v) for v in losses))
    if metric in ("ber", "error", "f1_macro"):
        assert 0.5 < model.best_score_ <= 1.0
    else:
        assert model.best_score_ < 0.0
    # describe() shows a scorer as the score (since 26 Nov 2026), neg_log_loss as the log loss.
    shown = {"f1_macro": ("f1_macro", -1.0), "neg_log_loss": ("log_loss", 1.0)}
    name, sign = shown.get(metric, (metric, 1.0))
    text = f"[CV {name} = {sign * model.best_loss_:.4f} on the search data, trial "
    assert text in model.describe()


def test_callbacks_are_called_after_every_trial(iris_text: Any) -> None:
    calls: list[tuple[str, int]] = []

    def count(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        calls.append((trial.state.name, trial.number))

    def stop_after_two(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        if trial.number == 1:
            study.stop()

    model = FullModelSelector(
        final_check=None,
        space=SPACE,
        sampler="random",
        n_trials=5,
        random_state=0,
        callbacks=[count],
    )
    assert model.get_params()["callbacks"] == [count]
    model.fit(*iris_text)
    assert calls == [("COMPLETE", n) for n in range(5)]
    calls.clear()
    model.set_params(callbacks=[count, stop_after_two]).fit(*iris_text)
    assert calls == [("COMPLETE", 0), ("COMPLETE", 1)] and len(model.study_.trials) == 2


@pytest.mark.parametrize("callbacks", [print, "print", [1]])
def test_bad_callbacks_are_refused(iris_text: Any, callbacks: Any) -> None:
    model = FullModelSelector(final_check=None, space=SPACE, n_trials=1, callbacks=callbacks)
    with pytest.raises(ValueError, match=r"^callbacks must be a list of callables"):
        model.fit(*iris_text)


def test_score_is_the_metric_the_search_minimised(
    fitted: FullModelSelector, iris_text: Any
) -> None:
    # As GridSearchCV.score uses its scoring: on other rows, the counterpart of best_score_.
    from sklearn.metrics import accuracy_score
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.metrics import f1_score
    from sklearn.metrics import roc_auc_score

    X, y = iris_text
    rows = np.r_[0:40, 50:60, 100:150]  # unbalanced, so accuracy != balanced accuracy
    X, y = X[rows], y[rows]
    model = clone(fitted).set_params(metric="ber")
    model.__dict__.update({k: v for k, v in vars(fitted).items() if k.endswith("_")})
    pred = model.predict(X)
    codes = np.searchsorted(model.classes_, y)
    assert accuracy_score(y, pred) != pytest.approx(balanced_accuracy_score(y, pred))
    assert model.score(X, y) == pytest.approx(balanced_accuracy_score(y, pred))
    weights = np.linspace(1.0, 3.0, len(y))
    expected = {
        "ber": balanced_accuracy_score(y, pred, sample_weight=weights),
        "pi_svm": balanced_accuracy_score(y, pred, sample_weight=weights),
        "error": accuracy_score(y, pred, sample_weight=weights),
        "auc": roc_auc_score(
            codes, model.predict_proba(X), multi_class="ovr", sample_weight=weights
        ),
        "f1_macro": f1_score(y, pred, average="macro", sample_weight=weights),
    }
    for metric, value in expected.items():
        model.set_params(metric=metric)
        assert model.score(X, y, sample_weight=weights) == pytest.approx(value), metric
    model.set_params(metric="auc")
    with pytest.raises(ValueError, match="labels the model was not fitted with.*: bogus"):
        model.score(X[:3], np.array(["setosa", "bogus", "virginica"]))
    model.set_params(metric="error")  # a label not among classes_ is a wrong prediction
    assert model.score(X[:2], np.array(["bogus", y[1]])) == (pred[1] == y[1]) / 2


def test_n_trials_defaults_to_the_budget_of_the_documented_figures() -> None:
    # Every figure in the docs is at 100 trials and the README says to use 100; the default
    # was 50 (at 50 the vote was 0.58 +- 0.42 BER points worse, docs/reproduce/reproductions.md).
    from optuna_psms.cli import build_parser
    from optuna_psms.cli._select_args import check_args
    from optuna_psms.fms import FullModelRegressor

    assert FullModelSelector().n_trials == 100 and FullModelRegressor().n_trials == 100
    args = build_parser().parse_args(["select", "--dataset", "sklearn:iris"])
    check_args(args)
    assert args.n_trials == 100
    # With --time-budget alone, the budget ends the search.
    args = build_parser().parse_args(["select", "--dataset", "sklearn:iris", "--time-budget", "9"])
    check_args(args)
    assert args.n_trials is None
