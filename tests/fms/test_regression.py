"""Regression full model selection: the pool, the target checks, FullModelRegressor."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.base import is_regressor
from sklearn.datasets import load_diabetes
from sklearn.metrics import mean_absolute_error
from sklearn.metrics import mean_squared_error
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

from optuna_psms import FullModelRegressor
from optuna_psms import FullModelSelector
from optuna_psms import FullModelSpace
from optuna_psms import RegressionSpace
from optuna_psms.fms import Component
from optuna_psms.fms import make_objective
from optuna_psms.fms import target_task
from optuna_psms.fms.metrics import fold_loss
from optuna_psms.fms.regression import REGRESSION_SELECTORS
from optuna_psms.fms.regression import REGRESSORS
from optuna_psms.fms.space import PREPROCESSORS


optuna.logging.set_verbosity(optuna.logging.WARNING)


def _diabetes(n: int = 120) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    X, y = load_diabetes(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(y), n, replace=False)
    return X[idx], y[idx]


def _sample(space: RegressionSpace, X: Any, fixed: dict[str, Any], seed: int) -> Any:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    study.enqueue_trial(fixed)
    trial = study.ask()
    spec = space.suggest(trial, space.context(X.shape[1], 0, X.shape[0]))
    return spec, space.build(spec), trial


POOL = (
    [("preprocessor", n) for n in PREPROCESSORS]
    + [("selector", n) for n in REGRESSION_SELECTORS]
    + [("regressor", n) for n in REGRESSORS]
)


@pytest.mark.parametrize(("kind", "name"), POOL, ids=[f"{k}:{n}" for k, n in POOL])
def test_every_regression_component_fits_and_predicts(kind: str, name: str) -> None:
    X, y = _diabetes()
    fixed: dict[str, Any] = {}
    if kind == "regressor":
        space = RegressionSpace(regressors=[name], selectors=[], preprocessors=[])
    elif kind == "selector":
        space = RegressionSpace(regressors=["linear"], selectors=[name], preprocessors=[])
        fixed = {"reg:linear:penalty": "ridge", "reg:linear:alpha": 1e-3}
    else:
        space = RegressionSpace(regressors=["linear"], selectors=[], preprocessors=[name])
        fixed = {f"pre:{name}": True, "reg:linear:penalty": "ridge", "reg:linear:alpha": 1e-3}
    if kind == "selector":
        fixed["fs:" + name + ":fmax_frac"] = 0.5
    spec, pipeline, trial = _sample(space, X, fixed, seed=1)
    used = {
        "regressor": spec.classifier[0].name,
        "selector": spec.selector[0].name if spec.selector else None,
        "preprocessor": [c.name for c, _ in spec.preprocessors],
    }
    assert used[kind] == name or used[kind] == [name]
    assert all(p.startswith(("pre:", "fs:", "reg:")) for p in trial.params), trial.params
    assert pipeline.steps[-1][0] == "reg"
    pipeline.fit(X, y)
    pred = np.asarray(pipeline.predict(X))
    assert pred.shape == y.shape and np.isfinite(pred).all()
    if kind != "regressor":
        # A ridge regression after any single preprocessing/selection step still fits.
        assert r2_score(y, pred) > 0.2


@pytest.mark.parametrize(
    ("reg", "kernel"), [(r, k) for r in ["svr", "kridge"] for k in ["linear", "rbf", "poly"]]
)
def test_every_regression_kernel_fits(reg: str, kernel: str) -> None:
    X, y = _diabetes()
    space = RegressionSpace(regressors=[reg], selectors=[], preprocessors=["standardize"])
    fixed = {f"reg:{reg}:kernel": kernel, "pre:standardize": True}
    _, pipeline, trial = _sample(space, X, fixed, seed=3)
    assert trial.params[f"reg:{reg}:kernel"] == kernel
    pipeline.fit(X, y)
    assert np.isfinite(pipeline.predict(X)).all()


def test_regression_mask_blocks_follow_f_statistic() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 12))
    y = 3 * X[:, 7] + 0.1 * rng.normal(size=80)
    space = RegressionSpace(
        regressors=["linear"], selectors=["mask"], preprocessors=[], max_mask_params=4
    )
    fixed: dict[str, Any] = {f"fs:mask:b{j}": j == 0 for j in range(4)}
    fixed.update({"reg:linear:penalty": "ridge", "reg:linear:alpha": 1e-3})
    _, pipeline, _ = _sample(space, X, fixed, seed=0)
    pipeline.fit(X, y)
    kept = np.flatnonzero(pipeline.named_steps["fs_mask"].support_)
    assert 7 in kept and kept.size == 3  # the first block holds the best-scored features


def test_target_task_rule() -> None:
    assert target_task(load_diabetes().target) == "regression"  # 214 integer values in 442
    assert target_task(np.arange(100) * 0.5) == "regression"
    assert target_task(np.repeat(np.arange(30), 10)) == "classification"  # 10 per value
    assert target_task(np.array(["a", "b"] * 5)) == "classification"
    assert target_task(np.array([True, False] * 5)) == "classification"
    assert target_task(pd.Series([1.0, 2.0, 1.0])) == "classification"


def test_classifier_refuses_a_continuous_target_with_a_pointer() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.normal(size=40)
    with pytest.raises(ValueError, match=r"y looks continuous .*FullModelRegressor"):
        FullModelSelector(final_check=None, n_trials=1).fit(X, y)
    with pytest.raises(ValueError, match="--task regression"):
        make_objective(X, y)


@pytest.mark.parametrize(
    ("y", "message"),
    [
        (np.array(["a", "b"] * 20), "not numeric"),
        (np.r_[np.nan, np.arange(39.0)], "missing"),
        (np.r_[np.inf, np.arange(39.0)], "infinite"),
        (np.full(40, 3.0), r"y is constant \(3\.0\);"),
        (np.array([True, False] * 20), "boolean"),
        (np.arange(39.0), "different lengths"),
    ],
)
def test_regression_target_errors(y: Any, message: str) -> None:
    X = np.random.default_rng(0).normal(size=(40, 3))
    with pytest.raises(ValueError, match=message):
        make_objective(X, y, space=RegressionSpace())


def test_task_mismatch_is_refused() -> None:
    X, y = _diabetes()
    with pytest.raises(ValueError, match="use FullModelRegressor"):
        FullModelSelector(final_check=None, space=RegressionSpace(), n_trials=1).fit(X, y)
    with pytest.raises(ValueError, match="use FullModelSelector"):
        FullModelRegressor(space=FullModelSpace(), n_trials=1).fit(X, y)
    with pytest.raises(ValueError, match="not a regression metric"):
        make_objective(X, y, space=RegressionSpace(), metric="ber")
    with pytest.raises(ValueError, match="a classifier cannot join a regression space"):
        RegressionSpace().register(Component("x", "classifier", lambda t: {}, lambda p: None))


@pytest.mark.parametrize("metric", ["rmse", "mae", "mse", "r2", "neg_median_absolute_error"])
def test_regression_metrics_are_losses(metric: str) -> None:
    X, y = _diabetes()
    space = RegressionSpace(regressors=["linear"], selectors=[], preprocessors=[])
    pipeline = space.build(
        _sample(space, X, {"reg:linear:penalty": "ridge", "reg:linear:alpha": 1.0}, 0)[0]
    ).fit(X, y)
    pred = pipeline.predict(X)
    expected = {
        "rmse": float(np.sqrt(mean_squared_error(y, pred))),
        "mae": mean_absolute_error(y, pred),
        "mse": mean_squared_error(y, pred),
        "r2": 1.0 - r2_score(y, pred),
        "neg_median_absolute_error": float(np.median(np.abs(y - pred))),
    }[metric]
    assert fold_loss(metric, pipeline, X, y, 0) == pytest.approx(expected)


SMALL = RegressionSpace(regressors=["linear", "knn"], selectors=["none", "ftest"])


def test_regressor_estimator_api(tmp_path: Any) -> None:
    X, y = _diabetes(200)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    frame["city"] = np.where(y > 150, "a", "b")  # a string column is one-hot encoded
    model = FullModelRegressor(space=SMALL, sampler="tpe", n_trials=6, cv=3, random_state=0)
    assert is_regressor(model)
    assert clone(model).get_params()["cv"] == 3
    model.fit(frame, y)
    pred = model.predict(frame)
    assert pred.shape == y.shape and pred.dtype == np.float64
    # score is the metric's, higher-is-better, as best_score_ (default rmse: minus the RMSE).
    assert model.score(frame, y) == pytest.approx(-np.sqrt(mean_squared_error(y, pred)))
    weights = np.linspace(0.5, 2.0, len(y))
    for metric, expected in [
        ("mse", -mean_squared_error(y, pred, sample_weight=weights)),
        ("mae", -mean_absolute_error(y, pred, sample_weight=weights)),
        ("r2", r2_score(y, pred, sample_weight=weights)),
        ("neg_median_absolute_error", -float(np.median(np.abs(y - pred)))),
    ]:
        model.set_params(metric=metric)  # score reads the metric it is asked with
        weight = None if metric.startswith("neg_") else weights
        assert model.score(frame, y, sample_weight=weight) == pytest.approx(expected)
    model.set_params(metric="rmse")
    assert model.best_score_ == pytest.approx(-model.best_loss_)
    assert "CV rmse" in model.describe()
    assert model.study_.user_attrs["fms:metric"] == "rmse"
    assert set(model.best_params_) >= {"reg:method"}
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(frame), pred)
    # Same seed, same search; a callback sees every trial.
    numbers: list[int] = []
    again = FullModelRegressor(
        space=SMALL,
        sampler="tpe",
        n_trials=6,
        cv=3,
        random_state=0,
        callbacks=[lambda study, trial: numbers.append(trial.number)],
    )
    assert again.fit(frame, y).best_params_ == model.best_params_
    assert numbers == list(range(6))


def test_regressor_r2_metric_and_storage(tmp_path: Any) -> None:
    X, y = _diabetes()
    url = f"sqlite:///{tmp_path}/reg.db"
    model = FullModelRegressor(
        space=SMALL, metric="r2", n_trials=4, storage=url, study_name="reg", random_state=1
    ).fit(X, y)
    assert model.best_score_ == pytest.approx(1.0 - model.best_loss_)
    loaded = optuna.load_study(study_name="reg", storage=url)
    assert len(loaded.trials) == 4
    assert loaded.best_value == pytest.approx(model.best_loss_)


def _raise(params: Any) -> Any:
    raise RuntimeError("broken regressor")


def test_a_broken_regressor_fails_only_its_trial() -> None:
    X, y = _diabetes()
    broken = Component("broken", "regressor", lambda t: {}, _raise)
    space = RegressionSpace(regressors=["linear"], selectors=[], preprocessors=[]).register(broken)
    model = FullModelRegressor(space=space, sampler="random", n_trials=8, random_state=0)
    model.fit(X, y)
    states = {t.params["reg:method"]: t.state for t in model.study_.trials}
    assert states["broken"] == optuna.trial.TrialState.FAIL
    assert states["linear"] == optuna.trial.TrialState.COMPLETE
    failed = [t for t in model.study_.trials if t.state == optuna.trial.TrialState.FAIL]
    assert "broken regressor" in failed[0].user_attrs["fms:error"]


@pytest.mark.slow
def test_diabetes_quality_near_tuned_gradient_boosting() -> None:
    """Held-out R^2 of the full search within 0.05 of a TPE-tuned gradient boosting."""
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.model_selection import cross_val_score

    X, y = load_diabetes(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)

    def gb_objective(trial: optuna.Trial) -> float:
        gb = GradientBoostingRegressor(
            n_estimators=trial.suggest_int("n_estimators", 20, 500, log=True),
            learning_rate=trial.suggest_float("learning_rate", 0.01, 0.5, log=True),
            max_depth=trial.suggest_int("max_depth", 1, 5),
            subsample=trial.suggest_float("subsample", 0.5, 1.0),
            random_state=0,
        )
        return float(cross_val_score(gb, X_tr, y_tr, cv=5, scoring="r2").mean())

    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=0))
    study.optimize(gb_objective, n_trials=40)
    baseline = GradientBoostingRegressor(**study.best_params, random_state=0).fit(X_tr, y_tr)
    r2_gb = r2_score(y_te, baseline.predict(X_te))
    model = FullModelRegressor(n_trials=80, sampler="tpe", random_state=0).fit(X_tr, y_tr)
    r2_fms = r2_score(y_te, model.predict(X_te))
    print(f"\nheld-out R^2: FullModelRegressor {r2_fms:.4f}, tuned GB {r2_gb:.4f}")
    print(model.describe())
    assert r2_fms >= r2_gb - 0.05


def _reg_csv(tmp_path: Any) -> tuple[pd.DataFrame, Any]:
    X, y = _diabetes()
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    frame["target"] = y
    csv = tmp_path / "reg.csv"
    frame.to_csv(csv, index=False)
    return frame, csv


@pytest.mark.slow  # > 2 s on 28 Nov 2026: the default suite stays under 5 min
def test_cli_regression_task(tmp_path: Any, capsys: Any) -> None:
    from optuna_psms.cli import main
    from optuna_psms.fms.holdout import split

    frame, csv = _reg_csv(tmp_path)
    y = frame["target"].to_numpy()
    common = ["--n-trials", "3", "--seed", "0", "--no-progress-bar", "--regressors", "linear"]
    storage = f"sqlite:///{tmp_path}/cli.db"
    out = str(tmp_path / "model.joblib")
    argv = ["select", "--csv", str(csv), "--target", "target", "--storage", storage]
    assert main([*argv, "--output", out, *common, "--study-name", "r"]) == 0  # auto: regression
    text = capsys.readouterr().out
    assert "(regression)" in text and "90 search rows, 30 held out" in text
    study = optuna.load_study(study_name="r", storage=storage)
    assert study.user_attrs["psms:cli"]["task"] == "regression"
    assert f"CV rmse on search data (2-fold): {study.best_value:.4f}" in text
    assert "linear(" in text
    import joblib

    model = joblib.load(out)
    assert isinstance(model, FullModelRegressor)
    assert model.predict(frame.drop(columns=["target"])).shape == y.shape
    # The held-out split is shuffled, not stratified (most values occur once), and the
    # baseline printed next to the held-out rmse is the search rows' mean on it.
    X_s, y_s, X_h, y_h = split(frame.drop(columns=["target"]), y, 0.25, 0, "regression")
    line = next(s for s in text.splitlines() if s.startswith("held-out rmse (30 rows"))
    held = float(line.split(": ", 1)[1].split()[0])
    base = float(line.rsplit(": ", 1)[1].rstrip(")"))
    assert held < base  # a linear model beats the mean on diabetes
    assert base == pytest.approx(float(np.sqrt(np.mean((y_h - y_s.mean()) ** 2))), abs=1e-4)
    assert len(y_h) == 30 and not np.isin(y_h, y_s).all()
    # The join settings hold the task: a classification worker is refused.
    code = main([*argv, *common, "--study-name", "r", "--task", "classification"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    code = main([*argv, "--output", out, *common, "--task", "regression", "--metric", "ber"])
    assert code == 2
    assert "not a regression metric" in capsys.readouterr().err
    code = main([*argv, "--output", out, *common, "--metric", "r2", "--study-name", "r2"])
    text = capsys.readouterr().out
    assert code == 0 and "CV 1-R^2 on search data" in text and "held-out 1-R^2" in text


def test_cli_predict_regressor(tmp_path: Any, capsys: Any) -> None:
    import joblib

    from optuna_psms.cli import main

    frame, csv = _reg_csv(tmp_path)
    storage = f"sqlite:///{tmp_path}/p.db"
    out = str(tmp_path / "m.joblib")
    argv = ["select", "--csv", str(csv), "--target", "target", "--storage", storage]
    opts = ["--n-trials", "2", "--seed", "1", "--no-progress-bar", "--regressors", "linear,knn"]
    assert main([*argv, "--output", out, *opts]) == 0
    capsys.readouterr()
    pred_csv = tmp_path / "pred.csv"
    base = ["predict", "--model", out, "--csv", str(csv), "--drop", "target"]
    assert main([*base, "--output", str(pred_csv)]) == 0
    capsys.readouterr()
    predicted = pd.read_csv(pred_csv)
    assert list(predicted.columns) == ["prediction"] and len(predicted) == len(frame)
    assert predicted["prediction"].dtype == np.float64
    expected = joblib.load(out).predict(frame.drop(columns=["target"]))
    np.testing.assert_allclose(predicted["prediction"].to_numpy(), expected, rtol=1e-12)
    assert main([*base, "--proba"]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "--proba" in err and "regression model" in err


def test_cli_continuous_target_as_classification(tmp_path: Any, capsys: Any) -> None:
    from optuna_psms.cli import main

    _, csv = _reg_csv(tmp_path)
    argv = ["select", "--csv", str(csv), "--target", "target", "--task", "classification"]
    storage = f"sqlite:///{tmp_path}/c.db"
    code = main([*argv, "--storage", storage, "--n-trials", "1", "--no-progress-bar"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "looks continuous" in err and "--task regression" in err
    # The error comes before any study is created.
    assert optuna.get_all_study_summaries(storage) == []


def test_cli_auto_rule_and_diabetes_dataset(capsys: Any) -> None:
    from optuna_psms.cli import main
    from optuna_psms.fms.datasets import load_dataset

    X, y = load_dataset("sklearn:diabetes")
    assert X.shape == (442, 10) and target_task(y) == "regression"
    assert main(["datasets", "diabetes"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["sklearn:diabetes", "442", "10", "regression"] in rows


def test_cli_name_lists_mirror_the_regression_registries() -> None:
    from optuna_psms.cli import _common
    from optuna_psms.fms.metrics import REGRESSION_METRICS
    from optuna_psms.fms.target import TASKS

    assert _common.REGRESSOR_NAMES == tuple(REGRESSORS)
    assert _common.REGRESSION_SELECTOR_NAMES == ("none", *REGRESSION_SELECTORS)
    assert _common.REGRESSION_METRIC_NAMES == tuple(REGRESSION_METRICS)
    assert _common.TASK_NAMES == tuple(TASKS)
