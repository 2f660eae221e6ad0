"""How the files beside this one were made, with optuna-psms 0.1.0 (commit 7b4aa90).

Run once from this folder with that version installed; the tests load what it wrote
(tests/test_compat_v0_1_0.py) to check that a model saved and a study written by 0.1.0
still predict identically and continue exactly.

    python make.py
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import joblib
import numpy as np
import optuna
from sklearn.datasets import load_wine

from optuna_psms import FullModelRegressor
from optuna_psms import FullModelSelector
from optuna_psms import PSOSampler
from optuna_psms import UMDASampler


HERE = pathlib.Path(__file__).parent


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_int("y", -5, 5)
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    return (x - 1) ** 2 + (y + 2) ** 2 + (c != "b")


def studies() -> None:
    """Two studies per sampler: 15 trials saved in SQLite, and 30 in one go (the expectation)."""
    expected = {}
    for name, make in (("pso", PSOSampler), ("umda", UMDASampler)):
        db = HERE / f"{name}_study.db"
        db.unlink(missing_ok=True)
        study = optuna.create_study(
            study_name=name, storage=f"sqlite:///{db}", sampler=make(seed=3)
        )
        study.optimize(objective, n_trials=15)
        whole = optuna.create_study(sampler=make(seed=3))
        whole.optimize(objective, n_trials=30)
        expected[name] = [t.params for t in whole.trials]
    (HERE / "studies_expected.json").write_text(json.dumps(expected, indent=1) + "\n")


def models() -> None:
    X, y = load_wine(return_X_y=True)
    rng = np.random.default_rng(0)
    clf = FullModelSelector(n_trials=10, cv=2, ensemble_top=3, final_check=None, random_state=0)
    clf.fit(X, y)
    joblib.dump(clf, HERE / "selector.joblib")
    reg = FullModelRegressor(n_trials=6, cv=2, random_state=0)
    yr = X[:, 0] * 2 + rng.normal(size=len(X))
    reg.fit(X[:, 1:], yr)
    joblib.dump(reg, HERE / "regressor.joblib")
    X_new = X + rng.normal(scale=0.05, size=X.shape)
    np.savetxt(HERE / "new_rows.csv", X_new, delimiter=",")
    out = {
        "selector_predict": clf.predict(X_new).tolist(),
        "selector_proba": clf.predict_proba(X_new).tolist(),
        "regressor_predict": reg.predict(X_new[:, 1:]).tolist(),
    }
    (HERE / "models_expected.json").write_text(json.dumps(out) + "\n")


def cli_model() -> None:
    """The model ``optuna-psms select`` saves, and its predictions on new rows."""
    subprocess.run(
        [
            "optuna-psms",
            "select",
            "--dataset",
            "sklearn:breast_cancer",
            "--n-trials",
            "8",
            "--cv",
            "2",
            "--seed",
            "0",
            "--ensemble-top",
            "3",
            "--final-check",
            "none",
            "--storage",
            "sqlite:///cli_study.db",
            "--output",
            "cli_model.joblib",
        ],
        cwd=HERE,
        check=True,
    )
    (HERE / "cli_study.db").unlink()
    from sklearn.datasets import load_breast_cancer

    frame = load_breast_cancer(as_frame=True).frame.drop(columns="target").head(60)
    frame.to_csv(HERE / "cli_new.csv", index=False)
    subprocess.run(
        [
            "optuna-psms",
            "predict",
            "--model",
            "cli_model.joblib",
            "--csv",
            "cli_new.csv",
            "--output",
            "cli_predictions.csv",
        ],
        cwd=HERE,
        check=True,
    )
    shutil.rmtree(HERE / "__pycache__", ignore_errors=True)


if __name__ == "__main__":
    studies()
    models()
    cli_model()
