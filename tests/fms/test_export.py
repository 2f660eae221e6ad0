"""export_python: the script rebuilds the same pipeline and predicts the same; cv_results_."""

from __future__ import annotations

from collections.abc import Callable
import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.datasets import load_breast_cancer
from sklearn.datasets import load_diabetes
from sklearn.datasets import load_iris

from optuna_psms import FullModelRegressor
from optuna_psms import FullModelSelector
from optuna_psms.fms import FullModelSpace
from optuna_psms.fms import RegressionSpace
from optuna_psms.fms.export import _Writer
from optuna_psms.fms.regression import REGRESSION_SELECTORS
from optuna_psms.fms.regression import REGRESSORS
from optuna_psms.fms.space import CLASSIFIERS
from optuna_psms.fms.space import SELECTORS


optuna.logging.set_verbosity(optuna.logging.WARNING)


def _same_params(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    assert pa.keys() == pb.keys()
    for key in pa:
        va, vb = pa[key], pb[key]
        if isinstance(va, BaseEstimator):
            _same_params(va, vb)
        elif key == "steps":
            assert [n for n, _ in va] == [n for n, _ in vb]
            for (_, ea), (_, eb) in zip(va, vb):
                _same_params(ea, eb)
        else:
            assert va == vb or (va != va and vb != vb), (type(a).__name__, key, va, vb)


def _roundtrip(pipeline: Any) -> Any:
    writer = _Writer()
    code = writer.code(pipeline)
    namespace: dict[str, Any] = {}
    exec("\n".join(writer.import_lines()), namespace)
    return eval(code, namespace)


def _sample(space: FullModelSpace, n_features: int, n_classes: int, seed: int) -> Any:
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    spec = space.suggest(study.ask(), space.context(n_features, n_classes, 100))
    return space.build(spec)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("model", CLASSIFIERS + [f"reg:{r}" for r in REGRESSORS])
def test_every_pool_pipeline_is_written_as_equal_code(model: str, seed: int) -> None:
    if model.startswith("reg:"):
        space: FullModelSpace = RegressionSpace(regressors=[model[4:]])
        selectors = REGRESSION_SELECTORS
    else:
        space = FullModelSpace(classifiers=[model])
        selectors = SELECTORS
    assert selectors
    pipeline = _sample(space, n_features=8, n_classes=2, seed=seed)
    _same_params(_roundtrip(pipeline), pipeline)


def _run_script(path: str, csv: str, target: str, predict: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.getcwd()  # the script imports only optuna_psms.fms transformers
    out = subprocess.run(
        [sys.executable, path, csv, target, "--predict", predict],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return out.stdout.split()


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_classifier_script_predicts_like_the_estimator(tmp_path: Any) -> None:
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:200, :8].copy()
    X["group"] = np.where(np.arange(200) % 3 == 0, "a", "b")
    labels = np.where(y.iloc[:200].to_numpy() == 1, "benign", "malignant")
    space = FullModelSpace(classifiers=["svc"], selectors=["ftest"], preprocessors=["standardize"])
    model = FullModelSelector(
        final_check=None, space=space, sampler="random", n_trials=3, random_state=0, ensemble_top=1
    )
    model.study_name = None
    model.fit(X, labels)
    path = str(tmp_path / "pipeline.py")
    text = model.export_python(path)
    imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
    assert imports and all(
        line.split()[1].split(".")[0] in ("numpy", "sklearn") or " optuna_psms.fms " in line
        for line in imports
    ), imports
    namespace: dict[str, Any] = {}
    exec(compile(text, path, "exec"), namespace)
    fitted = namespace["fit"](X, labels)
    np.testing.assert_array_equal(namespace["predict"](fitted, X), model.predict(X))
    # As a program, on CSV files that also hold an ID the search never saw (a user's
    # `select --drop id`): the script fitted on it as a feature (seen 26 Nov 2026).
    assert namespace["COLUMNS"] == list(X.columns)
    ids = [f"row{i:04d}" for i in range(len(X))]
    frame = X.assign(label=labels).assign(id=ids)
    frame.to_csv(tmp_path / "train.csv", index=False)
    X.assign(id=ids)[["id", *X.columns[::-1]]].to_csv(tmp_path / "new.csv", index=False)
    printed = _run_script(path, str(tmp_path / "train.csv"), "label", str(tmp_path / "new.csv"))
    assert printed == list(model.predict(X))


def _typed(values: Any) -> list[tuple[str, Any]]:
    """Labels with their types: ``True`` and ``1`` compare equal, their types do not."""
    return [(type(v).__name__, v) for v in np.asarray(values, dtype=object).tolist()]


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_classifier_script_keeps_mixed_type_labels(tmp_path: Any) -> None:
    X, y = load_iris(return_X_y=True)
    # Three classes "a", 1 and True: np.unique would fail on them or merge True with 1.
    labels = [["a", 1, True][k] for k in y]
    space = FullModelSpace(classifiers=["logistic", "naive_bayes"], selectors=["none"])
    model = FullModelSelector(
        final_check=None, space=space, sampler="random", n_trials=3, random_state=0, ensemble_top=1
    )
    model.fit(X, labels)
    assert _typed(model.classes_) == [("int", 1), ("bool", True), ("str", "a")]
    path = str(tmp_path / "pipeline.py")
    text = model.export_python(path)
    namespace: dict[str, Any] = {}
    exec(compile(text, path, "exec"), namespace)
    assert namespace["COLUMNS"] is None  # fitted on unnamed columns
    fitted = namespace["fit"](X, labels)
    predicted = namespace["predict"](fitted, X)
    assert _typed(predicted) == _typed(model.predict(X))
    assert set(_typed(predicted)) == set(_typed(model.classes_))  # all three, types kept
    # In a fresh process, as a user would run it.
    np.save(tmp_path / "X.npy", X)
    code = (
        "import json, sys, numpy as np\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import pipeline\n"
        f"X = np.load({str(tmp_path / 'X.npy')!r})\n"
        f"labels = {labels!r}\n"
        "model = pipeline.fit(X, labels)\n"
        "print(json.dumps([[type(v).__name__, v] for v in pipeline.predict(model, X).tolist()]))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert [tuple(p) for p in json.loads(out.stdout)] == _typed(model.predict(X))


@pytest.mark.slow  # > 2 s: the default suite stays under 5 min (2026-11-28)
def test_regressor_script_predicts_like_the_estimator(tmp_path: Any) -> None:
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X, y = X.iloc[:150], y.iloc[:150].to_numpy()
    space = RegressionSpace(regressors=["svr", "xgboost"], selectors=["none", "mask"])
    model = FullModelRegressor(space=space, sampler="random", n_trials=4, cv=2, random_state=0)
    model.fit(X, y)
    path = str(tmp_path / "pipeline.py")
    text = model.export_python(path)
    namespace: dict[str, Any] = {}
    exec(compile(text, path, "exec"), namespace)
    _same_params(namespace["build_pipeline"](), model.best_pipeline_)
    fitted = namespace["fit"](X, y)
    np.testing.assert_array_equal(namespace["predict"](fitted, X), model.predict(X))
    X.assign(target=y).to_csv(tmp_path / "train.csv", index=False)
    X.to_csv(tmp_path / "new.csv", index=False)
    printed = _run_script(path, str(tmp_path / "train.csv"), "target", str(tmp_path / "new.csv"))
    np.testing.assert_allclose(np.asarray(printed, dtype=float), model.predict(X), rtol=1e-12)


def test_trials_table_names_the_trial_ctrl_c_cut(
    raise_in_trials: Callable[[dict[int, BaseException]], None],
) -> None:
    # Optuna fails a trial Ctrl-C cut and records no reason: its error was "", read as a
    # failure nobody explained. Trial 1's pipeline fails, trial 2's CV gets a (simulated) Ctrl-C.
    from optuna_psms.fms import make_objective
    from optuna_psms.fms import trials_table

    raise_in_trials({1: ValueError("broken"), 2: KeyboardInterrupt()})
    X, y = load_iris(return_X_y=True)
    space = FullModelSpace(classifiers=["naive_bayes"], selectors=["none"])
    objective = make_objective(X, y, space=space, random_state=0)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    with pytest.raises(KeyboardInterrupt):
        study.optimize(objective, n_trials=5)
    table = trials_table(study)
    assert table["state"] == ["COMPLETE", "FAIL", "FAIL"]
    assert table["error"] == ["", "ValueError: broken", "interrupted (Ctrl-C)"]


def test_cv_results_table() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    space = FullModelSpace(classifiers=["naive_bayes", "svc"], selectors=["none", "ftest"])
    model = FullModelSelector(
        final_check=None, space=space, sampler="random", n_trials=5, cv=3, random_state=0
    )
    model.fit(X[:150], y[:150])
    table = pd.DataFrame(model.cv_results_)
    assert len(table) == 5
    assert list(table.columns) == [
        "number",
        "state",
        "loss",
        "rank",
        "pipeline",
        "fold_scores",
        "n_features",
        "complexity",
        "fit_time",
        "error",
        "params",
    ]
    best = table.loc[table["rank"] == 1].iloc[0]
    assert best["loss"] == pytest.approx(model.study_.best_value)
    assert best["number"] == model.study_.best_trial.number
    assert all(len(f) == 3 for f in table["fold_scores"])
    assert all(
        np.mean(f) == pytest.approx(v, abs=1e-5) for f, v in zip(table.fold_scores, table.loss)
    )
    assert (table["fit_time"] > 0).all() and (table["state"] == "COMPLETE").all()
